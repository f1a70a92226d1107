"""Side effects that run on every call, in program order: printing and run-time assertions."""

from __future__ import annotations

import sys

import numpy as np

from runtime.core.tensor import Tensor, decoded
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError
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


def _assert_kernel(condition, *, message):
    if not np.all(condition):
        failed = InvalidArgumentError(f"Assertion failed: {message}")
        failed._rt_users_message = True  # (located, it leads with the message: interpreter)
        raise failed
    return ()


ASSERT = define_op("Assert", infer=lambda inputs, **attrs: [], kernel=_assert_kernel, stateful=True)


def assert_true(condition, message="condition is false"):
    """Raises rt.errors.InvalidArgumentError (when it runs) if any element of `condition` is
    false."""
    condition = convert_to_tensor(condition)
    if not condition.dtype.is_bool:
        raise TypeError(f"assert_true needs a bool condition, got {condition.dtype.name}.")
    apply(ASSERT, [condition], {"message": str(message)})


lacks(GRADIENT, "no outputs: a side effect", PRINT, ASSERT)
