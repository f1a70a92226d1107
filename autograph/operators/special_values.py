"""`Undefined`: the value of a variable that is not assigned on the path taken so far."""

from __future__ import annotations

from autograph.errors import at
from autograph.origins import caller_origin


class Undefined:
    """Stands for the variable `name` before its first assignment; any use raises."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"

    def _fail(self, *args, **kwargs):
        raise UnboundLocalError(at(
            f"'{self.name}' is used before it is assigned: it is assigned only on some paths "
            "through the `if`/loop before this line (or in a loop that ran zero times). Assign "
            f"'{self.name}' before the `if`/loop, or in every branch.", caller_origin()))

    def __getattr__(self, attr):
        self._fail()

    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = __index__ = __int__ = _fail
    __float__ = __neg__ = __pos__ = __abs__ = __invert__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __and__ = __rand__ = _fail
    __or__ = __ror__ = __xor__ = __rxor__ = __lshift__ = __rshift__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = _fail


def is_undefined(value) -> bool:
    return type(value) is Undefined


def ld(value):
    """`value`, or the error Python raises for an unassigned variable if it is Undefined."""
    if type(value) is Undefined:
        value._fail()
    return value
