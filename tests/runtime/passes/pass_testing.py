"""Helpers of the graph-pass tests: trace a function without optimizing, apply one pass to a
copy, check the copy with `lint()` and that it computes the same bits as before (compiled
executor and reference interpreter)."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.executor import codegen
from runtime.executor.interpreter import run_graph
from runtime.passes import prune


def tensors(args) -> list:
    """Numpy arguments as tensors (the graph's inputs)."""
    return [a if isinstance(a, rt.Tensor) else rt.constant(a) for a in args]


def values(args) -> list:
    return [t.numpy() for t in tensors(args)]


def traced(fn, *args):
    """The pruned, unoptimized graph of `fn` for these arguments (a copy, free to change)."""
    function = rt.function(fn, autograph=False, optimize=False)
    return function.get_concrete_function(*tensors(args)).graph.copy()


def run(graph, *args) -> list:
    """`graph`'s outputs for `args`, through the compiled executor."""
    fn, _ = codegen.compile_graph(graph)
    with np.errstate(all="ignore"):
        return list(fn(*values(args)))


def interpret(graph, *args) -> list:
    with np.errstate(all="ignore"):
        return run_graph(graph, values(args))


def op_types(graph) -> list[str]:
    """Op types of `graph` and its sub-graphs, placeholders left out."""
    return [op.type for op in graph.walk() if op.type != "Placeholder"]


def bits(value) -> tuple:
    array = np.asarray(value)
    return array.dtype.str, array.shape, array.tobytes()


def assert_same_bits(got: list, want: list) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert bits(g) == bits(w), f"output {i}: {g!r} != {w!r}"
        assert np.ndim(g) > 0 or not isinstance(g, np.ndarray), f"output {i} is a 0-d array"


def apply_pass(transform, fn, *args):
    """The graph of `fn` after `transform` and pruning, checked: lint passes and results are
    unchanged."""
    graph = traced(fn, *args)
    before = run(graph, *args)
    transform(graph)
    prune.transform(graph)  # as the pipeline does: drop what the pass left unused
    graph.lint()
    assert_same_bits(run(graph, *args), before)
    assert_same_bits(interpret(graph, *args), before)
    return graph
