"""The gradient rules of the reductions (ops/reduction_ops.py). They live above the op modules
whose wrappers they call (array_ops, which sums broadcast gradients with reduction_ops, and
math_ops), so that the op modules import each other in one direction only; the rest of each
reduction's rules stays beside it in reduction_ops.
"""

from __future__ import annotations

from runtime.ops import array_ops, math_ops, shapes
from runtime.ops.basic_ops import cast, ones_like, zeros_like
from runtime.ops.reduction_ops import (
    ALL,
    ANY,
    ARGMAX,
    ARGMIN,
    MAX,
    MEAN,
    MIN,
    PROD,
    SUM,
    reduce_prod,
    reduce_sum,
)
from runtime.ops.registry import GRADIENT, lacks, register_rule


def restore_axes(grad, x, axis, keepdims):
    """A reduction's output gradient with the reduced axes put back (size 1), ready to
    broadcast against `x`."""
    if keepdims or axis is None and len(grad.shape) == 0:
        return grad if keepdims else array_ops.reshape(grad, [1] * x.ndim)
    axes = (axis,) if isinstance(axis, int) else tuple(range(x.ndim)) if axis is None else axis
    for a in sorted(shapes.normalize_axis(a, x.ndim, "reduction") for a in axes):
        grad = array_ops.expand_dims(grad, a)
    return grad


@register_rule(GRADIENT, SUM)
def _sum_gradient(op, grads):
    x = op.inputs[0]
    restored = restore_axes(grads[0], x, op.attrs["axis"], op.attrs["keepdims"])
    return [array_ops.broadcast_like(restored, x)]


@register_rule(GRADIENT, MEAN)
def _mean_gradient(op, grads):
    x, y = op.inputs[0], op.outputs[0]
    count = cast(array_ops.size(x), x.dtype) / cast(array_ops.size(y), x.dtype)
    restored = restore_axes(grads[0], x, op.attrs["axis"], op.attrs["keepdims"])
    return [array_ops.broadcast_like(restored, x) / count]


def _extremum_gradient(op, grads):
    """The gradient goes to the elements equal to the max (min), shared equally by ties."""
    x = op.inputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    y = restore_axes(op.outputs[0], x, axis, keepdims)
    chosen = cast(math_ops.equal(x, y), x.dtype)
    ties = restore_axes(reduce_sum(chosen, axis, keepdims), x, axis, keepdims)
    return [chosen * (restore_axes(grads[0], x, axis, keepdims) / ties)]


register_rule(GRADIENT, MAX, MIN)(_extremum_gradient)


@register_rule(GRADIENT, PROD)
def _prod_gradient(op, grads):
    """The product of the other elements: y / x where no element is zero; where one is, only
    that element gets the product of the others; with two or more, all get zero."""
    x = op.inputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    zero = math_ops.equal(x, 0.0)
    nonzero = math_ops.where(zero, ones_like(x), x)
    others = reduce_prod(nonzero, axis, keepdims=True)
    zeros = reduce_sum(cast(zero, x.dtype), axis, keepdims=True)
    lone_zero = math_ops.logical_and(zero, math_ops.equal(zeros, 1.0))
    nothing = zeros_like(x)
    local = math_ops.where(math_ops.equal(zeros, 0.0), others / nonzero,
                           math_ops.where(lone_zero, others, nothing))
    return [local * restore_axes(grads[0], x, axis, keepdims)]


lacks(GRADIENT, "bool results", ANY, ALL)
lacks(GRADIENT, "integer results", ARGMAX, ARGMIN)
