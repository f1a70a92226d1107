"""Lowers `continue`: the rest of the loop body moves into the branch that does not continue.

    for x in xs:                      for x in xs:
        if x < 0:                         if x < 0:
            continue          ->              pass
        total += x                        else:
                                              total += x
Where moving would copy code into several branches, a `continue_` flag (reset at the top of
the body) guards the rest instead.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.anno import Anno, getanno
from autograph.converters._jumps import JumpLowering


def transform(node, ctx):
    """Lowers the continues of every loop under `node`."""
    return _Continues(ctx).visit(node)


class _Continues(traversal.StatementTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_While(self, node):
        self.generic_visit(node)
        if not JumpLowering.appears_in(gast.Continue, node.body):
            return node
        moved = JumpLowering(gast.Continue, lambda _: [], None)
        if not moved.needs_guard(node.body):
            node.body = moved.block(node.body) or [gast.Pass()]
            return node
        flag = self.ctx.namer.new("continue_")
        origin = getanno(node, Anno.ORIGIN)
        body = JumpLowering.flagged(gast.Continue, flag).block(node.body)
        node.body = templates.replace("flag = False", origin, flag=flag) + body
        return node

    visit_For = visit_While
