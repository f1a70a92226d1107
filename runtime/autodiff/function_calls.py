"""Gradients across a call of a traced function: an eager tape records the call of a concrete
function (of an `rt.function`, a loaded function, or one taken with `get_concrete_function`)
as one operation, whose gradient is the gradient of that function's graph.

The gradient is built once per concrete function, from its graph as traced, as two graphs
(a `Pair`), compiled like the function itself (same executor where that executor can):

    forward(x...)                     -> (outputs..., residuals...)
    backward(residuals..., d_output...) -> (gradients of the inputs and variables that have one)

Both come from one graph: the function's graph inlined under a tape, then the tape's gradient
with a placeholder for each output's gradient. The ops that depend on those placeholders are
the backward graph; the rest is the forward graph, and the residuals are the forward values
the backward graph reads: a loop's history (the forward `While` keeps it, as under a tape in
a graph), random numbers a branch drew, variable reads. So effects (assignments, prints,
random draws) run once, in the forward call, and the gradient uses the values they gave.

Higher orders compose: with several tapes recording, the innermost records the call, and the
call of the forward graph is itself recorded by the tapes around it (with its own pair), as
is the call of the backward graph that the innermost tape's gradient makes.
"""

from __future__ import annotations

import threading

import numpy as np

from runtime.autodiff.backprop import WithVariables, differentiable
from runtime.autodiff.tape import GradientTape
from runtime.core import context
from runtime.core.graph import Graph
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor
from runtime.errors import NoGradientError, with_origin
from runtime.ops.array_ops import STOP_GRADIENT
from runtime.ops.list_ops import ListValue
from runtime.ops.registry import CONST, PLACEHOLDER
from runtime.tracing.inline import copy_ops, take_in
from runtime.variables import READ


class Pair:
    """The forward concrete function of one concrete function's gradient, and its backward
    concrete functions: one for each set of gradients asked for (the inputs a tape watches,
    the variables it watches) and each set of outputs whose gradient is ones (a loss's seed:
    a constant the passes fold), built at first use."""

    def __init__(self, concrete, combined, forward, outputs, targets, inputs, variables,
                 reaches, backward_ops, residuals, d_ys, grads):
        self.forward = forward  # ConcreteFunction: inputs -> outputs + residuals
        self.outputs = outputs  # how many of the forward's outputs are the function's
        self.targets = targets  # positions of the outputs that take a gradient, in order
        self.inputs = inputs  # positions of the inputs that may get a gradient, in order
        self.variables = variables  # the variables that may get a gradient, in order
        self.static = {i for i, d in zip(targets, d_ys) if d.shape.is_fully_defined()}
        self.reaches = reaches  # output position -> the sources (`inputs` then `variables`,
        # numbered in that order) it depends on: a gradient is None where no output reaches
        self._concrete, self._combined = concrete, combined
        self._backward_ops, self._residuals, self._d_ys, self._grads = (
            backward_ops, residuals, d_ys, grads)
        self._backwards: dict = {}
        self._lock = threading.Lock()

    def backward(self, needed: tuple, ones: tuple):
        """(the backward ConcreteFunction: (residuals + the gradients of the `targets` not in
        `ones`) -> the gradients of the `needed` sources (numbers, in order), where the outputs
        in `ones` have gradient ones; the variables it reads itself, in a graph `if` or loop
        whose gradient runs a branch or body again)."""
        key = (needed, ones)
        found = self._backwards.get(key)
        if found is None:
            with self._lock:
                found = self._backwards.get(key)
                if found is None:
                    backward = self._concrete.derived(_extract(
                        f"{self._concrete.name}_backward", self._residuals, self._backward_ops,
                        [self._grads[k] for k in needed], self._combined,
                        given=[d for i, d in zip(self.targets, self._d_ys) if i not in ones],
                        ones=[d for i, d in zip(self.targets, self._d_ys) if i in ones]))
                    reads = {op.attrs["variable"] for op in backward.traced_graph.walk()
                             if op.opdef is READ}
                    found = self._backwards[key] = (backward, reads)
        return found


def pair_of(concrete) -> Pair:
    """The gradient pair of `concrete`, built at its first recorded call and kept."""
    pair = concrete.__dict__.get("_gradient_pair")
    if pair is None:
        with concrete.__dict__.setdefault("_gradient_lock", threading.Lock()):
            pair = concrete.__dict__.get("_gradient_pair")
            if pair is None:
                pair = concrete._gradient_pair = _build_pair(concrete)
    return pair


def read_variables(concrete) -> list:
    """The floating-point variables the graph of `concrete` reads or writes (those a tape may
    watch)."""
    found = concrete.__dict__.get("_float_variables")
    if found is None:
        found = concrete._float_variables = [
            v for v in concrete.traced_graph.variables.values() if v.dtype.is_floating]
    return found


