"""Python's builtins and `math` functions over graph tensors, with Python's semantics.

Converted code calls these (through the autograph backend) where a builtin meets a symbolic
tensor; eager tensors take Python's own builtins, which see numpy values. Each function gives
what Python gives on the numpy value, computed when the graph runs, or raises where Python
raises: run-time checks (an int of nan, a `math.sqrt` of a negative number, a `max` of an empty
tensor) are Assert ops that raise `rt.errors.InvalidArgumentError` with Python's message.

Results that Python gives as Python numbers (`int(x)`, `round(x)`, `math.sqrt(x)`) are weak
tensors: next to a tensor they take its dtype, as Python numbers do.
"""

from __future__ import annotations

import builtins
import math
from typing import cast

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor, Tensor, shape_str
from runtime.core.tensor_conversion import binary_operands, convert_to_tensor, is_weak
from runtime.errors import OperatorNotAllowedInGraphError, with_origin
from runtime.ops import array_ops, io_ops, math_ops, reduction_ops
from runtime.ops.registry import apply
from runtime.tensor_list import TensorList
from runtime.tracing.staged_control_flow import cond, while_loop

_INT64 = np.iinfo(np.int64)


def one_element(value: Tensor, what: str) -> Tensor:
    """`value` as a 0-d tensor, for a conversion to a Python scalar (`what`: "int()"). One
    element of any rank converts, as `bool()` of a numpy array does; other sizes are a
    TypeError (while tracing when the shape shows it, else when the graph runs)."""
    known = [d for d in value.shape if d is not None]
    if any(d != 1 for d in known):
        raise TypeError(with_origin(
            f"{what} of a tensor of shape {shape_str(value.shape)}: only a tensor with exactly "
            "one element converts to a Python scalar. Reduce it first (rt.reduce_sum, "
            "rt.reduce_any, ...) or index one element.", user_origin()))
    if len(known) != len(value.shape):
        io_ops.assert_true(math_ops.equal(array_ops.size(value), 1),
                           f"{what} of a tensor with other than one element: only a tensor "
                           "with exactly one element converts to a Python scalar.")
    return array_ops.reshape(value, ()) if value.shape else value


def truth(value):
    """Python's truth of a value as a scalar bool (`if x:`): a graph tensor must hold exactly
    one element (else numpy's ambiguity error, at the user's line; checked when the graph runs
    for unknown dims) and is true when nonzero; a TensorList is true when it has items; other
    values are returned as they are."""
    if isinstance(value, TensorList):
        return math_ops.greater(value.size(), 0)
    if not isinstance(value, SymbolicTensor):
        return value
    known = [d for d in value.shape if d is not None]
    if any(d != 1 for d in known):
        what = "an empty tensor" if 0 in known else "a tensor with more than one element"
        raise ValueError(with_origin(
            f"The truth value of {what} is ambiguous (shape {list(value.shape)}), as in numpy. "
            "Use rt.reduce_any(x) or rt.reduce_all(x).", user_origin()))
    if len(known) != len(value.shape):
        io_ops.assert_true(math_ops.equal(array_ops.size(value), 1),
                           "The truth value of a tensor with other than one element is "
                           "ambiguous, as in numpy. Use rt.reduce_any(x) or rt.reduce_all(x).")
    if value.shape:
        value = array_ops.reshape(value, ())
    return value if value.dtype.is_bool else math_ops.not_equal(value, 0)


def weak(tensor: Tensor) -> Tensor:
    """`tensor` as a Python number's stand-in (a weak tensor: runtime.core.tensor_conversion)."""
    if not tensor.weak:
        tensor = cast(SymbolicTensor, apply(math_ops.CAST, [tensor], {"dtype": tensor.dtype}))
        tensor.weak = True  # (only in a graph: an eager tensor is never weak)
    return tensor


def strong(tensor):
    """`tensor` as a value that stands for no Python number (a numpy constructor's result:
    `np.int64(len(x))` is a numpy integer, not the Python int len gives)."""
    if isinstance(tensor, SymbolicTensor) and tensor.weak:
        tensor = cast(SymbolicTensor, apply(math_ops.CAST, [tensor], {"dtype": tensor.dtype}))
    return tensor


def _check(condition, message: str) -> None:
    io_ops.assert_true(condition, message)


