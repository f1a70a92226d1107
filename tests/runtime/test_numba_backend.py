"""jit_compile="numba": graphs compiled by numba give the default executor's results, bit for
bit (dtype and Python type of scalars included); ops without a lowering are located errors."""

import logging

import numpy as np
import pytest

import runtime as rt
from benchmarks import workloads
from runtime import config
from runtime.executor import numba_exactness, numba_reductions
from runtime.ops.registry import NUMBA, REGISTRY, apply
from tests.runtime.numba_agreement import agree, both, same

numba = pytest.importorskip("numba")

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile


def test_control_flow_workloads():
    assert float(both(workloads.newton_sqrt, rt.constant(np.float32(1e6)))) == 1000.0
    assert int(both(workloads.collatz, rt.constant(27))) == 111
    assert int(both(workloads.sum_squares, rt.constant(1000))) == 332833500
    both(workloads.sum_squares, rt.constant(0))  # a loop that never runs


def _samples(dtype, shape):
    rng = np.random.default_rng(7)
    if dtype.is_bool:
        return rng.random(shape) > 0.5
    if dtype.is_integer:
        return rng.integers(1, 9, shape).astype(dtype.np_dtype)
    if dtype.is_complex:
        return (rng.random(shape) * 2 + 0.5 - 1j * rng.random(shape)).astype(dtype.np_dtype)
    return (rng.random(shape) * 2 + 0.5).astype(dtype.np_dtype)


# elementwise ops and reductions (array ops: test_array_workloads_agree_within_the_stated_bits)
LOWERED = sorted(name for name, op in REGISTRY.items() if op.rule(NUMBA) is not None and (
    "elementwise" in op.groups or "reduction" in op.groups))


@pytest.mark.parametrize("name", LOWERED)
def test_every_lowered_op_matches_the_default_executor(name):
    opdef = REGISTRY[name]
    cases = 0
    complex_ = [d for d in (rt.complex64, rt.complex128)
                if opdef.elementwise and d in opdef.elementwise.accepts]
    for dtype in (rt.float32, rt.float64, rt.int32, rt.int64, rt.bool, *complex_):
        for shape in ((), (4,)):
            ufunc = opdef.elementwise and opdef.elementwise.ufunc
            arity = getattr(getattr(np, ufunc) if ufunc else opdef.kernel, "nin", None) or {
                "Select": 3, "ClipByValue": 3}.get(name, 1)
            if name in ("Add", "Cast", "Sum", "Mean", "Max", "Min", "Prod", "Any", "All",
                        "ArgMax", "ArgMin", "Identity", "StopGradient"):
                arity = 1 if name != "Add" else 2
            values = [rt.constant(_samples(dtype, shape)) for _ in range(arity)]
            if name == "Select":
                values[0] = rt.constant(_samples(rt.bool, shape))
            attrs = {"Cast": {"dtype": rt.float64 if dtype is not rt.float64 else rt.int32},
                     "ZerosLike": {"dtype": rt.float32}, "OnesLike": {"dtype": rt.int32},
                     "ArgMax": {"axis": 0, "output_type": rt.int32},
                     "ArgMin": {"axis": 0, "output_type": rt.int64},
                     **{r: {"axis": None, "keepdims": False}
                        for r in ("Sum", "Mean", "Max", "Min", "Prod", "Any", "All")}}.get(name, {})

            def fn(*xs, attrs=attrs):
                return apply(opdef, list(xs), attrs)

            try:
                with np.errstate(all="ignore"):
                    want = rt.function(fn, autograph=False)(*values)
            except (TypeError, ValueError):
                continue  # a dtype the op does not take
            try:
                with np.errstate(all="ignore"):
                    got = rt.function(fn, autograph=False, jit_compile="numba")(*values)
            except rt.errors.NoLoweringError as e:  # complex * and /: they round otherwise;
                assert (dtype.is_complex and "complex" in str(e)) or (  # numpy refuses what
                    name == "Pow" and "integer Pow" in str(e))  # numba's int power would give
                continue
            inexact = not numba_exactness.exact(opdef) or (
                opdef in numba_reductions.FLOAT_SUMS and dtype.is_floating)
            same(want, got, ulps=4 if inexact else 0)
            cases += 1
    assert cases


