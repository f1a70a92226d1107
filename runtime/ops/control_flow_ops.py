"""The `If` and `While` ops and their layout: the one module that knows what their inputs,
attrs and sub-graph placeholders mean. Builders, passes, executors, save/load and export use
the accessors below instead of indexing inputs or reading attrs by key.

If     inputs  [predicate, *captured]
       attrs   then_branch, else_branch: graphs whose inputs take the captured values and
               whose outputs are the If's outputs; specs: the (dtype, shape) of each output
While  inputs  [*loop_vars, *captured]
       attrs   cond: graph (loop_vars + captured) -> one scalar bool; body: graph
               (loop_vars + captured) -> new loop_vars; maximum_iterations: None or an int;
               specs: the (dtype, shape) of each loop variable (= each output); optionally
               history: h, when a gradient tape made the loop keep what its gradient needs
               (`keep_history`): then loop_vars are [*the user's h, an int32 iteration count,
               h staged lists, each holding the value of one user loop variable at the start
               of every iteration]; and kept: k, when the body makes values that running it
               again would not give (random numbers): then k more staged lists follow, each
               holding one such value of every iteration (`kept_values`)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime.core import dtypes
from runtime.core.graph import Graph
from runtime.errors import argument_error
from runtime.ops import list_ops
from runtime.ops.list_ops import LIST_PUSH_BACK
from runtime.ops.math_ops import ADD
from runtime.ops.registry import CONST, CONTROL_FLOW, define_op


def _check_if(inputs, attrs, specs) -> None:
    if set(attrs) != {"then_branch", "else_branch", "specs"}:
        raise argument_error(
            ValueError, f"If takes then_branch, else_branch and specs; got {sorted(attrs)}."
        )
    out = [d for d, _ in _checked_specs(attrs["specs"])]
    if not inputs or not inputs[0].dtype.is_bool or len(inputs[0].shape) != 0:
        raise argument_error(ValueError, "the first input of If must be a scalar bool.")
    captured = [t.dtype for t in inputs[1:]]
    _check_signature(attrs["then_branch"], captured, out, "then_branch")
    _check_signature(attrs["else_branch"], captured, out, "else_branch")


def _check_while(inputs, attrs, specs) -> None:
    if set(attrs) - {"history", "kept"} != {"cond", "body", "maximum_iterations", "specs"}:
        raise argument_error(
            ValueError,
            f"While takes cond, body, maximum_iterations and specs; got {sorted(attrs)}.",
        )
    loop = [d for d, _ in _checked_specs(attrs["specs"])]
    limit = attrs["maximum_iterations"]
    if limit is not None and (type(limit) is not int or limit < 0):
        raise argument_error(
            ValueError, f"maximum_iterations must be None or an int >= 0, got {limit!r}."
        )
    all_inputs = [t.dtype for t in inputs]
    if all_inputs[:len(loop)] != loop:
        raise argument_error(ValueError, "the loop variables of While do not match its specs.")
    _check_signature(attrs["cond"], all_inputs, [dtypes.bool_], "cond")
    if len(attrs["cond"].outputs[0].shape) != 0:
        raise argument_error(ValueError, "the cond of While must return a scalar bool.")
    _check_signature(attrs["body"], all_inputs, loop, "body")
    h, k = attrs.get("history"), attrs.get("kept", 0)
    if h is not None and (type(h) is not int or h < 0 or type(k) is not int or k < 0 or (
            len(loop) != 2 * h + 1 + k) or loop[h] is not dtypes.int32 or (
            loop[h + 1:2 * h + 1] != [dtypes.list_of(d) for d in loop[:h]]) or not all(
            d.is_list for d in loop[2 * h + 1:])):
        raise argument_error(
            ValueError, f"the history {h!r} of While does not match its loop variables."
        )
    if h is None and "kept" in attrs:
        raise argument_error(ValueError, "a While keeps values only with its history.")


IF = define_op(
    "If",
    infer=lambda inputs, *, specs, **attrs: list(specs),
    kernel=None,  # the executor inlines the branches
    groups=[CONTROL_FLOW],
    verify=_check_if,
)
WHILE = define_op(
    "While",
    infer=lambda inputs, *, specs, **attrs: list(specs),
    kernel=None,  # the executor emits a Python `while`
    groups=[CONTROL_FLOW],
    verify=_check_while,
)


# ---- building -----------------------------------------------------------------------------------

def if_attrs(then_branch, else_branch, specs) -> dict:
    """The attrs of an If op."""
    return {"then_branch": then_branch, "else_branch": else_branch, "specs": tuple(specs)}


def while_attrs(cond, body, maximum_iterations, specs) -> dict:
    """The attrs of a While op."""
    return {"cond": cond, "body": body, "maximum_iterations": maximum_iterations,
            "specs": tuple(specs)}


# ---- reading ------------------------------------------------------------------------------------

def predicate(op):
    """The scalar bool input that picks an If's branch."""
    return op.inputs[0]


