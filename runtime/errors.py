"""Exceptions raised by the runtime, and how they point at the user's source line."""

from __future__ import annotations

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
        "__reduce__": lambda self: (kind, self.args, self.__dict__ or None)})


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
