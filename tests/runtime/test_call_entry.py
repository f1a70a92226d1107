"""A function's entry (runtime/tracing/call_entry.py): after the fast path learns a signature,
calls like it run through generated code that tests the arguments; every call that differs in
a type, dtype, shape or Python value must still get what plain Python gives, and the entry must
follow what changes around it (tiering, tapes, traces of callers, switches, guards, threads)."""

from __future__ import annotations

import os
import traceback

import numpy as np
import pytest
from composition_programs import in_threads

import runtime as rt


def scaled(x, n, mode):
    y = x * n
    if mode == "neg":
        y = -y
    return y + 1


def _plain(fn, *args):
    """`fn` as plain Python on numpy values (tensors given as their numpy values)."""
    return fn(*[a.numpy() if isinstance(a, rt.Tensor) else a for a in args])


def _agree(out, expected):
    value = out.numpy() if isinstance(out, rt.Tensor) else out
    assert np.asarray(value).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(value, expected)


def _entered(f) -> bool:
    """Whether calls of `f` go through a generated entry (not yet the fast path)."""
    return f.__call__.__code__.co_filename.startswith("<rt-entry")


CALLS = [  # each row: the call that teaches the entry, then calls like it and unlike it
    (np.float32(2.0), 3, "neg"),
    (np.float32(5.0), 3, "neg"),          # same signature, another scalar value
    (np.float64(5.0), 3, "neg"),          # another numpy scalar type
    (np.float32(5.0), 4, "neg"),          # another Python int: a constant of the graph
    (np.float32(5.0), 3, "pos"),          # another string
    (np.float32(5.0), True, "neg"),       # a bool where an int was
    (np.arange(3.0), 3, "neg"),           # an array
    (np.arange(4.0), 3, "neg"),           # another shape
    (np.arange(4, dtype=np.int32), 3, "neg"),  # another dtype
    (rt.constant(np.arange(4.0)), 3, "neg"),   # a tensor
    (rt.constant(np.arange(5.0)), 3, "neg"),   # a tensor of another shape
    (rt.constant(2.5), 3, "neg"),              # a scalar tensor
    (rt.constant(np.float32(2.5)), 3, "neg"),  # of another dtype
]


@pytest.mark.parametrize("numpy_results", [False, True])
def test_calls_like_and_unlike_the_learned_signature_agree_with_plain_python(numpy_results):
    f = rt.function(scaled, numpy_results=numpy_results)
    for first in CALLS:
        for args in [first, *CALLS, first]:
            _agree(f(*args), _plain(scaled, *args))
    assert _entered(f)


def test_results_are_numpys_where_the_fast_path_gives_numpys():
    f = rt.function(scaled, numpy_results=True)
    for _ in range(3):
        assert type(f(np.float32(2.0), 3, "neg")) is np.float32
        assert type(f(np.arange(3.0), 3, "neg")) is np.ndarray
        assert isinstance(f(rt.constant(2.0), 3, "neg"), rt.Tensor)


def test_keywords_switches_and_checks_leave_the_entry():
    f = rt.function(scaled)
    f(np.float32(2.0), 3, "neg")
    assert _entered(f)
    _agree(f(np.float32(2.0), n=3, mode="neg"), np.float32(-5.0))
    rt.config.run_functions_eagerly(True)
    try:
        assert type(f(np.float32(2.0), 3, "neg")) is np.float32  # plain Python's result
    finally:
        rt.config.run_functions_eagerly(False)
    assert isinstance(f(np.float32(2.0), 3, "neg"), rt.Tensor)
    checked = rt.function(scaled, check=True)
    for _ in range(2):
        _agree(checked(np.float32(2.0), 3, "neg"), np.float32(-5.0))
    assert not _entered(checked)


def test_a_tape_and_a_callers_trace_see_a_call_through_the_entry():
    f = rt.function(lambda x: x * x + 1.0)
    x = rt.constant(3.0)
    f(x)
    assert _entered(f)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert tape.gradient(y, x).numpy() == 6.0

    @rt.function
    def caller(x):
        return f(x) * 2.0

    assert caller(x).numpy() == 20.0
    assert rt.grad(lambda v: f(v))(x).numpy() == 6.0


scale = 2.0


def by_global(x):
    return x * scale


def test_a_changed_global_is_followed_through_the_entry():
    global scale
    f = rt.function(by_global)
    x = np.float64(3.0)
    try:
        for value in (2.0, 5.0, 2.0):
            scale = value
            for _ in range(2):
                _agree(f(x), by_global(x))
    finally:
        scale = 2.0


def test_an_error_through_the_entry_shows_one_library_frame_and_the_users_line():
    @rt.function
    def checked_sqrt(x):
        assert x >= 0, "needs a non-negative x"
        return x ** 0.5

    checked_sqrt(rt.constant(4.0))
    assert _entered(checked_sqrt)
    with pytest.raises(Exception, match="needs a non-negative x") as info:
        checked_sqrt(rt.constant(-4.0))
    frames = traceback.extract_tb(info.value.__traceback__)
    library = [frame for frame in frames if frame.filename.startswith("<rt-")
               or frame.filename.startswith(os.path.dirname(rt.__file__))]
    assert [frame.name for frame in library] == ["__call__"]
    assert "assert x >= 0" in str(info.value) + "".join(getattr(info.value, "__notes__", []))


