"""jit_compile="auto": a hot graph moves to numba in the background; calls never wait and
results never change; graphs numba would compute differently stay on the default executor."""

import threading

import numpy as np
import pytest

import runtime as rt
from benchmarks import workloads
from runtime.executor import numba_backend, tiering

pytest.importorskip("numba")

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile


@pytest.fixture
def hot_soon(monkeypatch):
    """Hot after 3 calls; the compiled version taken whatever it costs."""
    monkeypatch.setattr(tiering, "HOT_CALLS", 3)
    monkeypatch.setattr(tiering, "FASTER", float("inf"))


def _same_bits(a, b):
    assert a.dtype is b.dtype and type(a.numpy()) is type(b.numpy())
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def _calls_until_native(f, args, concrete, calls=5):
    """Calls until hot, waits for the compile, then calls through the trial that times both."""
    start = concrete._run
    outs = [f(*args) for _ in range(calls)]
    tiering.wait_for_compiles()
    outs += [f(*args) for _ in range(tiering.TRIAL_CALLS)]
    return start, outs


def test_a_hot_loop_moves_to_numba_with_the_same_bits(hot_soon):
    for fn, arg in ((workloads.collatz, rt.constant(27)),
                    (workloads.newton_sqrt, rt.constant(np.float32(1e6))),
                    (workloads.sum_squares, rt.constant(1000))):
        default = rt.function(fn)(arg)
        f = rt.function(fn, jit_compile="auto")
        concrete = f.get_concrete_function(arg)
        start, outs = _calls_until_native(f, [arg], concrete)
        assert concrete._run is not start  # swapped in
        assert concrete.executor.startswith("numba (") and "us a call" in concrete.executor
        for out in [*outs, f(arg), f(arg)]:
            _same_bits(out, default)


def test_transcendental_graphs_stay_on_the_default_executor(hot_soon):
    def fn(x, n):
        for _ in rt.range(n):
            x = rt.tanh(x) + 0.5  # numba's tanh may differ in the last bit
        return x

    f = rt.function(fn, jit_compile="auto")
    args = [rt.constant(np.float32(0.3)), rt.constant(10)]
    concrete = f.get_concrete_function(*args)
    start, _ = _calls_until_native(f, args, concrete)
    assert concrete._run is start
    assert "would not compute it bit for bit: Tanh op" in concrete.executor


def test_a_graph_too_big_to_compile_soon_stays_on_the_default_executor(hot_soon, monkeypatch):
    monkeypatch.setattr(tiering, "MAX_OPS", 5)
    f = rt.function(workloads.collatz, jit_compile="auto")
    args = [np.int32(27)]
    concrete = f.get_concrete_function(*args)
    start, _ = _calls_until_native(f, args, concrete)
    assert concrete._run is start and "too big to compile" in concrete.executor


def test_calls_never_wait_for_the_compiler(hot_soon, monkeypatch):
    release, started = threading.Event(), threading.Event()
    real = numba_backend.compile_graph

    def slow_compile(graph, example_values=None, fallback=None):
        started.set()
        release.wait(30)
        return real(graph, example_values, fallback)

    monkeypatch.setattr(numba_backend, "compile_graph", slow_compile)
    f = rt.function(workloads.collatz, jit_compile="auto")
    arg = rt.constant(27)
    concrete = f.get_concrete_function(arg)
    start = concrete._run
    for _ in range(3):
        f(arg)
    assert started.wait(30)
    for _ in range(50):  # the compiler is blocked: these run on the default executor
        assert int(f(arg)) == 111
    assert concrete._run is start
    assert concrete.executor.startswith("the default executor while numba compiles it")
    release.set()
    tiering.wait_for_compiles()
    assert concrete._run is not start and int(f(arg)) == 111


def test_a_graph_numba_is_slower_on_stays(monkeypatch):
    monkeypatch.setattr(tiering, "HOT_CALLS", 3)
    monkeypatch.setattr(tiering, "FASTER", 0.0)  # nothing is fast enough
    f = rt.function(workloads.collatz, jit_compile="auto")
    arg = rt.constant(27)
    concrete = f.get_concrete_function(arg)
    _, outs = _calls_until_native(f, [arg], concrete)
    assert "numba was not faster" in concrete.executor
    assert concrete._run.__name__ == "run"  # the default executor's function, no wrapper
    assert all(int(out) == 111 for out in [*outs, f(arg)])


