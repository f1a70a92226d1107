"""Input signatures: which calls can share one traced graph.

A call's key is built from its arguments: a tensor (or numpy array) contributes its dtype and
shape, a Python value itself (so a new value means a new graph), a variable its identity.
Nested tuples, lists, dicts and namedtuples are walked.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, TensorShape, shape_str
from runtime.errors import a_or_an


class TensorSpec:
    """The dtype and shape (dims may be None) a tensor argument must have. `weak` (set only for
    a call inside a caller's trace) marks the stand-in of a Python number, which takes the
    dtype of the tensors it meets (runtime.core.tensor_conversion)."""

    __slots__ = ("shape", "dtype", "name", "weak")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = TensorShape(() if shape is None else tuple(shape))
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name
        self.weak = False

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of `tensor`: its shape and dtype."""
        spec = cls(tensor.shape, tensor.dtype, name)
        spec.weak = tensor.weak
        return spec

    def is_compatible_with(self, tensor) -> bool:
        """Whether `tensor` has this dtype and a shape this spec accepts."""
        return tensor.dtype is self.dtype and self.shape.is_compatible_with(tensor.shape)

    def key(self):
        """A hashable key of dtype, shape and weakness (the trace cache's key)."""
        return _spec_key(self.dtype, self.shape, self.weak)

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and self.key() == other.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self) -> str:
        return f"TensorSpec(shape={tuple(self.shape)}, dtype={self.dtype!r})"

    def __str__(self) -> str:
        return f"{self.dtype.name} Tensor, shape={tuple(self.shape)}"


def _spec_key(dtype, shape, weak=False):
    """(A list's weakness may be tensor_list.MIXED, 2: a key of its own.)"""
    if not weak:
        return (dtype, tuple(shape))
    return (dtype, tuple(shape), "weak" if weak is True else f"weak {weak}")


def value_key(value, path: str):
    """The cache-key part of one argument leaf; raises TypeError for unhashable values."""
    if isinstance(value, EagerTensor):
        return _spec_key(value.dtype, getattr(value._value, "shape", ()))
    if isinstance(value, TensorSpec):
        return value.key()
    if isinstance(value, SymbolicTensor):
        return _spec_key(value.dtype, value.shape, value.weak)
    if isinstance(value, np.ndarray) or _is_numpy_number(value):
        return _spec_key(dtypes.from_numpy(value.dtype), value.shape)
    if hasattr(value, "read_value") and hasattr(value, "assign"):  # rt.Variable
        return ("variable", id(value))
    state = getattr(type(value), "_trace_state", None)
    if state is not None:  # an rt.Module: the object, and the version of its Python state
        return ("python", type(value), value, state(value))
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"Argument {path} is {a_or_an(type(value).__name__)}, which cannot be part of a "
            "function's signature because it is unhashable. Pass a tensor, a Python "
            "number/string, or a tuple/list/dict of those."
        ) from None
    if type(value) is float:
        return ("python", float, float_token(value))
    return ("python", type(value), value)


class _ExactFloat(float):
    """A float signature token equal only to the same float to the bit: 0.0 == -0.0 in Python,
    but a graph traced for one is wrong for the other; nan != nan, but one nan is one
    signature."""

    __slots__ = ()

    def __eq__(self, other):
        return type(other) is _ExactFloat and float.hex(self) == float.hex(other)

    def __hash__(self):
        return hash(float.hex(self))


def float_token(value: float):
    """The signature token of a Python float (both call paths key by it): the float itself, but
    zeros and nan as `_ExactFloat`s."""
    return value if value and value == value else _ExactFloat(value)


def same_python_value(a, b) -> bool:
    """Whether two Python leaves of signatures are the same constant, as `value_key` tells them
    apart: of one type, and floats by their bits (-0.0 is not 0.0; nan is nan)."""
    if type(a) is not type(b):
        return False
    return a.hex() == b.hex() if type(a) is float else a == b


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


# ---- comparing and relaxing keys (retracing) ---------------------------------------------------

def is_spec_key(part):
    return isinstance(part, tuple) and len(part) == 2 and hasattr(part[0], "np_dtype")


def relax_key(old, new):
    if is_spec_key(old) and is_spec_key(new):
        if old[0] is not new[0] or len(old[1]) != len(new[1]):
            return None
        return (old[0], tuple(a if a == b else None for a, b in zip(old[1], new[1])))
    if (
        isinstance(old, tuple)
        and isinstance(new, tuple)
        and len(old) == len(new)
        and not (is_spec_key(old) or is_spec_key(new))
    ):
        parts = [relax_key(a, b) for a, b in zip(old, new)]
        return None if any(p is None for p in parts) else tuple(parts)
    return old if old == new else None


def matches(general, key):
    relaxed = relax_key(general, key)
    return relaxed is not None and relaxed == general


def relax_value(value, key_part):
    if is_spec_key(key_part) and is_tensor_leaf(value):
        return TensorSpec(key_part[1], key_part[0])
    if isinstance(value, (list, tuple)) and not hasattr(type(value), "_fields"):
        return type(value)(relax_value(v, k) for v, k in zip(value, key_part[1]))
    return value


def is_python_key(part) -> bool:
    return isinstance(part, tuple) and len(part) == 3 and part[0] == "python"


def key_phrase(part) -> str:
    """A key part in words: "the Python int 5", "a float32[3] tensor"."""
    if is_python_key(part):
        return f"the Python {part[1].__name__} {part[2]!r}"
    if is_spec_key(part):
        return f"{a_or_an(key_str(part))} tensor"
    return key_str(part)


def key_str(part):
    if is_spec_key(part):
        return describe_key(part)
    if isinstance(part, tuple) and len(part) == 2 and isinstance(part[1], tuple):
        return "(" + ", ".join(key_str(p) for p in part[1]) + ")"
    return describe_key(part)
