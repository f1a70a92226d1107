"""The NUMBA rules: each op as an expression that numba's `njit` compiles.

An op declared as a numpy ufunc (`Elementwise.ufunc`, see ops/math_ops.py) is that ufunc,
`np.<ufunc>(...)`; the table at the end registers the rules of the other ops (and of the
ufuncs written otherwise) against the op objects, and lists the ops without one, each with its
reason. Results equal the default executor's bit for bit except where numba_exactness says they
may differ (LLVM's math functions, numba's BLAS, float sums in another order, signs of zero
extrema). Scalar results are converted to the op's dtype (numba computes integer scalars in
int64) and numbers in expressions are typed constants of the op's dtype. numba's reductions take
no axis (np.sum one, slowly): a reduction over some axes runs over each row of the values along
them (`_by_rows`).
"""

from __future__ import annotations

import numpy as np

from runtime import variables
from runtime.core import dtypes
from runtime.errors import NoLoweringError, with_origin
from runtime.executor import numba_helpers, numba_lists
from runtime.ops import (
    array_ops,
    creation_ops,
    io_ops,
    list_ops,
    math_ops,
    random_ops,
    reduction_ops,
    selection_ops,
    string_ops,
)
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.fused_ops import FUSED_ELEMENTWISE, FUSED_REDUCTION
from runtime.ops.op_support import cannot_lower
from runtime.ops.registry import CONST, NUMBA, PLACEHOLDER, derive_rules, lacks, register_rules


def _numpy_name(dtype) -> str:
    return "np.bool_" if dtype.is_bool else f"np.{dtype.np_dtype.name}"


def _as_dtype(op, expr: str) -> str:
    """`expr` as the op's output dtype when the output is a scalar (numba computes integer
    scalars in int64; arrays keep numpy's dtype rules)."""
    out = op.outputs[0]
    return f"{_numpy_name(out.dtype)}({expr})" if len(out.shape) == 0 else expr


def _operator(template):
    return lambda op, a, typed: _as_dtype(op, template.format(*a))


def _wrapping_operator(template):
    """`+`, `-`, `*` (and `-x`, `x * x`) as numpy computes them: on signed integer scalars,
    wrapping. numba marks signed integer arithmetic as never overflowing (LLVM's `nsw`), so
    LLVM would fold `n + 1 >= n` to True and drop the checks of Python ints
    (ops/python_arithmetic.py): those scalars are computed in the unsigned type of their width,
    which wraps, and cast back."""
    def rule(op, a, typed):
        dtype = op.outputs[0].dtype
        if len(op.outputs[0].shape) or not dtype.is_integer or dtype.np_dtype.kind != "i":
            return _operator(template)(op, a, typed)
        unsigned = f"np.uint{8 * dtype.itemsize}"
        return f"np.{dtype.np_dtype.name}({template.format(*(f'{unsigned}({x})' for x in a))})"
    return rule


def _real_operator(template):
    """An operator numba computes as numpy does on real numbers only: its complex products and
    quotients round otherwise (a few ulp)."""
    def rule(op, a, typed):
        if op.outputs[0].dtype.is_complex:
            raise NoLoweringError(with_origin(
                f"jit_compile='numba' does not lower a complex {op.type}: numba's complex "
                "products and quotients differ from numpy's in the last bits.", op.origin))
        return _wrapping_operator(template)(op, a, typed)
    return rule


def _division(op, a, typed):
    """`/`: of integers (and bools) numpy divides their float64 values (numba divides int8 and
    int16 in float32: found by a new-user trial), so each becomes the result's dtype first."""
    out = _numpy_name(op.outputs[0].dtype)
    if op.outputs[0].dtype.is_floating:
        a = [(f"{out}({x})" if len(t.shape) == 0 else f"{x}.astype({out})")
             if not t.dtype.is_floating else x for x, t in zip(a, op.inputs)]
    return _real_operator("({} / {})")(op, a, typed)


def _function(name):
    return lambda op, a, typed: _as_dtype(op, f"{name}({', '.join(a)})")


def _ufunc(opdef):
    """The NUMBA rule of an op declared as a numpy ufunc: `np.<ufunc>(...)`, which numba
    compiles as numpy computes it."""
    ufunc = opdef.elementwise and opdef.elementwise.ufunc
    return _function(f"np.{ufunc}") if ufunc else None


def _sigmoid(op, a, typed):
    one = typed(1, op.outputs[0].dtype)
    return _as_dtype(op, f"({one} / ({one} + np.exp(-{a[0]})))")


def _fmod(op, a, typed):
    """numba's np.fmod of integers reads their bits as unsigned (numba 0.68: fmod(-5, 3) is 2):
    integers take the remainder of their magnitudes (right, INT_MIN's too) with x1's sign."""
    if op.outputs[0].dtype.is_floating:
        return _as_dtype(op, f"np.fmod({a[0]}, {a[1]})")
    return _as_dtype(op, f"(np.sign({a[0]}) * np.fmod(np.abs({a[0]}), np.abs({a[1]})))")


