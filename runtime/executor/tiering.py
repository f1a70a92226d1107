"""`rt.function(f, jit_compile="auto")`: start on the default executor, move to numba when hot.

A graph runs at once on the default executor (no compile wait). After HOT_CALLS calls, numba
compiles it on a background thread, for the argument types of the call that made it hot (at
the first call when an earlier process left its machine code in the cache directory: then numba
loads it instead of compiling); when it is ready, the next TRIAL_CALLS calls run it and the
default executor by turns, timing each as the caller calls, and later calls run the faster
one (a tiny graph is often faster as it is). No call ever waits for numba, and results never change:
only graphs that numba computes bit for bit as the default executor does move (no exp, log,
sin, cos, tanh or sigmoid, no `**` of arrays, and no float sums but of 1-d arrays: see
numba_exactness.lowers_exactly); the others, graphs of more than MAX_OPS ops, and every graph
when numba is not installed, stay where they are. A call whose arguments numba did not compile for
(another memory layout), or that fails on numba, runs on the default executor (whose value or
located error it gives). `place(graph)` says where a graph
runs now, and why (concrete.executor, rt.explain, rt.profile).
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import math
import threading
import time
import weakref

from runtime.executor import python_floats

HOT_CALLS = 64  # calls on the default executor before numba compiles the graph
FASTER = 0.8  # the compiled version replaces the default only if it takes at most this share
TRIAL_CALLS = 10  # calls after the compile that run both by turns, to time them (see _trial)
# Graphs of more ops stay on the default executor: numba compiles a few ms an op (seconds at a
# thousand), and its compile on the background thread slows the caller's calls meanwhile
# (measured: a 4,000-op graph held other functions' calls at 2-3x their time for minutes).
MAX_OPS = 2000

logger = logging.getLogger("runtime.tiering")
_PLACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graph -> where it runs, why


def place(graph) -> str:
    """Where a graph compiled for "auto" runs now, and why (rt.explain and rt.profile say it)."""
    return _PLACES.get(graph, "the default executor (not compiled for jit_compile='auto')")


def _set_place(graph, where: str) -> None:
    _PLACES[graph] = where


def compile_graph(graph, swap):
    """(a function of the input values -> tuple of outputs, Generated): the default executor's,
    which calls `swap(native)` from a background thread once numba has compiled the graph
    (`native` runs on numba, falling back to the default executor for other argument types)."""
    run, generated = python_floats.compile_graph(graph)
    if importlib.util.find_spec("numba") is None:
        _set_place(graph, "the default executor (numba is not installed)")
        return run, generated
    from runtime.executor import numba_exactness

    why = numba_exactness.why_not_lowered_exactly(graph)
    if why is not None:
        _set_place(graph, f"the default executor (numba would not compute it bit for bit: {why})")
        return run, generated
    ops = sum(1 for _ in graph.walk())
    if ops > MAX_OPS:
        _set_place(graph, f"the default executor (too big to compile: numba would take minutes "
                          f"on its {ops} ops, which a background thread would hold the "
                          "interpreter for; a Python loop unrolled by tracing makes graphs "
                          "this big, a tensor loop keeps them small)")
        return run, generated
    _set_place(graph, f"the default executor until it is hot (numba compiles it after "
                      f"{HOT_CALLS} calls, on a background thread, and it moves if faster)")
    calls = itertools.count(1)  # (next() is atomic: threads may call at once)
    compiles = _Compiles()

    def compile_in_background(values, only_from_disk: bool) -> None:
        threading.Thread(target=_compile, args=(graph, values, run, swap, only_from_disk,
                                                compiles),
                         daemon=True, name=f"numba compiling {graph.name}").start()

    def counting(*values):
        outputs = run(*values)
        call = next(calls)
        if call == 1:  # loads numba's code from disk if it is there
            compiles.start()
            compile_in_background(values, only_from_disk=True)
        elif call == HOT_CALLS and compiles.hot():  # (or that load, still looking, compiles)
            compile_in_background(values, only_from_disk=False)
        elif compiles.running:
            # Let the compile run: numba calls LLVM through ctypes, which lets go of the GIL
            # on each of thousands of calls, and each time the compiling thread waited for this
            # one to let go of it (up to the 5 ms switch interval): a caller that kept calling
            # starved the compile for tens of seconds. sleep(0) lets go at once.
            time.sleep(0)
        return outputs

    return counting, generated


class _Compiles:
    """The compiles of one graph, so that one runs at a time: the first call's load from disk,
    then the HOT_CALLS-th call's compile, which a load still looking takes over (a fast graph
    reaches HOT_CALLS calls before the load has looked)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.running = 0
        self._looked = False  # the first call's load found nothing on disk
        self._handed_over = False  # the HOT_CALLS-th call left its compile to that load

    def start(self) -> None:
        with self._lock:
            self.running += 1

    def hot(self) -> bool:
        """At the HOT_CALLS-th call: whether to start the compile (not while a load looks)."""
        with self._lock:
            if self.running and not self._looked:
                self._handed_over = True
                return False
            self.running += 1
            return True

    def nothing_on_disk(self) -> bool:
        """The load found nothing on disk: whether it compiles (the hot call handed over)."""
        with self._lock:
            self._looked = True
            return self._handed_over

    def end(self) -> None:
        with self._lock:
            self.running -= 1


