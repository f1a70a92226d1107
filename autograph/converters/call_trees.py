"""Routes calls through `ag__.converted_call`, which converts user functions on first call.

    y = helper(x, k=2)   ->   y = ag__.converted_call(helper, x, k=2)
Calls made by generated code (`ag__.*`) are left alone. Zero-argument `super()` becomes
`super(__class__, self)`: it may end up in a branch function, where the implicit form fails.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.anno import Anno, hasanno


def transform(node, ctx):
    """Wraps every user call under `node`."""
    return _Calls().visit(node)


class _Calls(traversal.Transformer):
    def __init__(self):
        self.self_name = None  # the first parameter of the converted method

    def visit_FunctionDef(self, node):
        if self.self_name is None and node.args.args:
            self.self_name = node.args.args[0].id
        # Decorators were removed by the parser (or belong to nested functions, which run as
        # written at definition time); convert the body and default values only.
        node.body = [self.visit(s) for s in node.body]
        node.args = self.visit(node.args)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Name) and func.id == "super":
            if not node.args and self.self_name is not None:
                node.args = [templates.name("__class__"), templates.name(self.self_name)]
            return node
        if _is_generated(func):
            return node
        ag_func = gast.Attribute(value=templates.name("ag__"), attr="converted_call",
                                 ctx=gast.Load())
        call = gast.Call(func=ag_func, args=[func] + node.args, keywords=node.keywords)
        return gast.copy_location(call, node)


def _is_generated(func) -> bool:
    """`ag__.*`, or a builtin that a converter calls (`globals()`): a name it marked."""
    if isinstance(func, gast.Name):
        return hasanno(func, Anno.GENERATED)
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
        func.value.id == "ag__"
