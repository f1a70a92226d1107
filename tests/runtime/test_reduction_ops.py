"""Reductions (sum, mean, max, min, prod, any, all, argmax, argmin) against numpy, eagerly, in
compiled graphs and in the interpreter."""

import numpy as np
import pytest
from op_testing import check_error, check_op

import runtime as rt

X = np.arange(24).reshape(2, 3, 4) % 7 - 3
AXES = [None, 0, 1, -1, (0, 2), [1, 2], (), (0, 1, 2)]

REDUCTIONS = {
    "reduce_sum": (rt.reduce_sum, np.sum),
    "reduce_max": (rt.reduce_max, np.max),
    "reduce_min": (rt.reduce_min, np.min),
    "reduce_prod": (rt.reduce_prod, np.prod),
    "reduce_mean": (rt.reduce_mean, np.mean),
}


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("keepdims", [False, True])
def test_numeric_reductions_keep_the_dtype(name, dtype, keepdims):
    rt_fn, np_fn = REDUCTIONS[name]
    x = X.astype(dtype)
    for axis in AXES:
        def expected(a, axis=axis):
            out = np_fn(a, axis=_np_axis(axis), keepdims=keepdims)
            if np.dtype(dtype).kind == "i":  # integer mean truncates, like TensorFlow
                out = np.trunc(out)
            return np.asarray(out).astype(dtype)

        check_op(lambda a, axis=axis: rt_fn(a, axis=axis, keepdims=keepdims), expected, x,
                 dtype=dtype, rtol=1e-6)


def test_reduce_of_a_scalar_and_default_axis_give_numpy_scalars():
    check_op(rt.reduce_sum, np.sum, np.float32(2.5))
    out = check_op(rt.reduce_sum, np.sum, np.ones((3, 2), np.float32))
    assert isinstance(out.numpy(), np.float32)


def test_integer_mean_truncates_toward_zero():
    x = np.array([[-3, -2], [1, 2]], np.int32)
    assert rt.reduce_mean(x, axis=1).numpy().tolist() == [-2, 1]


def test_reduction_axis_may_be_an_eager_tensor():
    axis = rt.constant([0, 2])
    check_op(lambda a: rt.reduce_sum(a, axis=axis), lambda a: np.sum(a, axis=(0, 2)),
             X.astype(np.float32))
    check_op(lambda a: rt.reduce_max(a, axis=rt.constant(1)), lambda a: np.max(a, axis=1),
             X.astype(np.int32))


@pytest.mark.parametrize("rt_fn,np_fn", [(rt.reduce_any, np.any), (rt.reduce_all, np.all)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_bool_reductions(rt_fn, np_fn, keepdims):
    x = X > 0
    for axis in AXES:
        check_op(lambda a, axis=axis: rt_fn(a, axis=axis, keepdims=keepdims),
                 lambda a, axis=axis: np_fn(a, axis=_np_axis(axis), keepdims=keepdims), x)


def test_reduction_dtype_errors():
    with pytest.raises(TypeError, match="bool"):
        rt.reduce_any(rt.constant([1, 0]))
    with pytest.raises(TypeError, match="rt.cast"):
        rt.reduce_sum(rt.constant([True, False]))


def test_reduction_axis_errors_name_the_user_line():
    x = np.ones((2, 3), np.float32)
    check_error(lambda a: rt.reduce_sum(a, axis=2), x, match="axis 2 is out of range")
    check_error(lambda a: rt.reduce_mean(a, axis=(0, -2)), x, match="twice")
    check_error(lambda a: rt.argmax(a, axis=-3), x, match="out of range")


def test_empty_reductions():
    empty = np.zeros((0, 3), np.float32)
    check_op(lambda a: rt.reduce_sum(a, axis=0), lambda a: np.sum(a, axis=0), empty)
    check_op(lambda a: rt.reduce_prod(a), np.prod, empty)
    check_error(lambda a: rt.reduce_max(a, axis=0), empty, match="zero-size|empty")


@pytest.mark.parametrize("rt_fn,np_fn", [(rt.argmax, np.argmax), (rt.argmin, np.argmin)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_arg_reductions(rt_fn, np_fn, dtype):
    x = (X % 5).astype(dtype)
    for axis in (0, 1, 2, -1):
        check_op(lambda a, axis=axis: rt_fn(a, axis=axis),
                 lambda a, axis=axis: np_fn(a, axis=axis).astype(np.int64), x)
    check_op(rt_fn, lambda a: np_fn(a, axis=0).astype(np.int64), x)  # default axis 0
    check_op(lambda a: rt_fn(a, output_type=rt.int32),
             lambda a: np_fn(a, axis=0).astype(np.int32), x[0, 0])


def test_arg_reduction_errors():
    check_error(lambda a: rt.argmax(a, axis=0), np.zeros((0, 2), np.float32),
                match="empty")
    with pytest.raises(TypeError, match="output_type"):
        rt.argmin(rt.constant([1.0]), output_type=rt.float32)
    with pytest.raises(TypeError, match="must be known while tracing"):
        rt.function(lambda a, ax: rt.reduce_sum(a, axis=ax), autograph=False)(
            rt.constant([[1.0]]), rt.constant(0))