def _compile(graph, values, run, swap, only_from_disk: bool, compiles: _Compiles) -> None:
    try:
        _compile_and_swap(graph, values, run, swap, only_from_disk, compiles)
    finally:
        compiles.end()


def _compile_and_swap(graph, values, run, swap, only_from_disk: bool, compiles) -> None:
    time.sleep(0.01)  # (lets the call that started this thread return first: it holds the GIL)
    from runtime.executor import numba_backend

    if only_from_disk and not numba_backend.compiled_on_disk(graph) and (
            not compiles.nothing_on_disk()):
        return  # compiled at the HOT_CALLS-th call
    _set_place(graph, "the default executor while numba compiles it on a background thread")
    try:
        # (argument types numba did not compile for run on the default executor)
        native, _ = numba_backend.compile_graph(graph, example_values=values, fallback=run)
    except Exception as e:  # noqa: BLE001 - the graph stays on the default executor
        logger.info("jit_compile='auto': %s stays on the default executor: %s", graph.name,
                    str(e).splitlines()[0])
        _set_place(graph, f"the default executor (numba's compile failed: "
                          f"{str(e).splitlines()[0]})")
        return
    _set_place(graph, f"the default executor and numba by turns, for {TRIAL_CALLS} calls that "
                      "time both")
    swap(_trial(graph, native, run, swap))


def _trial(graph, native, run, swap):
    """A function of the input values that runs `native` and `run` by turns, timing each in
    the caller's thread, as the caller calls (a background thread's timings were not the
    caller's: the default executor's many small steps lost the GIL to the calling thread, numba's
    one call did not, and a graph moved where it ran slower); after TRIAL_CALLS calls the graph
    runs on the faster one (numba when it takes at most FASTER of the default's time)."""
    turns = itertools.count()
    best = [float("inf"), float("inf")]  # the default's, numba's (a race only loses a time)

    def trying(*values):
        turn = next(turns)
        numba = turn % 2
        try:
            start = time.perf_counter()
            outputs = (native if numba else run)(*values)
            best[numba] = min(best[numba], time.perf_counter() - start)
            return outputs
        finally:  # (a call that raised times nothing, but it ends the trial all the same)
            if turn == TRIAL_CALLS - 1:
                _decide(graph, native, run, swap, best[0] * 1e6, best[1] * 1e6)

    return trying


def _decide(graph, native, run, swap, default_us: float, compiled_us: float) -> None:
    if math.isinf(compiled_us) or math.isinf(default_us) or compiled_us > FASTER * default_us:
        swap(run)
        logger.info("jit_compile='auto': %s stays on the default executor (%.2f us a call; "
                    "numba: %.2f us)", graph.name, default_us, compiled_us)
        _set_place(graph, f"the default executor (numba was not faster: {compiled_us:.2f} us a "
                          f"call, the default executor {default_us:.2f} us)")
        return
    swap(native)
    _set_place(graph, f"numba ({compiled_us:.2f} us a call; the default executor took "
                      f"{default_us:.2f} us)")
    logger.info("jit_compile='auto': %s now runs compiled by numba (%.2f us a call, was %.2f)",
                graph.name, compiled_us, default_us)


def compiles_running() -> bool:
    """Whether a background compile is running."""
    return any(thread.name.startswith("numba compiling ") for thread in threading.enumerate())


def wait_for_compiles(timeout: float = 60.0) -> None:
    """Waits until no background compile is running (for tests and benchmarks)."""
    for thread in threading.enumerate():
        if thread.name.startswith("numba compiling "):
            thread.join(timeout)