def test_an_op_without_a_lowering_is_a_located_error():
    def f(x):
        return rt.linspace(x, 2.0, 5)  # the linspace line

    with pytest.raises(rt.errors.NoLoweringError, match=r"LinSpace(.|\n)*the linspace line"):
        rt.function(f, jit_compile="numba")(rt.constant(1.0))


@pytest.mark.parametrize("key", ["W2", "W3a", "W3b", "W12"])
def test_array_workloads_agree_within_the_stated_bits(key):
    """Matmul (numba's BLAS) and float means (added in float64) may differ in the last bits;
    splits, concatenation, reshapes, transposes and zeros are exact."""
    workload = workloads.by_key([key])[0]
    args = [rt.constant(a) if isinstance(a, (np.ndarray, np.generic)) else a
            for a in workload.make_args(True)]
    default = rt.function(workload.fn)(*args)
    native = rt.function(workload.fn, jit_compile="numba")(*args)
    for a, b in zip(default if isinstance(default, tuple) else (default,),
                    native if isinstance(native, tuple) else (native,)):
        assert a.dtype is b.dtype and type(a.numpy()) is type(b.numpy())
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)


def integer_matmuls(a, b, c):
    return rt.matmul(a, b), rt.matmul(c, rt.transpose(c)), rt.matmul(a[:, :2], b[:2, :])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.int8])
def test_integer_matmul_is_exact_and_wraps_as_numpys(dtype):
    """An integer matmul is a loop adding up in int64 (numba_rules.HELPERS), cast to the dtype:
    numpy's products and sums wrap in the dtype, and wrapping once at the end gives its bits."""
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (3, 4), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (4, 5), dtype=dtype, endpoint=True)
    c = rng.integers(info.min, info.max, (2, 6), dtype=dtype, endpoint=True)
    agree(integer_matmuls, rt.constant(a), rt.constant(b), rt.constant(c))
    graph = rt.function(integer_matmuls).get_concrete_function(
        rt.constant(a), rt.constant(b), rt.constant(c)).graph
    assert numba_exactness.lowers_exactly(graph)  # so "auto" may move it


def test_an_integer_matmul_of_inner_dims_that_differ_is_a_located_error():
    spec = [rt.TensorSpec([None, None], rt.int32)] * 2

    def fn(a, b):
        return rt.matmul(a, b)  # the matmul line

    native = rt.function(fn, jit_compile="numba", input_signature=spec)
    assert np.array_equal(native(rt.constant(np.ones((2, 3), np.int32)),
                                 rt.constant(np.ones((3, 1), np.int32))).numpy(), [[3], [3]])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"(?s)MatMul.*the matmul line"):
        native(rt.constant(np.ones((2, 3), np.int32)), rt.constant(np.ones((2, 2), np.int32)))


def counts(x, w):
    return rt.bincount(x), rt.bincount(x, minlength=9), rt.bincount(x, w), rt.bincount(
        x, w, minlength=2)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
def test_bincount_is_exact(dtype):
    """A loop, as numpy's: counts, and weights added in order in float64."""
    rng = np.random.default_rng(6)
    x = rng.integers(0, 2 if dtype is np.bool_ else 7, 40).astype(dtype)
    w = (rng.standard_normal(40) * 1e8).astype(np.float32)
    agree(counts, rt.constant(x), rt.constant(w))
    agree(counts, rt.constant(x[:0]), rt.constant(w[:0]))  # no values: minlength bins


def test_bincount_of_a_negative_value_is_a_located_error():
    def fn(x):
        return rt.bincount(x)  # the bincount line

    native = rt.function(fn, jit_compile="numba")
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"(?s)negative.*the bincount line"):
        native(rt.constant(np.int32([1, -2, 3])))


def test_shapes_and_layout_ops_are_exact():
    def fn(x, y):
        parts = rt.split(x, [1, 2], axis=1)
        joined = rt.concat([parts[1], parts[0] * 2.0], 1)
        flipped = rt.transpose(rt.reshape(joined, [3, 2]))
        return flipped + y, rt.zeros_like(y) + 1.0

    x = rt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = rt.constant(np.float32([[0.5], [1.5]]))
    for a, b in zip(rt.function(fn)(x, y), rt.function(fn, jit_compile="numba")(x, y)):
        same(a, b)


