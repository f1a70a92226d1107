"""Elementwise math, comparisons, logic, `where` and `matmul` (and `cast`, from basic_ops)."""

from __future__ import annotations

import math
import operator

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import Tensor, normalize
from runtime.core.tensor_conversion import (
    binary_operands,
    convert_to_tensor,
    is_python_int,
    python_scalar_fits,
    weak_result,
)
from runtime.errors import InvalidArgumentError, argument_error, with_origin
from runtime.ops import array_ops, reduction_ops, shapes
from runtime.ops.basic_ops import CAST, cast, ones_like, zeros_like  # noqa: F401 - math_ops.cast
from runtime.ops.registry import (
    CONST,
    ELEMENTWISE,
    FRESH_OUTPUT,
    FUSED,
    GRADIENT,
    NUMBA,
    ONNX,
    Elementwise,
    apply,
    define_op,
    derive_rules,
    lacks,
    register_rule,
    register_rules,
)

# The dtypes elementwise ops take, stated (a backend without numpy's rules needs them); the
# operands of one op have one dtype (binary_operands unifies them first).
_NUMBERS = frozenset(d for d in dtypes.ALL if not (d.is_bool or d.is_string or d.is_complex))
# Complex numbers: only the arithmetic below and abs take them (and ops/complex_ops.py).
_COMPLEX = frozenset(d for d in dtypes.ALL if d.is_complex)
_FLOATS = frozenset(d for d in dtypes.ALL if d.is_floating)
_ORDERED = _NUMBERS | {dtypes.bool_}  # what comparisons take
_BOOLS = frozenset({dtypes.bool_})
_STRINGS = frozenset({dtypes.string})


def _true_division(dtype):
    """numpy's true division: integers give float64."""
    return dtype if dtype.is_floating or dtype.is_complex else dtypes.float64


def _elementwise(name, ufunc=None, expression=None, *, accepts, result=None, onnx=None, exact=True,
                 kernel=None, rules=None, expression_globals=None, typed_expression=None):
    """Defines an elementwise op with numpy broadcasting on operands of one dtype from
    `accepts`; it returns that dtype, or `result` (a dtype, or a function of the operands'
    dtype). tests/runtime/test_op_dtypes.py checks each rule against numpy.

    Its `Elementwise` declaration (runtime/ops/registry.py) is what the rule kinds derive the
    op's rules from: `ufunc`, numpy's name of the ufunc the op is (its kernel, unless `kernel`
    says otherwise, which must equal the ufunc on arrays of numbers: the executor calls the
    ufunc there; its FUSED step; np.<ufunc> in numba, jnp.<ufunc> in JAX); `onnx`, the ONNX
    op of the same semantics; `exact=False` for a math function that is not correctly rounded.
    An op whose rule of a kind is special registers it (`rules`, or in the kind's module)."""
    declared = Elementwise(accepts, ufunc, onnx, exact)
    wanted = ", ".join(sorted(d.name for d in accepts))

    def infer(inputs):
        operand = {t.dtype for t in inputs}
        if len(operand) != 1:
            raise argument_error(
                TypeError,
                f"{name} takes operands of one dtype, got "
                f"{', '.join(t.dtype.name for t in inputs)}.",
            )
        dtype = operand.pop()
        if dtype not in accepts:
            raise argument_error(TypeError, f"{name} takes {wanted} tensors, not {dtype.name}.")
        out = dtype if result is None else result if isinstance(result, dtypes.DType) else (
            result(dtype))
        return [(out, shapes.broadcast(*(t.shape for t in inputs)))]

    return define_op(
        name, infer=infer, kernel=kernel or getattr(np, ufunc), groups=[ELEMENTWISE, FRESH_OUTPUT],
        expression=expression, expression_globals=expression_globals, elementwise=declared,
        rules=rules, typed_expression=typed_expression,
    )


def _fused_steps(opdef):
    """The FUSED rule of an op declared as a ufunc: that one ufunc on the op's operands ("a",
    "b"), exactly as its kernel runs (ops/fused_ops.py)."""
    ufunc = opdef.elementwise and opdef.elementwise.ufunc
    return ((ufunc, *"ab"[:getattr(np, ufunc).nin]),) if ufunc else None


derive_rules(FUSED, _fused_steps)


def _binary(expr):
    return lambda a, attrs: "(" + expr.format(*a) + ")"


# operator.add, unlike np.add, also concatenates strings (bytes and object arrays of bytes).
ADD = _elementwise("Add", "add", _binary("{} + {}"), accepts=_NUMBERS | _STRINGS | _COMPLEX,
                   kernel=operator.add)
SUB = _elementwise("Sub", "subtract", _binary("{} - {}"), accepts=_NUMBERS | _COMPLEX,
                   onnx="Sub")
MUL = _elementwise("Mul", "multiply", _binary("{} * {}"), accepts=_NUMBERS | _COMPLEX,
                   onnx="Mul")
DIV = _elementwise("RealDiv", "true_divide", _binary("{} / {}"), accepts=_NUMBERS | _COMPLEX,
                   result=_true_division)
FLOORDIV = _elementwise("FloorDiv", "floor_divide", _binary("{} // {}"), accepts=_NUMBERS)
MOD = _elementwise("FloorMod", "remainder", _binary("{} % {}"), accepts=_NUMBERS)


def _power(x, y):
    """`x ** y` as numpy computes it: of two scalars with numpy scalars' `**` (the C library's
    pow, which plain code on numpy scalars and on Python floats gets; np.power's vectorized loop
    rounds some of those results differently), of arrays with np.power. (Written for speed: a
    scalar loop calls it on every step.)"""
    if type(x) is np.ndarray:
        if x.ndim:
            return np.power(x, y)
        x = x[()]
    if type(y) is np.ndarray:
        if y.ndim:
            return np.power(x, y)
        y = y[()]
    if isinstance(x, np.generic) and isinstance(y, np.generic):
        return x ** y
    return np.power(x, y)


def _power_expression(names, attrs, inputs):
    """`**` of two scalars written out (the kernel's call costs more than its work on a loop's
    numbers), with the kernel for what is an array when it runs (a 0-d one)."""
    if any(len(t.shape) for t in inputs):
        return None
    a, b = names
    checks = " and ".join(f"isinstance({name}, generic_)" for name, t in zip(names, inputs)
                          if t.op.opdef is not CONST)  # (a 0-d constant is a numpy scalar)
    if not checks:  # (two constants, which folding left: `4.0 ** -600` underflows)
        return f"({a} ** {b})"
    return f"({a} ** {b} if {checks} else power_({a}, {b}))"