def to_int(value: Tensor) -> Tensor:
    """`int(x)`: the integer of a one-element tensor, as int64 (the widest a graph holds for a
    Python int); a float truncates toward zero, raising (when the graph runs) for nan,
    infinities and values int64 cannot hold."""
    value = one_element(value, "int()")
    if value.dtype.is_bool or value.dtype.is_integer:
        return weak(math_ops.cast(value, dtypes.int64))
    if not value.dtype.is_floating:
        raise TypeError(with_origin(f"int() of a {value.dtype.name} tensor is not supported in "
                                    "a graph.", user_origin()))
    _check(math_ops.equal(value, value), "cannot convert float NaN to integer")
    _check(math_ops.not_equal(math_ops.abs(value), np.inf), "cannot convert float infinity "
           "to integer")
    wide = math_ops.cast(value, dtypes.float64)
    _check(math_ops.logical_and(math_ops.greater_equal(wide, float(_INT64.min)),
                                math_ops.less(wide, -float(_INT64.min))),
           "int() of a float beyond int64: Python's result is wider than a graph can hold")
    return weak(math_ops.cast(wide, dtypes.int64))


def to_float(value: Tensor) -> Tensor:
    """`float(x)`: float64, as Python floats are."""
    value = one_element(value, "float()")
    if value.dtype.is_string:
        raise TypeError(with_origin("float() of a string tensor is not supported in a graph; "
                                    "use rt.strings.to_number.", user_origin()))
    return weak(math_ops.cast(value, dtypes.float64))


def to_index(value: Tensor) -> Tensor:
    """`operator.index(x)`: an integer tensor with one element, as it is."""
    if not value.dtype.is_integer:
        raise TypeError(with_origin(
            f"only integer tensors can be used as an index, not {value.dtype.name}",
            user_origin()))
    return weak(one_element(value, "operator.index()"))


def round_(value: Tensor, ndigits=None) -> Tensor:
    """`round(x)` (an int, halves to even) and `round(x, n)` (numpy's: scale by 10**n, round
    halves to even, scale back, in the tensor's dtype)."""
    if ndigits is None:
        value = one_element(value, "round()")
        return to_int(math_ops.round(value)) if value.dtype.is_floating else to_int(value)
    ndigits = builtins.int(ndigits)
    if not value.dtype.is_floating:
        if ndigits >= 0:
            return value
        raise TypeError(with_origin("round() of an integer tensor to negative digits is not "
                                    "supported in a graph; cast it to a float first.",
                                    user_origin()))
    if ndigits >= 0:
        scale = 10.0 ** ndigits
        result = math_ops.divide(math_ops.round(math_ops.multiply(value, scale)), scale)
    else:
        scale = 10.0 ** -ndigits
        result = math_ops.multiply(math_ops.round(math_ops.divide(value, scale)), scale)
    if value.weak:  # (a Python float's round is a Python float)
        result.weak = True
    return result


def trunc_(value: Tensor) -> Tensor:
    """`math.trunc(x)`: an int; numpy scalars other than float64 (a Python float) have no
    `__trunc__`, so Python raises for them, and so does this."""
    value = one_element(value, "math.trunc()")
    if value.dtype is not dtypes.float64:
        raise TypeError(with_origin(f"type numpy.{value.dtype.np_dtype.name} doesn't define "
                                    "__trunc__ method", user_origin()))
    return to_int(value)


def floor_(value: Tensor) -> Tensor:
    """`math.floor(x)`: an int."""
    value = one_element(value, "math.floor()")
    return to_int(math_ops.floor(value) if value.dtype.is_floating else value)


def ceil_(value: Tensor) -> Tensor:
    """`math.ceil(x)`: an int."""
    value = one_element(value, "math.ceil()")
    return to_int(math_ops.ceil(value) if value.dtype.is_floating else value)


# ---- max, min, sum, all, any ---------------------------------------------------------------
def _items(args, name: str):
    """The values `name` compares or adds: its arguments, or the items of its one argument
    (a list or tuple, or a 1-D tensor: returned as the tensor)."""
    if len(args) > 1:
        return list(args)
    (iterable,) = args
    if isinstance(iterable, TensorList):
        if name in ("max", "min"):  # (before the stack, which refuses no items otherwise)
            _check(math_ops.greater(iterable.size(), 0), f"{name}() arg is an empty sequence")
        return iterable.numbers()
    if isinstance(iterable, Tensor):
        if iterable.ndim != 1:
            raise TypeError(with_origin(
                f"{name}() over a tensor of shape {shape_str(iterable.shape)} in a graph: only a "
                "1-D tensor (its items are scalars) is supported. Use rt.reduce_* with an axis.",
                user_origin()))
        return iterable
    return list(iterable)


