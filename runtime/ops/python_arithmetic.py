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


def add(x, y):
    """`x + y`; past int64, stand-ins of Python ints raise when the graph runs."""
    result = math_ops.add(x, y)
    if _weak(result, "is_integer"):
        x, y = _tensor(x, result.dtype), _tensor(y, result.dtype)
        if is_python_scalar(y) or is_python_scalar(x):  # n + 1: it only grew (or shrank)
            value, constant = (x, y) if is_python_scalar(y) else (y, x)
            fits = _moved(result, value, up=constant >= 0)
        else:  # wrapped iff both operands' signs differ from the result's
            fits = _sign_bits_clear(math_ops.bitwise_xor(x, result),
                                    math_ops.bitwise_xor(y, result))
        _checked(fits, f"`+` overflowed int64 {_GROWS}")
    return result


def subtract(x, y):
    """`x - y`; past int64, stand-ins of Python ints raise when the graph runs."""
    result = math_ops.subtract(x, y)
    if _weak(result, "is_integer"):
        x, y = _tensor(x, result.dtype), _tensor(y, result.dtype)
        if is_python_scalar(y):  # n - 1
            fits = _moved(result, x, up=y < 0)
        else:  # wrapped iff the operands' signs differ and the result's is not x's
            fits = _sign_bits_clear(math_ops.bitwise_xor(x, y), math_ops.bitwise_xor(x, result))
        _checked(fits, f"`-` overflowed int64 {_GROWS}")
    return result


def multiply(x, y):
    """`x * y`; past int64, stand-ins of Python ints raise when the graph runs."""
    result = math_ops.multiply(x, y)
    if _weak(result, "is_integer"):
        x, y = _tensor(x, result.dtype), _tensor(y, result.dtype)
        smallest = int(np.iinfo(result.dtype.np_dtype).min)
        if is_python_scalar(x) or is_python_scalar(y):  # 3 * n
            constant, value = (x, y) if is_python_scalar(x) else (y, x)
            constant = int(constant)
            if constant in (0, 1):
                return result
            fits = (math_ops.not_equal(value, smallest) if constant == -1
                    else math_ops.equal(math_ops.floordiv(result, constant), value))
        else:  # result // x == y, except for x of 0 (always fits) and -1 (y not the smallest)
            zero, minus_one = math_ops.equal(x, 0), math_ops.equal(x, -1)
            divisor = math_ops.where(math_ops.logical_or(zero, minus_one), 1, x)
            fits = math_ops.where(minus_one, math_ops.not_equal(y, smallest), math_ops.logical_or(
                zero, math_ops.equal(math_ops.floordiv(result, divisor), y)))
        _checked(fits, f"`*` overflowed int64 {_GROWS}")
    return result


def negative(x):
    """`-x`; the smallest int64 has no negative in int64 (Python's is one more than the
    largest)."""
    result = math_ops.negative(x)
    if _weak(result, "is_integer"):
        smallest = int(np.iinfo(result.dtype.np_dtype).min)
        _checked(math_ops.not_equal(x, smallest), f"`-` overflowed int64 {_GROWS}")
    return result


def power(x, y):
    """`x ** y`: for stand-ins of Python ints, a result past int64 raises when the graph runs;
    for stand-ins of Python floats, so do a negative base to a fraction (Python: a complex
    number) and zero to a negative power (Python: ZeroDivisionError)."""
    result = math_ops.pow(x, y)
    if _weak(result, "is_integer"):
        as_float = math_ops.pow(_float64(x), _float64(y))  # rounds, but never below the bound
        bound = float(np.iinfo(result.dtype.np_dtype).max) + 1.0
        _checked(math_ops.less(math_ops.abs(as_float), bound), f"`**` overflowed int64 {_GROWS}")
    elif _weak(result, "is_floating"):
        _checked(_real_power(x, y), "a negative Python float to a fractional power is a complex "
                 "number in Python; a graph computes real numbers (use rt.cast to a complex dtype, "
                 "or check the base's sign first)")
        _checked(_finite_power(x, y), "0.0 cannot be raised to a negative power (Python raises "
                 "ZeroDivisionError)")
    return result


def _float64(value):
    return float(value) if is_python_scalar(value) else math_ops.cast(value, dtypes.float64)


def _real_power(x, y):
    """Whether `x ** y` is real: a base of 0 or more, or an exponent that is a whole number (or
    not finite: Python's (-8.0) ** inf is inf)."""
    if is_python_scalar(y) and (not math.isfinite(y) or float(y).is_integer()):
        return True
    if is_python_scalar(x) and x >= 0:
        return True
    non_negative = True if is_python_scalar(x) else math_ops.greater_equal(x, 0)
    if is_python_scalar(y):
        return non_negative
    whole = math_ops.logical_or(math_ops.equal(y, math_ops.floor(y)),
                                math_ops.logical_not(math_ops.isfinite(y)))
    return whole if non_negative is True else math_ops.logical_or(non_negative, whole)


def _finite_power(x, y):
    """Whether `x ** y` is not zero to a negative power."""
    if is_python_scalar(y) and y >= 0 or is_python_scalar(x) and x != 0:
        return True
    nonzero = True if is_python_scalar(x) else math_ops.not_equal(x, 0)
    if is_python_scalar(y):
        return nonzero
    non_negative = math_ops.greater_equal(y, 0)
    return non_negative if nonzero is True else math_ops.logical_or(nonzero, non_negative)
