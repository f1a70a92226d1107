"""Shape manipulation, joining, splitting, gathering and indexing against numpy, eagerly, in
compiled graphs and in the interpreter."""

import numpy as np
import pytest
from op_testing import check_error, check_op, run_in_graph, traced_for_specs

import runtime as rt

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
INTS = np.arange(6, dtype=np.int64).reshape(2, 3)


@pytest.mark.parametrize("shape", [(4, 6), (-1,), (2, -1, 2), (24,), (1, 2, 3, 4)])
def test_reshape(shape):
    check_op(lambda a: rt.reshape(a, shape), lambda a: np.reshape(a, shape), X)


def test_reshape_to_and_from_scalars():
    check_op(lambda a: rt.reshape(a, ()), lambda a: np.reshape(a, ()), np.array([7], np.int32))
    check_op(lambda a: rt.reshape(a, [1, 1]), lambda a: np.reshape(a, (1, 1)), np.float32(2))
    check_op(lambda a: rt.reshape(a, rt.constant([3, 8])), lambda a: a.reshape(3, 8), X)


def test_reshape_errors():
    check_error(lambda a: rt.reshape(a, (5, 5)), X, match="reshape")
    check_error(lambda a: rt.reshape(a, (-1, 5)), X, match="reshape")
    with pytest.raises(rt.errors.InvalidArgumentError, match="one -1"):
        rt.function(lambda a: rt.reshape(a, (-1, -1)), autograph=False)(rt.constant(X))


@pytest.mark.parametrize("perm", [None, (0, 1, 2), (2, 0, 1), [1, 0, 2]])
def test_transpose(perm):
    check_op(lambda a: rt.transpose(a, perm), lambda a: np.transpose(a, perm), X)


def test_transpose_of_a_scalar_and_errors():
    check_op(rt.transpose, np.transpose, np.float32(1.0))
    check_error(lambda a: rt.transpose(a, (0, 0, 1)), X, match="perm|axes")


@pytest.mark.parametrize("axis", [0, 1, 3, -1, -4])
def test_expand_dims(axis):
    check_op(lambda a: rt.expand_dims(a, axis), lambda a: np.expand_dims(a, axis), X)
    check_op(lambda a: rt.expand_dims(a, 0), lambda a: np.expand_dims(a, 0), np.int32(5))


def test_expand_dims_errors():
    check_error(lambda a: rt.expand_dims(a, 4), X, match="out of")


def test_squeeze():
    x = X.reshape(1, 2, 1, 12)
    check_op(rt.squeeze, np.squeeze, x)
    check_op(lambda a: rt.squeeze(a, 0), lambda a: np.squeeze(a, 0), x)
    check_op(lambda a: rt.squeeze(a, [0, -2]), lambda a: np.squeeze(a, (0, 2)), x)
    check_op(rt.squeeze, np.squeeze, np.ones((1, 1), np.int32))
    check_error(lambda a: rt.squeeze(a, 1), x, match="squeeze|select an axis")


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat(axis):
    check_op(lambda a, b: rt.concat([a, b, a], axis), lambda a, b: np.concatenate([a, b, a], axis),
             X, X + 100)


def test_concat_takes_python_values_and_checks_dtypes():
    check_op(lambda a: rt.concat([a, [[9]]], 0), lambda a: np.concatenate([a, [[9]]]).astype(
        np.int64), INTS[:, :1])
    with pytest.raises(TypeError, match=r"float32 and int32.*rt\.cast"):
        rt.concat([rt.constant([1.0]), rt.constant([1])], 0)


def test_concat_errors():
    check_error(lambda a, b: rt.concat([a, b], 0), X, X[:, :2], match="concat|dimension")
    check_error(lambda a: rt.concat([a, a], 3), X, match="axis 3")


@pytest.mark.parametrize("axis", [0, 1, -1, 3])
def test_stack(axis):
    check_op(lambda a, b: rt.stack([a, b], axis), lambda a, b: np.stack([a, b], axis), X, X * 2)


