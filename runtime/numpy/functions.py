"""The numpy-named functions on tensors: numpy's signatures, results and dtypes, computed by rt
ops (so they run eagerly and in graphs, and differentiate). Only `out=None` is accepted.

Each function here is what `np.<name>` does on arrays, written with the ops of runtime/ops/;
runtime/numpy/dispatch.py maps numpy's own functions to them.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.core.tensor_conversion import convert_to_tensor, is_python_int, is_python_scalar
from runtime.errors import NumpyUnsupportedError, argument_error, with_origin
from runtime.numpy.dtype_rules import accumulator, as_numpy_dtype, inexact, operands
from runtime.ops import (
    arrangement_ops,
    array_ops,
    complex_ops,
    contraction_ops,
    creation_ops,
    math_ops,
    reduction_ops,
    scan_ops,
    selection_ops,
    shapes,
    sorting_ops,
)
from runtime.tensor_list import TensorList
from runtime.tracing import python_builtins
from runtime.tracing.staged_control_flow import cond

__all__ = [
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "arange",
    "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax",
    "argmin", "argsort", "argwhere", "around", "array", "array_equal", "asarray", "astype",
    "atleast_1d", "atleast_2d", "bincount", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "broadcast_to", "cbrt", "ceil", "clip", "concat", "concatenate", "conj",
    "conjugate", "convolve", "copy", "copysign", "correlate", "cos", "cosh", "cumprod",
    "cumsum", "deg2rad", "diag", "diff", "divide", "divmod", "dot", "einsum", "empty",
    "empty_like", "equal", "exp", "exp2", "expand_dims", "expm1", "eye", "flatnonzero", "flip",
    "floor", "floor_divide", "fmax", "fmin", "fmod", "full", "full_like", "greater",
    "greater_equal", "heaviside", "hstack", "hypot", "identity", "imag", "inner", "interp",
    "invert", "isclose", "isfinite", "isinf", "isnan", "left_shift", "less", "less_equal",
    "linspace", "log", "log10", "log1p", "log2", "logaddexp", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matmul", "max", "maximum", "mean", "meshgrid", "min",
    "minimum", "mod", "moveaxis", "multiply", "ndim", "negative", "nonzero", "not_equal",
    "ones", "ones_like", "outer", "pad", "positive", "power", "prod", "rad2deg", "ravel",
    "real", "reciprocal", "remainder", "repeat", "reshape", "right_shift", "rint", "roll",
    "round", "searchsorted", "shape", "sign", "signbit", "sin", "sinh", "size", "sort", "sqrt",
    "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes", "take",
    "take_along_axis", "tan", "tanh", "tensordot", "tile", "trace", "transpose", "tril",
    "triu", "true_divide", "trunc", "unique", "var", "vdot", "vstack", "where", "zeros",
    "zeros_like",
]


def _tensor(value) -> Tensor:
    """`value` as np.asarray sees it: a Python list or tuple holding tensors and Python numbers
    by numpy's promotion (`[t32, 0.5]` is float64), a list a graph loop appended Python numbers
    to as numpy's array of the Python list (float64, int64)."""
    if type(value) is TensorList:
        return value.as_array()
    if type(value) in (list, tuple):
        return _nested(value) if value else convert_to_tensor(np.asarray(value))
    return convert_to_tensor(value)


def _refuse(message: str, error=TypeError):
    raise argument_error(error, with_origin(message, user_origin(2)))


def _unsupported(message: str):
    """What runtime.numpy does not do on tensors (numpy would): a limit, not an argument
    error."""
    raise NumpyUnsupportedError(with_origin(message, user_origin(2)))


def _no_out(out, name: str) -> None:
    if out is not None:
        _unsupported(f"numpy.{name}(..., out=...): tensors are immutable, so `out` is not "
                     f"supported; assign the result instead (y = np.{name}(...)).")


def _cast_to(x, dtype):
    if dtype is None:
        return x
    dtype = as_numpy_dtype(dtype)
    return x if x.dtype is dtype else math_ops.cast(x, dtype)


def _named(name: str, fn, doc: str):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


# ---- elementwise ---------------------------------------------------------------------------

def _unary(name, rt_fn, floats=False):
    """np.<name>(x): `floats` for a float function (an integer array computes in numpy's float
    dtype for it, `dtype_rules.inexact`)."""

    def fn(x, /, out=None, *, dtype=None):
        _no_out(out, name)
        x = _tensor(x)
        if dtype is not None:
            x = _cast_to(x, dtype)
        return rt_fn(inexact(x) if floats else x)

    return _named(name, fn, f"numpy.{name}, elementwise.")


