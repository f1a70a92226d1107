"""numpy.fft: the discrete Fourier transform along one axis (fft, ifft) and of real input
(rfft, irfft), with numpy's `n`, `axis` and `norm`.

The kernels are numpy's functions; the dtypes are numpy 2's: float16, float32 and complex64
transform in complex64, float64 and complex128 in complex128 (integers and bools as float64);
irfft gives the real dtype of its input's precision. Gradients do not pass through complex
values (backprop differentiates real floats only): the transforms have no gradient rule, and
a real input whose transform feeds complex ops gets no gradient from them.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, argument_error
from runtime.ops import math_ops, shapes
from runtime.ops.op_support import array_namespace
from runtime.ops.registry import (
    FRESH_OUTPUT,
    GRADIENT,
    JAX,
    NUMBA,
    ONNX,
    apply,
    define_op,
    lacks,
    register_rule,
)

_NORMS = (None, "backward", "ortho", "forward")


def complex_of(dtype):
    """The complex dtype a real or complex dtype transforms in (numpy 2's rule)."""
    if dtype in (dtypes.float16, dtypes.float32, dtypes.complex64):
        return dtypes.complex64
    return dtypes.complex128


def _real_of(dtype):
    """irfft's result dtype: the real part of a complex input, a real input's own."""
    return dtypes.real_part(dtype) if dtype.is_complex else dtype


def _points(n):
    if n is not None and n < 1:
        raise argument_error(
            InvalidArgumentError, f"Invalid number of FFT data points ({n}) specified."
        )
    return n


def _transform(name, kernel, out_dtype, out_length):
    """An op transforming along the `axis` attr; `out_length(n, dim)` is the output's length
    there (None when not known while tracing)."""
    def infer(inputs, *, n, axis, norm):
        x = inputs[0]
        dim = x.shape[axis]
        _points(n if n is not None else dim)
        length = out_length(n, dim)
        _points(length)
        shape = tuple(length if i == axis else d for i, d in enumerate(x.shape))
        return [(out_dtype(x.dtype), shape)]

    return define_op(name, infer=infer, kernel=kernel, groups=[FRESH_OUTPUT])


def _same_length(n, dim):
    return n if n is not None else dim


def _half_length(n, dim):
    size = n if n is not None else dim
    return None if size is None else size // 2 + 1


def _full_length(n, dim):
    if n is not None:
        return n
    return None if dim is None else 2 * (dim - 1)


FFT = _transform("FFT", np.fft.fft, complex_of, _same_length)
IFFT = _transform("IFFT", np.fft.ifft, complex_of, _same_length)
RFFT = _transform("RFFT", np.fft.rfft, complex_of, _half_length)
IRFFT = _transform("IRFFT", np.fft.irfft, _real_of, _full_length)
_OPS = (FFT, IFFT, RFFT, IRFFT)

lacks(GRADIENT, "gradients do not pass through complex values (rt differentiates real floats "
      "only)", *_OPS)
lacks(ONNX, "complex tensors are not exported (ONNX's DFT writes complex values as pairs of "
      "reals, and onnxruntime has no complex arithmetic kernels)", *_OPS)
lacks(NUMBA, "numba does not compile numpy.fft", *_OPS)


def _jax_rule(name):
    def rule(op, x):
        result = getattr(array_namespace(x).fft, name)(x, **op.attrs)
        return result.astype(op.outputs[0].dtype.np_dtype)
    return rule


for _op, _name in zip(_OPS, ("fft", "ifft", "rfft", "irfft")):
    register_rule(JAX, _op)(_jax_rule(_name))


def _attrs(a, n, axis, norm, name):
    if norm not in _NORMS:
        raise argument_error(
            ValueError,
            f'fft.{name}: Invalid norm value {norm!r}; should be "backward", "ortho" or "forward".',
        )
    if n is not None:
        n = shapes.static_ints(n, f"fft.{name}'s n")[0]
        shapes.static_check(_points, n)
    axis = shapes.static_ints(axis, f"fft.{name}'s axis")[0]
    axis = shapes.static_check(shapes.normalize_axis, axis, a.ndim, f"fft.{name}")
    return {"n": n, "axis": axis, "norm": norm}


def _operand(a, name, complex_ok=True):
    a = convert_to_tensor(a)
    if a.dtype.is_string or a.dtype.is_list:
        raise argument_error(TypeError, f"fft.{name} takes numbers, not {a.dtype.name}.")
    if a.dtype.is_complex and not complex_ok:
        raise argument_error(
            TypeError,
            f"fft.{name} takes real numbers, not {a.dtype.name}; use fft.fft for "
            "complex input (or rt.real first).",
        )
    if a.dtype.is_integer or a.dtype.is_bool:
        return math_ops.cast(a, dtypes.float64)  # numpy transforms them in float64
    return a


def fft(a, n=None, axis=-1, norm=None):
    """numpy.fft.fft: the discrete Fourier transform along `axis`, of length `n` (the input is
    cropped or padded with zeros; default its length); `norm` None/"backward" (no scaling),
    "ortho" (1/sqrt(n)) or "forward" (1/n)."""
    a = _operand(a, "fft")
    return apply(FFT, [a], _attrs(a, n, axis, norm, "fft"))


def ifft(a, n=None, axis=-1, norm=None):
    """numpy.fft.ifft: the inverse of fft (scaled by 1/n with the default norm)."""
    a = _operand(a, "ifft")
    return apply(IFFT, [a], _attrs(a, n, axis, norm, "ifft"))


def rfft(a, n=None, axis=-1, norm=None):
    """numpy.fft.rfft: the transform of real input, n // 2 + 1 complex values along `axis`."""
    a = _operand(a, "rfft", complex_ok=False)
    return apply(RFFT, [a], _attrs(a, n, axis, norm, "rfft"))


def irfft(a, n=None, axis=-1, norm=None):
    """numpy.fft.irfft: the inverse of rfft, `n` real values along `axis` (default
    2 * (m - 1) for m input values)."""
    a = _operand(a, "irfft")
    return apply(IRFFT, [a], _attrs(a, n, axis, norm, "irfft"))
