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

A function that reads trainable variables (`w` below) gets their gradients from `grad` too,
as in TensorFlow: `grad` then takes a keyword argument `variables` (the variables read, in
the order first read) and returns `(gradients of the arguments, gradients of the variables)`.

    @rt.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * w, [rt.reduce_sum(dy * x)]
        return x * w, grad
"""

from __future__ import annotations

import functools
import inspect

import autograph
from runtime import nest
from runtime.autodiff.backprop import WithVariables
from runtime.autodiff.tape import GradientTape
from runtime.core import context
from runtime.core.source_info import user_origin
from runtime.core.tensor import Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import with_origin
from runtime.ops import creation_ops


def custom_gradient(fn):
    """Decorator: `fn(*tensors)` returns `(result, grad_fn)` (see the module docstring)."""

    @functools.wraps(fn)
    def wrapper(*args):
        inputs = [convert_to_tensor(a) for a in args]
        with context.tapes_paused(), GradientTape() as reads:  # only to see the variables read
            if context.current_graph() is not None:  # tracing: convert fn's control flow
                result = autograph.converted_call(fn, *inputs)
            else:
                result = fn(*inputs)
        if not (isinstance(result, tuple) and len(result) == 2 and callable(result[1])):
            raise TypeError(f"A function decorated with rt.custom_gradient returns (result, "
                            f"grad_fn); {fn.__qualname__} returned {type(result).__name__}.")
        value, grad_fn = result
        outputs = [t for t in nest.flatten(value) if isinstance(t, Tensor)]
        variables = list(reads.watched_variables())
        origin = user_origin()
        graph, where = context.current_graph(), f"{fn.__qualname__} ({origin})"
        while graph is not None:  # (the branch or body it is in, and the graphs around)
            if where not in graph.custom_gradients:
                graph.custom_gradients.append(where)
            graph = graph.outer
        if variables and not _takes_variables(grad_fn):
            raise TypeError(with_origin(
                f"{fn.__qualname__} reads the variable(s) "
                f"{', '.join(repr(v.name) for v in variables)}, so the gradient function "
                "it returns must also give their gradients: give it a keyword argument "
                "`variables` (def grad(dy, variables=None)) and return (gradients of the "
                "arguments, gradients of the variables).", origin))

        def rule(entry, grads):
            dys = [g if g is not None else creation_ops.zeros_like(t)
                   for g, t in zip(grads, entry.outputs)]
            if not variables:
                return _input_grads(grad_fn(*dys), entry)
            found = grad_fn(*dys, variables=variables)
            if not (isinstance(found, (list, tuple)) and len(found) == 2):
                raise ValueError(f"The gradient function of {fn.__qualname__} takes `variables`"
                                 " and must return (gradients of the arguments, gradients of "
                                 f"the variables); it returned {type(found).__name__}.")
            input_grads, variable_grads = found
            variable_grads = list(variable_grads) if isinstance(
                variable_grads, (list, tuple)) else [variable_grads]
            if len(variable_grads) != len(variables):
                raise ValueError(f"The gradient function of {fn.__qualname__} returned "
                                 f"{len(variable_grads)} variable gradient"
                                 f"{'' if len(variable_grads) == 1 else 's'} for "
                                 f"{len(variables)} variable{'' if len(variables) == 1 else 's'}.")
            return WithVariables(_input_grads(input_grads, entry), {
                id(v): (v, convert_to_tensor(g)) for v, g in zip(variables, variable_grads)
                if g is not None})

        def _input_grads(found, entry):
            found = list(found) if isinstance(found, (list, tuple)) else [found]
            if len(found) != len(entry.inputs):
                raise ValueError(f"The gradient function of {fn.__qualname__} returned "
                                 f"{len(found)} gradient{'' if len(found) == 1 else 's'} for "
                                 f"{len(entry.inputs)} argument"
                                 f"{'' if len(entry.inputs) == 1 else 's'}.")
            return [None if g is None else convert_to_tensor(g) for g in found]

        for tape in context.recording_tapes():
            tape.record_custom(inputs, outputs, rule, origin, variables)
        return value

    return autograph.do_not_convert(wrapper)  # the wrapper itself runs as written


def _takes_variables(grad_fn) -> bool:
    try:
        parameters = inspect.signature(grad_fn).parameters
    except (TypeError, ValueError):
        return True  # a builtin or an object without a signature: let the call tell
    return "variables" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