def _binary(name, rt_fn, compares=False):
    """np.<name>(x1, x2): operands promoted by numpy's rules first (a comparison with a Python
    int: the int as it is, which rt's comparisons compare exactly, as numpy does, also past the
    other operand's dtype)."""

    def fn(x1, x2, /, out=None, *, dtype=None):
        _no_out(out, name)
        if compares and dtype is None and is_python_int(x1) != is_python_int(x2):
            return rt_fn(x1 if is_python_int(x1) else _tensor(x1),
                         x2 if is_python_int(x2) else _tensor(x2))
        a, b = operands(x1, x2)
        if dtype is not None:
            a, b = _cast_to(_tensor(a), dtype), _cast_to(_tensor(b), dtype)
        if builtins.all(isinstance(v, Tensor) and v.dtype.is_bool or isinstance(v, (bool, np.bool_))
               for v in (a, b)):  # numpy's bools, not Python's: np.add(True, True) is True
            a, b = [python_builtins.strong(v) if isinstance(v, Tensor) else v for v in (a, b)]
        return rt_fn(a, b)

    return _named(name, fn, f"numpy.{name}, elementwise with broadcasting.")


absolute = _unary("absolute", math_ops.abs)
abs = _named("abs", absolute, "numpy.abs, elementwise.")  # noqa: A001 - numpy's name
negative = _unary("negative", math_ops.negative)
positive = _unary("positive", array_ops.identity)  # (a new array, as numpy's)
sign = _unary("sign", math_ops.sign)
square = _unary("square", math_ops.square)
sqrt = _unary("sqrt", math_ops.sqrt, floats=True)
exp = _unary("exp", math_ops.exp, floats=True)
log = _unary("log", math_ops.log, floats=True)
sin = _unary("sin", math_ops.sin, floats=True)
cos = _unary("cos", math_ops.cos, floats=True)
tanh = _unary("tanh", math_ops.tanh, floats=True)
floor = _unary("floor", lambda x: array_ops.identity(x) if not x.dtype.is_floating
                else math_ops.floor(x))
ceil = _unary("ceil", lambda x: array_ops.identity(x) if not x.dtype.is_floating
               else math_ops.ceil(x))
logical_not = _unary("logical_not", lambda x: math_ops.logical_not(_truth(x)))
invert = _unary("invert", math_ops.invert)
bitwise_not = _named("bitwise_not", invert, "numpy.bitwise_not, elementwise.")

add = _binary("add", math_ops.add)
subtract = _binary("subtract", math_ops.subtract)
multiply = _binary("multiply", math_ops.multiply)
divide = _binary("divide", math_ops.divide)
true_divide = _named("true_divide", divide, "numpy.true_divide, elementwise.")
floor_divide = _binary("floor_divide", math_ops.floordiv)
remainder = _binary("remainder", math_ops.mod)
mod = _named("mod", remainder, "numpy.mod, elementwise.")
def _ufunc_power(a, b):
    """np.power: numpy's ufunc loop even on two scalars (where `**` of numpy scalars is the C
    library's pow, which rt's Pow computes there): of two 0-d values, as a 1-item array."""
    if a.ndim == 0 and b.ndim == 0:
        return array_ops.reshape(math_ops.pow(array_ops.reshape(a, [1]), b), [])
    return math_ops.pow(a, b)


power = _binary("power", _ufunc_power)
maximum = _binary("maximum", math_ops.maximum)
minimum = _binary("minimum", math_ops.minimum)
equal = _binary("equal", math_ops.equal, compares=True)
not_equal = _binary("not_equal", math_ops.not_equal, compares=True)
less = _binary("less", math_ops.less, compares=True)
less_equal = _binary("less_equal", math_ops.less_equal, compares=True)
greater = _binary("greater", math_ops.greater, compares=True)
greater_equal = _binary("greater_equal", math_ops.greater_equal, compares=True)

logical_and = _binary("logical_and", lambda a, b: math_ops.logical_and(_truth(a), _truth(b)))
logical_or = _binary("logical_or", lambda a, b: math_ops.logical_or(_truth(a), _truth(b)))
logical_xor = _binary("logical_xor", lambda a, b: math_ops.logical_xor(_truth(a), _truth(b)))
bitwise_and = _binary("bitwise_and", math_ops.bitwise_and)
bitwise_or = _binary("bitwise_or", math_ops.bitwise_or)
bitwise_xor = _binary("bitwise_xor", math_ops.bitwise_xor)
left_shift = _binary("left_shift", math_ops.left_shift)
right_shift = _binary("right_shift", math_ops.right_shift)


# numpy's other math functions: the rt functions of the same names (integers computed in
# numpy's float dtype for them), the two-operand ones after numpy's promotion
(log1p, expm1, log2, log10, exp2, cbrt, tan, arcsin, arccos, arctan, sinh, cosh, arcsinh,
 arccosh, arctanh, deg2rad, rad2deg, rint, signbit, trunc, isnan, isinf, isfinite,
 reciprocal) = (
    math_ops.log1p, math_ops.expm1, math_ops.log2, math_ops.log10, math_ops.exp2, math_ops.cbrt,
    math_ops.tan, math_ops.arcsin, math_ops.arccos, math_ops.arctan, math_ops.sinh,
    math_ops.cosh, math_ops.arcsinh, math_ops.arccosh, math_ops.arctanh, math_ops.deg2rad,
    math_ops.rad2deg, math_ops.rint, math_ops.signbit, math_ops.trunc, math_ops.isnan,
    math_ops.isinf, math_ops.isfinite, math_ops.reciprocal)
