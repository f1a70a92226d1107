"""Lowers `break` to a flag that the loop condition tests; lowers loop `else` clauses.

    while n > 0:                      break_ = False
        if n == 3:                    while not break_ and n > 0:
            break            ->           if n == 3:
        n -= 1                                break_ = True
                                          else:
                                              n -= 1
For a `for` loop the flag test is attached as `Anno.LOOP_TEST` (it becomes `extra_test`).
A loop `else:` runs after the loop when the flag is not set (unconditionally without breaks).
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.analysis import truth
from autograph.anno import Anno, getanno, setanno
from autograph.converters._jumps import JumpLowering


def transform(node, ctx):
    """Lowers the breaks of every loop under `node`."""
    return _Breaks(ctx).visit(node)


class _Breaks(traversal.StatementTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_While(self, node):
        self.generic_visit(node)
        origin = getanno(node, Anno.ORIGIN)
        orelse, node.orelse = node.orelse, []
        if not JumpLowering.appears_in(gast.Break, node.body):
            return [node] + orelse
        flag = self.ctx.namer.new("break_")
        node.body = JumpLowering.flagged(gast.Break, flag).block(node.body) or [gast.Pass()]
        if isinstance(node, gast.While):
            node.test = truth.mark(templates.replace_expr("not flag and test", origin,
                                                          flag=flag, test=node.test))
        else:
            extra = templates.replace_expr("not flag", origin, flag=flag)
            previous = getanno(node, Anno.LOOP_TEST)
            if previous is not None:
                extra = templates.replace_expr("extra and previous", origin, extra=extra,
                                               previous=previous)
            setanno(node, Anno.LOOP_TEST, truth.mark(extra))
        stmts = templates.replace("flag = False", origin, flag=flag) + [node]
        if orelse:
            stmts += templates.replace("if not flag:\n    orelse", origin, flag=flag,
                                       orelse=orelse)
        return stmts

    visit_For = visit_While
