"""Per executor (`jit_compile`): the first call, the time until calls reach their steady speed
(for "auto": until numba's version has replaced the default one while the caller keeps calling,
as a program's loop does, with an empty cache directory, so numba compiles), and the steady time
per call, on the workloads with loops and a small array one."""

from __future__ import annotations

import importlib.util
import statistics
import tempfile
import time

import runtime as rt
from benchmarks import harness, workloads

KEYS = ("W2", "W4", "W5", "W6", "W7")
STEADY_CALLS = 200


def _backends() -> list:
    found = [None]
    if importlib.util.find_spec("numba") is not None:  # ("auto" moves hot graphs to numba)
        found += ["auto", "numba"]
    if importlib.util.find_spec("jax") is not None:
        found.append("xla")
    return found


def _steady_us(f, args) -> float:
    samples = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(STEADY_CALLS):
            f(*args)
        samples.append((time.perf_counter() - start) / STEADY_CALLS * 1e6)
    return statistics.median(samples)


def _row(workload, backend) -> str:
    args = tuple(harness.to_rt(a) for a in workload.make_args(False))
    f = rt.function(harness.fresh_function(workload.fn), jit_compile=backend)
    try:
        start = time.perf_counter()
        f(*args)
        first_ms = (time.perf_counter() - start) * 1e3
        warm = _until_native(f, args) if backend == "auto" else "0"
        steady = _steady_us(f, args)
    except Exception as e:  # noqa: BLE001 - shown in the table
        return f"| {workload.key} | {backend} | {type(e).__name__} | | |"
    return f"| {workload.key} | {backend} | {first_ms:.1f} | {warm} | {steady:.2f} |"


def _until_native(f, args, limit_s: float = 60.0) -> str:
    """ms of calls, one after another, until `f`'s graph runs on numba (after the compile and
    the calls that time both executors; "stays" when it is not moved: slower, or not computed
    exactly by numba)."""
    concrete = f.get_concrete_function(*args)
    calls = 0
    start = time.perf_counter()
    while not concrete.executor.startswith("numba") and time.perf_counter() - start < limit_s:
        f(*args)
        calls += 1
        if "the default executor (" in concrete.executor:  # decided: it stays
            break
    if not concrete.executor.startswith("numba"):
        return f"stays ({calls} calls)"
    return f"{(time.perf_counter() - start) * 1e3:.0f}"


def backend_table() -> str:
    """A markdown table: workload, jit_compile, first call ms, warm-up to native ms, steady µs."""
    lines = ["| workload | jit_compile | 1st call ms | warm-up to native ms | steady us |",
             "|---|---|---:|---:|---:|"]
    cache = rt.config.cache_dir()
    with tempfile.TemporaryDirectory() as empty:
        rt.config.set_cache_dir(empty)  # numba compiles: no machine code from an earlier run
        try:
            for workload in workloads.by_key(list(KEYS)):
                for backend in _backends():
                    lines.append(_row(workload, backend))
        finally:
            rt.config.set_cache_dir(cache)
    return "\n".join(lines + _missing())


def _missing() -> list:
    """A line saying which executors have no rows because their package is not installed."""
    if importlib.util.find_spec("numba") is None:
        return ["\nNo rows for jit_compile=\"auto\" and \"numba\": numba is not installed "
                "(pip install -e \".[numba]\")."]
    return []