arctan2 = _binary("arctan2", math_ops.arctan2)
hypot = _binary("hypot", math_ops.hypot)
logaddexp = _binary("logaddexp", math_ops.logaddexp)
copysign = _binary("copysign", math_ops.copysign)
heaviside = _binary("heaviside", math_ops.heaviside)
fmod = _binary("fmod", math_ops.fmod)
fmax = _binary("fmax", math_ops.fmax)
fmin = _binary("fmin", math_ops.fmin)


def _truth(x):
    """numpy's truth of each element (nonzero) as bools."""
    x = _tensor(x)
    return x if x.dtype.is_bool else math_ops.not_equal(x, 0)


def divmod(x1, x2, /, out=None):  # noqa: A001 - numpy's name
    """numpy.divmod: (floor_divide, remainder)."""
    _no_out(out, "divmod")
    a, b = operands(x1, x2)
    return math_ops.floordiv(a, b), math_ops.mod(a, b)


def round(a, decimals=0, out=None):  # noqa: A001 - numpy's name
    """numpy.round: halves to even; `decimals` places as numpy computes them (scaled by
    10**decimals, rounded, scaled back)."""
    _no_out(out, "round")
    decimals = operator.index(decimals)  # (a float is numpy's TypeError too)
    a = _tensor(a)
    if not a.dtype.is_floating:
        if decimals >= 0 or a.dtype.is_bool:
            return array_ops.identity(a)  # (a new array, as numpy's)
        # integers to tens, hundreds...: halves to even, as numpy (exact below 2**53)
        return math_ops.cast(round(math_ops.cast(a, dtypes.float64), decimals), a.dtype)
    if decimals == 0:
        return math_ops.round(a)
    scale = 10.0 ** decimals
    if decimals > 0:
        return math_ops.divide(math_ops.round(math_ops.multiply(a, scale)), scale)
    factor = 10.0 ** -decimals
    return math_ops.multiply(math_ops.round(math_ops.divide(a, factor)), factor)


around = _named("around", round, "numpy.around: numpy.round.")


def clip(a, a_min=None, a_max=None, out=None, **kwargs):
    """numpy.clip: `a` limited to [a_min, a_max] (either may be None); numpy 2's `min=` /
    `max=` names too."""
    _no_out(out, "clip")
    a_min = kwargs.pop("min", a_min)
    a_max = kwargs.pop("max", a_max)
    if kwargs:
        _unsupported(f"numpy.clip: unsupported arguments {sorted(kwargs)}.")
    if not is_python_scalar(a):
        a = _tensor(a)
        if a.dtype.is_integer:  # numpy 2: a Python int bound past the dtype's range bounds
            info = np.iinfo(a.dtype.np_dtype)  # nothing (no value promotion)
            a_min = None if type(a_min) is int and a_min <= info.min else a_min
            a_max = None if type(a_max) is int and a_max >= info.max else a_max
    if a_min is None and a_max is None:  # numpy 2: a copy
        return array_ops.identity(_tensor(a))
    values = operands(a, *(v for v in (a_min, a_max) if v is not None))
    x = _tensor(values[0])
    if len(values) == 3 and not x.dtype.is_bool:  # numpy's clip ufunc (see CLIP's kernel)
        return math_ops.clip_by_value(x, values[1], values[2])
    rest = iter(values[1:])
    if a_min is not None:
        x = math_ops.maximum(x, next(rest))
    if a_max is not None:
        x = math_ops.minimum(x, next(rest))
    return x


def where(condition, x=None, y=None, /):
    """numpy.where(condition, x, y): elements of x where condition, else of y (promoted by
    numpy's rules); with the condition alone, numpy.nonzero of it."""
    if x is None and y is None:  # numpy's where(condition) is nonzero(condition)
        return selection_ops.nonzero(condition)
    if x is None or y is None:
        _refuse("numpy.where: pass both x and y, or neither.", ValueError)
    a, b = operands(x, y)
    return math_ops.where(_truth(condition), a, b)


def matmul(x1, x2, /, out=None):
    """numpy.matmul: 1-D operands are vectors (a dim is added, then removed)."""
    _no_out(out, "matmul")
    a, b = (_tensor(v) for v in operands(x1, x2))
    if a.ndim == 0 or b.ndim == 0:
        _refuse("numpy.matmul: operands must not be scalars (0-d); use np.multiply.", ValueError)
    return math_ops.matmul(a, b)


# ---- reductions ---------------------------------------------------------------------------

def _unsupported_keywords(name, initial=None, where=None):
    if initial is not None or where is not None:
        _unsupported(f"numpy.{name}: `initial` and `where` are not supported on tensors; mask with "
                "np.where(mask, x, identity) first.")


