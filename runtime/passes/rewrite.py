"""Shared machinery of the graph passes: one forward sweep that rebuilds a graph's op list.

`rewrite(graph, visit)` visits the ops of `graph` in order, after replacing each op's inputs by
their current replacements. `visit(op)` returns None to keep the op, or the tensors that stand
for its outputs from now on (the op is dropped). Ops that `visit` creates with
`graph.create_op` land just before the visited op, so creation order stays topological.
Each sweep is linear in the number of ops; sub-graphs are swept by the caller (see
`graphs_outer_first`), since they only see outer tensors through their op's inputs.
"""

from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops.registry import CONST, CONTROL_FLOW, FRESH_OUTPUT, PLACEHOLDER, READS_STATE


def rewrite(graph: Graph, visit) -> None:
    """Sweeps `graph` once (see the module docstring); graph outputs follow replacements."""
    replaced: dict[int, tuple[SymbolicTensor, SymbolicTensor]] = {}

    def resolve(t: SymbolicTensor) -> SymbolicTensor:
        found = replaced.get(id(t))
        return t if found is None else found[1]

    old = graph.operations
    graph.operations = []
    for op in old:
        op.inputs = [resolve(t) for t in op.inputs]
        substitutes = visit(op)
        if substitutes is None:
            graph.operations.append(op)
            continue
        for out, new in zip(op.outputs, substitutes):
            replaced[id(out)] = (out, resolve(new))
    graph.outputs = [resolve(t) for t in graph.outputs]


def graphs_outer_first(graph: Graph):
    """Yields (graph, op owning it or None) for `graph` and every sub-graph, each graph before
    its sub-graphs; a graph's sub-graphs are looked up after the caller has processed it."""
    stack: list[tuple[Graph, Operation | None]] = [(graph, None)]
    while stack:
        g, owner = stack.pop()
        yield g, owner
        for op in reversed(g.operations):
            if CONTROL_FLOW in op.opdef.groups:  # only control flow holds sub-graphs
                stack.extend((sub, op) for sub in reversed(op.subgraphs()))


def shared_with_results(graph: Graph) -> set[int]:
    """The ids of the tensors of `graph` whose arrays its results may be: each result, and the
    inputs of an op that may return a view of one (any op but a Const and one that makes a
    fresh array), and so on up. A pass that makes such a tensor stand for another must not make
    a result an argument's array, or two results one array: in plain Python they are new."""
    shared: set[int] = set()
    stack = list(graph.outputs)
    while stack:
        t = stack.pop()
        if id(t) in shared:
            continue
        shared.add(id(t))
        op = t.op
        if op.graph is graph and op.opdef is not CONST and op.opdef is not PLACEHOLDER and (
                FRESH_OUTPUT not in op.opdef.groups):
            stack.extend(op.inputs)
    return shared


def is_pure(op: Operation) -> bool:
    """True if running `op` twice, or once earlier, gives the same values and effects: not
    stateful, does not read variables, not control flow, not a placeholder."""
    groups = op.opdef.groups
    return not (
        op.stateful or READS_STATE in groups or CONTROL_FLOW in groups or op.opdef is PLACEHOLDER
    )


def const_value(t: SymbolicTensor):
    """The ndarray value of `t` when a Const op makes it, else None."""
    return t.op.attrs["value"] if t.op.opdef is CONST else None


def add_const(graph: Graph, value: np.ndarray, dtype, origin) -> SymbolicTensor:
    """A new Const op of `graph` (at the current sweep position) holding `value`."""
    op = graph.create_op(CONST, [], {"value": value}, [(dtype, value.shape)], origin)
    return op.outputs[0]


def all_equal_to(value: np.ndarray | None, number) -> bool:
    """True if `value` is a numeric array whose every element equals `number` (and has its sign,
    so -0.0 does not count as 0)."""
    if value is None or value.dtype.kind not in "biuf" or value.size == 0:
        return False
    target = np.asarray(number, dtype=value.dtype)
    same = value == target
    if value.dtype.kind == "f":
        same &= np.signbit(value) == np.signbit(target)
    return bool(np.all(same))
