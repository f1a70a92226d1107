"""Dead-branch removal.

Guarantees after this pass: no If op of the graph (or of a sub-graph) has a Const predicate.
Such an If is replaced by the ops of its taken branch, moved into the enclosing graph at the
If's position (program order of stateful ops is kept); the branch's inputs become the If's
inputs and its outputs stand for the If's outputs. The other branch is dropped, as it would
never run. Values are unchanged: the same ops run on the same inputs.
"""

from __future__ import annotations

from runtime.graph import Graph
from runtime.passes.rewrite import const_value, graphs_outer_first, rewrite


def transform(graph: Graph) -> int:
    """Inlines the taken branch of constant-predicate Ifs, in place; returns how many."""
    inlined = 0
    for g, _ in graphs_outer_first(graph):
        def visit(op, g=g):
            nonlocal inlined
            if op.type != "If":
                return None
            pred = const_value(op.inputs[0])
            if pred is None:
                return None
            inlined += 1
            branch = op.attrs["then_branch"] if pred else op.attrs["else_branch"]
            return _inline(g, branch, op.inputs[1:])

        rewrite(g, visit)
    return inlined


def _inline(graph: Graph, branch: Graph, inputs: list):
    """Moves the ops of `branch` to the end of `graph`'s op list; returns its outputs there."""
    mapping = {id(p): t for p, t in zip(branch.inputs, inputs)}
    for op in branch.operations:
        if op.type == "Placeholder":
            continue
        op.graph = graph
        op.inputs = [mapping.get(id(t), t) for t in op.inputs]
        for sub in op.subgraphs():
            sub.outer = graph
        graph.operations.append(op)
    return [mapping.get(id(t), t) for t in branch.outputs]
