"""Tensors: `EagerTensor` holds a numpy value; `SymbolicTensor` is an op output in a graph.

Python operators (`+`, `<`, `[]`, ...) are installed on `Tensor` by `runtime.ops.overloads`.
0-d values are kept as numpy scalars (and `bytes` for 0-d strings): their arithmetic is several
times faster than that of 0-d arrays.
"""

from __future__ import annotations

import dis
import math
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import numpy as np

from runtime.core import context, dtypes
from runtime.core.source_info import origin_of_frame, unconverted_reason, user_origin
from runtime.core.tensor_shape import TensorShape, _WatchedShape, shape_str
from runtime.errors import OperatorNotAllowedInGraphError, a_or_an, with_origin


class Tensor:
    """Common base of eager and symbolic tensors."""

    __slots__ = ()
    __array_priority__ = 100  # numpy defers binary operators to us
    weak = False  # see SymbolicTensor.weak; eager tensors are never weak

    # For type checkers: what the subclasses define (EagerTensor's `shape` is a property) ...
    dtype: dtypes.DType
    """The dtype of the elements."""
    if TYPE_CHECKING:
        @property
        def shape(self) -> TensorShape: ...

        def numpy(self) -> Any: ...

        def __len__(self) -> int: ...

        def __bool__(self) -> bool: ...

        def __int__(self) -> int: ...

        def __float__(self) -> float: ...

        def __index__(self) -> int: ...

    # ... and the operators runtime.ops.overloads installs (`==` and `!=` give False and True
    # against None), and the ndarray properties runtime.numpy installs.
    __add__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __radd__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __sub__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rsub__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __mul__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rmul__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __truediv__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rtruediv__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __floordiv__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rfloordiv__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __mod__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rmod__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __pow__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rpow__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __matmul__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rmatmul__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __and__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rand__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __or__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __ror__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __xor__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rxor__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __lshift__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rlshift__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rshift__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __rrshift__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __eq__: ClassVar[Callable[[Tensor, Any], Any]]
    __ne__: ClassVar[Callable[[Tensor, Any], Any]]
    __lt__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __le__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __gt__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __ge__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __neg__: ClassVar[Callable[[Tensor], Tensor]]
    __pos__: ClassVar[Callable[[Tensor], Tensor]]
    __abs__: ClassVar[Callable[[Tensor], Tensor]]
    __invert__: ClassVar[Callable[[Tensor], Tensor]]
    __getitem__: ClassVar[Callable[[Tensor, Any], Tensor]]
    __setitem__: ClassVar[Callable[[Tensor, Any, Any], NoReturn]]  # (tensors are immutable)
    __divmod__: ClassVar[Callable[[Tensor, Any], tuple[Tensor, Tensor]]]
    __rdivmod__: ClassVar[Callable[[Tensor, Any], tuple[Tensor, Tensor]]]
    __iter__: ClassVar[Callable[[Tensor], Iterator[Tensor]]]  # (installed on each subclass)
    # `round(t)`, `math.floor(t)`, ...: EagerTensor's methods, SymbolicTensor's installed by
    # runtime.tracing.python_builtins
    __round__: ClassVar[Callable[..., Any]]
    __floor__: ClassVar[Callable[..., Any]]
    __ceil__: ClassVar[Callable[..., Any]]
    __trunc__: ClassVar[Callable[..., Any]]
    T: ClassVar[Any]
    real: ClassVar[Any]
    imag: ClassVar[Any]
    size: ClassVar[Any]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def __hash__(self):
        raise TypeError(
            f"unhashable type: '{type(self).__name__}' ({self.dtype.name}"
            f"{shape_str(self.shape)}): `==` on tensors is elementwise, so a tensor cannot be "
            "a dict key or set item by value (as numpy arrays and TensorFlow tensors cannot). "
            "Use `t.ref()` to key by the tensor object, or a Python value (`t.numpy().item()`) "
            "to key by value.")

    def ref(self) -> TensorRef:
        """A hashable reference to this tensor object (equal only to a reference to the same
        object), to key dicts and sets by tensor; `.deref()` gives the tensor back."""
        return TensorRef(self)


