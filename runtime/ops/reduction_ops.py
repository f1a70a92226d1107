"""Reductions over axes: sum, mean, max, min, prod, any, all, argmax, argmin."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.conversion import convert_to_tensor
from runtime.ops import shapes
from runtime.ops.registry import GRADIENT, REDUCTION, apply, define_op, lacks, register_rule
from runtime.tensor import normalize


def _axis_attr(axis):
    """None, an int, or a tuple of ints, from Python ints, lists or an eager tensor."""
    if axis is None:
        return None
    axes = shapes.static_ints(axis, "the reduction axis")
    return axes if isinstance(axis, (list, tuple)) or np.ndim(axis) else axes[0]


def _reduction(name, kernel, dtype=None):
    def infer(inputs, *, axis, keepdims):
        x = inputs[0]
        return [(dtype or x.dtype, shapes.reduce(x.shape, axis, keepdims))]

    def run(x, *, axis, keepdims):
        out = kernel(x, axis=axis, keepdims=keepdims)
        if dtype is None and out.dtype != x.dtype:
            out = out.astype(x.dtype)
        return normalize(out)

    return define_op(name, infer=infer, kernel=run, groups=[REDUCTION])


SUM = _reduction("Sum", np.sum)
MEAN = _reduction("Mean", np.mean)
MAX = _reduction("Max", np.max)
MIN = _reduction("Min", np.min)
PROD = _reduction("Prod", np.prod)
ANY = _reduction("Any", np.any, dtypes.bool_)
ALL = _reduction("All", np.all, dtypes.bool_)


def _reduce(opdef, x, axis, keepdims, bool_only=False):
    x = convert_to_tensor(x)
    if bool_only and not x.dtype.is_bool:
        raise TypeError(f"{opdef.name} needs a bool tensor, got {x.dtype.name}.")
    if not bool_only and (x.dtype.is_string or x.dtype.is_bool):
        raise TypeError(f"{opdef.name} does not accept {x.dtype.name} tensors; use rt.cast first.")
    axis = _axis_attr(axis)
    shapes.static_check(shapes.reduce, x.shape, axis, keepdims)  # eagerly too
    return apply(opdef, [x], {"axis": axis, "keepdims": bool(keepdims)})


def reduce_sum(input_tensor, axis=None, keepdims=False):
    """Sum over `axis` (all axes when None), keeping them as size 1 when `keepdims`."""
    return _reduce(SUM, input_tensor, axis, keepdims)


def reduce_mean(input_tensor, axis=None, keepdims=False):
    """Mean over axes; for integer tensors the result is truncated to the integer dtype."""
    return _reduce(MEAN, input_tensor, axis, keepdims)


def reduce_max(input_tensor, axis=None, keepdims=False):
    """Maximum over `axis` (all axes when None); NaN if any reduced value is NaN."""
    return _reduce(MAX, input_tensor, axis, keepdims)


def reduce_min(input_tensor, axis=None, keepdims=False):
    """Minimum over `axis` (all axes when None); NaN if any reduced value is NaN."""
    return _reduce(MIN, input_tensor, axis, keepdims)


def reduce_prod(input_tensor, axis=None, keepdims=False):
    """Product over `axis` (all axes when None)."""
    return _reduce(PROD, input_tensor, axis, keepdims)


def reduce_any(input_tensor, axis=None, keepdims=False):
    """Logical or of a bool tensor over `axis` (all axes when None)."""
    return _reduce(ANY, input_tensor, axis, keepdims, bool_only=True)


def reduce_all(input_tensor, axis=None, keepdims=False):
    """Logical and of a bool tensor over `axis` (all axes when None)."""
    return _reduce(ALL, input_tensor, axis, keepdims, bool_only=True)


def _arg_reduction(name, kernel):
    def infer(inputs, *, axis, output_type):
        return [(output_type, shapes.reduce(inputs[0].shape, axis, False))]

    def run(x, *, axis, output_type):
        return normalize(kernel(x, axis=axis).astype(output_type.np_dtype))

    return define_op(name, infer=infer, kernel=run, groups=[REDUCTION])


ARGMAX = _arg_reduction("ArgMax", np.argmax)
ARGMIN = _arg_reduction("ArgMin", np.argmin)


def _arg(opdef, x, axis, output_type, name):
    x = convert_to_tensor(x)
    axis = 0 if axis is None else shapes.static_ints(axis, f"{name}'s axis")[0]
    shapes.static_check(shapes.normalize_axis, axis, x.ndim, name)
    if x.dtype.is_string:
        raise TypeError(f"{name} does not accept string tensors.")
    output_type = dtypes.as_dtype(output_type)
    if output_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"{name}: output_type must be rt.int32 or rt.int64, not {output_type.name}.")
    return apply(opdef, [x], {"axis": axis, "output_type": output_type})


def argmax(input, axis=None, output_type=dtypes.int64):  # noqa: A002 - TensorFlow's name
    """Index of the largest value along `axis` (default 0); an empty axis is an
    InvalidArgumentError."""
    return _arg(ARGMAX, input, axis, output_type, "argmax")


def argmin(input, axis=None, output_type=dtypes.int64):  # noqa: A002 - TensorFlow's name
    """Index of the smallest value along `axis` (default 0)."""
    return _arg(ARGMIN, input, axis, output_type, "argmin")


# ---- summing a broadcast gradient back to its operand's shape -------------------------------

def _sum_to_shape_kernel(grad, shape):
    shape = tuple(int(d) for d in shape)
    lead = np.ndim(grad) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and np.shape(grad)[lead + i] != 1)
    total = np.sum(grad, axis=axes, keepdims=True) if axes else np.asarray(grad)
    return normalize(np.reshape(total, shape).astype(np.asarray(grad).dtype, copy=False))


def _sum_to_shape_infer(inputs):
    grad, shape = inputs
    return [(grad.dtype, shapes.known_dims(shape))]


SUM_TO_SHAPE = define_op("SumToShape", infer=_sum_to_shape_infer, kernel=_sum_to_shape_kernel)


def sum_to(grad, like):
    """`grad`, the gradient of a value broadcast from `like`'s shape, summed back to it (over
    the leading axes and the axes where `like` has size 1)."""
    from runtime.ops import array_ops

    if grad.shape.is_fully_defined() and like.shape.is_fully_defined():
        if tuple(grad.shape) == tuple(like.shape):
            return grad
        lead = len(grad.shape) - len(like.shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(like.shape)
                                          if d == 1 and grad.shape[lead + i] != 1)
        summed = reduce_sum(grad, axes, keepdims=True)
        return summed if lead == 0 else array_ops.reshape(summed, tuple(like.shape))
    return apply(SUM_TO_SHAPE, [grad, array_ops.shape(like)])


# ---- gradients ---------------------------------------------------------------------------------

def _restore_axes(grad, x, axis, keepdims):
    """A reduction's output gradient with the reduced axes put back (size 1), ready to
    broadcast against `x`."""
    from runtime.ops import array_ops

    if keepdims or axis is None and len(grad.shape) == 0:
        return grad if keepdims else array_ops.reshape(grad, [1] * x.ndim)
    axes = (axis,) if isinstance(axis, int) else tuple(range(x.ndim)) if axis is None else axis
    for a in sorted(shapes.normalize_axis(a, x.ndim, "reduction") for a in axes):
        grad = array_ops.expand_dims(grad, a)
    return grad


def _broadcast_like(grad, x):
    from runtime.ops import array_ops

    if x.shape.is_fully_defined():
        return array_ops.broadcast_to(grad, tuple(x.shape))
    return array_ops.broadcast_to(grad, array_ops.shape(x))


@register_rule(GRADIENT, SUM)
def _sum_gradient(op, grads):
    x = op.inputs[0]
    return [_broadcast_like(_restore_axes(grads[0], x, op.attrs["axis"],
                                          op.attrs["keepdims"]), x)]


@register_rule(GRADIENT, MEAN)
def _mean_gradient(op, grads):
    from runtime.ops import array_ops, math_ops

    x, y = op.inputs[0], op.outputs[0]
    count = math_ops.cast(array_ops.size(x), x.dtype) / math_ops.cast(array_ops.size(y), x.dtype)
    return [_broadcast_like(_restore_axes(grads[0], x, op.attrs["axis"], op.attrs["keepdims"]),
                            x) / count]


def _extremum_gradient(op, grads):
    """The gradient goes to the elements equal to the max (min), shared equally by ties."""
    from runtime.ops import math_ops

    x = op.inputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    y = _restore_axes(op.outputs[0], x, axis, keepdims)
    chosen = math_ops.cast(math_ops.equal(x, y), x.dtype)
    ties = _restore_axes(reduce_sum(chosen, axis, keepdims), x, axis, keepdims)
    return [chosen * (_restore_axes(grads[0], x, axis, keepdims) / ties)]


register_rule(GRADIENT, MAX, MIN)(_extremum_gradient)


@register_rule(GRADIENT, SUM_TO_SHAPE)
def _sum_to_shape_gradient(op, grads):
    return [_broadcast_like(grads[0], op.inputs[0]), None]


@register_rule(GRADIENT, PROD)
def _prod_gradient(op, grads):
    """The product of the other elements: y / x where no element is zero; where one is, only
    that element gets the product of the others; with two or more, all get zero."""
    from runtime.ops import creation_ops, math_ops

    x = op.inputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    zero = math_ops.equal(x, 0.0)
    nonzero = math_ops.where(zero, creation_ops.ones_like(x), x)
    others = reduce_prod(nonzero, axis, keepdims=True)
    zeros = reduce_sum(math_ops.cast(zero, x.dtype), axis, keepdims=True)
    lone_zero = math_ops.logical_and(zero, math_ops.equal(zeros, 1.0))
    nothing = creation_ops.zeros_like(x)
    local = math_ops.where(math_ops.equal(zeros, 0.0), others / nonzero,
                           math_ops.where(lone_zero, others, nothing))
    return [local * _restore_axes(grads[0], x, axis, keepdims)]
lacks(GRADIENT, "bool results", ANY, ALL)
lacks(GRADIENT, "integer results", ARGMAX, ARGMIN)
