"""`FusedElementwise`: a chain of elementwise ops run as one kernel over big arrays; and
`FusedReduction`: such a chain that feeds a float sum or mean of all its elements (below).

The fusion pass (runtime/passes/fusion.py) builds it. Its attrs are plain data:
- `program`: steps `(ufunc name, args, destination slot)`, where an arg is `("in", i)` (input
  i), `("slot", j)` (an earlier step's value) or `("lit", number)` (a Python number);
- `slot_dtypes`: the dtype name of each slot; `results`: the slots returned, in output order;
- `array_inputs`: per input, True for an array of `shape`, False for a scalar;
- `shape`: the shape of every array; `block`: elements per block when blocks are shared
  between threads; `specs`: output specs.

The kernel is compiled once per program into Python source (registered in `linecache`, so
tracebacks show it) that runs the steps over blocks of the flattened inputs with `out=` buffers,
writing results straight into the output arrays; intermediates live in an output block or in
scratch buffers reused as soon as a value is dead (in place when possible), so a chain needs
one or two buffers besides its outputs. Fewer temporaries than numpy code written by hand. On
big arrays with an idle core, a helper thread takes blocks too (see `run_blocks`): the second
core is where the kernel beats numpy's single-threaded `out=` code.

Bit-identity: every step is the same numpy ufunc, on the same operand dtypes and in the same
operand order as the unfused op's kernel, and elementwise ufuncs compute each element
independently, so evaluating block by block gives the same bits as whole arrays (the tests check
it against the unfused graph).
"""

from __future__ import annotations

import functools
import itertools
import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from runtime.core.generated_code import compile_function
from runtime.ops.registry import GRADIENT, define_op, lacks

# Elementwise chains on arrays smaller than this stay unfused (the fusion pass), or run as the
# unfused ops would (a fused kernel of unknown shape, given a small array when it runs).
MIN_ELEMENTS = 1 << 15
# Arrays at least this big are shared out block by block between the calling thread and a
# helper thread (numpy releases the GIL inside ufunc loops, so both run at once on two cores),
# but only while another core is idle: a helper thread that has to wait for a core holds up the
# caller (measured: several times slower on a busy machine). Blocks are claimed one at a time.
PARALLEL_MIN_ELEMENTS = 1 << 18
_helper: tuple[int, ThreadPoolExecutor] | None = None  # (process id, pool), made on first use
_loadavg: int | None = None  # an open /proc/loadavg (Linux), read on each big kernel call


def run_blocks(work, size: int, block: int, elements: int | None = None) -> None:
    """Calls `work(claim, block)`, where `claim` yields the start of every block of [0, size)
    once; with an idle core, a helper thread runs `work` on the same claim (`elements`: how
    many array elements the work covers, `size` unless given)."""
    claim = iter(range(0, size, block))
    big = (size if elements is None else elements) >= PARALLEL_MIN_ELEMENTS
    if not big or size <= block or not _idle_core():
        work(claim, block)
        return
    helping = _helper_pool().submit(work, claim, block)
    try:
        work(claim, block)
    finally:
        helping.result()  # the helper may still be writing a block


def _idle_core() -> bool:
    """True if another core looks idle: the 1-minute load average is below the number of cores
    less one half (this process counts for one), and on Linux fewer tasks than cores are
    runnable right now (this thread included); `/proc/loadavg` tells both in 3 µs."""
    global _loadavg
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity else os.cpu_count() or 1
    if cores < 2:
        return False
    if not hasattr(os, "getloadavg"):  # Windows: no load average
        return True
    if _loadavg is None and os.path.exists("/proc/loadavg"):
        _loadavg = os.open("/proc/loadavg", os.O_RDONLY)
    if _loadavg is None:
        return os.getloadavg()[0] < cores - 0.5
    fields = os.pread(_loadavg, 64, 0).split()  # b"0.52 0.31 0.20 1/83 7558"
    return float(fields[0]) < cores - 0.5 and int(fields[3].split(b"/")[0]) < cores


def _helper_pool() -> ThreadPoolExecutor:
    global _helper
    if _helper is None or _helper[0] != os.getpid():  # a forked child has no helper thread
        _helper = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="rt-fused"))
    return _helper[1]


