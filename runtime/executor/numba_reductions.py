"""The NUMBA rules of reductions (sum, mean, prod, max, min, all, any, argmax, argmin) and of
softmax, built on them.

numba's reductions take no axis (np.sum one, slowly): a reduction over some of the axes runs
over each row of the values along them (`_by_rows`). Float sums keep numpy's bits where numba
can add in numpy's order: a whole 1-d array (`pairwise`), or an axis numpy adds in order
(`_numpy_adds_in_order`); elsewhere numba_exactness says they may differ.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.executor.numba_expressions import (
    as_output_dtype,
    dims_of,
    numpy_name,
    product_of,
    tuple_of,
)
from runtime.ops import math_ops, reduction_ops
from runtime.ops.op_support import cannot_lower
from runtime.ops.registry import NUMBA, register_rules

# Sums and means: of floats (and complex numbers) numba adds in another order than numpy's
# pairwise sums (numba_exactness), except where `pairwise` says.
FLOAT_SUMS = frozenset({reduction_ops.SUM, reduction_ops.MEAN})
# The longest 1-d float array numba sums in numpy's order: `pairwise_sum_` is scalar code
# (330 us on 1e6 float32s, numpy's own 125), so longer ones (and those of a length known only
# when the graph runs, or of more dims) are summed in SIMD lanes (`lanes_sum_`: 37 us).
PAIRWISE_MAX = 1 << 14


def pairwise(op) -> bool:
    """Whether `op` is a sum or mean of all of a 1-d float32 or float64 array of at most
    PAIRWISE_MAX items, which numba adds in numpy's pairwise order (`pairwise_sum_`), so with
    numpy's bits (np.mean divides the sum by the count as an int64, and rounds to the sum's
    dtype). Of more dims numpy adds in the order of the array's memory, which numba's code does
    not know."""
    x = op.inputs[0]
    return (op.opdef in FLOAT_SUMS and len(x.shape) == 1 and x.shape[0] is not None
            and x.shape[0] <= PAIRWISE_MAX and x.dtype in (dtypes.float32, dtypes.float64)
            and op.outputs[0].dtype is x.dtype)


def _reduced_axes(op) -> tuple:
    rank, axis = len(op.inputs[0].shape), op.attrs["axis"]
    if axis is None:
        return tuple(range(rank))
    return tuple(sorted({a % rank for a in (axis if isinstance(axis, (tuple, list)) else (axis,))}))


def _by_rows(per_row: str, x, name: str, axes, keepdims: bool, mean: bool = False) -> str:
    """A reduction of `x` (held in `name`) over some of its axes, `axes` (not all): numba's
    reductions take no axis (np.sum one, slower than this but over an outer axis, which
    integer sums take, `_reduction`), so those
    axes are moved last and the values along them made the rows of a matrix; `per_row`, code of
    one row `row_`, gives one result per row (divided by the row's length for a `mean`), and
    the results are shaped as the kept axes (with the reduced ones as 1s for `keepdims`)."""
    rank, dims = len(x.shape), dims_of(x, name)
    kept = [i for i in range(rank) if i not in axes]
    order = kept + list(axes)
    moved = name if order == list(range(rank)) else f"np.transpose({name}, {tuple(order)!r})"
    count = product_of(dims[i] for i in axes)
    rows = f"np.ascontiguousarray({moved}).reshape(({product_of(dims[i] for i in kept)}, {count}))"
    expr = f"np.array([{per_row} for row_ in {rows}])"
    if mean:
        expr = f"({expr} / {count})"
    if keepdims:
        return f"{expr}.reshape({tuple_of('1' if i in axes else dims[i] for i in range(rank))})"
    return f"{expr}.reshape({tuple_of(dims[i] for i in kept)})" if len(kept) > 1 else expr


# The reductions numba computes by numba's numpy function of the values (whole-array ones of
# a long chain numba_backend outlines into a helper of their own).
REDUCERS = {
    reduction_ops.SUM: "np.sum", reduction_ops.MEAN: "np.mean", reduction_ops.MAX: "np.max",
    reduction_ops.MIN: "np.min", reduction_ops.PROD: "np.prod", reduction_ops.ANY: "np.any",
    reduction_ops.ALL: "np.all",
}


def _reduction(op, a, typed):
    """Sum, Mean, Max, Min, Prod, Any, All over any axes: over all of them numba's function of the
    whole array, over some of them of each row of the values along them (`_by_rows`). Integers
    add up (multiply) in int64, as numpy's do, and are cast back to their dtype, so they wrap as
    numpy's do (a sum over one outer axis by numba's np.sum(axis=k): exact in any order, and it
    copies nothing, where the rows would be a transposed copy); an integer mean adds up in
    float64 and truncates, as numpy's. Prod, Any and All are exact, and Max and Min of integers:
    numpy multiplies in order too. Max and Min of floats are not (FLOAT_EXTREMA: NaNs win in
    both, but of 0.0 and -0.0 numba's keep the first, numpy's may give the other), nor sums and
    means of floats (FLOAT_SUMS): where numpy adds in order, in the dtype (its inner axis kept,
    or fewer than 8 values a row: `_numpy_adds_in_order`), so does this, which gives numpy's
    bits for a C-ordered array; where numpy adds pairwise, this adds the rows in order, float32
    values in float64 (then rounds), and a whole array in SIMD lanes (`lanes_sum_`: numpy's
    accuracy, not its bits; of a 1-d array of up to PAIRWISE_MAX items, numpy's own order)."""
    x, out = op.inputs[0], op.outputs[0].dtype
    function, rank, keepdims = REDUCERS[op.opdef], len(x.shape), op.attrs["keepdims"]
    if x.dtype.is_string:
        raise cannot_lower(op, f"does not lower {op.type} of strings (numba has no numpy "
                               "strings)")
    if x.dtype.is_complex and op.opdef not in FLOAT_SUMS:
        raise cannot_lower(op, f"does not lower {op.type} of complex numbers: numba orders them "
                               "(and their NaNs) and rounds their products otherwise than numpy")
    axes = _reduced_axes(op)
    if not axes:  # nothing to reduce (a scalar, or axis=()): the values, in their dtype (of an
        # array, a new one, as numpy's)
        return f"{a[0]}.astype({numpy_name(out)})" if rank else as_output_dtype(op, a[0])
    integer_mean = op.opdef is reduction_ops.MEAN and not (
        x.dtype.is_floating or x.dtype.is_complex)
    if pairwise(op):  # numpy's own order: its bits
        zero = f"{numpy_name(out)}(0.0)"  # (numpy adds the sum to its identity: -0.0 is 0.0)
        total = f"({zero} + pairwise_sum_({a[0]}, 0, {a[0]}.shape[0], {zero}))"
        expr = (f"{numpy_name(out)}({total} / np.int64({a[0]}.shape[0]))"
                if op.opdef is reduction_ops.MEAN else total)
        return f"np.full((1,), {expr}, {numpy_name(out)})" if keepdims else expr
    if len(axes) == rank and op.opdef in FLOAT_SUMS and x.dtype in (
            dtypes.float32, dtypes.float64) and out is x.dtype:  # in SIMD lanes (lanes_sum_)
        zero = f"{numpy_name(out)}(0.0)"
        total = f"lanes_sum_({a[0]}, {zero})"
        expr = (f"{numpy_name(out)}({total} / np.int64({a[0]}.size))"
                if op.opdef is reduction_ops.MEAN else total)
        return f"np.full({(1,) * rank!r}, {expr}, {numpy_name(out)})" if keepdims else expr
    if len(axes) == rank:  # every axis: numba's function of the whole array
        wide = op.opdef in FLOAT_SUMS and x.dtype.is_floating and x.dtype.itemsize < 8
        operand = f"{a[0]}.astype(np.float64)" if wide else a[0]
        expr = f"{numpy_name(out)}({function}({operand}))"
        if integer_mean:
            expr = _mean_of_nothing(op, a[0], axes, expr, typed, shape="")
        return f"np.full({(1,) * rank!r}, {expr}, {numpy_name(out)})" if keepdims else expr
    if (op.opdef is reduction_ops.SUM and x.dtype.is_integer and len(axes) == 1
            and axes[0] != rank - 1):  # (exact in any order; no transposed copy)
        expr = f"np.sum({a[0]}, axis={axes[0]})"
        if keepdims:
            dims = dims_of(x, a[0])
            expr = f"{expr}.reshape({tuple_of('1' if i in axes else dims[i] for i in range(rank))})"
        return expr if out.np_dtype in (np.int64, np.uint64) else (
            f"{expr}.astype({numpy_name(out)})")
    if op.opdef not in FLOAT_SUMS:
        per_row = f"{function}(row_)"
    elif integer_mean or (x.dtype.is_floating and x.dtype.itemsize < 8
                          and not _numpy_adds_in_order(x, axes)):
        per_row = "np.sum(row_, dtype=np.float64)"  # (integers: exact in any order)
    else:
        per_row = "np.sum(row_)"
    expr = _by_rows(per_row, x, a[0], axes, keepdims, mean=op.opdef is reduction_ops.MEAN)
    # numba's sums and products of narrower integers are int64s (uint64s), its means float64s
    # (complex128s)
    keeps_dtype = op.opdef in (reduction_ops.MAX, reduction_ops.MIN, reduction_ops.ANY,
                               reduction_ops.ALL) or (
        out.np_dtype in (np.float64, np.int64, np.complex128) and not integer_mean)
    expr = expr if keeps_dtype else f"{expr}.astype({numpy_name(out)})"
    if integer_mean:
        dims = dims_of(x, a[0])
        shape = tuple_of("1" if i in axes else dims[i] for i in range(rank) if keepdims or (
            i not in axes))
        expr = _mean_of_nothing(op, a[0], axes, expr, typed, shape)
    return expr


def _mean_of_nothing(op, name, axes, expr, typed, shape):
    """`expr`, an integer mean, guarded against a reduction of nothing: numpy's mean is NaN
    there, cast to the integer dtype as this machine's numpy casts it (x86: the bits of
    INT_MIN), where numba's cast of NaN is undefined (any bits). `shape`: the result's, as code
    ("" for a scalar)."""
    count = product_of(dims_of(op.inputs[0], name)[i] for i in axes)
    if count.isdigit() and count != "0":
        return expr
    dtype = op.outputs[0].dtype
    with np.errstate(invalid="ignore"):
        cast = typed(np.array(np.nan).astype(dtype.np_dtype)[()], dtype)
    nothing = f"np.full({shape}, {cast}, {numpy_name(dtype)})" if shape else cast
    return nothing if count == "0" else f"({nothing} if {count} == 0 else {expr})"


def _numpy_adds_in_order(x, axes) -> bool:
    """Whether numpy's sum of a C-ordered `x` over `axes` (not all) adds the values of each
    result in order, in the dtype: when its inner axis (of more than one value) is kept, the
    rows are added one by one; when the reduced axes are the inner ones and hold fewer than 8
    values, numpy adds up that few in order (8 or more pairwise). Each row of `_by_rows` is then
    added in numpy's order (a strided or transposed `x` numpy may add otherwise)."""
    if None in x.shape:
        return False
    inner = [i for i, d in enumerate(x.shape) if d != 1]  # numpy's iterator drops the 1s
    if not inner or inner[-1] not in axes:
        return True
    reduced = [i for i in inner if i in axes]
    count = 1
    for i in reduced:
        count *= x.shape[i]
    return reduced == inner[len(inner) - len(reduced):] and count < 8


def _arg_reduction(function):
    """ArgMax / ArgMin along one axis: numba's of each row of the values along it (faster than
    its np.argmax with an axis, which divides by zero on an empty axis): ties go to the first
    index and so do NaNs, as numpy's; an empty axis is a ValueError, as numpy's. Exact."""
    def rule(op, a, typed):
        x, out = op.inputs[0], op.outputs[0].dtype
        if x.dtype.is_complex or x.dtype.is_string:
            raise cannot_lower(op, f"does not lower {op.type} of {x.dtype.name} values (numba "
                                   "has no numpy strings, and orders complex numbers otherwise)")
        rank = len(x.shape)
        if rank == 1:
            return as_output_dtype(op, f"{function}({a[0]})")
        expr = _by_rows(f"{function}(row_)", x, a[0], (op.attrs["axis"] % rank,), False)
        return expr if out.itemsize == 8 else f"{expr}.astype({numpy_name(out)})"
    return rule


def _softmax(op, a, typed):
    """exp(x - max) / sum along the axis, as the kernel computes it: the max of each row
    (`_by_rows`), numba's exp (LLVM's: a few ulp from numpy's), sums in order (float32 ones in
    float64): not exact."""
    x, dtype = op.inputs[0], op.outputs[0].dtype
    rank = len(x.shape)
    cast = numpy_name(dtype)
    total = "np.sum(row_, dtype=np.float64)" if dtype.itemsize < 8 else "np.sum(row_)"
    if rank == 0:  # 1, or NaN for an infinite or NaN value
        return f"{cast}((lambda e_: e_ / e_)(np.exp({a[0]} - {a[0]})))"
    if rank == 1:
        return (f"(lambda e_: e_ / {cast}({total.replace('row_', 'e_')}))"
                f"(np.exp({a[0]} - np.max({a[0]})))")
    axis = (op.attrs["axis"] % rank,)
    top = _by_rows("np.max(row_)", x, a[0], axis, keepdims=True)
    total = _by_rows(total, x, "e_", axis, keepdims=True)
    return f"(lambda e_: e_ / {total}.astype({cast}))(np.exp({a[0]} - {top}))"


def may_be_empty(op) -> bool:
    """Whether an axis that `op` reduces may hold nothing (its size is 0 or unknown)."""
    dims = op.inputs[0].shape
    axes = (op.attrs["axis"] % len(dims),) if op.opdef in (
        reduction_ops.ARGMAX, reduction_ops.ARGMIN) else _reduced_axes(op)
    return any(not dims[i] for i in axes)


register_rules(NUMBA, {
    # float sums and means are not exact (numba_exactness), the others are
    **dict.fromkeys(REDUCERS, _reduction),
    reduction_ops.ARGMAX: _arg_reduction("np.argmax"),
    reduction_ops.ARGMIN: _arg_reduction("np.argmin"),
    math_ops.SOFTMAX: _softmax,  # not exact (exp, a sum)
})
