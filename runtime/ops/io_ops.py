"""Side effects that run on every call, in program order: printing and run-time assertions."""

from __future__ import annotations

import sys

import numpy as np

from runtime.core.tensor import Tensor, decoded
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, argument_error, raises_attr
from runtime.ops.registry import GRADIENT, apply, define_op, lacks
from runtime.variables import Variable


def format_value(value) -> str:
    """How a tensor value prints: `3`, `1.5`, `hello`, `[1 2 3]`."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            value = decoded(value)  # bytes -> str (astype(str) would read them as ASCII)
        return np.array2string(value)
    return str(value)


def _print_kernel(*values, parts, sep, end):
    it = iter(values)
    text = [format_value(next(it)) if part is None else part for part in parts]
    # Look the stream up on every call, so redirection (and pytest's capture) works.
    sys.stdout.write(sep.join(text) + end)
    return ()


PRINT = define_op("PrintV2", infer=lambda inputs, **attrs: [], kernel=_print_kernel, stateful=True)


def print(*inputs, sep=" ", end="\n"):  # noqa: A001 - TensorFlow's name
    """Prints tensors (and Python values) to standard output every time it runs."""
    tensors, parts = [], []
    for value in inputs:
        if isinstance(value, Tensor) or type(value) in _tensor_like():
            tensors.append(convert_to_tensor(value))
            parts.append(None)
        else:
            parts.append(str(value))
    apply(PRINT, tensors, {"parts": tuple(parts), "sep": sep, "end": end})


def _tensor_like():
    return (Variable,)


def assertion_failed(message: str, raises: str = "") -> InvalidArgumentError:
    """The error of a failed Assert op (every executor raises this one); `raises`: the attr
    naming the Python exception the path of the user's code raised (errors.raised_error makes
    it when the error is located)."""
    failed = argument_error(InvalidArgumentError, f"Assertion failed: {message}")
    failed._rt_users_message = True  # (located, it leads with the message: interpreter)
    if raises:
        failed._rt_raises = raises  # type: ignore[attr-defined]
    return failed


def _assert_kernel(condition, *, message, python_numbers=False, raises=""):
    if not np.all(condition):
        raise assertion_failed(message, raises)
    return ()


def _assert_statement(names, attrs) -> str:
    # one line the executor writes: `not c` is what costs nothing on a numpy scalar
    condition = names[0]
    raises = f", {attrs['raises']!r}" if attrs.get("raises") else ""
    return (f"if not ({condition}.all() if {condition}.ndim else {condition}): "
            f"raise assertion_failed({attrs['message']!r}{raises})")


ASSERT = define_op("Assert", infer=lambda inputs, **attrs: [], kernel=_assert_kernel, stateful=True,
                   expression=_assert_statement,
                   expression_globals={"assertion_failed": assertion_failed})


def assert_true(condition, message="condition is false", raises=None, origin=None):
    """Raises rt.errors.InvalidArgumentError (when it runs) if any element of `condition` is
    false; with `raises` (an exception the user's code raised at `origin` on a path of a graph
    `if` or loop), an exception like it, whose cause is that error."""
    condition = convert_to_tensor(condition)
    if not condition.dtype.is_bool:
        raise argument_error(
            TypeError, f"assert_true needs a bool condition, got {condition.dtype.name}."
        )
    attrs = {"message": str(message)}
    attr = None if raises is None else raises_attr(raises, origin)
    if attr is not None:
        attrs["raises"] = attr
    apply(ASSERT, [condition], attrs)


def check_python_numbers(condition, message: str) -> None:
    """An assertion that a stand-in of Python numbers computed what Python would (see
    ops/python_arithmetic.py): marked, so an exporter to a format without assertions (ONNX)
    may leave it out, where it leaves out no assertion of the user's."""
    apply(ASSERT, [convert_to_tensor(condition)], {"message": message, "python_numbers": True})


lacks(GRADIENT, "no outputs: a side effect", PRINT, ASSERT)
