"""The NUMBA rule of `FusedReduction` (an elementwise chain that a float sum or mean of all its
elements reads, fused by the fusion pass; runtime/ops/fused_ops.py): one loop that computes the
chain an element at a time and sums as it goes, so no array is made and the sum runs in SIMD
lanes.

Not numpy's bits (numba_exactness says so, and `auto` keeps such a graph on the default
executor): the elements are summed in blocks of `BLOCK` in the array's dtype, each block by
LLVM's vector loop (partial sums in lanes, joined at the end: the only float operation allowed
to reassociate), and the blocks' sums in numpy's pairwise order. That is numpy's accuracy class
(a few partial sums of under a hundred terms, then halves joined in pairs; numpy's leaves have
eight running sums of 16 terms), checked in tests/runtime/test_numba_fused.py. Each
element's chain is computed as the default executor's steps compute it: the same ufuncs on the
same operand dtypes (a Python number takes the dtype of the other operand, as numpy's weak
scalars do), each value rounded to its step's dtype; they run in a function of their own,
compiled without fast-math flags, which LLVM inlines keeping its exact operations.
"""

from __future__ import annotations

import functools
import hashlib

from runtime.executor import numba_helpers
from runtime.ops.fused_ops import FUSED_REDUCTION
from runtime.ops.op_support import cannot_lower
from runtime.ops.registry import FUSED, NUMBA, REGISTRY, register_rules

# Elements summed by one vector loop: small enough that each lane's running sum adds few terms,
# big enough that the loop's start and the blocks' pairwise sum cost little (1e6 float32s:
# 80 us against numpy's 310 for `np.mean((a - b) ** 2)`).
BLOCK = numba_helpers.SUM_BLOCK


@functools.cache
def _lowered_ufuncs() -> frozenset:
    """The ufunc names of FUSED steps numba computes: those of ops with a NUMBA rule."""
    return frozenset(step[0] for opdef in REGISTRY.values()
                     if opdef.rule(FUSED) is not None and opdef.rule(NUMBA) is not None
                     for step in opdef.rule(FUSED))


def _fused_reduction(op, a, typed):
    attrs = op.attrs
    for name, _, _ in attrs["program"]:
        if name not in _lowered_ufuncs():
            raise cannot_lower(op, f"numba does not lower np.{name}, a step of this fused chain")
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
    fused = [f"def FUSED({params}):",
             *(f"    {v} = np.ascontiguousarray(in{v[1:]}).reshape(-1)"
               for v in values if v[0] == "x"),
             f"    n = {first}.shape[0]",
             f"    blocks = (n + {BLOCK - 1}) // {BLOCK}",
             f"    parts = np.empty(blocks, {dtype})",
             "    for b in range(blocks):",
             f"        lo = b * {BLOCK}",
             f"        hi = min(lo + {BLOCK}, n)",
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
