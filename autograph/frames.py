"""Which code is the user's: the one rule by which autograph converts a function (only the
user's), errors and ops name a source line, and warnings name the line that caused them.

Library code is the standard library and installed packages, autograph itself, numpy, gast
and the tensor libraries registered as backends; everything else is the user's. A line of
code that autograph generated stands for the user's line it was converted from.
"""

from __future__ import annotations

import functools
import linecache
import sys
import sysconfig

from autograph import backends, origins
from autograph.origins import Origin

_LIBRARY_MODULES = {"autograph", "numpy", "gast", "builtins"}  # and all installed packages:
_LIBRARY_PATHS = tuple(
    {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
)


def is_library_code(module: str | None, filename: str | None) -> bool:
    """Whether code of module `module` in file `filename` is library code (see above)."""
    if filename and filename.startswith(_LIBRARY_PATHS):
        return True
    top = (module or "").split(".")[0]
    return top in _LIBRARY_MODULES or top in backends.library_modules()


@functools.lru_cache(maxsize=8192)  # tracing asks for the same few lines many times
def user_origin_of(filename: str, lineno: int, module: str | None) -> Origin | None:
    """The user's Origin of a frame's location (`module`: its globals' `__name__`): a
    generated line's user line, None for library code and code without a file."""
    origin = origins.REGISTRY.lookup(filename, lineno)
    if origin is not None:
        return origin
    if filename.startswith("<") or is_library_code(module, filename):
        return None
    return Origin(filename, lineno, None, linecache.getline(filename, lineno).strip())


def user_stacklevel(frame=None) -> int:
    """The `warnings.warn` stacklevel of the innermost frame of user code (generated code
    counts as the user's), counted from `frame` (default: the caller's frame) as 1."""
    frame, level = frame or sys._getframe(1), 1
    while frame is not None and not origins.REGISTRY.is_generated(frame.f_code.co_filename) and \
            is_library_code(frame.f_globals.get("__name__"), frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level