def call_recorded(concrete, tensors: list, run):
    """Calls `concrete` on eager `tensors` (one per graph input) with the recording tapes told:
    returns its outputs (eager tensors, one per graph output), or None when no tape records it
    (no input is connected and no variable it reads is watched): then call it as usual.
    `run(concrete, tensors)` calls a concrete function (the call that tapes around see)."""
    variables = read_variables(concrete)
    recording = [tape for tape in context.recording_tapes()
                 if tape._recording and _connected(tape, tensors, variables)]
    if not recording:
        return None
    tape = recording[-1]
    pair = pair_of(concrete)
    tape._recording = False  # the tapes around it record the forward call
    try:
        outs = run(pair.forward, tensors)
    finally:
        tape._recording = True
    outputs, residuals = outs[:pair.outputs], outs[pair.outputs:]
    watched = [v for v in pair.variables if tape._watches(v)]
    asked = {k for k, i in enumerate(pair.inputs) if id(tensors[i]) in tape._connected}
    recorded = [i for i in pair.targets if pair.reaches[i]]  # (the others: constants)
    call = _Call(pair, recorded, outputs, residuals, watched, asked, run, user_origin(),
                 {v: v.version for v in concrete.traced_graph.variables.values()})
    tape.record_custom(tensors, [outputs[i] for i in recorded], call.gradient, call.origin,
                       watched)
    return outputs


def _connected(tape, tensors, variables) -> bool:
    return any(id(t) in tape._connected for t in tensors) or any(
        tape._watches(v) for v in variables)


class _Call:
    """One recorded call: what its gradient (`gradient`, the tape entry's rule) needs."""

    def __init__(self, pair, recorded, outputs, residuals, watched, asked, run, origin,
                 versions):
        self.pair, self.recorded, self.outputs, self.residuals = (
            pair, recorded, outputs, residuals)
        self.run, self.origin, self.versions = run, origin, versions
        first = len(pair.inputs)
        keep = {id(v) for v in watched}
        self.wanted = {k for k in range(first) if k in asked} | {
            first + k for k, v in enumerate(pair.variables) if id(v) in keep}

    def gradient(self, entry, grads):
        """The backward graph on the residuals and the gradients of the outputs (`recorded`:
        the outputs the entry lists; zeros where an output got none), for the sources the tape
        connected. A source that no output with a gradient reaches gets None, as without the
        boundary."""
        pair = self.pair
        given = {i: g for i, g in zip(self.recorded, grads) if g is not None}
        reached = set().union(*(pair.reaches[i] for i in given))
        needed = tuple(sorted(reached & self.wanted))
        if not needed:
            return [None] * len(entry.inputs)
        ones = tuple(i for i in pair.targets if i in given and i in pair.static
                     and _is_seed(given[i]))
        backward, reads = pair.backward(needed, ones)
        self._check_versions(reads)
        d_outputs = [given[i] if i in given else _zeros(self.outputs[i])
                     for i in pair.targets if i not in ones]
        found = self.run(backward, [*self.residuals, *d_outputs])
        first = len(pair.inputs)
        input_grads = [None] * len(entry.inputs)
        variable_grads = {}
        for k, grad in zip(needed, found):
            if k < first:
                input_grads[pair.inputs[k]] = grad
            else:
                variable = pair.variables[k - first]
                variable_grads[id(variable)] = (variable, grad)
        return WithVariables(input_grads, variable_grads)

    def _check_versions(self, reads) -> None:
        """The backward graph reads these variables again (a graph `if` or loop's gradient
        runs its branch or body again): refused when one was assigned since the call, as the
        gradient would use the new value where Python's tape kept the old one."""
        for variable in reads:
            if variable.version != self.versions.get(variable, variable.version):
                raise NoGradientError(with_origin(
                    f"The variable {variable.name} was assigned after this call, and its "
                    "gradient reads it again (a graph `if` or loop reads it): it would use "
                    "the new value. Compute the gradient before assigning the variable, or "
                    "use a tape inside the function.", self.origin))


def _is_seed(grad) -> bool:
    """Whether `grad` is ones that no tape recording now depends on (a loss's seed): the
    backward graph may then hold it as a constant."""
    if any(tape._recording and id(grad) in tape._connected
           for tape in context.recording_tapes()):
        return False
    return _is_ones(grad)


def _is_ones(grad) -> bool:
    value = grad._value
    return type(value) is not ListValue and np.size(value) <= 64 and bool(np.all(value == 1))


def _zeros(tensor):
    return EagerTensor(_zeros_value(tensor._value), tensor.dtype)


def _zeros_value(value):
    if isinstance(value, ListValue):
        items = [_zeros_value(item) for item in value.items()]
        return ListValue(items, len(items))
    return np.zeros_like(value)


# ---- building -----------------------------------------------------------------------------------

