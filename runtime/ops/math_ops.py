"""Elementwise math, comparisons, logic, `where`, `cast` and `matmul`."""

from __future__ import annotations

import operator

import numpy as np

from runtime import dtypes
from runtime.conversion import binary_operands, convert_to_tensor
from runtime.errors import InvalidArgumentError
from runtime.ops import shapes
from runtime.ops.registry import ELEMENTWISE, apply, define_op
from runtime.tensor import normalize


def _result_dtype(kernel, *input_dtypes):
    """The dtype numpy gives for `kernel` on these dtypes (tried on one-element arrays)."""
    if any(d.is_string for d in input_dtypes):
        return dtypes.string
    samples = [np.ones(1, dtype=d.np_dtype) for d in input_dtypes]
    with np.errstate(all="ignore"):
        return dtypes.from_numpy(kernel(*samples).dtype)


def _elementwise(name, kernel, emit=None, dtype=None):
    """Defines an elementwise op with numpy broadcasting; `dtype` fixes the output dtype."""

    def infer(inputs):
        out_dtype = dtype or _result_dtype(kernel, *(t.dtype for t in inputs))
        return [(out_dtype, shapes.broadcast(*(t.shape for t in inputs)))]

    return define_op(name, infer=infer, kernel=kernel, groups=[ELEMENTWISE], emit=emit)


def _binary(expr):
    return lambda a, attrs: "(" + expr.format(*a) + ")"


# operator.add, unlike np.add, also concatenates strings (bytes and object arrays of bytes).
ADD = _elementwise("Add", operator.add, _binary("{} + {}"))
SUB = _elementwise("Sub", np.subtract, _binary("{} - {}"))
MUL = _elementwise("Mul", np.multiply, _binary("{} * {}"))
DIV = _elementwise("RealDiv", np.true_divide, _binary("{} / {}"))
FLOORDIV = _elementwise("FloorDiv", np.floor_divide, _binary("{} // {}"))
MOD = _elementwise("FloorMod", np.mod, _binary("{} % {}"))
POW = _elementwise("Pow", np.power, _binary("{} ** {}"))
MAXIMUM = _elementwise("Maximum", np.maximum)
MINIMUM = _elementwise("Minimum", np.minimum)

EQUAL = _elementwise("Equal", np.equal, _binary("{} == {}"), dtypes.bool_)
NOT_EQUAL = _elementwise("NotEqual", np.not_equal, _binary("{} != {}"), dtypes.bool_)
LESS = _elementwise("Less", np.less, _binary("{} < {}"), dtypes.bool_)
LESS_EQUAL = _elementwise("LessEqual", np.less_equal, _binary("{} <= {}"), dtypes.bool_)
GREATER = _elementwise("Greater", np.greater, _binary("{} > {}"), dtypes.bool_)
GREATER_EQUAL = _elementwise("GreaterEqual", np.greater_equal, _binary("{} >= {}"), dtypes.bool_)
LOGICAL_AND = _elementwise("LogicalAnd", np.logical_and, dtype=dtypes.bool_)
LOGICAL_OR = _elementwise("LogicalOr", np.logical_or, dtype=dtypes.bool_)
LOGICAL_XOR = _elementwise("LogicalXor", np.logical_xor, dtype=dtypes.bool_)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _relu(x):
    return np.maximum(x, 0)


NEG = _elementwise("Neg", np.negative, lambda a, attrs: f"(-{a[0]})")
ABS = _elementwise("Abs", np.abs)
SIGN = _elementwise("Sign", np.sign)
EXP = _elementwise("Exp", np.exp)
LOG = _elementwise("Log", np.log)
SQRT = _elementwise("Sqrt", np.sqrt)
SQUARE = _elementwise("Square", np.square)
SIN = _elementwise("Sin", np.sin)
COS = _elementwise("Cos", np.cos)
TANH = _elementwise("Tanh", np.tanh)
SIGMOID = _elementwise("Sigmoid", _sigmoid)
RELU = _elementwise("Relu", _relu)
ROUND = _elementwise("Round", np.round)
FLOOR = _elementwise("Floor", np.floor)
CEIL = _elementwise("Ceil", np.ceil)
LOGICAL_NOT = _elementwise("LogicalNot", np.logical_not, dtype=dtypes.bool_)