def branches(op) -> tuple:
    """(then_branch, else_branch) of an If."""
    return op.attrs["then_branch"], op.attrs["else_branch"]


def taken_branch(op, value):
    """The branch of an If that runs when its predicate is `value`."""
    return op.attrs["then_branch"] if value else op.attrs["else_branch"]


def loop_count(op) -> int:
    """How many loop variables a While carries (the rest of its inputs are captured)."""
    return len(op.outputs)


def loop_cond(op):
    return op.attrs["cond"]


def loop_body(op):
    return op.attrs["body"]


@dataclass(frozen=True)
class WhileLayout:
    """Which of a While's loop variables are what (see the module docstring): the user's
    (`user`), then, when it keeps its history, the iteration count (`count`), the lists holding
    each user variable's value at the start of every iteration (`lists`) and those holding the
    values running the body again would not give (`kept`). The same positions index the op's
    outputs, its loop variable inputs, and the inputs and outputs of its body."""

    user: slice
    count: int | None
    lists: slice
    kept: slice


def while_layout(op) -> WhileLayout:
    """The layout of a While's loop variables."""
    h, k = op.attrs.get("history"), op.attrs.get("kept", 0)
    if h is None:
        n = len(op.outputs)
        return WhileLayout(slice(0, n), None, slice(n, n), slice(n, n))
    return WhileLayout(slice(0, h), h, slice(h + 1, 2 * h + 1), slice(2 * h + 1, 2 * h + 1 + k))


def history(op):
    """(user loop variable count h, the iteration count output, the h list outputs) of a While
    that keeps its history, else None."""
    layout = while_layout(op)
    if layout.count is None:
        return None
    return layout.count, op.outputs[layout.count], op.outputs[layout.lists]


def kept_values(op) -> list:
    """[(a value of the body of a While that keeps its history, the staged list output that
    holds it for every iteration)]: the values running the body again would not give."""
    kept = while_layout(op).kept
    body = op.attrs["body"]
    return [(pushed.op.inputs[1], out)
            for pushed, out in zip(body.outputs[kept], op.outputs[kept])]


def draws(op) -> bool:
    """Whether running `op` again would give other values: a stateful op with outputs (random
    numbers; control flow that holds one does not count itself). Stateful ops without outputs
    are effects (prints, assertions, assignments)."""
    return op.opdef.stateful and bool(op.outputs)


def unrepeatable(graph) -> list:
    """The values of `graph` (not of its sub-graphs) that running it again would not give:
    the outputs of the ops that `draw`."""
    return [t for op in graph.operations if draws(op) for t in op.outputs]


