"""Reductions over axes: sum, mean, max, min, prod, any, all, argmax, argmin. Their gradient rules
are in reduction_gradients.py, above the array and math ops they call."""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import argument_error
from runtime.ops import shapes
from runtime.ops.registry import REDUCTION, apply, define_op


def _axis_attr(axis):
    """None, an int, or a tuple of ints, from Python ints, lists or an eager tensor."""
    if axis is None:
        return None
    axes = shapes.static_ints(axis, "the reduction axis")
    return axes if isinstance(axis, (list, tuple)) or np.ndim(axis) else axes[0]


def _reduction(name, kernel, dtype=None, ufunc=None, keeps=()):
    """A reduction op running `kernel` (np.sum, ...); with `ufunc`, the ufunc whose `reduce`
    the kernel calls for an array: the executor calls it itself for the input dtypes `keeps`
    (those it does not widen: np.sum adds int32 in int64), 2 us less than np.sum's wrapper."""
    def infer(inputs, *, axis, keepdims):
        x = inputs[0]
        return [(dtype or x.dtype, shapes.reduce(x.shape, axis, keepdims))]

    def run(x, *, axis, keepdims):
        out = kernel(x, axis=axis, keepdims=keepdims)
        if dtype is None and out.dtype != x.dtype:
            out = out.astype(x.dtype)
        return normalize(out)

    reduce = f"np_{ufunc}_reduce_"

    def expression(names, attrs, inputs):
        if inputs[0].dtype not in keeps:
            return None
        return f"{reduce}({names[0]}, axis={attrs['axis']!r}, keepdims={attrs['keepdims']!r})"

    return define_op(name, infer=infer, kernel=run, groups=[REDUCTION],
                     typed_expression=expression if ufunc else None,
                     expression_globals={reduce: getattr(np, ufunc).reduce} if ufunc else None)


_WIDE = frozenset({dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
                   dtypes.complex128, dtypes.int64})  # (sums and products keep these)
_ORDERED = frozenset(d for d in dtypes.ALL if d.is_integer or d.is_floating)
SUM = _reduction("Sum", np.sum, ufunc="add", keeps=_WIDE)
MEAN = _reduction("Mean", np.mean)
MAX = _reduction("Max", np.max, ufunc="maximum", keeps=_ORDERED)
MIN = _reduction("Min", np.min, ufunc="minimum", keeps=_ORDERED)
PROD = _reduction("Prod", np.prod, ufunc="multiply", keeps=_WIDE)
ANY = _reduction("Any", np.any, dtypes.bool_, ufunc="logical_or", keeps={dtypes.bool_})
ALL = _reduction("All", np.all, dtypes.bool_, ufunc="logical_and", keeps={dtypes.bool_})


def _reduce(opdef, x, axis, keepdims, bool_only=False):
    x = convert_to_tensor(x)
    if bool_only and not x.dtype.is_bool:
        raise argument_error(TypeError, f"{opdef.name} needs a bool tensor, got {x.dtype.name}.")
    if not bool_only and (x.dtype.is_string or x.dtype.is_bool):
        raise argument_error(
            TypeError, f"{opdef.name} does not accept {x.dtype.name} tensors; use rt.cast first."
        )
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
        raise argument_error(TypeError, f"{name} does not accept string tensors.")
    output_type = dtypes.as_dtype(output_type)
    if output_type not in (dtypes.int32, dtypes.int64):
        raise argument_error(
            TypeError, f"{name}: output_type must be rt.int32 or rt.int64, not {output_type.name}."
        )
    return apply(opdef, [x], {"axis": axis, "output_type": output_type})


def argmax(input, axis=None, output_type=dtypes.int64):  # noqa: A002 - TensorFlow's name
    """Index of the largest value along `axis` (default 0); an empty axis is an
    InvalidArgumentError."""
    return _arg(ARGMAX, input, axis, output_type, "argmax")


def argmin(input, axis=None, output_type=dtypes.int64):  # noqa: A002 - TensorFlow's name
    """Index of the smallest value along `axis` (default 0)."""
    return _arg(ARGMIN, input, axis, output_type, "argmin")
