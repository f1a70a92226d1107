"""`in` and `not in` become operators that stage on tensors.

    x in t       ->   ag__.in_(x, t)
    x not in t   ->   ag__.not_in(x, t)
Only a comparison with the one operator `in` / `not in` is converted; chained comparisons
(`a < b in c`) are split by logical_expressions, which runs after this converter, and their
`in` parts stay Python's.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal

_OPERATORS = {gast.In: "in_", gast.NotIn: "not_in"}


def transform(node, ctx):
    """Converts every single `in` / `not in` comparison under `node`."""
    return _Membership().visit(node)


class _Membership(traversal.Transformer):
    def visit_Compare(self, node):
        self.generic_visit(node)
        name = _OPERATORS.get(type(node.ops[0])) if len(node.ops) == 1 else None
        if name is None:
            return node
        func = gast.Attribute(value=templates.name("ag__"), attr=name, ctx=gast.Load())
        call = gast.Call(func=func, args=[node.left, node.comparators[0]], keywords=[])
        return gast.copy_location(call, node)
