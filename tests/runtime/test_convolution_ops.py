"""conv2d, its two gradient ops, max_pool2d and avg_pool2d (runtime/ops/convolution_ops.py)
against naive float64 loops written here: eagerly, in compiled graphs and in the interpreter
(check_op), with unknown dims, their gradients (first and second order) against finite
differences, ONNX against onnxruntime, the XLA lowering against the default executor, and the
errors for bad arguments."""

import numpy as np
import pytest
from op_testing import check_error, check_op, graph_function, onnx_agrees, traced_for_specs
from test_gradients import check as check_gradient

import runtime as rt
from runtime.ops import convolution_ops as co
from runtime.ops.registry import FUSED, GRADIENT, JAX, NUMBA, ONNX, apply

RNG = np.random.default_rng(7)


def _normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# ---- naive float64 references (TensorFlow's rules, written as loops) ---------------------------

def _dim(size, k, stride, dilation, padding):
    span = (k - 1) * dilation + 1
    if padding.upper() == "SAME":
        out = -(-size // stride)
        return out, max((out - 1) * stride + span - size, 0) // 2
    return (size - span) // stride + 1, 0


def _pair(v):
    v = [v] if isinstance(v, int) else list(v)
    return v[1:3] if len(v) == 4 else v * 2 if len(v) == 1 else v


def _taps(x_shape, k, strides, dilations, padding):
    """(i, j, a, b, r, c): output (i, j) reads input (r, c) by tap (a, b); only inside rows."""
    (sh, sw), (dh, dw) = _pair(strides), _pair(dilations)
    oh, top = _dim(x_shape[1], k[0], sh, dh, padding)
    ow, left = _dim(x_shape[2], k[1], sw, dw, padding)
    taps = []
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for b in range(k[1]):
                    r, c = i * sh + a * dh - top, j * sw + b * dw - left
                    if 0 <= r < x_shape[1] and 0 <= c < x_shape[2]:
                        taps.append((i, j, a, b, r, c))
    return (oh, ow), taps


def ref_conv(x, w, strides=1, padding="VALID", dilations=1):
    x, w = x.astype(np.float64), w.astype(np.float64)
    (oh, ow), taps = _taps(x.shape, w.shape[:2], strides, dilations, padding)
    y = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i, j, a, b, r, c in taps:
        y[:, i, j, :] += x[:, r, c, :] @ w[a, b]
    return y


def ref_backprop_input(sizes, w, g, strides=1, padding="VALID", dilations=1):
    w, g = w.astype(np.float64), g.astype(np.float64)
    dx = np.zeros(sizes)
    for i, j, a, b, r, c in _taps(sizes, w.shape[:2], strides, dilations, padding)[1]:
        dx[:, r, c, :] += g[:, i, j, :] @ w[a, b].T
    return dx


def ref_backprop_filter(x, sizes, g, strides=1, padding="VALID", dilations=1):
    x, g = x.astype(np.float64), g.astype(np.float64)
    dw = np.zeros(sizes)
    for i, j, a, b, r, c in _taps(x.shape, sizes[:2], strides, dilations, padding)[1]:
        dw[a, b] += x[:, r, c, :].T @ g[:, i, j, :]
    return dw


def ref_pool(x, ksize, strides, padding, reduce):
    """max or mean over the input (not padded) values of each window."""
    k = _pair(ksize)
    (oh, ow), taps = _taps(x.shape, k, strides, 1, padding)
    windows = {}
    for i, j, _, _, r, c in taps:
        windows.setdefault((i, j), []).append(x[:, r, c, :].astype(np.float64))
    y = np.zeros((x.shape[0], oh, ow, x.shape[3]))
    for (i, j), values in windows.items():
        y[:, i, j, :] = reduce(np.stack(values), axis=0)
    return y


def _as(dtype, fn):
    return lambda *a: fn(*a).astype(dtype)


# ---- values: eager, graph, interpreter ---------------------------------------------------------

CONVS = [  # input shape, filter shape, strides, padding, dilations
    ((2, 7, 8, 3), (3, 3, 3, 4), 1, "VALID", 1),
    ((2, 7, 8, 3), (3, 3, 3, 4), 1, "SAME", 1),
    ((2, 7, 8, 3), (3, 3, 3, 4), 2, "VALID", 1),
    ((2, 7, 8, 3), (3, 3, 3, 4), 2, "same", 1),
    ((1, 9, 8, 2), (3, 2, 2, 3), 1, "VALID", 2),
    ((1, 9, 8, 2), (3, 2, 2, 3), [1, 2, 2, 1], "SAME", [2, 1]),
    ((3, 6, 6, 1), (2, 2, 1, 2), 2, "SAME", 1),
    ((2, 5, 6, 2), (4, 3, 2, 1), (2, 3), "SAME", (1, 2)),
    ((1, 4, 4, 2), (4, 4, 2, 2), 1, "VALID", 1),
    ((1, 3, 3, 1), (5, 5, 1, 1), 2, "SAME", 1),  # the window is larger than the input
    ((2, 9, 7, 1), (3, 3, 1, 2), (2, 1), "SAME", 2),
]


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", CONVS)
def test_conv2d_matches_loops(x_shape, w_shape, strides, padding, dilations):
    x, w = _normal(*x_shape), _normal(*w_shape)
    ref = lambda x, w: ref_conv(x, w, strides, padding, dilations)  # noqa: E731
    check_op(lambda x, w: co.conv2d(x, w, strides, padding, dilations), _as(np.float32, ref),
             x, w, rtol=1e-5, atol=1e-5)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    check_op(lambda x, w: co.conv2d(x, w, strides, padding, dilations), ref, x64, w64,
             rtol=1e-12, atol=1e-12)


def test_conv2d_float16_and_python_lists():
    x, w = _normal(2, 6, 5, 3, dtype=np.float16), _normal(3, 3, 3, 2, dtype=np.float16)
    check_op(lambda x, w: co.conv2d(x, w, 2, "SAME"),
             _as(np.float16, lambda x, w: ref_conv(x, w, 2, "SAME")), x, w, rtol=2e-3, atol=2e-3)
    got = co.conv2d([[[[1.0], [2.0]], [[3.0], [4.0]]]], [[[[1.0]], [[1.0]]]])  # lists: float32
    assert got.dtype is rt.float32
    np.testing.assert_array_equal(got.numpy(), [[[[3.0]], [[7.0]]]])


def test_empty_batches():
    for fn, shape in [(lambda x: co.conv2d(x, _normal(3, 3, 2, 4), 2, "SAME"), (0, 3, 3, 4)),
                      (lambda x: co.max_pool2d(x, 2, 2), (0, 2, 2, 2)),
                      (lambda x: co.avg_pool2d(x, 3, 1, "SAME"), (0, 5, 5, 2))]:
        check_op(fn, lambda x, shape=shape: np.zeros(shape, np.float32),
                 np.zeros((0, 5, 5, 2), np.float32))
    x = rt.constant(np.zeros((0, 5, 5, 2), np.float32))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = co.max_pool2d(co.conv2d(x, _normal(3, 3, 2, 2), 1, "SAME"), 2, 1)
    assert tape.gradient(y, x).shape == (0, 5, 5, 2)


def test_conv2d_is_deterministic_and_fresh():
    x, w = _normal(4, 12, 12, 5), _normal(3, 3, 5, 6)
    first = co.conv2d(x, w, 1, "SAME").numpy()
    assert np.array_equal(first, co.conv2d(x, w, 1, "SAME").numpy())
    assert first.flags.c_contiguous and not np.shares_memory(first, x)


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", CONVS)
def test_gradient_ops_match_loops(x_shape, w_shape, strides, padding, dilations):
    x, w = _normal(*x_shape), _normal(*w_shape)
    g = _normal(*ref_conv(x, w, strides, padding, dilations).shape)
    check_op(lambda w, g: co.conv2d_backprop_input(list(x_shape), w, g, strides, padding,
                                                   dilations),
             _as(np.float32, lambda w, g: ref_backprop_input(x_shape, w, g, strides, padding,
                                                             dilations)),
             w, g, rtol=1e-5, atol=1e-5)
    check_op(lambda x, g: co.conv2d_backprop_filter(x, list(w_shape), g, strides, padding,
                                                    dilations),
             _as(np.float32, lambda x, g: ref_backprop_filter(x, w_shape, g, strides, padding,
                                                              dilations)),
             x, g, rtol=1e-5, atol=1e-5)


POOLS = [  # input shape, ksize, strides, padding
    ((2, 6, 6, 3), 2, 2, "VALID"),
    ((2, 7, 5, 3), 3, 2, "VALID"),
    ((2, 7, 5, 3), 3, 2, "SAME"),
    ((1, 6, 7, 2), (2, 3), 1, "same"),
    ((1, 5, 5, 1), [1, 3, 3, 1], [1, 1, 1, 1], "SAME"),
    ((3, 8, 8, 2), 2, (2, 3), "SAME"),
    ((1, 2, 2, 1), 4, 3, "SAME"),  # the window is larger than the input
]


@pytest.mark.parametrize("x_shape, ksize, strides, padding", POOLS)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pools_match_loops(x_shape, ksize, strides, padding, kind):
    fn, reduce = {"max": (co.max_pool2d, np.max), "avg": (co.avg_pool2d, np.mean)}[kind]
    for dtype in (np.float32, np.float64):
        x = _normal(*x_shape, dtype=dtype)
        check_op(lambda x: fn(x, ksize, strides, padding),
                 _as(dtype, lambda x: ref_pool(x, ksize, strides, padding, reduce)), x,
                 rtol=1e-6, atol=1e-6)
    x = _normal(*x_shape, dtype=np.float16)
    check_op(lambda x: fn(x, ksize, strides, padding),
             _as(np.float16, lambda x: ref_pool(x, ksize, strides, padding, reduce)), x,
             rtol=1e-3, atol=1e-3)


# ---- unknown dims --------------------------------------------------------------------------------

def test_shapes_with_an_unknown_batch_and_unknown_sizes():
    x, w = _normal(3, 8, 8, 1), _normal(3, 3, 1, 4)
    cases = [
        (lambda x, w: co.conv2d(x, w, 2, "SAME"), [None, 4, 4, 4]),
        (lambda x, w: co.conv2d(x, w, 1, "VALID", 2), [None, 4, 4, 4]),
        (lambda x, w: co.max_pool2d(co.conv2d(x, w, 1, "SAME"), 3, 2, "SAME"), [None, 4, 4, 4]),
        (lambda x, w: co.avg_pool2d(co.conv2d(x, w), 2, 2), [None, 3, 3, 4]),
    ]
    for fn, shape in cases:
        concrete = traced_for_specs(fn, rt.TensorSpec([None, 8, 8, 1], rt.float32),
                                    rt.TensorSpec([3, 3, 1, 4], rt.float32))
        assert list(concrete.graph.outputs[0].shape) == shape
        np.testing.assert_array_equal(concrete(rt.constant(x), rt.constant(w)).numpy(),
                                      fn(rt.constant(x), rt.constant(w)).numpy())
        unknown = traced_for_specs(fn, rt.TensorSpec([None, None, None, 1], rt.float32),
                                   rt.TensorSpec([None, None, 1, 4], rt.float32))
        assert list(unknown.graph.outputs[0].shape) == [None, None, None, 4]
        np.testing.assert_array_equal(unknown(rt.constant(x), rt.constant(w)).numpy(),
                                      fn(rt.constant(x), rt.constant(w)).numpy())


def _conv_net_loss(x, w):
    """A tiny Keras-like stack: conv, max pool, conv, average pool, a squared loss."""
    h = rt.relu(co.conv2d(x, w, 1, "SAME"))
    h = co.max_pool2d(h, 2, 2)
    h = co.conv2d(h, rt.transpose(w, [0, 1, 3, 2]), 1, "SAME")  # [3, 3, 4, 1]
    return rt.reduce_sum(co.avg_pool2d(h, 3, 2, "SAME") ** 2)


def _loss_and_gradients(x, w):
    with rt.GradientTape() as tape:
        tape.watch([x, w])
        loss = _conv_net_loss(x, w)
    return [loss, *tape.gradient(loss, [x, w])]


def test_gradients_in_a_graph_with_an_unknown_batch():
    x, w = _normal(2, 8, 8, 1, dtype=np.float64), _normal(3, 3, 1, 4, dtype=np.float64)
    concrete = traced_for_specs(_loss_and_gradients, rt.TensorSpec([None, 8, 8, 1], rt.float64),
                                rt.TensorSpec([3, 3, 1, 4], rt.float64))
    assert [list(t.shape) for t in concrete.graph.outputs] == [[], [None, 8, 8, 1], [3, 3, 1, 4]]
    got = concrete(rt.constant(x), rt.constant(w))
    want = _loss_and_gradients(rt.constant(x), rt.constant(w))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)


