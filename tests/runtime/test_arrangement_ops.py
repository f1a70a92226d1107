"""roll, flip, repeat, pad, tril, triu, diag, trace, take, take_along_axis against numpy: eagerly,
in compiled graphs and in the interpreter (check_op), with unknown dims, their gradients against
finite differences, ONNX against onnxruntime, and the numba and XLA lowerings."""

import numpy as np
import pytest
from op_testing import (
    assert_value,
    check_error,
    check_op,
    graph_function,
    onnx_agrees,
    traced_for_specs,
    unknown_dims_specs,
)
from test_gradients import check as check_gradient

import runtime as rt

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
M = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
V = np.array([3.0, -1.0, 2.5, 0.0, 7.0])
B = np.array([[True, False, True], [False, False, True]])


# ---- shared by the test files of scan_ops and sorting_ops ---------------------------------------

def check_unknown_dims(rt_fn, np_fn, *arrays, rtol=1e-6):
    """`rt_fn` traced with every dim unknown gives numpy's results when run."""
    concrete = traced_for_specs(rt_fn, *unknown_dims_specs(arrays))
    outs = concrete(*[rt.constant(a) for a in arrays])
    outs, wants = (outs, np_fn(*arrays)) if isinstance(outs, (list, tuple)) else (
        [outs], [np_fn(*arrays)])
    for got, want in zip(outs, wants):
        assert_value(got.numpy(), want, rtol=rtol, where="unknown dims")
    return concrete


def backend_agrees(rt_fn, *arrays, jit_compile, rtol=1e-6):
    """`rt_fn` compiled by numba or XLA (64-bit mode on) gives the default executor's results."""
    tensors = [rt.constant(a) for a in arrays]
    want = graph_function(rt_fn)(*tensors)
    if jit_compile == "xla":
        jax = pytest.importorskip("jax")
        with jax.enable_x64(True):
            got = graph_function(rt_fn, jit_compile="xla")(*tensors)
    else:
        pytest.importorskip("numba")
        got = graph_function(rt_fn, jit_compile="numba")(*tensors)
    got, want = (list(got), list(want)) if isinstance(got, (list, tuple)) else ([got], [want])
    for g, w in zip(got, want):
        assert g.dtype is w.dtype
        assert_value(g.numpy(), w.numpy(), rtol=rtol, where=jit_compile)


# ---- roll, flip ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shift, axis", [(1, None), (-7, None), (2, 0), (5, -1), ((1, -2), (0, 2)),
                                         ((1, 1), (2, 2)), (3, (0, 1)), (0, 1)])
def test_roll(shift, axis):
    check_op(lambda a: rt.roll(a, shift, axis), lambda a: np.roll(a, shift, axis), X)
    check_op(lambda a: rt.roll(a, shift, axis), lambda a: np.roll(a, shift, axis), X > 7)


def test_roll_of_scalars_empty_axes_and_unknown_dims():
    check_op(lambda a: rt.roll(a, 3), lambda a: np.roll(a, 3), np.float64(2.0))
    check_op(lambda a: rt.roll(a, 3, 0), lambda a: np.roll(a, 3, 0), np.zeros((0, 2), np.int8))
    check_unknown_dims(lambda a: rt.roll(a, -4, 1), lambda a: np.roll(a, -4, 1), X)
    check_unknown_dims(lambda a: rt.roll(a, 5), lambda a: np.roll(a, 5), M)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (1,)])
def test_flip(axis):
    check_op(lambda a: rt.flip(a, axis), lambda a: np.flip(a, axis), X)
    check_unknown_dims(lambda a: rt.flip(a, axis), lambda a: np.flip(a, axis), X.astype(np.int8))


def test_flip_of_a_scalar_and_strings():
    check_op(lambda a: rt.flip(a), np.flip, np.int32(4))
    check_op(lambda a: rt.flip(a, 0), lambda a: np.flip(a, 0), np.array([b"a", b"bc"], object))


# ---- repeat --------------------------------------------------------------------------------------

@pytest.mark.parametrize("repeats, axis", [(2, None), (3, 0), (1, 1), (2, -1), (0, 1), (0, None)])
def test_repeat(repeats, axis):
    for a in (X, M, B):
        if axis is None or axis < a.ndim:
            check_op(lambda a: rt.repeat(a, repeats, axis), lambda a: np.repeat(a, repeats, axis),
                     a)
    check_unknown_dims(lambda a: rt.repeat(a, repeats, axis),
                       lambda a: np.repeat(a, repeats, axis), M)


