"""Turning Python values, numpy values and variables into tensors, with the dtype rules.

Python `float` -> float32, `int` -> int32, `str` -> string; numpy values keep their dtype.
Python scalars are weak (JAX's rule): next to a tensor they take the tensor's dtype (an integer
tensor next to a Python float becomes float32). A weak tensor (`SymbolicTensor.weak`, e.g. a loop
variable that starts as `0`) stands for a Python scalar and behaves exactly like one; arithmetic
on weak values only stays weak. Two strong tensors of different dtypes are an error that says to
use `rt.cast`, except that a bool tensor takes the other's dtype (numpy's promotion: its values
are 0 and 1 in any type).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from runtime import config
from runtime.core import dtypes
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, eager
from runtime.errors import a_or_an

# Types whose instances convert by a method of theirs (rt.Variable registers here).
_CONVERTERS: dict[type, Callable] = {}


def register_conversion(cls, to_tensor) -> None:
    """`to_tensor(value) -> Tensor` converts instances of `cls` (e.g. variables)."""
    _CONVERTERS[cls] = to_tensor


def constant(value: ArrayLike | Tensor, dtype: dtypes.DTypeLike | None = None,
             shape: Sequence[int] | None = None) -> EagerTensor:
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


def convert_to_tensor(value: Any, dtype: dtypes.DTypeLike | None = None,
                      name: str | None = None) -> Tensor:
    """A tensor for `value`; an existing tensor is returned as is (its dtype must match, except
    that a weak tensor converts like the Python scalar it stands for)."""
    if isinstance(value, Tensor):
        if dtype is not None and dtypes.as_dtype(dtype) is not value.dtype:
            if value.weak and weak_fits(value.dtype, dtypes.as_dtype(dtype)):
                return _cast(value, dtypes.as_dtype(dtype))
            raise TypeError(
                f"Expected {dtypes.as_dtype(dtype).name} for {name or 'the value'}, got "
                f"{a_or_an(value.dtype.name)} tensor; use rt.cast to convert."
            )
        return value
    converter = _CONVERTERS.get(type(value))
    if converter is not None:
        return convert_to_tensor(converter(value), dtype, name)
    if isinstance(value, (list, tuple)) and _holds_tensors(value):
        return _OPS["stack"]([v if dtype is None else convert_to_tensor(v, dtype, name)
                              for v in value])
    try:
        return eager(value, dtypes.as_dtype(dtype) if dtype is not None else None)
    except (ValueError, TypeError) as e:
        raise TypeError(
            f"Cannot convert {_describe(value)} to a tensor"
            + (f" for {name}" if name else "")
            + f": {e}"
        ) from None


def _holds_tensors(value) -> bool:
    """A (nested) list or tuple with a tensor or a converting object among its items: it
    becomes a Pack op (as numpy makes an array of a list of arrays), eagerly as in a graph, so
    the items keep their dtype (a list of float64 tensors gives float64, not the float32 of
    Python floats)."""
    return any(isinstance(v, Tensor) or type(v) in _CONVERTERS
               or (isinstance(v, (list, tuple)) and _holds_tensors(v)) for v in value)


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else a_or_an(type(value).__name__)


def _is_python_float(value) -> bool:
    if isinstance(value, (float, np.floating)) and not isinstance(value, np.generic):
        return True
    if isinstance(value, (list, tuple)):
        return any(_is_python_float(v) for v in value)
    return False


def is_python_int(value) -> bool:
    """A Python int that is not a bool (nor a numpy integer)."""
    return isinstance(value, int) and not isinstance(value, (bool, np.generic))


def _holds_python_int(value) -> bool:
    """A Python int, or a list or tuple holding one."""
    if isinstance(value, (list, tuple)):
        return any(_holds_python_int(v) for v in value)
    return is_python_int(value)


def is_weak(value) -> bool:
    """Python scalars, nested lists of them and weak tensors: they adapt to the other operand's
    dtype."""
    if isinstance(value, (bool, numbers.Number)) and not isinstance(value, np.generic):
        return True
    if isinstance(value, Tensor):
        return value.weak
    if isinstance(value, (list, tuple)) and value:
        return all(is_weak(v) for v in value)
    return False


def is_python_scalar(value) -> bool:
    """A Python bool, int or float (not a numpy scalar, though np.float64 subclasses float)."""
    return isinstance(value, (bool, int, float)) and not isinstance(value, np.generic)


def weak_result(x, y) -> bool:
    """Whether arithmetic on `x` and `y` gives a weak tensor: both stand for Python scalars and
    one is a weak tensor (on two Python scalars, ops give strong tensors, as they do eagerly)."""
    if not (type(x) is SymbolicTensor and x.weak or type(y) is SymbolicTensor and y.weak):
        return False  # the fast answer for eager ops: only symbolic tensors are weak
    x_weak = x.weak if isinstance(x, Tensor) else is_python_scalar(x)
    y_weak = y.weak if isinstance(y, Tensor) else is_python_scalar(y)
    return x_weak and y_weak


def weak_dtype(value) -> dtypes.DType:
    """The dtype of the weak tensor that stands for the Python scalar `value` in a graph `if`
    or loop: float64 for a float (Python's width, so its value stays exactly Python's; next to
    a strong tensor it takes that tensor's dtype as any weak value does), else the dtype it
    converts to (int32, int64 beyond int32, bool)."""
    if isinstance(value, float):
        return dtypes.float64
    if isinstance(value, int) and not isinstance(value, bool):
        return dtypes.int64
    return convert_to_tensor(value).dtype


def weak_join(a: dtypes.DType, b: dtypes.DType) -> dtypes.DType:
    """The dtype of two weak values together: the float one if only one is a float (Python's
    int + float), else the wider."""
    if a is b:
        return a
    if a.is_floating != b.is_floating:
        return a if a.is_floating else b
    return dtypes.from_numpy(np.promote_types(a.np_dtype, b.np_dtype))


def packed_dtype(value) -> dtypes.DType:
    """The dtype a weak value takes in a list of weak values, as the Python scalar it stands for
    would: a weak int64 or float64 tensor (`int(x)`, `float(x)` in a graph) packs as a Python int
    (int32, checked when the graph runs) or float (float32)."""
    dtype = value.dtype if isinstance(value, Tensor) else convert_to_tensor(value).dtype
    if isinstance(value, Tensor) and dtype in (dtypes.int64, dtypes.float64):
        return dtypes.int32 if dtype.is_integer else dtypes.float32
    return dtype


def weak_target(weak: dtypes.DType, strong: dtypes.DType) -> dtypes.DType:
    """The dtype of a weak value next to a strong tensor: the tensor's, except for a weak float
    next to an integer or bool tensor what a Python float there gives (float32, or float64
    with numpy's promotion), and int64 for a weak int next to a bool tensor (as numpy:
    `np.True_ + 1` is an int64, and `np.True_ == -1` is False)."""
    if weak.is_floating and (strong.is_integer or strong.is_bool):
        return dtypes.float64 if config.dtype_promotion() == "numpy" else dtypes.float32
    if weak.is_integer and strong.is_bool:
        return dtypes.int64
    return strong


def weak_fits(weak: dtypes.DType, dtype: dtypes.DType) -> bool:
    """Whether any value of a weak tensor of dtype `weak` keeps its kind as `dtype`: numbers and
    bools become floats, ints and bools become ints, bools stay bools (floats never become
    ints: their value is not known while tracing)."""
    if dtype.is_floating:
        return not weak.is_string
    if dtype.is_integer:
        return weak.is_integer or weak.is_bool
    return dtype.is_bool and weak.is_bool


def python_scalar_fits(value, dtype: dtypes.DType) -> bool:
    """Whether the Python scalar `value` becomes a tensor of `dtype` without changing its value
    (beyond float rounding, as numpy does next to a float tensor)."""
    if dtype.is_floating:
        return True
    if dtype.is_integer:
        if isinstance(value, float) and not value.is_integer():
            return False
        info = np.iinfo(dtype.np_dtype)
        return info.min <= value <= info.max
    return dtype.is_bool and isinstance(value, bool)


# ---- the two ops conversion makes -------------------------------------------------------------
# Converting a list that holds tensors stacks them (Pack), and a tensor of another dtype is cast
# (Cast, with a bounds check for a weak integer). Those ops are defined in the op library, above
# this module (every op converts its arguments here), which provides them when it loads
# (runtime/ops/overloads.py).
_OPS: dict[str, Callable[..., Tensor]] = {}


def provide_ops(*, stack: Callable[[list], Tensor],
                checked_cast: Callable[[Tensor, dtypes.DType], Tensor]) -> None:
    """How conversion stacks a list holding tensors and casts a tensor (the op library's)."""
    _OPS.update(stack=stack, checked_cast=checked_cast)


def _cast(tensor: Tensor, dtype: dtypes.DType) -> Tensor:
    return _OPS["checked_cast"](tensor, dtype)


def _wider(a: dtypes.DType, b: dtypes.DType) -> dtypes.DType:
    """The dtype numpy promotes `a` and `b` to (`b` when rt has no such dtype): what to cast to
    without losing values."""
    try:
        return dtypes.from_numpy(np.result_type(a.np_dtype, b.np_dtype))
    except (TypeError, ValueError):
        return b


def binary_operands(x, y, op_name: str):
    """Converts the operands of a binary op to tensors of one dtype."""
    x_tensor, y_tensor = isinstance(x, Tensor), isinstance(y, Tensor)
    if x_tensor and y_tensor:
        if x.dtype is not y.dtype and (x.weak or y.weak):
            if x.weak and y.weak:
                dtype = weak_join(x.dtype, y.dtype)
            else:
                dtype = weak_target(x.dtype, y.dtype) if x.weak else weak_target(y.dtype, x.dtype)
            return _cast(x, dtype), _cast(y, dtype)
        if x.dtype is not y.dtype and (x.dtype.is_bool or y.dtype.is_bool) and not (
                x.dtype.is_string or y.dtype.is_string):  # numpy: a bool is 0 or 1 of any type
            return (_cast(x, y.dtype), y) if x.dtype.is_bool else (x, _cast(y, x.dtype))
        if x.dtype is not y.dtype and config.dtype_promotion() == "numpy" and not (
                x.dtype.is_string or y.dtype.is_string):
            dtype = dtypes.as_dtype(np.result_type(x.dtype.np_dtype, y.dtype.np_dtype))
            return _cast(x, dtype), _cast(y, dtype)
        if x.dtype is not y.dtype:
            wider = _wider(x.dtype, y.dtype)
            narrow = ("the first" if wider is y.dtype else "the second" if wider is x.dtype
                      else "both")
            raise TypeError(
                f"{op_name}: operands have different dtypes, {x.dtype.name} and {y.dtype.name}; "
                f"cast {narrow} to {wider.name} to make them match (rt.cast(v, rt.{wider.name}),"
                f" or v.astype(np.{wider.name}) in numpy code), or promote them as numpy does "
                "with rt.config.set_dtype_promotion('numpy')."
            )
        return x, y
    if x_tensor or y_tensor:
        tensor, other = (x, y) if x_tensor else (y, x)
        if not isinstance(other, Tensor) and other.__class__ in _CONVERTERS:
            other = convert_to_tensor(other)
            return binary_operands(x if x_tensor else other, other if x_tensor else y, op_name)
        if is_weak(other):
            dtype = tensor.dtype
            if tensor.weak and _is_python_float(other) and not dtype.is_complex:
                dtype = weak_join(dtype, dtypes.float64)  # two Python numbers: a Python float
                if dtype is not tensor.dtype:
                    tensor = _cast(tensor, dtype)
            elif isinstance(other, complex) and not dtype.is_complex:  # numpy: a complex result
                dtype = dtypes.complex64 if dtype in (dtypes.float32, dtypes.float16) else (
                    dtypes.complex128)
                tensor = _cast(tensor, dtype)
            elif _is_python_float(other) and (dtype.is_integer or dtype.is_bool):
                dtype = dtypes.float64 if config.dtype_promotion() == "numpy" else dtypes.float32
                tensor = _cast(tensor, dtype)
            elif dtype.is_bool and _holds_python_int(other):
                dtype = dtypes.int64  # (numpy's: a bool next to a Python int is its default int)
                tensor = _cast(tensor, dtype)
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
        target = weak_join(x.dtype, y.dtype)
        x, y = eager(x._value, target), eager(y._value, target)
    return binary_operands(x, y, op_name)