def _binary_op(opdef, x, y, name):
    x, y = binary_operands(x, y, name)
    return apply(opdef, [x, y])


def _unary_op(opdef, x, allowed=None):
    x = convert_to_tensor(x)
    if allowed is not None and not allowed(x.dtype):
        raise TypeError(f"{opdef.name} does not accept {x.dtype.name} tensors; use rt.cast first.")
    return apply(opdef, [x])


def _numeric(d):
    return not d.is_string


def _floating(d):
    return d.is_floating


def add(x, y):
    return _binary_op(ADD, x, y, "add")


def subtract(x, y):
    return _binary_op(SUB, x, y, "subtract")


def multiply(x, y):
    return _binary_op(MUL, x, y, "multiply")


def divide(x, y):
    return _binary_op(DIV, x, y, "divide")


def floordiv(x, y):
    return _binary_op(FLOORDIV, x, y, "floordiv")


def mod(x, y):
    return _binary_op(MOD, x, y, "mod")


def pow(x, y):  # noqa: A001 - TensorFlow's name
    return _binary_op(POW, x, y, "pow")


def maximum(x, y):
    return _binary_op(MAXIMUM, x, y, "maximum")


def minimum(x, y):
    return _binary_op(MINIMUM, x, y, "minimum")


def equal(x, y):
    return _binary_op(EQUAL, x, y, "equal")


def not_equal(x, y):
    return _binary_op(NOT_EQUAL, x, y, "not_equal")


def less(x, y):
    return _binary_op(LESS, x, y, "less")


def less_equal(x, y):
    return _binary_op(LESS_EQUAL, x, y, "less_equal")


def greater(x, y):
    return _binary_op(GREATER, x, y, "greater")


def greater_equal(x, y):
    return _binary_op(GREATER_EQUAL, x, y, "greater_equal")


def _bool_operands(x, y, name):
    x, y = binary_operands(x, y, name)
    if not x.dtype.is_bool:
        raise TypeError(f"{name} needs bool tensors, got {x.dtype.name}; compare first (x > 0).")
    return x, y


def logical_and(x, y):
    return apply(LOGICAL_AND, _bool_operands(x, y, "logical_and"))


def logical_or(x, y):
    return apply(LOGICAL_OR, _bool_operands(x, y, "logical_or"))


def logical_xor(x, y):
    return apply(LOGICAL_XOR, _bool_operands(x, y, "logical_xor"))


def logical_not(x):
    return _unary_op(LOGICAL_NOT, x, lambda d: d.is_bool)


def negative(x):
    return _unary_op(NEG, x, _numeric)


def abs(x):  # noqa: A001 - TensorFlow's name
    return _unary_op(ABS, x, _numeric)


def sign(x):
    return _unary_op(SIGN, x, _numeric)


def exp(x):
    return _unary_op(EXP, x, _floating)


def log(x):
    return _unary_op(LOG, x, _floating)


def sqrt(x):
    return _unary_op(SQRT, x, _floating)


def square(x):
    return _unary_op(SQUARE, x, _numeric)


def sin(x):
    return _unary_op(SIN, x, _floating)


def cos(x):
    return _unary_op(COS, x, _floating)


def tanh(x):
    return _unary_op(TANH, x, _floating)


def sigmoid(x):
    return _unary_op(SIGMOID, x, _floating)


def relu(x):
    return _unary_op(RELU, x, _numeric)


def round(x):  # noqa: A001 - TensorFlow's name
    return _unary_op(ROUND, x, _numeric)