def _power(op, a, typed):
    """Floats only: numpy refuses an integer to a negative integer power, numba's np.power
    would give a number."""
    if not op.outputs[0].dtype.is_floating:
        raise NoLoweringError(with_origin(
            f"jit_compile='numba' does not lower an integer {op.type}: numpy refuses negative "
            "exponents of integers, numba's power would give a number. Use floats, or the "
            "default executor.", op.origin))
    return _as_dtype(op, f"np.power({a[0]}, {a[1]})")


def _chosen(op, x: str, y: str, compare: str, nan: str) -> str:
    """numpy's maximum / minimum (`compare` ">" / "<") of `x` and `y` for floats: `x` where it
    compares so, or where `nan` (`x`: maximum and minimum propagate x's NaN; `y`: fmax and fmin
    skip y's) is NaN, else `y`. Of two equal values numpy returns the second, so the sign of a
    zero is numpy's (numba's np.maximum returns the first: max(-0.0, 0.0) would be -0.0)."""
    if all(len(t.shape) == 0 for t in (*op.inputs, *op.outputs)):
        return f"({x} if ({x} {compare} {y}) or ({nan} != {nan}) else {y})"
    return f"np.where(({x} {compare} {y}) | ({nan} != {nan}), {x}, {y})"


def _extremum(ufunc: str, compare: str, skips_nan: bool):
    """The rule of maximum, minimum, fmax or fmin: numba's ufunc for integers (a tie is one
    value), `_chosen` for floats."""
    def rule(op, a, typed):
        if not op.outputs[0].dtype.is_floating:
            return _as_dtype(op, f"np.{ufunc}({a[0]}, {a[1]})")
        return _as_dtype(op, _chosen(op, a[0], a[1], compare, a[1] if skips_nan else a[0]))
    return rule


def _relu(op, a, typed):
    """np.maximum(x, 0), as the kernel: -0.0 gives 0.0."""
    zero = typed(0, op.outputs[0].dtype)
    if not op.outputs[0].dtype.is_floating:
        return _as_dtype(op, f"np.maximum({a[0]}, {zero})")
    return _as_dtype(op, _chosen(op, a[0], zero, ">", a[0]))


def _clip(op, a, typed):
    """np.minimum(np.maximum(x, lo), hi), as the kernel (with numpy's signs of zeros)."""
    if not op.outputs[0].dtype.is_floating:
        return _as_dtype(op, f"np.minimum(np.maximum({a[0]}, {a[1]}), {a[2]})")
    raised = _chosen(op, a[0], a[1], ">", a[0])
    return _as_dtype(op, f"(lambda r_: {_chosen(op, 'r_', a[2], '<', 'r_')})({raised})")


def _select(op, a, typed):
    if len(op.outputs[0].shape) == 0 and all(len(t.shape) == 0 for t in op.inputs):
        return f"({a[1]} if {a[0]} else {a[2]})"
    return f"np.where({a[0]}, {a[1]}, {a[2]})"


def _cast(op, a, typed):
    target = _numpy_name(op.attrs["dtype"])
    if len(op.outputs[0].shape) == 0:
        return f"{target}({a[0]})"
    return f"{a[0]}.astype({target})"


def _dims(t, name: str) -> list:
    """Each dim of `t` (held in the variable `name`) as code: the number when it is known while
    tracing, else `name.shape[i]`, read when the graph runs."""
    return [str(d) if d is not None else f"{name}.shape[{i}]" for i, d in enumerate(t.shape)]


def _tuple(items) -> str:
    items = list(items)
    return f"({', '.join(items)},)" if items else "()"


def _product(items) -> str:
    """The product of dims given as code (`_dims`), the known ones multiplied out."""
    known, unknown = 1, []
    for item in items:
        if item.isdigit():
            known *= int(item)
        else:
            unknown.append(item)
    return " * ".join(([str(known)] if known != 1 or not unknown else []) + unknown)


