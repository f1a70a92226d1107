"""Gradients of `If` and `While` (registered as their GRADIENT rules).

Both differentiate their sub-graphs by running them again inside the gradient: `inline` copies
a branch or body into the graph being built (its stateful ops without outputs, such as prints
and assignments, are left out: they happen once, in the forward op) and records each copied op
as an entry for `backprop`.

* `If`: the gradient is another `If` on the same predicate whose branches inline the matching
  branch and differentiate it: gradients of the captured values and of the variables the
  branches read.
* `While` (any trip count, known only at run time): when a tape records a While, the loop
  keeps its history as it runs (`control_flow_ops.keep_history`: it counts its iterations and
  pushes each iteration's loop variables onto staged lists, O(1) per iteration); a backward
  loop then takes the iterations in reverse, inlines the body on the stored values and carries
  the gradients of the loop variables back, summing the gradients of the captured values and
  variables. Memory: one copy of the loop variables per iteration. Time: the forward loop once,
  and the backward loop, which runs the body again before differentiating it. (A While inside a
  differentiated body has no history of its own: its gradient runs it again, recording.)

Random numbers drawn inside a differentiated branch or body are not drawn again: the forward
op keeps them (`control_flow_ops.keep_branch_values` / `keep_history`: the If returns them,
the While pushes them onto staged lists, one per iteration) and the gradient takes those. A
random op that is not kept (inside an `if` or loop nested in the body, or of a shape unknown
while tracing) is refused with a located error: running it again would draw other numbers.
"""

from __future__ import annotations

from runtime.autodiff.backprop import (
    Entry,
    WithVariables,
    accumulate,
    add,
    backprop,
    differentiable,
)
from runtime.core import context, dtypes
from runtime.core.graph import Graph
from runtime.errors import NoGradientError, with_origin
from runtime.ops import control_flow_ops as cf
from runtime.ops import creation_ops, list_ops, math_ops
from runtime.ops.registry import GRADIENT, PLACEHOLDER, register_rule
from runtime.tracing.staged_control_flow import cond, while_loop
from runtime.variables import ASSIGN, ASSIGN_ADD, ASSIGN_SUB, READ

_ASSIGNMENTS = (ASSIGN, ASSIGN_ADD, ASSIGN_SUB)


def inline(graph: Graph, bindings: list, outputs: list, given=()):
    """Copies the ops of `graph` that `outputs` (some of its outputs) need into the graph being
    built, with its placeholders bound as `bindings` says ([(placeholder, value)]) and the values
    of `given` ([(value of `graph`, value)]: what the forward op kept of values running `graph`
    again would not give) taken as they are; returns (those outputs there, the entries of the
    copied ops that depend on a float bound value or a variable, [(variable, tensor)] for each
    variable read)."""
    target = context.current_graph()
    values = {id(p): t for p, t in [*bindings, *given]}
    connected = {id(t) for _, t in bindings if differentiable(t)}
    needed = _ancestors(outputs)
    entries: list = []
    reads: list = []
    for op in graph.operations:
        if op.opdef is PLACEHOLDER or id(op) not in needed:
            continue  # side effects (prints, assignments) are not needed: they ran forward
        if op.outputs and all(id(t) in values for t in op.outputs):
            continue  # kept by the forward op
        drawn = op if cf.draws(op) else next(
            (o for sub in op.subgraphs() for o in sub.walk() if cf.draws(o)), None)
        if drawn is not None:
            raise NoGradientError(with_origin(
                f"Cannot differentiate through the {drawn.type} op here: the gradient runs the "
                "graph `if` or loop around it again, and it would draw other random numbers "
                "(random numbers are kept for the gradient only where a differentiated `if` or "
                "loop draws them itself, in shapes known while tracing). Draw them outside the "
                "nested `if` or loop.", drawn.origin))
        op_inputs = [values.get(id(t), t) for t in op.inputs]
        attrs = {k: _without_effects(v.copy_into(target)) if isinstance(v, Graph) else v
                 for k, v in op.attrs.items()}
        specs = [(t.dtype, t.shape) for t in op.outputs]
        copied = target.create_op(op.opdef, op_inputs, attrs, specs, op.origin)
        for old, new in zip(op.outputs, copied.outputs):
            values[id(old)] = new
        if op.opdef is READ:
            reads.append((op.attrs["variable"], copied.outputs[0]))
            connected.add(id(copied.outputs[0]))
            continue
        if not any(id(t) in connected for t in op_inputs) and not (
                op.subgraphs() and variables_read(*op.subgraphs())):
            continue
        connected.update(id(t) for t in copied.outputs if differentiable(t))
        entries.append(Entry(op.opdef, op_inputs, attrs, copied.outputs, op.origin))
    return [values.get(id(t), t) for t in outputs], entries, reads


