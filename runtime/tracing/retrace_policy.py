"""What an `rt.function` does when it traces again: every retrace logs why (INFO, on the
"runtime.function" logger); past `max_traces` graphs it warns (a RetracingWarning at the user's
call) or raises (RetraceError), as `on_retrace` says."""

from __future__ import annotations

import logging
import warnings

from runtime.core.source_info import user_origin, user_stacklevel
from runtime.errors import RetraceError, RetracingWarning, with_origin
from runtime.tracing.signature import is_python_key, is_spec_key, key_phrase, key_str

logger = logging.getLogger("runtime.function")  # (named after the public module)


class RetracePolicy:
    """The retrace policy of the rt.function `name`."""

    def __init__(self, name: str, max_traces: int, on_retrace: str):
        self._name, self._max_traces, self._on_retrace = name, max_traces, on_retrace

    def check(self, traced_keys, key, arguments, guards) -> None:
        """Before a trace for `key` (of `arguments`), after the traces of `traced_keys`;
        `guards`: the function's FunctionGuards (a changed guarded value is a reason)."""
        if not traced_keys:
            return
        count = len(traced_keys) + 1
        reason = _reason(traced_keys, key, arguments, guards)
        logger.info("rt.function '%s' traces graph %d: %s", self._name, count, reason)
        if count <= self._max_traces:
            return
        message = (f"rt.function '{self._name}' traces graph {count} (more than max_traces="
                   f"{self._max_traces}): {reason}. Tracing is slow; pass tensors instead of "
                   "Python values, use input_signature, or reduce_retracing=True for shapes.")
        if self._on_retrace == "error":
            raise RetraceError(with_origin(message, user_origin()))
        origin = user_origin()
        if origin is None:
            warnings.warn(message, RetracingWarning, stacklevel=user_stacklevel())
        else:
            warnings.warn_explicit(message, RetracingWarning, origin.filename, origin.lineno,
                                   module=self._name)


def _reason(traced_keys, key, arguments, guards) -> str:
    """What changed, against the closest earlier signature (fewest arguments changed; the
    latest of those)."""
    def changed(old_key):
        return [(name, old, new) for (name, _), old, new in zip(arguments, old_key, key)
                if old != new]

    closest = min((changed(old) for old, _ in reversed(traced_keys)), key=len)
    if not closest and guards.found and key[-1][0] == "captured":
        change = guards.change(traced_keys[-1][0][-1][1], key[-1][1])
        if change is not None:
            return change
    if not closest and any(type(p) is tuple and p[:1] == ("callees",) for p in key):
        return ("an outside value read by a function passed as an argument changed (the graph "
                "used its value as a constant)")
    if not closest:
        return "the arguments changed"
    name, old, new = closest[0]
    if is_python_key(old) or is_python_key(new):
        what = (f"argument '{name}' was {key_phrase(old)}, now {key_phrase(new)}: Python "
                "values are part of the signature; pass a tensor")
    elif is_spec_key(old) and is_spec_key(new) and old[0] is new[0]:
        what = (f"argument '{name}' changed shape from {key_str(old)} to {key_str(new)}: "
                "shapes are part of the signature")
    else:
        what = f"argument '{name}' changed from {key_phrase(old)} to {key_phrase(new)}"
    more = len(closest) - 1
    return what + (f" (and {more} more argument{'s' if more > 1 else ''})" if more else "")
