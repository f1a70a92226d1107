"""Tracing: running a Python function on placeholders to build its graph, then optimizing and
compiling it into a ConcreteFunction (`trace`)."""

from __future__ import annotations

import contextlib
import gc
import types

from runtime import context, nest
from runtime.concrete_function import ConcreteFunction
from runtime.conversion import convert_to_tensor
from runtime.errors import a_or_an, with_origin
from runtime.graph import Graph
from runtime.ops.registry import constant_in_graph
from runtime.passes import run_passes
from runtime.signature import TensorSpec, is_tensor_leaf
from runtime.source_info import user_origin
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.tensor_list import TensorList


def trace(fn, name: str, arguments, bind, optimize: bool, jit_compile=None):
    """(ConcreteFunction, variables created) for `fn` traced on `arguments` ((parameter name,
    value) pairs; tensor leaves become placeholders); `bind(traced arguments)` gives the
    (args, kwargs) that `fn` is called with; `jit_compile` names the executor."""
    with collector_paused():
        return _trace(fn, name, arguments, bind, optimize, jit_compile)


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


def _trace(fn, name, arguments, bind, optimize, jit_compile):
    graph = Graph(name)

    def placeholder(value, path):
        if not is_tensor_leaf(value):
            return value
        spec = spec_of(value)
        return graph.add_input(spec.dtype, spec.shape, name=path)

    traced_args = [(n, nest.map_with_paths(placeholder, v, n)) for n, v in arguments]
    args, kwargs = bind(traced_args)
    created: list = []
    with graph.as_default(), context.watching_variable_creation(created):
        outputs = fn(*args, **kwargs)
        outputs = nest.map_with_paths(lambda v, p: _output_tensor(graph, v, p), outputs, "output")
    graph.outputs = [t for t in nest.flatten(outputs) if isinstance(t, SymbolicTensor)]
    optimized = run_passes(graph, optimize, fuse=jit_compile in (None, "auto"))
    specs = [nest.map_with_paths(lambda x, p: spec_of(x), v, n) for n, v in arguments]
    if optimized is not graph:
        outputs = nest.map_with_paths(
            lambda v, p: _translate_output(graph, optimized, v), outputs, "output")
    concrete = ConcreteFunction(
        optimized, name, [n for n, _ in arguments], specs, outputs, traced_graph=graph,
        jit_compile=jit_compile,
    )
    return concrete, created


def spec_of(value):
    """The TensorSpec of a tensor leaf; other leaves (Python values) are returned as they are."""
    if isinstance(value, TensorSpec) or not is_tensor_leaf(value):
        return value
    return TensorSpec.from_tensor(convert_to_tensor(value))


def _output_tensor(graph, value, path):
    if isinstance(value, (types.GeneratorType, map, filter, zip, enumerate)):
        raise TypeError(with_origin(
            f"The function returns {a_or_an(type(value).__name__)} ({path}): it would run "
            "after the function returned, outside the graph. Return a list or tuple instead, "
            "e.g. `return list(...)`.", user_origin()))
    if isinstance(value, TensorList):
        value = value.handle
    if isinstance(value, SymbolicTensor):
        if value.op.graph is not graph:
            raise ValueError(
                f"The function returns {value.name} ({path}), a symbolic tensor of another graph."
            )
        return value
    if isinstance(value, EagerTensor):
        return constant_in_graph(graph, value)
    if hasattr(value, "read_value") and hasattr(value, "assign"):
        return value.read_value()
    return value


def _translate_output(traced, optimized, value):
    """The output of `optimized` that stands where `value` stood in `traced`."""
    if not isinstance(value, SymbolicTensor):
        return value
    index = next(i for i, t in enumerate(traced.outputs) if t is value)
    return optimized.outputs[index]