def test_stacks_are_exact():
    def fn(x, y, a, b, n):
        return rt.stack([x, y], 1), rt.stack([a, b * 2.0, a]), rt.stack([n, n + 1]), rt.stack(
            [a > b, a < b])

    x, y = (rt.constant(np.arange(3, dtype=np.float32) + k) for k in (0, 5))
    a, b = rt.constant(np.float32(1.5)), rt.constant(np.float32(-2.0))
    n = rt.constant(np.int32(7))
    for want, got in zip(rt.function(fn)(x, y, a, b, n),
                         rt.function(fn, jit_compile="numba")(x, y, a, b, n)):
        same(want, got)


def test_jit_compile_names_a_known_executor():
    with pytest.raises(ValueError, match="jit_compile must be one of"):
        rt.function(workloads.newton_sqrt, jit_compile="llvm")


def test_without_numba_the_error_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    with pytest.raises(ImportError, match=r"tracegraph\[numba\]"):
        rt.function(workloads.newton_sqrt, jit_compile="numba")(rt.constant(np.float32(4.0)))


def test_basic_indexing_is_exact_and_bounds_checked():
    def fn(x, i, j):
        return (x[1], x[-1, 1:], x[:, ::-1], x[i], x[i, j], x[0:i], x[..., None], x[None, 1],
                x[1, 2] * 2.0)

    x = rt.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    i, j = rt.constant(np.int32(2)), rt.constant(np.int64(-1))
    native = rt.function(fn, jit_compile="numba")
    for want, got in zip(rt.function(fn)(x, i, j), native(x, i, j)):
        same(want, got)
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds") as info:
        native(x, rt.constant(np.int32(3)), j)  # past the end: an error, as numpy's
    assert "test_numba_backend.py" in str(info.value)
    with pytest.raises(rt.errors.NoLoweringError, match="integer array"):
        rt.function(lambda x, k: x[k], jit_compile="numba")(x, rt.constant([0, 2]))


def test_gather_is_exact_and_bounds_checked():
    def fn(x, i, j, k):
        return (rt.gather(x, i), rt.gather(x, i, axis=1), rt.gather(x, j, axis=-1),
                rt.gather(x, k, axis=2), rt.gather(x[0, 0], k), rt.gather(x, k),
                rt.gather(x, rt.constant(np.zeros(0, np.int32)), axis=1) + 1.0)

    x = rt.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    i = rt.constant(np.int32([1, 0, -2]))  # -2: counted from the end, as numpy's
    j = rt.constant(np.int64([[3, -1, 0], [2, 2, 1]]))
    k = rt.constant(np.int64(-1))
    agree(fn, x, i, j, k)
    native = rt.function(fn, jit_compile="numba")
    for bad in ([0, 4, 1], [0, -5, 1]):  # past either end of axis 1 (size 3) ...
        with pytest.raises(rt.errors.InvalidArgumentError, match="GatherV2.*out of bounds") as e:
            native(x, rt.constant(np.int32(bad)), j, k)  # ... the first gather's is 2
        assert "test_numba_backend.py" in str(e.value)
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds"):
        native(x, i, rt.constant(np.int64([[4, 0, 0], [0, 0, 0]])), k)  # axis 2: size 4
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds"):
        native(x, i, j, rt.constant(np.int64(2)))  # a scalar index


def test_shape_ops_are_exact():
    def fn(x, v, n):
        parts = rt.unstack(x, axis=1)
        return (rt.expand_dims(x, 0), rt.expand_dims(x, -1), rt.expand_dims(x, 1),
                rt.expand_dims(v, 0), rt.squeeze(rt.expand_dims(x, 1)),
                rt.squeeze(rt.reshape(x, [1, 2, 1, 3]), [0, -2]), rt.squeeze(rt.reshape(v, [1, 1])),
                rt.shape(x), rt.shape(v, rt.int64), rt.size(x), rt.rank(x), rt.rank(v),
                rt.broadcast_to(x[0], [4, 3]), rt.broadcast_to(v, [2, 2]), rt.broadcast_to(v, []),
                rt.tile(x, [2, 3]), rt.tile(x[0], [2]), rt.tile(rt.expand_dims(x, 0), [2, 1, 1]),
                *parts, *rt.unstack(x[0]), *rt.unstack(x, axis=0),
                rt.fill(rt.shape(x), v), rt.fill(rt.stack([n, n + 1]), n), rt.ones_like(x),
                rt.ones_like(v, rt.int32), rt.ones_like(n), rt.zeros(rt.shape(x), rt.bool))

    x = rt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    v, n = rt.constant(np.float32(2.5)), rt.constant(np.int32(2))
    agree(fn, x, v, n)
    with pytest.raises(rt.errors.InvalidArgumentError, match="Fill.*negative"):
        rt.function(fn, jit_compile="numba")(x, v, rt.constant(np.int32(-3)))


