"""Ordinary numpy programs (tests/numpy_programs.py: RK4, an EMA filter, a Kalman filter,
Mandelbrot, histograms, a moving window, bisection, Newton, k-means) decorated unchanged with
`rt.function`: numpy on numpy values, the converted function on eager tensors and the graph
agree exactly (values, shapes, dtypes), with numpy's promotion for the operators
(`rt.config.set_dtype_promotion("numpy")`, as a numpy user expects); with unknown dims too;
`jit_compile="auto"` gives the same bits, `jit_compile="numba"` close values or a located
refusal.

The xfail(strict=True) tests are what a numpy user writes that does not work yet, each the
smallest program showing it: they turn red when it works, and must then become plain tests.
"""

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autograph
import runtime as rt
import runtime.numpy as rnp
from benchmarks import harness
from benchmarks import numpy_programs as numpy_programs_benchmark
from benchmarks.numpy_programs import numpy_programs_table
from runtime import nest
from runtime.executor import tiering
from tests import numpy_programs as P
from tests.autograph.three_way import (
    as_numpy_args,
    as_tensor_args,
    assert_agree,
    outcomes,
    same,
)

F32, F64 = np.float32, np.float64
Y0 = np.array([1.0, 0.0])
SIGNAL = P.noisy_sine(40)
POINTS, CENTERS = P.three_clusters(30)
GRID = P.mandelbrot_grid(7)


@pytest.fixture(autouse=True)
def numpy_promotion():
    """Operators on tensors promote as numpy's do (a numpy user's expectation)."""
    before = rt.config.dtype_promotion()
    rt.config.set_dtype_promotion("numpy")
    yield
    rt.config.set_dtype_promotion(before)


# Programs with arguments a numpy user would pass as Python numbers: `assert_agree` makes every
# argument a tensor (Python floats float32, ints int32), so a Python constant is bound here.
def kmeans_f32(points, centers):
    # (unrolled: numpy makes float32 centers float64 in the first round, as a graph loop
    # variable cannot change its dtype: test_a_loop_variable_that_numpy_promotes...)
    return P.kmeans(points, centers, 3)


def bisection_floats(c):
    return P.bisection(c, 0.0, 3.0, 1e-5)


def newton_floats(c):
    return P.newton(c, 2.0, 1e-12)


def histogram_bincount(x):
    return P.histogram_bincount(x, -1.0, 1.0, 6)


