"""Running totals along an axis, with numpy's names: cumsum, cumprod, diff.

`cumsum` and `cumprod` are ops (kernel, inference, gradient, ONNX, NUMBA and JAX rules here);
`diff` is a composition of slices and subtractions (or `not_equal` for bools, as numpy's), so
its rules are theirs.
"""

from __future__ import annotations

import operator

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import Tensor, normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.ops import array_ops, creation_ops, math_ops, shapes
from runtime.ops.arrangement_ops import flip
from runtime.ops.op_support import (
    array_namespace,
    cannot_lower,
    numba_dtype,
    refuse,
    reshape_like,
    summed_dtype,
)
from runtime.ops.registry import GRADIENT, JAX, NUMBA, ONNX, apply, define_op, lacks, register_rule


def _scan_infer(inputs, *, axis, dtype):
    x = inputs[0]
    if axis is None:
        return [(dtype, (shapes.num_elements(x.shape),))]
    return [(dtype, x.shape)]


def _scan(name, numpy_fn):
    def kernel(x, *, axis, dtype):
        return normalize(numpy_fn(x, axis=axis, dtype=dtype.np_dtype))

    return define_op(name, infer=_scan_infer, kernel=kernel)


CUMSUM = _scan("Cumsum", np.cumsum)
CUMPROD = _scan("Cumprod", np.cumprod)


def _scan_call(opdef, a, axis, dtype, what):
    a = convert_to_tensor(a)
    out = summed_dtype(a.dtype, what) if dtype is None else dtypes.as_dtype(dtype)
    if out.is_string or out.is_list:
        raise refuse(TypeError, f"{what}: dtype must be numeric or bool, not {out.name}.")
    if axis is not None:
        axis = shapes.static_check(shapes.normalize_axis,
                                   shapes.static_ints(axis, f"{what}'s axis")[0], a.ndim, what)
    return apply(opdef, [a], {"axis": axis, "dtype": out})


def cumsum(a, axis=None, dtype=None):
    """numpy.cumsum: the running sums of `a` along `axis` (None: of the flattened array). Bools
    and integers narrower than int64 add up in int64, as numpy's; `dtype` sets the dtype the
    sums are computed in."""
    return _scan_call(CUMSUM, a, axis, dtype, "cumsum")


def cumprod(a, axis=None, dtype=None):
    """numpy.cumprod: the running products of `a` along `axis` (None: of the flattened array),
    with numpy's dtypes (as cumsum's)."""
    return _scan_call(CUMPROD, a, axis, dtype, "cumprod")


# ---- gradients -----------------------------------------------------------------------------------

def _along(op, t):
    """`t` (shaped like the op's input) as the op scans it, and the axis."""
    axis = op.attrs["axis"]
    return (array_ops.reshape(t, [-1]), 0) if axis is None else (t, axis)


def _reverse_cumsum(t, axis):
    """The sums of `t` from each item to the end of `axis`."""
    return flip(cumsum(flip(t, axis), axis, t.dtype), axis)


def _differentiable(op):
    return op.inputs[0].dtype.is_floating and op.outputs[0].dtype.is_floating


def _back(op, grad):
    """The gradient of the scanned (flattened, cast) input as the input's."""
    x = op.inputs[0]
    return reshape_like(math_ops.cast(grad, x.dtype), x)


@register_rule(GRADIENT, CUMSUM)
def _cumsum_gradient(op, grads):
    """Each item adds to the sums from it on: the sums of the gradient from each item on."""
    if not _differentiable(op):
        return [None]
    g, axis = grads[0], op.attrs["axis"]
    return [_back(op, _reverse_cumsum(g, 0 if axis is None else axis))]


@register_rule(GRADIENT, CUMPROD)
def _cumprod_gradient(op, grads):
    """d y_i / d x_k is the product of x_j for j <= i but k. Before the first zero of the axis
    that is y_i / x_k; at the first zero, the running product with that zero taken as one;
    after it, zero (the product holds the first zero). Correct with zeros (any number)."""
    if not _differentiable(op):
        return [None]
    y, g = op.outputs[0], grads[0]
    x, axis = _along(op, math_ops.cast(op.inputs[0], y.dtype))
    zero = math_ops.equal(x, 0)
    zeros_so_far = cumsum(zero, axis)
    first_zero = math_ops.logical_and(zero, math_ops.equal(zeros_so_far, 1))
    ones = creation_ops.ones_like(x)
    before = _reverse_cumsum(g * y, axis) / math_ops.where(zero, ones, x)
    at_first = _reverse_cumsum(g * cumprod(math_ops.where(first_zero, ones, x), axis), axis)
    grad = math_ops.where(math_ops.equal(zeros_so_far, 0), before, math_ops.where(
        first_zero, at_first, creation_ops.zeros_like(x)))
    return [_back(op, grad)]


