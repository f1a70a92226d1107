"""Python's arithmetic on the stand-ins of Python numbers, for the operators on tensors.

A weak graph tensor stands for a Python number (a loop variable that started as `0` or `1.0`,
`int(x)` of a tensor): a Python int is an int64 in a graph and a Python float a float64, so
arithmetic on them gives Python's values. Where numpy's answer would still differ from Python's,
the op is followed by an Assert: the graph raises at the user's line instead of giving another
value.
- `/`, `//`, `%` by zero: Python raises ZeroDivisionError (numpy gives inf, nan or 0);
- `+`, `-`, `*`, `**` and unary `-` of ints past int64: Python's ints grow, numpy's wrap;
- `**` of floats: a negative base to a fraction is a complex number in Python (numpy: nan), and
  zero to a negative power raises ZeroDivisionError (numpy: inf).
Checks known to pass while tracing (`n + 1` needs one comparison; `x ** 2` of a float none) are
left out. Tensors that are not weak compute as numpy's values do, unchecked.
"""

from __future__ import annotations

import math

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import SymbolicTensor
from runtime.core.tensor_conversion import convert_to_tensor, is_python_scalar, weak_result
from runtime.ops import io_ops, math_ops

_GROWS = ("(of Python ints: Python's ints grow without bound, a graph's are int64; use floats "
          "for values this large)")


def _weak(result, dtype_kind: str) -> bool:
    return (isinstance(result, SymbolicTensor) and result.weak
            and getattr(result.dtype, dtype_kind))


def _checked(condition, message: str) -> None:
    if condition is not True:
        io_ops.check_python_numbers(condition, message)


def _tensor(value, dtype):
    return value if is_python_scalar(value) else convert_to_tensor(value, dtype)


def division(fn, symbol: str):
    """`x / y`, `x // y` or `x % y` (`fn`): by zero, stand-ins of Python numbers raise when the
    graph runs, where Python's do (before dividing, so no warning of numpy's comes first)."""
    def divide(x, y):
        if weak_result(x, y):
            _checked(True if is_python_scalar(y) and y != 0 else math_ops.not_equal(y, 0),
                     f"division by zero in `{symbol}` (of Python numbers: Python raises "
                     "ZeroDivisionError)")
        return fn(x, y)
    return divide


def _moved(result, value, up: bool):
    """Whether `result` (value plus or minus a constant) moved the way the constant says: a
    wrapped int moved the other way."""
    return (math_ops.greater_equal(result, value) if up
            else math_ops.less_equal(result, value))


def _sign_bits_clear(a, b):
    """Whether `a & b` has its sign bit clear (not both negative)."""
    return math_ops.greater_equal(math_ops.bitwise_and(a, b), 0)


def _int_checked(compute, fits, symbol: str):
    """`compute(x, y)`, followed for stand-ins of Python ints by the check that
    `fits(x, y, result)` (operands as tensors of the result's dtype, Python scalars as they
    are) holds when the graph runs."""
    def operator(x, y):
        result = compute(x, y)
        if _weak(result, "is_integer"):
            _checked(fits(_tensor(x, result.dtype), _tensor(y, result.dtype), result),
                     f"`{symbol}` overflowed int64 {_GROWS}")
        return result
    operator.__doc__ = (f"`x {symbol} y`; past int64, stand-ins of Python ints raise when the "
                        "graph runs.")
    return operator


def _sum_fits(x, y, result):
    if is_python_scalar(y) or is_python_scalar(x):  # n + 1: it only grew (or shrank)
        value, constant = (x, y) if is_python_scalar(y) else (y, x)
        return _moved(result, value, up=constant >= 0)
    # wrapped iff both operands' signs differ from the result's
    return _sign_bits_clear(math_ops.bitwise_xor(x, result), math_ops.bitwise_xor(y, result))


def _difference_fits(x, y, result):
    if is_python_scalar(y):  # n - 1
        return _moved(result, x, up=y < 0)
    # wrapped iff the operands' signs differ and the result's is not x's
    return _sign_bits_clear(math_ops.bitwise_xor(x, y), math_ops.bitwise_xor(x, result))


def _product_fits(x, y, result):
    smallest = _smallest(result.dtype)
    if is_python_scalar(x) or is_python_scalar(y):  # 3 * n
        constant, value = (x, y) if is_python_scalar(x) else (y, x)
        constant = int(constant)
        if constant in (0, 1):
            return True
        return (math_ops.not_equal(value, smallest) if constant == -1
                else math_ops.equal(math_ops.floordiv(result, constant), value))
    # result // x == y, except for x of 0 (always fits) and -1 (y not the smallest)
    zero, minus_one = math_ops.equal(x, 0), math_ops.equal(x, -1)
    divisor = math_ops.where(math_ops.logical_or(zero, minus_one), 1, x)
    return math_ops.where(minus_one, math_ops.not_equal(y, smallest), math_ops.logical_or(
        zero, math_ops.equal(math_ops.floordiv(result, divisor), y)))


def _smallest(dtype) -> int:
    return int(np.iinfo(dtype.np_dtype).min)


