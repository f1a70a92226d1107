"""Dead-code pruning.

Invariant after this pass: every op of the graph (and of each sub-graph) is stateful or is needed
to compute an output of its graph, or a stateful op; stateful ops keep their program order.
Placeholders are kept (they are the graph's signature). This is what makes graphs non-strict:
an op whose result is unused never runs (seed S7).
"""

from __future__ import annotations

from runtime.core.graph import Graph
from runtime.ops.registry import PLACEHOLDER


def transform(graph: Graph) -> None:
    """Removes unneeded ops from `graph` and its sub-graphs, in place."""
    stack = [graph]
    while stack:
        g = stack.pop()
        _prune_one(g)
        for op in g.operations:
            stack.extend(op.subgraphs())


def _prune_one(graph: Graph) -> None:
    live: set[int] = set()
    work = [t.op for t in graph.outputs] + [op for op in graph.operations if op.stateful]
    while work:
        op = work.pop()
        if id(op) in live:
            continue
        live.add(id(op))
        work.extend(t.op for t in op.inputs)
    graph.operations = [
        op for op in graph.operations if id(op) in live or op.opdef is PLACEHOLDER
    ]