def test_stack_scalars_and_errors():
    check_op(lambda a, b: rt.stack([a, b, 3.0]), lambda a, b: np.stack([a, b, np.float32(3)]),
             np.float32(1), np.float32(2))
    check_error(lambda a, b: rt.stack([a, b]), X, X[:1], match="stack|shape")


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(axis):
    check_op(lambda a: rt.unstack(a, axis=axis), lambda a: list(np.moveaxis(a, axis, 0)), X)


def test_unstack_gives_scalars_and_iterating_a_tensor_works():
    check_op(rt.unstack, list, np.array([1, 2, 3], np.int32))
    assert [int(v) for v in rt.constant([4, 5])] == [4, 5]


def test_unstack_needs_a_known_size():
    with pytest.raises(ValueError, match="num="):
        traced_for_specs(rt.unstack, rt.TensorSpec([None], rt.float32))


@pytest.mark.parametrize("splits,axis", [(2, 0), (3, 1), ([1, 3], -1), ([2, -1, 1], 2),
                                         ([0, 3], 1)])
def test_split(splits, axis):
    def np_split(a):
        if isinstance(splits, int):
            return np.split(a, splits, axis)
        sizes = list(splits)
        if -1 in sizes:
            sizes[sizes.index(-1)] = a.shape[axis] - sum(sizes) - 1
        return np.split(a, np.cumsum(sizes)[:-1], axis)

    check_op(lambda a: rt.split(a, splits, axis), np_split, X)


