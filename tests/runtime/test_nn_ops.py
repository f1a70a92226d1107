"""log_softmax, logsumexp, one_hot, the softmax and sigmoid cross-entropies, clip_by_norm and
clip_by_global_norm (runtime/ops/nn_ops.py) against numpy float64 references: eagerly, in
compiled graphs and in the interpreter (check_op), with unknown dims, at extreme logits, their
gradients against finite differences, ONNX against onnxruntime, the numba and XLA lowerings,
and bad input."""

import numpy as np
import pytest
from op_testing import check_error, check_op, graph_function, onnx_agrees
from test_arrangement_ops import backend_agrees, check_unknown_dims
from test_gradients import check as check_gradient

import runtime as rt
from runtime.ops import nn_ops as nn
from runtime.ops.registry import GRADIENT, JAX, NUMBA, ONNX

RNG = np.random.default_rng(3)
X = RNG.normal(size=(4, 5)).astype(np.float32) * 3
X3 = RNG.normal(size=(2, 3, 4)).astype(np.float32)
EXTREME = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0],
                    [1000.0, 1000.0, 999.0]], np.float32)
LABELS = np.array([1, 0, 4, 2], np.int32)
LABELS3 = np.array([[0, 3, 1], [2, 2, 0]], np.int64)


# ---- float64 references --------------------------------------------------------------------------

def np_log_softmax(x, axis=-1):
    x = np.asarray(x, np.float64)
    shifted = x - x.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


def np_logsumexp(x, axis=None, keepdims=False):
    x = np.asarray(x, np.float64)
    top = x.max(axis, keepdims=True)
    out = np.log(np.exp(x - top).sum(axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis)


def np_one_hot(indices, depth, on=1.0, off=0.0, axis=-1, dtype=np.float32):
    hit = np.asarray(indices)[..., None] == np.arange(depth)
    return np.moveaxis(np.where(hit, on, off).astype(dtype), -1, axis)


def np_sparse_xent(labels, logits):
    return -np.take_along_axis(np_log_softmax(logits), np.asarray(labels)[..., None], -1)[..., 0]


def np_softmax(x, axis=-1):
    return np.exp(np_log_softmax(x, axis))


def _float(np_fn, like):
    """`np_fn`'s float64 result in the dtype of `like` (what check_op expects)."""
    return lambda *a: np.asarray(np_fn(*a)).astype(like.dtype)


# ---- values --------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_log_softmax(axis):
    for x in (X, X.astype(np.float64), EXTREME):
        check_op(lambda x: nn.log_softmax(x, axis), _float(lambda x: np_log_softmax(x, axis), x),
                 x, rtol=2e-6, atol=1e-6)
    check_op(lambda x: nn.log_softmax(x, axis), lambda x: np_log_softmax(x, axis).astype(
        np.float16), X.astype(np.float16), rtol=5e-3, atol=5e-3)
    check_op(lambda x: nn.log_softmax(x, 2), lambda x: np_log_softmax(x, 2).astype(np.float32),
             X3, rtol=2e-6, atol=1e-6)
    check_unknown_dims(lambda x: nn.log_softmax(x, axis), lambda x: np_log_softmax(x, axis),
                       X.astype(np.float64), rtol=1e-12)


@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), (0, False), (1, True),
                                            ((0, 1), False), ([-1], True), ((0, 2), False)])
def test_logsumexp(axis, keepdims):
    for x in (X, X.astype(np.float64), EXTREME, X3):
        if axis is not None and max(np.ravel(axis)) >= x.ndim:
            continue
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        check_op(lambda x: nn.logsumexp(x, axis, keepdims),
                 _float(lambda x, a=np_axis: np_logsumexp(x, a, keepdims), x), x, rtol=2e-6)
    check_unknown_dims(lambda x: nn.logsumexp(x, axis, keepdims), lambda x: np_logsumexp(
        x, tuple(axis) if isinstance(axis, list) else axis, keepdims).astype(np.float32), X3,
        rtol=2e-6)
    assert nn.reduce_logsumexp is nn.logsumexp