def _fused_kernel(*inputs, program, slot_dtypes, results, array_inputs, shape, block):
    run = compile_program(program, slot_dtypes, results, array_inputs, shape, block)
    return run(*inputs)


FUSED_ELEMENTWISE = define_op(
    "FusedElementwise",
    infer=lambda inputs, *, specs, **attrs: list(specs),
    kernel=_fused_kernel,
    tuple_outputs=True,
)


_file_ids = itertools.count()


@functools.lru_cache(maxsize=512)
def compile_program(program, slot_dtypes, results, array_inputs, shape, block):
    """The Python function (inputs -> tuple of result arrays) that runs `program`."""
    source = program_source(program, slot_dtypes, results, array_inputs, shape, block)
    filename = f"<rt-fused-elementwise #{next(_file_ids)}>"
    namespace = {"np": np, "run_blocks": run_blocks}
    namespace.update({name: getattr(np, name) for name, _, _ in program})
    return compile_function(source, filename, namespace, "fused")


def program_source(program, slot_dtypes, results, array_inputs, shape, block) -> str:
    """The source of `fused(in0, in1, ...)` for a program (see the module docstring). A shape
    with unknown dims (a graph traced for any length) is read from the arrays when it runs:
    arrays of one shape and at least MIN_ELEMENTS elements run block by block, others (small,
    or of shapes that broadcast) as the unfused ops ran, step by step on whole arrays."""
    buffers, scratch_dtypes = _assign_buffers(program, slot_dtypes, results)
    params = [f"in{i}" for i in range(len(array_inputs))]
    lines = [f"def fused({', '.join(params)}):"]
    arrays = [f"in{i}" for i, arr in enumerate(array_inputs) if arr]
    if None in shape:
        lines.append(f"    shape = {arrays[0]}.shape")
        same = "".join(f" or {a}.shape != shape" for a in arrays[1:])
        lines.append(f"    if {arrays[0]}.size < {MIN_ELEMENTS}{same}:")
        lines.append(f"        return whole({', '.join(params)})")
        lines.append(f"    size = {arrays[0]}.size")
        size, shape_text = "size", "shape"
        block_text = f"min({block}, size)"
    else:
        size = math.prod(shape)
        block = max(1, min(block, size))
        shape_text, block_text = repr(tuple(shape)), str(block)
    lines += [f"    x{i} = in{i}.reshape(-1)" for i, arr in enumerate(array_inputs) if arr]
    for k, slot in enumerate(results):
        lines.append(f"    out{k} = np.empty({shape_text}, np.{slot_dtypes[slot]})")
        lines.append(f"    o{k} = out{k}.reshape(-1)")
    lines.append("    def work(claim, block):")
    lines += [f"        {t} = np.empty(block, np.{d})" for t, d in scratch_dtypes.items()]
    lines.append("        for lo in claim:")
    lines.append(f"            hi = min(lo + block, {size})")
    if scratch_dtypes:
        lines.append("            if hi - lo < block:")
        lines.append(f"                {', '.join(scratch_dtypes)}, = "
                     f"{', '.join(f'{t}[:hi - lo]' for t in scratch_dtypes)},")
    lines += [f"            x{i}_ = x{i}[lo:hi]" for i, arr in enumerate(array_inputs) if arr]
    lines += [f"            o{k}_ = o{k}[lo:hi]" for k in range(len(results))]
    for name, args, dest in program:
        operands = ", ".join(_operand(a, buffers, array_inputs) for a in args)
        lines.append(f"            {name}({operands}, out={_view(buffers[dest])})")
    lines.append(f"    run_blocks(work, {size}, {block_text})")
    lines.append(f"    return ({''.join(f'out{k}, ' for k in range(len(results)))})")
    if None in shape:
        lines += ["", "", _whole_source(program, results, params)]
    return "\n".join(lines) + "\n"


