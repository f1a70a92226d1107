"""Ordering, with numpy's names: sort, argsort, searchsorted.

Sorting is stable (numpy's kind='stable'): equal items keep their order, so `argsort` is
deterministic and equals `np.argsort(a, kind='stable')`. Each op carries its kernel, inference
with unknown dims, gradient, and ONNX, NUMBA and JAX rules here.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, argument_error
from runtime.ops import array_ops, shapes
from runtime.ops.arrangement_ops import take_along_axis
from runtime.ops.op_support import (
    array_namespace,
    cannot_export,
    cannot_lower,
    refuse,
    reshape_like,
)
from runtime.ops.registry import (
    GRADIENT,
    JAX,
    NUMBA,
    ONNX,
    apply,
    define_op,
    lacks,
    register_rule,
    register_rules,
)


def _sort_infer(dtype=None):
    def infer(inputs, *, axis):
        x = inputs[0]
        shape = (shapes.num_elements(x.shape),) if axis is None else x.shape
        return [(dtype or x.dtype, shape)]
    return infer


SORT = define_op(
    "Sort", infer=_sort_infer(),
    kernel=lambda x, *, axis: normalize(np.sort(x, axis, kind="stable")),
)
ARGSORT = define_op(
    "Argsort", infer=_sort_infer(dtypes.int64),
    kernel=lambda x, *, axis: normalize(np.argsort(x, axis, kind="stable").astype(np.int64)),
)


def _sort_call(opdef, a, axis, what):
    a = convert_to_tensor(a)
    if a.dtype.is_list:
        raise refuse(TypeError, f"{what} takes tensors, not {a.dtype.name}.")
    if axis is not None:
        axis = shapes.static_check(shapes.normalize_axis,
                                   shapes.static_ints(axis, f"{what}'s axis")[0], a.ndim, what)
    return apply(opdef, [a], {"axis": axis})


def sort(a, axis=-1):
    """numpy.sort: the items of `a` in ascending order along `axis` (None: of the flattened
    array); NaNs last, as numpy's."""
    return _sort_call(SORT, a, axis, "sort")


def argsort(a, axis=-1):
    """numpy.argsort with kind='stable': the int64 indices that sort `a` along `axis` (None: the
    flattened array). Equal items keep their order (numpy's default quicksort does not promise
    that), so the result is deterministic and equals `np.argsort(a, axis, kind='stable')`."""
    return _sort_call(ARGSORT, a, axis, "argsort")


@register_rule(GRADIENT, SORT)
def _sort_gradient(op, grads):
    """Each sorted item's gradient goes back to where the item came from: the gradient taken
    through the inverse of the sorting permutation."""
    x, g, axis = op.inputs[0], grads[0], op.attrs["axis"]
    if axis is None:
        x, axis = array_ops.reshape(x, [-1]), 0
    order = argsort(x, axis)
    return [reshape_like(take_along_axis(g, argsort(order, axis), axis), op.inputs[0])]


lacks(GRADIENT, "integer results (positions)", ARGSORT)


def _top_k(b, op, x):
    """TopK of the smallest items, all of them, in order: ONNX puts equal items in index
    order, so it sorts stably (and onnxruntime puts NaNs last, as numpy). Bools go through
    int32."""
    dtype = op.inputs[0].dtype
    if dtype.is_string:
        raise cannot_export(op, "ONNX TopK does not sort strings")
    work = dtypes.int32 if dtype.is_bool else dtype
    data, axis = b.cast(x[0], dtype, work), op.attrs["axis"]
    if axis is None:
        data, axis = b.one("Reshape", data, b.int64s([-1])), 0
    count = b.one("Shape", data, start=axis, end=axis + 1)
    values, indices = b.node("TopK", [data, count], 2, axis=axis, largest=0, sorted=1)
    return b.cast(values, work, dtype), indices


register_rules(ONNX, {
    SORT: lambda b, op, x: [_top_k(b, op, x)[0]],
    ARGSORT: lambda b, op, x: [_top_k(b, op, x)[1]],
})


