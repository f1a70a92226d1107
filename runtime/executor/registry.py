"""The executors a graph can be compiled for, by the name `rt.function(jit_compile=...)` takes.

Each is registered with `@executor(name)` as a function `compile(graph, swap)` -> (function of
the input values -> tuple of outputs, Generated); `swap(run)` makes the graph run with `run`
from then on (the tiered executor calls it once numba has compiled the graph). The optional
backends (numba, JAX) are imported only when a graph is compiled for them.
"""

from __future__ import annotations

from runtime.executor import numba_fused, python_floats, tiering
from runtime.passes.fusion import ALL, NONE, Mode

EXECUTORS: dict = {}  # name -> compile(graph, swap), in the order the names are listed


def executor(name):
    """Registers the decorated `compile(graph, swap)` as the executor called `name`."""
    def register(compile_graph):
        EXECUTORS[name] = compile_graph
        return compile_graph

    return register


def compile_graph(name, graph, swap):
    """(run, Generated) of `graph` compiled for executor `name` (a name not registered: the
    default executor's)."""
    return EXECUTORS.get(name, _python_over_numpy)(graph, swap)


@executor(None)
def _python_over_numpy(graph, swap):
    return python_floats.compile_graph(graph)


@executor("auto")
def _tiered(graph, swap):
    return tiering.compile_graph(graph, swap=swap)


@executor("numba")
def _numba(graph, swap):
    from runtime.executor import numba_backend

    return numba_backend.compile_graph(graph)


@executor("xla")
def _xla(graph, swap):
    from runtime.executor import jax_backend

    return jax_backend.compile_graph(graph)


def fusion(name) -> Mode:
    """Which chains the fusion pass fuses for executor `name` (passes.optimize_graph's `fuse`):
    all for numpy code, the float chains a sum reads that numba's loop computes as the unfused
    ops do for numba (which fuses the other chains itself), none for XLA (which fuses
    everything itself)."""
    if name == "numba":
        return numba_fused.FUSION
    return NONE if name == "xla" else ALL


def place(name, graph) -> str:
    """Where `graph`, compiled for the executor called `name`, runs (and for "auto", why)."""
    if name == "auto":
        return tiering.place(graph)
    if name in ("numba", "xla"):
        return {"numba": "numba", "xla": "XLA (through JAX)"}[name]
    return "the default executor (numpy code{})".format(
        ", its float64 scalars as Python floats" if python_floats.applies(graph) else "")
