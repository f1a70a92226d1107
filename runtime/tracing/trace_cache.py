"""The traces of one `rt.function`, by signature key: lookup (exact, or a relaxed trace whose
unknown dims the key fits) and relaxation (reduce_retracing: a new trace with the dims that
changed made unknown).

A key is a tuple with a part per argument (`runtime/tracing/signature.py`: dtype and shape of a
tensor, type and value of a Python value, and the structure around them), or `("input_signature",)`
for a function with an input_signature; a function with capture guards adds a last part,
`("captured", values)`. Lookups take no lock: the dict of traces is replaced, never changed,
so it can be read (and iterated, e.g. by `rt.saved.save`) while a trace is added.
"""

from __future__ import annotations

import logging

from runtime import nest
from runtime.tracing.signature import key_str, matches, relax_key, relax_value, value_key

logger = logging.getLogger("runtime.function")  # (named after the public module)

INPUT_SIGNATURE_KEY = ("input_signature",)  # the key of every call of an input_signature


class TraceCache:
    """The traces of the rt.function `name` (made with `reduce_retracing`; `input_signature`:
    whether it has one)."""

    def __init__(self, name: str, reduce_retracing, input_signature: bool):
        self._name = name
        self._reduce_retracing = reduce_retracing
        self._input_signature = input_signature
        self.traces: dict = {}  # key of each trace -> ConcreteFunction (replaced when added)
        self._relaxed: dict = {}  # key -> the ConcreteFunction of a more general key
        self.traced_keys: list = []  # (key, arguments) of each trace, in the order traced
        # Where the Python code read a dim a relaxed trace did not know (then every shape is
        # traced exactly), or None.
        self.unknown_dim_read = None

    def key(self, arguments, guarded: tuple) -> tuple:
        """The signature key of bound `arguments`, `guarded` (the guarded values' part, or
        ()) added."""
        if self._input_signature:
            return (*INPUT_SIGNATURE_KEY, *guarded)
        return tuple(nest.structure_key(v, value_key, name) for name, v in arguments) + guarded

    def exact(self, key):
        """The trace of exactly `key`, or None."""
        return self.traces.get(key)

    def lookup(self, key):
        """The trace that serves `key` (its own, or a relaxed one it fits), or None."""
        return self.traces.get(key) or self._relaxed.get(key) or self._find_relaxed(key)

    def _find_relaxed(self, key):
        for general, concrete in self.traces.items():
            if concrete.unknown_dim_read is None and matches(general, key):
                self._relaxed[key] = concrete
                return concrete
        return None

    def add(self, key, arguments, concrete) -> None:
        """Records a new trace, of `arguments` (specs) under `key`."""
        self.traced_keys.append((key, arguments))
        self.traces = {**self.traces, key: concrete}

    def concrete_functions(self) -> list:
        """Every trace, once each, in the order traced."""
        return list({id(c): c for c in self.traces.values()}.values())

    def current(self, guard_key) -> list:
        """The traces made with the guarded values `guard_key` (None: all of them)."""
        if guard_key is None:
            return list(self.traces.values())
        return [c for key, c in self.traces.items() if key[-1] == guard_key]

    def relaxed(self, key, arguments):
        """The (key, arguments) a new trace for `key` is made with: with reduce_retracing (by
        default: from the second retrace that only shapes caused), the dims that differ from
        an earlier trace become None."""
        reduce_retracing = self._reduce_retracing
        relaxing = reduce_retracing or (
            reduce_retracing is None and self._shape_only_retraces(key) >= 2)
        if self.unknown_dim_read is not None or not relaxing:
            return key, arguments
        relaxed, arguments = self._relax(key, arguments)
        if reduce_retracing is None and relaxed != key:
            changed = ", ".join(f"'{name}' as {key_str(part)}" for (name, _), part, old
                                in zip(arguments, relaxed, key) if part != old)
            logger.info(
                "rt.function '%s': a third shape of the same arguments; tracing one graph "
                "with unknown dims (%s) that serves every later shape like it "
                "(reduce_retracing=False traces each shape exactly).",
                self._name, changed)
        return relaxed, arguments

    def stop_relaxing(self, origin) -> None:
        """From now on every shape is traced exactly: the code at `origin` read a dim that a
        relaxed trace did not know."""
        self.unknown_dim_read = origin
        where = f" ({origin.filename}:{origin.lineno})" if origin is not None else ""
        (logger.warning if self._reduce_retracing else logger.info)(
            "rt.function '%s' reads the static shape of an argument whose shape changes "
            "between calls%s: a graph with unknown dims would give it None where Python gives "
            "a number, so each shape is traced exactly (read a changing dim as a tensor, "
            "rt.shape(x)[0] or np.shape(x)[0], for one graph that serves every shape).",
            self._name, where)

    def _shape_only_retraces(self, key) -> int:
        """How many earlier traces differ from `key` only in the dims of tensors."""
        return sum(1 for old, _ in self.traced_keys
                   if old != key and relax_key(old, key) is not None)

    def _relax(self, key, arguments):
        for old_key, _ in reversed(self.traced_keys):
            relaxed = relax_key(old_key, key)
            if relaxed is not None and relaxed != key:
                relaxed_args = [
                    (name, relax_value(v, rk)) for (name, v), rk in zip(arguments, relaxed)
                ]
                return relaxed, relaxed_args
        return key, arguments