# ---- gradients against finite differences ------------------------------------------------------

GRADIENT_CONVS = [
    ((2, 5, 5, 2), (3, 3, 2, 3), 1, "VALID", 1),
    ((1, 6, 5, 2), (3, 2, 2, 2), 2, "SAME", 1),
    ((1, 7, 6, 1), (2, 3, 1, 2), (1, 2), "SAME", 2),
    ((2, 6, 6, 1), (2, 2, 1, 2), 3, "VALID", 1),  # rows no window reads get zero gradient
]


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", GRADIENT_CONVS)
def test_conv2d_gradients(x_shape, w_shape, strides, padding, dilations):
    check_gradient(lambda x, w: co.conv2d(x, w, strides, padding, dilations),
                   _normal(*x_shape), _normal(*w_shape))


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations", GRADIENT_CONVS[:3])
def test_second_order_gradients_of_the_gradient_ops(x_shape, w_shape, strides, padding,
                                                    dilations):
    g = _normal(*ref_conv(np.zeros(x_shape), np.zeros(w_shape), strides, padding,
                          dilations).shape)
    check_gradient(lambda w, g: co.conv2d_backprop_input(list(x_shape), w, g, strides, padding,
                                                         dilations), _normal(*w_shape), g)
    check_gradient(lambda x, g: co.conv2d_backprop_filter(x, list(w_shape), g, strides, padding,
                                                          dilations), _normal(*x_shape), g)