# Sums and means: of floats (and complex numbers) numba adds in another order than numpy's
# pairwise sums (numba_exactness), except where `pairwise` says.
FLOAT_SUMS = frozenset({reduction_ops.SUM, reduction_ops.MEAN})
# The longest 1-d float array numba sums in numpy's order: `pairwise_sum_` is scalar code,
# 2.5x slower than numba's own sum (2.8 ms against 1.2 on 1e6 float32s, W3b), so longer ones
# (and those of a length known only when the graph runs) are summed numba's way.
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
    reductions take no axis (np.sum one, but it is several times slower than this), so those
    axes are moved last and the values along them made the rows of a matrix; `per_row`, code of
    one row `row_`, gives one result per row (divided by the row's length for a `mean`), and
    the results are shaped as the kept axes (with the reduced ones as 1s for `keepdims`)."""
    rank, dims = len(x.shape), _dims(x, name)
    kept = [i for i in range(rank) if i not in axes]
    order = kept + list(axes)
    moved = name if order == list(range(rank)) else f"np.transpose({name}, {tuple(order)!r})"
    count = _product(dims[i] for i in axes)
    rows = f"np.ascontiguousarray({moved}).reshape(({_product(dims[i] for i in kept)}, {count}))"
    expr = f"np.array([{per_row} for row_ in {rows}])"
    if mean:
        expr = f"({expr} / {count})"
    if keepdims:
        return f"{expr}.reshape({_tuple('1' if i in axes else dims[i] for i in range(rank))})"
    return f"{expr}.reshape({_tuple(dims[i] for i in kept)})" if len(kept) > 1 else expr


_REDUCERS = {
    reduction_ops.SUM: "np.sum", reduction_ops.MEAN: "np.mean", reduction_ops.MAX: "np.max",
    reduction_ops.MIN: "np.min", reduction_ops.PROD: "np.prod", reduction_ops.ANY: "np.any",
    reduction_ops.ALL: "np.all",
}


def _reduction(op, a, typed):
    """Sum, Mean, Max, Min, Prod, Any, All over any axes: over all of them numba's function of
    the whole array, over some of them of each row of the values along them (`_by_rows`).
    Integers add up (multiply) in int64, as numpy's do, and are cast back to their dtype, so
    they wrap as numpy's do; an integer mean adds up in float64 and truncates, as numpy's. Prod,
    Any and All are exact, and Max and Min of integers: numpy multiplies in order too. Max and
    Min of floats are not (FLOAT_EXTREMA: NaNs win in both, but of 0.0 and -0.0 numba's keep
    the first, numpy's may give the other), nor sums and means of floats
    (FLOAT_SUMS): where numpy adds in order, in the dtype (its inner axis kept, or fewer than 8
    values a row: `_numpy_adds_in_order`), so does this, which gives numpy's bits for a
    C-ordered array; where numpy adds pairwise, this adds in order, float32 values in float64
    (then rounds)."""
    x, out = op.inputs[0], op.outputs[0].dtype
    function, rank, keepdims = _REDUCERS[op.opdef], len(x.shape), op.attrs["keepdims"]
    if x.dtype.is_string:
        raise cannot_lower(op, f"does not lower {op.type} of strings (numba has no numpy "
                               "strings)")
    if x.dtype.is_complex and op.opdef not in FLOAT_SUMS:
        raise cannot_lower(op, f"does not lower {op.type} of complex numbers: numba orders them "
                               "(and their NaNs) and rounds their products otherwise than numpy")
    axes = _reduced_axes(op)
    if not axes:  # nothing to reduce (a scalar, or axis=()): the values, in their dtype
        return _as_dtype(op, a[0])
    integer_mean = op.opdef is reduction_ops.MEAN and not (
        x.dtype.is_floating or x.dtype.is_complex)
    if pairwise(op):  # numpy's own order: its bits
        zero = f"{_numpy_name(out)}(0.0)"  # (numpy adds the sum to its identity: -0.0 is 0.0)
        total = f"({zero} + pairwise_sum_({a[0]}, 0, {a[0]}.shape[0], {zero}))"
        expr = (f"{_numpy_name(out)}({total} / np.int64({a[0]}.shape[0]))"
                if op.opdef is reduction_ops.MEAN else total)
        return f"np.full((1,), {expr}, {_numpy_name(out)})" if keepdims else expr
    if len(axes) == rank:  # every axis: numba's function of the whole array
        wide = op.opdef in FLOAT_SUMS and x.dtype.is_floating and x.dtype.itemsize < 8
        operand = f"{a[0]}.astype(np.float64)" if wide else a[0]
        expr = f"{_numpy_name(out)}({function}({operand}))"
        if integer_mean:
            expr = _mean_of_nothing(op, a[0], axes, expr, typed, shape="")
        return f"np.full({(1,) * rank!r}, {expr}, {_numpy_name(out)})" if keepdims else expr
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
    expr = expr if keeps_dtype else f"{expr}.astype({_numpy_name(out)})"
    if integer_mean:
        dims = _dims(x, a[0])
        shape = _tuple("1" if i in axes else dims[i] for i in range(rank) if keepdims or (
            i not in axes))
        expr = _mean_of_nothing(op, a[0], axes, expr, typed, shape)
    return expr


def _mean_of_nothing(op, name, axes, expr, typed, shape):
    """`expr`, an integer mean, guarded against a reduction of nothing: numpy's mean is NaN
    there, cast to the integer dtype as this machine's numpy casts it (x86: the bits of
    INT_MIN), where numba's cast of NaN is undefined (any bits). `shape`: the result's, as code
    ("" for a scalar)."""
    count = _product(_dims(op.inputs[0], name)[i] for i in axes)
    if count.isdigit() and count != "0":
        return expr
    dtype = op.outputs[0].dtype
    with np.errstate(invalid="ignore"):
        cast = typed(np.array(np.nan).astype(dtype.np_dtype)[()], dtype)
    nothing = f"np.full({shape}, {cast}, {_numpy_name(dtype)})" if shape else cast
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
            return _as_dtype(op, f"{function}({a[0]})")
        expr = _by_rows(f"{function}(row_)", x, a[0], (op.attrs["axis"] % rank,), False)
        return expr if out.itemsize == 8 else f"{expr}.astype({_numpy_name(out)})"
    return rule


def _softmax(op, a, typed):
    """exp(x - max) / sum along the axis, as the kernel computes it: the max of each row
    (`_by_rows`), numba's exp (LLVM's: a few ulp from numpy's), sums in order (float32 ones in
    float64): not exact."""
    x, dtype = op.inputs[0], op.outputs[0].dtype
    rank = len(x.shape)
    cast = _numpy_name(dtype)
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


def _matmul(op, a, typed):
    """Of float matrices numba's np.dot (BLAS: not exact); of integer ones a loop adding up in
    int64 (`int_matmul_`), cast to the dtype: exact, since numpy's products and sums wrap in the
    dtype, and wrapping at the end gives the same bits."""
    dtype = op.outputs[0].dtype
    if any(len(t.shape) != 2 for t in op.inputs) or not (dtype.is_floating or dtype.is_integer):
        raise NoLoweringError(with_origin(
            "jit_compile='numba' lowers matmul of two float or integer matrices only.",
            op.origin))
    if dtype.is_integer:
        return f"int_matmul_({a[0]}, {a[1]}).astype({_numpy_name(dtype)})"
    return f"np.dot(np.ascontiguousarray({a[0]}), np.ascontiguousarray({a[1]}))"


def _bincount(op, a, typed):
    """numpy's bincount as its loop: counts in int64, weights added in order in float64 (numba's
    np.bincount takes no minlength); a negative value or weights of another length raise
    ValueError, as numpy's do. Exact."""
    minlength = op.attrs["minlength"]
    if len(a) == 2:
        if len(op.inputs[1].shape) != 1:  # (the default executor refuses them when it runs)
            raise cannot_lower(op, "lowers bincount with 1-D weights only")
        return f"weighted_bincount_({a[0]}, {a[1]}, {minlength})"
    return f"bincount_({a[0]}, {minlength})"


