"""Outside state written by staged control flow: no graph placeholder is left behind.

A graph `if` or loop that assigns a global, a variable of an enclosing function, or an
attribute or item of an object sets it to its graph value, a placeholder that exists only
while the function is traced. Where code outside the function can read it after the call (a
global; an object reachable from the arguments, the function's globals or its closure), the
trace is refused at the construct's line with the fix, and the value from before the trace is
put back, so the user's objects never hold a placeholder. State of the function's own objects
(made in the call and not stored outside) is left alone: it dies with the call.
"""

from __future__ import annotations

import types

from runtime import nest
from runtime.errors import OperatorNotAllowedInGraphError, with_origin
from runtime.tensor import SymbolicTensor
from runtime.tensor_list import TensorList

_DEPTH = 4  # containers and attributes followed from a root
_LIMIT = 20_000  # objects visited, at most


class Write:
    """A slot (autograph/operators/slots.py: `holder`, `kind`, `name`, `get`, `reset`) that a
    staged construct left holding staged values."""

    __slots__ = ("slot", "saved", "origin")

    def __init__(self, slot, saved, origin):
        self.slot, self.saved, self.origin = slot, saved, origin


def check(writes: list, fn, arguments) -> None:
    """Refuses the first of `writes` that leaves a placeholder where code outside `fn` reads
    it (`arguments`: the traced call's (name, value) pairs), after putting back every slot's
    value from before the trace."""
    staged = [w for w in writes if _holds_staged(w.slot)]
    if not staged:
        return
    outside = _reachable({id(w.slot.holder) for w in staged}, _roots(fn, arguments))
    leaking = [w for w in staged if w.slot.kind == "global" or id(w.slot.holder)
               in outside]
    if leaking:
        restore(writes)
        raise _error(leaking[0])


def restore(writes: list) -> None:
    """Puts back each written slot's value from before the trace (the first snapshot that
    holds no staged value: inner constructs snapshot their outer one's placeholders)."""
    done = set()
    for write in writes:
        place = (id(write.slot.holder), write.slot.name)
        if place in done or _staged(write.saved):
            continue
        done.add(place)
        if _holds_staged(write.slot):
            write.slot.reset(write.saved)


def _staged(value) -> bool:
    return any(isinstance(v, (SymbolicTensor, TensorList)) for v in nest.flatten(value))


def _holds_staged(slot) -> bool:
    return _staged(slot.get())


def _roots(fn, arguments) -> list:
    """What code outside the traced function reaches: the arguments, and the globals and
    closure cells of `fn` and the functions it wraps."""
    roots = [value for _, value in arguments]
    seen = set()
    while fn is not None and id(fn) not in seen:
        seen.add(id(fn))
        roots += [getattr(fn, "__self__", None), getattr(fn, "__globals__", None),
                  *(getattr(fn, "__closure__", None) or ())]
        fn = (getattr(fn, "__wrapped__", None) or getattr(fn, "__func__", None)
              or getattr(fn, "python_function", None))
    return [r for r in roots if r is not None]


_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
           types.MethodType, str, bytes, int, float, complex, bool)


def _reachable(targets: set, roots) -> set:
    """The ids among `targets` of objects reachable from `roots` (through containers, cells
    and instance attributes; a few levels deep)."""
    found, seen, level = set(), set(), list(roots)
    for _ in range(_DEPTH + 1):
        following = []
        for obj in level:
            if id(obj) in seen or len(seen) > _LIMIT:
                continue
            seen.add(id(obj))
            if id(obj) in targets:
                found.add(id(obj))
            following += _children(obj)
        level = following
    return found


def _children(obj) -> list:
    if isinstance(obj, _OPAQUE) or obj is None:
        return []
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    if isinstance(obj, types.CellType):
        try:
            return [obj.cell_contents]
        except ValueError:
            return []
    attributes = getattr(obj, "__dict__", None)
    return list(attributes.values()) if isinstance(attributes, dict) else []


def _error(write: Write) -> OperatorNotAllowedInGraphError:
    slot = write.slot
    what = {"global": "a global variable", "nonlocal": "a variable of an enclosing "
            "function"}.get(slot.kind, "state of an object from outside the function")
    return OperatorNotAllowedInGraphError(with_origin(
        f"{slot.name} is assigned in a graph `if`/loop here, so after tracing it would hold the "
        f"graph's placeholder, not a value: it is {what}, which code outside the rt.function "
        "reads after the call (it was left as it was). Return the value from the function and "
        f"assign it after the call, or keep it in an rt.Variable (`{slot.name}.assign(...)`), "
        "whose value the graph updates on every call.", write.origin))
