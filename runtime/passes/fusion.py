"""Fusion of elementwise chains on big arrays.

Guarantees after this pass: in every graph and sub-graph, each maximal run of `MIN_OPS` or more
fusable ops that the greedy sweep below can merge is one `FusedElementwise` op
(runtime/ops/fused_ops.py), which evaluates the chain block by block with `out=` buffers; a run
(of any length) whose values only a float Sum or Mean of all the elements of one of them reads
is one `FusedReduction` op with that reduction (`np.mean((a - b) ** 2)`: no array is made).
Which of the two it makes is the executor's `Mode` (runtime/executor/registry.py): numba fuses
elementwise chains itself, and takes only float chains its FusedReduction loop computes as the
unfused ops do (runtime/executor/numba_fused.py); XLA fuses everything itself.

Fusable: an op with a FUSED rule (its ufunc form, registered next to the op) whose output is
an array of at least `MIN_ELEMENTS` elements, or of dims not known while tracing (a graph
relaxed to any length: then the group must read one array from outside, and the kernel checks
its size when it runs, running the steps unfused on small arrays), and whose every input is
either of the output's static shape or a scalar (rank 0). Scalar and small-array code stays on
the fast `a + b` path.

The sweep (in graph order) adds a fusable op to the groups of its inputs' producers that have
its shape and are still open, merging them. A group closes as soon as an op outside it reads
one of its values, so the fused op, placed where its last member was, still comes before every
reader, and no cycle can form (nothing outside depends on an open group).
Values read outside the group become the fused op's outputs; the others live in block-sized
scratch buffers. Results are bit-identical to the unfused ops (see fused_ops.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runtime.core import dtypes
from runtime.core.graph import Graph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops.fused_ops import FUSED_ELEMENTWISE, FUSED_REDUCTION, MIN_ELEMENTS
from runtime.ops.reduction_ops import MEAN, SUM
from runtime.ops.registry import FUSED
from runtime.passes.rewrite import graphs_outer_first, is_pure

# Two-op chains stay unfused: the executor computes the second op in place in the first one's
# fresh buffer (codegen's `out=` reuse), which measured faster than a blockwise kernel (W3b).
MIN_OPS = 3
BLOCK_ELEMENTS = 1 << 17  # per block shared between threads (fused_ops.run_blocks)


@dataclass(frozen=True)
class Mode:
    """Which chains `transform` fuses: `elementwise` ones (FusedElementwise kernels), and
    those a float sum reads (FusedReduction) when `reductions`, of ops that pass `reduces`
    (None: any fusable op)."""
    elementwise: bool
    reductions: bool
    reduces: Callable[[Operation], bool] | None = None


ALL = Mode(True, True)  # the default executor's kernels
NONE = Mode(False, False)  # a compiler that fuses by itself (XLA); a saved graph


class _Group:
    def __init__(self, index: int, shape: tuple):
        self.index = index
        self.shape = shape
        self.members: list[Operation] = []
        self.open = True
        self.reduction: Operation | None = None  # a Sum or Mean of all of its one value read


def transform(graph: Graph, mode: Mode = ALL) -> None:
    """Fuses the chains `mode` names in `graph` and its sub-graphs, in place."""
    for g, _ in graphs_outer_first(graph):
        groups = _find_groups(g, mode)
        if groups:
            _replace_groups(g, groups)


def finds_groups(graph: Graph) -> bool:
    """Whether `transform` would change `graph` (or one of its sub-graphs)."""
    return any(_find_groups(g) for g, _ in graphs_outer_first(graph))


def _fusable(op: Operation) -> bool:
    if op.opdef.rule(FUSED) is None or not is_pure(op) or len(op.outputs) != 1:
        return False
    out = op.outputs[0]
    if len(out.shape) == 0 or out.dtype.is_string or (
            out.shape.is_fully_defined() and _size(out.shape) < MIN_ELEMENTS):
        return False
    return all(
        not t.dtype.is_string and (tuple(t.shape) == tuple(out.shape) or len(t.shape) == 0)
        for t in op.inputs
    )


def _find_groups(graph: Graph, mode: Mode = ALL) -> list[_Group]:
    """The groups of ops to fuse (of `MIN_OPS` or more, when `mode.elementwise`, or read by a
    sum `mode` fuses), each with its members in graph order.

    A group stays open while no op outside it has read its values; so nothing outside depends
    on an open group, and merging open groups (or adding an op to one) cannot make a cycle.
    """
    group_of: dict[int, _Group] = {}  # id(op) -> its group
    position = {id(op): i for i, op in enumerate(graph.operations)}
    groups: list[_Group] = []
    for op in graph.operations:
        group: _Group | None = None
        if _fusable(op):
            shape = tuple(op.outputs[0].shape)
            for t in op.inputs:
                found = group_of.get(id(t.op))
                if found is None or not found.open or found.shape != shape or found is group:
                    continue
                group = found if group is None else _merge(group, found, group_of)
            if group is None:
                group = _Group(len(groups), shape)
                groups.append(group)
            group.members.append(op)
            group_of[id(op)] = group
        for t in op.inputs:  # a group read from outside is closed
            producer = group_of.get(id(t.op))
            if producer is not None and producer is not group:
                producer.open = False
    _find_reductions(graph, group_of)
    for g in groups:
        if g.reduction is not None and not (mode.reductions and (
                mode.reduces is None or all(mode.reduces(op) for op in g.members))):
            g.reduction = None
    fused = [g for g in groups if (
        (mode.elementwise and len(g.members) >= MIN_OPS) or g.reduction is not None) and (
        None not in g.shape or _one_array_input(g))]
    for g in fused:
        g.members.sort(key=lambda op: position[id(op)])
        if g.reduction is not None:
            g.members.append(g.reduction)  # (after its input's producer, the last member)
    return fused


def _find_reductions(graph: Graph, group_of: dict) -> None:
    """Sets `reduction` of each group whose values only a Sum or Mean of all the elements of
    one of them reads (a float array: `np.mean((a - b) ** 2)`): it joins the group's kernel
    (fused_ops.FUSED_REDUCTION), which sums in numpy's order, so the bits are the same."""
    readers: dict[int, list] = {}
    for op in graph.operations:
        for t in op.inputs:
            readers.setdefault(id(t), []).append(op)
    returned = {id(t) for t in graph.outputs}
    for op in graph.operations:
        if op.opdef not in (SUM, MEAN) or op.attrs.get("axis") is not None or op.attrs.get(
                "keepdims") or op.inputs[0].dtype not in (dtypes.float32, dtypes.float64):
            continue
        group = group_of.get(id(op.inputs[0].op))
        if group is None or group.reduction is not None or group.shape != tuple(
                op.inputs[0].shape):
            continue
        values = [m.outputs[0] for m in group.members]
        if all(id(t) not in returned and all(
                group_of.get(id(r)) is group or (r is op and t is op.inputs[0])
                for r in readers.get(id(t), ())) for t in values):
            group.reduction = op