# ---- ONNX, NUMBA, JAX ----------------------------------------------------------------------------

@register_rule(ONNX, CUMSUM)
def _cumsum_onnx(b, op, x):
    """CumSum in the result's dtype; integers onnxruntime does not add (and bools, for
    dtype=bool) add up in int64 and are cast back, which wraps around and tests for nonzero as
    numpy does."""
    out, axis = op.outputs[0].dtype, op.attrs["axis"]
    work = out if out in (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32,
                          dtypes.int64) else dtypes.int64
    data = b.cast(b.cast(x[0], op.inputs[0].dtype, out), out, work)  # as numpy: to `out` first
    if axis is None:
        data, axis = b.one("Reshape", data, b.int64s([-1])), 0
    summed = b.one("CumSum", data, b.const(np.int64(axis)))
    return [b.cast(summed, work, out)]


lacks(ONNX, "ONNX has a cumulative sum (CumSum) but no cumulative product", CUMPROD)


def _scan_numba(name):
    """np.cumsum / np.cumprod, which numba computes over the flattened array only, in order
    (as numpy), on the array cast to the result's dtype first (numba takes no dtype)."""
    def rule(op, a, typed):
        x, out = op.inputs[0], op.outputs[0].dtype
        if x.ndim == 0 or (op.attrs["axis"] is not None and x.ndim > 1) or out.is_bool:
            raise cannot_lower(op, f"lowers {name} of an array over all axes (or its only axis), "
                                   "to a numeric dtype, only")
        operand = a[0] if x.dtype is out else f"{a[0]}.astype({numba_dtype(out)})"
        return f"np.{name}({operand})"
    return rule


register_rule(NUMBA, CUMSUM)(_scan_numba("cumsum"))
register_rule(NUMBA, CUMPROD)(_scan_numba("cumprod"))


def _scan_jax(name):
    def rule(op, x):
        out = op.outputs[0].dtype.np_dtype
        x = x.astype(out)  # as numpy: the items in the result's dtype first
        if op.outputs[0].dtype.is_bool:  # a running "or" (sum) or "and" (product)
            return getattr(array_namespace(x), name)(x.astype(np.int64),
                                                     axis=op.attrs["axis"]).astype(out)
        return getattr(array_namespace(x), name)(x, axis=op.attrs["axis"])
    return rule


register_rule(JAX, CUMSUM)(_scan_jax("cumsum"))
register_rule(JAX, CUMPROD)(_scan_jax("cumprod"))


# ---- diff ----------------------------------------------------------------------------------------

def _edge(value, a, axis):
    """A `prepend` / `append` value as a tensor with `a`'s dims (size 1 along `axis` when it
    is a scalar, as numpy broadcasts it). Python numbers and lists take numpy's dtypes."""
    value = value if isinstance(value, Tensor) else convert_to_tensor(np.asarray(value))
    if value.ndim:
        return value
    if a.shape.is_fully_defined():
        shape = tuple(1 if i == axis else d for i, d in enumerate(a.shape))
    else:
        dims = array_ops.shape(a)
        shape = array_ops.concat([dims[:axis], [1], dims[axis + 1:]], 0)
    return array_ops.broadcast_to(value, shape)


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """numpy.diff: the n-th differences along `axis` (`a[1:] - a[:-1]`, n times; for bools
    `a[1:] != a[:-1]`, as numpy's), after joining `prepend` and `append` to `a` along `axis`
    (scalars are broadcast; the result has numpy's dtype of the joined values)."""
    a = convert_to_tensor(a)
    n = operator.index(n)  # (a float order is numpy's TypeError too)
    if n < 0:
        raise refuse(ValueError, f"diff: order must be non-negative but got {n}.")
    if a.ndim == 0:
        raise refuse(ValueError, "diff requires input that is at least one dimensional.")
    axis = shapes.static_check(shapes.normalize_axis, int(axis), a.ndim, "diff")
    if n == 0:
        return a
    joined = [e for e in (_edge(prepend, a, axis) if prepend is not None else None, a,
                          _edge(append, a, axis) if append is not None else None)
              if e is not None]
    if len(joined) > 1:
        common = dtypes.from_numpy(np.result_type(*(t.dtype.np_dtype for t in joined)))
        a = array_ops.concat([math_ops.cast(t, common) for t in joined], axis)
    before = tuple(slice(None) for _ in range(axis))
    later, earlier = before + (slice(1, None),), before + (slice(None, -1),)
    change = math_ops.not_equal if a.dtype.is_bool else math_ops.subtract
    for _ in range(n):
        a = change(array_ops.getitem(a, later), array_ops.getitem(a, earlier))
    return a
