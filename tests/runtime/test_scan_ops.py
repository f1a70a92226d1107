"""cumsum, cumprod and diff against numpy: eagerly, in compiled graphs and in the interpreter
(check_op), with unknown dims, their gradients against finite differences (cumprod's with
zeros too), ONNX against onnxruntime, and the numba and XLA lowerings."""

import numpy as np
import pytest
from op_testing import check_error, check_op, onnx_agrees
from test_arrangement_ops import backend_agrees, check_unknown_dims
from test_gradients import check as check_gradient

import runtime as rt

X = np.linspace(-2.0, 3.0, 24, dtype=np.float32).reshape(2, 3, 4)
N = np.arange(12, dtype=np.int32).reshape(3, 4) - 4
ARRAYS = [X, X.astype(np.float64), X.astype(np.float16), N, N.astype(np.int8),
          N.astype(np.int64), N > 2, np.float32(2.5), np.zeros((0, 3), np.int16)]


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_and_cumprod(name, axis):
    rt_fn, np_fn = getattr(rt, name), getattr(np, name)
    for a in ARRAYS:
        if axis is None or -a.ndim <= axis < a.ndim:
            check_op(lambda a: rt_fn(a, axis), lambda a: np_fn(a, axis), a, rtol=2e-3)
    check_unknown_dims(lambda a: rt_fn(a, axis), lambda a: np_fn(a, axis), X)


def test_numpys_dtypes():
    assert rt.cumsum(rt.constant(N)).dtype is rt.int64 is rt.cumprod(rt.constant(N > 0)).dtype
    for dtype in (np.float64, np.int8, np.bool_, np.float32):
        for name in ("cumsum", "cumprod"):
            check_op(lambda a, name=name, dtype=dtype: getattr(rt, name)(a, 1, dtype),
                     lambda a, name=name, dtype=dtype: getattr(np, name)(a, 1, dtype), N * 40)


@pytest.mark.parametrize("n, axis", [(1, -1), (2, 0), (3, 2), (5, 1), (0, 1)])
def test_diff(n, axis):
    for a in (X, N.astype(np.uint8), N.astype(np.int8), X > 0, X.astype(np.float16)):
        if -a.ndim <= axis < a.ndim:
            check_op(lambda a: rt.diff(a, n, axis), lambda a: np.diff(a, n, axis), a)
    check_unknown_dims(lambda a: rt.diff(a, n, axis), lambda a: np.diff(a, n, axis), X)


@pytest.mark.parametrize("prepend, append", [(0, None), (None, 2.5), (np.int64(-1), 7),
                                             ([[1], [2], [3]], None)])
def test_diff_with_prepend_and_append(prepend, append):
    """Python numbers and lists take numpy's dtypes (int64, float64) before joining."""
    edges = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    check_op(lambda a: rt.diff(a, 1, 1, prepend, append), lambda a: np.diff(a, 1, 1, **edges), N)
    check_unknown_dims(lambda a: rt.diff(a, 2, 1, prepend, append),
                       lambda a: np.diff(a, 2, 1, **edges), N)
    check_op(lambda a, p: rt.diff(a, 1, 0, p), lambda a, p: np.diff(a, 1, 0, prepend=p),
             X[0], X[1, :1])


# ---- gradients -----------------------------------------------------------------------------------

A = np.linspace(-1.5, 2.0, 12).reshape(3, 4) ** 3 + 0.25


def test_gradients():
    check_gradient(lambda a: rt.cumsum(a), A)
    check_gradient(lambda a: rt.cumsum(a, 0), A)
    check_gradient(lambda a: rt.cumsum(rt.cast(a, rt.float32), 1, rt.float64), A, h=1e-3,
                   rtol=1e-3)
    check_gradient(lambda a: rt.cumprod(a, 1), A)
    check_gradient(lambda a: rt.cumprod(a * 0.5), A)
    check_gradient(lambda a: rt.diff(a, 2, 1, prepend=1.0, append=rt.reduce_sum(a)), A)
    check_gradient(lambda a: rt.diff(a, 1, 0), A)


