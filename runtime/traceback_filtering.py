"""Tracebacks that show the user's code, as TensorFlow's and JAX's do: an exception leaving an
entry point of the library (a call of an `rt.function` or a concrete function, `tape.gradient`,
a function made by `rt.grad`) drops the frames of `runtime/` and `autograph/` and of generated
code from its traceback, keeping its type, message, notes and chained exceptions; the user's
frames stay, in order (autograph's note names the user's lines that ran converted).
`rt.config.set_traceback_filtering(False)`, or TRACEGRAPH_TRACEBACK_FILTERING=0 in the
environment, keeps every frame (for debugging the library)."""

from __future__ import annotations

import os
import types

import autograph
from runtime import config
from runtime.core import context

_LIBRARY_DIRS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), package, "")
    for package in ("runtime", "autograph"))


def _is_library(filename: str) -> bool:
    return (filename.startswith(_LIBRARY_DIRS) or filename.startswith("<rt-")
            or autograph.is_generated_file(filename))


def filtered(exc: BaseException) -> BaseException:
    """`exc` with the library's frames dropped from its traceback (when filtering is on and no
    graph is being built: the outermost entry point filters); the frame that re-raises it and
    the user's frames above are added as it propagates."""
    if not config.traceback_filtering() or context.current_graph() is not None:
        return exc  # (a caller being traced reads the frames: see raises_as_python)
    _filter_chain(exc, {id(exc)})
    return _without_library_frames(exc)


def _filter_chain(exc: BaseException, seen: set) -> None:
    """The same for the exceptions `exc` was raised from (its cause and context)."""
    for chained in (exc.__cause__, exc.__context__):
        if chained is not None and id(chained) not in seen:
            seen.add(id(chained))
            _filter_chain(chained, seen)
            _without_library_frames(chained)


def _without_library_frames(exc: BaseException) -> BaseException:
    kept, tb = [], exc.__traceback__
    while tb is not None:
        if not _is_library(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    new_tb = None
    for tb in reversed(kept):
        new_tb = types.TracebackType(new_tb, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    return exc.with_traceback(new_tb)
