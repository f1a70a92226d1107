"""Loop-invariant code motion.

Guarantees after this pass: no op of a While's condition or body that is hoistable and whose
inputs are all loop-invariant stays inside the loop. Loop-invariant values are the While's
captured inputs, Const ops, and results of hoisted ops. Hoisted ops move to the enclosing graph,
just before the While, and their results that the loop still uses become new captured inputs
(a new placeholder in the condition and the body, a new input of the While). Inner loops are
processed first, so an op can move out of several loops: out of at most
MAX_PASSED_DOWN_LEVELS loops that only pass its result on to nested control flow (so graphs stay
linear in the depth of a loop nest).

Hoistable: pure (not stateful, not reading variables, not control flow), elementwise or a
reduction, with every input and output shape fully known (so it cannot fail on a broadcast),
and reductions over non-empty inputs (an empty max raises). Values are unchanged: a pure op gives
the same bits before the loop as inside it. The one observable difference: an op hoisted out of
the body of a loop that runs zero times now runs once (a numpy warning it would give, e.g. a
division by zero, then appears although the unoptimized loop would not have run it).
"""

from __future__ import annotations

from runtime.core.graph import Graph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops import control_flow_ops as cf
from runtime.ops.control_flow_ops import WHILE
from runtime.ops.registry import CONST, CONTROL_FLOW, ELEMENTWISE, REDUCTION
from runtime.passes.rewrite import is_pure

# How many loops an op may leave that only pass its result on to nested control flow: each one
# makes one more loop capture the result, so a bound keeps the graph of a deep loop nest linear
# in its depth (unbounded, every value computed at the bottom would be threaded through every
# level above it).
MAX_PASSED_DOWN_LEVELS = 2


def transform(graph: Graph) -> None:
    """Hoists loop-invariant ops out of every While in `graph`, in place."""
    loops = [op for op in graph.walk() if op.opdef is WHILE]
    passed_levels: dict[int, int] = {}  # id(op) -> loops it left that only passed it down
    for loop in reversed(loops):  # inner loops first: walk() lists enclosing ops first
        _hoist(loop, passed_levels)


def _hoist(loop: Operation, passed_levels: dict) -> None:
    outer = loop.graph
    moved: list[Operation] = []
    outer_consts: dict[int, SymbolicTensor] = {}
    for sub in loop.subgraphs():
        # inner tensor id -> the outer tensor holding the same value
        invariant = {id(p): t for p, t in cf.invariant_inputs(loop, sub)}
        passed_down = _only_passed_down(sub)
        kept, hoisted = [], []
        for op in sub.operations:
            if op.opdef is CONST:
                invariant[id(op.outputs[0])] = _outer_const(outer, op, outer_consts, moved)
                kept.append(op)
            elif _hoistable(op) and all(id(t) in invariant for t in op.inputs) and (
                    id(op) not in passed_down
                    or passed_levels.get(id(op), 0) < MAX_PASSED_DOWN_LEVELS):
                if id(op) in passed_down:
                    passed_levels[id(op)] = passed_levels.get(id(op), 0) + 1
                op.inputs = [invariant[id(t)] for t in op.inputs]
                op.graph = outer
                hoisted.append(op)
                for t in op.outputs:
                    invariant[id(t)] = t
            else:
                kept.append(op)
        if not hoisted:
            continue
        sub.operations = kept
        moved.extend(hoisted)
        _route_into_loop(loop, sub, hoisted)
    if any(op.opdef is not CONST for op in moved):
        at = outer.operations.index(loop)
        outer.operations[at:at] = moved


def _only_passed_down(sub: Graph) -> set:
    """Ids of the ops of `sub` whose results `sub` only passes on to nested control flow,
    directly or through other such ops."""
    uses: dict[int, list] = {}
    for op in sub.operations:
        for t in op.inputs:
            uses.setdefault(id(t), []).append(op)
    returned = {id(t) for t in sub.outputs}
    found: set[int] = set()
    for op in reversed(sub.operations):  # consumers before producers
        consumers = [c for t in op.outputs for c in uses.get(id(t), [])]
        if consumers and not any(id(t) in returned for t in op.outputs) and all(
                CONTROL_FLOW in c.opdef.groups or id(c) in found for c in consumers):
            found.add(id(op))
    return found


def _hoistable(op: Operation) -> bool:
    groups = op.opdef.groups
    if not is_pure(op) or not (ELEMENTWISE in groups or REDUCTION in groups):
        return False
    tensors = op.inputs + op.outputs
    if not all(t.shape.is_fully_defined() for t in tensors):
        return False
    if REDUCTION in groups and any(_size(t.shape) == 0 for t in op.inputs):
        return False
    return True


def _size(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _outer_const(outer: Graph, op: Operation, made: dict, moved: list) -> SymbolicTensor:
    """A copy of Const `op` in the enclosing graph (made once, placed with the hoisted ops)."""
    key = id(op)
    if key not in made:
        out = op.outputs[0]
        copy = outer.create_op(CONST, [], dict(op.attrs), [(out.dtype, out.shape)], op.origin)
        outer.operations.pop()  # placed before the loop with the hoisted ops instead
        moved.append(copy)
        made[key] = copy.outputs[0]
    return made[key]


def _route_into_loop(loop: Operation, sub: Graph, hoisted: list[Operation]) -> None:
    """Makes the results of `hoisted` that `sub` still uses new captured inputs of the loop."""
    hoisted_outputs = {id(t): t for op in hoisted for t in op.outputs}
    used = {}
    for op in sub.operations:
        for t in op.inputs:
            if id(t) in hoisted_outputs:
                used[id(t)] = t
    for t in sub.outputs:
        if id(t) in hoisted_outputs:
            used[id(t)] = t
    if not used:
        return
    replacement = {}
    for key, outer_tensor in used.items():
        placeholders = cf.add_capture(loop, outer_tensor, f"capture_{outer_tensor.op.name}")
        replacement[key] = placeholders[id(sub)]
    for op in sub.operations:
        op.inputs = [replacement.get(id(t), t) for t in op.inputs]
    sub.outputs = [replacement.get(id(t), t) for t in sub.outputs]
