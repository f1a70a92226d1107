"""The ops every other op module builds on: `Cast` (a tensor's values as another dtype) and
`ZerosLike` / `OnesLike`. They sit below the other op modules (array_ops casts shape arguments;
gradient rules cast and make zeros), which use them from here or as `math_ops.cast`,
`creation_ops.zeros_like`."""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import argument_error
from runtime.ops import shapes
from runtime.ops.registry import (
    ELEMENTWISE,
    FUSED,
    GRADIENT,
    KNOWN_VALUE,
    apply,
    define_op,
    lacks,
    register_rule,
)


def _cast_kernel(x, *, dtype):
    return x.astype(dtype.np_dtype)


CAST = define_op(
    "Cast",
    infer=lambda inputs, *, dtype: [(dtype, inputs[0].shape)],
    kernel=_cast_kernel,
    groups=[ELEMENTWISE],
)
lacks(FUSED, "changes the dtype: the fused kernel's steps keep their operands' dtype", CAST)
register_rule(KNOWN_VALUE, CAST)(lambda op: shapes.known_value(op.inputs[0]))


def cast(x, dtype):
    """`x` converted to `dtype` (float to int truncates toward zero, like numpy)."""
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype is dtype:
        return x
    if x.dtype.is_string or dtype.is_string or x.dtype.is_list or dtype.is_list:
        raise argument_error(
            TypeError, f"cast between {x.dtype.name} and {dtype.name} is not supported."
        )
    if x.dtype.is_complex and not dtype.is_complex:
        raise argument_error(
            TypeError,
            f"cast from {x.dtype.name} to {dtype.name} would drop the imaginary "
            "part; use rt.real(x) (or rt.abs(x)) first.",
        )
    return apply(CAST, [x], {"dtype": dtype})


register_rule(GRADIENT, CAST)(lambda op, grads: [cast(grads[0], op.inputs[0].dtype)
                                                 if op.inputs[0].dtype.is_floating else None])


def _like(name, kernel):
    return define_op(
        name,
        infer=lambda inputs, *, dtype: [(dtype, inputs[0].shape)],
        kernel=lambda x, *, dtype: normalize(kernel(x, dtype=dtype.np_dtype)),
        groups=[ELEMENTWISE],
    )


ZEROS_LIKE = _like("ZerosLike", np.zeros_like)
ONES_LIKE = _like("OnesLike", np.ones_like)
lacks(FUSED, "reads only its input's shape: nothing to fuse", ZEROS_LIKE, ONES_LIKE)


def zeros_like(input, dtype=None):  # noqa: A002 - TensorFlow's name
    """Zeros of the shape of `input`, of its dtype unless `dtype` is given."""
    input = convert_to_tensor(input)
    return apply(ZEROS_LIKE, [input], {"dtype": dtypes.as_dtype(dtype or input.dtype)})


def ones_like(input, dtype=None):  # noqa: A002 - TensorFlow's name
    """Ones of the shape of `input`, of its dtype unless `dtype` is given."""
    input = convert_to_tensor(input)
    return apply(ONES_LIKE, [input], {"dtype": dtypes.as_dtype(dtype or input.dtype)})


register_rule(GRADIENT, ZEROS_LIKE, ONES_LIKE)(lambda op, grads: [None])