POW = _elementwise("Pow", "power", accepts=_NUMBERS, onnx="Pow", exact=False, kernel=_power,
                   typed_expression=_power_expression,
                   expression_globals={"generic_": np.generic, "power_": _power})
lacks(FUSED, "np.power is not fused yet (the power pass rewrites x**2 and x**0.5 first)", POW)
MAXIMUM = _elementwise("Maximum", "maximum", accepts=_NUMBERS, onnx="Max")
MINIMUM = _elementwise("Minimum", "minimum", accepts=_NUMBERS, onnx="Min")


def _predicate(name, ufunc, expr=None, accepts=_ORDERED, onnx=None):
    """An elementwise op that returns bools."""
    expression = _binary(expr) if expr else None
    return _elementwise(name, ufunc, expression, accepts=accepts, result=dtypes.bool_, onnx=onnx)


EQUAL = _predicate("Equal", "equal", "{} == {}", onnx="Equal")
NOT_EQUAL = _predicate("NotEqual", "not_equal", "{} != {}")  # ONNX: Not(Equal)
LESS = _predicate("Less", "less", "{} < {}", onnx="Less")
LESS_EQUAL = _predicate("LessEqual", "less_equal", "{} <= {}", onnx="LessOrEqual")
GREATER = _predicate("Greater", "greater", "{} > {}", onnx="Greater")
GREATER_EQUAL = _predicate("GreaterEqual", "greater_equal", "{} >= {}", onnx="GreaterOrEqual")
# On 0-d strings (`bytes`) `==` gives a Python bool, not a numpy one: strings use the kernel.
STRING_EQUAL = _predicate("StringEqual", "equal", accepts=_STRINGS, onnx="Equal")
STRING_NOT_EQUAL = _predicate("StringNotEqual", "not_equal", accepts=_STRINGS)
lacks(FUSED, "strings: the fused kernel runs numeric ufuncs", STRING_EQUAL, STRING_NOT_EQUAL)
# On bool values `&`, `|`, `^` equal the logical ufuncs and are far cheaper on numpy scalars.
LOGICAL_AND = _predicate("LogicalAnd", "logical_and", "{} & {}", accepts=_BOOLS, onnx="And")
LOGICAL_OR = _predicate("LogicalOr", "logical_or", "{} | {}", accepts=_BOOLS, onnx="Or")
LOGICAL_XOR = _predicate("LogicalXor", "logical_xor", "{} ^ {}", accepts=_BOOLS, onnx="Xor")


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _relu(x):
    return np.maximum(x, 0)


NEG = _elementwise("Neg", "negative", lambda a, attrs: f"(-{a[0]})",
                   accepts=_NUMBERS | _COMPLEX)
ABS = _elementwise("Abs", "absolute", lambda a, attrs: f"abs({a[0]})", accepts=_NUMBERS,
                   onnx="Abs")
# abs of a complex number: its modulus, a float (np.absolute: Python's abs() of a numpy complex
# scalar rounds otherwise). `abs` and `absolute` pick it for complex tensors.
COMPLEX_ABS = _elementwise("ComplexAbs", "absolute", accepts=_COMPLEX, result=dtypes.real_part)
lacks(FUSED, "changes the dtype (complex to float): the fused kernel's steps keep their "
      "operands' dtype", COMPLEX_ABS)
lacks(GRADIENT, "complex input: gradients do not pass through complex values (rt "
      "differentiates real floats only)", COMPLEX_ABS)
lacks(ONNX, "complex tensors are not exported (onnxruntime has no complex arithmetic kernels)",
      COMPLEX_ABS)
lacks(NUMBA, "numba's complex modulus differs from numpy's in the last bits", COMPLEX_ABS)
SIGN = _elementwise("Sign", "sign", accepts=_NUMBERS, onnx="Sign")
EXP = _elementwise("Exp", "exp", accepts=_FLOATS, onnx="Exp", exact=False)
LOG = _elementwise("Log", "log", accepts=_FLOATS, onnx="Log", exact=False)
SQRT = _elementwise("Sqrt", "sqrt", accepts=_FLOATS, onnx="Sqrt")
SQUARE = _elementwise("Square", "square", accepts=_NUMBERS)  # ONNX: Mul(x, x)
SIN = _elementwise("Sin", "sin", accepts=_FLOATS, onnx="Sin", exact=False)
COS = _elementwise("Cos", "cos", accepts=_FLOATS, onnx="Cos", exact=False)
TANH = _elementwise("Tanh", "tanh", accepts=_FLOATS, onnx="Tanh", exact=False)
# Not ufuncs: their rules are written out (FUSED here, the others in each kind's module). A
# FUSED rule is the ufunc steps that run the op inside a FusedElementwise kernel (ops/
# fused_ops.py): args are "a"/"b" (the op's operands), "prev" (the previous step's value) or a
# Python number; the steps mirror the op's kernel exactly (same ufuncs, same operand order).
SIGMOID = _elementwise("Sigmoid", kernel=_sigmoid, accepts=_FLOATS, onnx="Sigmoid", exact=False,
                       rules={FUSED: (("negative", "a"), ("exp", "prev"), ("add", 1, "prev"),
                                      ("true_divide", 1, "prev"))})  # 1 / (1 + np.exp(-x))
RELU = _elementwise("Relu", kernel=_relu, accepts=_NUMBERS,
                    rules={FUSED: (("maximum", "a", 0),)})  # np.maximum(x, 0)
ROUND = _elementwise("Round", kernel=np.round, accepts=_NUMBERS)
lacks(FUSED, "np.round is not a ufunc; not fused yet", ROUND)
FLOOR = _elementwise("Floor", "floor", accepts=_FLOATS, onnx="Floor")
CEIL = _elementwise("Ceil", "ceil", accepts=_FLOATS, onnx="Ceil")
# `x ^ True` on bools: numpy's `~` of a bool scalar takes 300 ns, its `^` of two 12 (the
# test of a loop's or an unrolled loop's `break` flag, once an iteration).
LOGICAL_NOT = _elementwise("LogicalNot", "logical_not", lambda a, attrs: f"({a[0]} ^ true_)",
                           accepts=_BOOLS, onnx="Not", expression_globals={"true_": np.True_})
# Python's `&`, `|`, `^`, `~`, `<<`, `>>` on integers (on bools the logical ops above run).
_INTEGERS = frozenset(d for d in dtypes.ALL if d.is_integer)
BITWISE_AND = _elementwise("BitwiseAnd", "bitwise_and", _binary("{} & {}"), accepts=_INTEGERS,
                           onnx="BitwiseAnd")
