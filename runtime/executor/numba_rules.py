"""The NUMBA rules: each op as an expression that numba's `njit` compiles.

An op declared as a numpy ufunc (`Elementwise.ufunc`, see ops/math_ops.py) is that ufunc,
`np.<ufunc>(...)`; the table at the end registers the rules of the other ops (and of the
ufuncs written otherwise) against the op objects, and lists the ops without one, each with its
reason; the rules of reductions are in numba_reductions, of data movement, shapes and filled
arrays in numba_array_rules, of staged lists in numba_lists, of a chain fused into its sum in
numba_fused (this module imports them, so importing it registers every rule). Results equal
the default executor's bit for bit except where numba_exactness says they may differ (LLVM's
math functions, numba's BLAS, float sums in another order, signs of zero extrema). Scalar
results are converted to the op's dtype (numba computes integer scalars in int64) and numbers
in expressions are typed constants of the op's dtype.
"""

from __future__ import annotations

from runtime import variables
from runtime.core import dtypes
from runtime.errors import NoLoweringError, with_origin
from runtime.executor import (
    numba_array_rules,  # noqa: F401 - registers its rules
    numba_fused,  # noqa: F401 - registers its rule
    numba_helpers,
    numba_lists,
    numba_reductions,
)
from runtime.executor.numba_expressions import as_output_dtype, numpy_name
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
from runtime.ops.fused_ops import FUSED_ELEMENTWISE
from runtime.ops.op_support import cannot_lower
from runtime.ops.registry import CONST, NUMBA, PLACEHOLDER, derive_rules, lacks, register_rules


def _operator(template):
    return lambda op, a, typed: as_output_dtype(op, template.format(*a))


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
    out = numpy_name(op.outputs[0].dtype)
    if op.outputs[0].dtype.is_floating:
        a = [(f"{out}({x})" if len(t.shape) == 0 else f"{x}.astype({out})")
             if not t.dtype.is_floating else x for x, t in zip(a, op.inputs)]
    return _real_operator("({} / {})")(op, a, typed)


def _function(name):
    return lambda op, a, typed: as_output_dtype(op, f"{name}({', '.join(a)})")


def _ufunc(opdef):
    """The NUMBA rule of an op declared as a numpy ufunc: `np.<ufunc>(...)`, which numba
    compiles as numpy computes it."""
    ufunc = opdef.elementwise and opdef.elementwise.ufunc
    return _function(f"np.{ufunc}") if ufunc else None


def _sigmoid(op, a, typed):
    one = typed(1, op.outputs[0].dtype)
    return as_output_dtype(op, f"({one} / ({one} + np.exp(-{a[0]})))")


def _fmod(op, a, typed):
    """numba's np.fmod of integers reads their bits as unsigned (numba 0.68: fmod(-5, 3) is 2):
    signed integers take the remainder of their magnitudes (right, INT_MIN's too) with x1's
    sign; unsigned ones are their own magnitudes."""
    dtype = op.outputs[0].dtype
    if dtype.is_floating or dtype.np_dtype.kind == "u":
        return as_output_dtype(op, f"np.fmod({a[0]}, {a[1]})")
    return as_output_dtype(op, f"(np.sign({a[0]}) * np.fmod(np.abs({a[0]}), np.abs({a[1]})))")


def _floor_division(op, a, typed):
    """`a // b`; of int64 scalars, numba gives 0 for INT_MIN // -1 where numpy wraps to INT_MIN:
    a divisor of -1 negates, in uint64, which wraps. (Narrower integers are divided in int64,
    which holds their INT_MIN // -1; of int64 arrays numba_exactness says it may differ.)"""
    dtype = op.outputs[0].dtype
    if dtype is not dtypes.int64 or len(op.outputs[0].shape):
        return as_output_dtype(op, f"({a[0]} // {a[1]})")
    return (f"(np.int64(np.uint64(0) - np.uint64({a[0]})) if {a[1]} == -1 "
            f"else np.int64({a[0]} // {a[1]}))")


def _sign(op, a, typed):
    """numba's np.sign of unsigned integers reads their top bit as a sign (sign(np.uint8(200))
    is 255): theirs is whether they are above 0."""
    dtype = op.outputs[0].dtype
    if dtype.np_dtype.kind != "u":
        return as_output_dtype(op, f"np.sign({a[0]})")
    if len(op.outputs[0].shape):
        return f"({a[0]} > 0).astype({numpy_name(dtype)})"
    return f"{numpy_name(dtype)}({a[0]} > 0)"


def _power(op, a, typed):
    """Floats only: numpy refuses an integer to a negative integer power, numba's np.power
    would give a number."""
    if not op.outputs[0].dtype.is_floating:
        raise NoLoweringError(with_origin(
            f"jit_compile='numba' does not lower an integer {op.type}: numpy refuses negative "
            "exponents of integers, numba's power would give a number. Use floats, or the "
            "default executor.", op.origin))
    return as_output_dtype(op, f"np.power({a[0]}, {a[1]})")


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
            return as_output_dtype(op, f"np.{ufunc}({a[0]}, {a[1]})")
        return as_output_dtype(op, _chosen(op, a[0], a[1], compare, a[1] if skips_nan else a[0]))
    return rule


