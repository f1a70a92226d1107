"""Static shapes: `TensorShape`, a tuple of dims (None where unknown while tracing), and the
shape the user's code reads while a trace watches for unknown dims (`_WatchedShape`)."""

from __future__ import annotations

import numbers

import numpy as np

from runtime.core import context


class TensorShape(tuple):
    """A tuple of dimensions; a dimension is an int, or None when unknown (only in graphs).
    It prints as the tuple it is, as a numpy array's shape does."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return len(self)

    def as_list(self) -> list:
        """The dims as a list (None for unknown)."""
        return list(self)

    def is_fully_defined(self) -> bool:
        """Whether every dim is known."""
        return all(d is not None for d in self)

    def is_compatible_with(self, other) -> bool:
        """Whether the ranks agree and every dim agrees where both are known."""
        other = tuple(other)
        return len(self) == len(other) and all(
            a is None or b is None or a == b for a, b in zip(self, other)
        )


class _WatchedShape(TensorShape):
    """The shape the user's code reads while tracing when a dim is unknown (`static`, with None
    there): like `numpy.shape` of a graph tensor, an unknown dim is a scalar int64 tensor
    standing for the Python int plain Python sees (weak), so `range(1, x.shape[0])` and
    `x / x.shape[0]` compute what they do in plain Python. Reading such a dim (an index,
    iteration, comparison, a copy) is reported to the trace at `origin` (None where the code has
    no source line): a trace with relaxed shapes is then made again with exact shapes
    (runtime/tracing/function_tracing.py). TensorShape's methods (`as_list`,
    `is_fully_defined`, ...) read the static dims."""

    static: TensorShape
    origin: object

    def __new__(cls, dims, static=None, origin=None):
        if static is None:  # (rebuilt from its items, as nest rebuilds a returned shape)
            return TensorShape(dims)
        shape = super().__new__(cls, dims)
        shape.static = TensorShape(static)
        shape.origin = origin
        return shape

    def _read(self):
        if None in self.static:
            context.note_dim_read(self.origin)

    def __getitem__(self, index):
        dim = tuple.__getitem__(self, index)
        if isinstance(index, slice):
            return _WatchedShape(dim, self.static[index], self.origin)
        if self.static[index] is None:
            context.note_dim_read(self.origin)
        return dim

    def __iter__(self):
        self._read()
        return tuple.__iter__(self)

    def __add__(self, other):
        return _WatchedShape(tuple.__add__(self, other), self.static + _static(other),
                             self.origin)

    def __radd__(self, other):
        if not isinstance(other, tuple):  # (`[1] + shape` is Python's TypeError)
            return NotImplemented
        return _WatchedShape(tuple.__add__(tuple(other), self), _static(other) + self.static,
                             self.origin)

    def __mul__(self, count):
        return _WatchedShape(tuple.__mul__(self, count), self.static * count, self.origin)

    __rmul__ = __mul__

    def __eq__(self, other):
        """Python's `==` of tuples, dim by dim: a bool tensor when it rests on an unknown dim."""
        if not isinstance(other, tuple):
            return NotImplemented
        self._read()
        if len(self) != len(other):
            return False
        result = True
        for dim, known in zip(tuple.__iter__(self), other):
            same = dim == known
            if same is False:
                return False
            result = same if result is True else result & same
        return result

    def __contains__(self, item):
        """Python's `in`: a bool tensor when it rests on an unknown dim (which only a number,
        or an array of them, can equal: an int is not equal to a list or a string)."""
        self._read()
        numeric = isinstance(item, (numbers.Number, np.ndarray, np.generic)) or hasattr(
            item, "dtype")  # (a tensor)
        found = False
        for dim, known in zip(tuple.__iter__(self), self.static):
            if known is None and not numeric:
                continue
            same = dim is item or dim == item
            if same is True:
                return True
            if same is not False:
                found = same if found is False else found | same
        return found

    def __ne__(self, other):
        same = self.__eq__(other)
        return same if same is NotImplemented else not same if isinstance(same, bool) else ~same

    def as_list(self) -> list:
        self._read()
        return self.static.as_list()

    def is_fully_defined(self) -> bool:
        self._read()
        return self.static.is_fully_defined()

    def is_compatible_with(self, other) -> bool:
        self._read()
        return self.static.is_compatible_with(_static(other))

    def __reduce__(self):  # (a copy, or a pickle, reveals every dim)
        self._read()
        return TensorShape, (tuple.__getitem__(self, slice(None)),)


def _static(shape) -> tuple:
    """The static dims of `shape` (a _WatchedShape's None where unknown)."""
    return tuple(shape.static if isinstance(shape, _WatchedShape) else shape)


def _reading(name: str):
    """tuple's method `name`, which reveals the dims (`in`, hash, text, order): the reads of a
    _WatchedShape noted first."""
    method = getattr(tuple, name)

    def read(self, *args):
        self._read()
        return method(self, *args)

    read.__name__ = name
    return read


for _name in ("__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__repr__",
              "count", "index"):
    setattr(_WatchedShape, _name, _reading(_name))


def shape_str(shape) -> str:
    """`(2, None)` printed as `[2, ?]`; `()` as `[]`."""
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
