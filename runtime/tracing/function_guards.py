"""The capture guards of one `rt.function`: the outside Python constants its graphs bake in
(found by runtime/tracing/capture_guards.py at the first call, or taken from the callees whose
graphs its graph takes in), whose current values are part of the signature; with
capture_guards="warn", their first values, and a warning when one changes."""

from __future__ import annotations

import types
import warnings
import weakref

import autograph
from runtime import nest
from runtime.core.source_info import user_stacklevel
from runtime.errors import StaleCaptureWarning
from runtime.tracing import capture_guards as guarding


class FunctionGuards:
    """The guards of the rt.function `name` of `fn`, made with `capture_guards` (`mode`);
    `lock`: the function's, held while it traces."""

    def __init__(self, fn, name: str, mode, lock):
        self._fn, self._name, self.mode, self._lock = fn, name, mode, lock
        # [(description, getter)]: None until the first call finds them; [] with
        # capture_guards=False. Replaced, never changed (other threads read it unlocked).
        self.found: list | None = None if mode else []
        self._warn_stale = mode == "warn"  # keep the first values, and warn
        self._first_values: tuple | None = None
        self.on_change = None  # called when guards are added (the function's entry is reset)

    def find(self) -> None:
        """Finds the guards, at the first call."""
        if self.found is None:
            self.found = guarding.guards_of(self._fn)

    def values(self) -> tuple:
        """The current values of the outside Python values the graph bakes in."""
        assert self.found is not None  # (found at the first call, before any values are read)
        return tuple(get() for _, get in self.found)

    def key(self, values=None) -> tuple:
        """The signature part of the guarded outside values: their current values (`values`, or
        read now), or with capture_guards="warn" their first values (a change warns once per
        value)."""
        values = self.values() if values is None else values
        if self._warn_stale:
            if self._first_values is None:
                self._first_values = values
            elif values != self._first_values:
                self._warn_of_stale_values(values)
                values = self._first_values
        return ("captured", values)

    def adopt(self, callee: FunctionGuards, adopted: list) -> None:
        """`callee`'s graph joins the graph this function is tracing: the outside values it
        bakes in are guarded here too (a callee reached through an argument, a dict or a list
        is one the static scan of `guards_of` cannot see); their values now go to `adopted`,
        the trace's list."""
        if self.mode is not True or not callee.found or _in_converted_code(callee._fn):
            return  # (a function defined inside converted code reads the caller's locals)
        with self._lock:  # (held by this thread's trace already; other threads wait)
            self.find()
            assert self.found is not None
            known = {what for what, _ in self.found}
            via = f" (read by {getattr(callee._fn, '__qualname__', callee._name)})"
            new = [(what + via, get) for what, get in callee.found if what + via not in known]
            if new:
                self.found = self.found + new  # (replaced: other threads may read it)
                adopted.extend(get() for _, get in new)
                if self.on_change is not None:
                    self.on_change()

    def of_callees(self, arguments) -> tuple:
        """The signature part of the Python functions among the bound `arguments` (a callee
        passed in, `f(x, helper)`): each one's guarded outside values, read now (its code
        traces into this function's graph, so what it reads is baked in as this function's own
        reads are); () when there are none, or with capture_guards=False (with "warn" a change
        traces again, as with True: the first values are kept for the function's own reads)."""
        if not self.mode:
            return ()
        found = tuple(tuple(get() for _, get in _callee_guards(leaf))
                      for _, value in arguments for leaf in nest.flatten(value)
                      if isinstance(leaf, (types.FunctionType, types.MethodType)))
        return (("callees", found),) if any(found) else ()

    def traced_key(self, key, adopted: list):
        """The key a trace made for `key` is kept under: with the values of the guards adopted
        from callees while tracing (`adopted`) added."""
        return with_captured(key, tuple(adopted)) if adopted else key

    def change(self, before_values, now_values) -> str | None:
        """What changed between two tuples of guarded values (the first guard that differs),
        or None."""
        assert self.found is not None  # (values were read, so the guards were found)
        for (what, _), before, now in zip(self.found, before_values, now_values):
            if before != now:
                if guarding.is_array_key(before) and guarding.is_array_key(now):
                    return (f"{what} ({guarding.shown(now)}) was written into (the graph used "
                            "its contents as constants; pass an array that changes as an "
                            "argument)")
                return (f"{what} changed from {guarding.shown(before)} to "
                        f"{guarding.shown(now)} (the graph used its value as a constant)")
        return None

    def _warn_of_stale_values(self, values) -> None:
        assert self.found is not None and self._first_values is not None  # (see key())
        changed = [f"{what} changed from {guarding.shown(before)} to {guarding.shown(now)}"
                   for (what, _), before, now in zip(self.found, self._first_values, values)
                   if before != now]
        warnings.warn(
            f"rt.function '{self._name}': {'; '.join(changed)}, but its graph keeps using the "
            "value it was traced with (capture_guards=\"warn\"). Pass the value as an "
            "argument, or use capture_guards=True to trace again when it changes.",
            StaleCaptureWarning, stacklevel=user_stacklevel())


_CALLEE_GUARDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _callee_guards(fn) -> list:
    """guards_of(fn), kept for a function, and for a method by its function for the last
    object it was bound to (a bound method is a new object at each access)."""
    key, owner = (fn.__func__, fn.__self__) if type(fn) is types.MethodType else (fn, None)
    try:
        kept = _CALLEE_GUARDS.get(key)  # (the object it was read for, the guards)
        if kept is None or kept[0] is not owner:
            kept = _CALLEE_GUARDS[key] = (owner, guarding.guards_of(fn))
    except TypeError:  # (not weak-referenceable: read each time)
        return guarding.guards_of(fn)
    return kept[1]


def with_captured(key, values: tuple):
    """`key` with `values` added to its guarded values (its last part, `("captured", ...)`,
    added when it has none)."""
    last = key[-1] if key else None
    if type(last) is tuple and len(last) == 2 and last[0] == "captured":
        return key[:-1] + (("captured", last[1] + values),)
    return key + (("captured", values),)


def _in_converted_code(fn) -> bool:
    """Whether `fn`, or a function it wraps (`functools.wraps`), was defined inside code
    autograph converted (a nested function)."""
    seen = set()
    while fn is not None and id(fn) not in seen:
        seen.add(id(fn))
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        if code is not None and autograph.is_generated_file(code.co_filename):
            return True
        fn = getattr(fn, "__wrapped__", None)
    return False
