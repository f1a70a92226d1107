"""What converted code decided while it ran: each `if` / `while` / `for` either became graph
control flow (staged: its condition or iterable was a tensor) or ran as Python (unrolled into
the graph being traced, so many iterations, or only the branch taken). Recorded only inside
`recording()` (for `rt.explain`); otherwise noting costs one attribute lookup.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import NamedTuple

from autograph.origins import Origin, caller_origin

_state = threading.local()


class Decision(NamedTuple):
    """`kind` ("if", "while", "for") at `origin`: `staged`, and for Python loops the number of
    iterations that ran (None otherwise)."""

    origin: Origin | None
    kind: str
    staged: bool
    iterations: int | None = None


@contextlib.contextmanager
def recording() -> Iterator[list[Decision]]:
    """`with recording() as log:` collects the Decisions of converted code run on this thread."""
    log: list[Decision] = []
    previous = getattr(_state, "log", None)
    _state.log = log
    try:
        yield log
    finally:
        _state.log = previous


def note(kind: str, staged: bool, iterations: int | None = None) -> None:
    log = getattr(_state, "log", None)
    if log is not None:
        log.append(Decision(caller_origin(), kind, staged, iterations))