def test_softmax_is_within_a_few_ulp_and_not_exact():
    def fn(x, y, z):
        return (rt.softmax(x), rt.softmax(x, 0), rt.softmax(y), rt.softmax(z, 1),
                rt.softmax(z[0, 0, 0]))

    rng = np.random.default_rng(5)
    x = rt.constant((rng.normal(size=(4, 6)) * 3).astype(np.float32))
    y = rt.constant(np.float64([1.0, -np.inf, 3.0, 700.0]))
    z = rt.constant(rng.normal(size=(2, 3, 4)))
    agree(fn, x, y, z, ulps=8)
    graph = rt.function(fn).get_concrete_function(x, y, z).graph
    assert not numba_exactness.lowers_exactly(graph)


def test_which_graphs_lower_exactly():
    def exact(x, i):
        return (rt.gather(x, i), rt.argmax(x, 1), rt.reduce_prod(x, 0),
                rt.reduce_max(rt.cast(x, rt.int32), 1), rt.maximum(x, 0.0))

    def float_extremum(x, i):
        return rt.reduce_max(x, 1)  # of 0.0 and -0.0, numpy may give either

    def summed(x, i):
        return rt.reduce_sum(x, 1)

    def whole_numbers(x, i):
        return rt.reduce_mean(rt.cast(x, rt.int32), 0)

    x, i = rt.constant(np.ones((2, 3), np.float32)), rt.constant([1, 0])
    for fn, expected in ((exact, True), (summed, False), (whole_numbers, True),
                         (float_extremum, False)):
        graph = rt.function(fn).get_concrete_function(x, i).graph
        assert numba_exactness.lowers_exactly(graph) is expected, fn.__name__


def _scalar_power(x, y):
    return x ** y, (x + 1.0) ** 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_power_of_float_scalars_is_exact_and_of_arrays_is_not(dtype):
    rng = np.random.default_rng(0)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, -2.5]
    xs = [*(rng.standard_normal(40) * 10), *special]
    ys = [*(rng.standard_normal(20) * 4), *rng.integers(-4, 5, 20), *special]
    native, default = (rt.function(_scalar_power, jit_compile="numba"),
                       rt.function(_scalar_power))
    with np.errstate(all="ignore"):
        for x, y in zip(xs, ys):
            got, want = native(dtype(x), dtype(y)), default(dtype(x), dtype(y))
            for g, w in zip(got, want):
                assert g.numpy().tobytes() == w.numpy().tobytes(), (x, y)
    scalars = native.get_concrete_function(dtype(1), dtype(2)).graph
    arrays = rt.function(_scalar_power).get_concrete_function(
        rt.constant(np.ones(3, dtype)), rt.constant(np.ones(3, dtype))).graph
    assert numba_exactness.lowers_exactly(scalars) and not numba_exactness.lowers_exactly(arrays)


def test_ranges_are_exact():
    """numpy's arange, item for item: start, start + delta, then start + i * (the second item -
    start) in the dtype (numba's own np.arange would add in float64)."""
    def fn(start, limit, delta, n):
        return (rt.range(start, limit, delta), rt.range(limit, start, -delta), rt.range(n),
                rt.range(n, 2 * n + 3, 2), rt.range(rt.cast(n, rt.float64), 0.0, -0.7),
                rt.range(start, start, delta), rt.range(2, 9, 3))

    args = [rt.constant(np.float32(v)) for v in (0.1, 3.3, 0.3)] + [rt.constant(np.int32(5))]
    agree(fn, *args)
    native = rt.function(fn, jit_compile="numba")
    for delta in (0.0, np.nan):
        with pytest.raises(rt.errors.InvalidArgumentError, match="Range"):
            native(args[0], args[1], rt.constant(np.float32(delta)), args[3])


