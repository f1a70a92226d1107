"""`assert_stmt`: `assert cond, msg`; on a staged condition, an assertion in the graph.
`reraise_staged`: user `except` clauses never handle exceptions raised while a graph traced
paths that may not run (see `traced_paths`)."""

from __future__ import annotations

from autograph import backends
from autograph.errors import AutoGraphError, at
from autograph.operators import traced_paths
from autograph.origins import caller_origin


@traced_paths.python_semantics
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


def reraise_staged(exc):
    """First statement of every `except` clause in converted code: the errors of autograph and
    of the tensor library that mark what a graph cannot do are not the user's to handle, nor is
    an exception raised while tracing a path of a graph `if`/loop (that path may never run)."""
    if isinstance(exc, AutoGraphError) or backends.is_graph_limit(exc):
        raise exc
    origin = traced_paths.escaped_from(exc)
    if origin is None:
        return
    raise AutoGraphError(at(
        f"{type(exc).__name__}: {exc}\nwas raised while tracing a path of a graph `if` or loop "
        f"at {origin.filename}, line {origin.lineno} (a graph traces every path, whether it "
        "runs or not), and an `except` clause would catch it here as if it had happened. An "
        "`except` cannot handle errors of graph code: make the condition a Python value, or "
        "avoid the error on the paths that do not run.", caller_origin())) from exc