BITWISE_OR = _elementwise("BitwiseOr", "bitwise_or", _binary("{} | {}"), accepts=_INTEGERS,
                          onnx="BitwiseOr")
BITWISE_XOR = _elementwise("BitwiseXor", "bitwise_xor", _binary("{} ^ {}"), accepts=_INTEGERS,
                           onnx="BitwiseXor")
INVERT = _elementwise("Invert", "invert", lambda a, attrs: f"(~{a[0]})", accepts=_INTEGERS,
                      onnx="BitwiseNot")
# No expression: numpy's shift ufuncs give 0 (or -1) for counts past the width, `<<` on scalars too.
LEFT_SHIFT = _elementwise("LeftShift", "left_shift", accepts=_INTEGERS)
RIGHT_SHIFT = _elementwise("RightShift", "right_shift", accepts=_INTEGERS)


# numpy's arithmetic on two bool arrays: logic for + and * (and their extremes), else numbers
# of the dtype numpy gives (subtract is numpy's TypeError)
_LOGIC_OF_BOOLS = {"add": LOGICAL_OR, "multiply": LOGICAL_AND, "maximum": LOGICAL_OR,
                   "minimum": LOGICAL_AND, "fmax": LOGICAL_OR, "fmin": LOGICAL_AND}
_NUMBERS_OF_BOOLS = {"divide": dtypes.float64, "true_divide": dtypes.float64,
                     "floordiv": dtypes.int8, "floor_divide": dtypes.int8, "mod": dtypes.int8,
                     "remainder": dtypes.int8, "fmod": dtypes.int8, "pow": dtypes.int8,
                     "power": dtypes.int8}


def _binary_op(opdef, x, y, name, strings=False):
    """Arithmetic on two operands of one numeric dtype (strings too when `strings`); weak if
    both operands are (see runtime.core.tensor_conversion). On bools as numpy computes it (two
    Python bools' stand-ins as Python's ints: `True + True` is 2)."""
    weak = weak_result(x, y)
    x, y = binary_operands(x, y, name)
    if x.dtype.is_bool and (weak or name in _NUMBERS_OF_BOOLS):
        dtype = dtypes.int64 if weak else _NUMBERS_OF_BOOLS[name]
        x, y = cast(x, dtype), cast(y, dtype)
    elif x.dtype.is_bool and name in _LOGIC_OF_BOOLS:
        return apply(_LOGIC_OF_BOOLS[name], [x, y])
    _refuse_complex(opdef, x.dtype, name)
    if x.dtype not in _NUMBERS | _COMPLEX and not (strings and x.dtype is dtypes.string):
        raise argument_error(
            TypeError,
            f"{name} does not accept {x.dtype.name} tensors; use rt.cast(x, rt.int32) (or "
            "another numeric dtype) first.",
        )
    result = apply(opdef, [x, y])
    if weak:
        result.weak = True
    return result


def _refuse_complex(opdef, dtype, name):
    """Complex tensors, eagerly as in graphs, only where the op's declaration takes them."""
    if dtype.is_complex and dtype not in (opdef.elementwise.accepts if opdef.elementwise else ()):
        raise argument_error(
            TypeError,
            f"{name} does not take complex tensors ({dtype.name}); on complex "
            "values rt computes +, -, *, /, negative, abs, real, imag, conj and "
            "angle.",
        )


def _compare_op(opdef, x, y, name, string_opdef=None):
    known = _compared_past_the_dtype(opdef, x, y)
    if known is not None:
        return known
    weak = weak_result(x, y)  # (two Python numbers' comparison: a Python bool's stand-in)
    x, y = _widened_for_python_ints(x, y), _widened_for_python_ints(y, x)
    x, y = binary_operands(x, y, name)
    _refuse_complex(opdef, x.dtype, name)
    if x.dtype.is_string:
        if string_opdef is None:
            raise argument_error(
                TypeError, f"{name} does not accept string tensors (only equal and not_equal do)."
            )
        opdef = string_opdef
    result = apply(opdef, [x, y])
    if weak:
        result.weak = True
    return result


_MIRRORED = {"Less": "Greater", "LessEqual": "GreaterEqual", "Greater": "Less",
             "GreaterEqual": "LessEqual", "Equal": "Equal", "NotEqual": "NotEqual"}
_INT64 = np.iinfo(np.int64)


def _compared_past_the_dtype(opdef, x, y):
    """A comparison of an integer tensor with a Python int past int64, as numpy computes it
    (exactly, where converting the int would fail): every item compares the same way, so the
    result is a constant of the tensor's shape. None for every other comparison (an int within
    int64 widens the tensor: `_widened_for_python_ints`)."""
    if is_python_int(x) and isinstance(y, Tensor):
        x, y, kind = y, x, _MIRRORED[opdef.name]  # `big < t` is `t > big`
    else:
        kind = opdef.name
    if not (isinstance(x, Tensor) and x.dtype.is_integer and is_python_int(y)) or (
            _INT64.min <= y <= _INT64.max):
        return None
    holds = {"Equal": False, "NotEqual": True}.get(kind, (y > 0) == kind.startswith("Less"))
    return cast(ones_like(x) if holds else zeros_like(x), dtypes.bool_)


def _widened_for_python_ints(x, other):
    """`x` cast up to int64 where it is compared with a Python int its dtype cannot hold, or
    with the stand-in of one (`i < n`, `i` a loop counter of int64, `n` an int32 tensor): numpy
    compares a Python int with any integer exactly, where narrowing the counter would need a
    check of its range on every comparison."""
    if not (isinstance(x, Tensor) and not x.weak and x.dtype.is_integer):
        return x
    if isinstance(other, Tensor) and other.weak and other.dtype.is_integer and (
            x.dtype.itemsize < other.dtype.itemsize):
        return apply(CAST, [x], {"dtype": other.dtype})
    if is_python_int(other) and not python_scalar_fits(other, x.dtype):
        return apply(CAST, [x], {"dtype": dtypes.int64})  # (past int64: _compared_past_...)
    return x


def _unary_op(opdef, x, accepts, name):
    x = convert_to_tensor(x)
    allowed, kind = accepts
    if opdef is ABS and x.dtype.is_complex:
        opdef = COMPLEX_ABS
    _refuse_complex(opdef, x.dtype, name)
    if not allowed(x.dtype):
        raise argument_error(
            TypeError, f"{name} needs {kind} tensor, got {x.dtype.name}; use rt.cast(x, ...) first."
        )
    result = apply(opdef, [x])
    if x.weak and opdef in _KEEP_WEAK:
        result.weak = True
    return result


