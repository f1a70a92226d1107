"""Exceptions raised by the runtime, and how they point at the user's source line."""

from __future__ import annotations

import ast
import builtins
from typing import TypeVar, cast


class Error(Exception):
    """Base class of runtime errors."""

    _rt_located: bool  # set (True) on an error that names the user's line already
    _rt_users_message: bool  # set (True) on a failed assertion: its message is the user's


class InvalidArgumentError(Error, ValueError):
    """An op got arguments it cannot compute with: bad shapes, out-of-range indices, ..."""


class OperatorNotAllowedInGraphError(Error, TypeError):
    """A symbolic tensor was used where a Python value is needed (bool, len, iteration)."""


class NumpyUnsupportedError(OperatorNotAllowedInGraphError):
    """A numpy function, or an argument of one, that runtime.numpy does not compute on tensors
    (a limit of the library: a user's `except TypeError` never turns it into a value)."""


class GraphLimitError(InvalidArgumentError):
    """An op needs what a graph does not know while tracing (e.g. the size of an unknown dim):
    a limit of graphs, not an error Python would raise."""


class ForeignTensorError(Error, ValueError):
    """A symbolic tensor used in a graph other than the one that made it (or those inside
    it); `graph` is the graph it belongs to."""

    def __init__(self, message, graph=None):
        super().__init__(message)
        self.graph = graph


class RetraceError(Error):
    """An `rt.function` with `on_retrace="error"` would trace more than `max_traces` graphs."""


class CheckError(Error):
    """`check=True`: a graph gave another result than its function run as plain Python."""


class NoGradientError(Error, LookupError):
    """A gradient needs to pass through an op that has no gradient rule."""


class NoLoweringError(Error, TypeError):
    """A graph holds an op that a native backend (jit_compile="numba" or "xla") cannot
    compile."""


class ArgumentError(Exception):
    """Marks an op's refusal of its arguments (a dtype, shape, axis or option it does not take,
    or a value its kernel rejects): the same call raises it on eager tensors, so converted code
    keeps it as Python's own error (a `try` of the user's may catch it while tracing), where a
    limit of graphs (OperatorNotAllowedInGraphError, GraphLimitError) is not. Each such error is
    also the error it is marked from (TypeError, ValueError, InvalidArgumentError), and shows as
    that; `except rt.errors.ArgumentError` catches them all."""


_E = TypeVar("_E", bound=Exception)


def _marking(kind: type) -> type:
    """The subclass of `kind` marked as an op's refusal, shown and pickled as `kind`."""
    return type(kind.__name__, (kind, ArgumentError), {
        "__module__": kind.__module__, "__qualname__": kind.__qualname__,
        "__doc__": f"{kind.__name__}, marked as an op's refusal of its arguments.",
        "__reduce__": lambda self: (getattr(kind, "_pickled_as", kind), self.args,
                                    self.__dict__ or None)})


_MARKED: dict[type, type] = {
    kind: _marking(kind) for kind in (TypeError, ValueError, InvalidArgumentError)}


def argument_error(kind: type[_E], message: str) -> _E:
    """`kind(message)`, marked as an op's refusal of its arguments (ArgumentError)."""
    if issubclass(kind, ArgumentError):
        return kind(message)
    marked = _MARKED.get(kind)
    if marked is None:  # (a rarer kind: made once, kept)
        marked = _MARKED.setdefault(kind, _marking(kind))
    return cast(_E, marked(message))


def _also(kind: type) -> type:
    """InvalidArgumentError that is also Python's `kind` (shown and pickled as
    InvalidArgumentError), for a graph op that failed as numpy fails there: `x[i]` past the end
    is an IndexError in both."""
    return type("InvalidArgumentError", (InvalidArgumentError, kind), {
        "__module__": __name__, "__qualname__": "InvalidArgumentError",
        "__doc__": f"InvalidArgumentError, also an {kind.__name__} (as Python raises there).",
        "_pickled_as": InvalidArgumentError,
        "__reduce__": lambda self: (InvalidArgumentError, self.args, self.__dict__ or None)})


# Python's errors a failing op keeps the kind of when located (an op's ValueError is already an
# InvalidArgumentError; other kinds become a plain one).
_ALSO: dict[type, type] = {kind: _also(kind) for kind in (
    IndexError, KeyError, TypeError, ZeroDivisionError, OverflowError, FloatingPointError,
    ArithmeticError)}