add = _int_checked(math_ops.add, _sum_fits, "+")
subtract = _int_checked(math_ops.subtract, _difference_fits, "-")
multiply = _int_checked(math_ops.multiply, _product_fits, "*")


def negative(x):
    """`-x`; the smallest int64 has no negative in int64 (Python's is one more than the
    largest)."""
    result = math_ops.negative(x)
    if _weak(result, "is_integer"):
        _checked(math_ops.not_equal(x, _smallest(result.dtype)), f"`-` overflowed int64 {_GROWS}")
    return result


def power(x, y):
    """`x ** y`: for stand-ins of Python ints, a result past int64 raises when the graph runs;
    for stand-ins of Python floats, so do a negative base to a fraction (Python: a complex
    number; -inf: numpy's nan, Python's inf or 0.0), zero to a negative finite power (Python:
    ZeroDivisionError) and a finite result past float64 of finite operands (Python:
    OverflowError); a NaN base or an infinite exponent gives Python's number."""
    result = math_ops.pow(x, y)
    if _weak(result, "is_integer"):
        _checked(_int_power_fits(x, y, result), f"`**` overflowed int64 {_GROWS}")
    elif _weak(result, "is_floating"):
        result = _positive_square_root_of_zero(result, y)
        _checked(_real_power(x, y), "a negative Python float to a fractional power is a complex "
                 "number in Python (and -inf's is inf or 0.0, numpy's nan); a graph computes real "
                 "numbers (use rt.cast to a complex dtype, or check the base's sign first)")
        _checked(_finite_power(x, y), "0.0 cannot be raised to a negative power (Python raises "
                 "ZeroDivisionError)")
        _checked(_any(math_ops.isfinite(result), *(
            math_ops.logical_not(math_ops.isfinite(v)) for v in (x, y)
            if not is_python_scalar(v)), *(not math.isfinite(v) for v in (x, y)
                                          if is_python_scalar(v))),
                 "`**` of Python floats overflowed (Python raises OverflowError: (34, 'Numerical "
                 "result out of range'))")
    return result


def _positive_square_root_of_zero(result, y):
    """`result` of `x ** y`, with numpy's -0.0 for `-0.0 ** 0.5` made Python's 0.0 (numpy's
    power takes the square root for an exponent of 0.5, and sqrt(-0.0) is -0.0; adding 0.0
    changes only a -0.0)."""
    if is_python_scalar(y):
        return math_ops.add(result, 0.0) if y == 0.5 else result
    chosen = math_ops.where(math_ops.equal(y, 0.5), math_ops.add(result, 0.0), result)
    chosen.weak = True  # still a Python float's stand-in (where gives a strong tensor)
    return chosen


def _int_power_fits(x, y, result):
    """Whether the int `x ** y` fits: its float64 value is below 2**63 in magnitude (rounding
    never takes a value past the bound below it), or it is the exponent 1, or exactly -2**63
    (the float is -2**63 and the wrapped int is int64's smallest)."""
    if is_python_scalar(y) and y == 1:
        return True
    smallest = _smallest(result.dtype)
    bound = -float(smallest)
    as_float = math_ops.pow(_float64(x), _float64(y))
    fits = _any(math_ops.less(math_ops.abs(as_float), bound),
                math_ops.logical_and(math_ops.equal(as_float, -bound),
                                     math_ops.equal(result, smallest)))
    return fits if is_python_scalar(y) else _any(fits, math_ops.equal(y, 1))


def _float64(value):
    return float(value) if is_python_scalar(value) else math_ops.cast(value, dtypes.float64)


def _any(*conditions):
    """True if a condition is True, else the `or` of the tensors among them (False if none)."""
    if any(c is True for c in conditions):
        return True
    tensors = [c for c in conditions if c is not False]
    if not tensors:
        return False
    combined = tensors[0]
    for c in tensors[1:]:
        combined = math_ops.logical_or(combined, c)
    return combined


def _real_power(x, y):
    """Whether numpy's `x ** y` is Python's real number: the base is 0 or more or NaN, or the
    exponent is a whole number or not finite."""
    if is_python_scalar(x):
        base = not x < 0
    else:  # (NaN: nan in both; -inf to a fraction: numpy's nan, Python's inf or 0.0: refused)
        base = math_ops.logical_or(math_ops.greater_equal(x, 0), math_ops.isnan(x))
    if is_python_scalar(y):
        exponent = not math.isfinite(y) or float(y).is_integer()
    elif not y.dtype.is_floating:  # an int (a Python int's stand-in) is whole
        exponent = True
    else:
        exponent = math_ops.logical_or(math_ops.equal(y, math_ops.floor(y)),
                                       math_ops.logical_not(math_ops.isfinite(y)))
    return _any(base, exponent)


def _finite_power(x, y):
    """Whether `x ** y` is not zero to a negative finite power (0.0 ** -inf is inf in Python,
    0.0 ** nan is nan)."""
    base = (x != 0) if is_python_scalar(x) else math_ops.not_equal(x, 0)
    if is_python_scalar(y):
        exponent = not (y < 0 and math.isfinite(y))
    else:
        exponent = math_ops.logical_or(math_ops.logical_not(math_ops.less(y, 0)),
                                       math_ops.isinf(y))
    return _any(base, exponent)