@pytest.mark.parametrize("zeros", [[(0, 1)], [(0, 0), (2, 3)], [(1, 0), (1, 2)],
                                   [(1, 1), (1, 2), (1, 3)]])
def test_cumprod_gradient_with_zeros(zeros):
    """The rule holds with zeros (one, or several in a row of the axis): cumprod is linear in
    each item, so finite differences are exact there too."""
    a = A.copy()
    for index in zeros:
        a[index] = 0.0
    check_gradient(lambda a: rt.cumprod(a, 1), a)
    check_gradient(lambda a: rt.cumprod(a), a)


def test_gradients_with_unknown_dims():
    def fn(a):
        with rt.GradientTape() as tape:
            tape.watch(a)
            y = (rt.reduce_sum(rt.cumsum(a, 1) * a) + rt.reduce_sum(rt.cumprod(a) ** 2)
                 + rt.reduce_sum(rt.cumsum(a) * rt.cumprod(a, 0, rt.float64)[0, 0])
                 + rt.reduce_sum(rt.diff(a, 1, 0, append=1.0) ** 2))
        return tape.gradient(y, a)

    want = fn(rt.constant(A)).numpy()
    check_unknown_dims(fn, lambda a: want, A)


# ---- ONNX, numba, XLA ----------------------------------------------------------------------------

def test_onnx_export():
    def fn(x, i, b):
        return (rt.cumsum(x), rt.cumsum(x, 1), rt.cumsum(i, 0), rt.cumsum(b, 1), rt.cumsum(
            i, 1, rt.int8), rt.cumsum(i, 0, rt.bool), rt.cumsum(rt.cast(i, rt.uint8), 1, rt.uint8),
            rt.diff(x, 2, 2), rt.diff(b, 1, 0), rt.diff(i, 1, 1, prepend=0, append=[[9], [9], [9]]))

    onnx_agrees(fn, X, N * 30, N > 0)
    onnx_agrees(fn, X, N * 30, N > 0, unknown_dims=True)
    onnx_agrees(lambda h: rt.cumsum(h, 1), X.astype(np.float16), rtol=2e-3)


def test_cumprod_does_not_export():
    pytest.importorskip("onnx")
    f = rt.function(lambda a: rt.cumprod(a), autograph=False)
    with pytest.raises(rt.onnx.ExportError, match="no cumulative product"):
        rt.onnx.export(f.get_concrete_function(rt.constant(X)))


def test_numba_and_xla():
    backend_agrees(lambda v, b: (rt.cumsum(v), rt.cumprod(v), rt.cumsum(b), rt.cumprod(
        v, 0, rt.float64)), N[0], N[0] > 0, jit_compile="numba")
    backend_agrees(lambda x, i: (rt.cumsum(x, 1), rt.cumprod(x), rt.cumsum(i, 0, rt.bool),
                                 rt.cumprod(i > 2, 1), rt.cumsum(i), rt.diff(x, 2)),
                   X, N, jit_compile="xla", rtol=1e-5)


# ---- bad input -----------------------------------------------------------------------------------

def test_bad_input():
    check_error(lambda a: rt.cumsum(a, 2), N, match="axis 2 is out of range")
    check_error(lambda a: rt.cumsum(a), N.astype(np.uint8), match="uint64", error=TypeError)
    check_error(lambda a: rt.cumprod(a), np.array([b"x"], object), match="not string",
                error=TypeError)
    check_error(lambda a: rt.cumsum(a, 0, rt.string), N, match="dtype must be numeric",
                error=TypeError)
    check_error(lambda a: rt.diff(a, -1), N, match="non-negative", error=ValueError)
    check_error(lambda a: rt.diff(a), np.float32(1.0), match="at least one dimensional",
                error=ValueError)
    check_error(lambda a: rt.diff(a, 1, 0, [1, 2]), N, match="concat")
