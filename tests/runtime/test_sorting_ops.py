"""sort, argsort (stable) and searchsorted against numpy: eagerly, in compiled graphs and in the
interpreter (check_op), with unknown dims, sort's gradient against finite differences, ONNX
against onnxruntime, and the numba and XLA lowerings."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_testing import check_error, check_op, onnx_agrees
from test_arrangement_ops import backend_agrees, check_unknown_dims
from test_gradients import check as check_gradient

import runtime as rt

RNG = np.random.default_rng(3)
X = RNG.integers(-4, 5, (3, 4, 5)).astype(np.float32)  # many ties
ARRAYS = [X, X.astype(np.float64), X.astype(np.int8), X.astype(np.int64), X > 0,
          X.astype(np.float16), X.astype(np.uint8), np.array([3.0, np.nan, -1.0, np.nan, 0.0])]


@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_sort_and_stable_argsort(axis):
    for a in ARRAYS:
        if axis is None or -a.ndim <= axis < a.ndim:
            check_op(lambda a: rt.sort(a, axis), lambda a: np.sort(a, axis, kind="stable"), a)
            check_op(lambda a: rt.argsort(a, axis), lambda a: np.argsort(a, axis, kind="stable"),
                     a)
    check_unknown_dims(lambda a: (rt.sort(a, axis), rt.argsort(a, axis)),
                       lambda a: (np.sort(a, axis), np.argsort(a, axis, kind="stable")), X)


def test_sort_strings_and_scalars():
    words = np.array([b"pear", b"apple", b"fig", b"apple"], dtype=object)
    check_op(lambda a: rt.sort(a), np.sort, words)
    check_op(lambda a: rt.argsort(a), lambda a: np.argsort(a, kind="stable"), words)
    check_op(lambda a: rt.sort(a, None), lambda a: np.sort(a, None), np.float32(3.0))


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.lists(st.integers(-3, 3), min_size=0, max_size=12))
def test_argsort_keeps_the_order_of_ties(values):
    a = np.array(values, dtype=np.int32)
    np.testing.assert_array_equal(rt.argsort(rt.constant(a)).numpy(),
                                  np.argsort(a, kind="stable"))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(side):
    a = np.sort(X.ravel())
    for v in (X, np.float32(0.0), X.astype(np.int32), np.array([np.nan, -9.0, 9.0], np.float32)):
        check_op(lambda a, v: rt.searchsorted(a, v, side), lambda a, v: np.searchsorted(a, v, side),
                 a, v)
    with_nan = np.array([-1.0, 2.0, np.nan, np.nan])
    check_op(lambda a, v: rt.searchsorted(a, v, side), lambda a, v: np.searchsorted(a, v, side),
             with_nan, np.array([np.nan, 2.0, 5.0]))
    check_op(lambda a, v: rt.searchsorted(a, v, side), lambda a, v: np.searchsorted(a, v, side),
             np.array([False, True, True]), np.array([[True], [False]]))
    check_unknown_dims(lambda a, v: rt.searchsorted(a, v, side),
                       lambda a, v: np.searchsorted(a, v, side), a, X)


# ---- gradients -----------------------------------------------------------------------------------

A = np.array([[0.3, -1.2, 2.5, 0.1], [1.7, 0.9, -0.4, -2.2], [0.5, 0.6, -0.7, 3.1]])


def test_sort_gradient():
    """Distinct values: sorting is smooth there, each item's gradient goes back to it."""
    check_gradient(lambda a: rt.sort(a), A)
    check_gradient(lambda a: rt.sort(a, 0), A)
    check_gradient(lambda a: rt.sort(a, None), A)
    check_gradient(lambda a: rt.sort(a * a, 1) * a, A)


def test_sort_gradient_with_unknown_dims():
    def fn(a):
        with rt.GradientTape() as tape:
            tape.watch(a)
            y = rt.reduce_sum(rt.sort(a, 0) * rt.constant([[1.0], [2.0], [3.0]], rt.float64))
        return tape.gradient(y, a)

    ranks = np.argsort(np.argsort(A, 0), 0) + 1.0  # each item's weight: its place when sorted
    check_unknown_dims(fn, lambda a: ranks, A)


# ---- ONNX, numba, XLA ----------------------------------------------------------------------------

def test_onnx_export():
    def fn(x, i, b, a, v):
        return (rt.sort(x), rt.argsort(x, 0), rt.sort(i, 1), rt.argsort(i, None), rt.sort(b, 0),
                rt.argsort(b), rt.searchsorted(a, v), rt.searchsorted(a, v, "right"),
                rt.searchsorted(a, i), rt.searchsorted(rt.sort(b, None), b[0]), rt.sort(v, 0),
                rt.argsort(rt.concat([a, a], 0)))  # NaNs last

    args = X, X.astype(np.int32), X > 0, np.array([-1.0, 0.5, 2.0, 2.0, np.nan]), np.array(
        [[2.0, np.nan], [-5.0, 0.5]])
    onnx_agrees(fn, *args)
    onnx_agrees(fn, *args, unknown_dims=True)


def test_strings_do_not_export():
    pytest.importorskip("onnx")
    f = rt.function(lambda a: rt.sort(a), autograph=False)
    with pytest.raises(rt.onnx.ExportError, match="does not sort strings"):
        rt.onnx.export(f.get_concrete_function(rt.constant(np.array([b"b", b"a"], object))))


def test_numba_and_xla():
    v = X[0, 0]
    backend_agrees(lambda v, m: (rt.sort(v), rt.argsort(v), rt.argsort(m, None),
                                 rt.searchsorted(rt.sort(v), m, "right")), v, X[0],
                   jit_compile="numba")
    backend_agrees(lambda x, v: (rt.sort(x, 1), rt.argsort(x), rt.argsort(x, None),
                                 rt.searchsorted(rt.sort(v), x), rt.searchsorted(v, v, "right")),
                   X, np.sort(v), jit_compile="xla")


# ---- bad input -----------------------------------------------------------------------------------

def test_bad_input():
    check_error(lambda a: rt.sort(a, 3), X, match="axis 3 is out of range")
    check_error(lambda a: rt.argsort(a), np.float32(1.0), match="out of range")
    check_error(lambda a, v: rt.searchsorted(a, v), X, X, match="must be 1-D")
    check_error(lambda a, v: rt.searchsorted(a, v, "middle"), X[0, 0], X, match="side must be",
                error=ValueError)
    check_error(lambda a, v: rt.searchsorted(a, v), np.array([b"a"], object), np.array([b"b"],
                object), match="not string", error=TypeError)
