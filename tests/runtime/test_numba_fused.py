"""numba's loop for a chain a float sum reads (`FusedReduction`, runtime/executor/
numba_fused.py), and its sum of a whole array (numba_helpers.lanes_sum_): each program run as
plain numpy, on the default executor and on numba. numba's sum is not numpy's bits (SIMD
lanes), so its results are held to numpy's accuracy class against the exact sum, and `auto`
and `rt.explain` say it differs."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import NoLoweringError
from runtime.executor import numba_exactness, numba_helpers

numba = pytest.importorskip("numba")

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile


def mse(a, b):
    return rt.reduce_mean((a - b) ** 2)


def shifted_relu_sum(a, s):  # Python numbers in the chain: steps of the array's dtype
    return rt.reduce_sum(rt.nn.relu(a * s) + 0.5)


def weighted_sigmoid(a):
    return rt.reduce_mean(rt.sigmoid(a) * a)


# (program, its terms in numpy, whether it is a mean, its arguments, whether numba fuses it: a
# maximum's rule gives numpy's signs of zeros and NaNs, so relu stays unfused on numba)
PROGRAMS = [
    (mse, lambda a, b: (a - b) ** 2, True, lambda x, y: (x, y), True),
    (shifted_relu_sum, lambda a, s: np.maximum(a * s, 0) + 0.5, False,
     lambda x, y: (x, x.dtype.type(1.5)), False),
    (weighted_sigmoid, lambda a: 1 / (1 + np.exp(-a)) * a, True, lambda x, y: (x,), True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p[0].__name__)
def test_fused_sums_agree_with_numpy_within_its_accuracy(program, dtype):
    fn, terms_of, is_mean, arguments, fused = program
    default, native = rt.function(fn), rt.function(fn, jit_compile="numba")
    eps = np.finfo(dtype).eps
    rng = np.random.default_rng(0)
    for shape in [(40000,), (250, 200), (100_003,)]:
        args = arguments(*(rng.standard_normal((2, *shape)) * 10).astype(dtype))
        expected = (np.mean if is_mean else np.sum)(terms_of(*args))
        got = native(*args)
        assert got.dtype.np_dtype == expected.dtype and got.shape == ()
        source = native.get_concrete_function(*args).generated.source
        assert ("fused_fused_" in source) == fused and "lanes_sum_" in source or fused
        assert default(*args).numpy().tobytes() == expected.tobytes()  # numpy's bits
        terms = terms_of(*(np.asarray(a, np.float64) for a in args)).reshape(-1)
        count = terms.size if is_mean else 1
        exact = float(np.sum(terms.astype(np.longdouble)) / count)
        # pairwise summation's bound (numpy's running sums add 16 terms, numba's lanes at most
        # 128), plus the rounding of the terms and of the mean
        scale = float(np.sum(np.abs(terms))) / count
        bound = (128 + np.log2(terms.size)) * eps * scale + 4 * eps * abs(exact)
        assert abs(float(got) - exact) <= bound
        assert abs(float(expected) - exact) <= bound


def sums(x):  # no chain: a sum of the whole array in SIMD lanes (numba_helpers.lanes_sum_)
    return rt.reduce_sum(x), rt.reduce_mean(x), rt.reduce_sum(x, keepdims=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_of_whole_arrays_agree_with_numpy_within_its_accuracy(dtype):
    native = rt.function(sums, jit_compile="numba")
    eps = np.finfo(dtype).eps
    rng = np.random.default_rng(5)
    for x in (rng.standard_normal(100_003), rng.standard_normal((300, 70)) * 1e3,
              rng.standard_normal(60_000)[::3], np.full(20_000, -0.0)):
        x = x.astype(dtype)
        got = native(x)
        assert "lanes_sum_" in native.get_concrete_function(x).generated.source
        exact = float(np.sum(x.astype(np.longdouble)))
        bound = (128 + np.log2(x.size)) * eps * float(np.sum(np.abs(x), dtype=np.float64))
        for value, count in ((got[0], 1), (got[1], x.size), (got[2], 1)):
            assert value.dtype.np_dtype == dtype
            assert abs(float(np.asarray(value).reshape(())) - exact / count) <= (
                bound / count + 4 * eps * abs(exact / count))
        assert got[2].shape == (1,) * x.ndim
        assert not np.signbit(got[0].numpy())  # (numpy's sum of -0.0s is 0.0 too)


def spread(x):  # one array of a length known when the graph runs: fused (fusion.py)
    return rt.reduce_mean((x - 0.5) ** 2)


def test_any_length_empty_to_many_blocks_and_views():
    native = rt.function(spread, input_signature=[rt.TensorSpec([None], rt.float32)],
                         jit_compile="numba")
    assert "FusedReduction" in [
        op.type for op in native.get_concrete_function().graph.operations]
    rng = np.random.default_rng(3)
    block = numba_helpers.SUM_BLOCK
    for n in (1, 7, block - 1, block, block + 1, 3 * block + 5, 70_001):
        a = rng.standard_normal(2 * n).astype(np.float32)
        for x in (a[:n], a[::2]):  # (a view is copied, then summed in order)
            want = np.mean((x.astype(np.float64) - 0.5) ** 2)
            np.testing.assert_allclose(float(native(x)), want, rtol=1e-5)
    empty = np.zeros(0, np.float32)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):  # (numpy's; numba's is
        assert np.isnan(np.mean(empty))  # silent, as its other float errors are)
    assert np.isnan(float(native(empty)))


def test_nans_and_infinities_propagate_as_in_numpy():
    native = rt.function(mse, jit_compile="numba")
    x = np.zeros(40000, np.float32)
    for value, check in ((np.nan, np.isnan), (np.inf, np.isposinf)):
        y = x.copy()
        y[12345] = value
        assert check(float(native(x, y))) and check(np.mean((x - y) ** 2))


def test_a_fused_sum_inside_a_graph_loop():
    def f(x, n):
        total = rt.constant(0.0)
        for i in rt.range(n):
            total += rt.reduce_sum((x - rt.cast(i, rt.float32)) ** 2)
        return total

    x = np.linspace(-1, 1, 40000, dtype=np.float32)
    native = rt.function(f, jit_compile="numba")
    want = sum(np.sum((x - np.float32(i)) ** 2) for i in range(3))
    np.testing.assert_allclose(float(native(x, np.int32(3))), want, rtol=1e-5)
    assert "fused_fused_" in native.get_concrete_function(x, np.int32(3)).generated.source


def test_gradients_through_a_fused_sum_on_numba():
    a = rt.constant(np.linspace(-1, 1, 40000, dtype=np.float32))
    b = rt.constant(np.zeros(40000, np.float32))
    grads = {}
    for jit_compile in (None, "numba"):
        f = rt.function(mse, jit_compile=jit_compile)
        with rt.GradientTape() as tape:
            tape.watch(a)
            loss = f(a, b)
        grads[jit_compile] = (float(loss), tape.gradient(loss, a).numpy())
    np.testing.assert_allclose(grads["numba"][0], grads[None][0], rtol=1e-6)
    np.testing.assert_array_equal(grads["numba"][1], grads[None][1])


def test_auto_and_explain_say_numbas_fused_sum_is_not_numpys_bits():
    x = np.ones(40000, np.float32)
    graph = rt.function(mse, jit_compile="numba").get_concrete_function(x, x).graph
    why = numba_exactness.why_not_lowered_exactly(graph)
    assert why.startswith("FusedReduction op") and "SIMD lanes" in why and "line" in why
    auto = rt.function(mse, jit_compile="auto")
    auto(x, x)
    assert "default executor" in auto.get_concrete_function(x, x).executor


def fmod_of_ints(x):
    return np.sum(np.fmod(x, 7) / 1)


def thirds_of_int16(x):
    return np.sum(x.astype(np.int16) / 3)


def remainders(x, y):
    return np.sum((x % y) / 1)


def test_chains_of_integer_steps_stay_in_their_own_rules_on_numba():
    # numba's fmod reads integers as unsigned, divides int16 in float32 and traps on
    # INT_MIN % -1: the ops' rules correct these, so such chains are not fused for numba (the
    # fused loop gave 118800.0 for -400.0, and killed the process; found by a second reading)
    rt.config.set_dtype_promotion("numpy")
    try:
        x = (np.arange(40000) % 200 - 100).astype(np.int32)
        cases = [(fmod_of_ints, (x,)), (thirds_of_int16, (x,)),
                 (remainders, (np.full(40000, np.iinfo(np.int64).min), np.full(40000, -1)))]
        for fn, args in cases:
            native = rt.function(fn, jit_compile="numba")
            # (the sum itself is in SIMD lanes: numpy's accuracy, not its bits)
            np.testing.assert_allclose(float(native(*args)), float(fn(*args)), rtol=1e-12)
            assert "fused_fused_" not in native.get_concrete_function(*args).generated.source
    finally:
        rt.config.set_dtype_promotion("strict")


def test_a_step_numba_does_not_lower_is_a_located_error():
    def f(x):
        return rt.reduce_sum(rt.heaviside(x, 0.5) * x)

    x = np.ones(40000, np.float32)
    with pytest.raises(NoLoweringError, match=r"heaviside") as info:
        rt.function(f, jit_compile="numba")(x)
    assert "test_numba_fused.py" in str(info.value)
