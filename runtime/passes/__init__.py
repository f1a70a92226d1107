"""Graph passes. Each module states the invariant it establishes; `run_passes` applies them.

The pipeline, in order (each pass is one linear sweep per graph):
    prune               always, on the traced graph: unneeded ops never run
    constant_folding    Const inputs -> Const outputs (also through captured branch inputs)
    dead_branch         If on a Const predicate -> the taken branch's ops
                        (repeated with folding while it inlines something: the inlined ops may
                        fold, and may hold more constant Ifs)
    simplify, power     exact algebraic rewrites; `x ** 2` -> Square
    licm                loop-invariant ops move out of While loops
    counter_checks      the overflow checks of loop counters, which cannot fail, go
    cse                 duplicates merged (after licm, which may hoist the same op twice)
    prune               drops what the rewrites left unused
    fusion              last: big elementwise chains -> FusedElementwise kernels
Every pass keeps results bit-identical (see each module's docstring for the exact guarantee).
"""

from runtime import config
from runtime.passes import (
    constant_folding,
    counter_checks,
    cse,
    dead_branch,
    fusion,
    licm,
    power,
    prune,
    simplify,
)

MAX_INLINING_ROUNDS = 4


def run_passes(graph, optimize: bool = True, fuse: fusion.Mode = fusion.ALL):
    """The graph to compile for a freshly traced `graph`. Pruning always runs (it is part of the
    semantics: unneeded ops never run); with `optimize` (and `rt.config.optimize_graphs` on),
    the optimizing passes run on a copy, so the traced graph stays inspectable. `fuse`: which
    chains the fusion pass fuses (see `optimize_graph`)."""
    prune.transform(graph)
    if not optimize or not config.graphs_optimized():
        return graph
    optimized = graph.copy()
    optimize_graph(optimized, fuse)
    return optimized


def optimize_graph(graph, fuse: fusion.Mode = fusion.ALL) -> None:
    """Runs the optimizing passes on `graph`, in place; `fuse`: the chains the fusion pass
    fuses (fusion.NONE stops before it: a saved file holds only unfused ops)."""
    constant_folding.transform(graph)
    for _ in range(MAX_INLINING_ROUNDS):
        if not dead_branch.transform(graph):
            break
        constant_folding.transform(graph)
    simplify.transform(graph)
    power.transform(graph)
    licm.transform(graph)
    counter_checks.transform(graph)
    cse.transform(graph)
    prune.transform(graph)
    if fuse.elementwise or fuse.reductions:
        fusion.transform(graph, fuse)


def compile_ready(graph, fuse: bool):
    """The graph to compile for a graph the optimizing passes (all but fusion) already ran on,
    as `rt.saved` stores them: pruned, then fused on a copy when fusion finds something to do
    (so `graph` keeps only ops a saved file may hold)."""
    prune.transform(graph)
    if not fuse or not config.graphs_optimized() or not fusion.finds_groups(graph):
        return graph
    fused = graph.copy()
    fusion.transform(fused)
    return fused
