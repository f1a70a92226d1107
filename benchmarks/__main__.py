"""`python -m benchmarks`: eager vs graph vs hand-written numpy (and TF / JAX when installed).

    python -m benchmarks              # thorough: a few minutes
    python -m benchmarks --quick      # under a minute
    python -m benchmarks --only W4,W7 # some workloads

Prints the table to stdout, progress to stderr, and writes benchmarks/results/ (a timestamped
JSON, latest.json, latest.md and latest.png when matplotlib is installed).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path

# Single-threaded BLAS unless the caller set these: on a small shared machine, BLAS worker threads
# spinning against other processes make matmul timings swing tenfold (W9). Every column uses the
# same BLAS, so ratios stay fair. This must run before numpy is imported.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import runtime as rt  # noqa: E402
from benchmarks import (  # noqa: E402
    backends,
    composition,
    external,
    harness,
    numpy_programs,
    report,
    scaling,
    workloads,
)

RESULTS_DIR = Path("benchmark-results")  # under the current directory


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tracegraph {rt.__version__}")
    parser.add_argument("--quick", action="store_true", help="short timing (under a minute)")
    parser.add_argument("--only", default="", help="comma-separated workload keys, e.g. W1,W3a")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds of timing per column (overrides the mode's default)")
    parser.add_argument("--small", action="store_true",
                        help="tiny input sizes (for smoke tests; not comparable to ANCHORS.md)")
    parser.add_argument("--no-external", action="store_true",
                        help="skip TensorFlow / JAX even when installed")
    parser.add_argument("--no-autograph", action="store_true",
                        help="trace without autograph conversion (to tell converter problems "
                             "from runtime ones)")
    parser.add_argument("--output-dir", type=Path, default=RESULTS_DIR)
    return parser.parse_args(argv)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv=None) -> int:
    args = _parse(argv)
    try:
        chosen = workloads.by_key([k for k in args.only.split(",") if k.strip()])
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    budget = harness.QUICK if args.quick else harness.THOROUGH
    if args.budget is not None:
        budget = replace(budget, seconds=args.budget, min_rounds=min(budget.min_rounds, 5))
    frameworks = {} if args.no_external else external.available()
    mode = ("quick" if args.quick else "thorough") + (", small sizes" if args.small else "") + (
        ", no autograph" if args.no_autograph else "")
    _progress(f"benchmarks: {len(chosen)} workloads, {mode}, ~{budget.seconds:g} s per column; "
              f"external: {', '.join(f'{k} {v}' for k, v in frameworks.items()) or 'none'}; "
              f"load average {os.getloadavg()[0]:.1f} (ratios tolerate load, times less)")
    started = time.perf_counter()
    meta = report.run_meta(mode, frameworks)
    results = []
    for i, workload in enumerate(chosen, 1):
        _progress(f"[{i}/{len(chosen)}] {workload.key} {workload.title}")
        result = harness.run_workload(workload, budget, small=args.small,
                                      with_external=not args.no_external,
                                      autograph=not args.no_autograph, progress=_progress)
        results.append(result)
        summary = ", ".join(f"{name} {'error' if c.error else report.format_us(c.median_us)}"
                            for name, c in result.columns.items())
        _progress(f"    {summary} (us)")
    if any(r.workload.key in workloads.GRADIENT_OF for r in results):
        _progress("value and gradient against forward, timed in paired rounds")
    ratios = _gradient_ratios(results, budget)
    notes = [ratios] if ratios else []
    if not args.small:
        _progress("graph passes on chains of 1,000 and 4,000 ops")
        notes.append(scaling.pass_scaling())
        _progress("first calls of 10,000- and 30,000-op functions; loop nests")
        notes.append(scaling.first_call_scaling())
        notes.append(scaling.loop_nest_scaling())
        _progress("loading a saved 4,000-op function against tracing it")
        notes.append(scaling.load_versus_trace())
        _progress("composition: a decorated function calling one; tapes around calls")
        notes.append("crossing a function boundary (paired rounds):\n"
                     + composition.composition_table(budget))
        _progress("executors: first call, warm-up, steady state")
        notes.append("executors (jit_compile) on loop workloads:\n" + backends.backend_table())
        _progress("numpy programs: plain numpy, graph, numba, 'auto' after warm-up, njit, jax.jit")
        notes.append("numpy programs (tests/numpy_programs.py):\n"
                     + numpy_programs.numpy_programs_table(budget))
    if any(w.key == "W3b" for w in chosen) and not args.small:
        _progress("W3b's mean squared error at 1e6 and 1e7 elements")
        notes.append(scaling.reduction_scaling(budget))
    if any(w.key == "W13" for w in chosen) and not args.small:
        _progress("W13 at 1,000 / 10,000 / 100,000 appends")
        notes.append(scaling.append_scaling(budget))
    notes = "\n".join(notes)
    print(report.table(results))
    print()
    print(report.details(results, notes))
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    paths = report.write(results, meta, args.output_dir, stamp, notes)
    if not any(p.suffix == ".png" for p in paths):
        _progress("no chart: matplotlib is not installed (pip install matplotlib)")
    _progress(f"done in {time.perf_counter() - started:.0f} s; wrote "
              + ", ".join(str(p) for p in paths))
    return 0


def _gradient_ratios(results, budget) -> str:
    """A line comparing each gradient row's graph time with its forward row's (target <= 3x),
    timed again in paired rounds (round i of each back to back: the median of the per-round
    ratios does not move with the machine's load, as a ratio of two rows' medians does)."""
    graphs = {r.workload.key: r.columns["graph"] for r in results
              if "graph" in r.columns and r.columns["graph"].error is None}
    cells = []
    for g, w in workloads.GRADIENT_OF.items():
        if g in graphs and w in graphs:
            (g_rounds, _), (w_rounds, _) = harness.measure(
                [(graphs[g].fn, graphs[g].args), (graphs[w].fn, graphs[w].args)], budget)
            ratio = statistics.median(a / b for a, b in zip(g_rounds, w_rounds))
            cells.append(f"{g}/{w} {ratio:.2f}x")
    return ("value-and-gradient graph / forward graph (target <= 3x; paired rounds): "
            + ", ".join(cells) if cells else "")


if __name__ == "__main__":
    sys.exit(main())
