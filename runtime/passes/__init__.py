"""Graph passes. Each module states the invariant it establishes; `run_passes` applies them."""

from runtime.passes import prune


def run_passes(graph) -> None:
    """Runs the passes on a freshly traced graph, in place."""
    prune.transform(graph)
