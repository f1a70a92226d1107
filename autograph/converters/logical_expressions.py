"""`and`, `or`, `not` and chained comparisons become operators that stage on tensors.

    a and b or not c   ->   ag__.or_(ag__.and_(a, lambda: b), lambda: ag__.not_(c))
    a < b < c          ->   ag__.and_(a < b, lambda: b < c)
    if a and b:        ->   if ag__.and_cond(a, lambda: b):   (only its truth is used)
Right operands are wrapped in lambdas, so they are evaluated only when Python would.
"""

from __future__ import annotations

import copy

import gast

from autograph import templates, traversal
from autograph.anno import Anno, getanno


def transform(node, ctx):
    """Converts every boolean expression under `node`."""
    return _Logical().visit(node)


def _ag_call(name, args):
    func = gast.Attribute(value=templates.name("ag__"), attr=name, ctx=gast.Load())
    return gast.Call(func=func, args=args, keywords=[])


def _thunk(expr):
    args = gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])
    return gast.Lambda(args=args, body=expr)


class _Logical(traversal.Transformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        name = "and_" if isinstance(node.op, gast.And) else "or_"
        if getanno(node, Anno.TRUTH_ONLY):
            name += "cond"
        call = _ag_call(name, [node.values[0]] + [_thunk(v) for v in node.values[1:]])
        return gast.copy_location(call, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Not):
            return node
        return gast.copy_location(_ag_call("not_", [node.operand]), node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        left, parts = node.left, []
        for op, right in zip(node.ops, node.comparators):
            parts.append(gast.Compare(left=left, ops=[op], comparators=[right]))
            left = copy.deepcopy(right)
        call = _ag_call("and_", [parts[0]] + [_thunk(p) for p in parts[1:]])
        return gast.copy_location(call, node)
