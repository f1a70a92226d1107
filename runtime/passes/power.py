"""Strength reduction of `x ** c` for a constant exponent `c`.

Guarantees after this pass, for Pow ops whose exponent is a Const with every element equal to
`c` and whose result has `x`'s dtype and shape:
- `c == 2`: arrays (rank >= 1) become `Square(x)`; integer scalars become `x * x` (the fast
  emitted scalar path). Float scalars are left alone: numpy's scalar `**` calls C `pow`, which
  can differ from `x * x` in the last bit.
- `c == 1`: the Pow is removed (`x ** 1` is `x`, bit for bit), unless the graph may return
  its array (a new one in plain Python).
- `c == 0.5`: float32/float64 arrays become `Sqrt(x)`; numpy's own power loop takes that path
  (so -0.0, -inf and NaN agree too). Not float16 and not scalars, which differ.
Each rewrite is bit-identical to numpy 2's `np.power` / `**` on the same values (the tests check
that bit for bit). `x ** 2` through `np.power` on a big array is much slower than `np.square`.
"""

from __future__ import annotations

from runtime.core.graph import Graph
from runtime.ops.math_ops import MUL, POW, SQRT, SQUARE
from runtime.passes.rewrite import (
    all_equal_to,
    const_value,
    graphs_outer_first,
    rewrite,
    shared_with_results,
)


def transform(graph: Graph) -> None:
    """Rewrites constant powers in `graph` and its sub-graphs, in place."""
    for g, _ in graphs_outer_first(graph):
        shared = shared_with_results(g)
        rewrite(g, lambda op, g=g, shared=shared: _visit(g, op, shared))


def _visit(graph: Graph, op, shared):
    if op.opdef is not POW:
        return None
    x, exponent = op.inputs
    out = op.outputs[0]
    if x.dtype is not out.dtype or tuple(x.shape) != tuple(out.shape):
        return None
    value = const_value(exponent)
    is_array = len(out.shape) > 0
    if all_equal_to(value, 1):  # (not a result's array: plain Python's `x ** 1` is a new one)
        return None if is_array and id(out) in shared else [x]
    if all_equal_to(value, 2):
        if is_array:
            return [_unary(graph, SQUARE, x, op)]
        if out.dtype.is_integer:
            return graph.create_op(MUL, [x, x], {}, [(out.dtype, out.shape)], op.origin).outputs
        return None
    if all_equal_to(value, 0.5) and is_array and out.dtype.name in ("float32", "float64"):
        return [_unary(graph, SQRT, x, op)]
    return None


def _unary(graph: Graph, opdef, x, op):
    out = op.outputs[0]
    return graph.create_op(opdef, [x], {}, [(out.dtype, out.shape)], op.origin).outputs[0]