# `-x` and `abs(x)` of a Python scalar are Python scalars: they stay weak.
_KEEP_WEAK = frozenset({NEG, ABS})
_NUMERIC = (lambda d: not d.is_string and not d.is_bool, "a numeric")
_FLOATING = (lambda d: d.is_floating, "a float")
_BOOL = (lambda d: d.is_bool, "a bool")


def _named(name, fn, what):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"rt.{name}: {what}."
    return fn


def _arithmetic(name, opdef, strings=False):
    return _named(name, lambda x, y: _binary_op(opdef, x, y, name, strings),
                  "elementwise, numpy broadcasting")


def _comparison(name, opdef, string_opdef=None):
    return _named(name, lambda x, y: _compare_op(opdef, x, y, name, string_opdef),
                  "elementwise comparison, a bool tensor")


def _logical(name, opdef):
    return _named(name, lambda x, y: apply(opdef, _bool_operands(x, y, name)),
                  "elementwise on bool tensors")


def _unary(name, opdef, accepts):
    return _named(name, lambda x: _unary_op(opdef, x, accepts, name), "elementwise")


def _bool_operands(x, y, name):
    x, y = binary_operands(x, y, name)
    if not x.dtype.is_bool:
        raise argument_error(
            TypeError, f"{name} needs bool tensors, got {x.dtype.name}; compare first (x > 0)."
        )
    return x, y


add = _arithmetic("add", ADD, strings=True)
subtract = _arithmetic("subtract", SUB)
multiply = _arithmetic("multiply", MUL)
divide = _arithmetic("divide", DIV)
floordiv = _arithmetic("floordiv", FLOORDIV)
mod = _arithmetic("mod", MOD)
pow = _arithmetic("pow", POW)  # noqa: A001 - TensorFlow's name
maximum = _arithmetic("maximum", MAXIMUM)
minimum = _arithmetic("minimum", MINIMUM)

equal = _comparison("equal", EQUAL, STRING_EQUAL)
not_equal = _comparison("not_equal", NOT_EQUAL, STRING_NOT_EQUAL)
less = _comparison("less", LESS)
less_equal = _comparison("less_equal", LESS_EQUAL)
greater = _comparison("greater", GREATER)
greater_equal = _comparison("greater_equal", GREATER_EQUAL)

logical_and = _logical("logical_and", LOGICAL_AND)
logical_or = _logical("logical_or", LOGICAL_OR)
logical_xor = _logical("logical_xor", LOGICAL_XOR)
logical_not = _unary("logical_not", LOGICAL_NOT, _BOOL)


def _bitwise(name, opdef, logical_opdef=None):
    """Python's `&`-style operator: on integer tensors the bitwise op; on bools the logical
    one (`logical_opdef`); floats are refused, as numpy does."""

    def bitwise(x, y):
        weak = weak_result(x, y)
        x, y = binary_operands(x, y, name)
        if x.dtype.is_bool and logical_opdef is not None:
            return apply(logical_opdef, [x, y])
        if not x.dtype.is_integer:
            raise argument_error(
                TypeError,
                f"{name} takes integer (or bool) tensors, not {x.dtype.name}, as "
                "numpy's; use rt.cast(x, rt.int32) first.",
            )
        result = apply(opdef, [x, y])
        if weak:
            result.weak = True
        return result

    return _named(name, bitwise, "elementwise, numpy broadcasting")


bitwise_and = _bitwise("bitwise_and", BITWISE_AND, LOGICAL_AND)
bitwise_or = _bitwise("bitwise_or", BITWISE_OR, LOGICAL_OR)
bitwise_xor = _bitwise("bitwise_xor", BITWISE_XOR, LOGICAL_XOR)
left_shift = _bitwise("left_shift", LEFT_SHIFT)
right_shift = _bitwise("right_shift", RIGHT_SHIFT)


def invert(x):
    """`~x`: bitwise not of an integer tensor, logical not of a bool one (as numpy's)."""
    x = convert_to_tensor(x)
    if x.dtype.is_bool:
        return apply(LOGICAL_NOT, [x])
    if not x.dtype.is_integer:
        raise argument_error(
            TypeError,
            f"invert (~) takes integer (or bool) tensors, not {x.dtype.name}, as "
            "numpy's; use rt.cast(x, rt.int32) first.",
        )
    result = apply(INVERT, [x])
    if x.weak:
        result.weak = True
    return result

negative = _unary("negative", NEG, _NUMERIC)
abs = _unary("abs", ABS, _NUMERIC)  # noqa: A001 - TensorFlow's name
sign = _unary("sign", SIGN, _NUMERIC)
exp = _unary("exp", EXP, _FLOATING)
log = _unary("log", LOG, _FLOATING)
sqrt = _unary("sqrt", SQRT, _FLOATING)
square = _unary("square", SQUARE, _NUMERIC)
sin = _unary("sin", SIN, _FLOATING)
cos = _unary("cos", COS, _FLOATING)
tanh = _unary("tanh", TANH, _FLOATING)
sigmoid = _unary("sigmoid", SIGMOID, _FLOATING)
relu = _unary("relu", RELU, _NUMERIC)
round = _unary("round", ROUND, _NUMERIC)  # noqa: A001 - TensorFlow's name
floor = _unary("floor", FLOOR, _FLOATING)
ceil = _unary("ceil", CEIL, _FLOATING)


# ---- numpy's other math functions ------------------------------------------------------------
# The ufuncs numpy code calls by name, each one op declared as its ufunc (kernel, FUSED, NUMBA
# and JAX rules follow; ONNX from `onnx=` or onnx/rules.py), with numpy's dtypes: a function of
# floats takes integer and bool tensors as the float dtype numpy's loops cast them to.