# How the errors of the helpers begin, by the op whose rule calls them (numba_backend._failed
# blames a ValueError on the op its message names).
HELPER_ERRORS = {math_ops.MATMUL: "matmul:", selection_ops.BINCOUNT: "bincount:",
                 list_ops.LIST_STACK: "stack"}
# Functions the rules' code calls, written after the graph's function in its module (see
# numba_backend.NumbaEmitter.epilogue): name -> source.
HELPERS = {**numba_helpers.HELPERS, **numba_lists.HELPERS}


def _split(op, a, typed):
    rank, axis, start, pieces = len(op.inputs[0].shape), op.attrs["axis"], 0, []
    for size in op.attrs["sizes"]:
        index = [":"] * rank
        index[axis] = f"{start}:{start + size}"
        pieces.append(f"{a[0]}[{', '.join(index)}]")
        start += size
    return ", ".join(pieces)


def _filled_like(value: int):
    """ZerosLike (`value` 0) or OnesLike (1): a typed scalar, or np.zeros_like / np.ones_like."""
    function = "np.zeros_like" if value == 0 else "np.ones_like"

    def rule(op, a, typed):
        out = op.outputs[0]
        if len(out.shape) == 0:
            return typed(value, out.dtype)
        return f"{function}({a[0]}, {_numpy_name(out.dtype)})"
    return rule


def _concat(op, a, typed):
    return f"np.concatenate(({', '.join(a)},), {op.attrs['axis']})"


def _pack(op, a, typed):
    """rt.stack: numbers into a new array of the op's dtype (numba would type Python-like
    scalars its own way), arrays by np.stack."""
    if op.outputs[0].dtype.is_string:
        raise NoLoweringError(with_origin(
            "jit_compile='numba' does not lower a stack of strings (numba has no numpy "
            "strings).", op.origin))
    if all(len(t.shape) == 0 for t in op.inputs):
        return f"np.array([{', '.join(a)}], dtype={_numpy_name(op.outputs[0].dtype)})"
    return f"np.stack(({', '.join(a)},), {op.attrs['axis']})"


def _getitem(op, a, typed):
    """Basic indexing: ints, slices and 0-d integer tensors (numba compiles the graph with
    bounds checks then: an index past the end is an IndexError, as numpy's), `None`, `...`.
    Indexing by integer arrays is not lowered."""
    def part(value):
        if value is None:
            return ""
        return a[1 + value[1]] if isinstance(value, tuple) else str(value)

    index = []
    for item in op.attrs["spec"]:
        kind = item[0]
        if kind == "int":
            index.append(str(item[1]))
        elif kind == "slice":
            index.append(":".join(part(v) for v in item[1:]))
        elif kind == "newaxis":
            index.append("None")
        elif kind == "ellipsis":
            index.append("...")
        elif op.inputs[1 + item[1]].shape:  # an integer array: numpy's advanced indexing
            raise NoLoweringError(with_origin(
                "jit_compile='numba' does not lower indexing by an integer array (numba "
                "takes one such index only, and places its axes otherwise); use rt.gather.",
                op.origin))
        else:
            index.append(a[1 + item[1]])
    return _as_dtype(op, f"{a[0]}[{', '.join(index)},]" if len(index) == 1 else
                     f"{a[0]}[{', '.join(index)}]")


def _reshape(op, a, typed):
    shape = tuple(op.attrs["shape"])
    return f"np.ascontiguousarray({a[0]}).reshape({shape!r})"


