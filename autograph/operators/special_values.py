"""Values that stand for "not assigned", and the reads that check them.

- `Undefined('y')`: the variable `y` before its first assignment; any use raises like Python.
  After a staged `if` or loop whose paths that complete leave it unassigned, and one of whose
  paths raised while it was traced (the graph raises there when it takes that path), its
  `cause` is that error, which a use raises: it is what stopped the variable being assigned.
- `UndefinedReturn()`: the return slot of a function whose `return`s were lowered to flags,
  before a `return` ran. It is never read by user code: `return_value` turns it into None.
- `MaybeUndefined(value, defined, name)`: after a staged `if` or loop, a variable assigned on
  some paths only. `defined` is a staged bool (true where the graph assigned it) and `value`
  holds the assigned value there (a placeholder of the same type elsewhere, never observable):
  reading it checks `defined` when the graph runs and raises like Python where it is false.
"""

from __future__ import annotations

from autograph import backends
from autograph.errors import AutoGraphError, add_note, at
from autograph.operators.traced_paths import python_semantics
from autograph.origins import caller_origin


def _unbound_message(name: str) -> str:
    return (f"'{name}' is used before it is assigned: it is assigned only on some paths "
            "through the `if`/loop before this line (or in a loop that ran zero times). Assign "
            f"'{name}' before the `if`/loop, or in every branch.")


class Undefined:
    """Stands for the variable `name` before its first assignment; any use raises (`cause`,
    if set: see the module doc)."""

    __slots__ = ("name", "cause")

    def __init__(self, name: str, cause: Exception | None = None):
        self.name = name
        self.cause = cause

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    @python_semantics
    def _fail(self, *args, **kwargs):
        if self.cause is None:
            raise UnboundLocalError(at(_unbound_message(self.name), caller_origin()))
        note = at(
            f"'{self.name}' is read here unassigned because a path of the graph `if` or loop "
            "before this line raised the error above while it was traced. Plain Python raises "
            "that error where it takes that path, and UnboundLocalError here where it does not "
            "(e.g. a loop that runs zero times).", caller_origin())
        if note not in getattr(self.cause, "__notes__", ()):
            add_note(self.cause, note)
        raise self.cause

    def __getattr__(self, attr):
        self._fail()

    __bool__ = __call__ = __iter__ = __len__ = __getitem__ = __index__ = __int__ = _fail
    __float__ = __neg__ = __pos__ = __abs__ = __invert__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _fail
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __and__ = __rand__ = _fail
    __or__ = __ror__ = __xor__ = __rxor__ = __lshift__ = __rshift__ = _fail
    __lt__ = __le__ = __gt__ = __ge__ = _fail


class UndefinedReturn(Undefined):
    """The return slot before a lowered `return` has set it (the function returns None if it
    ends this way)."""

    __slots__ = ()

    def __init__(self):
        super().__init__("<return value>")

    def __repr__(self) -> str:
        return "UndefinedReturn()"


class MaybeUndefined:
    """A variable that a staged `if`/loop assigned on some paths only (see the module doc)."""

    __slots__ = ("value", "defined", "name")

    def __init__(self, value, defined, name: str):
        self.value = value
        self.defined = defined
        self.name = name

    def __repr__(self) -> str:
        return f"MaybeUndefined({self.name!r}, {self.value!r}, defined={self.defined!r})"

    @python_semantics
    def read(self):
        """The value, with a check (when the graph runs) that it was assigned."""
        backend = backends.staging(self.defined)
        if backend is None:
            if not self.defined:
                raise UnboundLocalError(at(_unbound_message(self.name), caller_origin()))
            return self.value
        # The graph op records the user's line, and its error names it.
        backend.assert_(self.defined, _unbound_message(self.name))
        return self.value


def ld(value):
    """`value`, or the error Python raises for an unassigned variable if it is Undefined (for
    a MaybeUndefined, checked when the graph runs)."""
    cls = type(value)
    if cls is Undefined:
        value._fail()
    if cls is MaybeUndefined:
        return value.read()
    return value


def return_value(retval, do_return):
    """The value a function with lowered `return`s returns from its end: `retval` if a
    `return` ran, else None (Python's fall-off). Where only the graph knows whether a `return`
    ran, a staged check raises on the paths that would fall off (a graph cannot return None on
    some paths and a value on others)."""
    if isinstance(retval, Undefined):  # no path sets it: no `return` ran
        return None
    backend = backends.staging(do_return)
    if backend is None:
        return retval if do_return else None
    backend.assert_(
        do_return,
        "This function reached its end without a `return` (Python returns None there), on a "
        "path the graph takes at run time, but returns a value on other paths; a graph must "
        "return the same structure on every path. Add a `return` at the end of the function.")
    return retval


def locals_(thunks):
    """`locals()` in converted code (converters/locals_calls.py): the variables among `thunks`
    (name -> a function reading it) that are assigned."""
    found = {}
    for name, thunk in thunks.items():
        try:
            value = thunk()
        except NameError:  # not assigned yet
            continue
        if isinstance(value, MaybeUndefined):
            raise AutoGraphError(at(
                f"locals() cannot tell whether '{name}' is assigned here: a graph `if` or loop "
                "before this line assigns it on some paths only, which only the graph knows when "
                f"it runs. Assign '{name}' before the `if`/loop.", caller_origin()))
        if not isinstance(value, Undefined):
            found[name] = value
    return found
