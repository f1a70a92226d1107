"""Finding the user's source line that is running: ops and errors point at it.

Which code is the user's is decided by one rule, which the library that generates code for
the user's functions installs with `use_rule` (runtime/autograph_backend.py installs
autograph's: autograph/frames.py). Until then, code of the `runtime` package is the library's
and everything else the user's.
"""

from __future__ import annotations

import linecache
import os
import sys
from typing import NamedTuple


class Origin(NamedTuple):
    """A place in the user's source: file, line, column (None when only the line is known) and
    the text of the line; the fields of autograph's Origin, which its rule gives (runtime does
    not import autograph's: this one is for saved graphs and the rule before autograph's)."""

    filename: str
    lineno: int
    col: int | None
    text: str

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _origin_in_file(filename: str, lineno: int, module: str | None):
    if filename.startswith((_RUNTIME_DIR, "<")):
        return None
    return Origin(filename, lineno, None, linecache.getline(filename, lineno).strip())


def _stacklevel_outside_runtime(frame) -> int:
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_RUNTIME_DIR):
        frame, level = frame.f_back, level + 1
    return level


def _no_reason(code) -> None:
    return None


_origin_of = _origin_in_file  # (filename, lineno, module) -> Origin | None
_stacklevel_of = _stacklevel_outside_runtime  # frame -> warnings stacklevel
_unconverted_reason = _no_reason  # code -> why it runs unconverted, or None


def use_rule(origin_of, stacklevel_of, unconverted_reason) -> None:
    """Installs the rule: `origin_of(filename, lineno, module)` is the user's Origin of a
    frame's location (None for library code), `stacklevel_of(frame)` the `warnings` stacklevel
    of the innermost user frame counted from `frame`, `unconverted_reason(code)` why the
    function of `code` runs without conversion (or None)."""
    global _origin_of, _stacklevel_of, _unconverted_reason
    _origin_of, _stacklevel_of, _unconverted_reason = origin_of, stacklevel_of, unconverted_reason


def origin_of_frame(frame) -> Origin | None:
    """The user's Origin of `frame`'s current line, or None for library frames."""
    return _origin_of(frame.f_code.co_filename, frame.f_lineno, frame.f_globals.get("__name__"))


def user_origin(depth: int = 1) -> Origin | None:
    """The Origin of the innermost user frame on the current call stack."""
    frame = sys._getframe(depth)
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