def test_split_errors():
    check_error(lambda a: rt.split(a, 5, axis=2), X, match="cannot be split")
    check_error(lambda a: rt.split(a, [1, 1], axis=2), X, match="add up|unknown")
    concrete = traced_for_specs(lambda a: rt.split(a, [1, 1]), rt.TensorSpec([None], rt.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="do not add up") as info:
        concrete(rt.constant([1.0, 2.0, 3.0]))
    assert "test_array_ops.py" in str(info.value)


@pytest.mark.parametrize("multiples", [(1, 1, 1), (2, 1, 3), [1, 2, 1]])
def test_tile(multiples):
    check_op(lambda a: rt.tile(a, multiples), lambda a: np.tile(a, multiples), X)


def test_tile_errors():
    check_error(lambda a: rt.tile(a, [2, 2]), X, match="multiples")


@pytest.mark.parametrize("shape", [(2, 3, 4), (5, 2, 3, 4), (1, 2, 3, 4)])
def test_broadcast_to(shape):
    check_op(lambda a: rt.broadcast_to(a, shape), lambda a: np.broadcast_to(a, shape).copy(),
             X[:1, :, :])


def test_broadcast_to_scalar_shapes_and_errors():
    check_op(lambda a: rt.broadcast_to(a, [2, 2]), lambda a: np.full((2, 2), a), np.int32(3))
    check_op(lambda a: rt.broadcast_to(a, ()), lambda a: a, np.int32(3))
    check_error(lambda a: rt.broadcast_to(a, [4, 4]), X, match="broadcast")


def test_identity():
    check_op(rt.identity, lambda a: a, X)
    check_op(rt.identity, lambda a: a, np.bool_(True))


def test_shape_size_rank():
    for x in (X, np.float32(1), np.zeros((0, 2), np.int64)):
        check_op(rt.shape, lambda a: np.array(a.shape, np.int32), x)
        check_op(rt.size, lambda a: np.int32(a.size), x)
        check_op(rt.rank, lambda a: np.int32(a.ndim), x)


def test_shape_and_size_out_type():
    check_op(lambda a: rt.shape(a, out_type=rt.int64), lambda a: np.array(a.shape, np.int64), X)
    check_op(lambda a: rt.size(a, rt.int64), lambda a: np.int64(a.size), X)
    with pytest.raises(TypeError, match="out_type"):
        rt.shape(rt.constant(X), rt.float32)


def test_shape_with_unknown_dims_is_computed_at_run_time():
    concrete = traced_for_specs(rt.shape, rt.TensorSpec([None, 3], rt.float32))
    assert concrete(rt.constant(np.ones((5, 3), np.float32))).numpy().tolist() == [5, 3]
    assert concrete.graph.outputs[0].shape == (2,)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_gather(axis):
    indices = np.array([[0, 1], [1, 0]], np.int32)
    check_op(lambda a, i: rt.gather(a, i, axis=axis), lambda a, i: np.take(a, i, axis=axis),
             X, indices)
    check_op(lambda a, i: rt.gather(a, i, axis=axis), lambda a, i: np.take(a, i, axis=axis),
             X, np.int64(1))


def test_gather_errors():
    check_error(lambda a, i: rt.gather(a, i), X, np.array([0, 2], np.int32), match="out of")
    with pytest.raises(TypeError, match="integers"):
        rt.gather(rt.constant(X), rt.constant([0.0]))


# ---- indexing ----------------------------------------------------------------------------------

KEYS = [
    0, -1, (1, 2), (1, 2, 3), slice(None), slice(1, None), slice(None, None, -1),
    (slice(None), 1), (Ellipsis, 0), (None, 0), (0, None, Ellipsis, None), (Ellipsis,),
    (slice(0, 2), slice(None, None, 2), -1), (1, slice(5, 0, -2)), (slice(3, 9),),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_indexing_like_numpy(key):
    check_op(lambda a: a[key], lambda a: a[key], X)


@pytest.mark.parametrize("key", [
    lambda i: i, lambda i: (0, i), lambda i: (i, 0), lambda i: (Ellipsis, i),
    lambda i: (0, slice(None), i), lambda i: (i, slice(None), 0), lambda i: (slice(None), i, i),
    lambda i: (None, i),
])
@pytest.mark.parametrize("index", [np.array([1, 0, 1], np.int32), np.int64(1),
                                   np.array([[0], [1]], np.int64)], ids=["1d", "0d", "2d"])
def test_tensor_indices_follow_numpy_advanced_indexing(key, index):
    check_op(lambda a, i: a[key(i)], lambda a, i: a[key(i)], X, index)


def test_slice_bounds_may_be_tensors():
    start, stop = np.int32(1), np.int32(3)
    check_op(lambda a, s, e: a[s:e], lambda a, s, e: a[s:e], X[0, 0], start, stop)
    check_op(lambda a, s: a[:, s:s + 2], lambda a, s: a[:, s:s + 2], X, start)


def test_indexing_with_a_list_and_on_a_variable():
    x = rt.constant(X)
    np.testing.assert_array_equal(x[[1, 0]].numpy(), X[[1, 0]])
    v = rt.Variable(X)
    np.testing.assert_array_equal(v[0, 1].numpy(), X[0, 1])


def test_indexing_errors():
    check_error(lambda a: a[2], X, match="out of bounds|out of range")
    check_error(lambda a: a[0, 0, 0, 0], X, match="too many indices")
    check_error(lambda a, i: a[i], X, np.array([0, 5], np.int32), match="out of bounds")
    with pytest.raises(rt.errors.InvalidArgumentError, match="single ellipsis"):
        rt.constant(X)[..., 0, ...]
    with pytest.raises(TypeError, match="integers"):
        rt.constant(X)[rt.constant(0.0)]
    with pytest.raises(TypeError, match="bool"):
        rt.constant(X)[True]


def test_indexing_with_unknown_dims():
    compiled, interpreted, concrete = run_in_graph(
        lambda a: a[1:, 0], np.ones((4, 3), np.float32))
    assert compiled.numpy().shape == (3,)
    concrete = traced_for_specs(lambda a: a[1:, 0], rt.TensorSpec([None, None], rt.float32))
    assert concrete.graph.outputs[0].shape == (None,)
    out = concrete(rt.constant(np.ones((4, 3), np.float32)))
    assert out.numpy().shape == (3,)
