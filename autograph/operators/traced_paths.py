"""While a graph traces the paths of a staged `if` or loop.

A graph traces every path, whether it will run or not. So an error that plain Python would
raise on a path (a `raise`, a missing key, an unassigned variable...) becomes an error raised
when the graph takes that path (`raised_by_user`, see `control_flow`); any other exception that
escapes the tracing is marked with the user's line of the construct
(`escaped_from`), and user `except` clauses do not handle it (`exceptions.reraise_staged`);
and `depth()` (how many staged constructs are being traced, on this thread) lets
`converted_call` stop a recursion that only a tensor could end.
"""

from __future__ import annotations

import threading

from autograph import backends
from autograph.errors import AutoGraphError, RecursionLimitError, at
from autograph.operators import structures
from autograph.origins import REGISTRY, caller_origin

_state = threading.local()
_MARK = "_ag_traced_at"


def depth() -> int:
    """How many staged constructs this thread is tracing the paths of."""
    return getattr(_state, "depth", 0)


class TracedPaths:
    """`with TracedPaths():` around the tracing of one staged construct's paths."""

    def __enter__(self):
        _state.depth = depth() + 1
        return self

    def __exit__(self, kind, exc, tb):
        _state.depth -= 1
        if isinstance(exc, Exception) and not hasattr(exc, _MARK):
            setattr(exc, _MARK, caller_origin())
        return False


def escaped_from(exc):
    """The origin of the staged construct whose tracing `exc` escaped, or None."""
    return getattr(exc, _MARK, None)


_PYTHON_SEMANTICS: set = set()  # code objects of operators that raise Python's own errors


def python_semantics(fn):
    """Marks an operator whose exceptions are the ones plain Python raises at that point (a
    read of an unassigned variable, a failing `assert`)."""
    _PYTHON_SEMANTICS.add(fn.__code__)
    return fn


def raised_by_user(exc):
    """The user origin where `exc` was raised, if plain Python would raise it there too: it
    comes from the user's converted code itself (a `raise`, a missing key or name, ...) or
    from an operator marked `python_semantics`, or the tensor library says it raises it eagerly
    too (`Backend.raises_as_python`: an op rejecting its arguments). None for the limits of
    graphs (errors of autograph, most of the tensor library's), which are not the path's."""
    if isinstance(exc, AutoGraphError):
        return None
    origin, innermost = _last_user_line(exc)
    return origin if innermost or backends.raises_as_python(exc) else None


def _last_user_line(exc):
    """(The innermost user origin in `exc`'s traceback or None, whether its innermost frame
    is the user's code or a `python_semantics` operator)."""
    origin, innermost = None, None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        found = REGISTRY.lookup(code.co_filename, tb.tb_lineno)
        origin = found or origin
        innermost = found is not None or code in _PYTHON_SEMANTICS
        tb = tb.tb_next
    return origin, innermost


class TryBody:
    """`with TryBody():` around a `try` statement with `except` clauses. Once tracing it made
    the graph raise when it takes some path (`staged_raise`), plain Python stops there on some
    inputs and may run an `except`, which a graph cannot do; an exception that tracing then
    lets escape the statement is refused instead of being raised for every input."""

    staged_at = None

    def __enter__(self):
        _state.__dict__.setdefault("tries", []).append(self)
        return self

    def __exit__(self, kind, exc, tb):
        _state.tries.pop()
        if (self.staged_at is None or not isinstance(exc, Exception)
                or isinstance(exc, AutoGraphError)):
            return False
        staged = self.staged_at
        raise AutoGraphError(at(
            f"{type(exc).__name__}: {exc}\nwas raised while tracing this `try` statement, after "
            f"tracing made the graph raise on some inputs at {staged.filename}, line "
            f"{staged.lineno} (a path of a graph `if` or loop). Plain Python stops at that raise "
            "on those inputs and may handle it with an `except`; a graph cannot, so it cannot do "
            "what Python does here. Make that condition a Python value, or fix the error above.",
            _last_user_line(exc)[0] or caller_origin())) from exc


def in_try() -> bool:
    """Whether a `try` statement with `except` clauses is being traced (its `except` may
    handle what a path raises, which a graph cannot)."""
    return bool(getattr(_state, "tries", ()))


def staged_raise(origin) -> None:
    """Notes that tracing made the graph raise at `origin` when it takes a path."""
    for body in getattr(_state, "tries", ()):
        if body.staged_at is None:
            body.staged_at = origin


# A function may call itself with the same Python arguments through this many staged
# constructs (each level traces another `if` or loop) before the recursion counts as one that
# only a tensor could end.
RECURSION_LIMIT = 16


class Call:
    """`with Call(fn, args, kwargs):` around a converted call made while staged paths are
    traced: raises when `fn` is already active, with the same Python values in its arguments,
    under RECURSION_LIMIT staged constructs that it entered. (A recursion whose Python
    arguments change, e.g. a depth argument, may end on them: it runs up to Python's limit.)"""

    def __init__(self, fn, args, kwargs):
        self.code = fn.__code__
        self.name = fn.__qualname__
        self.key = _python_values((args, kwargs))

    def __enter__(self):
        calls = _state.__dict__.setdefault("calls", {})
        self.active = calls.setdefault(self.code, [])
        level = depth()
        if sum(1 for d, key in self.active if d < level and key == self.key) >= RECURSION_LIMIT:
            raise RecursionLimitError(at(
                f"{self.name} calls itself inside graph `if`s or loops ({RECURSION_LIMIT} levels "
                "deep): what ends the recursion depends on a tensor, so tracing would unroll it "
                "forever (a graph traces every path). Write it as a loop (a `while` on the "
                "tensor condition), or end it with a Python value (e.g. a depth argument).",
                caller_origin()))
        self.active.append((level, self.key))
        return self

    def __exit__(self, kind, exc, tb):
        self.active.pop()
        return False


_VALUE_TYPES = frozenset({bool, int, float, complex, str, bytes, type(None)})


def _python_values(value) -> tuple:
    """The Python values among the leaves of `value`, for comparing the arguments of two calls:
    numbers and strings by value, other objects by identity, every tensor alike."""
    leaves, _ = structures.flatten(value)
    return tuple(v if type(v) in _VALUE_TYPES
                 else None if backends.tensor_backend(v) is not None else (type(v), id(v))
                 for v in leaves)
