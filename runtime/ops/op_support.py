"""What the op modules share to check arguments and write rules: a located refusal, static axes,
numpy's dtype of a sum, a reshape to another tensor's shape, the module a JAX rule computes with
(`array_namespace`: numpy for values known while tracing, jax.numpy for JAX arrays, so no op
module imports jax), and the errors of ONNX and NUMBA rules for the cases they cannot express."""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.errors import (
    ExportError,
    InvalidArgumentError,
    NoLoweringError,
    argument_error,
    with_origin,
)
from runtime.ops import array_ops, shapes


def array_namespace(*values):
    """numpy for values known while tracing, jax.numpy when one is a JAX array: the module a JAX
    rule computes with (the array API namespace of its values)."""
    for value in values:
        namespace = getattr(value, "__array_namespace__", None)
        module = namespace() if namespace is not None else np
        if module is not np:
            return module
    return np


def refuse(error, message):
    """`error(message)`, naming the user's line (for checks before an op is applied)."""
    return argument_error(error, with_origin(message, user_origin()))


def cannot_export(op, reason: str) -> ExportError:
    """The ONNX rule's error for a case ONNX cannot express (names the op and the user's line)."""
    return ExportError(with_origin(
        f"Cannot export op {op.name} ({op.type}) to ONNX: {reason}.", op.origin))


def cannot_lower(op, reason: str) -> NoLoweringError:
    """The NUMBA rule's error for a case numba does not compile."""
    return NoLoweringError(with_origin(f"jit_compile='numba' {reason}.", op.origin))


def numba_dtype(dtype) -> str:
    return "np.bool_" if dtype.is_bool else f"np.{dtype.np_dtype.name}"


def summed_dtype(dtype, what: str):
    """numpy's dtype of a sum (or cumulative sum or product) of `dtype` values: bools and the
    integers narrower than int64 add up in int64 on this platform."""
    if dtype.is_string or dtype.is_list:
        raise refuse(TypeError, f"{what} takes numeric or bool tensors, not {dtype.name}.")
    if dtype is dtypes.uint8:
        raise refuse(TypeError, f"{what} of uint8 gives uint64 in numpy, which rt has no dtype "
                                f"for; pass dtype=rt.int64 (or cast first).")
    if dtype.is_bool or (dtype.is_integer and dtype.np_dtype.itemsize < 8):
        return dtypes.int64
    return dtype


def reshape_like(t, like):
    """`t` reshaped to the shape of `like` (read when the graph runs if some dims are unknown)."""
    if like.shape.is_fully_defined():
        return array_ops.reshape(t, tuple(like.shape))
    return array_ops.reshape(t, array_ops.shape(like))


def static_axes(axis, rank: int, what: str) -> tuple:
    """`axis` (an int or a sequence of ints) as distinct non-negative axes of `rank`."""
    axes = tuple(shapes.static_check(shapes.normalize_axis, a, rank, what)
                 for a in shapes.static_ints(axis, f"{what}'s axis"))
    if len(set(axes)) != len(axes):
        raise refuse(InvalidArgumentError, f"{what}: axis {axis!r} names an axis twice")
    return axes