def test_logsumexp_of_infinities_is_scipys():
    special = pytest.importorskip("scipy.special")
    x = np.array([[-np.inf, -np.inf, -np.inf], [0.0, -np.inf, 1.0], [np.inf, 0.0, 1.0],
                  [1000.0, 1000.0, -np.inf], [-1e30, -1e30, -1e30]])
    with np.errstate(all="ignore"):
        want = special.logsumexp(x, axis=1)
    check_op(lambda x: nn.logsumexp(x, 1), lambda x: want, x)
    assert float(nn.logsumexp(rt.constant(np.full(3, -np.inf, np.float32)))) == -np.inf
    assert float(nn.logsumexp(rt.constant(np.zeros(0, np.float32)))) == -np.inf  # as scipy's
    log_probs = nn.log_softmax(rt.constant(np.array([0.0, -np.inf, 1.0]))).numpy()
    np.testing.assert_allclose(log_probs, special.log_softmax([0.0, -np.inf, 1.0]))


@pytest.mark.parametrize("axis", [-1, 0, 1, 2, -3])
def test_one_hot(axis):
    indices = np.array([[0, 3, 5], [-1, 2, 1]], np.int32)
    check_op(lambda i: nn.one_hot(i, 4, axis=axis),
             lambda i: np_one_hot(i, 4, axis=axis), indices)
    for dtype, on, off in ((rt.int32, 7, -2), (rt.float64, 0.5, -0.25), (rt.bool, True, False),
                           (rt.uint8, 255, 0)):
        check_op(lambda i, on=on, off=off, dtype=dtype: nn.one_hot(i, 3, on, off, axis, dtype),
                 lambda i, on=on, off=off, dtype=dtype: np_one_hot(i, 3, on, off, axis,
                                                                   dtype.np_dtype), indices)
    check_unknown_dims(lambda i: nn.one_hot(i, 4, axis=axis),
                       lambda i: np_one_hot(i, 4, axis=axis), indices)


def test_one_hot_indices_and_values():
    check_op(lambda i: nn.one_hot(i, 5), lambda i: np_one_hot(i, 5), np.int64(3))
    check_op(lambda i: nn.one_hot(i, 5), lambda i: np_one_hot(i, 5), np.int64(9))
    check_op(lambda i: nn.one_hot(i, 0), lambda i: np_one_hot(i, 0), LABELS)
    check_op(lambda i: nn.one_hot(i, 4), lambda i: np_one_hot(i, 4), LABELS3.astype(np.uint8))
    # tensors for on_value / off_value set the dtype; Python numbers take it
    check_op(lambda i, on: nn.one_hot(i, 5, on, -1), lambda i, on: np_one_hot(
        i, 5, on, -1, dtype=np.float64), LABELS, np.float64(2.5))
    assert nn.one_hot([1], 2, on_value=rt.constant(3)).dtype is rt.int32
    assert nn.one_hot([1], 2).dtype is rt.float32
    assert nn.one_hot([1], rt.constant(2)).shape == (1, 2)


def test_sparse_softmax_cross_entropy_with_logits():
    for x in (X, X.astype(np.float64)):
        check_op(nn.sparse_softmax_cross_entropy_with_logits, _float(np_sparse_xent, x),
                 LABELS, x, rtol=2e-6, atol=1e-6)
    check_op(nn.sparse_softmax_cross_entropy_with_logits,
             lambda a, b: np_sparse_xent(a, b).astype(np.float32), LABELS3, X3, rtol=2e-6)
    check_op(nn.sparse_softmax_cross_entropy_with_logits,
             lambda a, b: np_sparse_xent(a, b).astype(np.float32), np.int32(2), X[0], rtol=2e-6)
    check_op(nn.sparse_softmax_cross_entropy_with_logits,
             lambda a, b: np_sparse_xent(a, b).astype(np.float16), LABELS,
             X.astype(np.float16), rtol=5e-3, atol=5e-3)
    check_op(nn.sparse_softmax_cross_entropy_with_logits,
             lambda a, b: np.zeros(0, np.float32), np.zeros(0, np.int32), np.zeros((0, 3),
                                                                                   np.float32))
    check_unknown_dims(nn.sparse_softmax_cross_entropy_with_logits,
                       lambda a, b: np_sparse_xent(a, b).astype(np.float32), LABELS3, X3,
                       rtol=2e-6)


