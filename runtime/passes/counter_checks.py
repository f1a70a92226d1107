"""Dropping the overflow checks of loop counters, which cannot fail.

A stand-in of a Python int is checked after `n + c` (runtime/ops/python_arithmetic.py: one
comparison and an Assert). When `n` is a While's loop variable that starts as a constant with
|start| <= 2**32 and that each iteration sets to `n + c` with |c| <= 256 (the counter of a
`while i < n: ...; i += 1`), passing int64's end takes more than 2**55 iterations, over a year
at one iteration a nanosecond: the check and its comparison go, so a counter costs what it cost
before the checks.

Outside While bodies (a Python loop unrolled by tracing, `for _ in range(50): ...; steps += 1`,
whose iterations are a chain of graph `if`s), the range of each integer scalar is followed from
constants through `+` and `-` of constants and through the branches of `if`s (the union of
what the branches give): a check whose sum stays within +-2**62 cannot fail and goes too.

Guarantee after this pass: no Assert of such a check is left in a loop body, nor one whose
counter's range is known to be far from int64's ends; every other op is unchanged, so results
are the same bits.
"""

from __future__ import annotations

from runtime.core.graph import Graph, Operation
from runtime.ops import control_flow_ops as cf
from runtime.ops import shapes
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.io_ops import ASSERT
from runtime.ops.math_ops import ADD, GREATER_EQUAL, LESS_EQUAL, SUB
from runtime.ops.registry import CONST

MAX_START = 2 ** 32
MAX_STEP = 256


# A sum whose range stays within this bound cannot have passed int64's end (int32's: 2**30).
SAFE = 2 ** 62


def transform(graph: Graph) -> None:
    """Removes the overflow checks of counters from the bodies of every While in `graph`, and
    the checks of sums of known range in it and its `if` branches."""
    for op in list(graph.walk()):
        if op.opdef is WHILE:
            _drop_counter_checks(op)
    _drop_checks_of_known_range(graph, {})


def _drop_checks_of_known_range(graph: Graph, ranges: dict) -> None:
    """Follows the (low, high) range of integer scalars through `graph` (`ranges`: by tensor
    id, those known on entry) and its `if` branches, removing the checks that cannot fail."""
    safe = []
    for op in graph.operations:
        if op.opdef is CONST:
            value = shapes.known_value(op.outputs[0])
            if isinstance(value, int) and not isinstance(value, bool):
                ranges[id(op.outputs[0])] = (value, value)
        elif op.opdef in (ADD, SUB) and len(op.inputs) == 2 and op.outputs[0].shape == ():
            a, b = (ranges.get(id(t)) for t in op.inputs)
            if a is not None and b is not None and op.outputs[0].dtype.is_integer:
                ranges[id(op.outputs[0])] = ((a[0] + b[0], a[1] + b[1]) if op.opdef is ADD
                                             else (a[0] - b[1], a[1] - b[0]))
        elif op.opdef is IF:
            outs = []
            for branch in cf.branches(op):
                inner = {id(p): ranges[id(t)] for p, t in zip(branch.inputs, op.inputs[1:])
                         if id(t) in ranges}
                _drop_checks_of_known_range(branch, inner)
                outs.append([inner.get(id(t)) for t in branch.outputs])
            for t, a, b in zip(op.outputs, *outs):
                if a is not None and b is not None:
                    ranges[id(t)] = (min(a[0], b[0]), max(a[1], b[1]))
        elif op.opdef is ASSERT and op.attrs.get("python_numbers"):
            comparison = op.inputs[0].op
            if comparison.opdef not in (GREATER_EQUAL, LESS_EQUAL) or comparison.graph is not graph:
                continue  # (e.g. a check folded to a constant)
            checked = ranges.get(id(comparison.inputs[0]))
            bound = SAFE >> (64 - 8 * comparison.inputs[0].dtype.itemsize)  # (int32: 2**30)
            if checked is not None and -bound <= checked[0] and checked[1] <= bound:
                safe.append(op)
    if safe:
        checked_ids = {id(op) for op in safe}
        graph.remove([*safe, *(op.inputs[0].op for op in safe
                               if not _used(op.inputs[0], graph, exclude=checked_ids))])


def _drop_counter_checks(loop: Operation) -> None:
    body = cf.loop_body(loop)
    counters = set()
    for k in range(len(cf.loop_specs(loop))):
        wide = loop.inputs[k].dtype.is_integer and loop.inputs[k].dtype.itemsize == 8
        start = shapes.known_value(loop.inputs[k]) if wide else None  # (the bound is int64's)
        if isinstance(start, int) and abs(start) <= MAX_START and _steps_by_a_constant(
                body.outputs[k], body.inputs[k]):
            counters.add((id(body.outputs[k]), id(body.inputs[k])))
    if not counters:
        return
    checks = [op for op in body.operations if _checks_counter(op, body, counters)]
    checked = {id(op) for op in checks}
    body.remove([*checks, *(op.inputs[0].op for op in checks
                            if not _used(op.inputs[0], body, exclude=checked))])


def _steps_by_a_constant(new, old) -> bool:
    """Whether `new` is `old + c` or `old - c` for a known |c| <= MAX_STEP."""
    op = new.op
    if op.opdef not in (ADD, SUB) or not any(t is old for t in op.inputs):
        return False
    other = op.inputs[1] if op.inputs[0] is old else op.inputs[0]
    if op.opdef is SUB and other is op.inputs[0]:
        return False  # c - old does not step
    step = shapes.known_value(other)
    return isinstance(step, int) and abs(step) <= MAX_STEP


def _checks_counter(op, body, counters) -> bool:
    """Whether `op` is the overflow check of one of the `counters` (`new >= old` or `<=`)."""
    if op.opdef is not ASSERT or not op.attrs.get("python_numbers"):
        return False
    comparison = op.inputs[0].op
    return (comparison.graph is body and comparison.opdef in (GREATER_EQUAL, LESS_EQUAL)
            and (id(comparison.inputs[0]), id(comparison.inputs[1])) in counters)


def _used(tensor, graph, exclude) -> bool:
    return any(id(op) not in exclude and any(t is tensor for t in op.inputs)
               for op in graph.operations) or any(t is tensor for t in graph.outputs)