def _one_array_input(group: _Group) -> bool:
    """Whether the group reads one array from outside (the rest are scalars): then its arrays
    all have that array's shape, so the kernel cannot fail where an unfused op would (shapes
    that do not broadcast), which for a shape known only when the graph runs it could not
    rule out; the error would name another line, after the ops between ran."""
    inside = {id(t) for op in group.members for t in op.outputs}
    arrays = {id(t) for op in group.members for t in op.inputs
              if id(t) not in inside and len(t.shape)}
    return len(arrays) <= 1


def _merge(into: _Group, other: _Group, group_of: dict) -> _Group:
    """One group of both; the smaller group's ops move, so merging n ops costs n log n."""
    if len(other.members) > len(into.members):
        into, other = other, into
    for op in other.members:
        group_of[id(op)] = into
    into.members.extend(other.members)
    other.members = []
    return into


def _replace_groups(graph: Graph, groups: list[_Group]) -> None:
    members = {id(op): g for g in groups for op in g.members}
    read_outside = _read_outside(graph, members)
    replaced: dict[int, SymbolicTensor] = {}
    old, graph.operations = graph.operations, []
    for op in old:
        op.inputs = [replaced.get(id(t), t) for t in op.inputs]
        group = members.get(id(op))
        if group is None:
            graph.operations.append(op)
        elif op is group.members[-1]:
            outs = [m.outputs[0] for m in group.members if id(m.outputs[0]) in read_outside]
            fused = _fused_op(graph, group, outs)
            replaced.update((id(t), new) for t, new in zip(outs, fused.outputs))
    graph.outputs = [replaced.get(id(t), t) for t in graph.outputs]