LOG1P = _elementwise("Log1p", "log1p", accepts=_FLOATS, exact=False)
EXPM1 = _elementwise("Expm1", "expm1", accepts=_FLOATS, exact=False)
LOG2 = _elementwise("Log2", "log2", accepts=_FLOATS, exact=False)
LOG10 = _elementwise("Log10", "log10", accepts=_FLOATS, exact=False)
EXP2 = _elementwise("Exp2", "exp2", accepts=_FLOATS, exact=False)
CBRT = _elementwise("Cbrt", "cbrt", accepts=_FLOATS, exact=False)
TAN = _elementwise("Tan", "tan", accepts=_FLOATS, onnx="Tan", exact=False)
ARCSIN = _elementwise("Asin", "arcsin", accepts=_FLOATS, onnx="Asin", exact=False)
ARCCOS = _elementwise("Acos", "arccos", accepts=_FLOATS, onnx="Acos", exact=False)
ARCTAN = _elementwise("Atan", "arctan", accepts=_FLOATS, onnx="Atan", exact=False)
SINH = _elementwise("Sinh", "sinh", accepts=_FLOATS, onnx="Sinh", exact=False)
COSH = _elementwise("Cosh", "cosh", accepts=_FLOATS, onnx="Cosh", exact=False)
ARCSINH = _elementwise("Asinh", "arcsinh", accepts=_FLOATS, onnx="Asinh", exact=False)
ARCCOSH = _elementwise("Acosh", "arccosh", accepts=_FLOATS, onnx="Acosh", exact=False)
ARCTANH = _elementwise("Atanh", "arctanh", accepts=_FLOATS, onnx="Atanh", exact=False)
# numba multiplies by another rounding of pi / 180 than numpy's loops
DEG2RAD = _elementwise("Deg2Rad", "deg2rad", accepts=_FLOATS, exact=False)
RAD2DEG = _elementwise("Rad2Deg", "rad2deg", accepts=_FLOATS, exact=False)
RINT = _elementwise("Rint", "rint", accepts=_FLOATS, onnx="Round")  # both: half to even
RECIPROCAL = _elementwise("Reciprocal", "reciprocal", accepts=_FLOATS, onnx="Reciprocal")
TRUNC = _elementwise("Trunc", "trunc", accepts=_NUMBERS)  # integers: themselves, as numpy's
SIGNBIT = _predicate("Signbit", "signbit", accepts=_FLOATS)
IS_NAN = _predicate("IsNan", "isnan")  # integers and bools: never nan, never infinite
IS_INF = _predicate("IsInf", "isinf")
IS_FINITE = _predicate("IsFinite", "isfinite")
ARCTAN2 = _elementwise("Atan2", "arctan2", accepts=_FLOATS, exact=False)
HYPOT = _elementwise("Hypot", "hypot", accepts=_FLOATS, exact=False)
LOGADDEXP = _elementwise("LogAddExp", "logaddexp", accepts=_FLOATS, exact=False)
COPYSIGN = _elementwise("CopySign", "copysign", accepts=_FLOATS)
HEAVISIDE = _elementwise("Heaviside", "heaviside", accepts=_FLOATS)
FMOD = _elementwise("Fmod", "fmod", accepts=_NUMBERS)  # C's remainder: the sign of `x1`
FMAX = _elementwise("Fmax", "fmax", accepts=_NUMBERS)  # a nan loses to a number
FMIN = _elementwise("Fmin", "fmin", accepts=_NUMBERS)


def _as_float(opdef, x, name):
    """`x` as numpy's float functions take it: a float tensor as it is, an integer or bool one
    cast to the float dtype numpy's loops use (int32, int64: float64; int16: float32; int8,
    uint8, bool: float16)."""
    if x.dtype.is_floating:
        return x
    _refuse_complex(opdef, x.dtype, name)
    if x.dtype.is_string or x.dtype.is_list:
        raise argument_error(
            TypeError, f"{name} takes numeric tensors, not {x.dtype.name}, as numpy's does."
        )
    return cast(x, dtypes.from_numpy(np.promote_types(x.dtype.np_dtype, np.float16)))


def _float_unary(name, opdef, what):
    return _named(name, lambda x: apply(opdef, [_as_float(opdef, convert_to_tensor(x), name)]),
                  what)


def _float_binary(name, opdef, what):
    def function(x1, x2):
        weak = weak_result(x1, x2)
        x1, x2 = binary_operands(x1, x2, name)
        result = apply(opdef, [_as_float(opdef, x1, name), _as_float(opdef, x2, name)])
        if weak:
            result.weak = True
        return result

    return _named(name, function, what)


def _classify(name, opdef, what):
    """isnan and its kin: any numeric or bool tensor, a bool tensor."""
    def function(x):
        x = convert_to_tensor(x)
        _refuse_complex(opdef, x.dtype, name)
        if x.dtype.is_string or x.dtype.is_list:
            raise argument_error(
                TypeError, f"{name} takes numeric tensors, not {x.dtype.name}, as numpy's does."
            )
        return apply(opdef, [x])

    return _named(name, function, what)


log1p = _float_unary("log1p", LOG1P, "log(1 + x), accurate for small x")
expm1 = _float_unary("expm1", EXPM1, "exp(x) - 1, accurate for small x")
log2 = _float_unary("log2", LOG2, "the base-2 logarithm")
log10 = _float_unary("log10", LOG10, "the base-10 logarithm")
exp2 = _float_unary("exp2", EXP2, "2 ** x")
cbrt = _float_unary("cbrt", CBRT, "the cube root (negative for negative x)")
tan = _float_unary("tan", TAN, "the tangent")
arcsin = _float_unary("arcsin", ARCSIN, "the inverse sine, in [-pi/2, pi/2]")
arccos = _float_unary("arccos", ARCCOS, "the inverse cosine, in [0, pi]")
arctan = _float_unary("arctan", ARCTAN, "the inverse tangent, in [-pi/2, pi/2]")
sinh = _float_unary("sinh", SINH, "the hyperbolic sine")
cosh = _float_unary("cosh", COSH, "the hyperbolic cosine")
arcsinh = _float_unary("arcsinh", ARCSINH, "the inverse hyperbolic sine")
arccosh = _float_unary("arccosh", ARCCOSH, "the inverse hyperbolic cosine")
arctanh = _float_unary("arctanh", ARCTANH, "the inverse hyperbolic tangent")
deg2rad = _float_unary("deg2rad", DEG2RAD, "degrees to radians")
rad2deg = _float_unary("rad2deg", RAD2DEG, "radians to degrees")
rint = _float_unary("rint", RINT, "the nearest integer, halves to even, as floats")
signbit = _float_unary("signbit", SIGNBIT, "whether the sign bit is set (-0.0 too), a bool "
                       "tensor")
trunc = _unary("trunc", TRUNC, _NUMERIC)
trunc.__doc__ = "rt.trunc: the integer part, rounded toward zero (integers stay integers)."
absolute = _unary("absolute", ABS, _NUMERIC)
absolute.__doc__ = "rt.absolute: numpy's name of rt.abs."
isnan = _classify("isnan", IS_NAN, "whether each element is nan, a bool tensor")
isinf = _classify("isinf", IS_INF, "whether each element is infinite, a bool tensor")
isfinite = _classify("isfinite", IS_FINITE, "whether each element is neither infinite nor nan, a "
                     "bool tensor")
