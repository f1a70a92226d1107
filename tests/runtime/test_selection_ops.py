"""nonzero, flatnonzero, argwhere, unique, bincount, interp and boolean-mask indexing `x[mask]`
against numpy: eagerly, in compiled graphs and in the interpreter, with unknown dims (the
lengths of their results are unknown in a graph), gradients against finite differences, ONNX
export in onnxruntime, numba and XLA."""

import numpy as np
import pytest
from op_testing import check_error, check_op, onnx_agrees, traced_for_specs
from test_gradients import check as check_gradient

import runtime as rt

RNG = np.random.default_rng(5)
X = np.array([[0.0, 1.5, 0.0], [-2.0, 0.0, np.nan]])


def _ints(shape, dtype=np.int32, high=4):
    return RNG.integers(0, high, shape).astype(dtype)


VALUES = [X, X.astype(np.float32), _ints((3, 4)), _ints((5,), np.int8), _ints((2, 2, 3)) > 1,
          np.zeros((0, 3)), _ints((4,), np.uint8)]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: f"{v.dtype}{list(v.shape)}")
def test_nonzero_flatnonzero_argwhere_match_numpy(value):
    check_op(rt.nonzero, np.nonzero, value)
    check_op(rt.flatnonzero, np.flatnonzero, value)
    check_op(rt.argwhere, np.argwhere, value)


def test_argwhere_of_a_scalar_and_nonzero_refuses_one():
    check_op(rt.argwhere, np.argwhere, np.float32(3))
    check_op(rt.argwhere, np.argwhere, np.int32(0))
    check_error(lambda x: rt.nonzero(x), np.float32(3), match="0-d")
    with pytest.raises(TypeError, match="string"):
        rt.nonzero(rt.constant([b"a"]))


def test_numpys_one_argument_where_is_nonzero():
    cond = X > 0
    got = rt.nonzero(rt.constant(cond))
    assert isinstance(got, tuple)
    for g, w in zip(got, np.where(cond), strict=True):
        np.testing.assert_array_equal(g.numpy(), w)
    np.testing.assert_array_equal(rt.where(rt.constant(cond)).numpy(), np.argwhere(cond))


def test_selection_lengths_are_unknown_in_a_graph():
    concrete = traced_for_specs(lambda x: (*rt.nonzero(x), rt.flatnonzero(x), rt.argwhere(x)),
                                rt.TensorSpec([None, 3], rt.float64))
    assert [list(t.shape) for t in concrete.graph.outputs] == [[None], [None], [None], [None, 2]]
    got = concrete(rt.constant(X))
    want = (*np.nonzero(X), np.flatnonzero(X), np.argwhere(X))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w)
        assert g.numpy().dtype == np.int64


def test_nonzero_on_numba():
    pytest.importorskip("numba")
    for value in (X, _ints((6,))):
        got = rt.function(rt.nonzero, autograph=False, jit_compile="numba")(rt.constant(value))
        for g, w in zip(got, np.nonzero(value), strict=True):
            np.testing.assert_array_equal(g.numpy(), w)
            assert g.numpy().dtype == np.int64


# ---- unique ----------------------------------------------------------------------------------

FLAGS = [{}, {"return_counts": True}, {"return_index": True, "return_inverse": True},
         {"return_index": True, "return_inverse": True, "return_counts": True}]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: "+".join(f) or "values")
@pytest.mark.parametrize("value", [_ints((3, 4)), _ints((7,), np.int64, 9), np.float32(2.5),
                                   np.array([2.0, np.nan, 1.0, np.nan, 2.0]),
                                   _ints((5,)) > 1, np.zeros(0, np.float32)],
                         ids=lambda v: f"{v.dtype}{list(np.shape(v))}")
def test_unique_matches_numpy(value, flags):
    check_op(lambda x: rt.unique(x, **flags), lambda x: np.unique(x, **flags), value)


def test_unique_with_unknown_dims():
    concrete = traced_for_specs(lambda x: rt.unique(x, True, True, True),
                                rt.TensorSpec([None, None], rt.int32))
    assert [list(t.shape) for t in concrete.graph.outputs] == [[None], [None], [None, None],
                                                               [None]]
    value = _ints((3, 5))
    for g, w in zip(concrete(rt.constant(value)), np.unique(value, True, True, True),
                    strict=True):
        np.testing.assert_array_equal(g.numpy(), w)


# ---- bincount --------------------------------------------------------------------------------

@pytest.mark.parametrize("minlength", [0, 3, 12])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.bool_])
def test_bincount_matches_numpy(dtype, minlength):
    x = _ints((9,), dtype, 6)
    check_op(lambda v: rt.bincount(v, minlength=minlength),
             lambda v: np.bincount(v, minlength=minlength), x)
    for weights in (RNG.uniform(-1, 1, 9), RNG.uniform(-1, 1, 9).astype(np.float32),
                    _ints((9,))):
        check_op(lambda v, w: rt.bincount(v, w, minlength),
                 lambda v, w: np.bincount(v, w, minlength), x, weights)
    check_op(lambda v: rt.bincount(v, minlength=minlength),
             lambda v: np.bincount(v, minlength=minlength), np.zeros(0, np.int64))


