"""Data types of tensors and the rules that turn Python values into them."""

from __future__ import annotations

from typing import TypeAlias

import numpy as np


class DType:
    """A tensor element type: a name and the numpy dtype that stores it."""

    __slots__ = ("name", "np_dtype")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)

    @property
    def is_floating(self) -> bool:
        """Whether this is a real floating-point dtype (float16/32/64)."""
        return self.np_dtype.kind == "f"

    @property
    def is_integer(self) -> bool:
        """Whether this is a signed or unsigned integer dtype."""
        return self.np_dtype.kind in "iu"

    @property
    def is_bool(self) -> bool:
        """Whether this is `rt.bool`."""
        return self.np_dtype.kind == "b"

    @property
    def is_complex(self) -> bool:
        """Whether this is complex64 or complex128."""
        return self.np_dtype.kind == "c"

    @property
    def is_string(self) -> bool:
        """Whether this is `rt.string`."""
        return self.np_dtype.kind in "OSU" and not self.is_list

    is_list = False

    # numpy reads a `dtype` attribute: `np.dtype(rt.float32)`, `np.zeros(3, rt.float32)`.
    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype (the same as `np_dtype`)."""
        return self.np_dtype

    @property
    def kind(self) -> str:
        """numpy's kind character ('f', 'i', 'u', 'b', 'O')."""
        return self.np_dtype.kind

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self.np_dtype.itemsize

    @property
    def type(self) -> type:
        """numpy's scalar type (`np.float32`)."""
        return self.np_dtype.type

    def __eq__(self, other) -> bool:
        """A dtype equals itself and, for numbers and bools, what numpy takes for the same
        dtype: `np.dtype('int64')`, `np.int64`, `'int64'` (as `np.dtype` compares)."""
        if isinstance(other, DType) or other is None:
            return self is other
        if self.is_string or self.is_list:
            return False
        try:
            return self.np_dtype == np.dtype(other)
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self) -> int:  # as numpy's dtype it equals (dict keys of either kind find it)
        return hash(self.np_dtype)

    def __repr__(self) -> str:
        return f"rt.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool_ = DType("bool", np.bool_)
# Complex numbers (for numpy.fft): arithmetic, abs, real, imag, conj and angle take them; the
# other math ops refuse them, and gradients do not pass through them.
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
# Strings are stored as numpy object arrays of `bytes` (variable length, like TensorFlow).
string = DType("string", np.object_)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_, string, complex64,
       complex128)
_BY_NAME = {d.name: d for d in ALL}
_BY_NP = {d.np_dtype: d for d in ALL}


class ListDType(DType):
    """The dtype of a staged list (`rt.TensorList`) whose items have dtype `element` (a list
    dtype for a list of lists). A tensor of this dtype has the shape of its items."""

    __slots__ = ("element",)
    is_list = True

    def __init__(self, element: DType):
        super().__init__(f"list<{element.name}>", np.object_)
        self.element = element


_LISTS: dict = {}


def list_of(element) -> ListDType:
    """The dtype of staged lists of `element` items (one object per element dtype)."""
    element = as_dtype(element)
    found = _LISTS.get(element)
    if found is None:
        found = _LISTS[element] = ListDType(element)
    return found


# What a `dtype=` argument takes (see `as_dtype`): a DType, its name ("float32"), a numpy dtype
# (or what np.dtype takes) or a Python type (float, int, bool, complex, str).
DTypeLike: TypeAlias = DType | str | np.dtype | type


def as_dtype(value: DTypeLike) -> DType:
    """Returns the DType for a DType, its name, a numpy dtype or a Python type."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if isinstance(value, str) and value.startswith("list<") and value.endswith(">"):
        return list_of(value[5:-1])
    if value is float:
        return float32
    if value is int:
        return int32
    if value is bool:
        return bool_
    if value is complex:
        return complex64
    if value in (str, bytes):
        return string
    try:
        npd = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot interpret {value!r} as a dtype; use e.g. rt.float32.") from None
    if npd.kind in "SU":
        return string
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(f"Unsupported dtype {npd}; supported: {', '.join(_BY_NAME)}.")


def from_numpy(npd) -> DType:
    """The DType of numpy values of dtype `npd`."""
    d = _BY_NP.get(npd)
    return d if d is not None else as_dtype(npd)


# The Python number type of each numpy kind of number (what `.item()` gives).
PYTHON_NUMBER_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def python_number(value):
    """A numpy number (bool, integer, float or complex: a scalar or a 0-d array of the dtypes
    tensors hold) as the Python number `.item()` gives it, several times faster than `.item()`
    (numpy 2: 0.35 us)."""
    return PYTHON_NUMBER_TYPES[value.dtype.kind](value)


def real_part(dtype: DType) -> DType:
    """The dtype of the real and imaginary parts of a complex dtype (float32 for complex64,
    float64 for complex128); a real dtype is its own."""
    return {complex64: float32, complex128: float64}.get(dtype, dtype)