def _transpose(op, a, typed):
    return f"np.ascontiguousarray(np.transpose({a[0]}, {tuple(op.attrs['perm'])!r}))"


def _gather(op, a, typed):
    """rt.gather: `params[:, ..., indices]`, numba's one fancy index (a 1-D array, or a scalar;
    indices of more dims are flattened, and the result reshaped). numba compiles the graph with
    bounds checks then: an index past the end is an IndexError, as numpy's, never a read past
    the array (see _failing_ops). Exact."""
    params, indices = op.inputs
    if params.dtype.is_string:
        raise cannot_lower(op, "does not lower a gather of strings (numba has no numpy strings)")
    rank = len(params.shape)
    axis = op.attrs["axis"] % rank
    index = a[1] if len(indices.shape) <= 1 else f"{a[1]}.ravel()"
    expr = f"{a[0]}[{':, ' * axis}{index}]"
    if len(indices.shape) <= 1:
        return _as_dtype(op, expr)
    dims, parts = _dims(params, a[0]), _dims(indices, a[1])
    return f"{expr}.reshape({_tuple(dims[:axis] + parts + dims[axis + 1:])})"


def _expand_dims(op, a, typed):
    """A new axis of size 1: `x[:, None]` (a view, as numpy's); a scalar becomes an array of
    one item. Exact."""
    x = op.inputs[0]
    if not x.shape:
        return f"np.array([{a[0]}], dtype={_numpy_name(x.dtype)})"
    axis = op.attrs["axis"] % (len(x.shape) + 1)
    return f"{a[0]}[{':, ' * axis}None]" if axis < len(x.shape) else f"{a[0]}[..., None]"


def _squeeze(op, a, typed):
    """The axes of size 1 dropped: `x[:, 0]` (a view, as numpy's); all of them: the item.
    Exact. An axis whose size is known only when the graph runs is not lowered: numpy checks
    that it is 1, the index would not."""
    x = op.inputs[0]
    axis = op.attrs["axis"]
    axes = ({i for i, d in enumerate(x.shape) if d == 1} if axis is None
            else {i % len(x.shape) for i in axis})
    if any(x.shape[i] is None for i in axes):
        raise cannot_lower(op, "does not lower squeezing an axis of unknown size (numpy checks "
                               "that it is 1 when the graph runs; an index would not)")
    if not axes:
        return a[0]
    index = ", ".join("0" if i in axes else ":" for i in range(len(x.shape)))
    return _as_dtype(op, f"{a[0]}[{index}]")


def _shape(op, a, typed):
    """The dims as an array of the op's dtype: numbers where known while tracing. Exact."""
    dtype = _numpy_name(op.attrs["out_type"])
    x = op.inputs[0]
    if not x.shape:
        return f"np.zeros(0, {dtype})"
    return f"np.array([{', '.join(_dims(x, a[0]))}], dtype={dtype})"


def _size(op, a, typed):
    """The number of items: a constant when the dims are known while tracing. Exact."""
    x, dtype = op.inputs[0], op.attrs["out_type"]
    known = 1
    for d in x.shape:
        known = None if known is None or d is None else known * d
    if known is not None:
        return typed(known, dtype)
    return f"{_numpy_name(dtype)}({a[0]}.size)"


def _items(op, name: str) -> str:
    """The items of the 1-D shape tensor `name` (op's second input, of known length) as a
    tuple, read when the graph runs."""
    return _tuple(f"np.int64({name}[{i}])" for i in range(op.inputs[1].shape[0]))


def _dynamic_reshape(op, a, typed):
    """Reshape to a shape held in a tensor: numba's reshape, which takes a -1 (any negative
    dim, as numpy 2's) for the dim that holds the rest, and raises a ValueError where numpy's
    does (see _failing_ops), but gives an empty array of shape (0, 0) for (-1, 0), which numpy
    refuses: that shape is made (-1, -1), which numba refuses too. Exact."""
    x, count = op.inputs[0], op.inputs[1].shape[0]
    if count == 0:
        raise cannot_lower(op, "does not lower a reshape to a scalar by a shape tensor")
    shape = _items(op, a[1])
    if count > 1:
        shape = (f"(lambda t_: t_ if min(t_) >= 0 or 0 not in t_ else {(-1,) * count!r})"
                 f"({shape})")
    operand = f"np.ascontiguousarray({a[0]})" if op.inputs[0].shape else (
        f"np.array([{a[0]}], dtype={_numpy_name(x.dtype)})")
    return f"{operand}.reshape({shape})"


def _where_indices(op, a, typed):
    """rt.where(condition): the coordinates of the true items, one row each, in the order of
    numpy's argwhere (numba's is a Fortran-ordered array: made C-ordered). Exact."""
    if not op.inputs[0].shape:
        raise cannot_lower(op, "does not lower rt.where of a scalar condition")
    return f"np.ascontiguousarray(np.argwhere({a[0]}))"


