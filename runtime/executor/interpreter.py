"""The reference interpreter: runs a graph op by op over numpy values.

Slower than the compiled executor and simple on purpose; tests check that both agree. Errors
are wrapped with the op and the user's source line that created it.
"""

from __future__ import annotations

from runtime.core.graph import Graph, Operation
from runtime.core.tensor import EagerTensor, SymbolicTensor, normalize
from runtime.errors import Error, located_kind, raised_error, with_origin
from runtime.ops import control_flow_ops as cf
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.registry import CONST, PLACEHOLDER


def run_graph(graph: Graph, inputs: list) -> list:
    """The values of `graph.outputs` for input values `inputs` (one per `graph.inputs`)."""
    env = run_graph_values(graph, inputs)
    return [env[id(t)] for t in graph.outputs]


def run_graph_values(graph: Graph, inputs: list) -> dict:
    """The value of every tensor of `graph` (not of its sub-graphs), by `id(tensor)`."""
    env = {id(p): v for p, v in zip(graph.inputs, inputs)}
    for op in graph.operations:
        if op.opdef is not PLACEHOLDER:
            _run_op(op, env)
    return env


def op_results(op: Operation, args: list, run=run_graph) -> list:
    """The output values of `op` for its input values `args`; its sub-graphs (a graph `if`'s
    branch, a loop's condition and body) run by `run(graph, inputs)`."""
    if op.opdef is IF:
        return run(cf.taken_branch(op, args[0]), args[1:])
    if op.opdef is WHILE:
        n = cf.loop_count(op)
        values, captured = args[:n], args[n:]
        limit, i = cf.iteration_limit(op), 0
        while run(cf.loop_cond(op), values + captured)[0]:
            if limit is not None and i >= limit:
                break
            values = run(cf.loop_body(op), values + captured)
            i += 1
        return values
    if op.opdef is CONST:
        value = op.attrs["value"]
        return [value[()] if value.ndim == 0 else value]
    out = op.opdef.kernel(*args, **op.kernel_attrs())
    return list(out) if isinstance(out, tuple) else [out]


def _run_op(op: Operation, env: dict) -> None:
    args = [env[id(t)] for t in op.inputs]
    try:
        results = op_results(op, args)
    except Error as e:
        if getattr(e, "_rt_located", False):
            raise
        raise locate_error(e, op) from None
    except (IndexError, ValueError, TypeError, ArithmeticError) as e:
        if getattr(e, "_rt_located", False):  # located already (a numpy_function's own error)
            raise
        raise locate_error(e, op) from None
    for tensor, value in zip(op.outputs, results):
        env[id(tensor)] = normalize(value)


def locate_error(error: Exception, op: Operation) -> Exception:
    """`error` re-raised as an rt error that names the op and the user's line that made it."""
    cls = located_kind(error)
    if getattr(error, "_rt_users_message", False):  # a failed assertion: its message first
        text = f"{error} (checked by op '{op.name}' while the graph ran)"
    else:
        text = f"{op.type} op '{op.name}' failed while running the graph: {error}"
    message = with_origin(text, op.origin)
    located = cls(message)
    located._rt_located = True
    raises = getattr(error, "_rt_raises", None)
    raised = raised_error(raises) if raises else None
    if raised is None:
        return located
    raised._rt_located = True  # type: ignore[attr-defined]
    return raised


class MissingInput(Exception):
    """`evaluate` needs the value of this placeholder (its argument), which it was not given."""


def evaluate(tensors: list, inputs: dict) -> list:
    """The values of `tensors` (of one graph), running only the ops they depend on; `inputs`
    gives the values of the placeholders they need (id(placeholder) -> value). A needed
    placeholder without one raises MissingInput; callers check for stateful ops."""
    order, done = [], set()
    stack = [(t.op, False) for t in tensors]
    while stack:  # (a post-order walk: each op after the ops it reads)
        op, expanded = stack.pop()
        if id(op) in done:
            continue
        if expanded:
            done.add(id(op))
            order.append(op)
            continue
        if op.opdef is PLACEHOLDER:
            done.add(id(op))
            if id(op.outputs[0]) not in inputs:
                raise MissingInput(op.outputs[0])
            continue
        stack.append((op, True))
        stack.extend((t.op, False) for t in op.inputs if id(t.op) not in done)
    env = dict(inputs)
    for op in order:
        _run_op(op, env)
    return [env[id(t)] for t in tensors]


def evaluate_outside(tensor: SymbolicTensor) -> EagerTensor:
    """Computes a symbolic tensor that does not depend on graph inputs (e.g. the initial value
    of a variable created while tracing)."""
    try:
        value, = evaluate([tensor], {})
    except MissingInput:
        raise ValueError(
            with_origin(
                "This value depends on the function's inputs, so it cannot initialise a "
                "variable created while tracing; create the rt.Variable outside the function.",
                tensor.op.origin,
            )
        ) from None
    return EagerTensor(value, tensor.dtype)
