"""einsum, tensordot, dot, inner, outer, vdot, convolve and correlate against numpy: eagerly,
in compiled graphs and in the interpreter, with unknown dims, their gradients against finite
differences, their ONNX export in onnxruntime and their XLA lowering."""

import numpy as np
import pytest
from op_testing import check_error, check_op, onnx_agrees, traced_for_specs
from test_gradients import check as check_gradient

import runtime as rt

RNG = np.random.default_rng(3)


def _array(shape, dtype=np.float64):
    if np.dtype(dtype) == np.bool_:
        return RNG.random(shape) > 0.5
    if np.dtype(dtype).kind in "iu":
        return RNG.integers(-9 if np.dtype(dtype).kind == "i" else 0, 40, shape).astype(dtype)
    return RNG.uniform(-2, 2, shape).astype(dtype)


EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output
    ("i,i", [(5,), (5,)]),
    ("i,i->i", [(5,), (5,)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),  # the trace
    ("ij->ji", [(2, 3)]),
    ("ba", [(2, 3)]),  # implicit: letters in order, a transpose
    ("aB", [(2, 3)]),  # implicit: 'B' sorts before 'a', as in numpy
    ("ij->", [(2, 3)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ijk,kj->i", [(2, 3, 4), (4, 3)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ij,ij->ij", [(1, 3), (2, 3)]),  # a dim of 1 broadcasts, as numpy's
    ("...ij,...jk->...ik", [(1, 2, 3), (4, 3, 5)]),
    ("...i", [(2, 3)]),
    ("i...->...", [(3, 2, 2)]),
    ("", [()]),
    (",->", [(), ()]),
]


@pytest.mark.parametrize("subscripts,shapes", EINSUMS, ids=[e[0] or "scalar" for e in EINSUMS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int8, np.bool_])
def test_einsum_matches_numpy(subscripts, shapes, dtype):
    arrays = [_array(s, dtype) for s in shapes]
    check_op(lambda *xs: rt.einsum(subscripts, *xs), lambda *xs: np.einsum(subscripts, *xs),
             *arrays)


def test_einsum_with_unknown_dims():
    a, b = _array((2, 3)), _array((3, 4))
    concrete = traced_for_specs(lambda x, y: rt.einsum("ij,jk->ki", x, y),
                                rt.TensorSpec([None, None], rt.float64),
                                rt.TensorSpec([None, 4], rt.float64))
    assert list(concrete.graph.outputs[0].shape) == [4, None]
    got = concrete(rt.constant(a), rt.constant(b)).numpy()
    np.testing.assert_allclose(got, np.einsum("ij,jk->ki", a, b))


def test_einsum_errors():
    a = _array((2, 3))
    check_error(lambda x: rt.einsum("ij,jk", x, x), a, match="stand for dimensions|broadcast")
    check_error(lambda x: rt.einsum("ijk", x), a, match="3 letter")
    check_error(lambda x: rt.einsum("ij,j", x), a, match="2 operand")
    check_error(lambda x: rt.einsum("ij->k", x), a, match="output letter 'k'")
    check_error(lambda x: rt.einsum("ij->ii", x), a, match="twice")
    check_error(lambda x: rt.einsum("i1", x), a, match="not a letter")
    check_error(lambda x: rt.einsum("...j->j", x), a, match="no '...'")
    with pytest.raises(TypeError, match=r"float32 and int32.*rt\.cast"):
        rt.einsum("i,i", rt.constant([1.0]), rt.constant([1]))
    with pytest.raises(TypeError, match="string"):
        rt.einsum("i", rt.constant([b"a"]))


TENSORDOTS = [
    ((2, 3, 4), (3, 4, 5), 2),
    ((2, 3), (4, 5), 0),
    ((2, 3), (3, 5), 1),
    ((2, 3, 4), (4, 3, 2), ([1, 0], [1, 2])),
    ((2, 3), (3,), ([-1], [0])),
    ((3,), (3,), 1),
]


@pytest.mark.parametrize("a,b,axes", TENSORDOTS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.bool_])
def test_tensordot_matches_numpy(a, b, axes, dtype):
    check_op(lambda x, y: rt.tensordot(x, y, axes), lambda x, y: np.tensordot(x, y, axes),
             _array(a, dtype), _array(b, dtype), rtol=1e-5, atol=1e-6)


PAIRS = [((), (3,)), ((3,), ()), ((4,), (4,)), ((2, 4), (4,)), ((4,), (4, 3)), ((2, 4), (4, 3)),
         ((2, 3, 4), (5, 4, 2)), ((2, 3, 4), (4,))]