def _broadcast_to(op, a, typed):
    """A new array of the shape (numba's np.broadcast_to gives a read-only view: copied, as the
    kernel copies). Exact; where the input's dims are known only when the graph runs, shapes
    that do not broadcast are a ValueError (see _failing_ops)."""
    x, out = op.inputs[0], op.outputs[0]
    shape = _tuple(str(d) for d in op.attrs["shape"]) if len(a) == 1 else _items(op, a[1])
    if not x.shape:
        return a[0] if not out.shape else f"np.full({shape}, {a[0]}, {_numpy_name(out.dtype)})"
    return f"np.broadcast_to({a[0]}, {shape}).copy()"


def _tile(op, a, typed):
    """np.tile (which numba lacks) as numpy computes it: the array as (1, d0, 1, d1, ...),
    broadcast to (m0, d0, m1, d1, ...), copied and reshaped to (m0 * d0, m1 * d1, ...).
    Exact."""
    x = op.inputs[0]
    if not x.shape:
        return a[0]
    dims = _dims(x, a[0])
    multiples = ([str(m) for m in op.attrs["multiples"]] if len(a) == 1 else
                 [f"np.int64({a[1]}[{i}])" for i in range(len(dims))])
    spread = _tuple(item for d in dims for item in ("1", d))
    stacked = _tuple(item for m, d in zip(multiples, dims) for item in (m, d))
    out = _tuple(_product([m, d]) for m, d in zip(multiples, dims))
    return (f"np.broadcast_to(np.ascontiguousarray({a[0]}).reshape({spread}), {stacked})"
            f".copy().reshape({out})")


def _unstack(op, a, typed):
    """The slices along the axis, `x[:, i]` (views, as the kernel's). Exact."""
    axis = op.attrs["axis"]
    if not op.outputs:
        return "()"
    return ", ".join(_as_dtype(op, f"{a[0]}[{':, ' * axis}{i}]") for i in range(op.attrs["num"]))


def _fill(op, a, typed):
    """np.full of the dims read from the dims tensor (its length is known). Exact; a negative
    dim is numba's ValueError (see _failing_ops)."""
    dims = op.inputs[0]
    if not dims.shape[0]:
        return _as_dtype(op, a[1])
    shape = _tuple(f"{a[0]}[{i}]" for i in range(dims.shape[0]))
    return f"np.full({shape}, {a[1]}, {_numpy_name(op.outputs[0].dtype)})"


def _range(op, a, typed):
    """rt.range as numpy's arange computes it (numba's np.arange adds i * delta in float64):
    the length is ceil((limit - start) / delta), that difference and quotient in the dtype
    (integers: a float64 quotient), known while tracing or computed when the graph runs; the
    items are start, start + delta, then start + i * (that second item - start) in the dtype
    (integers wrap as numpy's). Exact. A zero delta, or a length that is not a number (NaN or
    infinite bounds), makes a negative one: numba's ValueError (see _failing_ops)."""
    dtype = op.outputs[0].dtype
    if not (dtype.is_integer or dtype.is_floating) or dtype.is_floating and dtype.itemsize < 4:
        raise cannot_lower(op, f"does not lower a range of {dtype.name} (numba has no float16 "
                               "arithmetic)")
    s, limit, d = a
    name = _numpy_name(dtype)
    length = op.attrs["length"]
    if length is None:
        quotient = (f"np.float64({name}({name}({limit} - {s}) / {d}))" if dtype.is_floating
                    else f"np.float64({name}({limit} - {s})) / np.float64({d})")
        length = (f"-1 if {d} == 0 else (lambda c_: int(c_) if 0 < c_ < 2.0 ** 62 else "
                  f"(0 if -2.0 ** 62 < c_ <= 0 else -1))(np.ceil({quotient}))")
    counts = "(np.arange(n_) if n_ >= 0 else np.empty(n_, np.int64))"  # -1: ValueError
    if dtype.is_integer:
        return f"(lambda n_: ({s} + {counts} * {d}).astype({name}))({length})"
    second = f"{name}({s} + {d})"
    items = (f"np.where(k_ == 0, {s}, np.where(k_ == 1, {second}, {s} + k_.astype({name}) * "
             f"{name}({second} - {s})))")
    return f"(lambda n_: (lambda k_: {items}.astype({name}))({counts}))({length})"


def _assert(op, a, typed):
    """A statement on one line (the op has no outputs): numba raises with constant arguments
    only, so the error carries the op's name, and the caller raises the assertion's own error
    at its line (see _failing_ops)."""
    holds = a[0] if len(op.inputs[0].shape) == 0 else f"np.all({a[0]})"
    return f"if not {holds}: raise AssertionError({op.name!r})"


def _may_be_empty(op) -> bool:
    """Whether an axis that `op` reduces may hold nothing (its size is 0 or unknown)."""
    dims = op.inputs[0].shape
    axes = (op.attrs["axis"] % len(dims),) if op.opdef in (
        reduction_ops.ARGMAX, reduction_ops.ARGMIN) else _reduced_axes(op)
    return any(not dims[i] for i in axes)


