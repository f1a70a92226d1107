"""Tracing: running a Python function on placeholders to build its graph, then optimizing and
compiling it into a ConcreteFunction (`trace`)."""

from __future__ import annotations

import contextlib
import gc

import numpy as np

from runtime import config, nest
from runtime.core import context
from runtime.core.graph import Graph
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import ForeignTensorError, OperatorNotAllowedInGraphError, with_origin
from runtime.executor import registry as executors
from runtime.passes import prune, run_passes
from runtime.tracing import outside_state
from runtime.tracing.concrete_function import ConcreteFunction, translate_outputs
from runtime.tracing.inline import graph_output
from runtime.tracing.signature import TensorSpec, is_tensor_leaf


def trace(fn, name: str, arguments, bind, optimize: bool, jit_compile=None, defer=False,
          failed=None, outside_arrays=None):
    """(ConcreteFunction, variables created) for `fn` traced on `arguments` ((parameter name,
    value) pairs; tensor leaves become placeholders); `bind(traced arguments)` gives the
    (args, kwargs) that `fn` is called with; `jit_compile` names the executor; `defer`
    leaves optimizing and compiling to the first use of the compiled graph; `failed(graph)` is
    called when `fn` raises; `outside_arrays()`: the ids of the outside numpy arrays `fn` may
    return as they are (any other array it returns is copied at each call)."""
    with collector_paused():
        return _trace(fn, name, arguments, bind, optimize, jit_compile, defer, failed,
                      outside_arrays)


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while a graph is built, optimized and compiled: it
    would walk the growing graph again and again (tracing 30,000 ops took 60% longer with it
    on). The cycles made meanwhile are collected afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _trace(fn, name, arguments, bind, optimize, jit_compile, defer, failed, outside_arrays):
    graph = Graph(name)

    def placeholder(value, path):
        if not is_tensor_leaf(value):
            return value
        spec = spec_of(value)
        tensor = graph.add_input(spec.dtype, spec.shape, name=path)
        tensor.weak = spec.weak  # (a Python number's stand-in from a caller stays one)
        graph.argument_inputs[id(tensor)] = len(graph.argument_inputs)
        return tensor

    traced_args = [(n, nest.map_with_paths(placeholder, v, n)) for n, v in arguments]
    containers = [(n, v, _contents(v)) for n, v in traced_args if nest.is_nested(v)]
    args, kwargs = bind(traced_args)
    created, writes = [], []
    with graph.as_default(), context.watching_variable_creation(created), \
            context.watching_staged_writes(writes):
        try:
            returned = outputs = fn(*args, **kwargs)
            _refuse_changed_arguments(containers)
            outputs = nest.map_with_paths(lambda v, p: graph_output(graph, v, p), outputs,
                                          "output")
            # (after the outputs: containers are new; a list the function returned itself is
            # one a graph `if`/loop must not have changed in place)
            outside_state.check(writes, outputs, returned)
        except ForeignTensorError as e:  # a placeholder an `if`/loop left in outside state?
            refusal = outside_state.refusal_for(writes, e)
            outside_state.restore(writes)
            if failed is not None:
                failed(graph)
            if refusal is None:
                raise
            raise refusal from None
        except BaseException:
            outside_state.restore(writes)
            if failed is not None:
                failed(graph)
            raise
    graph.outputs = [t for t in nest.flatten(outputs) if isinstance(t, SymbolicTensor)]
    specs = [nest.map_with_paths(lambda x, p: spec_of(x), v, n) for n, v in arguments]
    names = [n for n, _ in arguments]
    shared = frozenset()  # (the function's code is read only when it returned an array)
    if outside_arrays is not None and any(type(v) is np.ndarray for v in nest.flatten(outputs)):
        shared = outside_arrays()
    if defer:
        prune.transform(graph)
        concrete = ConcreteFunction(graph, name, names, specs, outputs, traced_graph=graph,
                                    optimized=optimize and config.graphs_optimized(),
                                    jit_compile=jit_compile, deferred=True,
                                    shared_arrays=shared)
        concrete.in_place_arguments = tuple(graph.in_place_arguments)
        return concrete, created
    optimized = run_passes(graph, optimize, fuse=executors.fusion(jit_compile))
    concrete = ConcreteFunction(
        optimized, name, names, specs, translate_outputs(outputs, graph, optimized),
        traced_graph=graph, jit_compile=jit_compile,
        python_numbers=tuple(isinstance(leaf, SymbolicTensor) and leaf.weak
                             for leaf in nest.flatten(outputs)),
        shared_arrays=shared,
    )
    concrete.in_place_arguments = tuple(graph.in_place_arguments)
    return concrete, created


def _contents(value) -> list:
    """What a container argument holds: (path, id) of each leaf, in order."""
    return [(path, id(leaf)) for path, leaf in nest.flatten_with_paths(value)]


def _refuse_changed_arguments(containers) -> None:
    """Refuses a trace whose function changed a list or dict it was passed (`params["lr"] =
    ...`, `log.append(v)`): it traced a copy (its tensors are the graph's inputs), so the
    caller's object would never change, where plain Python changes it at every call."""
    for name, value, before in containers:
        if _contents(value) != before:
            raise OperatorNotAllowedInGraphError(with_origin(
                f"The function changed its argument '{name}' (a {type(value).__name__}) in "
                "place. A graph traces a copy of the lists and dicts it is passed, so the "
                "caller's object would not change, where plain Python changes it at every "
                "call. Return the new values instead (e.g. `return y, new_params`), or keep "
                "state that changes in an rt.Variable.", user_origin()))


def spec_of(value):
    """The TensorSpec of a tensor leaf; other leaves (Python values) are returned as they are."""
    if isinstance(value, TensorSpec) or not is_tensor_leaf(value):
        return value
    return TensorSpec.from_tensor(convert_to_tensor(value))