def _without_effects(graph: Graph) -> Graph:
    """`graph` (a copy) without its effects (prints, assertions, assignments: stateful ops
    without outputs), in its sub-graphs too: they ran in the forward op (and reads of what they
    assign are refused: `_check_variables_unchanged`)."""
    graph.operations = [op for op in graph.operations if cf.draws(op) or not op.opdef.stateful]
    for op in graph.operations:
        for sub in op.subgraphs():
            _without_effects(sub)
    return graph


def _ancestors(outputs) -> set:
    """Ids of the ops of one graph that `outputs` depend on."""
    found, stack = set(), [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if id(op) not in found:
            found.add(id(op))
            stack.extend(t.op for t in op.inputs if t.op.graph is op.graph)
    return found


def _differentiate(graph, bindings, outputs, output_grads, wanted, variables, given=()):
    """Inlines what `outputs` of `graph` need (placeholders bound by `bindings`, kept values by
    `given`) and returns the gradients of each value in `wanted` (bound values), then of each of
    `variables` (zeros where none flows), from `output_grads`."""
    if graph.custom_gradients:  # (their rules are closures over the first trace's tensors)
        raise NoGradientError(
            f"rt.custom_gradient functions inside a graph `if` or loop "
            f"({', '.join(graph.custom_gradients)}) cannot give the gradient of that `if` or "
            "loop: it differentiates the branch or body again, without their gradient "
            "functions. Call them outside the `if` or loop.")
    copies, entries, reads = inline(graph, bindings, outputs, given)
    seeds: dict = {}
    for out, grad in zip(copies, output_grads):
        if grad is not None and differentiable(out):
            accumulate(seeds, out, grad)
    variable_grads: dict = {}
    grads = backprop(entries, seeds, variable_grads)
    for variable, tensor in reads:
        found = grads.get(id(tensor))
        if found is not None:
            accumulate(variable_grads, variable, found[1])
    result = []
    for value in wanted:
        found = grads.get(id(value))
        result.append(found[1] if found is not None else list_ops.zeros_for(value))
    for variable in variables:
        found = variable_grads.get(id(variable))
        result.append(found[1] if found is not None else creation_ops.zeros_like(
            variable.read_value()))
    return result


def _check_variables_unchanged(op) -> None:
    """Refuses, at the assignment's line, to differentiate a graph `if` or loop `op` whose
    branches or body read a variable that they assign, or that is assigned after `op` (before
    the gradient): the gradient runs them again, and the reads would see the assigned value."""
    graphs = op.subgraphs()
    read = {id(o.attrs["variable"]) for g in graphs for o in g.walk() if o.opdef is READ}
    if not read:
        return
    at = next(i for i, o in enumerate(op.graph.operations) if o is op)
    later = op.graph.operations[at + 1:]
    inside = [o for g in graphs for o in g.walk()]
    after = [x for o in later for x in (o, *(y for sub in o.subgraphs() for y in sub.walk()))]
    for where, ops in (("inside it", inside), ("after it, before the gradient", after)):
        for o in ops:
            if o.opdef in _ASSIGNMENTS and id(o.attrs["variable"]) in read:
                raise NoGradientError(with_origin(
                    f"Cannot compute this gradient: a graph `if` or loop reads the variable "
                    f"'{o.attrs['variable'].name}', which is assigned {where}; the gradient "
                    "runs the `if` or loop again, and it would read the assigned value. Read "
                    "the variable into a tensor before the `if` or loop (w = v.read_value()) "
                    "and use that, or assign it after computing the gradient.", o.origin))


def variables_read(*graphs) -> list:
    """The float variables read by `graphs` and their sub-graphs, each once."""
    found = {}
    for graph in graphs:
        for op in graph.walk():
            variable = op.attrs.get("variable") if op.opdef is READ else None
            if variable is not None and variable.dtype.is_floating:
                found[id(variable)] = variable
    return list(found.values())


@register_rule(GRADIENT, cf.IF)
def _if_gradient(op, grads):
    predicate, captured = cf.split_inputs(op, op.inputs)
    forward = op.outputs[0].op  # the If itself (`op` may be a tape's view of its outputs)
    _check_variables_unchanged(forward)
    then_branch, else_branch = cf.branches(op)
    wanted = [i for i, t in enumerate(captured) if differentiable(t)]
    variables = variables_read(then_branch, else_branch)
    if not wanted and not variables:
        return [None] * len(op.inputs)

    def branch(graph):
        kept = [(t, forward.outputs[m]) for m, t in enumerate(graph.outputs)
                if cf.draws(t.op) and t.op.graph is graph]
        return lambda: _differentiate(graph, list(zip(graph.inputs, captured)), graph.outputs,
                                      grads, [captured[i] for i in wanted], variables, kept)

    results = cond(predicate, branch(then_branch), branch(else_branch))
    results = [_handle(r) for r in (results if isinstance(results, (list, tuple)) else [results])]
    input_grads = [None] * len(op.inputs)
    for i, grad in zip(wanted, results):
        input_grads[1 + i] = grad
    return WithVariables(input_grads, _by_variable(variables, results[len(wanted):]))


@register_rule(GRADIENT, cf.WHILE)
def _while_gradient(op, grads):
    loop = op.outputs[0].op  # the While itself (`op` may be a tape's view of its first outputs)
    _check_variables_unchanged(loop)
    captured = op.inputs[len(op.outputs):]
    body, test, limit = cf.loop_body(loop), cf.loop_cond(loop), cf.iteration_limit(loop)
    kept = cf.history(loop)
    n = kept[0] if kept is not None else cf.loop_count(loop)  # the loop variables of the user
    first = len(body.inputs) - len(captured)  # where the captured values' placeholders start
    initial = op.inputs[:n]
    carried = [k for k in range(n) if differentiable(initial[k])]
    wanted = [j for j, t in enumerate(captured) if differentiable(t)]
    variables = variables_read(body)
    if not carried and not wanted and not variables:
        return [None] * len(op.inputs)

    def bind(graph, values):
        return list(zip(graph.inputs[:n], values)) + list(zip(graph.inputs[first:], captured))

    history_grads = [None] * n
    kept_values = cf.kept_values(loop)
    if kept is not None:
        _, count, history = kept
        if len(grads) > n:  # an outer tape differentiates what an inner gradient read
            history_grads = [_handle(g) if g is not None else None for g in grads[n + 1:2 * n + 1]]
    else:  # the loop again, keeping each iteration's loop variables
        def record_test(i, *state):
            state = [_handle(value) for value in state]
            going = inline(test, bind(test, state[:n]), test.outputs)[0][0]
            return going if limit is None else math_ops.logical_and(going,
                                                                    math_ops.less(i, limit))

        def record_body(i, *state):
            state = [_handle(value) for value in state]
            values, lists = state[:n], state[n:]
            lists = [list_ops.push_back(lst, v) for lst, v in zip(lists, values)]
            return (i + 1, *inline(body, bind(body, values), body.outputs[:n])[0], *lists)

        empty = [list_ops.from_items([], t.dtype, tuple(t.shape)) for t in initial]
        start_count = math_ops.cast(0, dtypes.int32)
        recorded = while_loop(record_test, record_body, [start_count, *initial, *empty])
        count, history = recorded[0], [_handle(lst) for lst in recorded[1 + n:]]

    # back through the iterations, last first
    def back_test(i, *state):
        return math_ops.greater(i, 0)

    def back_body(i, *state):
        i = i - 1
        state = [_handle(value) for value in state]
        loop_grads = state[:len(carried)]
        values = [list_ops.get_item(history[k], i) for k in range(n)]
        given = [(t, list_ops.get_item(_handle(lst), i)) for t, lst in kept_values]
        out_grads = [None] * n
        for k, grad in zip(carried, loop_grads):
            out_grads[k] = grad
        step = _differentiate(body, bind(body, values), body.outputs[:n], out_grads,
                              [values[k] for k in carried] + [captured[j] for j in wanted],
                              variables, given)
        carried_grads = step[:len(carried)]
        for c, k in enumerate(carried):
            if history_grads[k] is not None:
                carried_grads[c] = add(carried_grads[c], list_ops.get_item(history_grads[k], i))
        sums = [add(a, b) for a, b in zip(state[len(carried):], step[len(carried):])]
        return (i, *carried_grads, *sums)

    start = [grads[k] if grads[k] is not None else list_ops.zeros_for(op.outputs[k])
             for k in carried]
    zeros = [list_ops.zeros_for(captured[j]) for j in wanted] + [
        creation_ops.zeros_like(v.read_value()) for v in variables]
    final = [_handle(v) for v in while_loop(back_test, back_body, [count, *start, *zeros])][1:]
    input_grads = [None] * len(op.inputs)
    for k, grad in zip(carried, final):
        input_grads[k] = grad
    for j, grad in zip(wanted, final[len(carried):]):
        input_grads[len(op.inputs) - len(captured) + j] = grad
    return WithVariables(input_grads, _by_variable(variables, final[len(carried) + len(wanted):]))


def _handle(value):
    return getattr(value, "handle", value)  # while_loop gives staged lists back as TensorLists


def _by_variable(variables, grads) -> dict:
    return {id(v): (v, g) for v, g in zip(variables, grads)}
