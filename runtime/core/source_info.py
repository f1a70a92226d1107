"""Finding the user's source line that is running: ops and errors point at it.

Which code is the user's is decided by one rule, which the library that generates code for
the user's functions installs with `use_rule`: runtime/tracing/autograph_backend.py installs
autograph's (autograph/frames.py) when `runtime` is imported. Origins are autograph's
(`autograph.origins.Origin`: filename, lineno, col, text); this module does not import it.
"""

from __future__ import annotations

import sys
from types import FrameType


def _unknown(*args) -> None:
    return None


# The rule until runtime/tracing/autograph_backend.py installs autograph's (`import runtime`).
_origin_of = _unknown  # (filename, lineno, module) -> an Origin, or None
_stacklevel_of = lambda frame: 1  # noqa: E731 - frame -> warnings stacklevel
_unconverted_reason = _unknown  # code -> why it runs unconverted, or None


def use_rule(origin_of, stacklevel_of, unconverted_reason) -> None:
    """Installs the rule: `origin_of(filename, lineno, module)` is the user's Origin of a
    frame's location (None for library code), `stacklevel_of(frame)` the `warnings` stacklevel
    of the innermost user frame counted from `frame`, `unconverted_reason(code)` why the
    function of `code` runs without conversion (or None)."""
    global _origin_of, _stacklevel_of, _unconverted_reason
    _origin_of, _stacklevel_of, _unconverted_reason = origin_of, stacklevel_of, unconverted_reason


def origin_of_frame(frame):
    """The user's Origin of `frame`'s current line, or None for library frames."""
    return _origin_of(frame.f_code.co_filename, frame.f_lineno, frame.f_globals.get("__name__"))


def user_origin(depth: int = 1):
    """The Origin of the innermost user frame on the current call stack."""
    frame: FrameType | None = sys._getframe(depth)
    while frame is not None:
        origin = origin_of_frame(frame)
        if origin is not None:
            return origin
        frame = frame.f_back
    return None


def user_stacklevel() -> int:
    """The `warnings.warn` stacklevel, counted from the function calling this one, of the
    innermost user frame: a warning then names the user's line."""
    return _stacklevel_of(sys._getframe(1))


def unconverted_reason(code) -> str | None:
    """Why the function of `code` runs without conversion (its source was not available), or
    None."""
    return _unconverted_reason(code)
