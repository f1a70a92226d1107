"""Static shapes: `TensorShape`, a tuple of dims (None where unknown while tracing), and the
shape the user's code reads while a trace watches for unknown dims (`_WatchedShape`)."""

from __future__ import annotations

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
    """The static shape the user's code reads (at `origin`, or None where the code has no
    source line) while a trace watches for unknown dims: reading a None from it (an index,
    iteration, comparison, text, a copy) is reported to the trace, which then knows it saw
    None where plain Python sees a number (runtime/tracing/function_tracing.py traces such a
    function with exact shapes)."""

    def __new__(cls, dims, origin):
        shape = super().__new__(cls, dims)
        shape.origin = origin
        return shape

    def _read(self):
        if tuple.__contains__(self, None):
            context.note_dim_read(self.origin)

    def __getitem__(self, index):
        dim = tuple.__getitem__(self, index)
        if isinstance(index, slice):
            return _WatchedShape(dim, self.origin)
        if dim is None:
            context.note_dim_read(self.origin)
        return dim

    def __iter__(self):
        self._read()
        return tuple.__iter__(self)

    def __add__(self, other):
        return _WatchedShape(tuple.__add__(self, other), self.origin)

    def __radd__(self, other):
        return _WatchedShape(tuple.__add__(other, self), self.origin)

    def __mul__(self, count):
        return _WatchedShape(tuple.__mul__(self, count), self.origin)

    __rmul__ = __mul__

    def __reduce__(self):  # (a copy, or a pickle, reveals every dim)
        self._read()
        return TensorShape, (tuple.__getitem__(self, slice(None)),)


def _reading(name: str):
    """tuple's method `name`, which reveals the dims (`==`, `in`, hash, text): the reads of a
    _WatchedShape noted first."""
    method = getattr(tuple, name)

    def read(self, *args):
        self._read()
        return method(self, *args)

    read.__name__ = name
    return read


for _name in ("__contains__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
              "__hash__", "__repr__", "count", "index"):
    setattr(_WatchedShape, _name, _reading(_name))


def shape_str(shape) -> str:
    """`(2, None)` printed as `[2, ?]`; `()` as `[]`."""
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