arctan2 = _float_binary("arctan2", ARCTAN2, "the angle of the point (x2, x1), in [-pi, pi]")
hypot = _float_binary("hypot", HYPOT, "sqrt(x1**2 + x2**2), without overflow in the squares")
logaddexp = _float_binary("logaddexp", LOGADDEXP, "log(exp(x1) + exp(x2)), without overflow")
copysign = _float_binary("copysign", COPYSIGN, "the magnitude of x1 with the sign of x2")
heaviside = _float_binary("heaviside", HEAVISIDE, "the step function: 0 for x1 < 0, 1 for "
                          "x1 > 0, x2 where x1 is 0 (nan for nan)")
fmod = _arithmetic("fmod", FMOD)
fmod.__doc__ = "rt.fmod: C's remainder of x1 / x2 (the sign of x1), numpy broadcasting."
fmax = _arithmetic("fmax", FMAX)
fmax.__doc__ = "rt.fmax: the elementwise maximum, where a nan loses to a number."
fmin = _arithmetic("fmin", FMIN)
fmin.__doc__ = "rt.fmin: the elementwise minimum, where a nan loses to a number."
power = _arithmetic("power", POW)
power.__doc__ = "rt.power: numpy's name of rt.pow, x1 ** x2 with numpy broadcasting."
remainder = _arithmetic("remainder", MOD)
remainder.__doc__ = "rt.remainder: x1 - floor(x1 / x2) * x2 (the sign of x2), as Python's %."
true_divide = _arithmetic("true_divide", DIV)
true_divide.__doc__ = "rt.true_divide: numpy's name of rt.divide (integers give float64)."
floor_divide = _arithmetic("floor_divide", FLOORDIV)
floor_divide.__doc__ = "rt.floor_divide: numpy's name of rt.floordiv, x1 // x2."


def reciprocal(x):
    """rt.reciprocal: 1 / x of a float tensor."""
    x = convert_to_tensor(x)
    _refuse_complex(RECIPROCAL, x.dtype, "reciprocal")
    if not x.dtype.is_floating:
        raise argument_error(
            TypeError,
            f"reciprocal takes float tensors, not {x.dtype.name}: numpy's reciprocal of integers "
            "rounds toward zero (0 for all but 1 and -1, undefined for 0); write 1 / x for the "
            "float reciprocal, or rt.cast(x, rt.float64) first.",
        )
    return apply(RECIPROCAL, [x])


# ---- ops with attrs or special shapes -------------------------------------------------------

def _where_kernel(cond, x, y):
    return normalize(np.where(cond, x, y))


def _where_expression(names, attrs, inputs):
    """np.where itself where its result is an array (of rank 1 or more: the kernel makes a 0-d
    result a scalar)."""
    shape = shapes.broadcast(*(t.shape for t in inputs))
    return f"np_where_({', '.join(names)})" if len(shape) else None


WHERE = define_op(
    "Select",
    infer=lambda inputs: [(inputs[1].dtype, shapes.broadcast(*(t.shape for t in inputs)))],
    kernel=_where_kernel,
    groups=[ELEMENTWISE],
    typed_expression=_where_expression,
    expression_globals={"np_where_": np.where},
)
lacks(FUSED, "np.where picks between operands: not a ufunc step yet", WHERE)


WHERE_INDICES = define_op(
    "Where",
    infer=lambda inputs: [(dtypes.int64, (None, inputs[0].ndim))],
    kernel=lambda cond: np.argwhere(cond).astype(np.int64),
)


def where(condition, x=None, y=None):
    """Elements of `x` where `condition` is true, else of `y` (broadcast like numpy). Without
    `x` and `y`: the int64 coordinates of the true elements, one row each."""
    condition = convert_to_tensor(condition)
    if not condition.dtype.is_bool:
        raise argument_error(
            TypeError, f"where: condition must be bool, got {condition.dtype.name}."
        )
    if x is None and y is None:
        return apply(WHERE_INDICES, [condition])
    if x is None or y is None:
        raise argument_error(ValueError, "where: pass both x and y, or neither.")
    x, y = binary_operands(x, y, "where")
    return apply(WHERE, [condition, x, y])


try:
    from numpy._core import umath as _umath
except ImportError:  # (numpy 1)
    from numpy.core import umath as _umath  # type: ignore[no-redef]
# numpy's clip ufunc, which np.clip of both bounds calls: unlike a minimum of a maximum, it keeps
# x where x ties with a bound (the sign of a zero) when the bounds stay put as its loop steps
# (scalars, a column's bound along a row); called on the promoted operands it picks as np.clip
# on the user's does (checked on 686 cases of shapes and casts; some tiny ones that numpy casts,
# a 2x2 x with 2x1 bounds, it steps through otherwise)
_clip_ufunc = _umath.clip  # type: ignore[attr-defined]


def _clip_kernel(x, lo, hi):
    return normalize(_clip_ufunc(x, lo, hi))


CLIP = define_op(
    "ClipByValue",
    infer=lambda inputs: [(inputs[0].dtype, shapes.broadcast(*(t.shape for t in inputs)))],
    kernel=_clip_kernel,
    groups=[ELEMENTWISE],
)
lacks(FUSED, "three operands (a minimum of a maximum): not fused yet", CLIP)


def clip_by_value(t, clip_value_min, clip_value_max):
    """`t` with values below `clip_value_min` or above `clip_value_max` replaced by them."""
    t = convert_to_tensor(t)
    t, lo = binary_operands(t, clip_value_min, "clip_by_value")
    t, hi = binary_operands(t, clip_value_max, "clip_by_value")
    if lo.dtype is not t.dtype:  # a Python float upper bound made an integer `t` float32
        lo = cast(lo, t.dtype)
    if t.dtype.is_bool or t.dtype.is_string:
        raise argument_error(TypeError, f"clip_by_value does not accept {t.dtype.name} tensors.")
    return apply(CLIP, [t, lo, hi])


