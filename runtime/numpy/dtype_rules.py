"""Numpy's dtype rules, for the numpy-named functions of `runtime.numpy`.

numpy decides a result's dtype differently from TensorFlow's (and the rt ops'): operands of two
dtypes promote (`np.result_type`), a Python float next to an integer array gives float64, sums
of small integers accumulate in int64, float functions of integers give float64. The functions
here turn operands into what the rt op of the same computation needs to give numpy's result.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import Tensor
from runtime.core.tensor_conversion import convert_to_tensor, is_python_scalar
from runtime.errors import argument_error, with_origin
from runtime.ops import math_ops


def as_numpy_dtype(value) -> dtypes.DType:
    """The rt dtype of what numpy takes for a dtype (`float` is float64 and `int` int64 in
    numpy, unlike rt.constant's Python-number rule)."""
    if isinstance(value, dtypes.DType):
        return value
    try:
        return dtypes.as_dtype(np.dtype(value))
    except TypeError as e:
        raise argument_error(TypeError, with_origin(f"{e}", user_origin())) from None


def _sample(value):
    """What numpy's promotion sees for an operand: a dtype, or a Python scalar (weak)."""
    if isinstance(value, Tensor):
        if value.weak:  # a Python number's stand-in
            kind = value.dtype.np_dtype.kind
            return False if kind == "b" else 0 if kind in "iu" else 0.0
        return value.dtype.np_dtype
    return value


def result_dtype(*values) -> dtypes.DType | None:
    """numpy's result dtype of `values` (tensors, arrays, Python scalars) by NEP 50, or None when
    every operand is a Python number (or stands for one): rt's weak rules decide then."""
    if all(is_python_scalar(v) for v in values):  # numbers only: numpy's defaults
        return dtypes.as_dtype(np.result_type(*(np.asarray(v) for v in values)))
    if all(is_python_scalar(v) or (isinstance(v, Tensor) and v.weak) for v in values):
        return None
    samples = [_sample(v) for v in values]
    try:
        found = np.result_type(*samples)
    except TypeError as e:
        raise argument_error(TypeError, with_origin(str(e), user_origin())) from None
    return dtypes.as_dtype(found)


def operands(*values) -> list:
    """`values` as tensors of numpy's common dtype (numbers only: numpy's default dtypes; Python
    numbers stay Python numbers next to weak tensors, which rt's weak rules join; strings and
    bools are left to the op, which refuses or takes them)."""
    target = result_dtype(*values)
    if target is None:
        return list(values)
    result = []
    for value in values:
        if isinstance(value, Tensor):
            result.append(value if value.dtype is target else math_ops.cast(value, target))
        elif is_python_scalar(value):
            result.append(convert_to_tensor(np.asarray(value, target.np_dtype)))
        else:
            tensor = convert_to_tensor(value)
            result.append(tensor if tensor.dtype is target else math_ops.cast(tensor, target))
    return result


def inexact(x: Tensor) -> Tensor:
    """`x` as the float dtype numpy's float functions (`np.sin`, `np.sqrt`, `np.mean`) compute
    an integer or bool array in: float16 for bools and 8-bit integers, float32 for 16-bit ones,
    float64 for wider ones."""
    if x.dtype.is_floating:
        return x
    return math_ops.cast(x, dtypes.as_dtype(np.result_type(x.dtype.np_dtype, np.float16)))


def accumulator(x: Tensor, dtype, what: str) -> Tensor:
    """`x` in the dtype numpy's `sum`/`prod`/`cumsum` accumulate it in: `dtype` when given;
    else int64 for bools and signed integers narrower than 64 bits, the dtype itself
    otherwise."""
    if dtype is not None:
        target = as_numpy_dtype(dtype)
    elif x.dtype.is_bool or (x.dtype.is_integer and x.dtype.np_dtype.kind == "i"
                             and x.dtype.np_dtype.itemsize < 8):
        target = dtypes.int64
    elif x.dtype.np_dtype.kind == "u" and x.dtype.np_dtype.itemsize < 8:
        raise argument_error(TypeError, with_origin(
            f"numpy.{what} of {x.dtype.name} values gives uint64, which rt does not have; pass "
            "dtype=np.int64 (or cast first).", user_origin()))
    else:
        return x
    return x if x.dtype is target else math_ops.cast(x, target)