def _read_outside(graph: Graph, members: dict) -> set[int]:
    """Ids of the group members' outputs that an op outside their group (or the graph's
    outputs) reads: these become outputs of the fused ops."""
    found = set()
    readers = [(members.get(id(op)), op.inputs) for op in graph.operations]
    readers.append((None, graph.outputs))
    for reader_group, tensors in readers:
        for t in tensors:
            group = members.get(id(t.op))
            if group is not None and group is not reader_group:
                found.add(id(t))
    return found


def _fused_op(graph: Graph, group: _Group, results: list[SymbolicTensor]) -> Operation:
    reduction = group.reduction
    members = group.members[:-1] if reduction is not None else group.members
    inputs: list[SymbolicTensor] = []
    input_index: dict[int, int] = {}
    slot_of: dict[int, int] = {}  # id(member output) -> slot
    slot_dtypes: list[str] = []
    program = []
    for op in members:
        operands = []
        for t in op.inputs:
            if id(t) in slot_of:
                operands.append(("slot", slot_of[id(t)]))
            else:
                if id(t) not in input_index:
                    input_index[id(t)] = len(inputs)
                    inputs.append(t)
                operands.append(("in", input_index[id(t)]))
        prev = None
        for name, *args in op.opdef.rule(FUSED):
            refs = tuple(_ref(a, operands, prev) for a in args)
            prev = ("slot", len(slot_dtypes))
            slot_dtypes.append(op.outputs[0].dtype.name)
            program.append((name, refs, prev[1]))
        assert prev is not None  # (every fusable op's rule has a step)
        slot_of[id(op.outputs[0])] = prev[1]
    origin = group.members[-1].origin
    if reduction is not None:
        specs = ((reduction.outputs[0].dtype, reduction.outputs[0].shape),)
        attrs: dict[str, Any] = {
            "program": tuple(program),
            "slot_dtypes": tuple(slot_dtypes),
            "result": slot_of[id(reduction.inputs[0])],
            "array_inputs": tuple(len(t.shape) > 0 for t in inputs),
            "shape": group.shape,
            "reduce": "sum" if reduction.opdef is SUM else "mean",
            "specs": specs,
        }
        return graph.create_op(FUSED_REDUCTION, inputs, attrs, list(specs), origin)
    attrs = {
        "program": tuple(program),
        "slot_dtypes": tuple(slot_dtypes),
        "results": tuple(slot_of[id(t)] for t in results),
        "array_inputs": tuple(len(t.shape) > 0 for t in inputs),
        "shape": group.shape,
        "block": BLOCK_ELEMENTS,
        "specs": tuple((t.dtype, t.shape) for t in results),
    }
    return graph.create_op(FUSED_ELEMENTWISE, inputs, attrs, list(attrs["specs"]), origin)


def _ref(arg, operands, prev):
    if arg == "a":
        return operands[0]
    if arg == "b":
        return operands[1]
    if arg == "prev":
        return prev
    return ("lit", arg)


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n