def _relu(op, a, typed):
    """np.maximum(x, 0), as the kernel: -0.0 gives 0.0."""
    zero = typed(0, op.outputs[0].dtype)
    if not op.outputs[0].dtype.is_floating:
        return as_output_dtype(op, f"np.maximum({a[0]}, {zero})")
    return as_output_dtype(op, _chosen(op, a[0], zero, ">", a[0]))


def _clip(op, a, typed):
    """numpy's clip ufunc, as the kernel, NaNs propagated (x's first, then lo's, then hi's). Of
    floats that tie with a bound (the sign of a zero) numpy's loop keeps x when both bounds are
    scalars; of array bounds it takes the bound (as maximum and minimum do) unless they stay put
    as it steps (a column's bound along a row, a broadcast view), which their shapes do not
    tell: not exact (clip_ties_known)."""
    if not op.outputs[0].dtype.is_floating:
        return as_output_dtype(op, f"np.minimum(np.maximum({a[0]}, {a[1]}), {a[2]})")
    at_least, at_most = (">=", "<=") if _scalar_bounds(op) else (">", "<")
    raised = _chosen(op, a[0], a[1], at_least, a[0])
    return as_output_dtype(
        op, f"(lambda r_: {_chosen(op, 'r_', a[2], at_most, 'r_')})({raised})")


def _scalar_bounds(op) -> bool:
    return all(len(t.shape) == 0 for t in op.inputs[1:])


def clip_ties_known(op) -> bool:
    """Whether `_clip` knows which of two tied floats numpy's clip loop of `op` returns: when
    both bounds are scalars."""
    return _scalar_bounds(op)


def _select(op, a, typed):
    if len(op.outputs[0].shape) == 0 and all(len(t.shape) == 0 for t in op.inputs):
        return f"({a[1]} if {a[0]} else {a[2]})"
    return f"np.where({a[0]}, {a[1]}, {a[2]})"


def _cast(op, a, typed):
    target = numpy_name(op.attrs["dtype"])
    if len(op.outputs[0].shape) == 0:
        return f"{target}({a[0]})"
    return f"{a[0]}.astype({target})"


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
        return f"int_matmul_({a[0]}, {a[1]}).astype({numpy_name(dtype)})"
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


def _assert(op, a, typed):
    """A statement on one line (the op has no outputs): numba raises with constant arguments
    only, so the error carries the op's name, and the caller raises the assertion's own error
    at its line (see _failing_ops)."""
    holds = a[0] if len(op.inputs[0].shape) == 0 else f"np.all({a[0]})"
    return f"if not {holds}: raise AssertionError({op.name!r})"


# The ops whose numba code raises a ValueError where the kernel fails (see _failing_ops), when
# the predicate says it may.
MAY_RAISE_VALUE_ERROR = {
    # a max (min, argmax, argmin) of nothing: numpy's ValueError, numba's
    **dict.fromkeys((reduction_ops.MAX, reduction_ops.MIN, reduction_ops.ARGMAX,
                     reduction_ops.ARGMIN), numba_reductions.may_be_empty),
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
            return f"{numpy_name(dtype)}({call}))"
        size = "(" + "".join(f"{d}, " for d in shape) + ")"
        return f"{call}, size={size}).astype({numpy_name(dtype)})"

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
    math_ops.FLOORDIV: _floor_division,
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
    math_ops.SIGN: _sign,  # so is this one, for unsigned integers
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
    math_ops.MATMUL: _matmul,  # of floats not exact (numba's BLAS)
    selection_ops.BINCOUNT: _bincount,
    array_ops.IDENTITY: lambda op, a, typed: (  # (an array's copy, as the kernel's)
        f"{a[0]}.copy()" if len(op.inputs[0].shape) and not op.inputs[0].dtype.is_list else a[0]),
    array_ops.STOP_GRADIENT: lambda op, a, typed: a[0],
    io_ops.ASSERT: _assert,
    **numba_lists.RULES,  # staged lists: numba's lists
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
      list_ops.LIST_SPLIT_AT, list_ops.LIST_SPLIT_LIKE, list_ops.LIST_CAST)
lacks(NUMBA, "not lowered yet: its shape and parameters are tensors, checked when the graph "
      "runs (random numbers with a static shape are)", random_ops.DYNAMIC_UNIFORM,
      random_ops.DYNAMIC_NORMAL)
lacks(NUMBA, "variables are Python objects, which numba cannot read or write", variables.READ,
      variables.ASSIGN, variables.ASSIGN_ADD, variables.ASSIGN_SUB)
lacks(NUMBA, "made by the fusion pass for the default executor only: numba fuses elementwise "
      "chains itself (jit_compile='auto' keeps a graph so fused on the default executor)",
      FUSED_ELEMENTWISE)
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
