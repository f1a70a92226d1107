"""Random numbers: new numbers on every call (eagerly and in graphs), seeded reproducibility,
dtypes, shapes and ranges."""

import numpy as np
import pytest
from op_testing import run_in_graph

import runtime as rt


@pytest.mark.parametrize("make", [
    lambda: rt.random.uniform([200]),
    lambda: rt.random.normal([200]),
    lambda: rt.random.uniform([200], seed=3),
])
def test_new_numbers_on_every_call_eagerly_and_in_graphs(make):
    assert not np.array_equal(make().numpy(), make().numpy())
    fn = rt.function(make, autograph=False)
    first, second = fn().numpy(), fn().numpy()
    assert not np.array_equal(first, second)
    assert fn.experimental_get_tracing_count() == 1


def test_two_random_ops_in_one_graph_differ():
    fn = rt.function(lambda: (rt.random.uniform([50]), rt.random.uniform([50])), autograph=False)
    a, b = fn()
    assert not np.array_equal(a.numpy(), b.numpy())


def test_random_ops_are_not_pruned():
    def f(x):
        rt.random.normal([3])  # unused, but stateful: it still draws
        return x + 1

    concrete = rt.function(f, autograph=False).get_concrete_function(rt.constant(1.0))
    assert "RandomStandardNormal" in [op.type for op in concrete.graph.operations]


@pytest.mark.parametrize("seeded", [True, False])
def test_set_seed_makes_runs_reproducible(seeded):
    seed = 7 if seeded else None
    fn = rt.function(lambda: rt.random.uniform([4], seed=seed), autograph=False)
    fn()  # traced before set_seed: the graph still follows it

    def run():
        return [rt.random.normal([3], seed=seed).numpy(), fn().numpy(),
                rt.random.uniform([2], 0, 10, rt.int32, seed=seed).numpy()]

    rt.random.set_seed(123)
    first = run()
    rt.random.set_seed(123)
    second = run()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0][:2], first[1][:2])


def test_seeded_op_repeats_its_sequence_across_programs():
    rt.random.set_seed(0)
    a = [rt.random.uniform([3], seed=5).numpy() for _ in range(2)]
    rt.random.set_seed(0)
    b = [rt.random.uniform([3], seed=5).numpy() for _ in range(2)]
    np.testing.assert_array_equal(np.stack(a), np.stack(b))
    assert not np.array_equal(a[0], a[1])


@pytest.mark.parametrize("dtype", [rt.float32, rt.float64, rt.int32, rt.int64])
def test_uniform_dtype_shape_and_range(dtype):
    maxval = 5 if dtype.is_integer else 2.5

    def make():
        return rt.random.uniform([1000], -3, maxval, dtype=dtype)

    compiled, interpreted, concrete = run_in_graph(make)
    for value in (make().numpy(), compiled.numpy(), interpreted[0]):
        assert value.dtype == dtype.np_dtype and value.shape == (1000,)
        assert value.min() >= -3 and value.max() < maxval
    assert concrete.graph.outputs[0].shape == (1000,)
    if dtype.is_integer:
        assert set(np.unique(make().numpy())) == set(range(-3, 5))


def test_scalar_and_normal_statistics():
    value = rt.random.uniform(()).numpy()
    assert isinstance(value, np.float32) and 0 <= value < 1
    compiled, interpreted, _ = run_in_graph(lambda: rt.random.normal((), dtype=rt.float64))
    assert isinstance(compiled.numpy(), np.float64) and isinstance(interpreted[0], np.float64)
    sample = rt.random.normal([20000], mean=2.0, stddev=0.5, seed=1).numpy()
    assert sample.dtype == np.float32
    assert abs(sample.mean() - 2.0) < 0.02 and abs(sample.std() - 0.5) < 0.02


def test_random_errors():
    with pytest.raises(ValueError, match="maxval"):
        rt.random.uniform([2], dtype=rt.int32)
    with pytest.raises(ValueError, match="minval < maxval"):
        rt.random.uniform([2], 1.0, 1.0)
    with pytest.raises(TypeError, match="float"):
        rt.random.normal([2], dtype=rt.int32)
    with pytest.raises(ValueError, match="negative"):
        rt.random.uniform([-1])
    # A shape known only when the graph runs is checked then.
    f = rt.function(lambda s: rt.random.uniform(s), autograph=False)
    assert f(rt.constant([2])).shape == (2,)
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative"):
        f(rt.constant([-2]))


@pytest.mark.parametrize("make", [
    lambda n, s: rt.random.normal([n, 2], mean=s, stddev=0.5, seed=7),
    lambda n, s: rt.random.uniform([n, 2], minval=s, maxval=s + 1.0, seed=7),
])
def test_shapes_and_parameters_held_in_tensors(make):
    """rt.random.normal([n]) with a graph-valued n, as rt.zeros takes one: the shape is read
    when the graph runs; the seeded numbers are those of the same static call."""
    f = rt.function(lambda x: make(rt.shape(x)[0], rt.reduce_sum(x) * 0.0 + 3.0),
                    autograph=False)
    rt.random.set_seed(0)
    graph = f(rt.constant([1.0, 2.0, 3.0])).numpy()
    rt.random.set_seed(0)
    eager = make(3, 3.0).numpy()
    assert graph.shape == (3, 2) and graph.dtype == np.float32
    np.testing.assert_array_equal(graph, eager)
    g = rt.function(lambda n: make(n, 0.0), autograph=False)
    with pytest.raises(rt.errors.InvalidArgumentError, match="must not be negative"):
        g(rt.constant(-1))
