"""Input signatures: which calls can share one traced graph.

A call's key is built from its arguments: a tensor (or numpy array) contributes its dtype and
shape, a Python value itself (so a new value means a new graph), a variable its identity.
Nested tuples, lists, dicts and namedtuples are walked.
"""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, TensorShape, shape_str


class TensorSpec:
    """The dtype and shape (dims may be None) a tensor argument must have."""

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = TensorShape(() if shape is None else tuple(shape))
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, tensor) -> bool:
        return tensor.dtype is self.dtype and self.shape.is_compatible_with(tensor.shape)

    def key(self):
        return (self.dtype, tuple(self.shape))

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self) -> str:
        return f"TensorSpec(shape={tuple(self.shape)}, dtype={self.dtype!r})"

    def __str__(self) -> str:
        return f"{self.dtype.name} Tensor, shape={tuple(self.shape)}"


def _spec_key(dtype, shape):
    return (dtype, tuple(shape))


def value_key(value, path: str):
    """The cache-key part of one argument leaf; raises TypeError for unhashable values."""
    if isinstance(value, EagerTensor):
        return _spec_key(value.dtype, getattr(value._value, "shape", ()))
    if isinstance(value, TensorSpec):
        return value.key()
    if isinstance(value, SymbolicTensor):
        return _spec_key(value.dtype, value.shape)
    if isinstance(value, np.ndarray) or _is_numpy_number(value):
        return _spec_key(dtypes.from_numpy(value.dtype), value.shape)
    if hasattr(value, "read_value") and hasattr(value, "assign"):  # rt.Variable
        return ("variable", id(value))
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"Argument {path} is a {type(value).__name__}, which cannot be part of a function's "
            "signature because it is unhashable. Pass a tensor, a Python number/string, or a "
            "tuple/list/dict of those."
        ) from None
    return ("python", type(value), value)


def is_tensor_leaf(value) -> bool:
    """Leaves that become graph inputs (placeholders) rather than Python constants: tensors,
    numpy arrays and numpy numbers (`np.float32(3)`, keyed by dtype like a 0-d array)."""
    return isinstance(value, (Tensor, TensorSpec, np.ndarray)) or _is_numpy_number(value)


def _is_numpy_number(value) -> bool:
    return isinstance(value, np.generic) and value.dtype.kind in "biuf"


def leaf_str(value) -> str:
    """How a leaf appears in printed signatures."""
    if isinstance(value, (Tensor, TensorSpec)):
        return f"{value.dtype.name} Tensor, shape={tuple(value.shape)}"
    if isinstance(value, np.ndarray) or _is_numpy_number(value):
        return f"{dtypes.from_numpy(value.dtype).name} Tensor, shape={value.shape}"
    return repr(value)


def describe_key(part) -> str:
    """A key part, printed for the retracing warning."""
    if isinstance(part, tuple) and part and isinstance(part[0], dtypes.DType):
        return f"{part[0].name}{shape_str(part[1])}"
    if isinstance(part, tuple) and part and part[0] == "python":
        return f"{part[2]!r}"
    return repr(part)
