"""`rt.grad` and `rt.value_and_grad`: gradients as functions, which compose with `rt.function`
(`rt.function(rt.grad(f))` traces the function and its gradient into one graph)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import autograph
from runtime import traceback_filtering
from runtime.autodiff.tape import GradientTape
from runtime.core.tensor_conversion import convert_to_tensor


def value_and_grad(fn: Callable[..., Any],
                   argnums: int | Sequence[int] = 0) -> Callable[..., tuple[Any, Any]]:
    """A function that returns `(fn(*args), gradient)`: the gradient of the scalar (or summed)
    result with respect to argument `argnums` (an int), or a tuple of gradients for a tuple of
    argument positions."""
    positions = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return _value_and_grad(fn, argnums, positions, args, kwargs)
        except Exception as e:  # noqa: BLE001 - re-raised, showing the user's frames
            raise traceback_filtering.filtered(e)

    return autograph.do_not_convert(wrapper)  # the wrapper itself runs as written


def _value_and_grad(fn, argnums, positions, args, kwargs):
    args = list(args)
    for i in positions:
        if i >= len(args):
            raise TypeError(f"{fn.__qualname__}: argnums asks for argument {i}, but only "
                            f"{len(args)} {'is' if len(args) == 1 else 'are'} passed "
                            "positionally.")
        args[i] = convert_to_tensor(args[i])
    with GradientTape() as tape:
        tape.watch([args[i] for i in positions])
        # converted, eagerly too: numpy's functions of tensors in it run as rt ops, which the
        # tape records (run as written, numpy would compute off the tape: a wrong gradient)
        value = autograph.converted_call(fn, *args, **kwargs)
    grads = tape.gradient(value, [args[i] for i in positions])
    return value, grads[0] if isinstance(argnums, int) else tuple(grads)


def grad(fn: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """Like `value_and_grad`, returning only the gradient."""
    with_value = value_and_grad(fn, argnums)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return with_value(*args, **kwargs)[1]

    return autograph.do_not_convert(wrapper)