def test_shapes_held_in_tensors():
    def fn(x, shape, multiples, new_shape):
        return (rt.broadcast_to(x, shape), rt.broadcast_to(x[0, 0], shape), rt.tile(x, multiples),
                rt.reshape(x, new_shape), rt.where(x > 2.0), rt.where(x > 9.0))

    x = rt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    good = [np.int32([4, 2, 3]), np.int64([2, 1]), np.int32([3, -1])]
    agree(fn, x, *map(rt.constant, good))
    agree(fn, x, *map(rt.constant, [np.int32([1, 2, 3]), np.int64([0, 2]), np.int32([-1, 1])]))
    native = rt.function(fn, jit_compile="numba")
    for k, wrong in ((0, np.int32([4, 3, 3])), (1, np.int64([-1, 1])), (2, np.int32([4, -1]))):
        args = [rt.constant(v) for v in (good[:k] + [wrong] + good[k + 1:])]
        with pytest.raises(rt.errors.InvalidArgumentError, match="Dynamic") as e:
            native(x, *args)  # numba's ValueError, named as the op (one of the ops) that failed
        assert "test_numba_backend.py" in str(e.value)
    empty = rt.constant(np.zeros((0, 3), np.float32))
    reshape = rt.function(lambda x, s: rt.reshape(x, s), jit_compile="numba")
    with pytest.raises(rt.errors.InvalidArgumentError, match="DynamicReshape"):
        reshape(empty, rt.constant(np.int32([-1, 0])))  # numpy refuses it, numba would not


def _maximum(a, b):
    return rt.maximum(a, b)


def _minimum(a, b):
    return rt.minimum(a, b)


def _fmax(a, b):
    return rt.fmax(a, b)


def _fmin(a, b):
    return rt.fmin(a, b)


def _relu(a, b):
    return rt.relu(a)


def _clip(a, b):
    return rt.clip_by_value(a, b, 0.5)


def _clip_to_zero(a, b):
    return rt.clip_by_value(a, -0.0, b)


@pytest.mark.parametrize("fn", [_maximum, _minimum, _fmax, _fmin, _relu, _clip, _clip_to_zero])
def test_maximum_minimum_and_clipping_give_numpys_signs_of_zeros_and_nans(fn):
    # numba's np.maximum returns the first of two equal values, numpy the second: max(-0.0, 0.0)
    # was -0.0 natively, 0.0 in numpy (a sign that 1 / x shows)
    values = np.array([0.0, -0.0, np.nan, 1.0, -1.0, np.inf], np.float32)
    a, b = (rt.constant(v.ravel()) for v in np.meshgrid(values, values))
    native = rt.function(fn, jit_compile="numba")
    for x, y in [(a, b), *((a[i], b[i]) for i in range(0, 36, 7))]:  # arrays and scalars
        want, got = fn(x, y).numpy(), native(x, y).numpy()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's: division by zero
def test_division_by_zero_gives_numpys_values():
    # numba's default error model is Python's: a scalar divided by zero raised
    # ZeroDivisionError where numpy gives inf, nan or 0, and jit_compile="auto" could move such a
    # graph to numba
    def divide(x, y):
        return x / y, x // y, x % y

    for x, y in [(1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (7, 0), (-7, 0)]:
        both(divide, rt.constant(x), rt.constant(y))
        both(divide, rt.constant([x, x]), rt.constant([y, 1]))


def test_assertions_raise_the_users_message_at_the_users_line():
    def checked(x):
        assert x.shape[0] > 0
        assert rt.reduce_all(x > 0), "x must be positive"  # the assertion's line
        return x * 2.0

    native = rt.function(checked, jit_compile="numba")
    both(checked, rt.constant([1.0, 2.0]))
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=r"^Assertion failed: x must be positive(.|\n)*the assertion's line"):
        native(rt.constant([1.0, -2.0]))
    assert numba_exactness.lowers_exactly(native.get_concrete_function(rt.constant([1.0])).graph)


