"""How the graph time of W13 (appending to a list in a tensor `for` loop) grows with the
number of appends: flat time per append means each append is O(1)."""

from __future__ import annotations

import numpy as np

import runtime as rt
from benchmarks import harness, workloads

SIZES = (1_000, 10_000, 100_000)


def append_scaling(budget) -> str:
    """Lines giving the graph's median µs per append at each size of SIZES (one run)."""
    graph = rt.function(workloads.appends)
    x = rt.constant(np.float32([0.5, 2.0]))
    timed = [(graph, (rt.constant(np.int32(n)), x)) for n in SIZES]
    measured = harness.measure(timed, budget)
    per_append = [float(np.median(samples)) * 1e6 / n for (samples, _), n in zip(measured, SIZES)]
    cells = ", ".join(f"n={n:,}: {us:.3f} us" for n, us in zip(SIZES, per_append))
    return (f"W13 graph time per append: {cells} (largest/smallest "
            f"{max(per_append) / min(per_append):.2f}x)")
