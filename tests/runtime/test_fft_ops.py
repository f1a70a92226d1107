"""rt.fft and complex tensors against numpy: the transforms three ways (check_op) over dtypes,
n, axis and norm, with unknown dims and bad input; complex64/complex128 values (conversion,
arithmetic, real/imag/conj/angle/abs, saving) and what refuses them, eagerly and in graphs; XLA
and numba where they lower; gradients that do not pass through complex values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_testing import check_error, check_op, traced_for_specs

import runtime as rt
from runtime.executor.interpreter import run_graph

RNG = np.random.default_rng(3)
REAL = [np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
RTOL = {np.float32: 1e-5, np.float64: 1e-12, np.complex64: 1e-5, np.complex128: 1e-12}


def _values(shape, dtype):
    x = RNG.uniform(-1, 1, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.uniform(-1, 1, shape)
    return x.astype(dtype)


def _assert_close(actual, expected, dtype):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=RTOL[np.dtype(dtype).type], atol=1e-6)


def _check(rt_fn, np_fn, x):
    """check_op, with complex results compared by value within the dtype's tolerance (numpy's
    own kernel: eager and graph are bit for bit numpy's)."""
    check_op(rt_fn, np_fn, x, rtol=RTOL[np.dtype(x.dtype).type], atol=1e-6)


# ---- the transforms ---------------------------------------------------------------------------

TRANSFORM_ARGS = [{}, {"n": 5}, {"n": 12}, {"axis": 0}, {"norm": "ortho"}, {"norm": "forward"},
                  {"norm": "backward", "n": 3, "axis": -2}]


@pytest.mark.parametrize("kwargs", TRANSFORM_ARGS, ids=str)
@pytest.mark.parametrize("dtype", REAL + COMPLEX)
def test_fft_and_ifft_match_numpy(dtype, kwargs):
    x = _values((3, 8), dtype)
    _check(lambda t: rt.fft.fft(t, **kwargs), lambda a: np.fft.fft(a, **kwargs), x)
    _check(lambda t: rt.fft.ifft(t, **kwargs), lambda a: np.fft.ifft(a, **kwargs), x)


@pytest.mark.parametrize("kwargs", TRANSFORM_ARGS, ids=str)
@pytest.mark.parametrize("dtype", REAL)
def test_rfft_and_irfft_match_numpy(dtype, kwargs):
    x = _values((3, 8), dtype)
    _check(lambda t: rt.fft.rfft(t, **kwargs), lambda a: np.fft.rfft(a, **kwargs), x)
    spectrum = np.fft.rfft(x).astype(np.complex64 if dtype == np.float32 else np.complex128)
    _check(lambda t: rt.fft.irfft(t, **kwargs), lambda a: np.fft.irfft(a, **kwargs), spectrum)
    _check(lambda t: rt.fft.irfft(t, **kwargs), lambda a: np.fft.irfft(a, **kwargs), x)


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.int64, np.bool_])
def test_other_real_dtypes_transform_as_numpy_s(dtype):
    x = (RNG.uniform(-3, 3, 6) > 0 if dtype == np.bool_ else RNG.uniform(-3, 3, 6)).astype(dtype)
    for name in ("fft", "ifft", "rfft", "irfft"):
        check_op(getattr(rt.fft, name), getattr(np.fft, name), x, rtol=1e-3, atol=1e-3)


def test_round_trips_and_batches():
    x = _values((2, 3, 10), np.float64)
    back = rt.fft.irfft(rt.fft.rfft(x, axis=1), n=3, axis=1)
    np.testing.assert_allclose(back.numpy(), x, atol=1e-12)
    z = _values((4, 1, 6), np.complex64)
    np.testing.assert_allclose(rt.fft.ifft(rt.fft.fft(z, axis=0), axis=0).numpy(), z, atol=1e-6)


@settings(max_examples=25)
@given(st.integers(1, 9), st.one_of(st.none(), st.integers(1, 12)),
       st.sampled_from([None, "ortho", "forward"]))
def test_drawn_lengths(length, n, norm):
    x = _values((2, length), np.float64)
    for name in ("fft", "rfft", "ifft"):
        np.testing.assert_allclose(getattr(rt.fft, name)(x, n=n, norm=norm).numpy(),
                                   getattr(np.fft, name)(x, n=n, norm=norm))
    if n is not None or length > 1:
        np.testing.assert_allclose(rt.fft.irfft(x, n=n, norm=norm).numpy(),
                                   np.fft.irfft(x, n=n, norm=norm))


@pytest.mark.parametrize("name, n, axis, want", [
    ("fft", None, 1, (2, None, 3)), ("fft", 4, 1, (2, 4, 3)), ("rfft", None, 1, (2, None, 3)),
    ("rfft", None, -1, (2, None, 2)), ("rfft", 7, 1, (2, 4, 3)), ("irfft", None, -1, (2, None, 4)),
    ("irfft", 5, 1, (2, 5, 3)), ("ifft", None, 0, (2, None, 3))])