def test_repeat_of_a_scalar():
    check_op(lambda a: rt.repeat(a, 3), lambda a: np.repeat(a, 3), np.float32(1.5))


# ---- pad -----------------------------------------------------------------------------------------

PADS = [1, (1, 2), ((0, 1), (2, 0)), [[3, 3], [1, 2]], ((2,), (0,))]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric", "wrap"])
@pytest.mark.parametrize("pad_width", PADS)
def test_pad(mode, pad_width):
    for a in (M, M.astype(np.float16)):
        check_op(lambda a: rt.pad(a, pad_width, mode), lambda a: np.pad(a, pad_width, mode), a)


def test_pad_constant_values_and_unknown_dims():
    for values in (7, (1, 2), ((1, 2), (3, 4)), 2.7):
        check_op(lambda a, v=values: rt.pad(a, ((1, 2), (2, 1)), constant_values=v),
                 lambda a, v=values: np.pad(a, ((1, 2), (2, 1)), constant_values=v), M)
    check_op(lambda a: rt.pad(a, 1, constant_values=True), lambda a: np.pad(
        a, 1, constant_values=True), B)
    check_op(lambda a: rt.pad(a, 2), lambda a: np.pad(a, 2), np.float64(3.0))
    for mode in ("constant", "reflect"):
        check_unknown_dims(lambda a, mode=mode: rt.pad(a, ((1, 0), (2, 2), (0, 1)), mode),
                           lambda a, mode=mode: np.pad(a, ((1, 0), (2, 2), (0, 1)), mode), X)


# ---- tril, triu ----------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [0, 1, -1, 5, -5])
def test_tril_and_triu(k):
    for a in (M, X, B, V, M.astype(np.uint8)):
        check_op(lambda a: rt.tril(a, k), lambda a: np.tril(a, k), a)
        check_op(lambda a: rt.triu(a, k), lambda a: np.triu(a, k), a)
    check_unknown_dims(lambda a: rt.tril(a, k), lambda a: np.tril(a, k), X)
    check_unknown_dims(lambda a: rt.triu(a, k), lambda a: np.triu(a, k), V)


# ---- diag, trace ---------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [0, 1, 2, -1, -3, 9])
def test_diag_both_ways(k):
    for a in (M, M.T.astype(np.float64), V, V.astype(np.int16) > 0, np.zeros((0, 3), np.float32)):
        check_op(lambda a: rt.diag(a, k), lambda a: np.diag(a, k), a)
    check_unknown_dims(lambda a: rt.diag(a, k), lambda a: np.diag(a, k), M)
    check_unknown_dims(lambda a: rt.diag(a, k), lambda a: np.diag(a, k), V)


@pytest.mark.parametrize("offset, axis1, axis2", [(0, 0, 1), (1, 0, 1), (-1, 1, 2), (2, 2, 0)])
def test_trace(offset, axis1, axis2):
    for a in (X, X.astype(np.int32), X > 5, X.astype(np.float16)):
        check_op(lambda a: rt.trace(a, offset, axis1, axis2),
                 lambda a: np.trace(a, offset, axis1, axis2), a)
    check_op(lambda a: rt.trace(a, offset, axis1, axis2, rt.float64),
             lambda a: np.trace(a, offset, axis1, axis2, np.float64), X)
    check_unknown_dims(lambda a: rt.trace(a, offset, axis1, axis2),
                       lambda a: np.trace(a, offset, axis1, axis2), X)


# ---- take, take_along_axis -----------------------------------------------------------------------

@pytest.mark.parametrize("indices, axis", [([0, 23, -1], None), (np.int64(5), None),
                                           (np.array([[2, 0], [1, 1]]), 1), ([3, 0], -1), (1, 0)])
def test_take(indices, axis):
    check_op(lambda a, i: rt.take(a, i, axis), lambda a, i: np.take(a, i, axis), X,
             np.asarray(indices))
    check_unknown_dims(lambda a, i: rt.take(a, i, axis), lambda a, i: np.take(a, i, axis), X,
                       np.asarray(indices))


def test_take_along_axis():
    order = np.argsort(X, axis=1)
    for axis, indices in ((1, order), (-1, np.argsort(-X, -1)[..., :2]), (0, np.zeros((1, 3, 4),
                                                                                      np.int32)),
                          (2, np.array([[[-1], [0], [2]]])), (None, np.array([5, 0, -2]))):
        check_op(lambda a, i, axis=axis: rt.take_along_axis(a, i, axis),
                 lambda a, i, axis=axis: np.take_along_axis(a, i, axis), X, indices)
        check_unknown_dims(lambda a, i, axis=axis: rt.take_along_axis(a, i, axis),
                           lambda a, i, axis=axis: np.take_along_axis(a, i, axis), X, indices)
    # arr broadcast against indices too
    check_op(lambda a, i: rt.take_along_axis(a, i, 1), lambda a, i: np.take_along_axis(a, i, 1),
             M[:1], np.array([[0, 3], [1, 1]]))


