"""Which graphs numba computes bit for bit as the default executor does: the gate of
`jit_compile="auto"` (runtime/executor/tiering.py) and what `rt.explain` reports.

Not exact: the math functions declared not exact (exp, log, sin, cos, tanh, sigmoid: numba takes
them from LLVM's math library, numpy from its own: a few ulp; `**` of arrays, whose numpy loop
rounds otherwise than the C library's pow that scalars get in both), float matmul (numba's BLAS
comes through SciPy), softmax (an exp and a sum), float (and complex) sums and means (numba adds
in another order than numpy's pairwise sums, except of a 1-d float array, which
`numba_reductions.pairwise` adds in numpy's order; a fused chain's sum adds in SIMD lanes,
numba_fused), max and min reductions of floats (the sign of a zero result), a float clip of
array bounds (numpy's loop keeps x or takes the bound where they tie, by how it steps through
them), float16 (numba has none), and every op without a NUMBA rule.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.executor import (
    codegen,
    numba_rules,  # noqa: F401 - registers the NUMBA rules read here
)
from runtime.executor.numba_reductions import FLOAT_SUMS, pairwise
from runtime.ops import math_ops, reduction_ops
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.fused_ops import FUSED_REDUCTION
from runtime.ops.registry import CONST, NUMBA, PLACEHOLDER


def exact(opdef) -> bool:
    """Whether numba computes `opdef` bit for bit as numpy does: not a math function declared
    not exact (LLVM's math library, not numpy's: a few ulp), not matmul (numba's BLAS; integer
    matmul is exact: see lowers_exactly) and not softmax (LLVM's exp, and a sum). Float (and
    complex) sums and means are not exact either (FLOAT_SUMS)."""
    return opdef not in (math_ops.MATMUL, math_ops.SOFTMAX) and (
        opdef.elementwise is None or opdef.elementwise.exact)


def lowers_exactly(graph) -> bool:
    """Whether numba computes every op of `graph` bit for bit as the default executor does
    (each op `exact`, no float or complex sum, no float max or min reduction, and a NUMBA rule
    for each op)."""
    return next(not_lowered_exactly(graph), None) is None


def why_not_lowered_exactly(graph) -> str | None:
    """The first op of `graph` that numba does not compute bit for bit, at the user's line, and
    why ("Tanh op 'tanh_3', line 12: numba's Tanh may differ ..."); None when there is none."""
    for op, why in not_lowered_exactly(graph):
        line = f", line {op.origin.lineno}" if op.origin is not None else ""
        return f"{op.type} op '{op.name}'{line}: {why}"
    return None


def not_lowered_exactly(graph):
    """(op, why) for each op of `graph` that numba does not compute bit for bit as the default
    executor does (see lowers_exactly)."""
    appends = {id(push) for op in graph.walk() if op.opdef is WHILE
               for push in codegen.append_only(op).values()}  # (the emitter writes them)
    for op in graph.walk():
        if id(op) in appends:
            continue
        if any(t.dtype is dtypes.float16 for t in (*op.inputs, *op.outputs)):
            yield op, FLOAT16
            continue
        if op.opdef in (PLACEHOLDER, CONST, IF, WHILE):
            continue
        if op.opdef.rule(NUMBA) is None:
            yield op, op.opdef.lacking.get(NUMBA, "numba does not lower it")
        elif not exact(op.opdef) and not (
                op.opdef is math_ops.MATMUL and op.outputs[0].dtype.is_integer) and not (
                _scalar_float_power(op)):
            yield op, f"numba's {op.type} may differ from numpy's in the last bits"
        elif _int64_arrays_divided(op):
            yield op, "numba's INT_MIN // -1 of int64 arrays is 0, numpy's wraps to INT_MIN"
        elif op.opdef is FUSED_REDUCTION:
            yield op, "numba's loop sums the fused chain in SIMD lanes, not in numpy's order"
        elif op.opdef in FLOAT_SUMS and _inexact_sum(op.inputs[0].dtype) and not pairwise(op):
            yield op, "numba adds in another order than numpy's pairwise sum"
        elif op.opdef in FLOAT_EXTREMA and op.inputs[0].dtype.is_floating:
            yield op, "the sign of a zero result may differ from numpy's"
        elif (op.opdef is math_ops.CLIP and op.inputs[0].dtype.is_floating
              and not numba_rules.clip_ties_known(op)):
            yield op, ("numpy's clip of array bounds keeps x or takes the bound where they tie "
                       "(the sign of a zero) by how its loop steps through them")


FLOAT16 = "numba has no float16 (cast to float32 first)"


def _scalar_float_power(op) -> bool:
    """Whether `op` is a Pow of float scalars: the default executor computes it with numpy
    scalars' `**`, the C library's pow, which numba calls too (checked: the same bits on 200,000
    pairs of float32 and of float64, signed zeros, infinities and NaN included); np.power of
    arrays is numpy's own loop, which rounds some results otherwise."""
    return op.opdef is math_ops.POW and all(
        len(t.shape) == 0 and t.dtype.is_floating for t in (*op.inputs, *op.outputs))


def _int64_arrays_divided(op) -> bool:
    """Whether `op` floor-divides int64 arrays by a divisor that may be -1 (one not a constant;
    numba_rules._floor_division gets scalars right)."""
    if op.opdef is not math_ops.FLOORDIV or op.outputs[0].dtype is not dtypes.int64 or not len(
            op.outputs[0].shape):
        return False
    divisor = op.inputs[1]
    return divisor.op.opdef is not CONST or bool(np.any(np.asarray(
        divisor.op.attrs["value"]) == -1))


def _inexact_sum(dtype) -> bool:
    return dtype.is_floating or dtype.is_complex


# Max and min of floats: of 0.0 and -0.0, numba's keep the first, numpy's (in SIMD lanes) may
# give the other, so the sign of a zero result may differ.
FLOAT_EXTREMA = frozenset({reduction_ops.MAX, reduction_ops.MIN})