@pytest.mark.parametrize("a,b", PAIRS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
def test_dot_matches_numpy(a, b, dtype):
    check_op(rt.dot, np.dot, _array(a, dtype), _array(b, dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("a,b", [((), (3,)), ((4,), (4,)), ((2, 4), (4,)), ((2, 4), (3, 4)),
                                 ((2, 3, 4), (5, 4))])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_inner_matches_numpy(a, b, dtype):
    check_op(rt.inner, np.inner, _array(a, dtype), _array(b, dtype))


@pytest.mark.parametrize("a,b", [((3,), (4,)), ((2, 2), (3,)), ((), (2,))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_outer_and_vdot_match_numpy(a, b, dtype):
    x, y = _array(a, dtype), _array(b, dtype)
    check_op(rt.outer, np.outer, x, y)
    check_op(rt.vdot, np.vdot, x, x, rtol=1e-5)


def test_products_with_unknown_dims():
    a, b = _array((2, 3, 4)), _array((5, 4, 2))
    for fn, np_fn, out in ((rt.dot, np.dot, [None, None, None, 2]),
                           (lambda x, y: rt.tensordot(x, y, ([2], [1])),
                            lambda x, y: np.tensordot(x, y, ([2], [1])), [None, None, None, 2]),
                           (rt.outer, np.outer, [None, None])):
        concrete = traced_for_specs(fn, rt.TensorSpec([None, None, None], rt.float64),
                                    rt.TensorSpec([None, 4, 2], rt.float64))
        assert list(concrete.graph.outputs[0].shape) == out
        np.testing.assert_allclose(concrete(rt.constant(a), rt.constant(b)).numpy(),
                                   np_fn(a, b))
    concrete = traced_for_specs(rt.vdot, rt.TensorSpec([None, None], rt.float64),
                                rt.TensorSpec([None], rt.float64))
    assert list(concrete.graph.outputs[0].shape) == []
    x, y = _array((2, 3)), _array((6,))
    np.testing.assert_allclose(concrete(rt.constant(x), rt.constant(y)).numpy(), np.vdot(x, y))


def test_product_errors():
    a = _array((2, 3))
    check_error(lambda x: rt.dot(x, x), a, match="differ in size")
    check_error(lambda x: rt.tensordot(x, x, 3), a, match="rank >= 3")
    check_error(lambda x: rt.tensordot(x, x, ([0], [0, 1])), a, match="1 axis")
    check_error(lambda x: rt.tensordot(x, x, ([0, 0], [1, 1])), a, match="twice")
    check_error(lambda x: rt.tensordot(x, x, ([2], [0])), a, match="out of range")
    check_error(lambda x: rt.inner(x, x[:, :2]), a, match="differ in size")
    with pytest.raises(TypeError, match=r"float32 and int32.*rt\.cast"):
        rt.dot(rt.constant([1.0]), rt.constant([1]))
    z = rt.constant(np.array([1 + 2j, 3j]))
    with pytest.raises(TypeError, match="conjugates"):
        rt.vdot(z, z)
    with pytest.raises(TypeError, match="conjugates"):
        rt.correlate(z, z)


LENGTHS = [(5, 3), (3, 5), (4, 4), (2, 5), (4, 5), (1, 1), (6, 1)]


@pytest.mark.parametrize("m,n", LENGTHS)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_match_numpy(m, n, mode):
    a, v = _array((m,)), _array((n,))
    check_op(lambda x, y: rt.convolve(x, y, mode), lambda x, y: np.convolve(x, y, mode), a, v)
    check_op(lambda x, y: rt.correlate(x, y, mode), lambda x, y: np.correlate(x, y, mode), a, v)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int8, np.bool_])
def test_convolve_dtypes(dtype):
    a, v = _array((5,), dtype), _array((3,), dtype)
    check_op(rt.convolve, np.convolve, a, v, rtol=1e-5)
    check_op(rt.correlate, np.correlate, a, v, rtol=1e-5)


def test_convolve_with_unknown_lengths():
    for mode in ("full", "same", "valid"):
        concrete = traced_for_specs(lambda x, y, mode=mode: rt.convolve(x, y, mode),
                                    rt.TensorSpec([None], rt.float64),
                                    rt.TensorSpec([None], rt.float64))
        assert list(concrete.graph.outputs[0].shape) == [None]
        for m, n in ((5, 3), (2, 6)):
            a, v = _array((m,)), _array((n,))
            np.testing.assert_allclose(concrete(rt.constant(a), rt.constant(v)).numpy(),
                                       np.convolve(a, v, mode))


def test_convolve_errors():
    a = _array((4,))
    check_error(lambda x: rt.convolve(x, x[:0]), a, match="cannot be empty")
    check_error(lambda x: rt.correlate(x[None], x), a, match="must be 1-D")
    with pytest.raises(ValueError, match="mode must be one of"):
        rt.convolve(rt.constant(a), rt.constant(a), "circular")


# ---- gradients against finite differences -------------------------------------------------------

GRADIENTS = {
    "matmul": (lambda a, b: rt.einsum("ij,jk->ik", a, b), [(2, 3), (3, 4)]),
    "diagonal": (lambda a: rt.einsum("ii->i", a), [(3, 3)]),
    "trace times vector": (lambda a, v: rt.einsum("ii,j->j", a, v), [(3, 3), (2,)]),
    "summed out": (lambda a, b: rt.einsum("ij,k->k", a, b), [(2, 3), (4,)]),
    "broadcast 1": (lambda a, b: rt.einsum("ij,ij->i", a, b), [(1, 3), (2, 3)]),
    "broadcast to": (lambda a, b: rt.einsum("ij,ij->", a, b), [(2, 3), (2, 1)]),
    "ellipsis": (lambda a, b: rt.einsum("...ij,...jk", a, b), [(1, 2, 3), (2, 3, 2)]),
    "three": (lambda a, b, c: rt.einsum("i,ij,j->", a, b, c), [(2,), (2, 3), (3,)]),
    "transpose": (lambda a: rt.einsum("ijk->kij", a), [(2, 3, 2)]),
    "tensordot": (lambda a, b: rt.tensordot(a, b, ([2, 0], [0, 2])), [(2, 3, 4), (4, 2, 2)]),
    "tensordot 0": (lambda a, b: rt.tensordot(a, b, 0), [(2,), (3, 2)]),
    "dot": (rt.dot, [(2, 3, 4), (2, 4, 3)]),
    "dot scalar": (rt.dot, [(), (3,)]),
    "inner": (rt.inner, [(2, 3), (4, 3)]),
    "outer": (rt.outer, [(2, 2), (3,)]),
    "vdot": (rt.vdot, [(2, 3), (3, 2)]),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_contraction_gradients(name):
    fn, shapes = GRADIENTS[name]
    check_gradient(fn, *[_array(s) for s in shapes])


@pytest.mark.parametrize("m,n", LENGTHS)
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_and_correlate_gradients(m, n, mode):
    a, v = _array((m,)), _array((n,))
    check_gradient(lambda x, y: rt.convolve(x, y, mode), a, v)
    check_gradient(lambda x, y: rt.correlate(x, y, mode), a, v)


def test_einsum_gradient_with_unknown_dims():
    a, b = _array((1, 3)), _array((2, 3))

    def grads(x, y):
        with rt.GradientTape() as tape:
            tape.watch([x, y])
            z = rt.reduce_sum(rt.einsum("ij,ij,ii->j", x, y, y[:, :2]))
        return tape.gradient(z, [x, y])

    spec = rt.TensorSpec([None, None], rt.float64)
    concrete = traced_for_specs(grads, spec, spec)
    got = [g.numpy() for g in concrete(rt.constant(a), rt.constant(b))]
    want = [g.numpy() for g in rt.function(grads, autograph=False)(rt.constant(a),
                                                                    rt.constant(b))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)
    check_gradient(lambda x, y: rt.einsum("ij,ij,ii->j", x, y, y[:, :2]), a, b)


def test_integer_operands_have_no_gradient():
    x = rt.constant([1, 2])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.einsum("i,i", x, x)
    assert tape.gradient(y, x) is None


# ---- ONNX and XLA --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.bool_])
def test_onnx_export(dtype):
    a, b = _array((2, 3), dtype), _array((3, 4), dtype)
    onnx_agrees(lambda x, y: (rt.einsum("ij,jk->ki", x, y), rt.einsum("ii", x[:, :2]),
                              rt.dot(x, y), rt.tensordot(x, y, 0), rt.inner(x, x),
                              rt.outer(x, y), rt.vdot(x, x)), a, b, rtol=1e-5, atol=1e-6)


def test_onnx_lacks_convolve():
    f = rt.function(rt.convolve, autograph=False)
    with pytest.raises(rt.onnx.ExportError, match="Convolve"):
        rt.onnx.export(f.get_concrete_function(rt.constant([1.0, 2.0]), rt.constant([1.0])))


def test_xla_lowering():
    pytest.importorskip("jax")
    a, b, v = _array((2, 3), np.float32), _array((3, 4), np.float32), _array((2,), np.float32)

    def fn(x, y, w):
        return (rt.einsum("ij,jk->ik", x, y), rt.dot(x, y), rt.tensordot(x, y, 0),
                rt.convolve(x[0], w, "same"), rt.correlate(w, x[1], "same"))

    args = [rt.constant(a), rt.constant(b), rt.constant(v)]
    default = rt.function(fn, autograph=False)(*args)
    native = rt.function(fn, autograph=False, jit_compile="xla")(*args)
    for got, want in zip(native, default, strict=True):
        assert got.dtype is want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=1e-5)


def test_convolve_mode_given_as_a_numpy_string():
    a, v, mode = np.arange(5.0), np.array([1.0, 2.0, 3.0]), np.array(["full", "same"])[1]
    for rt_fn, np_fn in ((rt.convolve, np.convolve), (rt.correlate, np.correlate)):
        f = rt.function(lambda x, y, rt_fn=rt_fn: rt_fn(x, y, mode), autograph=False)
        np.testing.assert_array_equal(f(rt.constant(a), rt.constant(v)).numpy(),
                                      np_fn(a, v, mode))