class TensorRef:
    """What `Tensor.ref()` returns: hashes and compares by the identity of its tensor."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Tensor):
        self._tensor = tensor

    def deref(self) -> Tensor:
        return self._tensor

    def __hash__(self) -> int:
        return id(self._tensor)

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorRef) and other._tensor is self._tensor

    def __repr__(self) -> str:
        return f"<TensorRef of {self._tensor!r}>"


class EagerTensor(Tensor):
    """A tensor with a concrete value."""

    __slots__ = ("_value", "dtype")

    def __init__(self, value, dtype: dtypes.DType):
        self._value = value
        self.dtype = dtype

    @property
    def shape(self) -> TensorShape:
        """The shape (every dim known)."""
        return TensorShape(getattr(self._value, "shape", ()))

    def numpy(self):
        """The value: a numpy array, numpy scalar, or `bytes` for a 0-d string."""
        return self._value

    def __hash__(self):
        """A 0-d tensor hashes as its value does (numpy scalars hash like Python numbers), so
        `d.get(t)` finds what `==` matches; other shapes are unhashable, as numpy arrays are."""
        if self.shape:
            return Tensor.__hash__(self)
        return hash(self._value)

    def __array__(self, dtype=None, copy=None):
        array = np.asarray(self._value)
        return array if dtype is None else array.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self._value)

    def _scalar(self, what: str):
        """The value of a tensor with exactly one element, as a numpy scalar (any rank: one
        rule for int(), float(), index and bool(), whatever numpy's version)."""
        if not self.shape:
            return self._value
        if self._value.size != 1:
            raise TypeError(f"{what} of a tensor of shape {shape_str(self.shape)}: only a tensor "
                            "with exactly one element converts to a Python scalar.")
        return self._value.reshape(())[()]

    def __int__(self) -> int:
        return int(self._scalar("int()"))

    def __float__(self) -> float:
        return float(self._scalar("float()"))

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"Only integer tensors can be used as an index, not {self.dtype.name}.")
        return int(self._scalar("operator.index()"))

    def __round__(self, ndigits=None):
        """`round(t)`: Python's round of the numpy value (an int; with `ndigits`, numpy's)."""
        return round(self._scalar("round()"), ndigits)

    def __floor__(self) -> int:
        return math.floor(self._scalar("math.floor()"))

    def __ceil__(self) -> int:
        return math.ceil(self._scalar("math.ceil()"))

    def __trunc__(self) -> int:
        return math.trunc(self._scalar("math.trunc()"))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor (a scalar) is undefined.")
        return self.shape[0]

    def __repr__(self) -> str:
        value = self._value
        shown = np.array2string(np.asarray(value), separator=", ") if self.shape else repr(value)
        if self.shape == () and not isinstance(value, bytes):
            shown = repr(value.item()) if hasattr(value, "item") else repr(value)
        return f"<rt.Tensor: shape={tuple(self.shape)}, dtype={self.dtype.name}, numpy={shown}>"

    def __str__(self) -> str:
        return str(self._value)

    def __format__(self, spec: str) -> str:
        """`f"{t:spec}"` is that of the numpy value (`format(np.float32(0.5), ".2f")`), as in
        graphs (rt.strings.format); strings format as `str`."""
        return format(decoded(self._value), spec)


_COMPREHENSIONS = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")
# Opcodes that take the truth of a value in the user's own code (`if`, `while`, `and`, `not`):
# anywhere else, Python's own code (a builtin's C code) took it.
_TRUTH_OPCODES = frozenset(code for name, code in dis.opmap.items()
                           if "JUMP" in name and "_IF_" in name or name in ("UNARY_NOT", "TO_BOOL"))
_SUBSCRIPT_OPCODES = frozenset(dis.opmap[name] for name in ("BINARY_SUBSCR", "STORE_SUBSCR",
                                                             "DELETE_SUBSCR") if name in dis.opmap)


_LIBRARY = ("runtime.", "autograph.")  # whose code reads shapes as the library it is


def _module_of(frame) -> str:
    return frame.f_globals.get("__name__") or ""


