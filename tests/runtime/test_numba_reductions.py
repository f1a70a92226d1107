"""jit_compile="numba"'s reductions (runtime/executor/numba_reductions.py): over any axes, with
numpy's rules for NaNs, ties, wrapping integers and empty inputs; float sums in numpy's pairwise
order where numba can add in it; integer sums over an outer axis; reductions of long chains as
helpers of their own. Each against the default executor (numba_agreement.py)."""

import re

import numpy as np
import pytest

import runtime as rt
from runtime.executor import numba_exactness, numba_reductions
from tests.runtime.numba_agreement import agree, both

numba = pytest.importorskip("numba")

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile


_AXES = [None, 0, 1, 2, -1, (0, 2), (2, 0), (1, 2), (0, 1, 2), ()]


# float64 and int64 take the code paths of float32 and int32 but for the widening of float32
# sums (and numba compiles a graph for each test, ~3 s): each kind of axes once
_SOME_AXES = [None, 1, (0, 2), ()]


@pytest.mark.parametrize("reduce", [rt.reduce_sum, rt.reduce_mean, rt.reduce_max, rt.reduce_min,
                                    rt.reduce_prod], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [rt.float32, rt.float64, rt.int32, rt.int64])
def test_reductions_over_any_axes(reduce, dtype):
    """Over each axis, several, all or none, with and without keepdims: integers (wrapping as
    numpy's, in their dtype), maxima, minima and products exact; float sums and means within
    a few ulp (FLOAT_SUMS)."""
    rng = np.random.default_rng(3)
    x = rt.constant((rng.random((3, 4, 5)) * 4 + 0.5).astype(dtype.np_dtype))
    inexact = dtype.is_floating and reduce in (rt.reduce_sum, rt.reduce_mean)
    axes = _AXES if dtype in (rt.float32, rt.int32) else _SOME_AXES

    def fn(x):
        return tuple(reduce(x, axis, keepdims) for axis in axes for keepdims in (False, True))

    agree(fn, x, ulps=4 if inexact else 0)


def test_reductions_keep_numpys_rules():
    """NaNs win a max and a min; argmax and argmin take the first of ties and of NaNs; integer
    sums and products wrap around in their dtype; an integer mean truncates; Any and All."""
    nan = np.nan
    x = rt.constant(np.float32([[1, nan, 3, nan], [2, 5, 5, 1], [4, 4, -1, -1]]))
    big = rt.constant(np.int32([[2**30, 2**30, 3], [-7, 2, 2**20]]))
    flags = rt.constant(np.array([[True, False], [True, True], [False, False]]))

    def fn(x, big, flags):
        return (rt.reduce_max(x, 1), rt.reduce_min(x, 0, keepdims=True), rt.argmax(x, 1),
                rt.argmin(x, 1), rt.argmax(x, 0), rt.argmin(x, 0, output_type=rt.int32),
                rt.argmax(x[1]), rt.reduce_sum(big, 1), rt.reduce_prod(big, 0),
                rt.reduce_prod(big), rt.reduce_mean(big, 1), rt.reduce_mean(big),
                rt.reduce_any(flags, 1), rt.reduce_all(flags, 0, keepdims=True),
                rt.reduce_all(flags), rt.argmax(big, 1, output_type=rt.int32))

    agree(fn, x, big, flags)


