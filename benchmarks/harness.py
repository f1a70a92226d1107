"""Runs one workload: builds its columns, checks they agree, times them, times the first call.

Guarantees: a column is timed only after its result matched the reference column (hand-written
numpy); a column that raises or disagrees is reported with its error message and not timed, and
never stops the other columns or workloads. Times are medians of many rounds of
`time.perf_counter`, each round timing an inner loop of calls whose count is calibrated so a
round lasts long enough to time a sub-microsecond call; rounds of the columns interleave, and
garbage collection is off during rounds.
"""

from __future__ import annotations

import gc
import importlib.util
import itertools
import statistics
import time
import types
from dataclasses import dataclass, field

import numpy as np

import runtime as rt
from benchmarks import external
from benchmarks.workloads import Workload

REFERENCE = "numpy"


@dataclass(frozen=True)
class Budget:
    """How long to time each column: about `seconds` in total per column, in rounds of at least
    `round_seconds`, no fewer than `min_rounds` and no more than `max_rounds` rounds."""

    seconds: float
    round_seconds: float
    min_rounds: int
    max_rounds: int = 200


QUICK = Budget(seconds=0.3, round_seconds=0.002, min_rounds=7)
THOROUGH = Budget(seconds=4.0, round_seconds=0.01, min_rounds=25)


@dataclass
class Column:
    """One way of computing a workload, and what measuring it gave."""

    name: str
    fn: object
    args: tuple
    median_us: float | None = None
    min_us: float | None = None
    rounds: int = 0
    calls_per_round: int = 0
    error: str | None = None
    samples_us: list = field(default_factory=list, repr=False)  # µs per call, one per round

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in
                ("median_us", "min_us", "rounds", "calls_per_round", "error")}


@dataclass
class Result:
    """Everything measured for one workload."""

    workload: Workload
    columns: dict = field(default_factory=dict)
    first_call_ms: float | None = None

    def median(self, column: str) -> float | None:
        col = self.columns.get(column)
        return None if col is None else col.median_us

    def ratio(self, numerator: str, denominator: str) -> float | None:
        """Time of one column over another's: the median of the per-round ratios when both
        were timed in the same interleaved rounds (robust to load that comes and goes), else
        the ratio of the medians."""
        a, b = self.columns.get(numerator), self.columns.get(denominator)
        if a is None or b is None or a.median_us is None or not b.median_us:
            return None
        if a.samples_us and len(a.samples_us) == len(b.samples_us):
            return statistics.median(x / y for x, y in zip(a.samples_us, b.samples_us))
        return a.median_us / b.median_us


def calls_per_round(fn, args, budget: Budget) -> int:
    """How many calls of `fn(*args)` fill one round (after a warm-up call)."""
    fn(*args)  # warm-up: caches, lazy imports
    calls = 1
    while True:
        elapsed = _time_calls(fn, args, calls)
        if elapsed >= budget.round_seconds or calls >= 1 << 24:
            return calls
        calls = max(calls * 2, int(calls * budget.round_seconds / max(elapsed, 1e-9) * 1.2))


def measure(timed: list[tuple], budget: Budget) -> list[tuple[list[float], int]]:
    """For each `(fn, args)`: (seconds per call in each round, calls per round).

    Rounds interleave the functions (one round of each in turn), so a burst of load from other
    processes slows all of them alike, and round i of one function can be paired with round i
    of another.
    """
    loops = [calls_per_round(fn, args, budget) for fn, args in timed]
    deadline = time.perf_counter() + budget.seconds * len(timed)
    per_call = [[] for _ in timed]
    rounds = 0
    while rounds < budget.min_rounds or (
        time.perf_counter() < deadline and rounds < budget.max_rounds
    ):
        for samples, (fn, args), calls in zip(per_call, timed, loops):
            samples.append(_time_calls(fn, args, calls) / calls)
        rounds += 1
    return list(zip(per_call, loops))


def _time_calls(fn, args, calls: int) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        loop = range(calls)
        start = time.perf_counter()
        for _ in loop:
            fn(*args)
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def fresh_function(fn):
    """A copy of `fn` whose code object differs from every earlier one (code objects compare by
    value, so only a new `co_name` makes per-code-object caches such as autograph's conversion
    cache miss, as they would for a function never seen before)."""
    code = fn.__code__.replace(co_name=f"{fn.__code__.co_name}_{next(_fresh_ids)}")
    copy = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__module__ = fn.__module__
    copy.__qualname__ = fn.__qualname__
    return copy


_fresh_ids = itertools.count()


def to_rt(value):
    """Numpy inputs as eager rt tensors; Python values (loop counts) stay Python."""
    if isinstance(value, (np.ndarray, np.generic)):
        return rt.constant(value)
    return value