# The ops whose numba code raises a ValueError where the kernel fails (see _failing_ops), when
# the predicate says it may.
MAY_RAISE_VALUE_ERROR = {
    # a max (min, argmax, argmin) of nothing: numpy's ValueError, numba's
    **dict.fromkeys((reduction_ops.MAX, reduction_ops.MIN, reduction_ops.ARGMAX,
                     reduction_ops.ARGMIN), _may_be_empty),
    creation_ops.FILL: lambda op: True,  # a negative dim
    creation_ops.RANGE: lambda op: op.attrs["length"] is None,  # a zero delta, NaN bounds
    # dims known only when the graph runs that do not broadcast (or fit)
    array_ops.BROADCAST_TO: lambda op: None in op.inputs[0].shape,
    array_ops.DYNAMIC_BROADCAST_TO: lambda op: True,
    array_ops.DYNAMIC_TILE: lambda op: True,  # a negative multiple
    array_ops.DYNAMIC_RESHAPE: lambda op: True,
    selection_ops.BINCOUNT: lambda op: True,  # a negative value, weights of another length
    list_ops.LIST_STACK: lambda op: True,  # an empty list, items of two shapes
    # an integer matmul whose inner dims are known only when the graph runs (int_matmul_)
    math_ops.MATMUL: lambda op: op.outputs[0].dtype.is_integer and (
        op.inputs[0].shape[-1] is None or op.inputs[1].shape[0] is None),
}
def _random(draw):
    """The rule of a random op: numpy's Generator method `draw` called by numba on the generator
    the op draws from (its one input name: the emitter passes the generator as a parameter),
    which gives numpy's numbers and moves numpy's state: the default executor's draws, bit for
    bit. `draw(op)` -> (method, first, second): `normal(mean, stddev)`, `uniform(minval,
    maxval)`, `integers(minval, maxval)` (int64 numbers, then the op's dtype, as the kernel)."""

    def rule(op, a, typed):
        method, first, second = draw(op)
        shape, dtype = op.attrs["shape"], op.outputs[0].dtype
        kind = dtypes.int64 if method == "integers" else dtypes.float64
        call = f"{a[0]}.{method}({typed(first, kind)}, {typed(second, kind)}"
        if not shape:
            return f"{_numpy_name(dtype)}({call}))"
        size = "(" + "".join(f"{d}, " for d in shape) + ")"
        return f"{call}, size={size}).astype({_numpy_name(dtype)})"

    return rule


# The ops whose input (for the emitter) is the numpy Generator they draw from.
DRAWS = frozenset({random_ops.UNIFORM, random_ops.NORMAL})


derive_rules(NUMBA, _ufunc)  # the rule of every op declared as a ufunc, unless written here
register_rules(NUMBA, {
    # Python operators (as the default executor writes them); a division by zero gives what
    # numpy's does (numba's error model is numpy's, see compile_graph)
    math_ops.ADD: _wrapping_operator("({} + {})"),
    math_ops.SUB: _wrapping_operator("({} - {})"),
    math_ops.MUL: _real_operator("({} * {})"),
    math_ops.DIV: _division,
    math_ops.FLOORDIV: _operator("({} // {})"),
    math_ops.MOD: _operator("({} % {})"),
    math_ops.EQUAL: _operator("({} == {})"),
    math_ops.NOT_EQUAL: _operator("({} != {})"),
    math_ops.LESS: _operator("({} < {})"),
    math_ops.LESS_EQUAL: _operator("({} <= {})"),
    math_ops.GREATER: _operator("({} > {})"),
    math_ops.GREATER_EQUAL: _operator("({} >= {})"),
    math_ops.NEG: _wrapping_operator("(-{})"),
    math_ops.SQUARE: _wrapping_operator("({0} * {0})"),
    math_ops.FMOD: _fmod,  # a ufunc that numba computes otherwise than numpy for integers
    math_ops.POW: _power,
    # not ufuncs
    math_ops.SIGMOID: _sigmoid,
    math_ops.RELU: _relu,
    math_ops.ROUND: _function("np.round"),  # halves to even, as numpy's
    math_ops.CLIP: _clip,
    # numpy's signs of zeros: of equal values, the second
    math_ops.MAXIMUM: _extremum("maximum", ">", skips_nan=False),
    math_ops.MINIMUM: _extremum("minimum", "<", skips_nan=False),
    math_ops.FMAX: _extremum("fmax", ">", skips_nan=True),
    math_ops.FMIN: _extremum("fmin", "<", skips_nan=True),
    math_ops.WHERE: _select,
    math_ops.CAST: _cast,
    math_ops.SOFTMAX: _softmax,  # not exact (exp, a sum)
    math_ops.MATMUL: _matmul,  # of floats not exact (numba's BLAS)
    selection_ops.BINCOUNT: _bincount,
    array_ops.IDENTITY: lambda op, a, typed: a[0],
    array_ops.STOP_GRADIENT: lambda op, a, typed: a[0],
    # reductions: float sums and means are not exact (FLOAT_SUMS), the others are
    **dict.fromkeys(_REDUCERS, _reduction),
    reduction_ops.ARGMAX: _arg_reduction("np.argmax"),
    reduction_ops.ARGMIN: _arg_reduction("np.argmin"),
    # data movement and shapes: exact
    array_ops.SPLIT: _split,
    array_ops.CONCAT: _concat,
    array_ops.STACK: _pack,
    array_ops.UNSTACK: _unstack,
    array_ops.GETITEM: _getitem,
    array_ops.GATHER: _gather,
    array_ops.RESHAPE: _reshape,
    array_ops.TRANSPOSE: _transpose,
    array_ops.EXPAND_DIMS: _expand_dims,
    array_ops.SQUEEZE: _squeeze,
    array_ops.BROADCAST_TO: _broadcast_to,
    array_ops.DYNAMIC_BROADCAST_TO: _broadcast_to,
    array_ops.TILE: _tile,
    array_ops.DYNAMIC_TILE: _tile,
    array_ops.DYNAMIC_RESHAPE: _dynamic_reshape,
    math_ops.WHERE_INDICES: _where_indices,
    array_ops.SHAPE: _shape,
    array_ops.SIZE: _size,
    array_ops.RANK: lambda op, a, typed: typed(len(op.inputs[0].shape), op.outputs[0].dtype),
    creation_ops.ZEROS_LIKE: _filled_like(0),
    creation_ops.ONES_LIKE: _filled_like(1),
    creation_ops.FILL: _fill,
    creation_ops.RANGE: _range,
    io_ops.ASSERT: _assert,
    **numba_lists.RULES,  # staged lists: numba's typed lists
    # numpy's draws from numpy's generator: exact
    random_ops.NORMAL: _random(lambda op: ("normal", op.attrs["mean"], op.attrs["stddev"])),
    random_ops.UNIFORM: _random(lambda op: (
        "integers" if op.outputs[0].dtype.is_integer else "uniform", op.attrs["minval"],
        op.attrs["maxval"])),
})
# The ops numba does not compile: a graph holding one is a located NoLoweringError (and
# jit_compile="auto" keeps it on the default executor).
lacks(NUMBA, "the emitter writes it: an argument, a constant, an `if`, a `while`",
      PLACEHOLDER, CONST, IF, WHILE)
