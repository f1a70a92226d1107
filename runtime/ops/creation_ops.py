"""Tensors made from shapes and values: zeros, ones, fill, eye, range, linspace, *_like."""

from __future__ import annotations

import numpy as np

from runtime import context, dtypes
from runtime.conversion import convert_to_tensor
from runtime.ops import math_ops
from runtime.ops.array_ops import _static_ints
from runtime.ops.registry import ELEMENTWISE, apply, define_op
from runtime.tensor import EagerTensor, SymbolicTensor, eager, normalize


def _fill_infer(inputs):
    dims, value = inputs
    if len(dims.shape) != 1 or dims.shape[0] is None:
        raise TypeError("fill: dims must be a 1-D tensor of known length")
    return [(value.dtype, (None,) * dims.shape[0])]


FILL = define_op(
    "Fill", infer=_fill_infer, kernel=lambda dims, value: normalize(np.full(tuple(dims), value))
)


def fill(dims, value):
    """A tensor of shape `dims` filled with `value` (dims may be a symbolic shape)."""
    value = convert_to_tensor(value)
    if isinstance(dims, SymbolicTensor):
        return apply(FILL, [math_ops.cast(dims, dtypes.int32), value])
    shape = _static_ints(dims, "fill's dims") if np.ndim(dims) or isinstance(dims, EagerTensor) else (
        int(dims),
    )
    return eager(np.full(shape, value._value, dtype=value.dtype.np_dtype), value.dtype)


def zeros(shape, dtype=dtypes.float32):
    dtype = dtypes.as_dtype(dtype)
    return fill(shape, eager(dtype.np_dtype.type(0), dtype))


def ones(shape, dtype=dtypes.float32):
    dtype = dtypes.as_dtype(dtype)
    return fill(shape, eager(dtype.np_dtype.type(1), dtype))


def _like(name, kernel):
    return define_op(
        name,
        infer=lambda inputs, *, dtype: [(dtype, inputs[0].shape)],
        kernel=lambda x, *, dtype: normalize(kernel(x, dtype=dtype.np_dtype)),
        groups=[ELEMENTWISE],
    )


ZEROS_LIKE = _like("ZerosLike", np.zeros_like)
ONES_LIKE = _like("OnesLike", np.ones_like)


def zeros_like(input, dtype=None):  # noqa: A002 - TensorFlow's name
    input = convert_to_tensor(input)
    return apply(ZEROS_LIKE, [input], {"dtype": dtypes.as_dtype(dtype or input.dtype)})


def ones_like(input, dtype=None):  # noqa: A002 - TensorFlow's name
    input = convert_to_tensor(input)
    return apply(ONES_LIKE, [input], {"dtype": dtypes.as_dtype(dtype or input.dtype)})


def eye(num_rows, num_columns=None, dtype=dtypes.float32):
    dtype = dtypes.as_dtype(dtype)
    return eager(np.eye(int(num_rows), None if num_columns is None else int(num_columns),
                        dtype=dtype.np_dtype), dtype)


def _range_infer(inputs):
    start, limit, delta = inputs
    return [(start.dtype, (None,))]


def _range_kernel(start, limit, delta):
    if delta == 0:
        raise ValueError("range: delta must not be 0")
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


RANGE = define_op("Range", infer=_range_infer, kernel=_range_kernel)


def range(start, limit=None, delta=1, dtype=None):  # noqa: A001 - TensorFlow's name
    """Like Python's range, as a 1-D tensor. Inside a graph this is a `Range` op (its length
    may be unknown), so a `for` loop over it becomes a graph loop."""
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    if dtype is None:
        kinds = [convert_to_tensor(v).dtype for v in values]
        dtype = dtypes.float32 if any(k.is_floating for k in kinds) else kinds[0]
        dtype = next((k for k in kinds if k.is_floating), dtype)
    dtype = dtypes.as_dtype(dtype)
    values = [math_ops.cast(v, dtype) if isinstance(v, SymbolicTensor) or isinstance(v, EagerTensor)
              else convert_to_tensor(v, dtype) for v in values]
    out = apply(RANGE, values)
    if context.current_graph() is not None and all(isinstance(v, EagerTensor) for v in values):
        n = len(np.arange(values[0]._value, values[1]._value, values[2]._value))
        out.shape = type(out.shape)((n,))
    return out


def linspace(start, stop, num, axis=0):
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    dtype = start.dtype if start.dtype.is_floating else dtypes.float32
    return eager(np.linspace(start.numpy(), stop.numpy(), int(num), axis=axis).astype(dtype.np_dtype),
                 dtype)