def _whole_source(program, results, params) -> str:
    """`whole(in0, ...)`: the steps on whole values, as the unfused ops compute them."""
    lines = [f"def whole({', '.join(params)}):"]
    for name, args, dest in program:
        operands = ", ".join(repr(v) if kind == "lit" else f"in{v}" if kind == "in" else f"s{v}"
                             for kind, v in args)
        lines.append(f"    s{dest} = {name}({operands})")
    lines.append(f"    return ({''.join(f's{slot}, ' for slot in results)})")
    return "\n".join(lines)


def _assign_buffers(program, slot_dtypes, results):
    """Slot -> buffer name, and the dtype name of each scratch buffer.

    A result lives in its output block `o<k>`. An intermediate value goes, in order of
    preference, into an output block whose result is computed no earlier than the value's last
    use (so the block is written once and stays hot in cache), into a dead scratch buffer, or
    into a new scratch buffer `t<n>`. A buffer whose value dies at a step may be that step's
    destination (numpy ufuncs allow exact in-place overlap).
    """
    last_use = {dest: step for step, (_, _, dest) in enumerate(program)}
    for step, (_, args, _) in enumerate(program):
        for kind, value in args:
            if kind == "slot":
                last_use[value] = step
    producer = {dest: step for step, (_, _, dest) in enumerate(program)}
    result_index = {slot: k for k, slot in enumerate(results)}
    busy_until = {f"o{k}": -1 for k in range(len(results))}  # step of the occupant's last use
    buffers: dict[int, str] = {}
    scratch_dtypes: dict[str, str] = {}
    for step, (_, _, dest) in enumerate(program):
        if dest in result_index:
            buffers[dest] = f"o{result_index[dest]}"
            continue
        dtype, end = slot_dtypes[dest], last_use[dest]
        outputs = [f"o{k}" for k, slot in enumerate(results)
                   if slot_dtypes[slot] == dtype and producer[slot] >= end
                   and producer[slot] > step and busy_until[f"o{k}"] <= step]
        free = [t for t, d in scratch_dtypes.items() if d == dtype and busy_until[t] <= step]
        if outputs or free:
            name = (outputs or free)[0]
        else:
            name = f"t{len(scratch_dtypes)}"
            scratch_dtypes[name] = dtype
        busy_until[name] = end
        buffers[dest] = name
    return buffers, scratch_dtypes


def _view(buffer: str) -> str:
    return f"{buffer}_" if buffer.startswith("o") else buffer


def _operand(arg, buffers, array_inputs, view=_view) -> str:
    kind, value = arg
    if kind == "lit":
        return repr(value)
    if kind == "in":
        return f"x{value}_" if array_inputs[value] else f"in{value}"
    return view(buffers[value])


# ---- a chain feeding a sum or mean of all its elements -------------------------------------
# numpy sums a contiguous float array by pairwise summation: [0, n) is split in halves (the
# first rounded down to a multiple of 8) until a part has at most 128 elements. Summing leaves
# of that split with np.add.reduce, and their sums along the split (left + right), gives its
# bits exactly; each leaf's chain then runs on cache-sized blocks, and leaves are shared with a
# helper thread as blocks are. Leaves hold at most this many elements (at least 128, numpy's
# smallest part: below it numpy sums in one unrolled loop, not in halves):
LEAF_ELEMENTS = 1 << 16


def _fused_reduction_kernel(*inputs, program, slot_dtypes, result, array_inputs, shape,
                            reduce):
    run = compile_reduction(program, slot_dtypes, result, array_inputs, shape, reduce)
    return run(*inputs)


FUSED_REDUCTION = define_op(
    "FusedReduction",
    infer=lambda inputs, *, specs, **attrs: list(specs),
    kernel=_fused_reduction_kernel,
    tuple_outputs=True,
)


@functools.lru_cache(maxsize=64)
def pairwise_leaves(size: int, leaf: int) -> tuple[tuple, object]:
    """(the (lo, hi) of each leaf of numpy's pairwise split of [0, size) into parts of at most
    `leaf` elements, in order; the split as a tree: a leaf's index, or a pair of trees)."""
    ranges: list[tuple[int, int]] = []

    def split(lo: int, n: int):
        if n <= leaf:
            ranges.append((lo, lo + n))
            return len(ranges) - 1
        half = n // 2
        half -= half % 8
        return (split(lo, half), split(lo + half, n - half))

    tree = split(0, size)
    return tuple(ranges), tree


