"""zeros, ones, fill, *_like, eye, range and linspace against numpy, eagerly, in compiled graphs
and in the interpreter."""

import numpy as np
import pytest
from op_testing import check_error, check_op, traced_for_specs

import runtime as rt


@pytest.mark.parametrize("rt_fn,np_fn", [(rt.zeros, np.zeros), (rt.ones, np.ones)])
@pytest.mark.parametrize("dtype", [rt.float32, rt.float64, rt.int32, rt.int64, rt.bool])
def test_zeros_and_ones(rt_fn, np_fn, dtype):
    for shape in ([2, 3], (), [0], 4):
        out = rt_fn(shape, dtype)
        assert out.dtype is dtype
        check_op(lambda out=out: out, lambda shape=shape: np_fn(shape, dtype.np_dtype))
    check_op(lambda: rt_fn([2], dtype), lambda: np_fn(2, dtype.np_dtype))  # in a graph too


def test_zeros_default_dtype_and_dtype_names():
    assert rt.zeros([1]).dtype is rt.float32
    assert rt.ones([1], "int64").dtype is rt.int64


def test_zeros_of_a_shape_computed_in_the_graph():
    def like(a):
        return rt.zeros(rt.shape(a), rt.int32) + rt.ones(rt.shape(a), rt.int32)

    check_op(like, lambda a: np.ones(a.shape, np.int32), np.ones((2, 3), np.float32))
    concrete = traced_for_specs(like, rt.TensorSpec([None, 3], rt.float32))
    out = concrete(rt.constant(np.ones((4, 3), np.float32)))
    assert out.numpy().shape == (4, 3) and out.dtype is rt.int32


def test_fill():
    check_op(lambda v: rt.fill([2, 3], v), lambda v: np.full((2, 3), v), np.float32(1.5))
    check_op(lambda v: rt.fill((), v), lambda v: v, np.int64(7))
    check_op(lambda: rt.fill([2], 9), lambda: np.full(2, 9, np.int32))
    check_op(lambda a: rt.fill(rt.shape(a), 2.0), lambda a: np.full(a.shape, 2, np.float32),
             np.ones((3, 1), np.int32))
    check_op(lambda d: rt.fill(d, True), lambda d: np.full(tuple(d), True),
             np.array([2, 2], np.int32))


def test_fill_errors():
    with pytest.raises(rt.errors.InvalidArgumentError, match="scalar"):
        rt.fill([2], rt.constant([1, 2]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative"):
        rt.fill([-1], 1)
    check_error(lambda d: rt.fill(d, 1.0), np.array([2, -3], np.int32), match="negative")


@pytest.mark.parametrize("rt_fn,np_fn", [(rt.zeros_like, np.zeros_like),
                                         (rt.ones_like, np.ones_like)])
def test_like_ops(rt_fn, np_fn):
    for x in (np.arange(6, dtype=np.float64).reshape(2, 3), np.int32(3), np.array([True])):
        check_op(rt_fn, np_fn, x)
    check_op(lambda a: rt_fn(a, rt.int64), lambda a: np_fn(a, np.int64), np.ones(2, np.float32))
    concrete = traced_for_specs(rt_fn, rt.TensorSpec([None], rt.float32))
    assert concrete(rt.constant([1.0, 2.0, 3.0])).numpy().shape == (3,)


def test_eye():
    check_op(lambda: rt.eye(3), lambda: np.eye(3, dtype=np.float32))
    check_op(lambda: rt.eye(2, 4, dtype=rt.int32), lambda: np.eye(2, 4, dtype=np.int32))
    check_op(lambda: rt.eye(2, batch_shape=[3], dtype=rt.int64),
             lambda: np.tile(np.eye(2, dtype=np.int64), (3, 1, 1)))
    check_op(lambda: rt.eye(0), lambda: np.eye(0, dtype=np.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="negative"):
        rt.eye(-1)


@pytest.mark.parametrize("args,dtype", [
    ((5,), np.int32), ((2, 10, 3), np.int32), ((10, 2, -3), np.int32), ((3, 3), np.int32),
    ((0.0, 1.0, 0.25), np.float32), ((1, 2.5, 0.5), np.float32), ((-2.0,), np.float32),
])
def test_range(args, dtype):
    check_op(lambda: rt.range(*args), lambda: np.arange(*args).astype(dtype))


def test_range_with_dtype_and_tensor_bounds():
    check_op(lambda: rt.range(4, dtype=rt.int64), lambda: np.arange(4, dtype=np.int64))
    check_op(lambda n: rt.range(n), lambda n: np.arange(n, dtype=np.int32), np.int32(4))
    check_op(lambda s, n: rt.range(s, n, 2), lambda s, n: np.arange(s, n, 2, dtype=np.int64),
             np.int64(1), np.int64(8))
    check_op(lambda n: rt.range(n, dtype=rt.float32),
             lambda n: np.arange(n, dtype=np.float32), np.int32(3))


def test_range_declares_its_length_when_known():
    concrete = rt.function(lambda: rt.range(2, 9, 2), autograph=False).get_concrete_function()
    assert concrete.graph.outputs[0].shape == (4,)
    concrete = traced_for_specs(rt.range, rt.TensorSpec([], rt.int32))
    assert concrete.graph.outputs[0].shape == (None,)


def test_range_errors():
    check_error(lambda n: rt.range(0, n, 0), np.int32(3), match="delta")
    with pytest.raises(rt.errors.InvalidArgumentError, match="scalar"):
        rt.range(rt.constant([1, 2]))


@pytest.mark.parametrize("start,stop,num", [(0.0, 1.0, 5), (1, 5, 3), (2.0, -2.0, 1),
                                            (0.0, 1.0, 0)])
def test_linspace(start, stop, num):
    check_op(lambda: rt.linspace(start, stop, num),
             lambda: np.linspace(start, stop, num).astype(np.float32))


def test_linspace_with_tensor_bounds():
    check_op(lambda a, b: rt.linspace(a, b, 4), lambda a, b: np.linspace(a, b, 4), np.float64(0),
             np.float64(3))
    check_op(lambda a, b: rt.linspace(a, b, 3, axis=1), lambda a, b: np.linspace(
        a, b, 3, axis=1).astype(np.float32), np.zeros(2, np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError, match="rt.cast"):
        rt.linspace(rt.constant(0.0), rt.constant(1.0, rt.float64), 3)