def _sort_numba(expr):
    def rule(op, a, typed):
        x, axis = op.inputs[0], op.attrs["axis"]
        if x.ndim == 0 or (axis is not None and x.ndim != 1):
            raise cannot_lower(op, f"lowers {op.type} of a 1-D array (or over all axes) only")
        return expr.format(a[0] if axis is not None else f"{a[0]}.ravel()")
    return rule


register_rules(NUMBA, {
    SORT: _sort_numba("np.sort({})"),
    ARGSORT: _sort_numba('np.argsort({}, kind="mergesort")'),  # numba's stable sort
})
register_rules(JAX, {
    SORT: lambda op, x: array_namespace(x).sort(x, axis=op.attrs["axis"], stable=True),
    ARGSORT: lambda op, x: array_namespace(x).argsort(x, axis=op.attrs["axis"],
                                                      stable=True).astype(np.int64),
})


# ---- searchsorted --------------------------------------------------------------------------------

def _searchsorted_infer(inputs, *, side):
    a, v = inputs
    if a.ndim != 1:
        raise argument_error(
            InvalidArgumentError, f"searchsorted: `a` must be 1-D, got rank {a.ndim}"
        )
    return [(dtypes.int64, v.shape)]


SEARCHSORTED = define_op(
    "SearchSorted", infer=_searchsorted_infer,
    kernel=lambda a, v, *, side: normalize(np.searchsorted(a, v, side).astype(np.int64)),
)
lacks(GRADIENT, "integer results (positions)", SEARCHSORTED)


def searchsorted(a, v, side="left"):
    """numpy.searchsorted: for each item of `v`, the int64 position in the sorted 1-D `a` where
    it would go to keep `a` sorted: before equal items (side="left") or after them ("right").
    numpy's `sorter` is not supported: pass `rt.take(a, sorter)` instead of `a`."""
    a, v = convert_to_tensor(a), convert_to_tensor(v)
    if side not in ("left", "right"):
        raise refuse(ValueError, f"searchsorted: side must be 'left' or 'right', not {side!r}.")
    for t in (a, v):
        if t.dtype.is_list or t.dtype.is_string:
            raise refuse(TypeError, f"searchsorted takes numeric or bool tensors, not "
                                    f"{t.dtype.name}.")
    shapes.static_check(_searchsorted_infer, [a, v], side=side)
    return apply(SEARCHSORTED, [a, v], {"side": side})


@register_rule(ONNX, SEARCHSORTED)
def _searchsorted_onnx(b, op, x):
    """The number of items of `a` before each item of `v` (less than it, or not greater for
    side="right"), compared in their common dtype; NaN is greater than every number, as in
    numpy's order."""
    a, v = op.inputs
    common = dtypes.from_numpy(np.result_type(a.dtype.np_dtype, v.dtype.np_dtype))
    work = dtypes.int32 if common.is_bool else common
    items = b.cast(x[0], a.dtype, work)
    values = b.one("Unsqueeze", b.cast(x[1], v.dtype, work), b.int64s([v.ndim]))
    right = op.attrs["side"] == "right"
    before = b.one("LessOrEqual" if right else "Less", items, values)
    if work.is_floating:  # NaNs: after every number (and, for "right", after each other)
        nan_value = b.one("IsNaN", values)
        counted = nan_value if right else b.one("And", nan_value, b.one("Not", b.one(
            "IsNaN", items)))
        before = b.one("Or", before, counted)
    count = b.cast(before, dtypes.bool_, dtypes.int64)
    return [b.one("ReduceSum", count, b.int64s([v.ndim]), keepdims=0)]


@register_rule(NUMBA, SEARCHSORTED)
def _searchsorted_numba(op, a, typed):
    expr = f'np.searchsorted({a[0]}, {a[1]}, side="{op.attrs["side"]}")'
    return f"np.int64({expr})" if op.inputs[1].ndim == 0 else expr


@register_rule(JAX, SEARCHSORTED)
def _searchsorted_jax(op, a, v):
    return array_namespace(a).searchsorted(a, v, side=op.attrs["side"]).astype(np.int64)
