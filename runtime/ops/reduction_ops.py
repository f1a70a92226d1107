"""Reductions over axes: sum, mean, max, min, prod, any, all, argmax, argmin."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.conversion import convert_to_tensor
from runtime.ops import shapes
from runtime.ops.registry import REDUCTION, apply, define_op
from runtime.tensor import normalize


def _axis_attr(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return int(axis)


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
    shapes.reduce(x.shape, axis, keepdims)  # validates the axis eagerly too
    return apply(opdef, [x], {"axis": axis, "keepdims": bool(keepdims)})


def reduce_sum(input_tensor, axis=None, keepdims=False):
    return _reduce(SUM, input_tensor, axis, keepdims)


def reduce_mean(input_tensor, axis=None, keepdims=False):
    """Mean over axes; for integer tensors the result is truncated to the integer dtype."""
    return _reduce(MEAN, input_tensor, axis, keepdims)


def reduce_max(input_tensor, axis=None, keepdims=False):
    return _reduce(MAX, input_tensor, axis, keepdims)


def reduce_min(input_tensor, axis=None, keepdims=False):
    return _reduce(MIN, input_tensor, axis, keepdims)


def reduce_prod(input_tensor, axis=None, keepdims=False):
    return _reduce(PROD, input_tensor, axis, keepdims)


def reduce_any(input_tensor, axis=None, keepdims=False):
    return _reduce(ANY, input_tensor, axis, keepdims, bool_only=True)


def reduce_all(input_tensor, axis=None, keepdims=False):
    return _reduce(ALL, input_tensor, axis, keepdims, bool_only=True)


def _arg_reduction(name, kernel):
    def infer(inputs, *, axis, output_type):
        return [(output_type, shapes.reduce(inputs[0].shape, axis, False))]

    def run(x, *, axis, output_type):
        return normalize(kernel(x, axis=axis).astype(output_type.np_dtype))

    return define_op(name, infer=infer, kernel=run, groups=[REDUCTION])


ARGMAX = _arg_reduction("ArgMax", np.argmax)
ARGMIN = _arg_reduction("ArgMin", np.argmin)


def _arg(opdef, x, axis, output_type):
    x = convert_to_tensor(x)
    shapes.normalize_axis(axis, len(x.shape), opdef.name)
    if any(d == 0 for d in x.shape):
        raise TypeError(f"{opdef.name} of an empty tensor is undefined.")
    return apply(opdef, [x], {"axis": int(axis), "output_type": dtypes.as_dtype(output_type)})


def argmax(input, axis=0, output_type=dtypes.int64):  # noqa: A002 - TensorFlow's name
    return _arg(ARGMAX, input, axis, output_type)


def argmin(input, axis=0, output_type=dtypes.int64):  # noqa: A002 - TensorFlow's name
    return _arg(ARGMIN, input, axis, output_type)