def test_python_numbers_are_checked_as_in_the_default_executor():
    # stand-ins of Python numbers: int64 past int32, an error past int64, division by zero
    def numbers(n):
        total, k = 0, 0
        for _ in rt.range(n):
            k = k + 1
            total = total + 2_000_000_000 * k
        return total, 1.0 / (3 - k)

    assert int(both(numbers, rt.constant(2))[0]) == 6_000_000_000
    for jit_compile in (None, "numba"):
        with pytest.raises(rt.errors.InvalidArgumentError, match="division by zero in `/`"):
            rt.function(numbers, jit_compile=jit_compile)(rt.constant(3))


def test_scalar_results_keep_their_dtype_and_sign():
    # numba returns Python numbers; they become numpy scalars of the op's dtype (a -0.0 too)
    def scalars(x, n):
        return -x * 0.0, x > 0.0, n * 2, rt.cast(n, rt.int64) - 1, rt.cast(x, rt.float64)

    native = rt.function(scalars, jit_compile="numba")(rt.constant(np.float32(1.5)),
                                                        rt.constant(np.int32(3)))
    types = [type(t.numpy()) for t in native]
    assert types == [np.float32, np.bool_, np.int32, np.int64, np.float64]
    assert np.signbit(native[0].numpy()) and [t.numpy() for t in native[1:]] == [True, 6, 2, 1.5]


def test_checks_of_python_ints_survive_numbas_optimizer():
    # numba's signed arithmetic tells LLVM it never overflows, which folded `n + c >= n` to True
    # and dropped the checks: numba wrapped where the default executor raises
    def grow(x, k):
        n = int(x)
        for _ in rt.range(k):
            n = n + 1000
        m = int(x)
        for _ in rt.range(k):
            m = m * 3
        return n, m

    native = rt.function(grow, jit_compile="numba")
    assert [int(v) for v in native(rt.constant(np.int64(5)), rt.constant(2))] == [2005, 45]
    for big in (np.int64(2**63 - 2000), np.int64(2**62)):
        with pytest.raises(rt.errors.InvalidArgumentError, match="overflowed int64"):
            native(rt.constant(big), rt.constant(3))
    # and a tensor's own int64 arithmetic wraps as numpy's does
    both(lambda x: (x + 1 > x, x * 2, -x - 1), rt.constant(np.int64(2**63 - 1)))


def counts_then_sum(x, y, z):
    return rt.bincount(x), y + z  # the sum line


def test_numbas_own_error_is_not_blamed_on_a_helper_op():
    """Found by a second reading: any ValueError of a graph holding a bincount was reported as
    the bincount's; a helper's error names its op, and numba's own (here a broadcast of dims
    known only when the graph runs) is raised as numba raised it."""
    spec = [rt.TensorSpec([None], rt.int32), rt.TensorSpec([None], rt.float32),
            rt.TensorSpec([None], rt.float32)]
    native = rt.function(counts_then_sum, jit_compile="numba", input_signature=spec)
    x = rt.constant(np.int32([1, 2]))
    with pytest.raises(ValueError) as info:
        native(x, rt.constant(np.ones(3, np.float32)), rt.constant(np.ones(2, np.float32)))
    assert "Bincount" not in str(info.value)
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"(?s)Bincount.*negative"):
        native(rt.constant(np.int32([-1])), rt.constant(np.ones(2, np.float32)),
               rt.constant(np.ones(2, np.float32)))


def test_bincount_with_weights_of_another_rank_is_not_lowered():
    def fn(x, w):
        return rt.bincount(x, w)

    with pytest.raises(rt.errors.NoLoweringError, match="1-D weights"):
        rt.function(fn, jit_compile="numba")(rt.constant(np.int32([0, 2, 0])),
                                              rt.constant(np.ones((3, 1), np.float32)))


def test_float16_is_not_lowered_and_not_said_to_be():
    """numba has no float16: a located NoLoweringError (it was numba's bare NotImplementedError),
    and lowers_exactly says no, so "auto" and rt.explain do not promise a move."""
    def fn(x):
        return x * x  # the float16 line

    x = rt.constant(np.float16([1.5, 2.0]))
    with pytest.raises(rt.errors.NoLoweringError, match=r"(?s)float16.*the float16 line"):
        rt.function(fn, jit_compile="numba")(x)
    assert not numba_exactness.lowers_exactly(rt.function(fn).get_concrete_function(x).graph)


def weighted_counts_total(x, w):
    return rt.reduce_sum(rt.bincount(x, w) * rt.constant(np.array([1.0, 2.0, 3.0])))


