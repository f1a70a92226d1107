"""Ordinary numpy programs (tests/numpy_programs.py: RK4, EMA, Kalman, Mandelbrot, histograms,
a moving window, bisection, Newton, k-means) timed as plain numpy, as a graph
(`rt.function`, unchanged source) and with `jit_compile="auto"` after its warm-up (the hot
graph moved to numba when numba computes it bit for bit), with numpy's promotion for operators
(`rt.config.set_dtype_promotion("numpy")`). Each column's result is checked against numpy's
first (the graph's must be equal: values, shapes, dtypes); a column that fails or differs is an
error cell. Medians of interleaved rounds, ratios to plain numpy as medians of per-round ratios.

    python -m benchmarks.numpy_programs [--quick] [--only rk4,ema]
"""

from __future__ import annotations

import argparse
import statistics
import sys

import runtime as rt
from benchmarks import harness
from runtime.executor import tiering
from tests import numpy_programs
from tests.autograph.three_way import same

COLUMNS = ("numpy", "graph", "auto")


def _prepare(name: str):
    """{column: (callable, args) or an error text}, and where "auto" runs after warm-up."""
    fn, args = numpy_programs.PROGRAMS[name][0], numpy_programs.make_args(name)
    rt_args = tuple(harness.to_rt(a) for a in args)
    expected = fn(*args)
    columns = {"numpy": (fn, args)}
    where = "-"
    for column, jit in (("graph", None), ("auto", "auto")):
        f = rt.function(harness.fresh_function(fn), jit_compile=jit)
        try:
            if jit == "auto":
                concrete = f.get_concrete_function(*rt_args)
                for _ in range(tiering.HOT_CALLS + 1):
                    f(*rt_args)
                tiering.wait_for_compiles()
                for _ in range(tiering.TRIAL_CALLS):  # (they time both executors)
                    f(*rt_args)
                where = _where_auto_runs(concrete)
            if not same(f(*rt_args), expected):
                columns[column] = "result differs from numpy"
                continue
        except Exception as e:  # noqa: BLE001 - an error cell; the other rows go on
            columns[column] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
            continue
        columns[column] = (f, rt_args)
    return columns, where


def _where_auto_runs(concrete) -> str:
    """concrete.executor, in a few words."""
    where = concrete.executor
    for words, short in (("numba (", "numba"), ("not installed", "default (no numba)"),
                         ("not faster", "default (numba not faster)"),
                         ("bit for bit", "default (not exactly lowered)"),
                         ("too big to compile", "default (too big for numba)")):
        if words in where:
            return short
    return where


def _row(name: str, budget: harness.Budget) -> tuple[list, list]:
    """(table cells, error lines) of one program."""
    columns, where = _prepare(name)
    timed = [c for c in COLUMNS if isinstance(columns[c], tuple)]
    samples = dict(zip(timed, (s for s, _ in harness.measure([columns[c] for c in timed],
                                                             budget))))
    medians = {c: statistics.median(samples[c]) * 1e6 if c in samples else None for c in COLUMNS}

    def ratio(column):
        if column not in samples:
            return "-"
        return f"{statistics.median(a / b for a, b in zip(samples[column], samples['numpy'])):.2f}x"

    cells = [name, *(_us(medians[c]) for c in COLUMNS), ratio("graph"), ratio("auto"), where]
    errors = [f"{name} {c}: {columns[c]}" for c in COLUMNS if isinstance(columns[c], str)]
    return cells, errors


def _us(value) -> str:
    if value is None:
        return "error"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def numpy_programs_table(budget: harness.Budget, names=None) -> str:
    """A markdown table: program, median us of plain numpy, the graph and "auto" (after its
    warm-up), the two ratios to numpy, and where "auto" ended up (numba or the default
    executor); then the error cells."""
    before = rt.config.dtype_promotion()
    rt.config.set_dtype_promotion("numpy")
    try:
        rows = [_row(name, budget) for name in (names or numpy_programs.PROGRAMS)]
    finally:
        rt.config.set_dtype_promotion(before)
    lines = ["| program | numpy us | graph us | auto us | graph/numpy | auto/numpy | "
             "auto runs on |", "|---|---:|---:|---:|---:|---:|---|"]
    lines += ["| " + " | ".join(cells) + " |" for cells, _ in rows]
    errors = [e for _, row_errors in rows for e in row_errors]
    return "\n".join(lines + (["", "Errors:", *errors] if errors else []))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.numpy_programs",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timing")
    parser.add_argument("--only", default="", help="comma-separated program names, e.g. rk4,ema")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()] or None
    unknown = sorted(set(names or ()) - set(numpy_programs.PROGRAMS))
    if unknown:
        print(f"unknown programs {unknown}; known: {', '.join(numpy_programs.PROGRAMS)}",
              file=sys.stderr)
        return 2
    print(numpy_programs_table(harness.QUICK if args.quick else harness.THOROUGH, names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
