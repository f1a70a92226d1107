"""Exact algebraic simplification.

Guarantees after this pass: none of these patterns remains where the rewrite keeps the result's
dtype and shape (so the value is bit-identical): `x * 1`, `1 * x`, `x / 1`, `x - 0` (non-bool),
`x + 0` and `0 + x` (integers only: for floats `-0.0 + 0.0` is `+0.0`), `-(-x)` (numeric,
non-bool), `not (not x)`, `x and True`, `x or False` (either order), transpose of transpose
(composed permutation is the identity), a transpose by the identity permutation, a cast to the
tensor's own dtype, and `identity(x)`. The constant operand must be a Const whose every element
equals the neutral value (with its sign). An array a graph returns (or a view of it returns) is
not rewritten to another tensor, as plain Python's `x * 1` is a new array. Also
`x and False` / `x or True` become a Const (when the result's shape is known): the loop test of
a `for` over `rt.range` with a constant step is then just `i < limit`; and `zeros_like(x)` /
`ones_like(x)` of a shape known while tracing become a Const (small ones, and not results of
the graph with elements: each call returns a fresh array).
"""

from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph
from runtime.ops import shapes
from runtime.ops.array_ops import IDENTITY, TRANSPOSE
from runtime.ops.creation_ops import ONES_LIKE, ZEROS_LIKE
from runtime.ops.math_ops import ADD, CAST, DIV, LOGICAL_AND, LOGICAL_NOT, LOGICAL_OR, MUL, NEG, SUB
from runtime.ops.registry import CONST
from runtime.passes import constant_folding
from runtime.passes.rewrite import (
    add_const,
    all_equal_to,
    const_value,
    graphs_outer_first,
    rewrite,
    shared_with_results,
)


def transform(graph: Graph) -> None:
    """Applies the exact rewrites to `graph` and its sub-graphs, in place."""
    for g, _ in graphs_outer_first(graph):
        shared = shared_with_results(g)
        rewrite(g, lambda op, shared=shared: _visit(op, shared))


def _visit(op, shared):
    rule = _RULES.get(op.opdef)
    if rule is None:
        return None
    x = rule(op)
    if x is None:
        return None
    out = op.outputs[0]
    if x.dtype is not out.dtype or tuple(x.shape) != tuple(out.shape):
        return None
    if len(out.shape) and id(out) in shared and x.op.opdef is not CONST:
        return None  # (a result the code computed, or a view of it, is a new array's)
    return [x]


def _neutral_operand(op, number, commutative: bool):
    """The non-constant operand when the other one is `number` everywhere."""
    a, b = op.inputs
    if all_equal_to(const_value(b), number):
        return a
    if commutative and all_equal_to(const_value(a), number):
        return b
    return None


def _add(op):
    if not op.outputs[0].dtype.is_integer:
        return None
    return _neutral_operand(op, 0, commutative=True)


def _sub(op):
    if op.outputs[0].dtype.is_bool:
        return None  # numpy refuses to subtract bools; keep the error where it was
    return _neutral_operand(op, 0, commutative=False)


def _logical(neutral: bool):
    """`x and True` -> x, `x and False` -> False (neutral=True); the same for `or` with the
    truth values swapped (neutral=False)."""

    def rule(op):
        x = _neutral_operand(op, neutral, commutative=True)
        if x is not None:
            return x
        out = op.outputs[0]
        if not out.shape.is_fully_defined() or (
                shapes.num_elements(out.shape) > constant_folding.MAX_FOLDED_ELEMENTS):
            return None  # a constant this big costs memory: the op stays
        if any(all_equal_to(const_value(t), not neutral) for t in op.inputs):
            value = np.full(tuple(out.shape), not neutral)
            return add_const(op.graph, value, out.dtype, op.origin)
        return None

    return rule


def _double(opdef, numeric_only):
    def rule(op):
        inner = op.inputs[0]
        if inner.op.opdef is not opdef:
            return None
        if numeric_only and (inner.dtype.is_bool or inner.dtype.is_string):
            return None
        return inner.op.inputs[0]

    return rule


def _transpose(op):
    perm = op.attrs["perm"]
    if list(perm) == list(range(len(perm))):
        return op.inputs[0]
    inner = op.inputs[0]
    if inner.op.opdef is not TRANSPOSE:
        return None
    inner_perm = inner.op.attrs["perm"]
    composed = [inner_perm[p] for p in perm]
    return inner.op.inputs[0] if composed == list(range(len(perm))) else None


def _filled(number):
    """`zeros_like(x)` / `ones_like(x)` of a shape known while tracing -> a Const (small ones,
    and not a result of the graph with elements: each call returns a fresh array)."""

    def rule(op):
        out = op.outputs[0]
        if not out.shape.is_fully_defined() or (
                shapes.num_elements(out.shape) > constant_folding.MAX_FOLDED_ELEMENTS) or (
                len(out.shape) and any(t is out for t in op.graph.outputs)):
            return None
        value = np.full(tuple(out.shape), number, dtype=out.dtype.np_dtype)
        return add_const(op.graph, value, out.dtype, op.origin)

    return rule


# The rewrites, by op (this pass's own table: the patterns span several ops).
_RULES = {
    MUL: lambda op: _neutral_operand(op, 1, commutative=True),
    DIV: lambda op: _neutral_operand(op, 1, commutative=False),
    SUB: _sub,
    ADD: _add,
    NEG: _double(NEG, numeric_only=True),
    LOGICAL_NOT: _double(LOGICAL_NOT, numeric_only=False),
    LOGICAL_AND: _logical(neutral=True),
    LOGICAL_OR: _logical(neutral=False),
    TRANSPOSE: _transpose,
    CAST: lambda op: op.inputs[0] if op.inputs[0].dtype is op.attrs["dtype"] else None,
    IDENTITY: lambda op: op.inputs[0],
    ZEROS_LIKE: _filled(0),
    ONES_LIKE: _filled(1),
}