@pytest.mark.parametrize("x_shape, ksize, strides, padding",
                         [((2, 5, 5, 2), 2, 2, "VALID"), ((1, 5, 6, 2), 3, 2, "SAME"),
                          ((1, 4, 5, 1), (2, 3), 1, "SAME")])
def test_pool_gradients(x_shape, ksize, strides, padding):
    x = RNG.permutation(np.prod(x_shape)).reshape(x_shape) / 7.0  # no ties
    check_gradient(lambda x: co.max_pool2d(x, ksize, strides, padding), x)
    check_gradient(lambda x: co.avg_pool2d(x, ksize, strides, padding), x)
    g = _normal(*co.avg_pool2d(x, ksize, strides, padding).shape)
    attrs = {"ksize": _tuple(ksize), "strides": _tuple(strides), "padding": padding}
    check_gradient(lambda g: apply(co.AVG_POOL_GRAD, [rt.constant(np.int32(x_shape)), g], attrs),
                   g)


def _tuple(v):
    return tuple(_pair(v))


def test_max_pool_gradient_goes_to_the_first_maximum_of_each_window():
    x = rt.constant(np.ones((1, 4, 4, 1)))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = co.max_pool2d(x, 2, 2) * rt.constant(np.float64([[1, 2], [3, 4]]).reshape(1, 2, 2, 1))
    grad = tape.gradient(y, x).numpy()[0, :, :, 0]
    np.testing.assert_array_equal(grad, [[1, 0, 2, 0], [0, 0, 0, 0], [3, 0, 4, 0], [0] * 4])
    with rt.GradientTape() as tape:  # overlapping windows: each adds its gradient
        tape.watch(x)
        y = co.max_pool2d(x, 3, 1, "SAME")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy()[0, :, :, 0],
                                  [[4, 2, 2, 0], [2, 1, 1, 0], [2, 1, 1, 0], [0, 0, 0, 0]])


