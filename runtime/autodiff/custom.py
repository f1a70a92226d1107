"""`rt.custom_gradient`: a function that supplies its own gradient.

    @rt.custom_gradient
    def log1pexp(x):
        e = rt.exp(x)
        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return rt.log(1 + e), grad

The function's own ops are not recorded by tapes; each open tape records one entry whose rule
is `grad` (given the gradient of each output, it returns the gradient of each tensor argument,
or one gradient when there is one argument). Works eagerly and inside `rt.function`.
"""

from __future__ import annotations

import functools

import autograph
from runtime import context, nest
from runtime.conversion import convert_to_tensor
from runtime.source_info import user_origin
from runtime.tensor import Tensor


def custom_gradient(fn):
    """Decorator: `fn(*tensors)` returns `(result, grad_fn)` (see the module docstring)."""

    @functools.wraps(fn)
    def wrapper(*args):
        inputs = [convert_to_tensor(a) for a in args]
        with context.tapes_paused():
            if context.current_graph() is not None:  # tracing: convert fn's control flow
                result = autograph.converted_call(fn, *inputs)
            else:
                result = fn(*inputs)
        if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
            raise TypeError(f"A function decorated with rt.custom_gradient returns (result, "
                            f"grad_fn); {fn.__qualname__} returned {type(result).__name__}.")
        value, grad_fn = result
        outputs = [t for t in nest.flatten(value) if isinstance(t, Tensor)]

        def rule(entry, grads):
            from runtime.ops import creation_ops

            dys = [g if g is not None else creation_ops.zeros_like(t)
                   for g, t in zip(grads, entry.outputs)]
            found = grad_fn(*dys)
            found = list(found) if isinstance(found, (list, tuple)) else [found]
            if len(found) != len(entry.inputs):
                raise ValueError(f"The gradient function of {fn.__qualname__} returned "
                                 f"{len(found)} gradients for {len(entry.inputs)} arguments.")
            return [None if g is None else convert_to_tensor(g) for g in found]

        origin = user_origin()
        for tape in context.recording_tapes():
            tape.record_custom(inputs, outputs, rule, origin)
        return value

    return autograph.do_not_convert(wrapper)  # the wrapper itself runs as written
