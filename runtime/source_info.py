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
from typing import NamedTuple

import autograph

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_AUTOGRAPH_DIR = os.path.dirname(os.path.abspath(autograph.__file__)) + os.sep
_LIBRARY_DIRS = (_RUNTIME_DIR, _AUTOGRAPH_DIR, os.path.dirname(os.__file__) + os.sep)


class Origin(NamedTuple):
    """A place in the user's source: file, line and the text of that line."""

    filename: str
    lineno: int
    text: str

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


def _translate(filename: str, lineno: int) -> Origin | None:
    lookup = getattr(autograph, "user_location", None)
    if lookup is None:
        return None
    found = lookup(filename, lineno)
    return Origin(*found) if found is not None else None


@functools.lru_cache(maxsize=8192)  # tracing asks for the same few lines many times
def origin_of_frame(filename: str, lineno: int) -> Origin | None:
    """The user's Origin of a frame location, or None for library frames."""
    mapped = _translate(filename, lineno)
    if mapped is not None:
        return mapped
    if filename.startswith(_LIBRARY_DIRS) or filename.startswith("<"):
        return None
    return Origin(filename, lineno, linecache.getline(filename, lineno).strip())


def user_origin(depth: int = 1) -> Origin | None:
    """The Origin of the innermost user frame on the current call stack."""
    frame = sys._getframe(depth)
    while frame is not None:
        origin = origin_of_frame(frame.f_code.co_filename, frame.f_lineno)
        if origin is not None:
            return origin
        frame = frame.f_back
    return None