def build_columns(workload: Workload, small: bool, with_external: bool = True) -> list[Column]:
    """The columns of one workload, in table order: eager, graph, numpy, variants, TF, JAX."""
    args = workload.make_args(small)
    rt_args = tuple(to_rt(a) for a in args)
    columns = [
        Column("eager", workload.fn, rt_args),
        Column("graph", None, rt_args),  # filled by the first-call measurement
        Column(REFERENCE, workload.numpy_fn, args),
    ]
    for name, factory in workload.variants.items():
        try:
            columns.append(Column(name, factory(args), args))
        except Exception as e:  # noqa: BLE001 - a broken variant becomes an error cell
            columns.append(Column(name, None, args, error=_describe(e)))
    if importlib.util.find_spec("numba") is not None:  # our graph compiled by numba
        columns.append(Column("graph numba", rt.function(workload.fn, jit_compile="numba"),
                              rt_args))
        if args and all(isinstance(a, np.generic) for a in args):  # called as njit is: numpy
            columns.append(Column(  # scalars in, numpy values out
                "graph numba numpy", rt.function(workload.fn, jit_compile="numba",
                                                 numpy_results=True), args))
    if importlib.util.find_spec("jax") is not None:  # our graph compiled by XLA
        columns.append(Column("graph xla", rt.function(workload.fn, jit_compile="xla"),
                              rt_args))
    if with_external:
        for name, fn, converted in external.columns(workload.key, args):
            columns.append(Column(name, fn, converted))
    return columns


def run_workload(workload: Workload, budget: Budget, small: bool = False,
                 with_external: bool = True, autograph: bool = True, progress=None) -> Result:
    """Checks and times every column of `workload` (see the module docstring)."""
    result = check_workload(workload, small, with_external, autograph)
    timed = [col for col in result.columns.values() if col.error is None]
    if progress:
        progress(f"    timing {', '.join(col.name for col in timed)}")
    for col, (samples, calls) in zip(timed, measure([(c.fn, c.args) for c in timed], budget)):
        col.samples_us = [t * 1e6 for t in samples]
        col.median_us, col.min_us = statistics.median(col.samples_us), min(col.samples_us)
        col.rounds, col.calls_per_round = len(samples), calls
    return result


def check_workload(workload: Workload, small: bool = False, with_external: bool = True,
                   autograph: bool = True) -> Result:
    """Builds the columns, times the graph's first call, runs every column once and marks the
    ones that raise or disagree with the reference (their `error` is set)."""
    result = Result(workload)
    columns = build_columns(workload, small, with_external)
    result.columns = {c.name: c for c in columns}
    graph = result.columns["graph"]
    try:
        graph.fn, result.first_call_ms = _first_call(workload.fn, graph.args, autograph)
    except Exception as e:  # noqa: BLE001 - reported in the table, the run goes on
        graph.error = _describe(e)
    outputs = {}
    for col in columns:
        if col.error is None:
            try:
                outputs[col.name] = _as_numpy(col.fn(*col.args))
            except Exception as e:  # noqa: BLE001 - reported in the table, the run goes on
                col.error = _describe(e)
    _check_agreement(columns, outputs)
    return result


def _first_call(fn, args, autograph: bool, repeats: int = 3):
    """(an rt.function of `fn` that has run once, median ms of its first call): each repeat
    wraps a fresh copy of `fn`, so conversion, tracing and compiling happen every time."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function = rt.function(fresh_function(fn), autograph=autograph)
        function(*args)
        times.append((time.perf_counter() - start) * 1e3)
    return function, statistics.median(times)


def _check_agreement(columns, outputs) -> None:
    reference = outputs.get(REFERENCE)
    if reference is None:
        return
    for col in columns:
        if col.name == REFERENCE or col.name not in outputs:
            continue
        problem = _difference(reference, outputs[col.name], exact_dtype=col.name in (
            "eager", "graph"))
        if problem:
            col.error = f"result differs from {REFERENCE}: {problem}"


def _difference(expected: list, actual: list, exact_dtype: bool) -> str | None:
    """Why `actual` does not match `expected` (lists of arrays), or None."""
    if len(expected) != len(actual):
        return f"{len(actual)} outputs instead of {len(expected)}"
    for i, (e, a) in enumerate(zip(expected, actual)):
        where = f"output {i}: " if len(expected) > 1 else ""
        if e.shape != a.shape:
            return f"{where}shape {a.shape} instead of {e.shape}"
        if exact_dtype and e.dtype != a.dtype:
            return f"{where}dtype {a.dtype} instead of {e.dtype}"
        if e.dtype.kind == "f" or a.dtype.kind == "f":
            if not np.allclose(a, e, rtol=1e-4, atol=1e-6, equal_nan=True):
                return f"{where}max abs difference {np.max(np.abs(a - e)):.3g}"
        elif not np.array_equal(a, e):
            return f"{where}{a.ravel()[:4]} instead of {e.ravel()[:4]}"
    return None


def _as_numpy(value) -> list:
    """A result as a list of numpy arrays (copies: `out=` buffers get overwritten). Python
    numbers become what a graph returns for them (int -> int64, float -> float64: a Python
    number's stand-in in a graph has its width), so a Python-int loop counter matches."""
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _as_numpy(v)]
    if type(value) in _PYTHON_NUMBERS:
        return [np.array(value, _PYTHON_NUMBERS[type(value)])]
    if hasattr(value, "numpy"):
        value = value.numpy()
    if hasattr(value, "block_until_ready"):  # JAX arrays
        value = value.block_until_ready()
    return [np.array(value)]


_PYTHON_NUMBERS = {bool: np.bool_, int: np.int64, float: np.float64}


def _describe(error: Exception) -> str:
    return f"{type(error).__name__}: {error}".strip()