def test_inferred_shapes_with_unknown_dims(name, n, axis, want):
    spec = rt.TensorSpec((2, None, 3), rt.complex64 if name == "irfft" else rt.float32)
    concrete = traced_for_specs(lambda x: getattr(rt.fft, name)(x, n=n, axis=axis), spec)
    assert tuple(concrete.graph.outputs[0].shape) == want
    x = _values((2, 6, 3), spec.dtype.np_dtype)
    expected = getattr(np.fft, name)(x, n=n, axis=axis)
    _assert_close(concrete(rt.constant(x)).numpy(), expected, expected.dtype)
    _assert_close(run_graph(concrete.graph, [x])[0], expected, expected.dtype)


def test_bad_arguments_are_refused_as_numpy_refuses_them():
    x = np.ones((2, 4))
    with pytest.raises(ValueError, match="Invalid norm value"):
        rt.fft.fft(x, norm="half")
    with pytest.raises(rt.errors.InvalidArgumentError, match="Invalid number of FFT data points"):
        rt.fft.fft(x, n=0)
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of range"):
        rt.fft.rfft(x, axis=2)
    with pytest.raises(TypeError, match="real numbers, not complex64"):
        rt.fft.rfft(x.astype(np.complex64))
    with pytest.raises(TypeError, match="numbers, not string"):
        rt.fft.fft(rt.constant([b"a"]))
    # an empty axis: while tracing when the dim is known, when the graph runs when not
    check_error(lambda a: rt.fft.fft(a), np.ones((2, 0)), match="FFT data points \\(0\\)")
    check_error(lambda a: rt.fft.irfft(a), np.ones((3, 1)), match="FFT data points \\(0\\)")


# ---- complex tensors --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_arithmetic_and_parts_match_numpy(dtype):
    a, b = _values((2, 3), dtype), _values((3,), dtype)
    for rt_fn, np_fn in [(rt.add, np.add), (rt.subtract, np.subtract),
                         (rt.multiply, np.multiply), (rt.divide, np.divide)]:
        check_op(rt_fn, np_fn, a, b, rtol=RTOL[dtype])
    check_op(lambda x: -x * 2.0 + 1.0, lambda x: -x * dtype(2) + dtype(1), a)
    for rt_fn, np_fn in [(rt.real, np.real), (rt.imag, np.imag), (rt.conj, np.conj),
                         (rt.conjugate, np.conjugate), (rt.angle, np.angle), (rt.abs, np.abs),
                         (rt.absolute, np.absolute),
                         (lambda z: rt.angle(z, deg=True), lambda z: np.angle(z, deg=True))]:
        check_op(rt_fn, np_fn, a, rtol=RTOL[dtype])
        check_op(rt_fn, np_fn, a[0, 0], rtol=RTOL[dtype])  # 0-d: numpy scalars


def test_parts_of_real_tensors_are_numpy_s():
    x = np.array([-1.5, 0.0, 2.0], np.float32)
    for rt_fn, np_fn in [(rt.real, np.real), (rt.imag, np.imag), (rt.conj, np.conj),
                         (rt.angle, np.angle)]:
        check_op(rt_fn, np_fn, x)
    check_op(rt.angle, np.angle, np.array([-2, 3], np.int32))


def test_python_complex_numbers_convert_like_python_floats():
    assert rt.constant(1 + 2j).dtype is rt.complex64  # as a Python float is float32
    assert rt.constant([1j, 2]).dtype is rt.complex64
    assert rt.constant(np.complex128(1j)).dtype is rt.complex128
    assert rt.as_dtype(complex) is rt.complex64 and rt.as_dtype("complex128") is rt.complex128
    z = rt.constant(np.array([1 + 1j], np.complex64))
    assert (z + 1j).dtype is rt.complex64 and (z * 2).dtype is rt.complex64
    assert repr(rt.constant(1 + 2j)) == "<rt.Tensor: shape=(), dtype=complex64, numpy=(1+2j)>"
    check_op(lambda x: rt.cast(x, rt.complex128), lambda x: x.astype(np.complex128),
             np.array([1.5, -2], np.float32))