def test_the_entry_calls_the_caller_tiering_swaps_in(monkeypatch):
    pytest.importorskip("numba")
    from benchmarks import workloads
    from runtime.executor import tiering

    monkeypatch.setattr(tiering, "HOT_CALLS", 3)
    monkeypatch.setattr(tiering, "FASTER", float("inf"))
    f = rt.function(workloads.collatz, jit_compile="auto")
    n = np.int32(27)
    expected = f(n)
    concrete = f.get_concrete_function(rt.constant(n))
    for _ in range(5):
        f(n)
    tiering.wait_for_compiles()
    for _ in range(tiering.TRIAL_CALLS + 2):
        out = f(n)
    assert concrete.executor.startswith("numba (")
    assert _entered(f) and "native_entry" in f.__call__.__globals__  # it runs numba's caller
    assert out.dtype is expected.dtype and out.numpy() == expected.numpy() == 111


def test_threads_calling_two_signatures_get_their_own_results():
    f = rt.function(scaled)
    inputs = [(np.float32(2.0), 3, "neg"), (np.arange(3.0), 2, "pos")]
    expected = [_plain(scaled, *args) for args in inputs]
    failures = []

    def work(i):
        for k in range(300):
            args = inputs[(i + k) % 2]
            out = f(*args).numpy()
            if not np.array_equal(out, expected[(i + k) % 2]):
                failures.append((i, k))

    in_threads(work, 4)
    assert not failures


def test_arguments_it_does_not_test_stay_on_the_fast_path():
    f = rt.function(lambda x, s: x * s)
    for _ in range(2):
        _agree(f(np.float32(2.0), 1.5), np.float32(3.0))  # a Python float: keyed by its token
    assert not _entered(f)


def indexes(x, n):
    return x[n]


def test_an_error_of_a_call_the_entry_passes_on_shows_one_library_frame():
    f = rt.function(indexes)
    a = np.arange(3.0)
    for _ in range(2):
        f(a, 1)
    assert _entered(f)
    with pytest.raises(Exception) as info:
        f(rt.constant(np.arange(3)), 5)  # (another signature: the entry passes it on)
    frames = traceback.extract_tb(info.value.__traceback__)
    library = [frame for frame in frames if frame.filename.startswith("<rt-")
               or frame.filename.startswith(os.path.dirname(rt.__file__))]
    assert [frame.name for frame in library] == ["__call__"]


def makes_an_array(x):
    return np.array(5.0), [np.zeros(2)]


@pytest.mark.parametrize("numpy_results", [False, True])
def test_an_array_the_python_code_makes_is_new_at_every_call(numpy_results):
    """Plain Python makes a new array at every call: one the caller writes into must not
    change what later calls return."""
    f = rt.function(makes_an_array, numpy_results=numpy_results)
    for _ in range(3):
        scalar, [vector] = f(np.arange(3.0))
        np.testing.assert_array_equal(scalar, 5.0)
        np.testing.assert_array_equal(vector, [0.0, 0.0])
        scalar[...] = 1.0
        vector[0] = 7.0


TABLE = np.zeros(3)


def returns_the_table(x):
    return TABLE, x + 1.0


def test_an_outside_array_returned_as_it_is_stays_that_array():
    f = rt.function(returns_the_table)
    for _ in range(2):
        table, _ = f(np.arange(3.0))
        assert table is TABLE  # (as plain Python returns it: writing into it writes TABLE)


def test_numpy_results_with_an_input_signature_are_numpys_from_the_first_call():
    f = rt.function(lambda x: x * 2, numpy_results=True,
                    input_signature=[rt.TensorSpec([None], rt.float64)])
    a = np.arange(3.0)
    assert [type(f(a)) for _ in range(3)] == [np.ndarray] * 3
    assert isinstance(f(rt.constant(a)), rt.Tensor)


K = 2.0


@rt.function
def scaled_by_k(v):
    return v * K


def plus_one_or(v, g):
    return v + 1.0 if g == "plain" else g(v)


def test_guards_taken_from_a_callee_later_reset_the_entry():
    global K
    f = rt.function(plus_one_or)
    x = np.float64(1.0)
    for _ in range(2):
        _agree(f(x, "plain"), np.float64(2.0))
    assert _entered(f)
    try:
        _agree(f(x, scaled_by_k), np.float64(2.0))  # (its graph takes in K's guard)
        assert not _entered(f)
        K = 3.0
        for _ in range(2):
            _agree(f(x, scaled_by_k), np.float64(3.0))
            _agree(f(x, "plain"), np.float64(2.0))
    finally:
        K = 2.0