def _extremum_call(name):
    def call(*args, key=None, default=_NO_DEFAULT):
        if key is not None:
            raise TypeError(with_origin(
                f"{name}(..., key=...) of graph tensors is not supported: the key's results "
                "would be compared in Python. Compare the keys with rt ops (rt.where).",
                user_origin()))
        if default is not _NO_DEFAULT:
            if len(args) != 1:
                raise TypeError(f"Cannot specify a default for {name}() with multiple "
                                "positional arguments")
            items = _items(args, name)
            if isinstance(items, Tensor):
                raise TypeError(with_origin(
                    f"{name}(tensor, default=...) in a graph: whether the tensor is empty is "
                    "known only when the graph runs. Test rt.size(x) > 0 instead.",
                    user_origin()))
            if not items:
                return default
            args = (items,)
        return extremum(name, args)

    return call


_NO_DEFAULT = object()


def extremum(name: str, args) -> Tensor:
    """`max(...)` / `min(...)` as Python computes it: the first item, replaced by each later
    one that compares greater (smaller). So a nan is kept only where it comes first, and of
    equal items the first stays."""
    items = _items(args, name)
    if isinstance(items, Tensor):  # (a list of Python numbers gives one: weak)
        result = _extremum_of_vector(name, items)
        return weak(result) if items.weak else result
    if not items:
        raise ValueError(with_origin(f"{name}() arg is an empty sequence", user_origin()))
    better = math_ops.greater if name == "max" else math_ops.less
    result = items[0]
    python_numbers = all(is_weak(item) for item in items)  # then so is the result (Python's)
    for item in items[1:]:
        if not isinstance(item, Tensor) and not isinstance(result, Tensor):
            result = item if (item > result if name == "max" else item < result) else result
            continue
        both_weak = is_weak(item) and is_weak(result)
        try:
            item, result = binary_operands(item, result, name)
        except TypeError as e:  # tensors of two dtypes: numpy compares them, a graph cannot
            raise TypeError(with_origin(str(e), user_origin())) from None
        if item.shape != result.shape:
            raise TypeError(with_origin(
                f"{name}() of tensors of shapes {shape_str(item.shape)} and "
                f"{shape_str(result.shape)} in a graph: the result's shape would depend on their "
                "values. Give them one shape.", user_origin()))
        result = math_ops.where(truth(better(item, result)), item, result)
        if both_weak and isinstance(result, SymbolicTensor):
            result = weak(result)  # (still a Python number: a later tensor sets the dtype)
    return weak(result) if python_numbers and isinstance(result, SymbolicTensor) else result


def _extremum_of_vector(name: str, vector: Tensor) -> Tensor:
    if vector.shape[0] == 0:
        raise ValueError(with_origin(f"{name}() arg is an empty sequence", user_origin()))
    if vector.shape[0] is None:
        _check(math_ops.greater(array_ops.size(vector), 0), f"{name}() arg is an empty sequence")
    compared = math_ops.cast(vector, dtypes.int32) if vector.dtype.is_bool else vector
    first = compared[0]
    reduce = reduction_ops.reduce_max if name == "max" else reduction_ops.reduce_min
    if compared.dtype.is_floating:  # a nan first is kept; later ones are never taken
        skip = -np.inf if name == "max" else np.inf
        best = reduce(math_ops.where(math_ops.not_equal(compared, compared), skip, compared))
    else:
        best = reduce(compared)
    position = reduction_ops.argmax(math_ops.equal(compared, best))
    result = array_ops.gather(vector, position)
    if compared.dtype.is_floating:
        result = math_ops.where(math_ops.not_equal(first, first), vector[0], result)
    return result


def sum_(args, start=0) -> Tensor:
    """`sum(iterable, start)`: `start + item0 + item1 + ...` in that order (float sums round
    as Python's do, one addition at a time); no items give `start`."""
    if len(args) == 1 and isinstance(args[0], TensorList):
        lst = args[0]
        lst.check_items_readable()
        return _left_fold(start, lst.size(), lst.numbers, lst.weak)
    items = _items(args, "sum")
    if not isinstance(items, Tensor):
        total = start
        for item in items:  # (Python numbers add as Python does: weak where they meet tensors)
            both_python = not isinstance(item, Tensor) and not isinstance(total, Tensor)
            total = total + item if both_python else math_ops.add(total, item)
        return total
    if items.shape[0] == 0:
        return convert_to_tensor(start)
    return _left_fold(start, array_ops.shape(items)[0], lambda: items, items.weak,
                      known=items.shape[0] is not None)