def _axes(axis):
    """An axis argument: None, ints (numpy's integer scalars too), or a tuple or list of them
    (a float is numpy's TypeError)."""
    return axis if axis is None or isinstance(axis, (int, tuple, list)) else operator.index(axis)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """numpy.sum: small integers and bools sum in int64, as numpy's."""
    _no_out(out, "sum")
    _unsupported_keywords("sum", initial, where)
    return reduction_ops.reduce_sum(accumulator(_tensor(a), dtype, "sum"), _axes(axis), keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """numpy.prod: small integers and bools multiply in int64, as numpy's."""
    _no_out(out, "prod")
    _unsupported_keywords("prod", initial, where)
    return reduction_ops.reduce_prod(accumulator(_tensor(a), dtype, "prod"), _axes(axis),
                                     keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """numpy.mean: integers and bools average in float64."""
    _no_out(out, "mean")
    _unsupported_keywords("mean", None, where)
    x = _tensor(a)
    x = _cast_to(x, dtype) if dtype is not None else (
        x if x.dtype.is_floating else math_ops.cast(x, dtypes.float64))
    return reduction_ops.reduce_mean(x, _axes(axis), keepdims)


def _extremum(name, rt_reduce):
    def fn(a, axis=None, out=None, keepdims=False, initial=None, where=None):
        _no_out(out, name)
        _unsupported_keywords(name, initial, where)
        x = _tensor(a)
        if x.dtype.is_bool:  # numpy's max of bools is their any
            reduce = reduction_ops.reduce_any if name in ("max", "amax") else (
                reduction_ops.reduce_all)
            return reduce(x, _axes(axis), keepdims)
        return rt_reduce(x, _axes(axis), keepdims)

    return _named(name, fn, f"numpy.{name}: the {'largest' if 'max' in name else 'smallest'} "
                  "element along `axis`.")


max = _extremum("max", reduction_ops.reduce_max)  # noqa: A001 - numpy's name
min = _extremum("min", reduction_ops.reduce_min)  # noqa: A001 - numpy's name
amax = _extremum("amax", reduction_ops.reduce_max)
amin = _extremum("amin", reduction_ops.reduce_min)


def all(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001 - numpy's name
    """numpy.all: whether every element is nonzero."""
    _no_out(out, "all")
    _unsupported_keywords("all", None, where)
    return reduction_ops.reduce_all(_truth(a), _axes(axis), keepdims)


def any(a, axis=None, out=None, keepdims=False, *, where=None):  # noqa: A001 - numpy's name
    """numpy.any: whether some element is nonzero."""
    _no_out(out, "any")
    _unsupported_keywords("any", None, where)
    return reduction_ops.reduce_any(_truth(a), _axes(axis), keepdims)


def argmax(a, axis=None, out=None, *, keepdims=False):
    """numpy.argmax: int64 index of the largest element along `axis` (of the flattened array
    when axis is None; the first one on ties)."""
    return _arg_reduce("argmax", reduction_ops.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """numpy.argmin: int64 index of the smallest element along `axis` (of the flattened array
    when axis is None; the first one on ties)."""
    return _arg_reduce("argmin", reduction_ops.argmin, a, axis, out, keepdims)


def _arg_reduce(name, rt_arg, a, axis, out, keepdims):
    _no_out(out, name)
    x = _tensor(a)
    if x.dtype.is_bool:
        x = math_ops.cast(x, dtypes.int8)
    if axis is None:
        result = rt_arg(array_ops.reshape(x, [-1]), axis=0)
        return array_ops.reshape(result, [1] * x.ndim) if keepdims else result
    result = rt_arg(x, axis=axis)
    return array_ops.expand_dims(result, axis) if keepdims else result


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """numpy.var: the mean of squared deviations from the mean, over n - ddof."""
    _no_out(out, "var")
    _unsupported_keywords("var", None, where)
    if mean is not None or correction is not None:
        _unsupported("numpy.var: `mean=` and `correction=` are not supported on tensors; use "
                     "ddof.")
    x = _tensor(a)
    x = _cast_to(x, dtype) if dtype is not None else x if x.dtype.is_floating else (
        math_ops.cast(x, dtypes.float64))  # numpy's var of integers and bools: float64
    axis = _axes(axis)
    centered = math_ops.subtract(x, reduction_ops.reduce_mean(x, axis, keepdims=True))
    squares = math_ops.multiply(centered, centered)
    count = _count(x, axis)
    total = reduction_ops.reduce_sum(squares, axis, keepdims)
    return math_ops.divide(total, math_ops.cast(math_ops.maximum(count - ddof, 0), x.dtype))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """numpy.std: the square root of numpy.var."""
    return math_ops.sqrt(var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                             correction=correction))


def _count(x, axis):
    """How many elements a reduction over `axis` combines (a Python int when known)."""
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, (tuple, list))
                                                else (axis,))
    dims = [x.shape[a] for a in axes]
    if builtins.all(d is not None for d in dims):
        return int(np.prod(dims, dtype=np.int64))
    shape = array_ops.shape(x, out_type=dtypes.int64)
    count = convert_to_tensor(np.int64(1))
    for a in axes:
        count = math_ops.multiply(count, shape[a])
    return count


def ufunc_reduce(ufunc_name: str, reduction):
    """`np.<ufunc_name>.reduce`: `reduction` along axis 0 by default."""

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False):
        _no_out(out, f"{ufunc_name}.reduce")
        return reduction(_cast_to(_tensor(array), dtype), axis=axis, keepdims=keepdims)

    return _named("reduce", reduce, f"numpy.{ufunc_name}.reduce.")