# ---- ONNX ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations",
                         [c for i, c in enumerate(CONVS) if i in (0, 3, 5, 7, 9)])
def test_onnx_agrees(x_shape, w_shape, strides, padding, dilations):
    x, w = _normal(*x_shape), _normal(*w_shape)
    g = _normal(*ref_conv(x, w, strides, padding, dilations).shape)
    tol = {"rtol": 1e-5, "atol": 1e-5}
    onnx_agrees(lambda x, w: co.conv2d(x, w, strides, padding, dilations), x, w, **tol)
    onnx_agrees(lambda w, g: co.conv2d_backprop_input(list(x_shape), w, g, strides, padding,
                                                      dilations), w, g, **tol)
    onnx_agrees(lambda x, g: co.conv2d_backprop_filter(x, list(w_shape), g, strides, padding,
                                                       dilations), x, g, **tol)


@pytest.mark.parametrize("x_shape, ksize, strides, padding", POOLS)
def test_onnx_pools_agree(x_shape, ksize, strides, padding):
    x = _normal(*x_shape)
    onnx_agrees(lambda x: co.max_pool2d(x, ksize, strides, padding), x)
    onnx_agrees(lambda x: co.avg_pool2d(x, ksize, strides, padding), x, rtol=1e-6, atol=1e-6)
    onnx_agrees(lambda x: co.max_pool2d(x, ksize, strides, padding),
                x.astype(np.float64))


