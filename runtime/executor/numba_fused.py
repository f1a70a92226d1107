"""The NUMBA rule of `FusedReduction` (an elementwise chain that a float sum or mean of all its
elements reads, fused by the fusion pass; runtime/ops/fused_ops.py): one loop that computes the
chain an element at a time and sums as it goes, so no array is made and the sum runs in SIMD
lanes.

Not numpy's bits (numba_exactness says so, and `auto` keeps such a graph on the default
executor): the elements are summed in blocks of numba_helpers.SUM_BLOCK in the array's dtype,
each block by LLVM's vector loop (partial sums in lanes, joined at the end: the only float
operation allowed to reassociate), and the blocks' sums in numpy's pairwise order. That is
numpy's accuracy class (a few partial sums of under a hundred terms, then halves joined in
pairs; numpy's leaves have eight running sums of 16 terms), checked in
tests/runtime/test_numba_fused.py. Each
element's chain is computed as the unfused ops' NUMBA rules compute it: the fusion pass gives
numba only float chains of ops whose rule is their ufunc (`FUSION`), and the loop applies the
same ufuncs on the same operand dtypes (a Python number takes the dtype of the other operand,
as numpy's weak scalars do), each value rounded to its step's dtype, in a function of its own,
compiled without fast-math flags, which LLVM inlines keeping its exact operations.
"""

from __future__ import annotations

import hashlib

from runtime.core import dtypes
from runtime.executor import numba_helpers
from runtime.ops import math_ops
from runtime.ops.fused_ops import FUSED_REDUCTION
from runtime.ops.registry import NUMBA, register_rules
from runtime.passes.fusion import Mode

# Ops whose NUMBA rule computes a float value as their FUSED steps do, though written out:
# Python's operators on floats are the ufuncs (`x * x` is np.square), and sigmoid is its steps
# in their order.
_AS_STEPS = frozenset({math_ops.ADD, math_ops.SUB, math_ops.MUL, math_ops.DIV, math_ops.NEG,
                       math_ops.SQUARE, math_ops.SIGMOID})
_FLOATS = (dtypes.float32, dtypes.float64)


def _computes_as_steps(op) -> bool:
    """Whether numba's loop computes `op`, a member of a chain a sum reads, as its unfused NUMBA
    rule does: its values are float32 or float64 (integer steps need the rules' corrections:
    numba's fmod, int8 division and INT_MIN % -1 differ from numpy's) and its rule is its
    ufunc, `np.<ufunc>(...)`, or computes as its steps (_AS_STEPS); others (maximum's signs of
    zeros and NaNs...) stay unfused, in their own rules."""
    return all(t.dtype in _FLOATS for t in (*op.inputs, *op.outputs)) and (
        op.opdef.rule(NUMBA) is not None  # (an op numba does not lower stays, and says so)
        and (op.opdef.rules.get(NUMBA) is None or op.opdef in _AS_STEPS))


# The chains the fusion pass fuses for numba: only float chains a sum reads, of such ops
FUSION = Mode(elementwise=False, reductions=True, reduces=_computes_as_steps)


def _fused_reduction(op, a, typed):
    attrs = op.attrs
    helper = _helpers(attrs["program"], attrs["slot_dtypes"], attrs["result"],
                      attrs["array_inputs"], tuple(t.dtype.name for t in op.inputs),
                      attrs["reduce"])
    return f"{helper}({', '.join(a)})"


def _helpers(program, slot_dtypes, result, array_inputs, input_dtypes, reduce) -> str:
    """The name of the helper that computes the fused reduction, generated (numba_helpers)
    with the two it calls: the chain on one element of each array (`ITEM`), and the vector loop
    that sums it over a block of them (`BLOCK`). Arrays are `x<i>`, scalars `in<i>`."""
    params = ", ".join(f"in{i}" for i in range(len(array_inputs)))
    values = [f"x{i}" if is_array else f"in{i}" for i, is_array in enumerate(array_inputs)]
    first, dtype = values[array_inputs.index(True)], _np(slot_dtypes[result])
    operand_dtypes = {("in", i): d for i, d in enumerate(input_dtypes)}
    item = [f"def ITEM({params}):"]
    for name, args, dest in program:
        other = next(operand_dtypes[(kind, v)] for kind, v in args if kind != "lit")
        operands = ", ".join(f"{_np(other)}({v!r})" if kind == "lit" else
                             f"in{v}" if kind == "in" else f"s{v}" for kind, v in args)
        item.append(f"    s{dest} = {_np(slot_dtypes[dest])}(np.{name}({operands}))")
        operand_dtypes[("slot", dest)] = slot_dtypes[dest]
    item.append(f"    return s{result}")
    items = ", ".join(f"{v}[j]" if v[0] == "x" else v for v in values)
    block = [f"def BLOCK({', '.join(values)}):",
             f"    total = {dtype}(0.0)",
             f"    for j in range({first}.shape[0]):",
             f"        total += ITEM({items})",
             "    return total"]
    sliced = ", ".join(f"{v}[lo:hi]" if v[0] == "x" else v for v in values)
    size = numba_helpers.SUM_BLOCK
    fused = [f"def FUSED({params}):",
             *(f"    {v} = np.ascontiguousarray(in{v[1:]}).reshape(-1)"
               for v in values if v[0] == "x"),
             f"    n = {first}.shape[0]",
             f"    blocks = (n + {size - 1}) // {size}",
             f"    parts = np.empty(blocks, {dtype})",
             "    for b in range(blocks):",
             f"        lo = b * {size}",
             f"        hi = min(lo + {size}, n)",
             f"        parts[b] = BLOCK({sliced})",
             f"    total = {dtype}(0.0) + pairwise_sum_(parts, 0, blocks, {dtype}(0.0))",
             # (np.mean divides by the count as an int64, and rounds to the sum's dtype)
             f"    return {dtype}(total / np.int64(n))" if reduce == "mean" else "    return total"]
    sources = {word: "\n".join(lines) + "\n"
               for word, lines in (("ITEM", item), ("BLOCK", block), ("FUSED", fused))}
    digest = hashlib.sha256("".join(sources.values()).encode()).hexdigest()[:12]
    names = {word: f"fused_{word.lower()}_{digest}_" for word in sources}

    def named(source):
        for word, name in names.items():
            source = source.replace(f"{word}(", f"{name}(")
        return source

    numba_helpers.generate(names["ITEM"], named(sources["ITEM"]))
    # (the block's sum alone may reassociate: into the vector loop's lanes)
    numba_helpers.generate(names["BLOCK"], named(sources["BLOCK"]), fastmath="{'reassoc'}")
    numba_helpers.generate(names["FUSED"], named(sources["FUSED"]))
    return names["FUSED"]


def _np(dtype_name: str) -> str:
    return "np.bool_" if dtype_name == "bool" else f"np.{dtype_name}"


register_rules(NUMBA, {FUSED_REDUCTION: _fused_reduction})
