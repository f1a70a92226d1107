"""Finding the user's source line that is running: ops and errors point at it.

The first frame outside the `runtime` and `autograph` packages is the user's. Frames of code that
autograph generated are translated back to the user's file and line through
`autograph.user_location`.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys

import autograph
from autograph.origins import Origin

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_AUTOGRAPH_DIR = os.path.dirname(os.path.abspath(autograph.__file__)) + os.sep
_LIBRARY_DIRS = (_RUNTIME_DIR, _AUTOGRAPH_DIR, os.path.dirname(os.__file__) + os.sep)


@functools.lru_cache(maxsize=8192)  # tracing asks for the same few lines many times
def origin_of_frame(filename: str, lineno: int) -> Origin | None:
    """The user's Origin of a frame location, or None for library frames."""
    mapped = autograph.user_location(filename, lineno)  # (file, line, text) in generated code
    if mapped is not None:
        return Origin(mapped[0], mapped[1], None, mapped[2])
    if filename.startswith(_LIBRARY_DIRS) or filename.startswith("<"):
        return None
    return Origin(filename, lineno, None, linecache.getline(filename, lineno).strip())


def user_origin(depth: int = 1) -> Origin | None:
    """The Origin of the innermost user frame on the current call stack."""
    frame = sys._getframe(depth)
    while frame is not None:
        origin = origin_of_frame(frame.f_code.co_filename, frame.f_lineno)
        if origin is not None:
            return origin
        frame = frame.f_back
    return None


def user_stacklevel() -> int:
    """The `warnings.warn` stacklevel, counted from the function calling this one, of the
    innermost frame outside runtime and autograph: a warning then names the user's line."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith((_RUNTIME_DIR,
                                                                      _AUTOGRAPH_DIR)):
        frame, level = frame.f_back, level + 1
    return level
