"""Which elements, and how many, with numpy's names: nonzero, flatnonzero, argwhere, unique,
bincount; and interp, the lookup of values between sample points.

The length of most results depends on the values (how many are nonzero, how many distinct):
in a graph that dim is unknown (None). Boolean-mask indexing `x[mask]` is `getitem`'s
(runtime/ops/array_ops.py). `rt.where(cond)` (TensorFlow's) gives argwhere's coordinates;
numpy's one-argument `np.where(cond)` is `nonzero(cond)`.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, argument_error
from runtime.ops import array_ops, math_ops, shapes
from runtime.ops.op_support import refuse
from runtime.ops.registry import GRADIENT, NUMBA, apply, define_op, lacks, register_rule


def _values(x, what, real=False):
    """`x` as a tensor of numbers (or bools); `real`: not complex ones."""
    x = convert_to_tensor(x)
    if x.dtype.is_string or x.dtype.is_list or real and x.dtype.is_complex:
        raise refuse(TypeError, f"{what} takes {'real' if real else 'numeric'} tensors, not "
                                 f"{x.dtype.name}.")
    return x


# ---- nonzero, flatnonzero, argwhere ------------------------------------------------------------

def _nonzero_infer(inputs):
    x = inputs[0]
    if x.ndim == 0:
        raise argument_error(
            InvalidArgumentError,
            "nonzero of a 0-d tensor is not allowed (as in numpy); use rt.reshape(x, [1]) first",
        )
    return [(dtypes.int64, (None,))] * x.ndim


NONZERO = define_op(
    "NonZero",
    infer=_nonzero_infer,
    kernel=lambda x: tuple(i.astype(np.int64, copy=False) for i in np.nonzero(x)),
    tuple_outputs=True,
)
lacks(GRADIENT, "integer results (coordinates)", NONZERO)


@register_rule(NUMBA, NONZERO)
def _nonzero_numba(op, a, typed):
    expr = f"np.nonzero({a[0]})"
    return f"{expr}[0]" if len(op.outputs) == 1 else expr


def nonzero(a):
    """numpy's nonzero: a tuple of int64 tensors, one per axis of `a`, with the coordinates of
    its nonzero (true) elements; in a graph their length is unknown."""
    a = _values(a, "nonzero")
    shapes.static_check(_nonzero_infer, [a])
    out = apply(NONZERO, [a])
    return tuple(out) if isinstance(out, list) else (out,)


def flatnonzero(a):
    """numpy's flatnonzero: the int64 indices of the nonzero elements of `a` flattened."""
    a = _values(a, "flatnonzero")
    return nonzero(array_ops.reshape(a, [-1]))[0]


def argwhere(a):
    """numpy's argwhere: the int64 coordinates of the nonzero elements, one row each (shape
    [count, a.ndim], the count unknown in a graph)."""
    a = _values(a, "argwhere")
    return apply(math_ops.WHERE_INDICES, [math_ops.cast(a, dtypes.bool_)])


# ---- unique ------------------------------------------------------------------------------------

def _unique_infer(inputs, *, return_index, return_inverse, return_counts):
    x = inputs[0]
    out = [(x.dtype, (None,))]
    if return_index:
        out.append((dtypes.int64, (None,)))
    if return_inverse:
        out.append((dtypes.int64, tuple(x.shape)))
    if return_counts:
        out.append((dtypes.int64, (None,)))
    return out


def _unique_kernel(x, *, return_index, return_inverse, return_counts):
    out = np.unique(x, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts)
    if not isinstance(out, tuple):
        return (out,)
    return (out[0], *(normalize(np.asarray(i).astype(np.int64, copy=False)) for i in out[1:]))


UNIQUE = define_op("Unique", infer=_unique_infer, kernel=_unique_kernel, tuple_outputs=True)
lacks(GRADIENT, "the distinct values change under a change of any repeated value (TensorFlow's "
      "Unique has no gradient either)", UNIQUE)
lacks(NUMBA, "not lowered to numba yet: numba's np.unique gives no index, inverse or counts",
      UNIQUE)


