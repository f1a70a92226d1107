"""What the modules below the op library need from it, provided when it loads: Python's operators
on tensors (`x + y`, `x < y`, `x[i]`, `for v in x`, ...), installed on `Tensor`, and the two ops
`convert_to_tensor` makes (stacking a list that holds tensors, a checked cast)."""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes, tensor_conversion
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.errors import OperatorNotAllowedInGraphError, argument_error, with_origin
from runtime.ops import array_ops, io_ops, math_ops, python_arithmetic


def _install(name, fn, reverse=False):
    if reverse:
        setattr(Tensor, name, lambda self, other: fn(other, self))
    else:
        setattr(Tensor, name, lambda self, other: fn(self, other))


def _equal(x, y):
    """`x == None` is False, as in TensorFlow (`==` is elementwise otherwise)."""
    return False if y is None else math_ops.equal(x, y)


def _not_equal(x, y):
    return True if y is None else math_ops.not_equal(x, y)


def _power(x, y):
    """`x ** y`; a bool array squared by the Python int 2 is int8, as numpy's `**` computes
    `** 2` with np.square, whose bool loop gives int8 (np.power gives int64, as does `**` of a
    numpy bool scalar: a 0-d tensor)."""
    if type(y) is int and y == 2 and x.dtype.is_bool and x.shape:
        x = math_ops.cast(x, dtypes.int8)
    return python_arithmetic.power(x, y)


def _multiply(x, y):
    """`x * y`; a Python list, tuple or str times an integer scalar is the sequence repeated,
    as Python repeats it for a numpy integer: eagerly that many times, and in a graph, where
    the count is known only when it runs (`[0.0] * x.shape[0]` under an input_signature, or
    `* len(x)`), a located error."""
    sequence, count = (x, y) if isinstance(x, (list, tuple, str)) else (y, x)
    if (isinstance(sequence, (list, tuple, str)) and isinstance(count, Tensor)
            and count.dtype.is_integer and not count.shape):
        if isinstance(count, EagerTensor):
            return sequence * int(count._value)
        raise OperatorNotAllowedInGraphError(with_origin(  # (a graph's limit, not Python's error)
            f"can't repeat a {type(sequence).__name__} by a graph int ({count.name}): how many "
            "times is known only when the graph runs. Make an array instead: np.zeros(n), "
            "np.full(n, v), or np.tile(np.array(items), n).", user_origin()))
    return python_arithmetic.multiply(x, y)


_BINARY = {
    "add": python_arithmetic.add,
    "sub": python_arithmetic.subtract,
    "mul": _multiply,
    "truediv": python_arithmetic.division(math_ops.divide, "/"),
    "floordiv": python_arithmetic.division(math_ops.floordiv, "//"),
    "mod": python_arithmetic.division(math_ops.mod, "%"),
    "pow": _power,
    "matmul": math_ops.matmul,
    "and": math_ops.bitwise_and,
    "or": math_ops.bitwise_or,
    "xor": math_ops.bitwise_xor,
    "lshift": math_ops.left_shift,
    "rshift": math_ops.right_shift,
}

for _name, _fn in _BINARY.items():
    _install(f"__{_name}__", _fn)
    _install(f"__r{_name}__", _fn, reverse=True)

_install("__eq__", _equal)
_install("__ne__", _not_equal)
_install("__lt__", math_ops.less)
_install("__le__", math_ops.less_equal)
_install("__gt__", math_ops.greater)
_install("__ge__", math_ops.greater_equal)

Tensor.__neg__ = python_arithmetic.negative
# numpy's `+x` of an array is a new array; of a number, the number (a Python number stays one)
Tensor.__pos__ = lambda self: array_ops.identity(self) if len(self.shape) else self
Tensor.__abs__ = math_ops.abs
Tensor.__invert__ = math_ops.invert
Tensor.__getitem__ = array_ops.getitem
Tensor.__divmod__ = lambda self, other: (_BINARY["floordiv"](self, other),
                                         _BINARY["mod"](self, other))
Tensor.__rdivmod__ = lambda self, other: (_BINARY["floordiv"](other, self),
                                          _BINARY["mod"](other, self))


def _setitem(self, key, value):
    """Tensors are immutable (as TensorFlow's and JAX's): a located error that says how to
    write the same without assigning into one."""
    raise OperatorNotAllowedInGraphError(with_origin(  # (a limit: `except` never hides it)
        "A tensor cannot be changed in place (`x[i] = v`, `x[mask] = v`): tensors are "
        "immutable. Make a new one instead: `x = np.where(mask, v, x)` (or rt.where) for a "
        "mask; for one element, `x = np.where(np.arange(n) == i, v, x)`; or build the values in "
        "a list and np.stack them.", user_origin()))


Tensor.__setitem__ = _setitem


def _in_place(self, other):
    """`x += y` and the other in-place operators make a new tensor bound to `x` (tensors are
    immutable). Where `x` stands for a function's argument, the trace notes it: plain Python
    changes a caller's numpy array there, so a call with one is refused (call_paths.py)."""
    if isinstance(self, SymbolicTensor):
        self.op.graph.note_in_place(self)
    return NotImplemented  # (Python then computes `x = x OP y`)


for _name in _BINARY:
    setattr(Tensor, f"__i{_name}__", _in_place)


def _iter_eager(self):
    if not self.shape:
        raise argument_error(TypeError, "Cannot iterate over a 0-d tensor (a scalar).")
    return iter(array_ops.unstack(self))


def _iter_symbolic(self):
    if self.shape and self.shape[0] is not None:
        rows = array_ops.unstack(self)
        for row in rows:  # (numpy's rows of an array are views of it: `a, b = x`)
            if row.shape:
                array_ops.note_view(self, row)
        return iter(rows)
    self.note_unknown_length()
    self._not_allowed("Iterating over {}",
                      "Let autograph convert the `for` loop, or use rt.while_loop.")


EagerTensor.__iter__ = _iter_eager
SymbolicTensor.__iter__ = _iter_symbolic


def _checked_cast(tensor: Tensor, dtype: dtypes.DType) -> Tensor:
    """`tensor` as `dtype`; a weak integer narrowed (an int64 stand-in of a Python int next to
    an int32 tensor) is checked when the graph runs, as numpy raises OverflowError for a Python
    int that does not fit: it never wraps."""
    if (tensor.weak and tensor.dtype.is_integer and dtype.is_integer
            and not np.can_cast(tensor.dtype.np_dtype, dtype.np_dtype)):
        info = np.iinfo(dtype.np_dtype)
        io_ops.check_python_numbers(
            math_ops.logical_and(math_ops.greater_equal(tensor, int(info.min)),
                                 math_ops.less_equal(tensor, int(info.max))),
            f"Python integer out of bounds for {dtype.name}")
    return math_ops.cast(tensor, dtype)


tensor_conversion.provide_ops(stack=array_ops.stack, checked_cast=_checked_cast)