# ---- gradients -----------------------------------------------------------------------------------

A = np.linspace(-1.0, 1.5, 12).reshape(3, 4) ** 3


def test_gradients():
    check_gradient(lambda a: rt.roll(a, (1, -3), (0, 1)), A)
    check_gradient(lambda a: rt.roll(a, 5), A)
    check_gradient(lambda a: rt.flip(a, 1) * a, A)
    check_gradient(lambda a: rt.repeat(a, 3, 1), A)
    check_gradient(lambda a: rt.repeat(a, 2), A)
    for mode in ("constant", "edge", "reflect", "symmetric", "wrap"):
        check_gradient(lambda a, mode=mode: rt.pad(a, ((2, 1), (3, 0)), mode, **(
            {"constant_values": 2.0} if mode == "constant" else {})), A)
    check_gradient(lambda a: rt.tril(a, 1) + rt.triu(a, -1), A)
    check_gradient(lambda a: rt.triu(a[0], 1), A)
    check_gradient(lambda a: rt.diag(a, 1), A)
    check_gradient(lambda a: rt.diag(rt.diag(a, -1), 2), A)
    check_gradient(lambda a: rt.trace(a, -1) * rt.trace(a), A)
    check_gradient(lambda a: rt.take(a, [0, 11, 5, 5]), A)
    check_gradient(lambda a: rt.take_along_axis(a, rt.constant([[2, 0, 2, 1], [1, 1, 0, 2]]), 0), A)
    check_gradient(lambda a: rt.take_along_axis(a[:1], rt.constant([[2, 0, 2], [3, 1, 0]]), 1), A)


def test_second_order_gradients_of_the_gradient_ops():
    """PadGrad, EmbedDiagonal and TakeAlongAxisGrad (made by the gradients) have gradients."""
    def grad_of(fn):
        def inner(a):
            with rt.GradientTape() as tape:
                tape.watch(a)
                y = rt.reduce_sum(fn(a) ** 2)
            return tape.gradient(y, a)
        return inner

    check_gradient(grad_of(lambda a: rt.pad(a, 2, "reflect")), A)
    check_gradient(grad_of(lambda a: rt.diag(a, 1)), A)
    check_gradient(grad_of(lambda a: rt.take_along_axis(a, rt.constant([[2, 0, 2, 1]]), 0)), A)


def test_gradients_with_unknown_dims():
    """The rules build their graphs from dims read when the graph runs."""
    def fn(a):
        with rt.GradientTape() as tape:
            tape.watch(a)
            y = (rt.reduce_sum(rt.repeat(a, 2, 0) ** 2) + rt.reduce_sum(rt.pad(a, 1, "edge") ** 2)
                 + rt.reduce_sum(rt.diag(a, 1) ** 2) + rt.reduce_sum(rt.roll(a, 3, 1) * a)
                 + rt.reduce_sum(rt.take_along_axis(a, rt.argsort(a, 0), 0) * a))
        return tape.gradient(y, a)

    want = fn(rt.constant(A)).numpy()  # eagerly (the rules are checked above)
    concrete = traced_for_specs(fn, rt.TensorSpec([None, None], rt.float64))
    np.testing.assert_allclose(concrete(rt.constant(A)).numpy(), want, rtol=1e-12)


# ---- ONNX, numba, XLA ----------------------------------------------------------------------------

def test_onnx_export():
    def fn(a, m, b):
        return (rt.roll(a, (1, -5), (0, 2)), rt.roll(m, 7), rt.flip(a, (0, 2)), rt.repeat(m, 2, 0),
                rt.repeat(b, 3), rt.pad(m, ((1, 2), (0, 3)), constant_values=((4, 5), (6, 7))),
                rt.pad(a, 1, "edge"), rt.pad(m, ((1, 2), (2, 1)), "reflect"), rt.pad(b, 1),
                rt.tril(a, 1), rt.triu(m, -1), rt.tril(rt.cast(m, rt.int8)), rt.triu(b[0]),
                rt.diag(m, 1), rt.diag(a[0], -2), rt.diag(b[:, 0]), rt.trace(a, 1, 2, 1),
                rt.trace(m), rt.take(a, [3, -1]), rt.take(m, rt.constant([[2, 0]]), 1),
                rt.take_along_axis(a, rt.argsort(a, 1), 1),
                rt.take_along_axis(m[:1], rt.constant([[1, 2], [0, 3], [1, 1]]), 1))

    onnx_agrees(fn, X, M, B)
    onnx_agrees(fn, X, M, B, unknown_dims=True)


