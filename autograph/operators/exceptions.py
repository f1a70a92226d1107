"""`assert_stmt`: `assert cond, msg`; on a staged condition, an assertion in the graph."""

from __future__ import annotations

from autograph import backends
from autograph.origins import caller_origin


def assert_stmt(cond, message=None):
    """Raises AssertionError when `cond` is false; `message` is a thunk giving the message."""
    backend = backends.staging(cond)
    if backend is None:
        if not cond:
            raise AssertionError(message() if message is not None else _default_message())
        return None
    text = str(message()) if message is not None else _default_message()
    return backend.assert_(cond, text)


def _default_message() -> str:
    origin = caller_origin()
    return f"assertion failed: {origin.text}" if origin is not None else "assertion failed"