def unique(ar, return_index=False, return_inverse=False, return_counts=False):
    """numpy's unique (axis=None): the sorted distinct values of `ar` flattened (NaNs as one),
    and as asked the int64 index of each one's first occurrence, the inverse (each element's
    position among the values, in the shape of `ar`) and the counts, as numpy's tuple."""
    ar = _values(ar, "unique")
    flags = {"return_index": bool(return_index), "return_inverse": bool(return_inverse),
             "return_counts": bool(return_counts)}
    out = apply(UNIQUE, [ar], flags)
    if not any(flags.values()):
        return out[0] if isinstance(out, list) else out
    return tuple(out)


# ---- bincount ----------------------------------------------------------------------------------

def _bincount_infer(inputs, *, minlength):
    x = inputs[0]
    if x.ndim != 1:
        raise argument_error(
            InvalidArgumentError, f"bincount: x must be 1-D, got shape {list(x.shape)}"
        )
    if len(inputs) == 2 and inputs[1].ndim == 1 and None not in (
            x.shape[0], inputs[1].shape[0]) and x.shape[0] != inputs[1].shape[0]:
        raise argument_error(
            InvalidArgumentError,
            f"bincount: weights have length {inputs[1].shape[0]}, x has {x.shape[0]}",
        )
    dtype = dtypes.float64 if len(inputs) == 2 else dtypes.int64
    return [(dtype, (None,))]


def _bincount_kernel(x, *weights, minlength):
    try:
        return np.bincount(x, weights[0] if weights else None, minlength)
    except ValueError:  # (numpy's words name its own arguments: said in ours)
        if np.size(x) and np.min(x) < 0:
            raise argument_error(
                ValueError, "x holds negative values; bincount counts non-negative integers"
            ) from None
        if weights and np.shape(weights[0]) != np.shape(x):
            raise argument_error(
                ValueError,
                f"weights have shape {list(np.shape(weights[0]))}, x has {list(np.shape(x))}",
            ) from None
        raise


BINCOUNT = define_op("Bincount", infer=_bincount_infer, kernel=_bincount_kernel)


@register_rule(GRADIENT, BINCOUNT)
def _bincount_gradient(op, grads):
    """Each weight adds to the bin of its x: its gradient is that bin's."""
    if len(op.inputs) == 1:
        return [None]
    weights = op.inputs[1]
    grad = array_ops.gather(grads[0], op.inputs[0])
    return [None, math_ops.cast(grad, weights.dtype) if weights.dtype.is_floating else None]


def bincount(x, weights=None, minlength=0):
    """numpy's bincount: how often each value 0, 1, ... max(x) occurs in the 1-D non-negative
    integer `x` (int64), or the sum of the `weights` of each (float64); at least `minlength`
    bins. In a graph the number of bins is unknown."""
    x = convert_to_tensor(x)
    if not (x.dtype.is_integer or x.dtype.is_bool):
        raise refuse(TypeError, f"bincount takes integer values, not {x.dtype.name}; use "
                                 "rt.cast(x, rt.int64) first.")
    minlength = shapes.static_ints(minlength, "bincount's minlength")[0]
    if minlength < 0:
        raise refuse(ValueError, f"bincount: minlength must not be negative, got {minlength}.")
    inputs = [x]
    if weights is not None:
        weights = _values(weights, "bincount's weights", real=True)
        inputs.append(weights)
    shapes.static_check(_bincount_infer, inputs, minlength=minlength)
    return apply(BINCOUNT, inputs, {"minlength": minlength})


# ---- interp ------------------------------------------------------------------------------------

def _interp_infer(inputs, *, left, right):
    x, xp, fp = inputs
    for t, what in ((xp, "xp"), (fp, "fp")):
        if t.ndim != 1:
            raise argument_error(
                InvalidArgumentError, f"interp: {what} must be 1-D, got shape {list(t.shape)}"
            )
    if xp.shape[0] == 0:
        raise argument_error(InvalidArgumentError, "interp: the sample points xp are empty")
    if None not in (xp.shape[0], fp.shape[0]) and xp.shape[0] != fp.shape[0]:
        raise argument_error(
            InvalidArgumentError, f"interp: xp has {xp.shape[0]} points but fp {fp.shape[0]} values"
        )
    return [(dtypes.float64, tuple(x.shape))]