def test_onnx_export_with_unknown_dims_and_its_limits():
    pytest.importorskip("onnx")
    x, w = _normal(2, 7, 8, 3), _normal(3, 3, 3, 4)
    onnx_agrees(lambda x, w: co.conv2d(x, w, 2), x, w, unknown_dims=True, rtol=1e-5, atol=1e-5)
    onnx_agrees(lambda x: co.max_pool2d(x, 2, 2), x, unknown_dims=True)
    same = traced_for_specs(lambda x, w: co.conv2d(x, w, 2, "SAME"),
                            rt.TensorSpec([None, None, 8, 3], rt.float32),
                            rt.TensorSpec([3, 3, 3, 4], rt.float32))
    with pytest.raises(rt.onnx.ExportError, match="static pads.*TensorSpec"):
        rt.onnx.export(same)
    doubles = graph_function(lambda x, w: co.conv2d(x, w)).get_concrete_function(
        rt.constant(x.astype(np.float64)), rt.constant(w.astype(np.float64)))
    with pytest.raises(rt.onnx.ExportError, match="no float64 kernel"):
        rt.onnx.export(doubles)
    pool_gradient = graph_function(_loss_and_gradients).get_concrete_function(
        rt.constant(x[..., :1]), rt.constant(w[:, :, :1, :]))
    with pytest.raises(rt.onnx.ExportError, match="no gradient op of pooling"):
        rt.onnx.export(pool_gradient)


# ---- XLA -----------------------------------------------------------------------------------------

def _xla_agrees(fn, *arrays, rtol, atol):
    jax = pytest.importorskip("jax")
    tensors = [rt.constant(a) for a in arrays]
    want = graph_function(fn)(*tensors)
    with jax.enable_x64(True):
        got = graph_function(fn, jit_compile="xla")(*tensors)
    got, want = (list(got), list(want)) if isinstance(want, (list, tuple)) else ([got], [want])
    for a, b in zip(got, want):
        assert a.dtype is b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=atol)


def _everything(strides, padding, dilations):
    """conv2d, max_pool2d and avg_pool2d, and the gradients of a loss of the three (all seven
    ops), in one function: one XLA compile."""
    def fn(x, w):
        with rt.GradientTape() as tape:
            tape.watch([x, w])
            outs = [co.conv2d(x, w, strides, padding, dilations),
                    co.max_pool2d(x, (3, 2), strides, padding),
                    co.avg_pool2d(x, (3, 2), strides, padding)]
            loss = sum(rt.reduce_sum(y * y) for y in outs)
        return [*outs, *tape.gradient(loss, [x, w])]
    return fn


@pytest.mark.parametrize("x_shape, w_shape, strides, padding, dilations, dtype",
                         [(*CONVS[0], np.float32), (*CONVS[5], np.float32),
                          (*CONVS[7], np.float64)])
def test_xla_agrees(x_shape, w_shape, strides, padding, dilations, dtype):
    x, w = _normal(*x_shape, dtype=dtype), _normal(*w_shape, dtype=dtype)
    tol = {np.float32: 1e-5, np.float64: 1e-12}[dtype]
    _xla_agrees(_everything(strides, padding, dilations), x, w, rtol=tol, atol=tol * 10)


def test_xla_float16():
    x, w = _normal(2, 7, 6, 3, dtype=np.float16), _normal(3, 3, 3, 2, dtype=np.float16)
    _xla_agrees(lambda x, w: co.conv2d(x, w, 2, "SAME"), x, w, rtol=1e-3, atol=1e-3)
    _xla_agrees(lambda x: co.avg_pool2d(x, 3, 2, "SAME"), x, rtol=1e-3, atol=1e-3)


# ---- errors --------------------------------------------------------------------------------------

X = _normal(2, 6, 6, 3)
W = _normal(3, 3, 3, 4)