def test_bincount_length_is_unknown_in_a_graph():
    concrete = traced_for_specs(lambda x, w: (rt.bincount(x), rt.bincount(x, w, 2)),
                                rt.TensorSpec([None], rt.int64), rt.TensorSpec([None], rt.float32))
    assert [(t.dtype, list(t.shape)) for t in concrete.graph.outputs] == [
        (rt.int64, [None]), (rt.float64, [None])]
    x, w = np.array([4, 0, 4]), np.float32([0.5, 1.0, 2.0])
    counts, sums = concrete(rt.constant(x), rt.constant(w))
    np.testing.assert_array_equal(counts.numpy(), np.bincount(x))
    np.testing.assert_array_equal(sums.numpy(), np.bincount(x, w, 2))


def test_bincount_errors():
    check_error(lambda x: rt.bincount(x), np.array([1, -1, 2]), match="negative")
    check_error(lambda x: rt.bincount(x), np.array([[1, 2]]), match="1-D")
    check_error(lambda x, w: rt.bincount(x, w), np.array([1, 2]), np.array([1.0, 2.0, 3.0]),
                match="weights")
    with pytest.raises(TypeError, match=r"integer values.*rt\.cast"):
        rt.bincount(rt.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="minlength"):
        rt.bincount(rt.constant([1, 2]), minlength=-1)


# ---- interp ----------------------------------------------------------------------------------

XP = np.array([-1.0, 0.0, 0.5, 2.0])
FP = np.array([3.0, -1.0, 2.0, 0.5])
XS = np.array([[-3.0, -1.0, -0.25, 0.0], [0.3, 1.2, 2.0, 5.0]])


@pytest.mark.parametrize("bounds", [{}, {"left": -7.0}, {"right": 9}, {"left": 1, "right": 2.5}])
def test_interp_matches_numpy(bounds):
    check_op(lambda x, xp, fp: rt.interp(x, xp, fp, **bounds),
             lambda x, xp, fp: np.interp(x, xp, fp, **bounds), XS, XP, FP)
    check_op(lambda x, xp, fp: rt.interp(x, xp, fp, **bounds),
             lambda x, xp, fp: np.interp(x, xp, fp, **bounds), np.float32(0.75),
             XP.astype(np.float32), FP.astype(np.float32))
    check_op(lambda x, xp, fp: rt.interp(x, xp, fp, **bounds),
             lambda x, xp, fp: np.interp(x, xp, fp, **bounds), np.array([0, 1, 3], np.int32),
             np.array([1, 2], np.int32), np.array([10, 20], np.int32))
    check_op(lambda x, xp, fp: rt.interp(x, xp, fp, **bounds),
             lambda x, xp, fp: np.interp(x, xp, fp, **bounds), XS, XP[:1], FP[:1])


def test_interp_with_unknown_dims_and_errors():
    concrete = traced_for_specs(rt.interp, rt.TensorSpec([None, 4], rt.float64),
                                rt.TensorSpec([None], rt.float64),
                                rt.TensorSpec([None], rt.float64))
    assert list(concrete.graph.outputs[0].shape) == [None, 4]
    np.testing.assert_array_equal(concrete(*map(rt.constant, (XS, XP, FP))).numpy(),
                                  np.interp(XS, XP, FP))
    check_error(lambda x, xp, fp: rt.interp(x, xp, fp), XS, XP, FP[:3], match="4 points but fp 3")
    check_error(lambda x, xp, fp: rt.interp(x, xp, fp), XS, XP[None], FP, match="1-D")
    check_error(lambda x, xp, fp: rt.interp(x, xp, fp), XS, XP[:0], FP[:0], match="empty")
    with pytest.raises(TypeError, match="real tensors, not complex"):
        rt.interp(rt.constant(XS), rt.constant(XP), rt.constant(FP.astype(np.complex128)))
    check_op(lambda x, xp, fp: rt.interp(x, xp, fp), lambda x, xp, fp: np.interp(x, xp, fp),
             np.array([True, False]), XP, FP)
    with pytest.raises(TypeError, match="left must be a number"):
        rt.interp(rt.constant(XS), rt.constant(XP), rt.constant(FP), left=rt.constant([1.0]))


def test_interp_gradients():
    x = np.array([[-3.0, -0.7, -0.25], [0.3, 1.2, 5.0]])  # away from the sample points
    for bounds in ({}, {"left": -7.0, "right": 4.0}):
        check_gradient(lambda a, fp, bounds=bounds: rt.interp(a, rt.constant(XP), fp, **bounds),
                       x, FP)
    check_gradient(lambda fp: rt.interp(rt.constant([-1.0, 2.0, 0.5]), rt.constant(XP), fp),
                   FP)  # at the sample points: the values themselves
    check_gradient(lambda fp: rt.interp(rt.constant([0.0, 9.0]), rt.constant(XP[:1]), fp),
                   FP[:1])