def plain_history(op):
    """For a While that keeps its history the way `keep_history` made it, still untouched by
    passes (its body only counts and pushes, and nothing else reads the count or the lists):
    (h, the body's counting op, its h push ops), so an executor may keep the history its own
    way (codegen appends to Python lists). Else None."""
    layout = while_layout(op)
    h = layout.count
    if h is None or h == 0 or op.attrs.get("kept"):
        return None
    body, cond = op.attrs["body"], op.attrs["cond"]
    count = body.outputs[h].op
    one = count.inputs[1].op if count.opdef is ADD else None
    if one is None or count.inputs[0] is not body.inputs[h] or one.opdef is not CONST or (
            one.attrs["value"].shape != () or one.attrs["value"] != 1):
        return None
    pushes = [t.op for t in body.outputs[layout.lists]]
    if any(p.opdef is not LIST_PUSH_BACK or p.inputs[0] is not lst or p.inputs[1] is not value
           for p, lst, value in zip(pushes, body.inputs[layout.lists], body.inputs[layout.user])):
        return None
    own = {id(count), *map(id, pushes)}
    private = {id(t) for t in [body.inputs[h], *body.inputs[layout.lists],
                               body.outputs[h], *body.outputs[layout.lists]]}
    if any(id(o) not in own and any(id(t) in private for t in o.inputs)
           for o in body.operations) or any(id(t) in private for t in body.outputs[layout.user]):
        return None
    unread = {id(t) for t in [cond.inputs[h], *cond.inputs[layout.lists]]}
    read = [t for o in cond.operations for t in o.inputs] + list(cond.outputs)
    if any(id(t) in unread for t in read):
        return None
    return h, count, pushes


def iteration_limit(op):
    """A While's `maximum_iterations`: None or an int."""
    return op.attrs["maximum_iterations"]


def captured(op) -> list:
    """The outer values an If or While passes to its sub-graphs besides its own (the predicate
    of an If, the loop variables of a While)."""
    return op.inputs[1:] if op.opdef is IF else op.inputs[len(op.outputs):]


def sub_graph_inputs(op) -> list:
    """The outer tensors bound to each sub-graph's inputs, in order (for every sub-graph of the
    op: the branches of an If take the captured values; a While's cond and body take the loop
    variables and then the captured values)."""
    return op.inputs[1:] if op.opdef is IF else list(op.inputs)


def split_inputs(op, values: list) -> tuple:
    """`values` (one per input of `op`: names, run-time values...) split by the op's layout:
    (predicate, captured) for an If, (loop_vars, captured) for a While."""
    if op.opdef is IF:
        return values[0], values[1:]
    n = len(op.outputs)
    return values[:n], values[n:]


def loop_specs(op) -> tuple:
    """The (dtype, shape) of each loop variable of a While."""
    return op.attrs["specs"]


def invariant_inputs(op, sub) -> list:
    """(placeholder of `sub`, outer tensor) pairs whose value is the same on every run of `sub`:
    all inputs of an If branch, the captured (non loop variable) inputs of a While."""
    if op.opdef is IF:
        return list(zip(sub.inputs, op.inputs[1:]))
    n = len(op.outputs)
    return list(zip(sub.inputs[n:], op.inputs[n:]))


# ---- changing -----------------------------------------------------------------------------------

def add_capture(op, outer_tensor, name: str) -> dict:
    """Makes `outer_tensor` a new captured input of `op`: one more input, and a new placeholder
    (listed first among the ops) in each sub-graph. Returns {id(sub-graph): placeholder}."""
    op.insert_inputs(len(op.inputs), [outer_tensor])
    spec = (outer_tensor.dtype, outer_tensor.shape)
    return {id(sub): sub.insert_inputs(len(sub.inputs), [spec], name)[0]
            for sub in op.subgraphs()}


