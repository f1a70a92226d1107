"""Shapes as values (issue 9): ops that take a shape or sizes accept tensors, graphs traced
with unknown dims run for every size, and inference keeps every dim it can know."""

import numpy as np
import pytest

import runtime as rt

SIG = [rt.TensorSpec([None, 3], rt.float32), rt.TensorSpec([], rt.int32)]

CASES = {
    "zeros with a tensor dim": (lambda x, t: rt.zeros([1, t, 2]), (1, None, 2)),
    "ones of rt.shape": (lambda x, t: rt.ones(rt.shape(x)), (None, 3)),
    "fill": (lambda x, t: rt.fill([t, 2], 1.5), (None, 2)),
    "reshape to a packed shape": (
        lambda x, t: rt.reshape(x, rt.stack([rt.shape(x)[1], rt.shape(x)[0]])), (3, None)),
    "reshape with -1": (lambda x, t: rt.reshape(x, [rt.shape(x)[1], -1]), (3, None)),
    "range": (lambda x, t: rt.range(t), (None,)),
    "tile": (lambda x, t: rt.tile(x, [t, 2]), (None, 6)),
    "broadcast_to": (lambda x, t: rt.broadcast_to(1.0, [rt.shape(x)[0], 3]), (None, 3)),
    "slice with tensor bounds": (lambda x, t: x[t - 1:, :t], (None, None)),
    "len of an unknown dim": (lambda x, t: len(x) + t, ()),
    "uniform with tensor shape and bounds": (
        lambda x, t: rt.random.uniform([t, 3], 0.0, rt.cast(t, rt.float32)) * 0.0, (None, 3)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_tensor_shapes_agree_with_eager_and_keep_known_dims(name):
    fn, static = CASES[name]
    graph_fn = rt.function(fn, input_signature=SIG)
    assert tuple(graph_fn.get_concrete_function().structured_outputs.shape) == static
    for rows, t in [(4, 2), (1, 1), (5, 3)]:
        x = rt.constant(np.arange(rows * 3, dtype=np.float32).reshape(rows, 3))
        expected, actual = fn(x, rt.constant(t)), graph_fn(x, rt.constant(t))
        np.testing.assert_array_equal(actual.numpy(), expected.numpy())
        assert actual.dtype is expected.dtype


def test_bad_shapes_raise_when_the_graph_runs_as_they_do_eagerly():
    f = rt.function(lambda x, t: rt.reshape(x, [t, 5]), input_signature=SIG)
    with pytest.raises(rt.errors.InvalidArgumentError, match="reshape"):
        f(rt.zeros([4, 3]), rt.constant(2))
    g = rt.function(lambda x, t: rt.zeros([t, 2]), input_signature=SIG)
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative"):
        g(rt.zeros([4, 3]), rt.constant(-1))


def test_static_shape_has_none_and_the_shape_read_has_the_value():
    @rt.function(input_signature=SIG[:1])
    def f(x):
        assert x.shape.as_list() == [None, 3] and x.shape[1] == 3  # the static shape
        return rt.shape(x)[0] < 10, len(x), x.shape[0] is None, x.shape[0] * 2  # the values

    small, n, unknown, twice = f(rt.zeros([4, 3]))
    assert bool(small.numpy()) and n.numpy() == 4 and not unknown and twice.numpy() == 8


@pytest.mark.parametrize("name", list(CASES))
def test_tensor_shapes_agree_three_ways(name):
    """Plain Python on numpy values, converted code on eager tensors, and the graph."""
    import sys

    sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/autograph")
    from three_way import assert_agree

    fn, _ = CASES[name]
    for rows, t in [(4, 2), (1, 1)]:
        assert_agree(fn, np.arange(rows * 3, dtype=np.float32).reshape(rows, 3), np.int32(t))