def test_what_does_not_export_says_why():
    pytest.importorskip("onnx")
    for mode in ("symmetric", "wrap"):
        f = graph_function(lambda a, mode=mode: rt.pad(a, 1, mode))
        with pytest.raises(rt.onnx.ExportError, match=f"no mode '{mode}'"):
            rt.onnx.export(f.get_concrete_function(rt.constant(M)))
    f = graph_function(lambda a: rt.pad(a, 3, "reflect"))
    with pytest.raises(rt.onnx.ExportError, match="shorter than its axis"):
        rt.onnx.export(f.get_concrete_function(rt.constant(M)))


def test_numba_and_xla():
    def fn(m, v):
        return rt.roll(m, 3), rt.repeat(v, 2), rt.diag(m, -1), rt.trace(m)

    backend_agrees(fn, M, V, jit_compile="numba")

    def everything(a, m):
        return (rt.roll(a, (1, 2), (0, 1)), rt.roll(m, -2), rt.flip(a, 1), rt.repeat(a, 2, 1),
                rt.pad(a, ((1, 1), (0, 2), (2, 0)), "reflect"), rt.pad(m, 1, constant_values=3),
                rt.tril(a), rt.triu(m[0]), rt.diag(m, 1), rt.diag(m[0], -1),
                rt.trace(a, 0, 1, 2), rt.take(a, [0, 5]),
                rt.take_along_axis(a, rt.constant(np.argsort(-X, 2)), 2))

    backend_agrees(everything, X, M, jit_compile="xla")


def test_numba_refuses_what_it_does_not_lower():
    pytest.importorskip("numba")
    with pytest.raises(rt.errors.NoLoweringError, match="roll without an axis"):
        graph_function(lambda a: rt.roll(a, 1, 0), jit_compile="numba")(rt.constant(M))


# ---- bad input -----------------------------------------------------------------------------------

def test_bad_input():
    check_error(lambda a: rt.roll(a, 1, 3), M, match="axis 3 is out of range")
    check_error(lambda a: rt.roll(a, (1, 2, 3), (0, 1)), M, match="should be scalars",
                error=ValueError)
    check_error(lambda a: rt.flip(a, (0, 0)), M, match="names an axis twice")
    check_error(lambda a: rt.repeat(a, [1, 2]), M, match="per-item counts", error=TypeError)
    check_error(lambda a: rt.repeat(a, -1), M, match="must not be negative", error=ValueError)
    check_error(lambda a: rt.pad(a, -1), M, match="must not be negative", error=ValueError)
    check_error(lambda a: rt.pad(a, ((1, 2, 3),)), M, match="does not fit", error=ValueError)
    check_error(lambda a: rt.pad(a, 1, "mean"), M, match="not supported", error=ValueError)
    check_error(lambda a: rt.pad(a, 1.5), M, match="must be integers", error=TypeError)
    check_error(lambda a: rt.pad(a, 1, "edge", constant_values=3), M, match="constant_values",
                error=ValueError)
    check_error(lambda a: rt.pad(a, 1, "wrap"), np.zeros((0, 2)), match="empty axis 0")
    check_error(lambda a: rt.tril(a), np.float32(1.0), match="rank >= 1")
    check_error(lambda a: rt.diag(a), X, match="1-D or 2-D", error=ValueError)
    check_error(lambda a: rt.trace(a), V, match="rank >= 2", error=ValueError)
    check_error(lambda a: rt.trace(a, 0, 1, -1), M, match="cannot be the same", error=ValueError)
    check_error(lambda a: rt.trace(a), M.astype(np.uint8), match="uint64", error=TypeError)
    check_error(lambda a: rt.take(a, [0.5]), M, match="must be integers", error=TypeError)
    check_error(lambda a: rt.take(a, [12]), M, match="out of bounds")
    check_error(lambda a: rt.take_along_axis(a, np.array([0, 1]), 0), M,
                match="must have the rank")
    check_error(lambda a: rt.take_along_axis(a, np.array([[5]]), 0), M, match="out of bounds")
    check_error(lambda a: rt.tril(a), np.array([b"x"], object), match="not string",
                error=TypeError)
