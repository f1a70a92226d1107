"""How times grow with size: W3b's mean squared error at 1e6 and 1e7 elements, the graph time
of W13 (appending to a list in a tensor `for` loop) per append (flat: each append is O(1)), the
time of the graph passes on chains of 1,000 and 4,000 ops (4x: linear), the first call of
10,000- and 30,000-op functions with the garbage collector on (linear: the same time per op),
the size of the optimized graphs of loop nests 5, 10 and 20 deep (linear in the depth), and
loading a saved function against tracing it."""

from __future__ import annotations

import gc
import tempfile
import time

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


def reduction_scaling(budget) -> str:
    """A line giving W3b's mean squared error at 1e6 and 1e7 float32 elements: numpy, the graph
    (one FusedReduction kernel) and the graph unoptimized (numpy's steps and temporaries)."""
    rng = np.random.default_rng(0)
    cells = []
    for n in (1_000_000, 10_000_000):
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        graph = rt.function(workloads.mse)
        unfused = rt.function(workloads.mse, optimize=False)
        timed = [(workloads.mse_numpy, (a, b)), (graph, (a, b)), (unfused, (a, b))]
        medians = [float(np.median(samples)) * 1e6
                   for samples, _ in harness.measure(timed, budget)]
        cells.append(f"n={n:,}: numpy {medians[0]:,.0f}, graph {medians[1]:,.0f}, unoptimized "
                     f"{medians[2]:,.0f} us (graph/numpy {medians[1] / medians[0]:.2f}x)")
    return "W3b's MSE as one fused reduction: " + "; ".join(cells)


def pass_scaling() -> str:
    """A line giving the best time of the graph passes on chains of 1,000 and 4,000 ops."""
    from runtime.passes import optimize_graph

    def chain_graph(n):
        return rt.function(_chain(n), autograph=False, optimize=False).get_concrete_function(
            rt.constant(np.float32(1.0))).graph

    def best_seconds(graph):
        copies = [graph.copy() for _ in range(5)]  # copied outside the timed part
        return _best_seconds(lambda: optimize_graph(copies.pop()), 5)

    small, large = best_seconds(chain_graph(1000)), best_seconds(chain_graph(4000))
    return (f"graph passes: {small * 1e3:.1f} ms on 1,000 ops, {large * 1e3:.1f} ms on 4,000 "
            f"({large / small:.1f}x; 4x when linear)")


def first_call_scaling() -> str:
    """A line giving the first call (trace, passes, compile, run) of chains of 10,000 and
    30,000 traced ops, with the garbage collector on, as a user's program runs."""
    x = rt.constant(np.float32(1.0))
    cells = []
    for steps in (2_500, 7_500):  # 4 traced ops a step: a multiply, an add, two constants
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            function = rt.function(_chain(steps), autograph=False)
            function(x)
            best = min(best, time.perf_counter() - start)
        ops = len(function.get_concrete_function(x).traced_graph.operations)
        cells.append((ops, best))
    (small_ops, small), (large_ops, large) = cells
    return (f"first call: {small * 1e3:.0f} ms for {small_ops:,} ops, {large * 1e3:.0f} ms for "
            f"{large_ops:,} ({small / small_ops * 1e6:.0f} and {large / large_ops * 1e6:.0f} us "
            "per op; equal when linear)")


def loop_nest(depth: int, trips: int = 2):
    """A function of (x, k) with `depth` nested graph loops, each passing `k * 2.0` (invariant
    in it) to the loop inside."""
    def build(level, x, k):
        if level == depth:
            return x * k + 1.0
        body = lambda i, y: (i + 1, build(level + 1, y, k * 2.0))  # noqa: E731
        return rt.while_loop(lambda i, y: i < trips, body, [rt.constant(0), x])[1]

    return lambda x, k: build(0, x, k)


def loop_nest_scaling() -> str:
    """A line giving the ops of the optimized graphs of loop nests 5, 10 and 20 deep."""
    sizes = []
    for depth in (5, 10, 20):
        graph = rt.function(loop_nest(depth), autograph=False).get_concrete_function(
            rt.constant(1.0), rt.constant(0.5)).graph
        sizes.append(sum(1 for _ in graph.walk()))
    return (f"loop nests 5 / 10 / 20 deep: {sizes[0]} / {sizes[1]} / {sizes[2]} ops optimized "
            f"({(sizes[2] - sizes[1]) / 10:.0f} and {(sizes[1] - sizes[0]) / 5:.0f} per level; "
            "equal when linear)")


def load_versus_trace() -> str:
    """A line giving the best time to trace a 4,000-op function and call it once, against the
    best time to load it from a directory and call it once."""
    x = rt.constant(np.float32(1.0))

    def trace():
        rt.function(_chain(2000, sines=True), autograph=False)(x)

    with tempfile.TemporaryDirectory() as directory:
        traced = rt.function(_chain(2000, sines=True), autograph=False)
        traced(x)
        rt.saved.save(traced, directory)
        loading = _best_seconds(lambda: rt.saved.load(directory)(x), 3)
    tracing = _best_seconds(trace, 3)
    return (f"saved functions: load + first call {loading * 1e3:.0f} ms, trace + first call "
            f"{tracing * 1e3:.0f} ms on a 2,000-step chain ({loading / tracing:.2f}x)")


def _chain(n, sines=False):
    def chain(x):
        for i in range(n):
            x = x * 1.0 + float(i % 7)
            if sines and i % 50 == 0:
                x = rt.sin(x)
        return x

    return chain


def _best_seconds(run, repeats: int) -> float:
    """The best wall time of `run()` over `repeats` runs, with the garbage collector off."""
    best = float("inf")
    for _ in range(repeats):
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best