def _caller_opcode() -> int | None:
    """The opcode the frame two calls up is running (the user's `x[t]` that called
    `t.__index__` through a builtin sequence's C code)."""
    frame = sys._getframe(2)
    return frame.f_code.co_code[frame.f_lasti] if frame.f_lasti >= 0 else None


def _unconverted_caller() -> str | None:
    """Why the innermost function on the stack that autograph could not convert (no source)
    runs unconverted, if one is there."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        reason = unconverted_reason(frame.f_code)
        if reason is not None:
            return reason
        frame = frame.f_back
    return None


def _no_numpy_dispatch(numpy_fn, args, kwargs):
    raise TypeError(f"numpy.{getattr(numpy_fn, '__name__', numpy_fn)} got a graph tensor; "
                    "import runtime.numpy to compute numpy's functions on graph tensors.")


_numpy_call = _no_numpy_dispatch


# numpy's ufunc of `array OP tensor` -> the tensor's reflected operator (comparisons flip).
_REFLECTED = {
    "add": "__radd__", "subtract": "__rsub__", "multiply": "__rmul__",
    "true_divide": "__rtruediv__", "divide": "__rtruediv__", "floor_divide": "__rfloordiv__",
    "remainder": "__rmod__", "power": "__rpow__", "matmul": "__rmatmul__",
    "bitwise_and": "__rand__", "bitwise_or": "__ror__", "bitwise_xor": "__rxor__",
    "left_shift": "__rlshift__", "right_shift": "__rrshift__", "less": "__gt__",
    "less_equal": "__ge__", "greater": "__lt__", "greater_equal": "__le__", "equal": "__eq__",
    "not_equal": "__ne__",
}


def use_numpy_dispatch(call) -> None:
    """`call(numpy_fn, args, kwargs)` computes numpy's functions on graph tensors (installed by
    runtime.numpy, which sits above the op library)."""
    global _numpy_call
    _numpy_call = call


class SymbolicTensor(Tensor):
    """The `index`-th output of `op` in a graph: its value exists only when the graph runs.

    `weak` (set while tracing, never saved) marks a tensor that stands for a Python scalar, e.g.
    a loop variable that starts as `0`: next to a strong tensor it takes that tensor's dtype
    (see runtime.core.tensor_conversion).
    """

    __slots__ = ("op", "index", "dtype", "_shape", "weak")

    def __init__(self, op, index: int, dtype: dtypes.DType, shape):
        self.op = op
        self.index = index
        self.dtype = dtype
        self._shape = TensorShape(shape)
        self.weak = False

    @property
    def shape(self) -> TensorShape:
        """The static shape: a dim is None where it is known only when the graph runs. The
        user's code reading it while tracing gets such a dim as a scalar tensor, as
        `numpy.shape(x)` gives it (see `_WatchedShape`)."""
        shape = self._shape
        if None in shape and context.dims_watched():
            frame: FrameType | None = sys._getframe(1)
            while frame is not None and _module_of(frame).startswith("autograph."):
                frame = frame.f_back  # (autograph's operators run the user's `getattr(x, ...)`)
            if frame is not None and not _module_of(frame).startswith(_LIBRARY):
                # (numpy.shape's dims: an unknown one is a weak int64 scalar tensor)
                return _WatchedShape(_numpy_call(np.shape, (self,), {}), shape,
                                     origin_of_frame(frame))
        return shape

    @property
    def name(self) -> str:
        """`"op_name:output_index"`."""
        return f"{self.op.name}:{self.index}"

    @property
    def graph(self):
        """The graph this tensor belongs to."""
        return self.op.graph

    def __hash__(self):
        raise TypeError(with_origin(
            f"unhashable type: 'SymbolicTensor' ({self.dtype.name}{shape_str(self.shape)}): "
            "while tracing a graph a tensor has no value yet, so it cannot key a dict or set by "
            "value; a Python cache keyed by tensor values cannot work in a graph (the graph is "
            "built once, the values come when it runs). Compute without the cache, key it by a "
            "Python value (an argument that is not a tensor), or key by the tensor object with "
            "`t.ref()` (it matches only within this trace).", user_origin()))

    def _not_allowed(self, what: str, fix: str) -> NoReturn:
        """`what`: the misuse, with `{}` where the tensor goes ("Using {} as a Python int")."""
        unconverted = _unconverted_caller()
        if unconverted is not None:
            fix = f"{fix} (Here: {unconverted})"
        tensor = f"a symbolic tensor ({self.name}, {self.dtype.name}{shape_str(self.shape)})"
        raise OperatorNotAllowedInGraphError(
            with_origin(
                f"{what.format(tensor)} is not allowed while tracing a graph: its value is not "
                f"known until the graph runs. {fix}",
                user_origin(3),
            )
        )

    def __bool__(self):
        if sys._getframe(1).f_code.co_name in _COMPREHENSIONS:
            self._not_allowed(
                "Filtering a comprehension (its `if`) by {}",
                "autograph stages a list comprehension assigned to a name: write "
                "`ys = [... for ... if ...]` on a line of its own, then use `ys`.",
            )
        if _caller_opcode() not in _TRUTH_OPCODES:  # `sorted(dims)`, `t1 < t2` of tuples
            self._not_allowed(
                "Python's own code on this line (a builtin such as bool, filter, sorted or "
                "list.index, or a comparison of lists or tuples) taking the truth of {}",
                "Compute it with tensor ops (np.sort, np.any(x == v), ...) instead; while "
                "tracing, a shape's unknown dims are such tensors.",
            )
        self._not_allowed(
            "Using {} as a Python bool",
            "Let autograph convert this `if`/`while` (rt.function(autograph=True), the default) "
            "or use rt.cond / rt.while_loop.",
        )

    def __len__(self):
        if self._shape and self._shape[0] is not None:
            return self._shape[0]
        self.note_unknown_length()
        self._not_allowed("Taking len() of {}", "Use rt.shape(x)[0] or rt.size(x).")

    def note_unknown_length(self) -> None:
        """Reports to the traces watching for unknown dims that the user's code asked for the
        number of rows of this tensor (len, iteration, unpacking) when that dim is unknown."""
        if self._shape and context.dims_watched():
            context.note_dim_read(user_origin(2))

    def __index__(self):
        if _caller_opcode() in _SUBSCRIPT_OPCODES:  # `items[t]` of a Python sequence
            self._not_allowed(
                "Indexing a Python sequence (a list, tuple or range) by {}",
                "Make the sequence a tensor first and index that: rt.gather(rt.constant(items), "
                "i), or rt.stack(items)[i] when it holds tensors (or build it with .append in a "
                "graph loop, which makes it a staged list).")
        self._not_allowed("Using {} as a Python int", "Use the tensor in rt ops instead.")

    def __int__(self):
        self._not_allowed("Converting {} to int", "Use rt.cast(x, rt.int32).")

    def __float__(self):
        self._not_allowed("Converting {} to float", "Use rt.cast(x, rt.float32).")

    def numpy(self):
        """Not available while tracing: an error saying what to do instead."""
        self._not_allowed(
            "Calling .numpy() on {}",
            "Compute with the tensor itself (rt ops, numpy functions and methods work on it: "
            "x.mean(), np.sum(x)), or return it from the function and take .numpy() of the "
            "result.")

    def __format__(self, spec: str) -> str:
        self._not_allowed(
            "Formatting {} as text",
            "In code autograph converts, f-strings, str.format, `%`, format() and str() of a "
            "tensor give its text when the graph runs; elsewhere use rt.strings.format. "
            "repr(x) shows the graph placeholder.")

    def __array__(self, dtype=None, copy=None):
        self._not_allowed("Converting {} to a numpy array",
                          "Use runtime.numpy's functions or rt ops on the tensor instead.")

    # numpy's functions and ufuncs on a graph value run runtime.numpy's (or raise an error
    # naming the function): numpy must never compute on a placeholder, nor swallow a refusal.
    def __array_function__(self, func, types, args, kwargs):
        return _numpy_call(func, args, kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        reflected = _REFLECTED.get(ufunc.__name__)
        if (reflected and method == "__call__" and not kwargs and len(inputs) == 2
                and inputs[1] is self):  # `array + t`: the tensor's operator, as for an eager t
            return getattr(self, reflected)(inputs[0])
        if kwargs.get("out") is not None:  # `a += t` on a numpy array `a`
            raise OperatorNotAllowedInGraphError(with_origin(
                f"numpy.{ufunc.__name__} would write a graph value into a numpy array in place "
                "(`a += t`, or out=a): a numpy array holds values, not graph values. Assign a "
                "new value instead (`a = a + t`): the name then holds a tensor.", user_origin()))
        return _numpy_call(ufunc if method == "__call__" else getattr(ufunc, method), inputs,
                           kwargs)

    def __repr__(self) -> str:
        shape, weak = shape_str(self.shape), " weak" if self.weak else ""
        return f"<rt.SymbolicTensor '{self.name}' shape={shape} dtype={self.dtype.name}{weak}>"


def _python_value_to_numpy(value, dtype: dtypes.DType | None):
    """A numpy array for a Python/numpy value; Python floats and ints default to 32 bits
    (ints that do not fit in int32 become int64, as in TensorFlow)."""
    from_python = not isinstance(value, (np.ndarray, np.generic))
    if dtype is not None and dtype.is_string:
        return _strings_to_numpy(value)
    try:
        if dtype is not None:
            return np.asarray(value, dtype=dtype.np_dtype)
        array = np.asarray(value)
    except ValueError as e:
        if isinstance(value, (list, tuple)) and "inhomogeneous" in str(e):
            raise ValueError(
                "the nested lists have different lengths (a ragged list), so they do not make "
                "a tensor; pad them to one length, or keep them as a list of tensors") from None
        raise
    if array.dtype.kind in "SU" or (array.dtype.kind == "O" and _all_strings(array)):
        return _strings_to_numpy(value)
    if array.dtype.kind not in "biufc":
        if array.dtype.kind == "O" and any(
                type(v) is int for v in np.ravel(array)):  # numpy keeps huge ints as objects
            raise TypeError(
                "a Python int outside the range of int64 (the widest integer dtype) has no "
                "tensor dtype; use a float (e.g. float(n)) or a smaller int"
            )
        raise TypeError(
            f"{a_or_an(type(value).__name__)} is not a number, a string or a nested list of "
            "them"
        )
    if from_python:
        if array.dtype == np.float64:
            array = array.astype(np.float32)
        elif array.dtype == np.complex128:  # as a Python float is float32
            array = array.astype(np.complex64)
        elif array.dtype.kind == "i" and _fits_int32(array):
            array = array.astype(np.int32)
    return array


def _fits_int32(array) -> bool:
    info = np.iinfo(np.int32)
    return array.size == 0 or (info.min <= array.min() and array.max() <= info.max)


def _all_strings(array) -> bool:
    return all(isinstance(v, (str, bytes)) for v in array.flat)


def _strings_to_numpy(value):
    array = np.asarray(value, dtype=object)
    flat = [v.encode() if isinstance(v, str) else v for v in array.flat]
    for v in flat:
        if not isinstance(v, bytes):
            raise TypeError(f"Cannot mix strings and {type(v).__name__} in one string tensor.")
    out = np.empty(array.shape, dtype=object)
    out.flat[:] = flat if flat else []
    return out


def normalize(value):
    """0-d numpy arrays become numpy scalars (or `bytes`); everything else is unchanged."""
    if type(value) is np.ndarray and value.ndim == 0:
        return value[()]
    return value


def eager(value, dtype: dtypes.DType | None = None) -> EagerTensor:
    """An EagerTensor from a numpy/Python value (the value is converted, not copied if possible)."""
    array = _python_value_to_numpy(value, dtype)
    if dtype is None:
        dtype = dtypes.from_numpy(array.dtype)
    return EagerTensor(normalize(array), dtype)


def decoded(value):
    """A tensor value as Python formats it: strings as `str` (0-d) or arrays of `str`; numbers
    as numpy scalars (0-d) or arrays, unchanged."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            flat = [decoded(v) for v in value.flat]
            return np.array(flat, dtype=str).reshape(value.shape) if flat else value.astype(str)
        if value.ndim == 0:
            return value[()]
    return value
