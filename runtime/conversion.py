"""Turning Python values, numpy values and variables into tensors, with the dtype rules.

Python `float` -> float32, `int` -> int32, `str` -> string; numpy values keep their dtype.
Next to a tensor, a Python scalar takes the tensor's dtype (an integer tensor next to a Python
float becomes float32). Two tensors of different dtypes are an error that says to use `rt.cast`.
"""

from __future__ import annotations

import numbers

import numpy as np

from runtime import dtypes
from runtime.tensor import EagerTensor, Tensor, eager

# Types whose instances convert by a method of theirs (rt.Variable registers here).
_CONVERTERS: dict[type, object] = {}


def register_conversion(cls, to_tensor) -> None:
    """`to_tensor(value) -> Tensor` converts instances of `cls` (e.g. variables)."""
    _CONVERTERS[cls] = to_tensor


def constant(value, dtype=None, shape=None) -> EagerTensor:
    """An eager tensor holding a copy of `value` (Python floats become float32, ints int32),
    broadcast to `shape` when given."""
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        value = value.copy()  # the tensor must not change when the caller's array does
    tensor = eager(value, dtypes.as_dtype(dtype) if dtype is not None else None)
    if shape is not None:
        tensor = eager(np.broadcast_to(tensor.numpy(), tuple(shape)).copy(), tensor.dtype)
    return tensor


def convert_to_tensor(value, dtype=None, name: str | None = None) -> Tensor:
    """A tensor for `value`; an existing tensor is returned as is (its dtype must match)."""
    if isinstance(value, Tensor):
        if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
            raise TypeError(
                f"Expected {dtypes.as_dtype(dtype).name} for {name or 'the value'}, got a "
                f"{value.dtype.name} tensor; use rt.cast to convert."
            )
        return value
    converter = _CONVERTERS.get(type(value))
    if converter is not None:
        return convert_to_tensor(converter(value), dtype, name)
    try:
        return eager(value, dtypes.as_dtype(dtype) if dtype is not None else None)
    except (ValueError, TypeError) as e:
        raise TypeError(
            f"Cannot convert {_describe(value)} to a tensor"
            + (f" for {name}" if name else "")
            + f": {e}"
        ) from None


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else f"a {type(value).__name__}"


def _is_python_float(value) -> bool:
    if isinstance(value, (float, np.floating)) and not isinstance(value, np.generic):
        return True
    if isinstance(value, (list, tuple)):
        return any(_is_python_float(v) for v in value)
    return False


def is_weak(value) -> bool:
    """Python scalars and nested lists of them: they adapt to the other operand's dtype."""
    if isinstance(value, (bool, numbers.Number)) and not isinstance(value, np.generic):
        return True
    if isinstance(value, (list, tuple)) and value:
        return all(is_weak(v) for v in value)
    return False


def binary_operands(x, y, op_name: str):
    """Converts the operands of a binary op to tensors of one dtype."""
    x_tensor, y_tensor = isinstance(x, Tensor), isinstance(y, Tensor)
    if x_tensor and y_tensor:
        if x.dtype is not y.dtype:
            raise TypeError(
                f"{op_name}: operands have different dtypes, {x.dtype.name} and {y.dtype.name}; "
                f"use rt.cast(x, rt.{y.dtype.name}) (or the other way round) to make them match."
            )
        return x, y
    if x_tensor or y_tensor:
        tensor, other = (x, y) if x_tensor else (y, x)
        if not isinstance(other, Tensor) and other.__class__ in _CONVERTERS:
            other = convert_to_tensor(other)
            return binary_operands(x if x_tensor else other, other if x_tensor else y, op_name)
        if is_weak(other):
            dtype = tensor.dtype
            if _is_python_float(other) and (dtype.is_integer or dtype.is_bool):
                from runtime.ops import math_ops

                dtype = dtypes.float32
                tensor = math_ops.cast(tensor, dtype)
            other = convert_to_tensor(other, dtype)
        else:
            other = convert_to_tensor(other)
        return (
            binary_operands(tensor, other, op_name)
            if x_tensor
            else binary_operands(other, tensor, op_name)
        )
    x_weak, y_weak = is_weak(x), is_weak(y)
    if x_weak and not y_weak:
        y = convert_to_tensor(y)
        return binary_operands(x, y, op_name)
    if y_weak and not x_weak:
        x = convert_to_tensor(x)
        return binary_operands(x, y, op_name)
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if x.dtype is not y.dtype and x_weak and y_weak:
        target = dtypes.float32 if (x.dtype.is_floating or y.dtype.is_floating) else x.dtype
        x, y = eager(x._value, target), eager(y._value, target)
    return binary_operands(x, y, op_name)
