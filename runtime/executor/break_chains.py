"""Break chains: what a Python loop with a `break` on a tensor becomes when autograph unrolls it
(`for _ in range(50): ...; if converged: break`), found so the executor can stop at the break.

Each unrolled iteration is an If on "not broken yet" whose else branch passes every value
through unchanged, including the "broken" flag the next iteration tests:

    not_1 = ~broken_0;  if not_1: <iteration 1>  else: <values as they were>
    not_2 = ~broken_1;  if not_2: <iteration 2>  else: <values as they were>   (broken_1 is
    ...                                                  an output of the If before)

Once one If takes its else branch, its flag stays true, so every later If takes its else branch
too and the values reach the end unchanged: the executor can jump there (codegen writes the
chain inside a `while True:` that it leaves with `break`) instead of testing each later
iteration. `find` returns the chains of a graph with what each else branch leaves the chain's
results at.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.core.graph import Graph, Operation
from runtime.core.tensor import SymbolicTensor
from runtime.ops import control_flow_ops as cf
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.math_ops import LOGICAL_NOT
from runtime.ops.registry import PLACEHOLDER

MIN_LEVELS = 3  # shorter chains cost little to test through


@dataclass
class Chain:
    """`levels`: the (LogicalNot, If) op pairs, in order; `exits[k]`: for level k but the last,
    the values the chain's results (the last If's outputs) have when that level's If takes its
    else branch (tensors defined before that If)."""

    levels: list
    exits: list

    @property
    def ops(self) -> list:
        return [op for level in self.levels for op in level]

    def loops_inside(self) -> int:
        """How deep graph loops nest in the chain's branches (Python allows 20 nested blocks;
        the chain's `while True:` is one more around them)."""
        return max(_loop_depth(op) for op in self.ops)


def _loop_depth(op: Operation) -> int:
    """The deepest nesting of While ops in `op` (itself included)."""
    inner = max((_loop_depth(o) for sub in op.subgraphs() for o in sub.operations), default=0)
    return inner + (op.opdef is WHILE)


def find(graph: Graph) -> dict[int, Chain]:
    """{index in graph.operations of a chain's first op: the chain}."""
    ops = graph.operations
    readers: dict[int, list] = {}
    for op in ops:
        for t in op.inputs:
            readers.setdefault(id(t), []).append(op)
    outputs = {id(t) for t in graph.outputs}
    chains: dict[int, Chain] = {}
    i = 0
    while i < len(ops) - 1:
        levels = _levels_at(ops, i, readers, outputs)
        if len(levels) >= MIN_LEVELS:
            chains[i] = Chain(levels, [_exit_values(levels, k) for k in range(len(levels) - 1)])
            i += 2 * len(levels)
        else:
            i += 1
    return chains


def _levels_at(ops, i, readers, outputs) -> list:
    """The longest chain starting at ops[i] (a list of (LogicalNot, If) pairs; maybe empty)."""
    levels: list = []
    flag: SymbolicTensor | None = None  # the flag the level before negated
    while i + 1 < len(ops):
        negate, branch = ops[i], ops[i + 1]
        if not (negate.opdef is LOGICAL_NOT and branch.opdef is IF
                and cf.predicate(branch) is negate.outputs[0]
                and _only_read_by(negate.outputs[0], (branch,), readers, outputs)
                and not any(t is negate.outputs[0] for t in cf.captured(branch))
                and _passes_through(branch)):
            break
        if levels:
            before = levels[-1][1]
            if not (_stays(before, negate.inputs[0], flag)
                    and all(_only_read_by(t, (negate, branch), readers, outputs)
                            for t in before.outputs)):
                break
        levels.append((negate, branch))
        flag = negate.inputs[0]
        i += 2
    return levels


def _passes_through(op: Operation) -> bool:
    """An If whose else branch has no ops and gives back its inputs."""
    orelse = cf.branches(op)[1]
    return all(o.opdef is PLACEHOLDER for o in orelse.operations) and all(
        any(t is p for p in orelse.inputs) for t in orelse.outputs)


def _else_value(op: Operation, index: int) -> SymbolicTensor:
    """The outer tensor output `index` of an If is when it takes its else branch."""
    orelse = cf.branches(op)[1]
    out = orelse.outputs[index]
    position = next(i for i, p in enumerate(orelse.inputs) if p is out)
    return cf.captured(op)[position]


def _stays(op: Operation, flag: SymbolicTensor, before: SymbolicTensor | None) -> bool:
    """Whether `flag` is an output of the If `op` that its else branch sets to `before` (the
    flag whose negation picks the branch): once true, it stays true."""
    return any(t is flag and _else_value(op, i) is before for i, t in enumerate(op.outputs))


def _only_read_by(tensor, allowed, readers, outputs) -> bool:
    return id(tensor) not in outputs and all(
        any(op is a for a in allowed) for op in readers.get(id(tensor), ()))


def _exit_values(levels, k) -> list:
    """The values of the last If's outputs when level k's If takes its else branch (and so
    every later one does)."""
    values = []
    for j in range(len(levels[-1][1].outputs)):
        index, m = j, len(levels) - 1
        while True:
            value = _else_value(levels[m][1], index)
            if m == k:
                break
            before = levels[m - 1][1]
            found = [i for i, t in enumerate(before.outputs) if t is value]
            if not found:  # a value from before the chain
                break
            index, m = found[0], m - 1
        values.append(value)
    return values