def _left_fold(start, count: Tensor, stacked, weak_items: bool, known=False) -> Tensor:
    """`start + items[0] + ... + items[count - 1]` of `items = stacked()` (stacked only when
    there are items), or `start` when `count` is 0 (a graph `if`, unless the count is `known`
    to be more). Float sums are a graph loop, adding in Python's order; integer sums (their
    order does not matter) reduce the items."""
    python_numbers = weak_items and is_weak(start)  # (a list of them: so is the sum)
    some_items: list = []

    def some():
        items = stacked()
        first = math_ops.add(start, items[0])  # (dtype and shape: Python's first addition)
        if first.dtype.is_bool:  # numpy's `+` of two bools is their `or`
            total = math_ops.logical_or(first, reduction_ops.reduce_any(items[1:], axis=0))
        elif first.dtype.is_integer:
            rest = math_ops.cast(items[1:], first.dtype)
            total = math_ops.add(first, reduction_ops.reduce_sum(rest, axis=0))
        else:
            _, total = while_loop(lambda i, total: math_ops.less(i, count),
                                  lambda i, total: (i + 1, math_ops.add(total, items[i])),
                                  (convert_to_tensor(1, dtypes.int32), first),
                                  names=("<i>", "<sum>"))
        some_items.append(total)
        return total

    def none():
        (total,) = some_items
        result = math_ops.cast(convert_to_tensor(start, total.dtype) if is_weak(start)
                               else start, total.dtype)  # (a cast keeps a -0.0 start)
        if tuple(result.shape) == tuple(total.shape):
            return result
        io_ops.assert_true(False, "sum() of no items with a start whose shape differs from "
                           "start + item's: Python gives the start as it is, which one graph "
                           "cannot give beside the sum of items. Give a start of the items' shape "
                           "(e.g. 0 * items[0]).")
        return array_ops.broadcast_to(result, [0 if d is None else d for d in total.shape])

    total = some() if known else cond(math_ops.greater(count, 0), some, none, names=("<sum>",))
    return weak(total) if python_numbers else total


def all_(iterable) -> Tensor:
    """`all(iterable)`: a bool, true when every item is true (Python's truth of each)."""
    return _every("all", iterable, math_ops.logical_and, reduction_ops.reduce_all, True)


def any_(iterable) -> Tensor:
    """`any(iterable)`: a bool, true when an item is true."""
    return _every("any", iterable, math_ops.logical_or, reduction_ops.reduce_any, False)


def _every(name, iterable, join, reduce, empty):
    if isinstance(iterable, TensorList):  # (no items: `empty`, without stacking none)
        return cond(math_ops.greater(iterable.size(), 0),
                    lambda: _every(name, iterable.numbers(), join, reduce, empty),
                    lambda: convert_to_tensor(empty), names=(f"<{name}>",))
    items = _items((iterable,), name)
    if isinstance(items, Tensor):
        return reduce(math_ops.not_equal(items, False if items.dtype.is_bool else 0))
    result = convert_to_tensor(empty)
    for item in items:
        result = join(result, truth(item) if isinstance(item, SymbolicTensor)
                      else builtins.bool(item))  # (an eager tensor's truth is numpy's)
    return result


# ---- math --------------------------------------------------------------------------------
def _float64(value) -> Tensor:
    value = convert_to_tensor(value)
    return math_ops.cast(one_element(value, "a math function"), dtypes.float64)


def _domain(condition) -> None:
    _check(condition, "math domain error")


def _math_sqrt(x):
    x = _float64(x)
    _domain(math_ops.logical_not(math_ops.less(x, 0.0)))
    return weak(math_ops.sqrt(x))


def _math_log(x, base=None):
    x = _float64(x)
    _domain(math_ops.logical_not(math_ops.less_equal(x, 0.0)))
    result = math_ops.log(x)
    if base is not None:
        divisor = _math_log(base)
        _check(math_ops.not_equal(divisor, 0.0), "float division by zero")
        result = math_ops.divide(result, divisor)
    return weak(result)


def _math_exp(x):
    x = _float64(x)
    result = math_ops.exp(x)
    _check(math_ops.logical_or(math_ops.not_equal(result, np.inf), math_ops.equal(x, np.inf)),
           "math range error")
    return weak(result)


def _periodic(op):
    def fn(x):
        x = _float64(x)
        _domain(math_ops.logical_or(math_ops.not_equal(math_ops.abs(x), np.inf),
                                    math_ops.not_equal(x, x)))
        return weak(op(x))
    return fn


def _positive_log(op, lowest=0.0):
    """math.log10 / log2 / log1p: a domain error at or below `lowest`."""
    def fn(x):
        x = _float64(x)
        _domain(math_ops.logical_not(math_ops.less_equal(x, lowest)))
        return weak(op(x))
    return fn