CASES = [
    (P.rk4, (Y0, 1.0, 0.1)),  # Python floats: float32 scalars, a float64 state
    (P.rk4, (Y0.astype(F32), F32(2.0), F32(0.25))),
    (P.rk4, (Y0, F64(1.0), F64(0.1))),
    (P.rk4, (Y0, 0.0, 0.1)),  # the loop never runs: t stays the Python float 0.0
    (P.rk4_trajectory, (Y0, 6, 0.1)),
    (P.rk4_trajectory, (Y0.astype(F32), 5, F32(0.5))),
    (P.ema, (SIGNAL, F64(0.1))),
    (P.ema, (SIGNAL.astype(F32), 0.3)),
    (P.ema, (SIGNAL.reshape(10, 4), F64(0.5))),  # four channels
    (P.kalman_filter, (np.cumsum(SIGNAL[:12]), np.zeros((2, 1)), 10.0 * np.eye(2), F64(0.1),
                       F64(0.01), F64(0.5))),
    (P.kalman_filter, (np.arange(8.0), np.array([[0.0], [1.0]]), np.eye(2), 1.0, 0.1, 2.0)),
    (P.kalman_filter_inverse, (np.stack([np.cumsum(SIGNAL[:10]), SIGNAL[10:20]], axis=1),
                               np.zeros((2, 1)), 10.0 * np.eye(2), *F64([0.1, 0.01, 0.5]))),
    (P.mandelbrot, (*GRID, 12)),
    (P.mandelbrot, (*[g.astype(F32) for g in GRID], 30)),
    (P.mandelbrot, (*GRID, 0)),
    (P.mandelbrot_complex, (GRID[0] + 1j * GRID[1], 12)),
    (P.histogram, (SIGNAL, F64(-1.0), F64(1.0), 5)),
    (P.histogram, (SIGNAL.astype(F32), -2.0, 2.0, 3)),
    (P.histogram, ((SIGNAL * 10).astype(np.int32), -10, 10, 4)),
    (P.histogram_broadcast, (SIGNAL, F64(-1.0), F64(1.0), 5)),
    (P.histogram_broadcast, (SIGNAL.astype(F32), -2.0, 2.0, 3)),
    (histogram_bincount, (SIGNAL,)),
    (P.moving_window, (SIGNAL[:15], np.hanning(5))),
    (P.moving_window, (SIGNAL[:10].astype(F32), np.array([0.25, 0.5, 0.25], F32))),
    (P.moving_window, (np.arange(9, dtype=np.int32), np.array([1, -1], np.int32))),
    (P.moving_window, (np.arange(3.0), np.arange(5.0))),  # window longer: empty
    (P.moving_window_convolve, (SIGNAL[:15], np.hanning(5))),
    (P.moving_window_convolve, (np.arange(9, dtype=np.int32), np.array([1, -1], np.int32))),
    (P.bisection, (F64(2.0), F64(0.0), F64(3.0), F64(1e-12))),
    (P.bisection, (np.array(5.0), np.array(0.0), np.array(3.0), np.array(1e-10))),  # 0-d
    (P.bisection, (2.0, 0.0, 3.0, 1e-5)),  # Python floats: float32
    (bisection_floats, (F64(5.0),)),
    (P.newton, (F64(2.0), F64(2.0), F64(1e-12))),
    (P.newton, (np.array(5.0), np.array(1.0), np.array(1e-12))),  # 0-d
    (P.newton, (2.0, 2.0, 1e-6)),  # Python floats: float32
    (newton_floats, (F64(5.0),)),
    (P.kmeans, (POINTS, CENTERS, 3)),
    (P.kmeans, (POINTS, np.array([[0.0, 0.0], [3.0, 3.0], [100.0, 100.0]]), 2)),  # an empty one
    (P.kmeans, (POINTS, CENTERS, 0)),
    (kmeans_f32, (POINTS.astype(F32), CENTERS.astype(F32))),
    (P.kmeans_norm, (POINTS, CENTERS, 3)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_programs_agree_three_ways(fn, args):
    assert_agree(fn, *args)


_SAMPLES = hnp.arrays(st.sampled_from([np.float32, np.float64]), st.integers(1, 12),
                      elements=st.floats(-8, 8, width=32))


@settings(max_examples=15)
@given(x=_SAMPLES, window=st.integers(1, 4), bins=st.integers(1, 5),
       edges=st.tuples(st.floats(-4, 0, width=32), st.floats(0.5, 4, width=32)))
def test_windows_and_histograms_of_any_samples(x, window, bins, edges):
    w = np.hanning(window + 2)[1:-1].astype(x.dtype)
    assert_agree(P.moving_window, x, w)
    assert_agree(P.moving_window_convolve, x, w)
    assert_agree(P.histogram, x, x.dtype.type(edges[0]), x.dtype.type(edges[1]), bins)


S = rt.TensorSpec
UNKNOWN_DIMS = [
    (P.rk4, [S([None], rt.float64), S([], rt.float64), S([], rt.float64)], (Y0, F64(1.0),
                                                                              F64(0.1))),
    (P.rk4_trajectory, [S([None], rt.float64), S([], rt.int32), S([], rt.float64)],
     (Y0, np.int32(7), F64(0.1))),
    (P.ema, [S([None, None], rt.float64), S([], rt.float64)], (SIGNAL.reshape(20, 2), F64(0.1))),
    (P.kalman_filter, [S([None], rt.float64), S([2, 1], rt.float64), S([2, 2], rt.float64),
                       *[S([], rt.float64)] * 3],
     (np.cumsum(SIGNAL[:10]), np.zeros((2, 1)), 10.0 * np.eye(2), *F64([0.1, 0.01, 0.5]))),
    (P.mandelbrot, [S([None, None], rt.float64)] * 2 + [S([], rt.int32)], (*GRID, np.int32(9))),
    (P.histogram, [S([None], rt.float64), S([], rt.float64), S([], rt.float64), S([], rt.int64)],
     (SIGNAL, F64(-2.0), F64(2.0), np.int64(8))),
    (P.histogram_broadcast, [S([None], rt.float64), S([], rt.float64), S([], rt.float64),
                             S([], rt.int64)], (SIGNAL, F64(-2.0), F64(2.0), np.int64(8))),
    (P.moving_window, [S([None], rt.float64), S([None], rt.float64)], (SIGNAL, np.hanning(5))),
    (P.moving_window_convolve, [S([None], rt.float64), S([None], rt.float64)],
     (SIGNAL, np.hanning(5))),
    (P.kmeans, [S([None, None], rt.float64), S([None, None], rt.float64), S([], rt.int32)],
     (POINTS, CENTERS, np.int32(3))),
]


@pytest.mark.parametrize("fn, signature, args", UNKNOWN_DIMS,
                         ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_programs_with_unknown_dims(fn, signature, args):
    graph = rt.function(fn, input_signature=signature)
    assert same(graph(*[rt.constant(a) for a in args]), fn(*args))


# The benchmark rows (benchmarks/numpy_programs.py) call the programs as a numpy user does:
# numpy values in, numpy values out (`numpy_results=True`); these are their arguments.
@pytest.mark.parametrize("name", P.PROGRAMS)
def test_numpy_programs_called_with_numpy_values(name):
    fn, args = P.PROGRAMS[name][0], P.make_args(name)
    result = rt.function(fn, numpy_results=True)(*args)
    assert same(result, fn(*args))
    assert not isinstance(result, rt.Tensor)


def doubled_items(x):
    out = []
    for v in x:
        out.append(v * 2)
    return out, len(out)


def summary_text(x):
    m = np.mean(x)
    return f"{m:.3f}", {"n": len(x), "shape": x[None, :].shape}


@pytest.mark.parametrize("fn", [doubled_items, summary_text])
def test_numpy_results_of_lists_strings_and_shapes_are_pythons(fn):
    # (a list a graph loop built kept only its first item; strings were bytes, shapes
    # TensorShapes: found by a new-user trial)
    x = np.array([1.0, 2.0, 3.0])
    result, expected = rt.function(fn, numpy_results=True)(x), fn(x)
    assert same(result, expected)
    assert [type(v) for v in nest.flatten(result)] == [type(v) for v in nest.flatten(expected)]


def test_the_programs_compute_what_numpy_does():
    x = P.noisy_sine(500)
    counts, edges = P.histogram(x, -2.0, 2.0, 8)
    inside = x[(x >= -2.0) & (x <= 2.0)]
    assert np.array_equal(counts[1:-1], np.histogram(inside, 8, (-2.0, 2.0))[0][1:-1])
    assert counts.sum() == x.size and np.allclose(edges, np.linspace(-2.0, 2.0, 9))
    assert np.array_equal(P.histogram_bincount(x, -2.0, 2.0, 8), counts)
    assert np.array_equal(P.histogram_broadcast(x, -2.0, 2.0, 8), counts)
    assert np.allclose(P.moving_window(x, np.hanning(7)), np.convolve(x, np.hanning(7), "valid"))
    root = P.bisection(F64(2.0), 0.0, 3.0, 1e-12)
    assert abs(root ** 3 - root - 2.0) < 1e-10
    assert abs(P.newton(F64(2.0), 2.0, 1e-12)[0] - root) < 1e-10
    y, t = P.rk4(Y0, 1.0, 0.01)  # the damped oscillator's exact solution at t
    w = np.sqrt(1 - 0.05 ** 2)
    exact = np.exp(-0.05 * t) * (np.cos(w * t) + 0.05 / w * np.sin(w * t))
    assert abs(y[0] - exact) < 1e-8
    centers, labels = P.kmeans(*P.three_clusters(300), 10)
    assert np.allclose(np.sort(centers[:, 0]), [0.0, 0.0, 3.0], atol=0.2)
    assert np.array_equal(labels[:6], [0, 1, 2, 0, 1, 2])
    counts = P.mandelbrot(*P.mandelbrot_grid(9), 20)
    assert counts[4, 6] == 20 and counts[0, 0] == 0  # (-0.125, 0) is in the set, (-2, -1.25) not
    re, im = P.mandelbrot_grid(9)
    assert np.array_equal(P.mandelbrot_complex(re + 1j * im, 20), counts)


def _reads_values_while_tracing(x):
    return np.array(x.tolist())


def test_the_benchmark_rows_time_each_program_or_show_its_error(monkeypatch):
    monkeypatch.setitem(P.PROGRAMS, "tolist", (_reads_values_while_tracing, lambda: (Y0,)))
    tiny = harness.Budget(seconds=0.005, round_seconds=0.0005, min_rounds=3)
    table = numpy_programs_table(tiny, ["histogram_bincount", "tolist"]).splitlines()
    assert table[0].startswith("| program | numpy us | graph us | graph np us | numba us | "
                               "auto us | njit us | jax.jit us | graph/numpy | graph np/numpy | "
                               "numba/numpy | auto/numpy |")
    bincount = table[2].split(" | ")
    assert bincount[0] == "| histogram_bincount" and "-" not in bincount[1:4]  # numpy, graphs
    tolist = table[3].split(" | ")
    assert tolist[0] == "| tolist" and tolist[2:6] == ["-"] * 4  # graphs, numba, auto
    assert any(line.startswith("tolist graph: OperatorNotAllowedInGraphError: tolist() of a "
                               "graph tensor") for line in table)
    assert rt.config.dtype_promotion() == "numpy"  # (this test's; the table restores it)


def _python_loop(x):
    total = x[0]
    for v in x:
        total = total + v * v
    return total


def _cubes(x):
    total = x[0]
    for v in x:
        total = total + v ** 3
    return total


def _tensor_if(x):
    if x[0] > 0:
        return x
    return -x


def test_the_peer_columns_compile_the_same_source_or_say_why_not(monkeypatch):
    pytest.importorskip("numba")
    jax = pytest.importorskip("jax")
    monkeypatch.setitem(P.PROGRAMS, "loop", (_python_loop, lambda: (np.arange(5.0),)))
    monkeypatch.setitem(P.PROGRAMS, "if", (_tensor_if, lambda: (np.arange(5.0),)))
    monkeypatch.setitem(P.PROGRAMS, "cubes", (_cubes, lambda: (np.arange(5.0),)))
    monkeypatch.setattr(numpy_programs_benchmark, "JAX_UNROLLED_LIMIT", 8)
    tiny = harness.Budget(seconds=0.005, round_seconds=0.0005, min_rounds=3)
    x64 = jax.config.jax_enable_x64
    table = numpy_programs_table(tiny, ["loop", "if", "cubes"]).splitlines()
    assert jax.config.jax_enable_x64 == x64  # (restored)
    loop, branch = table[2].split(" | "), table[3].split(" | ")
    assert "-" not in loop[1:7] and loop[7] == "-"  # njit timed; JAX would unroll 5 iterations
    assert any(line.startswith("loop jax.jit: its Python loops unroll into") for line in table)
    assert branch[6] != "-" and branch[7] == "-"  # a tensor `if` is Python's `if` under jax.jit
    assert any(line.startswith("if jax.jit: TracerBoolConversionError") for line in table)
    # `**` in the source: njit also timed with numpy's power (not for the programs without it)
    assert [line.split(":")[0] for line in table if "njit np.power" in line] == [
        "cubes njit np.power"]


# ---- executors -----------------------------------------------------------------------------



def _first_case_of_each_program():
    first = {}
    for fn, args in CASES:
        first.setdefault(fn, args)
    return list(first.items())


NATIVE = _first_case_of_each_program()


@pytest.mark.no_round_trip  # (saving is the same whatever the executor)
@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
@pytest.mark.parametrize("fn, args", NATIVE, ids=lambda v: getattr(v, "__name__", ""))
def test_numba_computes_the_programs_or_refuses_at_the_users_line(fn, args):
    """numba's values are numpy's within float tolerance (its math functions, matmul and float
    sums may differ in the last bits), or it refuses an op it does not lower, naming the op
    and the program's line."""
    expected = fn(*as_numpy_args(args))
    try:
        result = rt.function(fn, jit_compile="numba")(*as_tensor_args(args))
    except rt.errors.NoLoweringError as error:
        assert "jit_compile='numba'" in str(error) and "numpy_programs.py" in str(error)
        return
    for value, wanted in zip(result if isinstance(result, tuple) else [result],
                             expected if isinstance(expected, tuple) else [expected]):
        value, numpy_value = np.asarray(value), np.asarray(wanted)
        assert value.shape == numpy_value.shape
        assert value.dtype == numpy_value.dtype or type(wanted) in (int, float)  # (weak)
        assert np.allclose(value, numpy_value, rtol=1e-12 if value.dtype == F64 else 1e-5)


@pytest.mark.no_round_trip
@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
def test_auto_gives_the_same_bits_and_moves_what_numba_computes_exactly(monkeypatch):
    """jit_compile="auto" never changes a result: a hot program whose graph numba computes bit
    for bit moves to numba (Mandelbrot), the others stay on the default executor."""
    monkeypatch.setattr(tiering, "HOT_CALLS", 3)
    monkeypatch.setattr(tiering, "FASTER", float("inf"))  # (whatever numba's call costs)
    moved = set()
    for fn, args in NATIVE:
        expected, tensors = fn(*as_numpy_args(args)), as_tensor_args(args)
        f = rt.function(fn, jit_compile="auto")
        concrete = f.get_concrete_function(*tensors)
        start = concrete._run
        results = [f(*tensors) for _ in range(5)]
        tiering.wait_for_compiles()
        results.append(f(*tensors))
        assert all(same(r, expected) for r in results), fn.__name__
        if concrete._run is not start:
            moved.add(fn.__name__)
    assert "mandelbrot" in moved and "kmeans" not in moved  # (float sums stay)


# ---- what a numpy user writes that does not work yet (the smallest program each) -----------


def accumulate_into_zeros(x):
    total = np.zeros(x.shape[1])  # numpy computes this while tracing: an ndarray
    for row in x:
        total = total + row
    return total


def test_a_loop_accumulating_into_np_zeros():
    assert_agree(accumulate_into_zeros, SIGNAL.reshape(10, 4))


def add_in_place(x):
    counts = np.zeros(x.shape, dtype=np.int64)
    counts += x > 0
    return counts


@pytest.mark.xfail(strict=True, reason="`ndarray += graph tensor` raises 'numpy.add(..., "
                   "out=...): tensors are immutable', naming an `out` the user never wrote")
def test_augmented_assignment_into_an_ndarray():
    assert_agree(add_in_place, SIGNAL)


def assign_an_element(x):
    out = np.zeros(3)
    out[1] = x[0]
    return out


@pytest.mark.xfail(strict=True, reason="`ndarray[i] = graph tensor` raises numpy's 'setting "
                   "an array element with a sequence.', without the user's line or a fix")
def test_assigning_a_tensor_into_an_ndarray_is_a_located_error():
    with pytest.raises(Exception) as info:
        rt.function(assign_an_element)(rt.constant(SIGNAL))
    assert "test_numpy_programs.py" in str(info.value) and "out[1] = x[0]" in str(info.value)


def matrix_times_vector(a, v):
    return a @ v, v @ a


def test_the_matmul_operator_with_a_vector():
    assert_agree(matrix_times_vector, np.eye(2) * 3, np.array([1.0, 2.0]))


def stack_a_loop_list(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.stack(rows)


def test_np_stack_of_a_list_built_in_a_graph_loop():
    assert_agree(stack_a_loop_list, SIGNAL[:3], 4)


def array_of_mixed_dtypes(a, b):
    return np.array([a, b])


def test_np_array_of_tensors_of_different_dtypes():
    assert_agree(array_of_mixed_dtypes, SIGNAL[:3].astype(F32), SIGNAL[3:6])


def halve_an_interval(c):
    lo, hi = 0.0, 3.0
    n = 0
    while n < 40:
        mid = (lo + hi) / 2
        if mid * mid > c:
            hi = mid
        else:
            lo = mid
        n += 1
    return lo


def third_or_half(c):
    if c > 0:
        y = 1 / 3
    else:
        y = 0.5
    return y, y * c


@pytest.mark.parametrize("fn", [third_or_half, halve_an_interval], ids=lambda f: f.__name__)
def test_python_floats_joined_by_graph_control_flow_keep_pythons_precision(fn):
    assert_agree(fn, F64(2.0))


def complex_literal(x):
    return x + 1j * x


def test_a_complex_literal():
    assert_agree(complex_literal, SIGNAL[:4])


@pytest.mark.xfail(strict=True, reason="np.array of a graph-loop list that ends empty fails "
                   "when the graph runs: 'stack needs at least one tensor; the list is empty' "
                   "(numpy gives an empty float64 array)")
def test_np_array_of_an_empty_loop_list():
    assert_agree(P.rk4_trajectory, Y0, 0, 0.1)


def test_a_loop_variable_that_numpy_promotes_is_a_located_error():
    """numpy turns an int32 `level` into float64 in the first step; a graph loop variable
    keeps one dtype, so the graph refuses at the loop (`.astype(np.float64)` before it is
    the fix)."""
    python, converted, graph = outcomes(P.ema, (SIGNAL * 10).astype(np.int32), 0.5)
    assert python.dtype == F64 and same(converted, python)
    assert isinstance(graph, TypeError) and "loop variable 'level' is int32 before the loop but " \
        "float64 after an iteration" in str(graph) and "for s in signal" in str(graph)


def running_mean(xs):
    m = 0.0
    for x in xs:
        m = m + (x - m) / 2
    return m, m / len(xs)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_, np.float32])
def test_a_python_float_carried_by_a_loop_over_an_integer_array(dtype):
    """`m = 0.0` is a weak float in the graph loop: next to an integer tensor it becomes what
    a Python float there gives (float64 with numpy's promotion; it became float32, and the
    loop then refused `m` turning float64 in its second trace)."""
    python, _, graph = outcomes(running_mean, np.arange(6).astype(dtype))
    assert python[0].dtype == (F32 if dtype is np.float32 else F64)
    assert_agree(running_mean, np.arange(6).astype(dtype))


def test_the_unsupported_function_error_names_numpys_function():
    assert "rt.numpy_function(np.linalg.pinv," in str(rnp.dispatch.unsupported(np.linalg.pinv))


def pseudo_inverse(a):
    return np.linalg.pinv(a)


def test_numpy_runs_on_the_values_when_no_graph_is_traced():
    """The converted function on eager tensors computes a numpy function that has no rt
    version with numpy (numpy.linalg.pinv: a graph refuses it, naming it)."""
    x = rt.constant(np.eye(2) * 2)
    assert same(np.asarray(autograph.to_graph(pseudo_inverse)(x)), np.eye(2) / 2)
    with pytest.raises(TypeError, match="numpy.linalg.pinv is not supported on tensors"):
        rt.function(pseudo_inverse)(x)