def test_dense_and_sigmoid_cross_entropies():
    probs = np_softmax(RNG.normal(size=X.shape)).astype(np.float32)
    check_op(nn.softmax_cross_entropy_with_logits,
             lambda p, x: -(p * np_log_softmax(x)).sum(-1).astype(np.float32), probs, X,
             rtol=1e-5, atol=1e-6)
    check_op(lambda p, x: nn.softmax_cross_entropy_with_logits(p, x, axis=0),
             lambda p, x: -(p * np_log_softmax(x, 0)).sum(0).astype(np.float32), probs, X,
             rtol=1e-5, atol=1e-6)
    hot = np_one_hot(LABELS, 5)
    check_op(nn.softmax_cross_entropy_with_logits,
             lambda p, x: np_sparse_xent(LABELS, x).astype(np.float32), hot, X, rtol=1e-5,
             atol=1e-6)
    z = (RNG.random(X.shape) > 0.5).astype(np.float32)
    x64 = X.astype(np.float64)

    def np_sigmoid_xent(z, x):
        return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))

    check_op(nn.sigmoid_cross_entropy_with_logits,
             lambda z, x: np_sigmoid_xent(z, x.astype(np.float64)).astype(np.float32), z, X,
             rtol=1e-5, atol=1e-6)
    p = 1 / (1 + np.exp(-x64))
    np.testing.assert_allclose(
        nn.sigmoid_cross_entropy_with_logits(z, x64).numpy(),
        -(z * np.log(p) + (1 - z) * np.log(1 - p)), rtol=1e-9)


def np_clip_by_norm(t, clip, axes=None):
    norm = np.sqrt((np.asarray(t, np.float64) ** 2).sum(axes, keepdims=True))
    return t * clip / np.maximum(norm, clip)


@pytest.mark.parametrize("clip", [0.5, 3.0, 100.0])
def test_clip_by_norm(clip):
    for axes in (None, 0, 1, [0, 1]):
        np_axes = tuple(axes) if isinstance(axes, list) else axes
        check_op(lambda t, axes=axes: nn.clip_by_norm(t, clip, axes),
                 _float(lambda t, a=np_axes: np_clip_by_norm(t, clip, a), X), X, rtol=2e-6)
    check_op(lambda t, c: nn.clip_by_norm(t, c), lambda t, c: np_clip_by_norm(t, c), X[0],
             np.float32(clip), dtype=np.float32, rtol=2e-6)
    zero = np.zeros((2, 3), np.float32)
    check_op(lambda t: nn.clip_by_norm(t, clip, 1), lambda t: zero, zero)


def test_clip_by_global_norm():
    a, b = X, X3.astype(np.float64)
    norm = np.sqrt((a.astype(np.float64) ** 2).sum() + (b ** 2).sum())
    for clip in (1.0, norm * 2):
        clipped, got = nn.clip_by_global_norm([a, None, b], clip)
        assert clipped[1] is None and got.dtype is rt.float64
        np.testing.assert_allclose(got.numpy(), norm, rtol=1e-6)
        scale = clip / max(norm, clip)
        assert clipped[0].dtype is rt.float32 and clipped[2].dtype is rt.float64
        np.testing.assert_allclose(clipped[0].numpy(), a * scale, rtol=2e-6)
        np.testing.assert_allclose(clipped[2].numpy(), b * scale, rtol=1e-6)

    @rt.function
    def traced(a, b):
        clipped, norm = nn.clip_by_global_norm((a, b), 2.0)
        return clipped[0], clipped[1], norm

    eager = nn.clip_by_global_norm((rt.constant(a), rt.constant(b)), 2.0)
    graph = traced(rt.constant(a), rt.constant(b))
    for g, e in zip(graph, [*eager[0], eager[1]]):
        np.testing.assert_array_equal(g.numpy(), e.numpy())
    # an infinite norm makes everything nan, as TensorFlow's; a zero norm leaves zeros
    with np.errstate(invalid="ignore"):  # inf - inf
        clipped, norm = nn.clip_by_global_norm([np.array([np.inf, 1.0])], 1.0)
    assert np.isinf(norm.numpy()) and np.isnan(clipped[0].numpy()).all()
    clipped, norm = nn.clip_by_global_norm([np.zeros(3)], 1.0)
    assert float(norm) == 0.0 and (clipped[0].numpy() == 0).all()
    clipped, _ = nn.clip_by_global_norm([np.array([3.0, 4.0])], 1.0, use_norm=10.0)
    np.testing.assert_allclose(clipped[0].numpy(), [0.3, 0.4])


