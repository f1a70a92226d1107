"""rt.function and rt.Variable used from many threads at once (web servers, data loaders).

Threads start together at a barrier; every result is checked against numpy. The save -> load
round trip of conftest.py is off here: its bookkeeping is per call, not per thread, and the
stress test saves (and loads) the function itself.
"""

from __future__ import annotations

import logging
import random
import sys
import threading
import time

import numpy as np
import pytest

import runtime as rt

pytestmark = pytest.mark.no_round_trip

THREADS = 8


def run_threads(work, threads=THREADS):
    """Runs `work(index)` on `threads` threads started together; returns their errors."""
    barrier = threading.Barrier(threads)
    errors = []

    def target(index):
        try:
            barrier.wait()
            work(index)
        except Exception as error:  # noqa: BLE001 - every failure is reported by the test
            errors.append(error)

    workers = [threading.Thread(target=target, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return errors


@pytest.fixture
def short_switch_interval():
    """Threads switch every few microseconds instead of every 5 ms, so races show up."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(saved)


# ---- one function, mixed signatures, tracing, saving and introspection at once ---------------

DTYPES = [np.float32, np.float64, np.int32, np.int64]
SHAPES = [(), (3,), (4,), (5,), (2, 3)]


def _expected(x, n, offset, mode):
    scaled = x * n if mode == "mul" else x + n
    return (scaled + offset).astype(x.dtype)


def _check(result, x, n, offset, mode):
    expected = _expected(x, n, offset, mode)
    actual = result.numpy()
    if result.dtype.np_dtype != x.dtype or not np.array_equal(actual, expected):
        raise AssertionError(
            f"f({x!r}, {n}, {offset}, {mode!r}) gave {actual!r} ({result.dtype.name}), "
            f"expected {expected!r}")


def test_mixed_signatures_from_many_threads(tmp_path, short_switch_interval, caplog):
    @rt.function
    def f(x, n, offset=1, mode="mul"):
        if mode == "mul":
            y = x * n
        else:
            y = x + n
        return y + offset

    caplog.set_level(logging.ERROR, "runtime.function")  # retracing warnings are expected here

    # 80 signatures; shapes (3,), (4,), (5,) of one dtype make a relaxed retrace (x: [?]).
    calls = [(dtype, shape, n, mode) for dtype in DTYPES for shape in SHAPES
             for n in (2, 3) for mode in ("mul", "add")]
    rng = random.Random(0)
    per_thread = [rng.sample(calls, len(calls)) + rng.sample(calls, len(calls))
                  for _ in range(THREADS)]
    counts, saves = [0] * THREADS, [0] * THREADS

    def work(index):
        for i, (dtype, shape, n, mode) in enumerate(per_thread[index]):
            x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
            if i % 3 == 0:  # keywords: the general path
                result = f(rt.constant(x), n, mode=mode, offset=1)
            else:  # positional tensors and Python scalars: the fast path
                result = f(rt.constant(x), n, 1, mode)
            _check(result, x, n, 1, mode)
            counts[index] += 1
            if i % 16 == 0:  # introspect and save while the other threads trace
                assert "Args:" in f.pretty_printed_concrete_signatures()
                concrete = f.get_concrete_function(rt.TensorSpec(shape, dtype), n, 1, mode)
                _check(concrete(rt.constant(x)), x, n, 1, mode)
                counts[index] += 1
            if i % 40 == 0:
                rt.saved.save(f, tmp_path / f"saved-{index}-{i}")
                saves[index] += 1

    assert run_threads(work) == []
    assert counts == [170] * THREADS and saves == [4] * THREADS
    # Every trace has a key of its own (no signature was traced twice).
    assert len(f.concrete_functions()) == f.experimental_get_tracing_count() <= len(calls)
    # The file saved last holds every signature: it computes what the function computes.
    rt.saved.save(f, tmp_path / "final")
    loaded = rt.saved.load(tmp_path / "final")
    for dtype, shape, n, mode in calls:
        x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
        _check(loaded(rt.constant(x), n, 1, mode), x, n, 1, mode)


def test_each_signature_is_traced_once():
    traced = []

    @rt.function(reduce_retracing=False)
    def f(x):
        traced.append(x.shape)
        time.sleep(0.02)  # a slow trace: the other threads ask for it meanwhile
        return x * 2

    shapes = [(1,), (2,), (3,)]

    def work(index):
        for shape in shapes[index % 3:] + shapes[:index % 3]:
            x = np.ones(shape, np.float32)
            assert np.array_equal(f(rt.constant(x)).numpy(), x * 2)

    assert run_threads(work) == []
    assert len(traced) == len(shapes) == f.experimental_get_tracing_count()


def test_cached_signatures_do_not_wait_for_a_trace(tmp_path):
    started, release = threading.Event(), threading.Event()

    @rt.function
    def f(x):
        if len(x.shape) == 2:
            started.set()
            release.wait(10)  # a trace that takes as long as the test wants
        return x + 1

    one = rt.constant(np.float32(1))
    f(one)
    tracing = threading.Thread(target=f, args=(rt.constant(np.ones((2, 2), np.float32)),))
    tracing.start()
    try:
        assert started.wait(10)
        assert f(one).numpy() == 2  # the fast path
        assert f(x=one).numpy() == 2  # the general path
        assert f.get_concrete_function(one)(one).numpy() == 2
        assert "shape=()" in f.pretty_printed_concrete_signatures()
        rt.saved.save(f, tmp_path)
        assert tracing.is_alive()  # none of the above waited for the trace
    finally:
        release.set()
        tracing.join()
    assert f.experimental_get_tracing_count() == 2


# ---- variables ---------------------------------------------------------------------------------

class Model:
    def __init__(self):
        self.w = None

    @rt.function
    def apply(self, x):
        if self.w is None:
            time.sleep(0.02)  # the other threads trace meanwhile
            self.w = rt.Variable(3.0)
        return x * self.w


def test_lazy_variable_first_traced_from_many_threads():
    models = [Model(), Model()]  # 4 threads each, each thread with a signature of its own
    shapes = [(), (2,), (2, 2), (3, 1)]
    methods = [None] * THREADS

    def work(index):
        model, x = models[index % 2], np.full(shapes[index // 2], index, np.float32)
        methods[index] = model.apply
        assert np.array_equal(methods[index](rt.constant(x)).numpy(), x * 3)

    assert run_threads(work) == []
    for i, model in enumerate(models):
        assert all(m is model.apply for m in methods[i::2])  # one rt.function per instance
        assert model.apply.experimental_get_tracing_count() == len(shapes)
        # One variable, and every traced graph uses it.
        used = {id(v) for c in model.apply.concrete_functions() for v in c.graph.variables.values()}
        assert used == {id(model.w)}
    models[0].w.assign(4.0)
    assert models[0].apply(rt.constant(np.float32(2))).numpy() == 8
    assert models[1].apply(rt.constant(np.float32(2))).numpy() == 6


def test_assign_add_from_many_threads_loses_no_update(short_switch_interval):
    v = rt.Variable(0.0, dtype=rt.float64)
    total = rt.Variable(np.zeros(3), dtype=rt.float64)

    @rt.function
    def step(delta, deltas):
        v.assign_add(delta)
        total.assign_sub(-deltas)

    # Per repeat, v gets +1 -2 +1 eagerly and +1 or +2 in a graph: 1.5 on average; total gets
    # +1 eagerly and +1 or +2 in a graph: 2.5 on average.
    repeats = 400

    def work(index):
        for i in range(repeats):
            v.assign_add(1.0)
            v.assign_sub(2.0)
            v.assign_add(1.0)
            total.assign_add(np.ones(3))
            step(rt.constant(float(i % 2 + 1), rt.float64), rt.constant(np.full(3, i % 2 + 1.0)))

    assert run_threads(work) == []
    assert v.numpy() == THREADS * repeats * 1.5
    assert np.array_equal(total.numpy(), np.full(3, THREADS * repeats * 2.5))
