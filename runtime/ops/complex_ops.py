"""The parts of complex numbers (numpy.fft's values): real, imag, conj, angle.

Complex tensors (rt.complex64, rt.complex128) take +, -, *, /, negative and abs (the modulus, a
float) from ops/math_ops.py and these ops; other math refuses them. Gradients do not pass
through complex values (backprop differentiates real floats only), so these ops have none.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import argument_error
from runtime.ops import creation_ops, math_ops
from runtime.ops.op_support import array_namespace
from runtime.ops.registry import FUSED, GRADIENT, JAX, NUMBA, ONNX, apply, lacks, register_rule

_COMPLEX = math_ops._COMPLEX


def _part(np_part):
    """np.real / np.imag as a new array (numpy's is a view of the complex array)."""
    return lambda z: np_part(z).copy()


REAL = math_ops._elementwise("Real", kernel=_part(np.real), accepts=_COMPLEX,
                             result=dtypes.real_part)
IMAG = math_ops._elementwise("Imag", kernel=_part(np.imag), accepts=_COMPLEX,
                             result=dtypes.real_part)
CONJ = math_ops._elementwise("Conj", "conjugate", accepts=_COMPLEX)
# numpy's angle of a real number is 0 or pi: floats are taken too (their gradient is zero).
ANGLE = math_ops._elementwise("Angle", kernel=np.angle, accepts=_COMPLEX | math_ops._FLOATS,
                              result=dtypes.real_part)

lacks(FUSED, "np.real, np.imag and np.angle are not ufuncs", REAL, IMAG, ANGLE)
lacks(ONNX, "complex tensors are not exported (onnxruntime has no complex arithmetic kernels)",
      REAL, IMAG, CONJ, ANGLE)
lacks(GRADIENT, "complex input: gradients do not pass through complex values (rt "
      "differentiates real floats only)", REAL, IMAG, CONJ)
register_rule(GRADIENT, ANGLE)(lambda op, grads: [creation_ops.zeros_like(op.inputs[0])])


def _numba(name):
    """`np.<name>(z)`, copied (numpy's result is a view of z)."""
    def rule(op, a, typed):
        if len(op.outputs[0].shape) == 0:
            return f"np.{op.outputs[0].dtype.name}(np.{name}({a[0]}))"
        return f"np.{name}({a[0]}).copy()"
    return rule


register_rule(NUMBA, REAL)(_numba("real"))
register_rule(NUMBA, IMAG)(_numba("imag"))
lacks(NUMBA, "numba's complex angle differs from numpy's in the last bits", ANGLE)


def _jax(name):
    return lambda op, z: getattr(array_namespace(z), name)(z).astype(
        op.outputs[0].dtype.np_dtype)


register_rule(JAX, REAL)(_jax("real"))
register_rule(JAX, IMAG)(_jax("imag"))
register_rule(JAX, ANGLE)(_jax("angle"))


def _number(x, name):
    x = convert_to_tensor(x)
    if x.dtype.is_string or x.dtype.is_list:
        raise argument_error(TypeError, f"{name} takes numbers, not {x.dtype.name}.")
    return x


def real(val):
    """numpy.real: the real part of a complex tensor (float32 of complex64, float64 of
    complex128); a real tensor is its own real part."""
    val = _number(val, "real")
    return apply(REAL, [val]) if val.dtype.is_complex else val


def imag(val):
    """numpy.imag: the imaginary part of a complex tensor; zeros for a real tensor."""
    val = _number(val, "imag")
    return apply(IMAG, [val]) if val.dtype.is_complex else creation_ops.zeros_like(val)


def conj(x):
    """numpy.conj: the complex conjugate; a real tensor is its own."""
    x = _number(x, "conj")
    return apply(CONJ, [x]) if x.dtype.is_complex else x


conjugate = conj


def angle(z, deg=False):
    """numpy.angle: the argument of each complex number, in (-pi, pi] (degrees with `deg`);
    for real numbers 0 or pi (integers and bools in float64, numpy's rule)."""
    z = _number(z, "angle")
    if not (z.dtype.is_complex or z.dtype.is_floating):
        z = math_ops.cast(z, dtypes.float64)
    result = apply(ANGLE, [z])
    return result * (180 / np.pi) if deg else result