def _in_unit_interval(op):
    """math.asin / acos: a domain error outside [-1, 1] (nan gives nan)."""
    def fn(x):
        x = _float64(x)
        _domain(math_ops.logical_not(math_ops.greater(math_ops.abs(x), 1.0)))
        return weak(op(x))
    return fn


def _overflowing(op):
    """math.expm1 / sinh / cosh: a range error where a finite argument gives an infinity."""
    def fn(x):
        x = _float64(x)
        result = op(x)
        _check(math_ops.logical_or(math_ops.not_equal(math_ops.abs(result), np.inf),
                                   math_ops.equal(math_ops.abs(x), np.inf)), "math range error")
        return weak(result)
    return fn


def _two_floats(op):
    def fn(x, y):
        return weak(op(_float64(x), _float64(y)))
    return fn


def _math_fmod(x, y):
    x, y = _float64(x), _float64(y)
    _domain(math_ops.logical_not(math_ops.logical_or(
        math_ops.equal(y, 0.0), math_ops.logical_and(math_ops.equal(math_ops.abs(x), np.inf),
                                                     math_ops.equal(y, y)))))
    return weak(math_ops.fmod(x, y))


def _math_isnan(x):
    x = _float64(x)
    return math_ops.not_equal(x, x)


def _math_isinf(x):
    return math_ops.equal(math_ops.abs(_float64(x)), np.inf)


def _math_isfinite(x):
    x = _float64(x)
    return math_ops.logical_and(math_ops.equal(x, x), math_ops.not_equal(math_ops.abs(x), np.inf))


MATH = {
    math.sqrt: _math_sqrt,
    math.log: _math_log,
    math.exp: _math_exp,
    math.sin: _periodic(math_ops.sin),
    math.cos: _periodic(math_ops.cos),
    math.tanh: lambda x: weak(math_ops.tanh(_float64(x))),
    math.fabs: lambda x: weak(math_ops.abs(_float64(x))),
    math.floor: floor_,
    math.ceil: ceil_,
    math.trunc: trunc_,
    math.isnan: _math_isnan,
    math.isinf: _math_isinf,
    math.isfinite: _math_isfinite,
    math.tan: _periodic(math_ops.tan),
    math.asin: _in_unit_interval(math_ops.arcsin),
    math.acos: _in_unit_interval(math_ops.arccos),
    math.atan: lambda x: weak(math_ops.arctan(_float64(x))),
    math.atan2: _two_floats(math_ops.arctan2),
    math.log10: _positive_log(math_ops.log10),
    math.log2: _positive_log(math_ops.log2),
    math.log1p: _positive_log(math_ops.log1p, -1.0),
    math.expm1: _overflowing(math_ops.expm1),
    math.sinh: _overflowing(math_ops.sinh),
    math.cosh: _overflowing(math_ops.cosh),
    math.hypot: _two_floats(math_ops.hypot),
    math.copysign: _two_floats(math_ops.copysign),
    math.fmod: _math_fmod,
}
"""`math` functions of graph tensors: float64 as Python computes (numpy's float64 ufuncs, which
may differ from the C library's in the last bit), with Python's domain and range errors."""


def call(fn, args, kwargs):
    """`fn(*args, **kwargs)` where an argument is a graph tensor, for the builtins and `math`
    functions above; other builtins of a graph tensor are refused, naming the builtin."""
    rule = _BUILTINS.get(fn)
    if rule is None:
        rule = MATH.get(fn)
        if rule is None:
            name = getattr(fn, "__qualname__", repr(fn))
            if getattr(fn, "__module__", None) == "math":
                raise OperatorNotAllowedInGraphError(with_origin(
                    f"math.{name}() of a graph tensor is not staged yet (the staged ones: "
                    f"{', '.join(sorted('math.' + f.__name__ for f in MATH))}). Compute it with "
                    "rt ops, or outside the rt.function.", user_origin()))
            raise OperatorNotAllowedInGraphError(with_origin(
                f"{name}() of a graph tensor is not supported: its result depends on the "
                "tensor's value (or identity), which is not known until the graph runs. Return "
                "the tensor and call it on the result.", user_origin()))
    return rule(*args, **kwargs)


_BUILTINS = {
    builtins.max: _extremum_call("max"),
    builtins.min: _extremum_call("min"),
    builtins.sum: lambda iterable, start=0: sum_((iterable,), start),
    builtins.all: all_,
    builtins.any: any_,
    builtins.round: round_,
}


# `round(t)`, `math.floor(t)`, ... call these methods of the tensor (outside converted code too).
SymbolicTensor.__round__ = round_
SymbolicTensor.__floor__ = floor_
SymbolicTensor.__ceil__ = ceil_
SymbolicTensor.__trunc__ = trunc_
