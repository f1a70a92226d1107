"""rt.linalg against numpy.linalg: eagerly, as a graph and in the interpreter (check_op), with
unknown dims, batched, in float32 and float64; gradients against finite differences; numpy's
LinAlgError cases as InvalidArgumentError eagerly and in graphs; ONNX and XLA where they lower.

The kernels are numpy's functions, so decompositions equal numpy's exactly (signs included) on
the default executor; XLA's LAPACK may choose other signs, so its results are compared by
reconstruction."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_testing import check_error, check_op, onnx_agrees, run_in_graph, traced_for_specs
from test_gradients import check as check_gradient

import runtime as rt
from runtime.executor.interpreter import run_graph

RNG = np.random.default_rng(7)
DTYPES = [np.float32, np.float64]
RTOL = {np.float32: 1e-5, np.float64: 1e-12}


def _general(shape, dtype=np.float64):
    """Well-conditioned matrices: the identity times n plus noise."""
    n = shape[-1]
    return (RNG.uniform(-1, 1, shape) + n * np.eye(n)).astype(dtype)


def _spd(shape, dtype=np.float64):
    x = RNG.uniform(-1, 1, shape)
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _symmetric(shape, dtype=np.float64):
    x = RNG.uniform(-1, 1, shape)
    return ((x + np.swapaxes(x, -1, -2)) / 2).astype(dtype)


# ---- values: three ways against numpy ---------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 1, 2, 2)])
def test_square_matrix_functions_match_numpy(dtype, shape):
    a, spd, sym = _general(shape, dtype), _spd(shape, dtype), _symmetric(shape, dtype)
    rtol = RTOL[dtype]
    check_op(rt.linalg.inv, np.linalg.inv, a, rtol=rtol)
    check_op(rt.linalg.det, np.linalg.det, a, rtol=rtol)
    check_op(rt.linalg.slogdet, np.linalg.slogdet, a, rtol=rtol)
    check_op(rt.linalg.cholesky, np.linalg.cholesky, spd, rtol=rtol)
    check_op(rt.linalg.eigh, np.linalg.eigh, sym, rtol=rtol)
    check_op(lambda x: rt.linalg.eigh(x, UPLO="U"), lambda x: np.linalg.eigh(x, UPLO="U"), sym)
    check_op(rt.linalg.eigvalsh, np.linalg.eigvalsh, sym, rtol=rtol)
    check_op(lambda x: rt.linalg.eigvalsh(x, "U"), lambda x: np.linalg.eigvalsh(x, "U"), a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2), (2, 2, 3)])
def test_qr_and_svd_match_numpy_and_reconstruct(dtype, shape):
    a = RNG.uniform(-1, 1, shape).astype(dtype)
    rtol = RTOL[dtype]
    q, r = check_op(rt.linalg.qr, np.linalg.qr, a, rtol=rtol)
    np.testing.assert_allclose(q.numpy() @ r.numpy(), a, rtol=rtol * 10, atol=rtol * 10)
    assert np.allclose(np.triu(r.numpy()), r.numpy())
    for full in (True, False):
        u, s, vh = check_op(lambda x, full=full: rt.linalg.svd(x, full_matrices=full),
                            lambda x, full=full: np.linalg.svd(x, full_matrices=full), a,
                            rtol=rtol)
        k = min(shape[-2:])
        rebuilt = (u.numpy()[..., :k] * s.numpy()[..., None, :]) @ vh.numpy()[..., :k, :]
        np.testing.assert_allclose(rebuilt, a, rtol=rtol * 10, atol=rtol * 10)
    check_op(lambda x: rt.linalg.svd(x, compute_uv=False),
             lambda x: np.linalg.svd(x, compute_uv=False), a, rtol=rtol)


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_matches_numpy_with_vectors_matrices_and_broadcasting(dtype):
    a = _general((3, 3), dtype)
    batched = _general((2, 3, 3), dtype)
    check_op(rt.linalg.solve, np.linalg.solve, a, RNG.uniform(-1, 1, 3).astype(dtype))
    check_op(rt.linalg.solve, np.linalg.solve, a, RNG.uniform(-1, 1, (3, 2)).astype(dtype))
    # numpy 2: a 1-d b is one vector for every matrix of the batch
    check_op(rt.linalg.solve, np.linalg.solve, batched, RNG.uniform(-1, 1, 3).astype(dtype))
    check_op(rt.linalg.solve, np.linalg.solve, batched, RNG.uniform(-1, 1, (4, 1, 3, 2)).astype(
        dtype), rtol=RTOL[dtype])


def test_integer_matrices_compute_in_float64_and_float16_is_refused():
    ints = np.array([[2, 1], [1, 3]], np.int32)
    check_op(rt.linalg.inv, np.linalg.inv, ints)
    check_op(rt.linalg.det, np.linalg.det, ints)
    check_op(rt.linalg.norm, np.linalg.norm, ints)
    check_op(rt.linalg.solve, np.linalg.solve, ints, np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        rt.linalg.inv(np.eye(2, dtype=np.float16))
    with pytest.raises(TypeError, match="real matrices, not complex64"):
        rt.linalg.det(np.eye(2, dtype=np.complex64))
    with pytest.raises(TypeError, match="real numbers, not complex128"):
        rt.linalg.norm(np.ones(2, np.complex128))
    check_op(rt.linalg.norm, np.linalg.norm, np.array([3, 4], np.float16))


NORM_CASES = [
    ((5,), {}), ((5,), {"ord": 1}), ((5,), {"ord": np.inf}), ((5,), {"ord": -np.inf}),
    ((5,), {"ord": 2, "keepdims": True}), ((2, 3), {}), ((2, 3), {"ord": "fro"}),
    ((2, 3), {"axis": 1}), ((2, 3), {"axis": 0, "ord": 1}), ((2, 3), {"axis": -1, "ord": np.inf}),
    ((2, 3, 4), {}), ((2, 3, 4), {"axis": (1, 2)}), ((2, 3, 4), {"axis": (2, 0), "keepdims": True}),
    ((2, 3, 4), {"keepdims": True}), ((), {}), ((4,), {"axis": 0, "ord": None}),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, kwargs", NORM_CASES, ids=str)
def test_norm_matches_numpy(dtype, shape, kwargs):
    x = np.asarray(RNG.uniform(-2, 2, shape)).astype(dtype)
    if x.size > 2:
        x.flat[1] = -x.flat[0]  # a tie for inf norms
    check_op(lambda t: rt.linalg.norm(t, **kwargs), lambda t: np.linalg.norm(t, **kwargs), x,
             rtol=RTOL[dtype])


def test_norm_refuses_what_numpy_refuses_or_rt_does_not_support():
    x = np.ones((2, 3, 4))
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        rt.linalg.norm(x, ord=2)
    with pytest.raises(ValueError, match="not supported for vectors"):
        rt.linalg.norm(x[0, 0], ord=3)
    with pytest.raises(ValueError, match="not supported for matrices"):
        rt.linalg.norm(x[0], ord="nuc")
    with pytest.raises(ValueError, match="Duplicate axes"):
        rt.linalg.norm(x, axis=(1, -2))
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of range"):
        rt.linalg.norm(x, axis=3)
    with pytest.raises(TypeError, match="string"):
        rt.linalg.norm(rt.constant([b"a"]))


# ---- unknown dims ------------------------------------------------------------------------------

UNKNOWN = [
    (rt.linalg.inv, np.linalg.inv, [_general((2, 3, 3))]),
    (rt.linalg.det, np.linalg.det, [_general((2, 3, 3))]),
    (lambda a: rt.linalg.slogdet(a)[1], lambda a: np.linalg.slogdet(a)[1], [_general((3, 3))]),
    (rt.linalg.cholesky, np.linalg.cholesky, [_spd((2, 3, 3))]),
    (lambda a: rt.linalg.eigh(a)[0], lambda a: np.linalg.eigh(a)[0], [_symmetric((3, 3))]),
    (rt.linalg.eigvalsh, np.linalg.eigvalsh, [_symmetric((2, 3, 3))]),
    (lambda a: rt.linalg.qr(a)[1], lambda a: np.linalg.qr(a)[1], [RNG.uniform(-1, 1, (4, 3))]),
    (lambda a: rt.linalg.svd(a)[1], lambda a: np.linalg.svd(a)[1], [RNG.uniform(-1, 1, (2, 4))]),
    (rt.linalg.solve, np.linalg.solve, [_general((3, 3)), RNG.uniform(-1, 1, (3, 2))]),
    (rt.linalg.solve, np.linalg.solve, [_general((2, 3, 3)), RNG.uniform(-1, 1, 3)]),
    (lambda x: rt.linalg.norm(x, axis=1), lambda x: np.linalg.norm(x, axis=1),
     [RNG.uniform(-1, 1, (2, 3))]),
    (rt.linalg.norm, np.linalg.norm, [RNG.uniform(-1, 1, (2, 3))]),
]


@pytest.mark.parametrize("rt_fn, np_fn, args", UNKNOWN, ids=range(len(UNKNOWN)))
def test_unknown_dims(rt_fn, np_fn, args):
    specs = [rt.TensorSpec((None,) * a.ndim, rt.float64) for a in args]
    concrete = traced_for_specs(rt_fn, *specs)
    want = np_fn(*args)
    got = concrete(*map(rt.constant, args))
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(run_graph(concrete.graph, args)[0], want)
    declared = concrete.graph.outputs[0]
    assert declared.shape.rank == np.ndim(want)


def test_known_dims_are_inferred():
    def shapes(fn, shape):
        return [tuple(t.shape) for t in traced_for_specs(
            fn, rt.TensorSpec(shape, rt.float32)).graph.outputs]

    assert shapes(lambda a: rt.linalg.qr(a), (None, 5, 3)) == [(None, 5, 3), (None, 3, 3)]
    assert shapes(lambda a: rt.linalg.qr(a), (5, None)) == [(5, None), (None, None)]
    assert shapes(lambda a: rt.linalg.svd(a), (2, 5, 3)) == [(2, 5, 5), (2, 3), (2, 3, 3)]
    assert shapes(lambda a: rt.linalg.svd(a, False), (5, 3)) == [(5, 3), (3,), (3, 3)]
    assert shapes(lambda a: rt.linalg.eigh(a), (None, 4, None)) == [(None, 4), (None, 4, None)]
    assert shapes(lambda a: rt.linalg.det(a), (7, None, None)) == [(7,)]
    assert shapes(lambda a: rt.linalg.norm(a, axis=-1), (None, 3)) == [(None,)]


# ---- bad input: numpy's LinAlgError is an InvalidArgumentError, eagerly and in graphs ----------

def test_singular_and_not_positive_definite_matrices_raise_numpy_s_errors():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(singular)
    check_error(lambda a: rt.linalg.inv(a), singular, match="Singular matrix")
    check_error(lambda a: rt.linalg.solve(a, a[0]), singular, match="Singular matrix")
    check_error(lambda a: rt.linalg.cholesky(a), -np.eye(2), match="not positive definite")
    check_op(rt.linalg.det, np.linalg.det, singular)  # numpy gives 0, no error


def test_matrices_that_are_not_square_or_not_matrices_are_refused():
    check_error(lambda a: rt.linalg.inv(a), np.ones((2, 3)), match="must be square")
    check_error(lambda a: rt.linalg.eigh(a), np.ones((2, 3, 2)), match="must be square")
    check_error(lambda a: rt.linalg.det(a), np.ones(3), match="at least two-dimensional")
    check_error(lambda a: rt.linalg.qr(a), np.ones(3), match="at least two-dimensional")
    check_error(lambda a, b: rt.linalg.solve(a, b), np.eye(3), np.ones(2), match="must agree")
    with pytest.raises(ValueError, match="UPLO"):
        rt.linalg.eigh(np.eye(2), UPLO="X")
    with pytest.raises(ValueError, match="mode='reduced' only"):
        rt.linalg.qr(np.eye(2), mode="complete")


# ---- gradients against finite differences ------------------------------------------------------

def _sym(x):
    return (x + rt.transpose(x, (0, 2, 1) if x.ndim == 3 else (1, 0))) * 0.5


GRADIENTS = [
    ("inv", rt.linalg.inv, [_general((2, 3, 3))]),
    ("solve", rt.linalg.solve, [_general((2, 3, 3)), RNG.uniform(-1, 1, (3, 2))]),
    ("solve vector", rt.linalg.solve, [_general((2, 3, 3)), RNG.uniform(-1, 1, 3)]),
    ("det", rt.linalg.det, [_general((2, 3, 3))]),
    ("slogdet", lambda a: rt.linalg.slogdet(a)[1], [_general((3, 3)) - 4 * np.eye(3)]),
    ("cholesky", rt.linalg.cholesky, [_spd((2, 3, 3))]),
    ("cholesky of sym", lambda a: rt.linalg.cholesky(_sym(a)), [_spd((3, 3))]),
    ("eigvalsh", rt.linalg.eigvalsh, [_symmetric((2, 3, 3))]),
    ("eigvalsh U", lambda a: rt.linalg.eigvalsh(a, "U"), [_symmetric((3, 3))]),
    ("eigh", lambda a: tuple(rt.linalg.eigh(a)), [_symmetric((3, 3))]),
    ("eigh U", lambda a: tuple(rt.linalg.eigh(a, "U")), [_symmetric((2, 3, 3))]),
    ("qr", lambda a: tuple(rt.linalg.qr(a)), [RNG.uniform(-1, 1, (4, 3))]),
    ("qr square", lambda a: rt.linalg.qr(a)[0], [RNG.uniform(-1, 1, (2, 3, 3))]),
    ("svd values", lambda a: rt.linalg.svd(a, compute_uv=False), [RNG.uniform(-1, 1, (3, 4))]),
    ("svd full S", lambda a: rt.linalg.svd(a)[1], [RNG.uniform(-1, 1, (2, 4, 3))]),
    ("svd reduced", lambda a: tuple(rt.linalg.svd(a, full_matrices=False)),
     [RNG.uniform(-1, 1, (4, 3))]),
    ("svd wide", lambda a: tuple(rt.linalg.svd(a, full_matrices=False)),
     [RNG.uniform(-1, 1, (2, 3, 5))]),
    ("norm", rt.linalg.norm, [RNG.uniform(-1, 1, (2, 3))]),
    ("norm axis", lambda x: rt.linalg.norm(x, axis=1), [RNG.uniform(-1, 1, (2, 3))]),
    ("norm 1", lambda x: rt.linalg.norm(x, 1, axis=0), [RNG.uniform(-1, 1, (2, 3))]),
    ("norm inf", lambda x: rt.linalg.norm(x, np.inf, axis=-1, keepdims=True),
     [RNG.uniform(-1, 1, (2, 3))]),
    ("norm -inf", lambda x: rt.linalg.norm(x, -np.inf), [RNG.uniform(-1, 1, 4)]),
    ("norm fro", lambda x: rt.linalg.norm(x, "fro", axis=(0, 2)), [RNG.uniform(-1, 1, (2, 3, 2))]),
]


@pytest.mark.parametrize("name, fn, args", GRADIENTS, ids=[g[0] for g in GRADIENTS])
def test_gradients_match_finite_differences(name, fn, args):
    check_gradient(fn, *args, rtol=1e-5)


def test_gradient_of_a_zero_norm_is_zero_and_ties_of_inf_norms_share():
    x = rt.constant(np.zeros(3))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.linalg.norm(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.zeros(3))
    x = rt.constant(np.array([1.0, -3.0, 3.0]))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.linalg.norm(x, np.inf)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, -0.5, 0.5])


def test_gradients_with_unknown_dims():
    a = _spd((2, 3, 3))

    def grads(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            loss = rt.reduce_sum(rt.linalg.cholesky(x)) + rt.reduce_sum(rt.linalg.eigh(x)[1] ** 2)
        return tape.gradient(loss, x)

    concrete = traced_for_specs(grads, rt.TensorSpec((None, None, None), rt.float64))
    np.testing.assert_allclose(concrete(rt.constant(a)).numpy(), grads(rt.constant(a)).numpy(),
                               rtol=1e-12)


def test_gradients_that_do_not_exist_say_why():
    a = rt.constant(RNG.uniform(-1, 1, (2, 4)))
    with rt.GradientTape() as tape:
        tape.watch(a)
        q = rt.linalg.qr(a)[0]
    with pytest.raises(rt.errors.NoGradientError, match="at least as many rows"):
        tape.gradient(q, a)
    with rt.GradientTape() as tape:
        tape.watch(a)
        u = rt.linalg.svd(a)[0]
    with pytest.raises(rt.errors.NoGradientError, match="full_matrices=False"):
        tape.gradient(u, a)


@settings(max_examples=15)
@given(st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_inverse_gradient_for_drawn_matrices(n, seed):
    rng = np.random.default_rng(seed)
    check_gradient(rt.linalg.inv, rng.uniform(-1, 1, (n, n)) + n * np.eye(n), rtol=1e-5)


# ---- ONNX and XLA --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"ord": 1, "axis": 0},
                                    {"ord": np.inf, "axis": -1}, {"ord": -np.inf, "axis": 1},
                                    {"ord": "fro"}, {"axis": 1, "keepdims": True}])
def test_norm_and_det_export_to_onnx(kwargs):
    x = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
    onnx_agrees(lambda x: (rt.linalg.norm(x, **kwargs), rt.linalg.det(x[:, :3])), x, rtol=1e-5)


@pytest.mark.no_round_trip
def test_xla_agrees_up_to_signs():
    pytest.importorskip("jax")
    a = _general((2, 3, 3), np.float32)
    spd, sym = _spd((3, 3), np.float32), _symmetric((2, 3, 3), np.float32)

    def fn(a, spd, sym):
        u, s, vh = rt.linalg.svd(a)
        q, r = rt.linalg.qr(a)
        w, v = rt.linalg.eigh(sym)
        return (rt.linalg.inv(a), rt.linalg.det(a), rt.linalg.slogdet(a)[1],
                rt.linalg.solve(a, a[0, 0]), rt.linalg.cholesky(spd), rt.linalg.eigvalsh(sym),
                rt.linalg.norm(a, axis=1), rt.linalg.norm(a), s,
                rt.matmul(u * s[:, None, :], vh), rt.matmul(q, r), w, rt.matmul(v * w[:, None, :],
                                                                               v, transpose_b=True))

    upper = np.triu(RNG.uniform(-1, 1, (3, 3)), 1).astype(np.float32)  # numpy reads the lower
    args = [rt.constant(v) for v in (a, spd + upper, sym + upper)]
    default = rt.function(fn, autograph=False)(*args)
    xla = rt.function(fn, autograph=False, jit_compile="xla")(*args)
    for got, want in zip(xla, default):
        assert got.dtype is want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-4, atol=2e-5)
    np.testing.assert_allclose(xla[9].numpy(), a, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(xla[12].numpy(), sym, rtol=1e-4, atol=1e-5)


def test_numba_refuses_with_the_reason():
    pytest.importorskip("numba")
    f = rt.function(lambda a: rt.linalg.inv(a), autograph=False, jit_compile="numba")
    with pytest.raises(rt.errors.NoLoweringError, match="SciPy"):
        f.get_concrete_function(rt.constant(np.eye(2)))


def test_results_are_numpy_s_named_tuples_in_graphs_too():
    a = _symmetric((3, 3))
    eager = rt.linalg.eigh(a)
    compiled, _, _ = run_in_graph(lambda x: rt.linalg.eigh(x), a)
    assert type(eager).__name__ == "EighResult" and eager.eigenvalues is eager[0]
    assert type(compiled).__name__ == "EighResult"
    assert rt.linalg.svd(a)._fields == ("U", "S", "Vh") and rt.linalg.qr(a)._fields == ("Q", "R")