UFUNC_REDUCTIONS = {"add": sum, "multiply": prod, "maximum": max, "minimum": min,
                    "logical_and": all, "logical_or": any}


# ---- shapes ---------------------------------------------------------------------------------

def shape(a, /):
    """numpy.shape: a tuple of ints (an unknown dim is a scalar int64 tensor standing for a
    Python int: weak)."""
    x = _tensor(a)
    if builtins.all(d is not None for d in x.shape):
        return tuple(x.shape)
    dynamic = array_ops.shape(x, out_type=dtypes.int64)
    return tuple(d if d is not None else _python_int(dynamic[i]) for i, d in enumerate(x.shape))


def _python_int(tensor):
    """A new int64 scalar tensor as the stand-in of a Python int (weak, in a graph)."""
    if isinstance(tensor, SymbolicTensor):
        tensor.weak = True
    return tensor


def ndim(a, /):
    """numpy.ndim: the number of axes."""
    return _tensor(a).ndim


def size(a, /, axis=None):
    """numpy.size: the number of elements (along `axis`); an int, or a scalar tensor when a dim
    is unknown."""
    dims = shape(a)
    if axis is not None:
        return dims[axis]
    if builtins.all(isinstance(d, int) for d in dims):
        return int(np.prod(dims, dtype=np.int64))
    return _python_int(array_ops.size(_tensor(a), out_type=dtypes.int64))


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """numpy.reshape (C order only)."""
    if order != "C":
        _unsupported("numpy.reshape: only order='C' is supported on tensors.")
    shape = newshape if shape is None else shape
    if shape is None:
        _refuse("numpy.reshape: give the new shape.")
    x = _tensor(a)
    return _view(x, array_ops.reshape(x, (shape,) if isinstance(shape, int) else shape))


def _view(source, view):
    """`view`, which numpy gives as a view of `source`: noted while tracing, so an in-place
    operator on it is refused where `source` is a numpy argument (plain Python changes it)."""
    array_ops.note_view(source, view)
    return view


def ravel(a, order="C"):
    """numpy.ravel: the elements as a 1-D tensor (C order)."""
    return reshape(a, [-1], order)


def transpose(a, axes=None):
    """numpy.transpose: axes reversed, or permuted by `axes`."""
    x = _tensor(a)
    return _view(x, array_ops.transpose(x, None if axes is None else list(axes)))


def swapaxes(a, axis1, axis2):
    """numpy.swapaxes."""
    x = _tensor(a)
    perm = list(range(x.ndim))
    i = shapes.static_check(shapes.normalize_axis, axis1, x.ndim, "swapaxes")
    j = shapes.static_check(shapes.normalize_axis, axis2, x.ndim, "swapaxes")
    perm[i], perm[j] = perm[j], perm[i]
    return _view(x, array_ops.transpose(x, perm))


def moveaxis(a, source, destination):
    """numpy.moveaxis (one axis, or sequences of them)."""
    x = _tensor(a)
    sources = [source] if isinstance(source, int) else list(source)
    targets = [destination] if isinstance(destination, int) else list(destination)
    sources = [shapes.static_check(shapes.normalize_axis, s, x.ndim, "moveaxis") for s in sources]
    targets = [shapes.static_check(shapes.normalize_axis, t, x.ndim, "moveaxis") for t in targets]
    order = [n for n in range(x.ndim) if n not in sources]
    for target, source_axis in sorted(zip(targets, sources)):
        order.insert(target, source_axis)
    return _view(x, array_ops.transpose(x, order))


def squeeze(a, axis=None):
    """numpy.squeeze: removes axes of length 1 (those of `axis`)."""
    x = _tensor(a)
    if axis is None and builtins.any(d is None for d in x.shape):
        _refuse("numpy.squeeze: some dims are unknown while tracing; name the axes to remove "
                "(axis=...).", ValueError)
    return _view(x, array_ops.squeeze(x, None if axis is None else (
        [axis] if isinstance(axis, int) else list(axis))))


def expand_dims(a, axis):
    """numpy.expand_dims (an axis, or a tuple of them)."""
    x = _tensor(a)
    axes = [axis] if isinstance(axis, int) else list(axis)
    rank = x.ndim + len(axes)
    source = x
    for position in sorted(shapes.static_check(shapes.normalize_axis, v, rank, "expand_dims")
                           for v in axes):
        x = array_ops.expand_dims(x, position)
    return _view(source, x)


def atleast_1d(*arys):
    """numpy.atleast_1d."""
    results = [reshape(x, [1]) if _tensor(x).ndim == 0 else _tensor(x) for x in arys]
    return results[0] if len(results) == 1 else results


def atleast_2d(*arys):
    """numpy.atleast_2d."""
    results = []
    for value in arys:
        x = _tensor(value)
        results.append(reshape(x, [1, 1]) if x.ndim == 0 else expand_dims(x, 0) if x.ndim == 1
                       else x)
    return results[0] if len(results) == 1 else results