def keep_history(op) -> None:
    """Makes a While (that has no history yet) also count its iterations and push the value of
    each loop variable at the start of every iteration onto a staged list, and each value its
    body makes that running it again would not give (`unrepeatable`) onto one more: new loop
    variables after the user's (see the module docstring). The op's existing outputs do not
    change."""
    if op.attrs.get("history") is not None:
        return
    h = len(op.outputs)
    user_specs = list(op.attrs["specs"])
    body = op.attrs["body"]
    kept = unrepeatable(body)
    kept_specs = [(t.dtype, tuple(t.shape)) for t in kept]
    graph = op.graph
    with graph.as_default():
        start = graph.create_op(CONST, [], {"value": np.array(0, np.int32)}, [(dtypes.int32, ())],
                                op.origin).outputs[0]
        empty = [list_ops.from_items([], dtype, tuple(shape))
                 for dtype, shape in user_specs + kept_specs]
    graph.move_before([start.op, *(t.op for t in empty)], op)
    op.insert_inputs(h, [start, *empty])
    specs = [(dtypes.int32, ())] + [(t.dtype, t.shape) for t in empty]
    for sub in op.subgraphs():
        sub.insert_inputs(h, specs, "history")
    with body.as_default():
        count_in, lists_in = body.inputs[h], body.inputs[h + 1:2 * h + 1 + len(kept)]
        one = body.create_op(CONST, [], {"value": np.array(1, np.int32)}, [(dtypes.int32, ())],
                             op.origin)
        counted = body.create_op(ADD, [count_in, one.outputs[0]], {}, [(dtypes.int32, ())],
                                 op.origin).outputs[0]
        pushed = [list_ops.push_back(lst, value)
                  for lst, value in zip(lists_in, [*body.inputs[:h], *kept])]
    body.insert_outputs(h, [counted, *pushed])
    op.attrs["specs"] = tuple(user_specs) + tuple(specs)
    op.attrs["history"] = h
    if kept:
        op.attrs["kept"] = len(kept)
    op.add_outputs(specs)


def keep_branch_values(op) -> None:
    """Makes an If also return each value of its branches that running the branch again would
    not give (`unrepeatable`; the other branch returns zeros in its place), so that its
    gradient can use the values the forward If made. Values of shapes unknown while tracing
    are not kept (their gradient is refused where the branch is run again)."""
    then_branch, else_branch = op.attrs["then_branch"], op.attrs["else_branch"]
    added = []
    for branch, other in ((then_branch, else_branch), (else_branch, then_branch)):
        returned = {id(t) for t in branch.outputs}
        for t in unrepeatable(branch):
            if id(t) in returned or not t.shape.is_fully_defined():
                continue
            zeros = np.zeros(tuple(t.shape), t.dtype.np_dtype)
            with other.as_default():
                stand_in = other.create_op(CONST, [], {"value": zeros},
                                           [(t.dtype, tuple(t.shape))], op.origin).outputs[0]
            branch.insert_outputs(len(branch.outputs), [t])
            other.insert_outputs(len(other.outputs), [stand_in])
            added.append((t.dtype, tuple(t.shape)))
    if added:
        op.attrs["specs"] = tuple(op.attrs["specs"]) + tuple(added)
        op.add_outputs(added)


# ---- checking -----------------------------------------------------------------------------------

def _checked_specs(specs) -> list:
    if not isinstance(specs, tuple) or not all(
        isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], dtypes.DType)
        and isinstance(s[1], tuple) and all(d is None or type(d) is int and d >= 0 for d in s[1])
        for s in specs
    ):
        raise argument_error(ValueError, "attr 'specs' must be a tuple of (dtype, shape) pairs.")
    return list(specs)


def _check_signature(graph, dtypes_in, dtypes_out, what) -> None:
    if not isinstance(graph, Graph):
        raise argument_error(ValueError, f"{what} must be a graph.")
    if [t.dtype for t in graph.inputs] != list(dtypes_in):
        raise argument_error(ValueError, f"the inputs of {what} do not match the op's inputs.")
    if [t.dtype for t in graph.outputs] != list(dtypes_out):
        raise argument_error(ValueError, f"the outputs of {what} do not match the op's outputs.")
