"""Capture guards: the Python constants a function reads from outside (globals, closure
variables, `self` and class attributes, also read by the lambdas and functions defined in it)
are baked into its graph, so `rt.function` makes their current values part of the signature.
`guards_of(fn)` finds them at the first call; each guard's getter gives its signature key
(`guard_key`: typed, floats by their bits, other objects by identity); `shown(key)` writes a
key as Python would, for the retrace log.
"""

from __future__ import annotations

import dis
import re
import types

from runtime.errors import a_or_an

_GUARDED_TYPES = (bool, int, float, str, type(None))


def _guardable(value) -> bool:
    if type(value) is tuple:
        return all(_guardable(v) for v in value)
    return type(value) in _GUARDED_TYPES


def guards_of(fn) -> list:
    """[(description, getter)] of the Python constants `fn` reads from outside, by their
    current values: globals, closure variables and (for a bound method) `self` attributes,
    read by `fn` or by the lambdas, comprehensions and functions defined in it. A getter gives
    the value's signature key (`_guard_key`)."""
    func, owner = (fn.__func__, fn.__self__) if isinstance(fn, types.MethodType) else (fn, None)
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    reads, written = {"LOAD_GLOBAL": set(), "LOAD_DEREF": set(), "LOAD_ATTR": set()}, set()
    codes = [code]
    for c in codes:  # grows: nested code objects
        codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        for instruction in dis.get_instructions(c):
            if instruction.opname in _WRITES:
                written.add(instruction.argval)
            elif instruction.opname in reads:
                reads[instruction.opname].add(instruction.argval)
    guards = []
    names = getattr(func, "__globals__", {})
    for name in sorted(reads["LOAD_GLOBAL"] - written):
        if name in names and _guardable(names[name]):
            guards.append((f"the global '{name}'",
                           lambda g=names, n=name: guard_key(g.get(n, _MISSING))))
    for name, cell in zip(code.co_freevars, func.__closure__ or ()):
        if name in written or name not in reads["LOAD_DEREF"] or not _cell_set(cell) \
                or not _guardable(cell.cell_contents):
            continue
        guards.append((f"the closure variable '{name}'",
                       lambda c=cell: guard_key(c.cell_contents) if _cell_set(c) else _MISSING))
    if owner is not None:
        for name in sorted(reads["LOAD_ATTR"] - written):
            if _guardable(getattr(owner, name, None)) and hasattr(owner, name):
                guards.append((f"the attribute 'self.{name}'",
                               lambda o=owner, n=name: guard_key(getattr(o, n, _MISSING))))
    return guards


def guarded_names(fn) -> set:
    """The names (globals, closure variables, `self.` attributes) whose values `guards_of`
    guards."""
    return {re.search(r"'(.*)'", description)[1] for description, _ in guards_of(fn)}


# Names the function itself assigns are its state, not constants it reads.
_WRITES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_ATTR", "DELETE_ATTR",
                     "STORE_DEREF", "DELETE_DEREF"})
_MISSING = ("<missing>",)


def guard_key(value):
    """A guarded value as it goes into the signature: typed (1, 1.0 and True differ; floats by
    their bits, so -0.0 and nan are told apart), and other objects by identity."""
    kind = type(value)
    if kind is tuple:
        return (tuple, tuple(guard_key(v) for v in value))
    if kind is float:
        return (float, value.hex())
    if kind in _GUARDED_TYPES:
        return (kind, value)
    return _Identity(value)


class _Identity:
    """A signature key part for an object that is not a Python constant: equal only to itself
    (it holds the object, so its id cannot be reused while the key lives)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self):
        return id(self.value)

    def __repr__(self):
        text = repr(self.value)
        return text if len(text) <= 40 else a_or_an(type(self.value).__name__)


def shown(key) -> str:
    """A guard key as its value is written in Python."""
    if isinstance(key, tuple) and len(key) == 2 and key[0] is tuple:
        return "(" + ", ".join(shown(k) for k in key[1]) + ("," if len(key[1]) == 1 else "") + ")"
    if isinstance(key, tuple) and len(key) == 2 and key[0] is float:
        return repr(float.fromhex(key[1]))
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], type):
        return repr(key[1])
    return repr(key)


def _cell_set(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - raises ValueError for an empty cell
    except ValueError:
        return False
    return True