def tree_sum(tree, parts):
    """The sum of the leaves' `parts` along the split `tree` (left + right, as numpy adds)."""
    if type(tree) is int:
        return parts[tree]
    return tree_sum(tree[0], parts) + tree_sum(tree[1], parts)


@functools.lru_cache(maxsize=512)
def compile_reduction(program, slot_dtypes, result, array_inputs, shape, reduce):
    """The Python function (inputs -> (sum or mean,)) that runs `program` then `reduce`."""
    source = reduction_source(program, slot_dtypes, result, array_inputs, shape, reduce)
    filename = f"<rt-fused-reduction #{next(_file_ids)}>"
    namespace = {"np": np, "run_blocks": run_blocks, "pairwise_leaves": pairwise_leaves,
                 "tree_sum": tree_sum, "add_reduce": np.add.reduce, "intp": np.intp}
    namespace.update({name: getattr(np, name) for name, _, _ in program})
    return compile_function(source, filename, namespace, "fused")


def reduction_source(program, slot_dtypes, result, array_inputs, shape, reduce) -> str:
    """The source of `fused(in0, ...)`: the program leaf by leaf, each leaf's value of slot
    `result` summed, the sums added along numpy's split; the mean divides by the size as
    np.mean does. Arrays that are small, of other shapes, or not C-contiguous (numpy would sum
    them in their memory order) run as the unfused ops ran."""
    buffers, scratch_dtypes = _assign_buffers(program, slot_dtypes, ())
    params = [f"in{i}" for i in range(len(array_inputs))]
    arrays = [f"in{i}" for i, arr in enumerate(array_inputs) if arr]
    lines = [f"def fused({', '.join(params)}):"]
    first = arrays[0]
    unfused = [f"not {a}.flags.c_contiguous" for a in arrays]
    if None in shape:
        unfused[:0] = [f"{first}.size < {MIN_ELEMENTS}",
                       *(f"{a}.shape != {first}.shape" for a in arrays[1:])]
    lines.append(f"    if {' or '.join(unfused)}:")
    lines.append(f"        return whole({', '.join(params)})")
    lines.append(f"    size = {first}.size")
    lines += [f"    x{i} = in{i}.reshape(-1)" for i, arr in enumerate(array_inputs) if arr]
    lines.append(f"    ranges, tree = pairwise_leaves(size, {LEAF_ELEMENTS})")
    lines.append("    parts = [None] * len(ranges)")
    lines.append("    def work(claim, block):")
    lines += [f"        {t} = np.empty({LEAF_ELEMENTS}, np.{d})"
              for t, d in scratch_dtypes.items()]
    lines.append("        for k in claim:")
    lines.append("            lo, hi = ranges[k]")  # (leaves differ in size: views of each)
    lines += [f"            {t}_ = {t}[:hi - lo]" for t in scratch_dtypes]
    lines += [f"            x{i}_ = x{i}[lo:hi]" for i, arr in enumerate(array_inputs) if arr]
    for name, args, dest in program:
        operands = ", ".join(_operand(a, buffers, array_inputs, lambda b: f"{b}_")
                             for a in args)
        lines.append(f"            {name}({operands}, out={buffers[dest]}_)")
    lines.append(f"            parts[k] = add_reduce({buffers[result]}_)")
    lines.append("    run_blocks(work, len(ranges), 1, size)")
    lines.append("    total = tree_sum(tree, parts)")
    # (np.mean divides by the count as np.intp, then casts back to the sum's dtype)
    lines.append("    return (total.dtype.type(total / intp(size)),)" if reduce == "mean"
                 else "    return (total,)")
    whole = _whole_source(program, (result,), params).splitlines()
    whole[-1] = f"    return (np.{reduce}(s{result}),)"  # (as the Sum and Mean kernels compute)
    return "\n".join(lines + ["", ""] + whole) + "\n"


lacks(GRADIENT, "made by the fusion pass, after gradients are built", FUSED_ELEMENTWISE,
      FUSED_REDUCTION)
