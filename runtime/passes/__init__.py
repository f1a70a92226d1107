"""Graph passes. Each module states the invariant it establishes; `run_passes` applies them."""

from runtime.passes import prune


def run_passes(graph, optimize: bool = True):
    """The graph to compile for a freshly traced `graph`. Pruning always runs (it is part of the
    semantics: unneeded ops never run); with `optimize`, the optimizing passes run on a copy, so
    the traced graph stays inspectable."""
    prune.transform(graph)
    if not optimize:
        return graph
    optimized = graph.copy()
    return optimized