def floor(x):
    return _unary_op(FLOOR, x, _floating)


def ceil(x):
    return _unary_op(CEIL, x, _floating)


# ---- ops with attrs or special shapes -------------------------------------------------------

def _where_kernel(cond, x, y):
    return normalize(np.where(cond, x, y))


WHERE = define_op(
    "Select",
    infer=lambda inputs: [(inputs[1].dtype, shapes.broadcast(*(t.shape for t in inputs)))],
    kernel=_where_kernel,
    groups=[ELEMENTWISE],
)


def where(condition, x, y):
    """Elements of `x` where `condition` is true, else of `y` (broadcast like numpy)."""
    condition = convert_to_tensor(condition)
    if not condition.dtype.is_bool:
        raise TypeError(f"where: condition must be bool, got {condition.dtype.name}.")
    x, y = binary_operands(x, y, "where")
    return apply(WHERE, [condition, x, y])


def _cast_kernel(x, *, dtype):
    return x.astype(dtype.np_dtype)


CAST = define_op(
    "Cast",
    infer=lambda inputs, *, dtype: [(dtype, inputs[0].shape)],
    kernel=_cast_kernel,
    groups=[ELEMENTWISE],
)


def cast(x, dtype):
    """`x` converted to `dtype` (float to int truncates toward zero, like numpy)."""
    x = convert_to_tensor(x)
    dtype = dtypes.as_dtype(dtype)
    if x.dtype is dtype:
        return x
    if x.dtype.is_string or dtype.is_string:
        raise TypeError(f"cast between {x.dtype.name} and {dtype.name} is not supported.")
    return apply(CAST, [x], {"dtype": dtype})


def _clip_kernel(x, lo, hi):
    return normalize(np.minimum(np.maximum(x, lo), hi))


CLIP = define_op(
    "ClipByValue",
    infer=lambda inputs: [(inputs[0].dtype, shapes.broadcast(*(t.shape for t in inputs)))],
    kernel=_clip_kernel,
    groups=[ELEMENTWISE],
)


def clip_by_value(t, clip_value_min, clip_value_max):
    t = convert_to_tensor(t)
    _, lo = binary_operands(t, clip_value_min, "clip_by_value")
    _, hi = binary_operands(t, clip_value_max, "clip_by_value")
    return apply(CLIP, [t, lo, hi])


def _matmul_infer(inputs):
    a, b = inputs
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise InvalidArgumentError(
            f"matmul needs tensors of rank >= 2, got shapes {list(a.shape)} and {list(b.shape)}"
        )
    k1, k2 = a.shape[-1], b.shape[-2]
    if k1 is not None and k2 is not None and k1 != k2:
        raise InvalidArgumentError(
            f"matmul: inner dimensions differ: {list(a.shape)} @ {list(b.shape)}"
        )
    batch = shapes.broadcast(a.shape[:-2], b.shape[:-2])
    return [(a.dtype, batch + (a.shape[-2], b.shape[-1]))]


MATMUL = define_op(
    "MatMul", infer=_matmul_infer, kernel=np.matmul, emit=_binary("{} @ {}")
)


def matmul(a, b):
    """Matrix product of the last two axes (batched over leading axes)."""
    a, b = binary_operands(a, b, "matmul")
    return apply(MATMUL, [a, b])


def _softmax_kernel(x, *, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


SOFTMAX = define_op(
    "Softmax",
    infer=lambda inputs, *, axis: [(inputs[0].dtype, inputs[0].shape)],
    kernel=_softmax_kernel,
)


def softmax(logits, axis=-1):
    logits = convert_to_tensor(logits)
    if not logits.dtype.is_floating:
        raise TypeError(f"softmax needs a float tensor, got {logits.dtype.name}.")
    shapes.normalize_axis(axis, max(len(logits.shape), 1), "softmax")
    return apply(SOFTMAX, [logits], {"axis": axis})