def located_kind(error: Exception) -> type:
    """The error class a graph op's failure `error` is raised as, at the user's line: its own
    class for an rt error, else InvalidArgumentError that is also the Python kind it was
    (`except IndexError` catches an index past the end in a graph, as eagerly)."""
    if isinstance(error, Error):
        return type(error)
    for kind in type(error).__mro__:
        also = _ALSO.get(kind)
        if also is not None:
            return also
    return InvalidArgumentError


# The exceptions user code raised on paths of graph `if`s and loops while they were traced
# (copies without their tracebacks), by the token their Assert op's `raises` attr names.
_RAISED: dict[str, BaseException] = {}
_PLAIN = (str, int, float, bool, type(None))


def raises_attr(error: BaseException, origin=None) -> str | None:
    """The Assert op's `raises` attr for `error`, raised by the user's code at `origin` on a
    path the graph takes: a token for it in this process, its class's name, its arguments and
    where, as a literal; None when its arguments or attributes are not plain values (a message
    formatted from tensors holds a graph value, which the graph's error must not carry: the
    Assert op's own message says it then)."""
    state = getattr(error, "__dict__", {})
    if not all(type(v) in _PLAIN for v in (*error.args, *state.values())
               if not isinstance(v, list)):  # (a list: the notes)
        return None
    token = f"{len(_RAISED)}:{id(error)}"
    _RAISED[token] = _copy(error)
    cls = type(error)
    return repr((token, cls.__module__, cls.__qualname__, error.args, format_origin(origin)))


def raised_error(raises: str) -> Exception | None:
    """The exception a failed Assert op with the `raises` attr raises, as the user's code did:
    a copy of the one it raised while traced (same class, arguments and attributes: `except
    ConvergenceError` catches it; on Python 3.11+ a note says where); in another process (a
    loaded graph) one of Python's own exception classes only (no module is imported). None
    otherwise: the op's InvalidArgumentError is raised then."""
    try:
        token, module, qualname, args, where = ast.literal_eval(raises)
    except (ValueError, SyntaxError, TypeError):
        return None
    raised: BaseException | None = None
    if token in _RAISED:
        raised = _copy(_RAISED[token])
    elif module == "builtins" and isinstance(getattr(builtins, qualname, None), type):
        cls = getattr(builtins, qualname)
        if issubclass(cls, Exception):
            raised = cls.__new__(cls, *args)
            raised.args = tuple(args)
    if not isinstance(raised, Exception):
        return None
    if hasattr(raised, "add_note"):
        raised.add_note(f"(raised by the graph when it took this path)\n{where}")
    return raised


def _copy(error: BaseException) -> BaseException:
    """`error` again, without running its class's `__init__` (which may take other arguments
    than it keeps in `args`): the same class, `args` and attributes, no traceback."""
    cls = type(error)
    copy = cls.__new__(cls, *error.args)
    copy.args = error.args
    state = dict(getattr(error, "__dict__", {}))
    if "__notes__" in state:
        state["__notes__"] = list(state["__notes__"])
    copy.__dict__.update(state)
    return copy


class RetracingWarning(UserWarning):
    """An `rt.function` traced more graphs than its `max_traces` (each trace is slow)."""


class StaleCaptureWarning(UserWarning):
    """capture_guards="warn": a Python value a graph baked in changed; the graph keeps the old
    one."""


def format_origin(origin) -> str:
    """`  File "f.py", line 3\n    y = x + 1` for an Origin, or '' when unknown."""
    if origin is None:
        return ""
    text = f'  File "{origin.filename}", line {origin.lineno}'
    if origin.text:
        text += f"\n    {origin.text}"
    return text


def with_origin(message: str, origin) -> str:
    """`message` followed by the user's source location, when known."""
    where = format_origin(origin)
    return f"{message}\n{where}" if where else message


def a_or_an(word: str) -> str:
    """`word` after its indefinite article, for messages: "an int32", "a float32"."""
    return f"{'an' if word[:1].lower() in ('a', 'e', 'i', 'o') else 'a'} {word}"


class ExportError(ValueError):
    """A graph (or one of its ops) cannot be expressed in ONNX (`rt.onnx.ExportError`)."""