def _joined(arrays, what):
    items = list(arrays) if not isinstance(arrays, Tensor) else array_ops.unstack(arrays)
    if not items:
        _refuse(f"numpy.{what} needs at least one array.", ValueError)
    return [_tensor(v) for v in _arrays(*(_nested(v) for v in items))]  # np.asarray of each


def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """numpy.concatenate (axis=None joins the flattened arrays)."""
    _no_out(out, "concatenate")
    if isinstance(arrays, TensorList):  # a list a graph loop appended to: its items, joined
        joined = (array_ops.reshape(arrays.as_array(), [-1]) if axis is None
                  else array_ops.concat(arrays, axis))
        return _cast_to(joined, dtype)
    items = _joined(arrays, "concatenate")
    if axis is None:
        items, axis = [array_ops.reshape(x, [-1]) for x in items], 0
    result = array_ops.concat(items, shapes.static_check(
        shapes.normalize_axis, axis, builtins.max(items[0].ndim, 1), "concatenate"))
    return _cast_to(result, dtype)


concat = _named("concat", concatenate, "numpy.concat: numpy.concatenate.")


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """numpy.stack: along a new axis."""
    _no_out(out, "stack")
    if isinstance(arrays, TensorList):  # a list a graph loop appended to
        return _cast_to(moveaxis(arrays.as_array(), 0, axis), dtype)
    return _cast_to(array_ops.stack(_joined(arrays, "stack"), axis), dtype)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """numpy.vstack: 1-D arrays become rows."""
    if isinstance(tup, TensorList):  # scalars become a column, 1-D arrays rows
        rank = len(tup.element_shape)
        stacked = _tensor(tup) if rank < 2 else array_ops.concat(tup, 0)
        return _cast_to(array_ops.reshape(stacked, [-1, 1]) if rank == 0 else stacked, dtype)
    return concatenate([atleast_2d(x) for x in _joined(tup, "vstack")], 0, dtype=dtype)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """numpy.hstack: along axis 1 (axis 0 for 1-D arrays)."""
    if isinstance(tup, TensorList):
        return concatenate(tup, 0 if len(tup.element_shape) < 2 else 1, dtype=dtype)
    items = [atleast_1d(x) for x in _joined(tup, "hstack")]
    return concatenate(items, 0 if items[0].ndim == 1 else 1, dtype=dtype)


def tile(A, reps):  # noqa: N803 - numpy's name
    """numpy.tile."""
    x = _tensor(A)
    if isinstance(reps, (list, tuple)) or getattr(reps, "ndim", 0) > 0:
        reps = tuple(reps)
    else:
        reps = (reps,)  # (a scalar: one count, as numpy)
    if len(reps) < x.ndim:
        reps = (1,) * (x.ndim - len(reps)) + reps
    elif len(reps) > x.ndim:
        x = array_ops.reshape(x, [1] * (len(reps) - x.ndim) + list(shape(x)))
    return array_ops.tile(x, list(reps))


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """numpy.meshgrid: coordinate arrays from 1-D coordinate vectors (each keeps its dtype),
    "xy" (Cartesian: the first two axes swapped) or "ij" (matrix) indexing."""
    if indexing not in ("xy", "ij"):
        _refuse("numpy.meshgrid: indexing must be 'xy' or 'ij'.", ValueError)
    vectors = [reshape(_tensor(x), [-1]) for x in xi]
    rank = len(vectors)
    axes = list(range(rank))
    if indexing == "xy" and rank > 1:
        axes[0], axes[1] = 1, 0
    grids = [reshape(v, [1] * axes[i] + [-1] + [1] * (rank - axes[i] - 1))
             for i, v in enumerate(vectors)]
    if sparse:
        return tuple(grids)
    dims = [shape(v)[0] for v in vectors]
    full = [dims[axes.index(k)] for k in range(rank)]
    return tuple(array_ops.broadcast_to(g, full) for g in grids)


def broadcast_to(array, shape):
    """numpy.broadcast_to (a view: numpy's is read-only)."""
    x = _tensor(array)
    return _view(x, array_ops.broadcast_to(x, (shape,) if isinstance(shape, int) else shape))


def copy(a, order="K"):
    """numpy.copy: tensors are immutable, so the same values."""
    return array_ops.identity(_tensor(a))


def astype(x, dtype, /, *, copy=True, device=None):
    """numpy.astype: a new array unless `copy` is False and the dtype is x's."""
    x = _tensor(x)
    cast = math_ops.cast(x, as_numpy_dtype(dtype))
    return array_ops.identity(cast) if cast is x and copy else cast