def test_reductions_of_dims_known_when_the_graph_runs():
    spec = [rt.TensorSpec([None, 4, None], rt.float32)]

    def fn(x):
        return (rt.reduce_max(x, (0, 2)), rt.reduce_prod(x, 2, keepdims=True), rt.argmin(x, 2),
                rt.reduce_sum(x, 0), rt.shape(x), rt.size(x, rt.int64), rt.rank(x),
                rt.gather(x, rt.constant([[1, 0], [2, 2]]), axis=1))

    x = rt.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3) % 5)
    agree(fn, x, signature=spec)
    empty = rt.constant(np.zeros((2, 4, 0), np.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="ArgMin|Max"):
        rt.function(fn, jit_compile="numba", input_signature=spec)(empty)  # a max of nothing


def test_complex_reductions_say_why_not():
    c = rt.constant(np.complex128([1 + 2j, 1 + 3j]))
    with pytest.raises(rt.errors.NoLoweringError, match="complex"):
        rt.function(lambda c: rt.reduce_max(c), jit_compile="numba")(c)
    graph = rt.function(lambda c: rt.reduce_sum(c)).get_concrete_function(c).graph
    assert not numba_exactness.lowers_exactly(graph)  # complex sums add in another order too


def test_float_sums_in_numpys_order_give_numpys_bits():
    """Where numpy adds in order (its inner axis kept, or fewer than 8 values a sum) so does
    numba's code, in the dtype: numpy's bits (FLOAT_SUMS still says they may differ: numpy
    adds pairwise elsewhere, and in another order for strided arrays)."""
    rng = np.random.default_rng(9)
    x = rt.constant((rng.normal(size=(50, 6, 2)) * 10).astype(np.float32))

    def fn(x):
        return (rt.reduce_sum(x, 0), rt.reduce_sum(x, (0, 1)), rt.reduce_mean(x, 0),
                rt.reduce_sum(x, 2), rt.reduce_mean(x, -1, keepdims=True))

    agree(fn, x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's: a mean of nothing, NaN cast
def test_an_integer_mean_of_nothing_is_numpys_cast_of_nan():
    """numpy's mean of nothing is NaN, cast to the integer dtype as numpy casts it on this
    machine; numba's cast of NaN is undefined, so the lowering gives numpy's value itself."""
    spec = [rt.TensorSpec([None, 3], rt.int32)]

    def fn(x):
        return rt.reduce_mean(x, 0), rt.reduce_mean(x), rt.reduce_mean(x, 1, keepdims=True)

    for rows in (0, 2):
        agree(fn, rt.constant(np.full((rows, 3), 7, np.int32)), signature=spec)
    agree(lambda x: (rt.reduce_mean(x, 1), rt.reduce_mean(x)),
           rt.constant(np.zeros((2, 0), np.int16)))


def _sums_of_vectors(x):
    return rt.reduce_sum(x), rt.reduce_mean(x), np.sum(x[::3]), np.mean(x * 2.0, keepdims=True)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's: a mean of nothing, inf - inf
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_of_vectors_are_numpys_pairwise_bits(dtype):
    rng = np.random.default_rng(4)
    # (each length traced exactly: of a length unknown while tracing numba sums its own way)
    native = rt.function(_sums_of_vectors, jit_compile="numba", reduce_retracing=False)
    default = rt.function(_sums_of_vectors)
    for n in (0, 1, 7, 8, 9, 127, 128, 129, 257, 1000, 4097, 16383):
        for x in ((rng.standard_normal(n) * 100).astype(dtype), np.full(n, -0.0, dtype),
                  np.where(np.arange(n) % 5 == 1, np.inf, rng.standard_normal(n) * 1e30)
                  .astype(dtype)):
            for got, want in zip(native(x), default(x)):
                assert got.numpy().tobytes() == want.numpy().tobytes() or (
                    np.isnan(want.numpy()).all() and np.isnan(got.numpy()).all()), (n, x[:3])
    graph = native.get_concrete_function(np.ones(3, dtype)).graph
    assert numba_exactness.lowers_exactly(graph)
    longer = native.get_concrete_function(np.ones(numba_reductions.PAIRWISE_MAX + 1, dtype)).graph
    assert not numba_exactness.lowers_exactly(longer)  # (numba's faster order, said)


def _counts(x):
    index = rt.cast(rt.floor((x + 2.0) * 4.0), rt.int64)
    return rt.stack([rt.reduce_sum(rt.cast(index == b, rt.int64)) for b in range(16)])


@pytest.mark.parametrize("n", [100, 3000])
def test_reductions_of_chains_of_long_arrays_are_helpers_shared_by_statements_alike(n):
    # A sum of all of an elementwise chain of a long array (OUTLINED_SIZE values or more, or
    # a length known when the graph runs) is a helper of its own, which LLVM vectorizes; the
    # 16 counts alike share one. Short arrays stay in the function. Same bits as the default.
    from runtime.executor.numba_backend import OUTLINED_SIZE

    x = rt.constant(np.random.default_rng(n).normal(size=n))
    both(_counts, x)
    for spec in (x, rt.TensorSpec([None], rt.float64)):
        source = rt.function(_counts, jit_compile="numba").get_concrete_function(
            spec).generated.source
        run = source.split("import numba")[0]
        helpers = set(re.findall(r"elementwise_\w+_\(", run))
        long = isinstance(spec, rt.TensorSpec) or n >= OUTLINED_SIZE
        assert len(helpers) == (1 if long else 0), run
        if long:
            assert run.count(next(iter(helpers))) == 16
            assert f"def {next(iter(helpers))[:-1]}(" in source
        # the 16 casts of bools a sum alone reads are not made: numba's sum counts bools in int64
        assert source.count(".astype(np.int64)") == 1  # (the floor's)


def test_a_cast_of_bools_stays_where_more_than_a_sum_of_all_reads_it():
    x = rt.constant(np.random.default_rng(5).normal(size=(40, 3)))

    def fn(x):
        ones = rt.cast(x > 0.0, rt.int64)
        counted = rt.reduce_sum(rt.cast(x < 0.5, rt.int64))  # (the sum alone: no cast)
        return ones, rt.reduce_sum(ones), rt.reduce_sum(rt.cast(x < 0.0, rt.int64), 0), counted

    both(fn, x)
    source = rt.function(fn, jit_compile="numba").get_concrete_function(x).generated.source
    assert source.count(".astype(np.int64)") == 2, source  # (returned too; summed by columns)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_integer_sums_over_an_outer_axis_are_numbas_axis_sums_with_numpys_values(dtype):
    # (exact in any order, so numba's np.sum(axis=k) serves, without the transposed copy the
    # rows of other reductions need); wrapping, keepdims, dims known when the graph runs
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    x = rt.constant(rng.integers(info.min, info.max, (6, 5, 4), dtype=dtype, endpoint=True))

    def fn(x):
        return (rt.reduce_sum(x, 0), rt.reduce_sum(x, 1, keepdims=True), rt.reduce_sum(x, -2),
                rt.reduce_sum(x, 2), rt.reduce_sum(x * x, 0))

    agree(fn, x)
    agree(fn, x, signature=[rt.TensorSpec([None, 5, None], rt.as_dtype(dtype))])
    source = rt.function(fn, jit_compile="numba").get_concrete_function(x).generated.source
    assert source.count("np.sum(") >= 4 and ", axis=0)" in source and ", axis=1)" in source
    empty = rt.constant(np.zeros((0, 3), dtype))
    agree(lambda e: (rt.reduce_sum(e, 0), rt.reduce_sum(e, 0, keepdims=True)), empty)