def test_without_numba_auto_is_the_default_executor(hot_soon, monkeypatch):
    monkeypatch.setattr(tiering.importlib.util, "find_spec", lambda name: None)
    f = rt.function(workloads.collatz, jit_compile="auto")
    arg = rt.constant(27)
    concrete = f.get_concrete_function(arg)
    start, outs = _calls_until_native(f, [arg], concrete)
    assert concrete._run is start and int(outs[-1]) == 111
    assert concrete.executor == "the default executor (numba is not installed)"


def test_arguments_numba_did_not_compile_for_run_on_the_default_executor(hot_soon):
    # numba compiled the graph for C-ordered arrays; a Fortran-ordered one has the same dtype and
    # shape (the same trace) but another numba type: it runs on the default executor
    def total(x):
        s = rt.zeros_like(x[0])
        for i in rt.range(rt.shape(x)[0]):
            s = s + x[i]
        return s

    f = rt.function(total, jit_compile="auto")
    c_order = rt.constant(np.arange(6, dtype=np.int32).reshape(2, 3))
    concrete = f.get_concrete_function(c_order)
    start, _ = _calls_until_native(f, [c_order], concrete)
    assert concrete._run is not start
    fortran = rt.transpose(rt.constant(np.arange(6, dtype=np.int32).reshape(3, 2)))
    assert fortran.shape == (2, 3) and not fortran.numpy().flags.c_contiguous
    _same_bits(f(fortran), rt.function(total)(fortran))


def pick(x, i):
    return x[i] * 2.0  # the pick line


def test_a_call_that_fails_during_the_trial_still_ends_it_and_raises_as_the_default(hot_soon):
    """Found by a second reading: the trial decided only when its last call returned, so one
    that raised left the graph running both executors by turns for good; and a failure on numba
    now runs the default executor, whose error (or value) is the one every executor gives."""
    f = rt.function(pick, jit_compile="auto")
    x, good, bad = rt.constant(np.arange(4.0)), rt.constant(1), rt.constant(9)
    concrete = f.get_concrete_function(x, good)
    for _ in range(5):
        f(x, good)
    tiering.wait_for_compiles()
    for _ in range(tiering.TRIAL_CALLS - 1):
        assert float(f(x, good)) == 2.0
    for _ in range(3):  # the trial's last call, then numba's (or the default's) own
        with pytest.raises(rt.errors.InvalidArgumentError, match=r"(?s)index.*the pick line"):
            f(x, bad)
    assert "by turns" not in concrete.executor
    assert float(f(x, good)) == 2.0


@pytest.mark.parametrize("on_disk", [True, False])
def test_a_load_from_disk_still_looking_at_the_hot_call_compiles_once(hot_soon, monkeypatch,
                                                                     on_disk):
    """Found by a second reading: a fast graph reaches the hot call while the first call's load
    from disk still looks, and both compiled (two trials, the second's overwriting the first's);
    now the hot call leaves it to the load, which compiles (or loads) once."""
    looking, compiled = threading.Event(), []
    real_compile = numba_backend.compile_graph

    def slow_look(graph):
        looking.wait(30)  # until the hot call has come
        return on_disk

    def counting_compile(graph, example_values=None, fallback=None):
        compiled.append(graph)
        return real_compile(graph, example_values, fallback)

    monkeypatch.setattr(numba_backend, "compiled_on_disk", slow_look)
    monkeypatch.setattr(numba_backend, "compile_graph", counting_compile)
    f = rt.function(workloads.collatz, jit_compile="auto")
    arg = rt.constant(27)
    concrete = f.get_concrete_function(arg)
    for _ in range(5):  # the hot call (the 3rd) comes while the load looks
        f(arg)
    looking.set()
    tiering.wait_for_compiles()
    for _ in range(tiering.TRIAL_CALLS):
        assert int(f(arg)) == 111
    assert len(compiled) == 1 and concrete.executor.startswith("numba (")