def _nested(value):
    """A (nested) list of tensors and numbers as one tensor, by numpy's rules: the items promote
    to one dtype (a Python number as np.asarray makes it: int64, float64)."""
    if isinstance(value, (list, tuple)) and value:
        if not builtins.any(isinstance(v, Tensor) or type(v) is TensorList
                            or isinstance(v, (list, tuple)) for v in value):
            return convert_to_tensor(np.asarray(value))  # numbers only: numpy's own array
        return array_ops.stack([_tensor(v) for v in _arrays(*(_nested(v) for v in value))])
    return value if is_python_scalar(value) else _tensor(value)


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):  # noqa: A002
    """numpy.array of tensors (or lists holding them): a tensor (a new one: a copy, unless
    `copy` is False)."""
    x = python_builtins.strong(_cast_to(_nested(object), dtype))  # (a numpy value)
    if x is object and copy:
        x = array_ops.identity(x)
    while x.ndim < ndmin:
        x = array_ops.expand_dims(x, 0)
    return x


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """numpy.asarray of a tensor: the tensor (cast to `dtype`; a numpy value)."""
    return python_builtins.strong(_cast_to(_nested(a), dtype))


# ---- creation -------------------------------------------------------------------------------

def _shape_arg(shape):
    return [shape] if isinstance(shape, (int, np.integer)) or (
        isinstance(shape, Tensor) and shape.ndim == 0) else shape


def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    """numpy.zeros (float64 unless `dtype` says otherwise)."""
    return creation_ops.zeros(_shape_arg(shape), as_numpy_dtype(dtype))


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    """numpy.ones (float64 unless `dtype` says otherwise)."""
    return creation_ops.ones(_shape_arg(shape), as_numpy_dtype(dtype or float))


def empty(shape, dtype=float, order="C", *, device=None, like=None):
    """numpy.empty: numpy leaves the values unset; here they are zeros."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    """numpy.full (the dtype of `fill_value` unless `dtype` says otherwise; a Python float is
    float64 and an int int64, as numpy's)."""
    if is_python_scalar(fill_value):
        value = convert_to_tensor(np.asarray(fill_value))
    else:
        value = _tensor(fill_value)
    return creation_ops.fill(_shape_arg(shape), _cast_to(value, dtype))


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """numpy.zeros_like."""
    return creation_ops.zeros_like(_tensor(a), None if dtype is None else as_numpy_dtype(dtype))


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """numpy.ones_like."""
    return creation_ops.ones_like(_tensor(a), None if dtype is None else as_numpy_dtype(dtype))


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """numpy.empty_like: zeros here (numpy leaves the values unset)."""
    return zeros_like(prototype, dtype)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    """numpy.full_like: the dtype of `a` unless `dtype` says otherwise."""
    x = _tensor(a)
    target = x.dtype if dtype is None else as_numpy_dtype(dtype)
    ones_ = creation_ops.ones_like(x, target)
    value = fill_value if isinstance(fill_value, Tensor) else convert_to_tensor(
        np.asarray(fill_value, target.np_dtype) if is_python_scalar(fill_value)  # (numpy's
        else np.asarray(fill_value).astype(target.np_dtype))  # OverflowError past the dtype)
    return math_ops.multiply(ones_, _cast_to(value, target))


def arange(start, stop=None, step=1, dtype=None, *, device=None, like=None):
    """numpy.arange: Python ints give int64 and floats float64, tensors their dtype."""
    if stop is None:
        start, stop = 0, start
    values = [v if isinstance(v, Tensor) else np.asarray(v) for v in (start, stop, step)]
    found = dtypes.as_dtype(np.result_type(*[
        v.dtype.np_dtype if isinstance(v, Tensor) else v for v in values]))
    return creation_ops.range(start, stop, step, dtype=found if dtype is None
                              else as_numpy_dtype(dtype))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """numpy.linspace (endpoint=True); float64 unless the bounds are float32/float16
    tensors."""
    if not endpoint or retstep:
        _unsupported("numpy.linspace: endpoint=False and retstep=True are not supported on "
                     "tensors.")
    a, b = operands(start, stop)
    a, b = _tensor(a), _tensor(b)
    target = dtypes.as_dtype(np.result_type(a.dtype.np_dtype, b.dtype.np_dtype, 1.0))
    a, b = _cast_to(a, target), _cast_to(b, target)
    values = creation_ops.linspace(a, b, num, axis)
    if dtype is not None and as_numpy_dtype(dtype).is_integer:
        values = math_ops.floor(values)  # numpy 2 floors to an integer dtype
    return _cast_to(values, dtype)


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):  # noqa: N803
    """numpy.eye (k=0 only)."""
    if k != 0:
        _unsupported("numpy.eye: only k=0 is supported on tensors; use np.diag.")
    return creation_ops.eye(N, M, dtype=as_numpy_dtype(dtype))


def identity(n, dtype=None, *, like=None):
    """numpy.identity."""
    return eye(n, dtype=dtype or float)


# ---- contractions, selections, scans, sorting, arrangement: the ops' functions (numpy's
# signatures), after numpy's promotion where two arrays meet

def _arrays(*values) -> list:
    """`values` as numpy's functions that call `np.asarray` on their operands see them: a
    Python number is an int64 / float64 array (not weak), and then numpy's promotion."""
    return operands(*(np.asarray(v) if is_python_scalar(v) else v for v in values))