def test_what_does_not_take_complex_tensors_says_so_eagerly_and_in_graphs():
    z = np.array([1 + 1j], np.complex64)
    cases = [(lambda x: rt.sin(x), "sin"), (lambda x: x < x, "less"),
             (lambda x: x // x, "floordiv"), (lambda x: x ** 2, "pow"),
             (lambda x: rt.maximum(x, x), "maximum")]
    for fn, name in cases:
        with pytest.raises(TypeError, match=f"{name} does not take complex tensors"):
            fn(rt.constant(z))
        with pytest.raises(TypeError, match=f"{name} does not take complex tensors"):
            rt.function(fn, autograph=False)(rt.constant(z))
    with pytest.raises(TypeError, match="drop the imaginary part; use rt.real"):
        rt.cast(rt.constant(z), rt.float32)
    with pytest.raises(TypeError, match="different dtypes"):
        rt.constant(z) + rt.constant([1.0])
    # a Python complex next to a real tensor makes it complex, as in numpy
    result = rt.constant(np.array([1.0], np.float32)) + 1j
    assert result.dtype is rt.complex64 and result.numpy()[0] == 1 + 1j
    assert (rt.constant([2.0], rt.float64) * 1j).dtype is rt.complex128


def test_complex_graphs_save_and_load(tmp_path):
    f = rt.function(lambda x: rt.fft.fft(x) * np.complex64(2 - 1j), autograph=False)
    x = rt.constant(_values(6, np.float32))
    f(x)
    rt.saved.save(f, str(tmp_path / "f"))
    loaded = rt.saved.load(str(tmp_path / "f"))
    np.testing.assert_array_equal(loaded(x).numpy(), f(x).numpy())
    assert loaded(x).dtype is rt.complex64


# ---- gradients, ONNX, XLA, numba ---------------------------------------------------------------

def test_gradients_do_not_pass_through_complex_values():
    x = rt.constant(np.array([1.0, 2.0, 0.5]))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.fft.irfft(x))  # a real input: the op has no gradient rule
    with pytest.raises(rt.errors.NoGradientError, match="complex values"):
        tape.gradient(y, x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.abs(rt.fft.rfft(x)))
    with pytest.raises(rt.errors.NoGradientError, match="complex"):  # an error, never a None
        tape.gradient(y, x)
    f = rt.function(rt.grad(lambda v: rt.reduce_sum(rt.real(rt.fft.fft(v)))))
    with pytest.raises(rt.errors.NoGradientError, match="complex"):
        f(x)


def test_onnx_export_refuses_complex_tensors():
    pytest.importorskip("onnx")
    f = rt.function(lambda x: rt.abs(rt.fft.rfft(x)), autograph=False)
    concrete = f.get_concrete_function(rt.constant(np.ones(4, np.float32)))
    with pytest.raises(rt.onnx.ExportError, match="complex tensors are not exported"):
        rt.onnx.export(concrete)


@pytest.mark.no_round_trip
def test_xla_computes_the_transforms_and_complex128_without_global_x64():
    pytest.importorskip("jax")
    x = rt.constant(_values((2, 8), np.float32))

    def fn(x):
        z = rt.fft.fft(x, norm="ortho")
        return (rt.fft.rfft(x), rt.fft.irfft(rt.fft.rfft(x), n=8), rt.real(z), rt.imag(z),
                rt.abs(z), rt.angle(z + 1.0), rt.conj(z) * z, rt.fft.ifft(z, n=5, axis=0))

    default = rt.function(fn, autograph=False)(x)
    xla = rt.function(fn, autograph=False, jit_compile="xla")(x)
    for got, want in zip(xla, default):
        assert got.dtype is want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
    # complex128 runs in JAX's 64-bit mode for the call alone (jax.enable_x64)
    z = rt.constant(_values((4,), np.complex128))
    got = rt.function(lambda x: rt.fft.fft(x), autograph=False, jit_compile="xla")(z)
    assert got.dtype is rt.complex128
    np.testing.assert_allclose(got.numpy(), np.fft.fft(z.numpy()), rtol=1e-12, atol=1e-12)


@pytest.mark.no_round_trip
def test_numba_computes_complex_parts_and_refuses_the_transforms():
    pytest.importorskip("numba")
    z, one = rt.constant(_values((3,), np.complex64)), rt.constant(np.complex64(3 - 4j))

    def parts(z, one):
        return (rt.real(z), rt.imag(z), rt.conj(z) + z, z - one, rt.real(one), rt.imag(one),
                -one)

    default = rt.function(parts, autograph=False)(z, one)
    native = rt.function(parts, autograph=False, jit_compile="numba")(z, one)
    for got, want in zip(native, default):
        assert got.dtype is want.dtype and type(got.numpy()) is type(want.numpy())
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    for fn, reason in [(lambda x: rt.fft.fft(x), "numpy.fft"),
                       (lambda x: x * x, "complex products and quotients"),
                       (lambda x: rt.abs(x), "complex modulus")]:
        f = rt.function(fn, autograph=False, jit_compile="numba")
        with pytest.raises(rt.errors.NoLoweringError, match=reason):
            f.get_concrete_function(z)


def test_the_angle_of_real_values_has_a_zero_gradient():
    """Piecewise constant (0 or pi) on real values: zero almost everywhere, never None."""
    x = rt.constant(np.array([-2.0, 0.5, 3.0]))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.angle(x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.zeros(3))
