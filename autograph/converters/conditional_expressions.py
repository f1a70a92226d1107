"""`x if c else y` becomes `ag__.if_exp(c, lambda: x, lambda: y)` (a conditional on tensors)."""

from __future__ import annotations

import gast

from autograph import templates, traversal


def transform(node, ctx):
    """Converts every conditional expression under `node`."""
    return _IfExp().visit(node)


class _IfExp(traversal.Transformer):
    def visit_IfExp(self, node):
        self.generic_visit(node)
        call = templates.replace_expr(
            "ag__.if_exp(test, lambda: body, lambda: orelse)",
            test=node.test, body=node.body, orelse=node.orelse,
        )
        return gast.copy_location(call, node)