def _build_pair(concrete) -> Pair:
    source = concrete.traced_graph
    name = concrete.name
    graph = Graph(f"{name}_with_gradient")
    with context.tapes_paused(), graph.as_default():
        xs = [graph.add_input(t.dtype, t.shape, name=t.op.name) for t in source.inputs]
        tape = GradientTape()
        with tape:
            tape.watch([x for x in xs if differentiable(x)])
            tape.watch(read_variables(concrete))  # (trainable or not: a tape may watch any)
            ys = take_in(concrete, xs)
        forward_ops = list(graph.operations)
        variables = [v for v in tape.watched_variables()]
        targets = [i for i, y in enumerate(ys) if differentiable(y)]
        d_ys = [graph.add_input(ys[i].dtype, ys[i].shape, name=f"d_output_{i}")
                for i in targets]
        inputs = [i for i, x in enumerate(xs) if differentiable(x)]
        grads = tape.gradient([ys[i] for i in targets], [xs[i] for i in inputs] + variables,
                              output_gradients=d_ys)
    kept_inputs = [i for i, g in zip(inputs, grads) if g is not None]
    kept_variables = [v for v, g in zip(variables, grads[len(inputs):]) if g is not None]
    grads = [g for g in grads if g is not None]
    forward_ids = {id(op) for op in forward_ops}
    backward_ops = [op for op in graph.operations
                    if id(op) not in forward_ids and op.opdef is not PLACEHOLDER]
    residuals = _residuals(backward_ops, grads, forward_ids, d_ys)
    forward = _extract(f"{name}_forward", xs, forward_ops, [*ys, *residuals], graph)
    reaches = _reaches(forward_ops, [xs[i] for i in kept_inputs], kept_variables, ys)
    return Pair(concrete, graph, concrete.derived(forward), len(ys), targets, kept_inputs,
                kept_variables, reaches, backward_ops, residuals, d_ys, grads)


def _reaches(operations, sources, variables, outputs) -> dict:
    """{output position: the numbers of the `sources`, then `variables`, it depends on}."""
    depends = {id(t): {k} for k, t in enumerate(sources)}
    numbers = {id(v): len(sources) + k for k, v in enumerate(variables)}
    for op in operations:
        if op.opdef is STOP_GRADIENT:
            continue
        found = set()
        for t in op.inputs:
            found |= depends.get(id(t), set())
        for inner in [op, *(o for sub in op.subgraphs() for o in sub.walk())]:
            if inner.opdef is READ and id(inner.attrs["variable"]) in numbers:
                found.add(numbers[id(inner.attrs["variable"])])
        for t in op.outputs:
            if differentiable(t):  # (an integer or bool value carries no gradient)
                depends.setdefault(id(t), set()).update(found)
    return {i: frozenset(depends.get(id(t), ())) for i, t in enumerate(outputs)}


def _residuals(backward_ops, grads, forward_ids, d_ys) -> list:
    """The forward values the backward ops (or the gradients themselves) read, in first-use
    order; constants are copied into the backward graph instead."""
    found, seen = [], {id(t) for t in d_ys}
    produced = {id(t) for op in backward_ops for t in op.outputs}
    for t in [t for op in backward_ops for t in op.inputs] + list(grads):
        if id(t) in seen or id(t) in produced:
            continue
        seen.add(id(t))
        if t.op.opdef is CONST:
            continue
        found.append(t)
    return found


def _extract(name, inputs, operations, outputs, source, given=(), ones=()) -> Graph:
    """A graph of its own holding copies of `operations` (of `source`), whose inputs stand for
    `inputs` and then `given`, and which returns `outputs`; the tensors in `ones` (of fully
    known shapes) are ones. Constants it reads from elsewhere are copied."""
    graph = Graph(name)
    with graph.as_default():
        tensor_map = {id(t): graph.add_input(t.dtype, t.shape, name=_input_name(t, i))
                      for i, t in enumerate([*inputs, *given])}
        for t in ones:
            value = np.ones(tuple(t.shape), t.dtype.np_dtype)
            tensor_map[id(t)] = graph.create_op(CONST, [], {"value": value},
                                                [(t.dtype, tuple(t.shape))]).outputs[0]
        own = {id(op) for op in operations}
        constants = [op for op in source.operations if op.opdef is CONST and id(op) not in own
                     and any(id(t) not in tensor_map for t in op.outputs)]
        needed = {id(t) for op in operations for t in op.inputs} | {id(t) for t in outputs}
        copy_ops(graph, [op for op in constants if id(op.outputs[0]) in needed], tensor_map)
        copy_ops(graph, operations, tensor_map)
    graph.outputs = [tensor_map[id(t)] for t in outputs]
    graph.variables.update(source.variables)
    return graph


def _input_name(tensor, index) -> str:
    return tensor.op.name if tensor.op.opdef is PLACEHOLDER else f"residual_{index}"