lacks(NUMBA, "numba's shifts are undefined for counts past the width, numpy's give 0 or -1",
      math_ops.LEFT_SHIFT, math_ops.RIGHT_SHIFT)
lacks(NUMBA, "strings are numpy object arrays, which numba does not compile",
      math_ops.STRING_EQUAL, math_ops.STRING_NOT_EQUAL, string_ops.STRING_JOIN,
      string_ops.STRING_FORMAT)
lacks(NUMBA, "lowered where a graph loop appends to a list once an iteration and reads it "
      "nowhere else: the emitter writes that append (runtime/executor/numba_lists.py)",
      list_ops.LIST_PUSH_BACK)
lacks(NUMBA, "not lowered: numba lowers the lists numeric loops build (made, appended to, "
      "stacked, counted; runtime/executor/numba_lists.py)", list_ops.LIST_POP_BACK,
      list_ops.LIST_GET_ITEM, list_ops.LIST_SET_ITEM, list_ops.LIST_CONCAT_LISTS,
      list_ops.LIST_CONCAT, list_ops.LIST_ZEROS_LIKE, list_ops.LIST_ADD, list_ops.LIST_UNSTACK,
      list_ops.LIST_SPLIT_AT, list_ops.LIST_SPLIT_LIKE)
lacks(NUMBA, "not lowered yet: its shape and parameters are tensors, checked when the graph "
      "runs (random numbers with a static shape are)", random_ops.DYNAMIC_UNIFORM,
      random_ops.DYNAMIC_NORMAL)
lacks(NUMBA, "variables are Python objects, which numba cannot read or write", variables.READ,
      variables.ASSIGN, variables.ASSIGN_ADD, variables.ASSIGN_SUB)
lacks(NUMBA, "made by the fusion pass, which does not run for numba (jit_compile='auto' keeps a "
      "fused graph on the default executor)", FUSED_ELEMENTWISE, FUSED_REDUCTION)
lacks(NUMBA, "numba does not implement np.heaviside", math_ops.HEAVISIDE)
lacks(NUMBA, "not lowered: a scatter-add into zeros (np.add.at, repeated indices adding up in "
      "order), which numba does not compile, and a rule's expression cannot write into an array",
      array_ops.SLICE_GRADIENT, array_ops.GATHER_GRADIENT)
lacks(NUMBA, "not lowered: the axes it sums depend on the values of its shape tensor, known only "
      "when the graph runs (rt makes it only for shapes unknown while tracing), and the rule "
      "needs them while compiling",
      array_ops.SUM_TO_SHAPE)
lacks(NUMBA, "not lowered to numba yet: numba's np.linspace takes no axis, and numpy's steps "
      "(delta / div, the zero-step case, the last item set to stop) would have to be written "
      "out to be exact", creation_ops.LINSPACE)
lacks(NUMBA, "not lowered: it prints with numpy's array2string to the sys.stdout of the call "
      "(numba's print formats otherwise, to the C stdout)", io_ops.PRINT)
lacks(NUMBA, "not lowered to numba yet (numba takes one 1-D boolean index only)",
      array_ops.BOOLEAN_MASK, array_ops.BOOLEAN_MASK_GRADIENT)
