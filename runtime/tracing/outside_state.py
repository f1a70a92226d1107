"""Outside state written while tracing: no graph placeholder is left behind.

A graph `if` or loop that assigns a global, a variable of an enclosing function, or an
attribute or item of an object sets it to its graph value, a placeholder that exists only
while the function is traced; so does a plain assignment of a graph value to an attribute, an
item or a global in converted code (autograph/converters/outside_writes.py notes those). Where
code outside the function can read it after the call (a global; a cell or object that anything
else still holds when the function has returned: an argument, a global, a container, a caller,
the outputs), the trace is refused at the construct's (or assignment's) line with the fix, and
the value from before the call is put back, so the user's objects never hold a placeholder.
State of the function's own objects (made in the call and held by nothing else when it
returns) is left alone: it dies with the call.
"""

from __future__ import annotations

import gc
import types

from runtime import nest
from runtime.core.tensor import SymbolicTensor
from runtime.errors import ForeignTensorError, OperatorNotAllowedInGraphError, with_origin
from runtime.tensor_list import TensorList


class Write:
    """A slot (autograph/operators/slots.py: `holder`, `kind`, `name`, `get`, `reset`) that a
    staged construct left holding staged values (`construct`), or that a plain assignment
    wrote while the graph was built; `saved` is its value from before."""

    __slots__ = ("slot", "saved", "origin", "construct")

    def __init__(self, slot, saved, origin, construct=True):
        self.slot, self.saved, self.origin, self.construct = slot, saved, origin, construct


def check(writes: list, outputs, returned=None) -> None:
    """Refuses the first of `writes` (this trace's, in order) that leaves a placeholder where
    code outside the function can read it, or changed in a staged `if`/loop a container such
    code can read, after putting back every slot's value from before the trace. Called when
    the traced function has returned `returned`, as `outputs` (new containers)."""
    staged = [w for w in writes if w.slot.kind == "mutated" or _holds_staged(w.slot)]
    if not staged:
        return
    returned = {id(leaf) for leaf in nest.flatten(outputs)} | (
        _containers_in(returned) if any(w.slot.kind == "mutated" for w in staged) else set())
    ours = {id(writes), id(staged)}
    for write in writes:
        ours |= {id(write), id(write.slot), id(getattr(write.slot, "__dict__", None))}
    leaking = _leaking(staged, returned, ours)
    if leaking and any(w.slot.kind != "global" and id(w.slot.holder) not in returned
                       for w in leaking):
        # The function's own objects may still hold the slot's holder from a reference cycle
        # that nothing else reaches (a nested rt.function's closure): the cyclic collector,
        # off while tracing, frees those now (what the trace made is young: generation 0).
        gc.collect(0)
        leaking = _leaking(staged, returned, ours)
    if leaking:
        restore(writes)
        raise _error(min(leaking, key=lambda w: not w.construct))  # (a construct's first)


def _containers_in(value) -> set:
    """The ids of the lists, tuples and dicts `value` is made of (the outputs: a running
    frame's variables are not among gc's referrers)."""
    found = set()
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, (list, tuple, dict)) and id(value) not in found:
            found.add(id(value))
            stack.extend(value.values() if isinstance(value, dict) else value)
    return found


def _leaking(staged: list, returned: set, ours: set) -> list:
    """The writes of `staged` whose holder code outside the function can read."""
    outside = {}  # holder id -> whether code outside the function can read it
    for write in staged:
        holder = id(write.slot.holder)
        if holder not in outside:
            outside[holder] = (write.slot.kind == "global" or holder in returned
                               or _held_elsewhere(write.slot, ours))
    return [w for w in staged if outside[id(w.slot.holder)]]


def refusal_for(writes: list, error: ForeignTensorError):
    """The refusal of the write that left a placeholder of `error.graph` where the function
    then read it (a tensor of a finished `if`/loop used later), or None if no write did."""
    for write in writes:
        if any(isinstance(v, (SymbolicTensor, TensorList)) and _graph_of(v) is error.graph
               for v in nest.flatten(write.slot.get())):
            return _error(write)
    return None


def _graph_of(value):
    return (value.handle if isinstance(value, TensorList) else value).op.graph


def restore(writes: list) -> None:
    """Puts back each written slot's value from before the trace (the first snapshot that
    holds no staged value: inner constructs snapshot their outer one's placeholders)."""
    done = set()
    for write in writes:
        place = (id(write.slot.holder), "whole") if write.slot.kind in (
            "mutated", "contents") else (id(write.slot.holder), write.slot.name,
                                         _key_of(write.slot))  # (the first snapshot of it)
        if place in done or (_staged(write.saved) and write.slot.kind != "contents"):
            continue  # (a container's items: its reset skips those an earlier write saved)
        done.add(place)
        try:
            if write.slot.kind in ("mutated", "contents") or _holds_staged(write.slot):
                write.slot.reset(write.saved)
        except Exception:  # noqa: BLE001 - the user's object refused; the error says why
            continue


def _key_of(slot):
    """The key of an item slot (`L[i]` is one name for every `i` of a loop), by value where
    it hashes; else None."""
    key = getattr(slot, "key", None)
    try:
        hash(key)
    except TypeError:
        return ("object", id(key))
    return key


def _staged(value) -> bool:
    return any(isinstance(v, (SymbolicTensor, TensorList)) for v in nest.flatten(value))


def _holds_staged(slot) -> bool:
    try:
        value = slot.get()
    except Exception:  # noqa: BLE001 - a property that fails when read holds no placeholder
        return False
    return _staged(value)


def _held_elsewhere(slot, ours: set) -> bool:
    """Whether anything but these records holds the slot's holder (its cell, or its object):
    the function's own objects died with its frames; anything else (an argument, a global, a
    container or object anywhere, a caller's variable, the function's outputs) is outside.
    Errs on the side of outside: a refusal is an error, a missed placeholder a silent one."""
    for referrer in gc.get_referrers(slot.holder):
        if id(referrer) in ours:
            continue
        if isinstance(referrer, types.FrameType) and referrer.f_code.co_filename == __file__:
            continue
        return True
    return False


def _error(write: Write) -> OperatorNotAllowedInGraphError:
    slot = write.slot
    if slot.kind == "mutated":
        kind = type(slot.holder).__name__
        return OperatorNotAllowedInGraphError(with_origin(
            f"{slot.name} in a graph `if`/loop here {slot.effect}, but the Python {kind} it "
            "held is one that code outside the rt.function can read (an argument, a global, an "
            "object held outside, or the function's result), which Python would change in "
            "place and the graph cannot (it was left as it was). Return the values from the "
            f"function (a new {kind} made in it), or keep the state in an rt.Variable.",
            write.origin))
    what = {"global": "a global variable",
            "nonlocal": "a variable of an enclosing function"}.get(
        slot.kind, "state of an object that outlives the call (an argument, a global, held by "
        "one, or returned)")
    how = "in a graph `if`/loop here" if write.construct else "a graph value here"
    return OperatorNotAllowedInGraphError(with_origin(
        f"{slot.name} is assigned {how}, so after tracing it would hold the "
        f"graph's placeholder, not a value: it is {what}, which code outside the rt.function "
        "reads after the call (it was left as it was). Return the value from the function and "
        f"assign it after the call, or keep it in an rt.Variable (`{slot.name}.assign(...)`), "
        "whose value the graph updates on every call.", write.origin))
