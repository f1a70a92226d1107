"""`rt.function(f, check=True)`: every call also runs `f` as plain Python on eager tensors and
compares. At the first difference it raises `rt.errors.CheckError`, saying where the values
part: the first op of the compiled graph whose value differs from the same op of the graph as
traced (both run by the reference interpreter: a pass changed the result), or else that the
traced graph itself differs from Python (conversion or tracing), and at which output.
"""

from __future__ import annotations

import numpy as np

from runtime import nest
from runtime.errors import CheckError, with_origin
from runtime.executor.interpreter import run_graph_values
from runtime.tensor import Tensor


def check_call(function, concrete, args, kwargs, values, result) -> None:
    """Raises CheckError when `result` (the graph's) differs from `function` run eagerly;
    `values` are the numpy values of the graph's inputs."""
    expected = function.python_function(*args, **kwargs)
    problem = _difference(result, expected)
    if problem is None:
        return
    where = _first_divergent_op(concrete, values)
    raise CheckError(f"check=True: rt.function '{function.__name__}' and plain Python disagree: "
                     f"{problem}. {where}")


def _difference(actual, expected) -> str | None:
    flat_a, flat_e = nest.flatten(actual), nest.flatten(expected)
    if len(flat_a) != len(flat_e):
        return f"the graph returns {len(flat_a)} values, Python {len(flat_e)}"
    for i, (a, e) in enumerate(zip(flat_a, flat_e)):
        x = np.asarray(a.numpy() if isinstance(a, Tensor) else a)
        y = np.asarray(e.numpy() if isinstance(e, Tensor) else e)
        if not _close(x, y):
            return f"output {i} is {x!r} in the graph but {y!r} in Python"
    return None


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
        if twin is None or op.type == "Placeholder" or len(op.outputs) != len(twin.outputs):
            continue
        for out, ref in zip(op.outputs, twin.outputs):
            got, want = compiled.get(id(out)), traced.get(id(ref))
            if got is None or want is None:
                continue
            if not _close(np.asarray(got), np.asarray(want)):
                return with_origin(
                    f"The values first part at {op.type} op '{op.name}': {np.asarray(got)!r} "
                    f"after the graph passes, {np.asarray(want)!r} as traced (a pass changed "
                    "the result).", op.origin)
    outputs = run_graph_values(concrete.traced_graph, values)
    if all(_close(np.asarray(outputs[id(t)]), np.asarray(compiled[id(u)]))
           for t, u in zip(concrete.traced_graph.outputs, concrete.graph.outputs)):
        return "The traced graph already differs from Python: the difference comes from tracing."
    return "The graph passes changed the result (in an op they made)."