def test_bincount_on_numba_composes_with_tapes_and_grad():
    """The gradient of weights through a numba-compiled bincount, under a tape around the call
    and through rt.grad, is the default executor's."""
    x, w = rt.constant(np.int32([0, 2, 1, 2])), rt.constant(np.array([1.0, 2.0, 3.0, 4.0]))
    grads = []
    for jit_compile in (None, "numba"):
        f = rt.function(weighted_counts_total, jit_compile=jit_compile)
        with rt.GradientTape() as tape:
            tape.watch(w)
            y = f(x, w)
        grads += [tape.gradient(y, w).numpy(), rt.grad(lambda w, f=f: f(x, w))(w).numpy()]
        assert float(y) == 25.0
    for g in grads:
        np.testing.assert_array_equal(g, [1.0, 3.0, 2.0, 3.0])


def test_the_call_of_a_numba_graph_is_one_generated_function_with_the_default_results():
    # The concrete function's caller takes in numba's call (no function between them): results
    # as the default executor gives them (numpy scalars of the dtype, -0.0 kept, bools, arrays;
    # one tensor, a tuple, a list), and a failing op still located at the user's line.
    import linecache

    def several(x, y):
        return -x * 0.0, x > y, [rt.stack([x, y]), x + y]

    f, g = rt.function(several, jit_compile="numba"), rt.function(several)
    for x, y in ((np.float32(2.0), np.float32(1.0)), (np.float32(-1.0), np.float32(3.0))):
        got, want = rt.nest.flatten(f(x, y)), rt.nest.flatten(g(x, y))
        for a, b in zip(got, want):
            assert type(a.numpy()) is type(b.numpy()) and a.dtype is b.dtype
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert np.all(np.signbit(a.numpy()) == np.signbit(b.numpy()))
    concrete = f.get_concrete_function(np.float32(1.0), np.float32(1.0))
    source = "".join(linecache.getlines(concrete.call.__code__.co_filename))
    assert "outs = native(a0, a1)" in source and "run(" not in source
    # numpy scalars of the graph's dtypes go straight to the machine code (no numba dispatch);
    # other values of the same signature (a 0-d array) take numba's dispatch, and agree
    assert "if type(a0) is native_t0 and type(a1) is native_t1:" in source
    assert "outs = native_entry(a0, a1)" in source
    for x, y in ((np.array(2.0, np.float32), np.float32(1.0)),
                 (rt.constant(np.array(-2.0, np.float32)), np.array(1.0, np.float32))):
        for a, b in zip(rt.nest.flatten(f(x, y)), rt.nest.flatten(g(x, y))):
            assert a.dtype is b.dtype
            np.testing.assert_array_equal(a.numpy(), b.numpy())

    def picks(x, i):
        return x[i]

    h = rt.function(picks, jit_compile="numba")
    assert h(np.arange(3.0), np.int32(2)).numpy() == 2.0
    with pytest.raises(rt.errors.InvalidArgumentError, match="index out of bounds") as info:
        h(np.arange(3.0), np.int32(5))
    assert "return x[i]" in str(info.value)


def _draws(x, n):
    a = rt.random.normal([3]) + x
    b = rt.random.uniform([2, 2], 1.0, 3.0, dtype=rt.float64)
    c = rt.random.uniform([4], -5, 10, dtype=rt.int32)
    d = rt.random.uniform([2], 0, 2**40, dtype=rt.int64, seed=3)
    s = rt.random.normal([], mean=2.0, stddev=0.5, seed=7)
    t = rt.zeros([2])
    for _ in rt.range(n):  # draws inside a loop, in its order
        t = t + rt.random.uniform([]) * rt.random.normal([2])
    e = rt.random.normal([0, 3])
    return a, b, c, d, s, t, e


