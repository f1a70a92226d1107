"""Dropping the overflow checks of loop counters, which cannot fail.

A stand-in of a Python int is checked after `n + c` (runtime/ops/python_arithmetic.py: one
comparison and an Assert). When `n` is a While's loop variable that starts as a constant with
|start| <= 2**32 and that each iteration sets to `n + c` with |c| <= 256 (the counter of a
`while i < n: ...; i += 1`), passing int64's end takes more than 2**55 iterations, over a year
at one iteration a nanosecond: the check and its comparison go, so a counter costs what it cost
before the checks.

Guarantee after this pass: no Assert of such a check is left in a loop body; every other op is
unchanged, so results are the same bits.
"""

from __future__ import annotations

from runtime.core.graph import Graph, Operation
from runtime.ops import control_flow_ops as cf
from runtime.ops import shapes
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.io_ops import ASSERT
from runtime.ops.math_ops import ADD, GREATER_EQUAL, LESS_EQUAL, SUB

MAX_START = 2 ** 32
MAX_STEP = 256


def transform(graph: Graph) -> None:
    """Removes the overflow checks of counters from the bodies of every While in `graph`."""
    for op in list(graph.walk()):
        if op.opdef is WHILE:
            _drop_counter_checks(op)


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
