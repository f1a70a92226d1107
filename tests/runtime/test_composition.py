"""The composition matrix: every kind of callee (a plain helper, an rt.function on each executor,
one with an input_signature, a loaded function, a custom-gradient function, a decorated method
reading variables) used every way (called while tracing, under an eager tape, through rt.grad,
under a tape inside the caller, to second order, saved and loaded, exported to ONNX, from
threads), each compared with the same program written without the boundary: the plain Python
helper. Values must be equal (to the last bit where one executor runs both; native executors
compute sin/tanh in their own way); gradients are also checked against float64 finite
differences."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest
from composition_programs import (
    NEGATIVE,
    POSITIVE,
    SPEC,
    Model,
    W,
    body,
    in_threads,
    tape_outside,
)

import runtime as rt

try:
    import numba  # noqa: F401
except ImportError:
    numba = None
try:
    import jax  # noqa: F401
except ImportError:
    jax = None
try:
    import onnxruntime
except ImportError:
    onnxruntime = None

def _custom():
    @rt.custom_gradient
    def custom(x):
        value = body(x)

        def grad(dy, variables=None):
            with rt.GradientTape() as tape:
                tape.watch(x)
                again = body(x)
            dx, dw = tape.gradient(again, [x, W])
            return dy * dx, [dy * dw]

        return value, grad

    return custom


def _loaded():
    f = rt.function(body, input_signature=[SPEC])
    f.get_concrete_function()
    directory = tempfile.mkdtemp(prefix="composition-")
    rt.saved.save(f, directory)
    loaded = rt.saved.load(directory)
    return loaded, loaded.variables[0]


def _native(jit):
    needs = {"numba": numba, "xla": jax, "auto": numba}[jit]
    return pytest.param(jit, marks=pytest.mark.skipif(needs is None, reason=f"{jit} missing"))


KINDS = ["plain", "function", _native("numba"), _native("xla"), _native("auto"), "signature",
         "loaded", "custom_gradient", "method"]


def callee(kind):
    """(the callee, the variable it reads) for a kind."""
    if kind == "plain":
        return body, W
    if kind == "function":
        return rt.function(body), W
    if kind in ("numba", "xla", "auto"):  # (numba reads no variables: the weights come in)
        native = rt.function(body, jit_compile=kind)
        return (lambda x: native(x, W.read_value())), W
    if kind == "signature":
        return rt.function(body, input_signature=[SPEC]), W
    if kind == "loaded":
        return _loaded()
    if kind == "custom_gradient":
        return _custom(), W
    if kind == "method":
        return Model().predict, W
    raise ValueError(kind)


# ---- the uses: each returns a list of numpy values --------------------------------------------

def traced(h, w, x):
    f = rt.function(lambda x: h(x) * 2.0 + h(x + 1.0))
    return [f(rt.constant(x)).numpy(), f(rt.constant(x)).numpy()]  # traced, then cached


def through_grad(h, w, x):
    value, dx = rt.value_and_grad(h)(rt.constant(x))
    return [value.numpy(), dx.numpy(), rt.grad(h)(rt.constant(x)).numpy()]


def tape_inside(h, w, x):
    @rt.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = h(x)
        dx, dw = tape.gradient(y, [x, w])
        return y, dx, dw

    return [v.numpy() for v in f(rt.constant(x))]


def second_order(h, w, x):
    x = rt.constant(x)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = h(x)
        dx = inner.gradient(y, x)
        slope = rt.reduce_sum(dx * rt.constant([1.0, 2.0, 3.0], rt.float64))
    return [dx.numpy(), outer.gradient(slope, x).numpy()]


def saved_outer(h, w, x):
    f = rt.function(lambda x: h(x) * 2.0, input_signature=[SPEC])
    f.get_concrete_function()
    directory = tempfile.mkdtemp(prefix="composition-")
    rt.saved.save(f, directory)
    loaded = rt.saved.load(directory)
    return [loaded(rt.constant(x)).numpy(), f(rt.constant(x)).numpy()]


def onnx_outer(h, w, x):
    if onnxruntime is None:
        pytest.skip("onnx and onnxruntime are not installed")
    f = rt.function(lambda x: h(x) * 2.0, input_signature=[SPEC])
    model = rt.onnx.export(f.get_concrete_function())
    session = onnxruntime.InferenceSession(model.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {session.get_inputs()[0].name: np.asarray(x)})
    return [out]


def from_threads(h, w, x):
    f = rt.function(lambda x: h(x) * 2.0)
    inputs = [x * (1.0 + k / 8.0) for k in range(8)]
    results = [None] * 8

    def work(k):
        for _ in range(5):
            results[k] = f(rt.constant(inputs[k])).numpy()

    in_threads(work, 8)
    return results


USES = [traced, tape_outside, through_grad, tape_inside, second_order, saved_outer, onnx_outer,
        from_threads]


@pytest.fixture
def x64():
    """JAX computes float64 only in its 64-bit mode (for the XLA kind)."""
    if jax is None:
        yield
        return
    was = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", was)


@pytest.mark.no_round_trip
@pytest.mark.usefixtures("x64")
@pytest.mark.parametrize("use", USES, ids=lambda u: u.__name__)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE], ids=["true_branch", "false_branch"])
def test_composition_matrix(kind, use, x):
    h, w = callee(kind)
    got = use(h, w, x)
    expected = use(body, W, x)
    assert len(got) == len(expected)
    native = kind in ("numba", "xla", "auto") and use not in (traced, saved_outer, onnx_outer,
                                                              from_threads)
    for a, b in zip(got, expected):
        if use is second_order and kind != "plain":  # the sweep through the recorded call's
            np.testing.assert_allclose(a, b, rtol=1e-13)  # graphs adds terms in another order
        elif native or use is onnx_outer:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
        else:
            np.testing.assert_array_equal(a, b)


# ---- the reference itself against finite differences --------------------------------------------

def _finite_difference(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


@pytest.mark.parametrize("x", [POSITIVE, NEGATIVE], ids=["true_branch", "false_branch"])
def test_gradients_through_a_decorated_call_match_finite_differences(x):
    h = rt.function(body)
    _, dx, dw = tape_outside(h, W, x)
    np.testing.assert_allclose(dx, _finite_difference(lambda v: body(rt.constant(v)).numpy(), x),
                               rtol=1e-6)

    def with_weights(v):
        return body(rt.constant(x), rt.constant(v)).numpy()

    np.testing.assert_allclose(dw, _finite_difference(with_weights, W.numpy()), rtol=1e-6)
    weights = np.array([1.0, 2.0, 3.0])
    second = _finite_difference(lambda v: tape_outside(h, W, v)[1] @ weights, x)
    np.testing.assert_allclose(second_order(h, W, x)[1], second, rtol=1e-5)