def test_interp_on_xla():
    pytest.importorskip("jax")
    import jax

    if not jax.config.jax_enable_x64:
        pytest.skip("interp gives float64: XLA needs JAX's 64-bit mode")
    f = rt.function(rt.interp, autograph=False, jit_compile="xla")
    np.testing.assert_allclose(f(*map(rt.constant, (XS, XP, FP))).numpy(), np.interp(XS, XP, FP))


# ---- boolean masks ---------------------------------------------------------------------------

Y = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("mask", [Y > 10, Y[:, :, 0] > 10, np.array([True, False]),
                                  np.zeros((2, 3), bool), np.array(True)],
                         ids=["full", "leading two", "leading one", "none", "0-d"])
def test_boolean_mask_matches_numpy(mask):
    check_op(lambda x, m: x[m], lambda x, m: x[m], Y, mask)
    check_op(lambda x, m: x[m], lambda x, m: x[m], Y.astype(np.int64), mask)


def test_boolean_mask_keys():
    x = rt.constant(Y)
    np.testing.assert_array_equal(x[[True, False]].numpy(), Y[[True, False]])
    np.testing.assert_array_equal(x[np.array([False, True])].numpy(), Y[np.array([False, True])])
    np.testing.assert_array_equal(x[x > 5.0].numpy(), Y[Y > 5])
    np.testing.assert_array_equal(x[rt.constant([0, 1])].numpy(), Y[[0, 1]])  # still integers


def test_boolean_mask_with_unknown_dims():
    concrete = traced_for_specs(lambda x, m: x[m] * 2.0, rt.TensorSpec([None, None, 4], rt.float32),
                                rt.TensorSpec([None, None], rt.bool))
    assert list(concrete.graph.outputs[0].shape) == [None, 4]
    mask = Y[:, :, 0] > 10
    np.testing.assert_array_equal(concrete(rt.constant(Y), rt.constant(mask)).numpy(), Y[mask] * 2)


def test_boolean_mask_errors():
    check_error(lambda x, m: x[m], Y, np.ones((3,), bool), match="did not match")
    check_error(lambda x, m: x[m], Y[0, 0], np.ones((4, 1), bool), match="too many indices")
    with pytest.raises(TypeError, match="whole key"):
        rt.constant(Y)[rt.constant([True, False]), 0]


def test_boolean_mask_gradient():
    mask = Y[:, :, 0] > 10
    check_gradient(lambda x: x[rt.constant(mask)] ** 2, Y.astype(np.float64))
    check_gradient(lambda x: x[x > 12.5] * 3.0, Y.astype(np.float64))

    def second(x, m):  # the gradient of the gradient: through BooleanMaskGrad
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = rt.reduce_sum(x[m] ** 3)
            total = rt.reduce_sum(inner.gradient(y, x))
        return outer.gradient(total, x)

    spec = [rt.TensorSpec([None, None, 4], rt.float64), rt.TensorSpec([None, None], rt.bool)]
    got = traced_for_specs(second, *spec)(rt.constant(Y.astype(np.float64)), rt.constant(mask))
    np.testing.assert_allclose(got.numpy(), np.where(mask[:, :, None], 6 * Y, 0))


# ---- ONNX --------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [_ints((3, 4)), _ints((6,), np.int8), _ints((2, 3), np.int64),
                                   _ints((5,)) > 1], ids=lambda v: str(v.dtype))
def test_onnx_export_of_selections(value):
    onnx_agrees(lambda x: (*rt.nonzero(x), rt.flatnonzero(x), rt.argwhere(x),
                           *rt.unique(x, True, True, True)), value)


@pytest.mark.parametrize("value", [X, X.astype(np.float32)], ids=lambda v: str(v.dtype))
def test_onnx_export_of_float_selections(value):
    onnx_agrees(lambda x: (*rt.nonzero(x), rt.flatnonzero(x), rt.argwhere(x)), value)
    f = rt.function(rt.unique, autograph=False)
    with pytest.raises(rt.onnx.ExportError, match="drops NaNs"):
        rt.onnx.export(f.get_concrete_function(rt.constant(value)))


def test_onnx_export_of_bincount_and_masks():
    x, w = np.array([4, 0, 4, 1], np.int32), np.float32([0.5, 1.0, 2.0, 3.0])
    onnx_agrees(lambda v, u: (rt.bincount(v), rt.bincount(v, u, 7), rt.bincount(v[:0])), x, w)

    def masked(x, m):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(x[m] ** 2)
        return x[m], x[x > 3.0], tape.gradient(y, x)

    onnx_agrees(masked, Y, Y[:, :, 1] > 6)
