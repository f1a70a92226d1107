"""The reverse sweep shared by tapes and by the gradients of `If` and `While` bodies.

An `Entry` is one recorded op: its definition, input and output tensors (eager or symbolic),
attrs and user line, and optionally its own rule (a custom gradient). `backprop` walks entries
from last to first; a rule gets the entry and the gradients of its outputs (None for an output
nothing depends on) and returns the gradients of its inputs, or a `WithVariables` when
gradients also reach variables the op reads inside (control flow).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.errors import NoGradientError, with_origin
from runtime.ops import list_ops, math_ops
from runtime.ops.math_ops import NEG
from runtime.ops.registry import CONTROL_FLOW, GRADIENT


@dataclass(eq=False)
class Entry:
    opdef: object
    inputs: list
    attrs: dict
    outputs: list
    origin: object = None
    rule: object = None  # overrides the op's GRADIENT rule (custom gradients)


@dataclass
class WithVariables:
    """A rule's result: input gradients, and gradients of variables read inside the op."""

    inputs: list
    variables: dict = field(default_factory=dict)  # id(variable) -> (variable, gradient)


def _reaches_variables(entry) -> bool:
    """Whether the entry's rule may give gradients of variables read inside it (control flow,
    custom gradients, calls of traced functions)."""
    return entry.rule is not None or CONTROL_FLOW in entry.opdef.groups


def differentiable(tensor) -> bool:
    """Only floating-point values have gradients (integers get None, as in TensorFlow), and
    staged lists of them (whose gradient is the list of their items' gradients). Complex values
    count as connected too, so that a gradient through them, which no rule gives yet, is an
    error that names the op (never a None where a gradient exists)."""
    dtype = tensor.dtype
    while dtype.is_list:
        dtype = dtype.element
    return dtype.is_floating or dtype.is_complex


def add(a, b):
    """The sum of two gradients of one value (item by item for lists); in a graph, `a + (-c)`
    is `a - c` (one op less: rules such as the quotient's give negated terms)."""
    if a.dtype.is_list:
        return list_ops.add(a, b)
    if _negation(b) is not None:
        return math_ops.subtract(a, _negation(b))
    if _negation(a) is not None:
        return math_ops.subtract(b, _negation(a))
    return math_ops.add(a, b)


def _negation(tensor):
    """c when `tensor` is a graph's `-c`, else None."""
    op = getattr(tensor, "op", None)
    return op.inputs[0] if op is not None and op.opdef is NEG else None


def accumulate(grads: dict, tensor, grad) -> None:
    """Adds `grad` to the gradient of `tensor` in `grads` (by id; keeps the tensor alive)."""
    found = grads.get(id(tensor))
    grads[id(tensor)] = (tensor, grad if found is None else add(found[1], grad))


def backprop(entries, seeds: dict, variable_grads: dict | None = None) -> dict:
    """Gradients of everything `entries` computed, from `seeds` ({id(tensor): (tensor, grad)}),
    returned in the same form; gradients that reach variables through control-flow rules are
    added to `variable_grads`."""
    grads = dict(seeds)
    for entry in reversed(entries):
        outs = [grads.get(id(t)) for t in entry.outputs]
        if all(g is None for g in outs) or not (
                any(differentiable(t) for t in entry.inputs) or _reaches_variables(entry)):
            continue  # nothing to pass back to
        rule = entry.rule or entry.opdef.rule(GRADIENT)
        if rule is None:
            reason = entry.opdef.lacking.get(GRADIENT, "it has no gradient rule")
            raise NoGradientError(with_origin(
                f"Cannot compute the gradient through the {entry.opdef.name} op: {reason}. "
                "Wrap the value in rt.stop_gradient(...) if no gradient should flow there.",
                entry.origin))
        try:
            result = rule(entry, [g[1] if g is not None else None for g in outs])
        except NoGradientError as e:
            if getattr(e, "_rt_located", False) or "\n" in str(e):
                raise
            raise NoGradientError(with_origin(str(e), entry.origin)) from None
        if isinstance(result, WithVariables):
            for variable, grad in result.variables.values():
                if variable_grads is not None:
                    accumulate(variable_grads, variable, grad)
            result = result.inputs
        for tensor, grad in zip(entry.inputs, result):
            if grad is not None and differentiable(tensor):
                accumulate(grads, tensor, grad)
    return grads
