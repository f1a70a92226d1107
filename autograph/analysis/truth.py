"""Truth-only boolean expressions: an `and` / `or` whose value is used only for its truth.

Python's `a and b` returns an operand; where only its truth matters (the test of an `if`,
`while`, conditional expression, `assert` or comprehension `if`, the operand of `not`, and the
operands of such an `and` / `or`), a staged one may compute truth values instead, whatever the
operands' types. Annotates those BoolOp nodes with `Anno.TRUTH_ONLY`.
"""

from __future__ import annotations

import gast

from autograph import traversal
from autograph.anno import Anno, setanno


def analyze(tree) -> None:
    for node in traversal.walk(tree):
        if isinstance(node, (gast.If, gast.While, gast.IfExp, gast.Assert)):
            mark(node.test)
        elif isinstance(node, gast.comprehension):
            for test in node.ifs:
                mark(test)
        elif isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            mark(node.operand)


def mark(expr):
    """Marks the `and` / `or` of `expr` (used only for its truth) and those of its operands;
    converters call it on the tests they build after `analyze` ran. Returns `expr`."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.BoolOp):
            setanno(node, Anno.TRUTH_ONLY, True)
            stack.extend(node.values)
    return expr
