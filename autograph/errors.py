"""Errors of the converter, and translation of exceptions raised in generated code.

`ConversionError` is raised for code that cannot be converted, at the user's line.
`translate(exc, registry)` adds a note naming the user's lines for every generated frame in an
exception's traceback and drops those frames, so tracebacks show the user's code.
"""

from __future__ import annotations

import sys
import types


class ConversionError(Exception):
    """The function uses syntax that autograph cannot convert (at the line given)."""


class AutoGraphError(Exception):
    """Converted code reached a state that plain Python would handle differently (e.g. a
    variable defined in only one branch of a staged `if`)."""

    _ag_translated: bool  # set (True) on an error located in the user's code already


class RecursionLimitError(AutoGraphError, RecursionError):
    """Converted code recursed too deep to trace: a recursion that only a tensor could end, or
    one deeper than Python's recursion limit (a RecursionError, as in plain Python)."""


class UnrolledLoopWarning(UserWarning):
    """A Python loop ran many iterations while a graph was traced, each adding ops: the graph
    holds the loop unrolled."""


def at(message: str, origin) -> str:
    """`message` with the user's file, line and source text appended."""
    if origin is None:
        return message
    return f'{message}\n  File "{origin.filename}", line {origin.lineno}\n    {origin.text}'


def translate(exc: BaseException, registry) -> BaseException:
    """Rewrites the traceback of `exc` (raised through generated code) to the user's lines."""
    if getattr(exc, "_ag_translated", False):
        return exc
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    notes = []
    kept = []
    message = str(exc)
    for tb in frames:
        filename = tb.tb_frame.f_code.co_filename
        origin = registry.lookup(filename, tb.tb_lineno)
        if origin is not None and f'File "{origin.filename}", line {origin.lineno}\n' in (
                message + "\n"):
            continue  # the message names this line already
        if origin is not None:
            notes.append(
                f'  File "{origin.filename}", line {origin.lineno}, in '
                f"{tb.tb_frame.f_code.co_name} (converted)\n    {origin.text}"
            )
        elif not registry.is_generated(filename):
            kept.append(tb)
    if len(kept) == len(frames):  # no generated frame
        return exc
    if isinstance(exc, RecursionError) and not isinstance(exc, AutoGraphError):
        return _recursion_error(frames, registry)
    new_tb = None
    for tb in reversed(kept):
        new_tb = types.TracebackType(new_tb, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    if notes:
        add_note(exc, "Raised in code converted by autograph, at:\n" + "\n".join(notes))
    exc._ag_translated = True  # type: ignore[attr-defined]  # (a flag on any exception)
    return exc.with_traceback(new_tb)


def add_note(exc: BaseException, note: str) -> None:
    """`exc.add_note(note)`, also on Python 3.10 (where the note is kept where 3.11 puts it)."""
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:
        exc.__notes__ = [*getattr(exc, "__notes__", []), note]  # type: ignore[attr-defined]


def _recursion_error(frames, registry) -> RecursionLimitError:
    """Python's recursion limit, reached in converted code: located at the innermost user line,
    with the cause (one converted call uses several Python frames) instead of ~1,000 frames."""
    found = [registry.lookup(tb.tb_frame.f_code.co_filename, tb.tb_lineno) for tb in frames]
    found = [origin for origin in found if origin is not None]
    error = RecursionLimitError(at(
        f"The recursion went deeper than Python's limit of {sys.getrecursionlimit()} frames in "
        "converted code. A converted call, and each graph `if`/loop it traces, uses several "
        "Python frames, so converted recursion stops at about a tenth of plain Python's depth. "
        "Write the recursion as a loop, or raise the limit (sys.setrecursionlimit).", found[-1]))
    error._ag_translated = True
    return error
