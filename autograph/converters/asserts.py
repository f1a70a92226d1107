"""`assert c, msg` becomes `ag__.assert_stmt(c, lambda: msg)`: a graph assertion on tensors."""

from __future__ import annotations

from autograph import templates, traversal
from autograph.anno import Anno, getanno


def transform(node, ctx):
    """Converts every assert under `node`."""
    return _Asserts().visit(node)


class _Asserts(traversal.StatementTransformer):
    def visit_Assert(self, node):
        self.generic_visit(node)
        origin = getanno(node, Anno.ORIGIN)
        if node.msg is None:
            return templates.replace("ag__.assert_stmt(test)", origin, test=node.test)
        return templates.replace("ag__.assert_stmt(test, lambda: msg)", origin, test=node.test,
                                 msg=node.msg)