def _interp_kernel(x, xp, fp, *, left, right):
    return normalize(np.interp(x, xp, fp, left, right))


INTERP = define_op("Interp", infer=_interp_infer, kernel=_interp_kernel)


def interp(x, xp, fp, left=None, right=None):
    """numpy's interp: the piecewise-linear function through the points (xp, fp) (xp
    increasing) at `x`, in float64; `left` / `right` (numbers) for x below xp[0] / above
    xp[-1] (default fp[0] / fp[-1])."""
    x, xp, fp = (_values(v, "interp", real=True) for v in (x, xp, fp))
    bounds = {}
    for name, value in (("left", left), ("right", right)):
        if value is not None and not isinstance(value, (int, float, np.integer, np.floating)):
            raise refuse(TypeError, f"interp's {name} must be a number (or None), got "
                                     f"{type(value).__name__}.")
        bounds[name] = None if value is None else float(value)
    shapes.static_check(_interp_infer, [x, xp, fp], **bounds)
    return apply(INTERP, [x, xp, fp], bounds)


def _interp_gradient_kernel(g, x, xp, fp, *, left, right):
    """(dL/dx, dL/dfp) in float64: inside [xp[0], xp[-1]) x has the slope of its segment and
    the values at its ends get g weighed by closeness; outside, the default bounds fp[0] and
    fp[-1] get all of g (a given left / right is a constant)."""
    x, xp, fp = (np.asarray(v, dtype=np.float64) for v in (x, xp, fp))
    g = np.broadcast_to(np.asarray(g, dtype=np.float64), x.shape).ravel()
    flat, n = x.ravel(), len(xp)
    segment = np.clip(np.searchsorted(xp, flat, side="right") - 1, 0, max(n - 2, 0))
    inside = (flat >= xp[0]) & (flat < xp[-1])
    grad_fp = np.zeros(n)
    grad_x = np.zeros(flat.shape)
    if n > 1:
        width = xp[segment + 1] - xp[segment]
        t = np.where(inside, (flat - xp[segment]) / width, 0.0)
        grad_fp += np.bincount(segment, np.where(inside, g * (1 - t), 0.0), n)
        grad_fp += np.bincount(segment + 1, np.where(inside, g * t, 0.0), n)
        grad_x = np.where(inside, g * (fp[segment + 1] - fp[segment]) / width, 0.0)
    grad_fp[-1] += np.sum(g[flat == xp[-1]])  # numpy gives fp[-1] there
    if left is None:
        grad_fp[0] += np.sum(g[flat < xp[0]])
    if right is None:
        grad_fp[-1] += np.sum(g[flat > xp[-1]])
    return normalize(grad_x.reshape(x.shape)), grad_fp


INTERP_GRADIENT = define_op(
    "InterpGrad",
    infer=lambda inputs, *, left, right: [(dtypes.float64, tuple(inputs[1].shape)),
                                          (dtypes.float64, tuple(inputs[3].shape))],
    kernel=_interp_gradient_kernel,
    tuple_outputs=True,
)


@register_rule(GRADIENT, INTERP)
def _interp_gradient(op, grads):
    """d/dx (the slope) and d/dfp; the sample points xp get none: the result moves with them
    only through the segment widths, which this rule does not differentiate (xp is data)."""
    x, xp, fp = op.inputs
    grad_x, grad_fp = apply(INTERP_GRADIENT, [grads[0], x, xp, fp],
                            {"left": op.attrs["left"], "right": op.attrs["right"]})
    return [math_ops.cast(grad_x, x.dtype) if x.dtype.is_floating else None, None,
            math_ops.cast(grad_fp, fp.dtype) if fp.dtype.is_floating else None]


lacks(GRADIENT, "second-order gradients of interp are not implemented yet", INTERP_GRADIENT)
lacks(NUMBA, "not lowered to numba yet (numba's np.interp takes no left and right)", INTERP,
      INTERP_GRADIENT)
