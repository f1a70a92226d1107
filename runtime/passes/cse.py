"""Common-subexpression elimination.

Guarantees after this pass: within each graph (and each sub-graph, separately), no two pure ops
(not stateful, not reading variables, not control flow) have the same op type, the same input
tensors and equal attrs; later duplicates are replaced by the first one, except where the
graph's results may be arrays of both (two results of the code are two arrays). Const ops with equal
dtype, shape and bytes count as duplicates too (small ones only). Values are unchanged: a pure
op computes the same bits from the same inputs.
"""

from __future__ import annotations

import numpy as np

from runtime.core.dtypes import DType
from runtime.core.graph import Graph
from runtime.passes.rewrite import graphs_outer_first, is_pure, rewrite, shared_with_results

MAX_CONST_BYTES = 1 << 12  # larger constants are not compared byte by byte


class _Unhashable(Exception):
    pass


def transform(graph: Graph) -> None:
    """Merges duplicate pure ops in `graph` and its sub-graphs, in place."""
    for g, _ in graphs_outer_first(graph):
        seen: dict = {}
        shared = shared_with_results(g)

        def visit(op, seen=seen, shared=shared):
            if not is_pure(op):
                return None
            key = _key(op)
            if key is None:
                return None
            first = seen.setdefault(key, op)
            if first is op:
                return None
            first_shared, op_shared = _shares_a_result(first, shared), _shares_a_result(op, shared)
            if first_shared and op_shared:
                return None  # (two results of the code are two arrays)
            if op_shared:
                shared.update(id(t) for t in first.outputs)
            return first.outputs

        rewrite(g, visit)


def _shares_a_result(op, shared) -> bool:
    """Whether an array `op` makes may be a result of the graph (see shared_with_results)."""
    return any(len(t.shape) and id(t) in shared for t in op.outputs)


def _key(op):
    """A hashable description of what `op` computes, or None when it cannot be compared."""
    try:
        attrs = tuple(sorted((k, _attr_key(v)) for k, v in op.attrs.items()))
    except _Unhashable:
        return None
    specs = tuple((t.dtype, tuple(t.shape)) for t in op.outputs)
    return op.opdef, tuple(id(t) for t in op.inputs), attrs, specs


def _attr_key(value):
    if isinstance(value, np.ndarray):
        if value.dtype == object or value.nbytes > MAX_CONST_BYTES:
            raise _Unhashable
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_attr_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((k, _attr_key(v)) for k, v in value.items())))
    if isinstance(value, (float, np.floating)):
        return (type(value).__name__, repr(value))  # tells -0.0 from 0.0
    if value is None or isinstance(value, (bool, int, str, bytes, DType, np.generic)):
        return (type(value).__name__, value)
    raise _Unhashable  # e.g. a variable or a sub-graph: compare by identity only in stateful ops