@pytest.mark.parametrize("jit_compile", ["numba", "auto"])
def test_random_numbers_are_numpys_draws_from_the_same_generator(jit_compile):
    """numba draws from numpy's Generator itself (given to the compiled graph at each call):
    the default executor's numbers, bit for bit, and the generator's state moves as numpy's
    does, so set_seed restarts both and draws eagerly continue where the graph stopped."""
    runs = {}
    for executor in (None, jit_compile):
        rt.random.set_seed(11)
        f = rt.function(_draws, jit_compile=executor)
        calls = [f(rt.constant(1.0), rt.constant(n)) for n in (3, 0, 2)]
        rt.random.set_seed(11)  # a new default generator: the compiled graph takes it
        calls.append(f(rt.constant(1.0), rt.constant(1)))
        calls.append((rt.random.normal([2]),))  # eagerly, after the graph's draws
        runs[executor] = calls
    for expected, got in zip(runs[None], runs[jit_compile]):
        for a, b in zip(expected, got):
            same(a, b)
    if jit_compile == "numba":
        source = rt.function(_draws, jit_compile="numba").get_concrete_function(
            rt.constant(1.0), rt.constant(1)).generated.source
        assert ".normal(" in source and ".integers(" in source


def test_random_numbers_with_tensor_shapes_are_not_lowered_yet():
    with pytest.raises(rt.errors.NoLoweringError, match="DynamicRandomNormal"):
        rt.function(lambda n: rt.random.normal(rt.stack([n, 2])), jit_compile="numba")(
            rt.constant(3))


def _logistic_steps(y):
    for _ in range(40):  # unrolled: 160 ops
        y = y + 0.01 * y * (1.0 - y)
    return y


def test_a_big_graph_is_said_to_compile_slowly_before_numba_starts(monkeypatch, caplog):
    from runtime.executor import numba_backend

    monkeypatch.setattr(numba_backend, "SLOW_COMPILE_OPS", 100)
    # (compiled in memory: a copy on disk would skip the warning)
    monkeypatch.setattr(config, "_cache_dir_chosen", True)
    monkeypatch.setattr(config, "_cache_dir", None)
    with caplog.at_level(logging.WARNING, logger="runtime.executor"):
        got = rt.function(_logistic_steps, jit_compile="numba")(np.float64(0.5))
    assert got.numpy() == _logistic_steps(np.float64(0.5))
    assert "ops, which numba compiles at its first call" in caplog.text
    assert "rt.range(n)" in caplog.text


def _signs_and_remainders(x):
    return np.sign(x), np.sign(x[-1]), np.fmod(x, np.uint8(7)), np.fmod(x[-1], np.uint8(7))


def test_sign_and_fmod_of_unsigned_integers_are_numpys():
    # (numba read the top bit of a uint8 as a sign: np.sign(np.uint8(200)) was 255, and auto
    # ran numba's result in its trial calls; found by a second reading)
    x = np.array([0, 1, 127, 128, 200, 255], np.uint8)
    native = rt.function(_signs_and_remainders, jit_compile="numba", numpy_results=True)(x)
    for got, want in zip(native, _signs_and_remainders(x)):
        np.testing.assert_array_equal(got, want, strict=True)


def _floor_divisions(a, b, x, y):
    return a // b, x // y, x // 2


def test_int64_floor_division_of_int_min_by_minus_one_wraps_as_numpys():
    # (numba gave 0 where numpy wraps to INT_MIN; found by a second reading)
    low = np.iinfo(np.int64).min
    a, b = np.int64(low), np.int64(-1)
    x, y = np.array([low, 7, -7], np.int64), np.array([3, -1, 2], np.int64)
    native = rt.function(_floor_divisions, jit_compile="numba", numpy_results=True)
    with np.errstate(over="ignore"):
        want = _floor_divisions(a, b, x, y)
        got = native(a, b, x, y)
    np.testing.assert_array_equal(got[0], want[0], strict=True)  # scalars: exact
    np.testing.assert_array_equal(got[2], want[2], strict=True)
    graph = rt.function(_floor_divisions).get_concrete_function(a, b, x, y).graph
    why = numba_exactness.why_not_lowered_exactly(graph)  # arrays by a tensor: said to differ
    assert why is not None and "INT_MIN // -1" in why


def _thirds(x):
    return x / 3, x[0] / x[1]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.int32, np.int64])
def test_a_division_of_integers_is_numpys_float64(dtype):
    # (numba divided int8 and int16 in float32: found by a new-user trial)
    x = np.array([1, 2, 7], dtype)
    native = rt.function(_thirds, jit_compile="numba", numpy_results=True)(x)
    for got, want in zip(native, _thirds(x)):
        assert got.dtype == want.dtype == np.float64 and got.tobytes() == want.tobytes()