def test_extreme_logits_give_no_nan_or_inf():
    labels = np.array([1, 2, 2], np.int32)
    x = rt.constant(EXTREME)
    with rt.GradientTape() as tape:
        tape.watch(x)
        outs = [nn.log_softmax(x), nn.logsumexp(x, 1), nn.logsumexp(x),
                nn.sparse_softmax_cross_entropy_with_logits(labels, x),
                nn.softmax_cross_entropy_with_logits(np_one_hot(labels, 3), x),
                nn.sigmoid_cross_entropy_with_logits(np.ones((3, 3), np.float32), x)]
        total = sum(rt.reduce_sum(o) for o in outs)
    for out in [*outs, tape.gradient(total, x)]:
        assert np.isfinite(out.numpy()).all(), out
    np.testing.assert_allclose(outs[3].numpy(), [2000.0, np.log(3.0), 1.0 + np.log(
        2 + np.exp(-1.0))], rtol=1e-6)
    np.testing.assert_allclose(outs[1].numpy(), [1000.0, -1000.0 + np.log(3.0), 1000.0 + np.log(
        2 + np.exp(-1.0))], rtol=1e-7)


# ---- gradients -----------------------------------------------------------------------------------

A = RNG.normal(size=(3, 4))
A3 = RNG.normal(size=(2, 3, 4))


def test_gradients():
    check_gradient(lambda a: nn.log_softmax(a), A)
    check_gradient(lambda a: nn.log_softmax(a, 0), A)
    check_gradient(lambda a: nn.log_softmax(a, 1) * a, A3)
    check_gradient(lambda a: nn.logsumexp(a), A)
    check_gradient(lambda a: nn.logsumexp(a, 1), A)
    check_gradient(lambda a: nn.logsumexp(a, (0, 2), keepdims=True), A3)
    check_gradient(lambda a: nn.logsumexp(a * 300.0, 0), A)  # no overflow
    check_gradient(lambda a: nn.sparse_softmax_cross_entropy_with_logits([2, 0, 3], a), A)
    check_gradient(lambda a: nn.sparse_softmax_cross_entropy_with_logits(LABELS3[:, :3], a), A3)
    check_gradient(lambda p, a: nn.softmax_cross_entropy_with_logits(p, a), np_softmax(A), A)
    check_gradient(lambda z, a: nn.sigmoid_cross_entropy_with_logits(z, a),
                   RNG.random(A.shape), A)
    check_gradient(lambda on, off: nn.one_hot([[0, 2], [5, 1]], 3, on, off, axis=1), 1.5, -0.5)
    check_gradient(lambda a, c: nn.clip_by_norm(a, c), A, 1.0)  # clipped
    check_gradient(lambda a, c: nn.clip_by_norm(a, c, 1), A, 1.0)
    check_gradient(lambda a: nn.clip_by_norm(a, 100.0), A)  # not clipped
    check_gradient(lambda a, b: nn.clip_by_global_norm([a, None, b], 2.0)[0][::2], A, A3)


def test_gradients_of_the_labels_are_none_and_zero_rows_stay_finite():
    labels, x = rt.constant(LABELS), rt.constant(X)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([labels, x])
        loss = rt.reduce_sum(nn.sparse_softmax_cross_entropy_with_logits(labels, x))
        hot = nn.one_hot(labels, 5)
    assert tape.gradient(loss, [labels, x])[0] is None
    assert tape.gradient(hot, labels) is None
    grad = tape.gradient(loss, x).numpy()
    np.testing.assert_allclose(grad, np_softmax(X) - np_one_hot(LABELS, 5), atol=1e-6)
    # a slice of -inf: logsumexp -inf, its gradient zeros (no element changes it)
    x = rt.constant(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = nn.logsumexp(x, 1)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0.0, 0.0], [1.0, 0.0]])
    z = rt.constant(np.zeros(3))
    with rt.GradientTape() as tape:
        tape.watch(z)
        y = rt.reduce_sum(nn.clip_by_norm(z, 1.0))
    np.testing.assert_array_equal(tape.gradient(y, z).numpy(), [1.0, 1.0, 1.0])