def _promoting(name, rt_fn, doc):
    def fn(a, b, *args, **kwargs):
        return rt_fn(*_arrays(a, b), *args, **kwargs)

    return _named(name, fn, doc)


dot = _promoting("dot", contraction_ops.dot, "numpy.dot: sum products over the last axis of "
                 "`a` and the second-to-last of `b` (a product of scalars, a matrix product).")
inner = _promoting("inner", contraction_ops.inner, "numpy.inner: over the last axes.")
outer = _promoting("outer", contraction_ops.outer, "numpy.outer of the flattened operands.")
vdot = _promoting("vdot", contraction_ops.vdot, "numpy.vdot of the flattened operands.")
tensordot = _promoting("tensordot", contraction_ops.tensordot, "numpy.tensordot.")
convolve = _promoting("convolve", contraction_ops.convolve, "numpy.convolve (1-D).")
correlate = _promoting("correlate", contraction_ops.correlate, "numpy.correlate (1-D).")
nonzero, flatnonzero, argwhere = (selection_ops.nonzero, selection_ops.flatnonzero,
                                  selection_ops.argwhere)
unique, bincount, interp = selection_ops.unique, selection_ops.bincount, selection_ops.interp


cumsum, cumprod, diff = scan_ops.cumsum, scan_ops.cumprod, scan_ops.diff
searchsorted = sorting_ops.searchsorted


def _no_order(order, name):
    if order is not None:
        _unsupported(f"numpy.{name}(..., order=...): tensors have no fields to order by.")


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """numpy.sort along `axis` (None: of the flattened array); NaNs last. Every `kind` gives
    the same values."""
    _no_order(order, "sort")
    return sorting_ops.sort(a, axis)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """numpy.argsort: int64 indices that sort `a` along `axis`. Equal items keep their order
    whatever `kind` says (numpy's kind='stable'; its default quicksort leaves the order of equal
    items unspecified), so every executor gives the same indices."""
    _no_order(order, "argsort")
    x = _tensor(a)
    return sorting_ops.argsort(array_ops.reshape(x, [1]) if x.ndim == 0 else x, axis)
roll, flip, repeat, pad = (arrangement_ops.roll, arrangement_ops.flip, arrangement_ops.repeat,
                           arrangement_ops.pad)
tril, triu, diag, trace = (arrangement_ops.tril, arrangement_ops.triu, arrangement_ops.diag,
                           arrangement_ops.trace)
take, take_along_axis = arrangement_ops.take, arrangement_ops.take_along_axis


def conj(x):
    """numpy.conj: of a real array, a new array with its values."""
    x = _tensor(x)
    return complex_ops.conj(x) if x.dtype.is_complex else array_ops.identity(x)


real, imag, angle = complex_ops.real, complex_ops.imag, complex_ops.angle
conjugate = _named("conjugate", conj, "numpy.conjugate: numpy.conj.")


def einsum(subscripts, *arrays, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    """numpy.einsum (the operands promoted by numpy's rules; `optimize` changes nothing of the
    result)."""
    _no_out(out, "einsum")
    return _cast_to(contraction_ops.einsum(subscripts, *_arrays(*arrays)), dtype)


# ---- comparisons of whole arrays ------------------------------------------------------------

def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.isclose: |a - b| <= atol + rtol * |b| elementwise (infinities equal only
    themselves; nan equals nan when `equal_nan`)."""
    x, y = (_tensor(v) for v in operands(a, b))
    if not x.dtype.is_floating:
        x, y = inexact(x), inexact(y)
    difference = math_ops.abs(math_ops.subtract(x, y))
    finite = math_ops.logical_and(_finite(x), _finite(y))
    close = math_ops.less_equal(difference, math_ops.add(
        math_ops.multiply(math_ops.abs(y), rtol), atol))
    result = math_ops.where(finite, close, math_ops.equal(x, y))
    if equal_nan:
        result = math_ops.logical_or(result, math_ops.logical_and(_nan(x), _nan(y)))
    return result


def _nan(x):
    return math_ops.not_equal(x, x)


def _finite(x):
    return math_ops.logical_and(math_ops.equal(x, x),
                                math_ops.less(math_ops.abs(x), np.inf))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.allclose: every element isclose."""
    return reduction_ops.reduce_all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """numpy.array_equal: same shape and elements. Shapes are compared while tracing when
    known, else when the graph runs."""
    x, y = (_tensor(v) for v in operands(a1, a2))
    if x.ndim != y.ndim or builtins.any(
            p is not None and q is not None and p != q for p, q in zip(x.shape, y.shape)):
        return convert_to_tensor(np.bool_(False))

    def same_values():
        equal_ = math_ops.equal(x, y)
        if equal_nan and x.dtype.is_floating:
            equal_ = math_ops.logical_or(equal_, math_ops.logical_and(_nan(x), _nan(y)))
        return reduction_ops.reduce_all(equal_)

    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        return same_values()
    same_shape = reduction_ops.reduce_all(math_ops.equal(array_ops.shape(x), array_ops.shape(y)))
    return cond(same_shape, same_values, lambda: convert_to_tensor(np.bool_(False)))