def test_dtype_errors_name_the_argument():
    check_error(lambda x, w: co.conv2d(x, w), X.astype(np.int32), W, error=TypeError,
                match=r"conv2d: input must be float16, float32 or float64, got int32; cast it")
    check_error(lambda x, w: co.conv2d(x, w), X, W.astype(np.float64), error=TypeError,
                match=r"input is float32 but filters is float64; cast one")
    check_error(lambda x: co.max_pool2d(x, 2, 2), X.astype(np.int64), error=TypeError,
                match="max_pool2d: input must be float")


def test_shape_errors():
    check_error(lambda x, w: co.conv2d(x, w), X[0], W, match=r"4-D .*rt.expand_dims")
    check_error(lambda x, w: co.conv2d(x, w), X, W[:, :, :2],
                match=r"input's channels \(3\) does not match the filters' in_channels \(2\)")
    check_error(lambda x, w: co.conv2d(x, w, 1, "VALID", 3), X, W,
                match=r"height 6 is smaller than the window's dilated height 7 with "
                      r"padding='VALID'")
    check_error(lambda x: co.avg_pool2d(x, 7, 1), X, match=r"avg_pool2d: .*smaller")


def test_argument_errors():
    for call, match in [
        (lambda: co.conv2d(X, W, padding="FULL"), "'VALID' or 'SAME'"),
        (lambda: co.conv2d(X, W, padding=[[0, 0], [1, 1], [1, 1], [0, 0]]), "rt.pad"),
        (lambda: co.conv2d(X, W, strides=0), "strides must be at least 1"),
        (lambda: co.conv2d(X, W, strides=[2, 2, 2, 2]), r"\[1, h, w, 1\]"),
        (lambda: co.conv2d(X, W, dilations=(1, 2, 3)), "dilations must be an int, a pair"),
        (lambda: co.conv2d(X, W, data_format="NCHW"), "NHWC"),
        (lambda: co.max_pool2d(X, (2, 2, 2), 1), "ksize must be"),
    ]:
        with pytest.raises(ValueError, match=match) as info:
            call()
        assert __file__ in str(info.value)
    with pytest.raises(TypeError, match="must be known while tracing"):
        rt.function(lambda x, s: co.max_pool2d(x, 2, s))(rt.constant(X), rt.constant(2))
    with pytest.raises(TypeError, match="conv2d: strides must be integers"):
        co.conv2d(X, W, strides=1.5)


def test_gradient_op_errors():
    g = _normal(2, 4, 4, 4)
    check_error(lambda w, g: co.conv2d_backprop_input([2, 6, 6, 3], w, g, 2), W, g,
                match=r"out_backprop's height \(4\) does not match the convolution's output "
                      r"height \(2\)")
    check_error(lambda x, g: co.conv2d_backprop_filter(x, [3, 3, 3, 5], g), X, g,
                match=r"out_backprop's channels \(4\) does not match")
    with pytest.raises(TypeError, match="filter_sizes must be 4 ints"):
        co.conv2d_backprop_filter(X, [3, 3], g)


def test_numba_refuses_with_the_reason():
    pytest.importorskip("numba")
    with pytest.raises(rt.errors.NoLoweringError, match="BLAS matrix products"):
        graph_function(lambda x, w: co.conv2d(x, w), jit_compile="numba")(rt.constant(X),
                                                                          rt.constant(W))


# ---- rules ---------------------------------------------------------------------------------------

OPS = [co.CONV2D, co.CONV2D_BACKPROP_INPUT, co.CONV2D_BACKPROP_FILTER, co.MAX_POOL, co.AVG_POOL,
       co.MAX_POOL_GRAD, co.AVG_POOL_GRAD]


@pytest.mark.parametrize("opdef", OPS, ids=lambda o: o.name)
def test_every_op_has_every_rule_kind_or_says_why_not(opdef):
    """What tests/runtime/test_op_rules.py checks of every op once runtime imports this module."""
    for kind in (GRADIENT, ONNX, NUMBA, JAX):
        has, reason = opdef.rule(kind) is not None, opdef.lacking.get(kind)
        assert has != (reason is not None), (opdef.name, kind)
        assert reason is None or len(reason) > 10
    assert opdef.rule(FUSED) is None and FUSED not in opdef.lacking
    assert opdef.lacking.keys() <= {NUMBA, ONNX, GRADIENT}