def test_gradients_with_unknown_dims():
    def fn(labels, x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = (rt.reduce_sum(nn.sparse_softmax_cross_entropy_with_logits(labels, x))
                 + rt.reduce_sum(nn.log_softmax(x, 1) ** 2)
                 + rt.reduce_sum(nn.logsumexp(x, (0, 2)) ** 2))
        return tape.gradient(y, x)

    want = fn(rt.constant(LABELS3), rt.constant(X3.astype(np.float64))).numpy()
    check_unknown_dims(fn, lambda a, b: want, LABELS3, X3.astype(np.float64), rtol=1e-12)


# ---- ONNX, numba, XLA ----------------------------------------------------------------------------

def test_onnx_export():
    def fn(x, x3, labels, labels3, i):
        return (nn.log_softmax(x), nn.log_softmax(x3, 1), nn.logsumexp(x), nn.logsumexp(x3, 1),
                nn.logsumexp(x3, (0, 2), keepdims=True), nn.logsumexp(x, 0, keepdims=True),
                nn.sparse_softmax_cross_entropy_with_logits(labels, x),
                nn.sparse_softmax_cross_entropy_with_logits(labels3, x3),
                nn.one_hot(i, 4), nn.one_hot(i, 3, 5, -1, axis=0, dtype=rt.int32),
                nn.one_hot(labels, 6, True, False, dtype=rt.bool),
                nn.one_hot(labels, 2, 300, -300, dtype=rt.int16),
                nn.softmax_cross_entropy_with_logits(nn.one_hot(labels, 5), x),
                nn.clip_by_norm(x, 1.0, 1))

    indices = np.array([[0, 3, 5], [-1, 2, 1]], np.int64)
    labels3 = LABELS3[:, :3].astype(np.int32)
    onnx_agrees(fn, X, X3, LABELS, labels3, indices, rtol=1e-5, atol=1e-5)
    onnx_agrees(fn, X, X3, LABELS, labels3, indices, unknown_dims=True, rtol=1e-5, atol=1e-5)
    onnx_agrees(lambda x: (nn.log_softmax(x), nn.logsumexp(x, 1)), EXTREME, rtol=1e-6)
    inf = np.array([[-np.inf, -np.inf], [np.inf, 0.0], [1.0, 2.0]])
    onnx_agrees(lambda x: nn.logsumexp(x, 1), inf, rtol=1e-12)
    model = onnx_agrees(lambda x: nn.log_softmax(x, 0), X.astype(np.float64), rtol=1e-12)
    assert "LogSoftmax" in {n.op_type for n in model.graph.node}


def test_numba_and_xla():
    backend_agrees(lambda i: nn.one_hot(i, 3, 7, -1, 1, rt.int32),  # (numba compiles slowly)
                   np.array([[0, 3, 5], [-1, 2, 1]], np.int32), jit_compile="numba")
    backend_agrees(lambda x, x3, labels, labels3, i: (
        nn.log_softmax(x), nn.log_softmax(x3, 1), nn.logsumexp(x), nn.logsumexp(x3, (0, 2)),
        nn.logsumexp(x, 1, keepdims=True),
        nn.sparse_softmax_cross_entropy_with_logits(labels, x),
        nn.sparse_softmax_cross_entropy_with_logits(labels3, x3),
        nn.one_hot(i, 4, axis=1), nn.one_hot(labels, 6, 2.0, 0.5, dtype=rt.float64),
        nn.clip_by_global_norm([x, x3], 1.0)[0][1]),
        X, X3, LABELS, LABELS3[:, :3], np.array([[0, 3, 5], [-1, 2, 1]]), jit_compile="xla",
        rtol=2e-5)
    backend_agrees(lambda x: (nn.log_softmax(x), nn.logsumexp(x, 1)), EXTREME,
                   jit_compile="xla", rtol=1e-6)


def test_xla_gives_nan_for_a_label_out_of_range():
    """XLA cannot raise inside the compiled function: the loss of that example is nan (as
    TensorFlow's GPU kernel gives); the default executor raises (test_bad_input)."""
    jax = pytest.importorskip("jax")
    f = graph_function(nn.sparse_softmax_cross_entropy_with_logits, jit_compile="xla")
    with jax.enable_x64(False):
        loss = f(rt.constant(np.array([1, 5, -1, 0], np.int32)), rt.constant(X)).numpy()
    assert np.isnan(loss[1:3]).all() and np.isfinite(loss[[0, 3]]).all()


def test_every_op_has_every_rule_kind_or_says_why_not():
    from runtime.executor import numba_rules  # noqa: F401 - registers their rules
    from runtime.onnx import rules  # noqa: F401

    for opdef in (nn.LOG_SOFTMAX, nn.LOGSUMEXP, nn.ONE_HOT, nn.SPARSE_XENT):
        for kind in (GRADIENT, ONNX, JAX, NUMBA):
            assert opdef.rule(kind) is not None or len(opdef.lacking.get(kind, "")) > 10, (
                opdef.name, kind)
    assert nn.ONE_HOT.rule(NUMBA) is not None and NUMBA in nn.LOG_SOFTMAX.lacking


# ---- bad input -----------------------------------------------------------------------------------

def test_bad_input():
    check_error(lambda a, b: nn.sparse_softmax_cross_entropy_with_logits(a, b), LABELS + 1, X,
                match=r"label value of 5 which is outside the valid range of \[0, 5\)")
    check_error(lambda a, b: nn.sparse_softmax_cross_entropy_with_logits(a, b), LABELS - 2, X,
                match=r"label value of -1 which is outside the valid range")
    check_error(lambda a, b: nn.sparse_softmax_cross_entropy_with_logits(a, b), LABELS[:3], X,
                match="do not fit logits")
    check_error(lambda a, b: nn.sparse_softmax_cross_entropy_with_logits(a, b), LABELS, X3,
                match="must have rank 2")
    check_error(lambda a, b: nn.sparse_softmax_cross_entropy_with_logits(a, b),
                LABELS.astype(np.float32), X, match="labels must be integers", error=TypeError)
    check_error(lambda a, b: nn.sparse_softmax_cross_entropy_with_logits(a, b), LABELS,
                LABELS3, match="float tensors", error=TypeError)
    check_error(lambda a: nn.log_softmax(a), LABELS, match="float tensors", error=TypeError)
    check_error(lambda a: nn.log_softmax(a, 2), X, match="axis 2 is out of range")
    check_error(lambda a: nn.log_softmax(a), np.float32(1.0), match="rank >= 1")
    check_error(lambda a: nn.logsumexp(a, 2), X, match="axis 2 is out of range")
    check_error(lambda a: nn.logsumexp(a, (1, -1)), X, match="names an axis twice")
    check_error(lambda a: nn.logsumexp(a), LABELS, match="float tensors", error=TypeError)
    check_error(lambda a: nn.one_hot(a, 3), X, match="indices must be integers", error=TypeError)
    check_error(lambda a: nn.one_hot(a, -1), LABELS, match="depth must be one int >= 0")
    check_error(lambda a: nn.one_hot(a, 3, axis=3), LABELS, match="axis 3 is out of range")
    check_error(lambda a: nn.one_hot(a, 3, on_value=rt.constant(1.0), dtype=rt.int32), LABELS,
                match="on_value is float32", error=TypeError)
    check_error(lambda a: nn.one_hot(a, 3, off_value=[0, 1]), LABELS, match="must be a scalar")
    check_error(lambda a: nn.one_hot(a, 3, dtype=rt.string), LABELS, match="string",
                error=TypeError)
    check_error(lambda a: nn.clip_by_global_norm(a, 1.0), X, match="list or tuple",
                error=TypeError)
    check_error(lambda a: nn.clip_by_norm(a, 1.0), LABELS, match="float tensors", error=TypeError)
    with pytest.raises(TypeError, match="known while tracing"):
        graph_function(lambda i, d: nn.one_hot(i, d))(rt.constant(LABELS), rt.constant(3))
