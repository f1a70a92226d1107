"""Dead-branch removal.

Guarantees after this pass: no If op of the graph (or of a sub-graph) has a Const predicate.
Such an If is replaced by the ops of its taken branch, moved into the enclosing graph at the
If's position (program order of stateful ops is kept); the branch's inputs become the If's
inputs and its outputs stand for the If's outputs. The other branch is dropped, as it would
never run. Values are unchanged: the same ops run on the same inputs.
"""

from __future__ import annotations

from runtime.core.graph import Graph
from runtime.ops import control_flow_ops as cf
from runtime.ops.control_flow_ops import IF
from runtime.ops.registry import PLACEHOLDER
from runtime.passes.rewrite import const_value, graphs_outer_first, rewrite


def transform(graph: Graph) -> int:
    """Inlines the taken branch of constant-predicate Ifs, in place; returns how many."""
    inlined = 0
    for g, _ in graphs_outer_first(graph):
        def visit(op, g=g):
            nonlocal inlined
            if op.opdef is not IF:
                return None
            pred = const_value(cf.predicate(op))
            if pred is None:
                return None
            inlined += 1
            return _inline(g, cf.taken_branch(op, pred), cf.captured(op))

        rewrite(g, visit)
    return inlined


def _inline(graph: Graph, branch: Graph, inputs: list):
    """Moves the ops of `branch` to the end of `graph`'s op list; returns its outputs there."""
    mapping = {id(p): t for p, t in zip(branch.inputs, inputs)}
    for op in branch.operations:
        if op.opdef is PLACEHOLDER:
            continue
        op.graph = graph
        op.inputs = [mapping.get(id(t), t) for t in op.inputs]
        for sub in op.subgraphs():
            sub.outer = graph
        graph.operations.append(op)
    return [mapping.get(id(t), t) for t in branch.outputs]