def _matmul_infer(inputs):
    a, b = inputs
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise argument_error(
            InvalidArgumentError,
            f"matmul needs tensors of rank >= 2, got shapes {list(a.shape)} and {list(b.shape)}",
        )
    k1, k2 = a.shape[-1], b.shape[-2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise argument_error(
            InvalidArgumentError,
            f"matmul: inner dimensions differ: {list(a.shape)} @ {list(b.shape)}",
        )  # (matmul itself says so first, with the shapes the user gave)
    batch = shapes.broadcast(a.shape[:-2], b.shape[:-2])
    return [(a.dtype, batch + (a.shape[-2], b.shape[-1]))]


MATMUL = define_op(
    "MatMul", infer=_matmul_infer, kernel=np.matmul, expression=_binary("{} @ {}"),
    groups=[FRESH_OUTPUT],
)


def _check_inner_dims(a, b, transpose_a, transpose_b) -> None:
    """The located error for operands whose inner dims are known and differ, eagerly and while
    tracing, naming the shapes the user gave."""
    if not a.ndim or not b.ndim:
        return
    k1 = a.shape[-2] if transpose_a and a.ndim >= 2 else a.shape[-1]
    k2 = b.shape[0] if b.ndim == 1 else b.shape[-1] if transpose_b else b.shape[-2]
    if k1 is None or k2 is None or k1 == k2:
        return
    fix = ("; if one is stored transposed, use rt.transpose, or matmul's transpose_a / "
           "transpose_b" if a.ndim >= 2 and b.ndim >= 2 else "")
    raise argument_error(InvalidArgumentError, with_origin(
        f"matmul: inner dimensions differ: {list(a.shape)} @ {list(b.shape)} (the first has "
        f"{k1} columns, the second {k2} rows){fix}", user_origin(3)))


def matmul(a, b, transpose_a=False, transpose_b=False):
    """Matrix product of the last two axes (batched over leading axes, which broadcast);
    `transpose_a` / `transpose_b` swap the last two axes of an operand first. A 1-D operand is
    a vector, as in numpy's `@` (a dim is added for the product, then removed)."""
    a, b = binary_operands(a, b, "matmul")
    _check_inner_dims(a, b, transpose_a, transpose_b)
    if (a.ndim == 1 or b.ndim == 1) and a.ndim and b.ndim and not (transpose_a or transpose_b):
        product = matmul(array_ops.expand_dims(a, 0) if a.ndim == 1 else a,
                         array_ops.expand_dims(b, 1) if b.ndim == 1 else b)
        if a.ndim == 1:
            product = array_ops.squeeze(product, [-2])
        return array_ops.squeeze(product, [-1]) if b.ndim == 1 else product
    if a.ndim < 2 or b.ndim < 2:
        raise argument_error(InvalidArgumentError, with_origin(
            f"matmul needs tensors of rank >= 2, got shapes {list(a.shape)} and "
            f"{list(b.shape)}; use rt.expand_dims or rt.reshape to add the missing axis.",
            user_origin(2),
        ))
    if a.dtype.is_bool or a.dtype.is_string:
        raise argument_error(
            TypeError, f"matmul does not accept {a.dtype.name} tensors; use rt.cast first."
        )
    if transpose_a:
        a = array_ops.transpose(a, _swap_last_two(a.ndim))
    if transpose_b:
        b = array_ops.transpose(b, _swap_last_two(b.ndim))
    return apply(MATMUL, [a, b])


def _swap_last_two(rank):
    return (*range(rank - 2), rank - 1, rank - 2)


def _softmax_kernel(x, *, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


SOFTMAX = define_op(
    "Softmax",
    infer=lambda inputs, *, axis: [(inputs[0].dtype, inputs[0].shape)],
    kernel=_softmax_kernel,
)


def softmax(logits, axis=None):
    """exp(logits) normalised to sum to 1 along `axis` (default: the last)."""
    axis = -1 if axis is None else int(axis)
    logits = convert_to_tensor(logits)
    if not logits.dtype.is_floating:
        raise argument_error(TypeError, f"softmax needs a float tensor, got {logits.dtype.name}.")
    shapes.static_check(shapes.normalize_axis, axis, max(logits.ndim, 1), "softmax")
    return apply(SOFTMAX, [logits], {"axis": axis})


# ---- gradients ---------------------------------------------------------------------------------
# Each rule takes the op (inputs, attrs, outputs) and the gradients of its outputs, and returns
# the gradients of its inputs (None where there is none); see runtime/autodiff.

def _zeros(like):
    return zeros_like(like)


def _binary_gradient(gradient_a, gradient_b):
    """A rule for `a op b` from the gradients before summing over broadcast axes."""
    def rule(op, grads):
        a, b = op.inputs
        g = grads[0]
        return [array_ops.sum_to(gradient_a(g, a, b, op.outputs[0]), a),
                array_ops.sum_to(gradient_b(g, a, b, op.outputs[0]), b)]
    return rule


def _log_where_positive(a):
    positive = greater(a, 0)
    return where(positive, log(where(positive, a, _ones_like(a))), _zeros(a))


def _ones_like(x):
    return ones_like(x)


register_rules(GRADIENT, {
    ADD: _binary_gradient(lambda g, a, b, y: g, lambda g, a, b, y: g),
    SUB: _binary_gradient(lambda g, a, b, y: g, lambda g, a, b, y: -g),
    MUL: _binary_gradient(lambda g, a, b, y: g * b, lambda g, a, b, y: g * a),
    DIV: _binary_gradient(lambda g, a, b, y: g / b, lambda g, a, b, y: -(g * a / (b * b))),
    POW: _binary_gradient(lambda g, a, b, y: g * b * pow(a, b - 1),
                          lambda g, a, b, y: g * y * _log_where_positive(a)),
    MAXIMUM: _binary_gradient(lambda g, a, b, y: where(greater_equal(a, b), g, _zeros(g)),
                              lambda g, a, b, y: where(greater_equal(a, b), _zeros(g), g)),
    MINIMUM: _binary_gradient(lambda g, a, b, y: where(less_equal(a, b), g, _zeros(g)),
                              lambda g, a, b, y: where(less_equal(a, b), _zeros(g), g)),
    MOD: _binary_gradient(lambda g, a, b, y: g, lambda g, a, b, y: -g * floordiv(a, b)),
    NEG: lambda op, grads: [-grads[0]],
    ABS: lambda op, grads: [grads[0] * sign(op.inputs[0])],
    EXP: lambda op, grads: [grads[0] * op.outputs[0]],
    LOG: lambda op, grads: [grads[0] / op.inputs[0]],
    SQRT: lambda op, grads: [grads[0] / (op.outputs[0] * 2.0)],
    SQUARE: lambda op, grads: [grads[0] * (op.inputs[0] * 2.0)],
    SIN: lambda op, grads: [grads[0] * cos(op.inputs[0])],
    COS: lambda op, grads: [-(grads[0] * sin(op.inputs[0]))],
    TANH: lambda op, grads: [grads[0] * (1.0 - op.outputs[0] * op.outputs[0])],
    SIGMOID: lambda op, grads: [grads[0] * op.outputs[0] * (1.0 - op.outputs[0])],
    RELU: lambda op, grads: [where(greater(op.inputs[0], 0), grads[0], _zeros(grads[0]))],
    # piecewise constant: zero almost everywhere (as JAX; TensorFlow gives None for some)
    SIGN: lambda op, grads: [_zeros(grads[0])],
    ROUND: lambda op, grads: [_zeros(grads[0])],
    FLOOR: lambda op, grads: [_zeros(grads[0])],
    CEIL: lambda op, grads: [_zeros(grads[0])],
    WHERE: lambda op, grads: [
        None,
        array_ops.sum_to(where(op.inputs[0], grads[0], _zeros(grads[0])), op.inputs[1]),
        array_ops.sum_to(where(op.inputs[0], _zeros(grads[0]), grads[0]), op.inputs[2])],
})
lacks(GRADIENT, "piecewise constant: no gradient (as in TensorFlow)", FLOORDIV)
lacks(GRADIENT, "bool results", EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL,
      STRING_EQUAL, STRING_NOT_EQUAL, LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR, LOGICAL_NOT)
lacks(GRADIENT, "integer results (coordinates)", WHERE_INDICES)
lacks(GRADIENT, "integer results", BITWISE_AND, BITWISE_OR, BITWISE_XOR, INVERT, LEFT_SHIFT,
      RIGHT_SHIFT)


def _first_wins(a, b, wins):
    """Where `fmax`/`fmin` pick `a`: it wins the comparison, or `b` is nan."""
    return logical_or(wins(a, b), isnan(b))


def _zero_gradient(op, grads):
    return [_zeros(grads[0])]


# numpy's other math functions (x the input, y the output)
register_rules(GRADIENT, {
    LOG1P: lambda op, grads: [grads[0] / (op.inputs[0] + 1.0)],
    EXPM1: lambda op, grads: [grads[0] * (op.outputs[0] + 1.0)],
    LOG2: lambda op, grads: [grads[0] / (op.inputs[0] * math.log(2.0))],
    LOG10: lambda op, grads: [grads[0] / (op.inputs[0] * math.log(10.0))],
    EXP2: lambda op, grads: [grads[0] * (op.outputs[0] * math.log(2.0))],
    CBRT: lambda op, grads: [grads[0] / (op.outputs[0] * op.outputs[0] * 3.0)],
    TAN: lambda op, grads: [grads[0] * (op.outputs[0] * op.outputs[0] + 1.0)],
    ARCSIN: lambda op, grads: [grads[0] / sqrt(1.0 - op.inputs[0] * op.inputs[0])],
    ARCCOS: lambda op, grads: [-(grads[0] / sqrt(1.0 - op.inputs[0] * op.inputs[0]))],
    ARCTAN: lambda op, grads: [grads[0] / (op.inputs[0] * op.inputs[0] + 1.0)],
    SINH: lambda op, grads: [grads[0] * cosh(op.inputs[0])],
    COSH: lambda op, grads: [grads[0] * sinh(op.inputs[0])],
    ARCSINH: lambda op, grads: [grads[0] / sqrt(op.inputs[0] * op.inputs[0] + 1.0)],
    ARCCOSH: lambda op, grads: [grads[0] / sqrt(op.inputs[0] * op.inputs[0] - 1.0)],
    ARCTANH: lambda op, grads: [grads[0] / (1.0 - op.inputs[0] * op.inputs[0])],
    DEG2RAD: lambda op, grads: [grads[0] * (math.pi / 180.0)],
    RAD2DEG: lambda op, grads: [grads[0] * (180.0 / math.pi)],
    RECIPROCAL: lambda op, grads: [-(grads[0] * op.outputs[0] * op.outputs[0])],
    # piecewise constant: zero almost everywhere
    RINT: _zero_gradient,
    TRUNC: _zero_gradient,
    ARCTAN2: _binary_gradient(lambda g, a, b, y: g * b / (a * a + b * b),
                              lambda g, a, b, y: -(g * a / (a * a + b * b))),
    HYPOT: _binary_gradient(lambda g, a, b, y: g * a / y, lambda g, a, b, y: g * b / y),
    LOGADDEXP: _binary_gradient(lambda g, a, b, y: g * exp(a - y),
                                lambda g, a, b, y: g * exp(b - y)),
    COPYSIGN: _binary_gradient(lambda g, a, b, y: where(equal(signbit(a), signbit(b)), g, -g),
                               lambda g, a, b, y: _zeros(g)),
    HEAVISIDE: _binary_gradient(lambda g, a, b, y: _zeros(g),
                                lambda g, a, b, y: where(equal(a, 0.0), g, _zeros(g))),
    # x1 - trunc(x1 / x2) * x2, as JAX differentiates it
    FMOD: _binary_gradient(lambda g, a, b, y: g, lambda g, a, b, y: -(g * trunc(a / b))),
    FMAX: _binary_gradient(
        lambda g, a, b, y: where(_first_wins(a, b, greater_equal), g, _zeros(g)),
        lambda g, a, b, y: where(_first_wins(a, b, greater_equal), _zeros(g), g)),
    FMIN: _binary_gradient(
        lambda g, a, b, y: where(_first_wins(a, b, less_equal), g, _zeros(g)),
        lambda g, a, b, y: where(_first_wins(a, b, less_equal), _zeros(g), g)),
})
lacks(GRADIENT, "bool results", SIGNBIT, IS_NAN, IS_INF, IS_FINITE)


@register_rule(GRADIENT, CLIP)
def _clip_gradient(op, grads):
    x, lo, hi = op.inputs
    g, zero = grads[0], _zeros(grads[0])
    above = logical_or(greater(x, hi), greater(lo, hi))  # (lo > hi: every result is hi)
    below = logical_and(less(x, lo), logical_not(above))
    inside = logical_not(logical_or(below, above))
    return [array_ops.sum_to(where(inside, g, zero), x),
            array_ops.sum_to(where(below, g, zero), lo),
            array_ops.sum_to(where(above, g, zero), hi)]


@register_rule(GRADIENT, MATMUL)
def _matmul_gradient(op, grads):
    a, b = op.inputs
    g = grads[0]
    return [array_ops.sum_to(matmul(g, b, transpose_b=True), a),
            array_ops.sum_to(matmul(a, g, transpose_a=True), b)]


@register_rule(GRADIENT, SOFTMAX)
def _softmax_gradient(op, grads):
    y, g = op.outputs[0], grads[0]
    return [y * (g - reduction_ops.reduce_sum(g * y, op.attrs["axis"], keepdims=True))]
