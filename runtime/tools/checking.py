"""`rt.function(f, check=True)`: every call also runs `f` as plain Python on eager tensors and
compares. At the first difference it raises `rt.errors.CheckError`, saying where the values
part: the first op of the compiled graph whose value differs from the same op of the graph as
traced (both run by the reference interpreter: a pass changed the result), or else that the
traced graph itself differs from Python (conversion or tracing), and at which output.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from runtime.core.tensor import Tensor
from runtime.errors import CheckError, a_or_an, with_origin
from runtime.executor.interpreter import run_graph_values
from runtime.ops.registry import PLACEHOLDER

_told_unchecked: weakref.WeakSet = weakref.WeakSet()  # the functions told that they are not checked


def check_call(function, concrete, args, kwargs, values, result) -> None:
    """Raises CheckError when `result` (the graph's) differs from `function` run eagerly;
    `values` are the numpy values of the graph's inputs. A graph with effects (variables,
    printing, random numbers) is not checked: running it again would repeat them."""
    if _has_effects(concrete.graph):
        if function not in _told_unchecked:
            _told_unchecked.add(function)
            warnings.warn(f"check=True does not check rt.function '{function.__name__}': it has "
                          "effects (variables, printing, random numbers) that a second run "
                          "would repeat.", stacklevel=4)
        return
    expected = function.python_function(*args, **kwargs)
    problem = _difference(result, expected)
    if problem is None:
        return
    where = _first_divergent_op(concrete, values)
    raise CheckError(f"check=True: rt.function '{function.__name__}' and plain Python disagree: "
                     f"{problem}. {where}")


def _has_effects(graph) -> bool:
    return any(op.opdef.stateful or any(_has_effects(g) for g in op.subgraphs())
               for op in graph.operations)


def _difference(actual, expected, path="the result") -> str | None:
    """How the graph's result differs from Python's (structure, dtype, value), or None."""
    if isinstance(expected, (list, tuple, dict)):
        if type(actual) is not type(expected) or len(actual) != len(expected) or (
                isinstance(expected, dict) and isinstance(actual, dict)
                and actual.keys() != expected.keys()):
            return f"{path} is {_kind(actual)} in the graph but {_kind(expected)} in Python"
        keys = expected.keys() if isinstance(expected, dict) else range(len(expected))
        for k in keys:
            found = _difference(actual[k], expected[k], f"{path}[{k!r}]")
            if found is not None:
                return found
        return None
    if expected is None or isinstance(expected, str):
        return None if actual == expected else (
            f"{path} is {actual!r} in the graph but {expected!r} in Python")
    x = np.asarray(actual.numpy() if isinstance(actual, Tensor) else actual)
    y = np.asarray(expected.numpy() if isinstance(expected, Tensor) else expected)
    weak = type(expected) in (bool, int, float)  # a Python number: any dtype of its kind
    same_kind = x.dtype.kind == y.dtype.kind or (weak and x.dtype.kind in "iuf"
                                                and y.dtype.kind in "iuf")
    if not same_kind or (not weak and x.dtype != y.dtype) or not _close(x, y):
        return f"{path} is {x!r} in the graph but {y!r} in Python"
    return None


def _kind(value) -> str:
    if isinstance(value, dict):
        return f"a dict with keys {sorted(map(repr, value))}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)}"
    return a_or_an(type(value).__name__)


def _close(x, y) -> bool:
    if x.shape != y.shape:
        return False
    if x.dtype.kind in "fc" or y.dtype.kind in "fc":
        return bool(np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True))
    return bool(np.array_equal(x, y))


def _first_divergent_op(concrete, values) -> str:
    if concrete.graph is concrete.traced_graph:
        return "The graph ran as traced (no passes): the difference comes from tracing."
    traced = run_graph_values(concrete.traced_graph, values)
    compiled = run_graph_values(concrete.graph, values)
    by_name = {op.name: op for op in concrete.traced_graph.operations}
    for op in concrete.graph.operations:
        twin = by_name.get(op.name)
        if twin is None or op.opdef is PLACEHOLDER or len(op.outputs) != len(twin.outputs):
            continue
        for out, ref in zip(op.outputs, twin.outputs):
            got, want = compiled.get(id(out)), traced.get(id(ref))
            if got is None or want is None:
                continue
            if not _close(np.asarray(got), np.asarray(want)):
                return with_origin(
                    f"The values first differ at {op.type} op '{op.name}': {np.asarray(got)!r} "
                    f"after the graph passes, {np.asarray(want)!r} as traced (a pass changed "
                    "the result).", op.origin)
    outputs = run_graph_values(concrete.traced_graph, values)
    if all(_close(np.asarray(outputs[id(t)]), np.asarray(compiled[id(u)]))
           for t, u in zip(concrete.traced_graph.outputs, concrete.graph.outputs)):
        return "The traced graph already differs from Python: the difference comes from tracing."
    return "The graph passes changed the result (in an op they made)."
