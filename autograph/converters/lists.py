"""`lst.append(v)` as a statement becomes `lst = ag__.list_append(lst, v)`.

The list becomes a variable the statement modifies, so a staged loop can carry it (as a growing
stacked tensor); on Python lists `list_append` appends in place and returns the same list.
Only lists that are local variables of the function are rewritten (assigning a closure or
global name would make it local).
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.analysis import activity, qual_names
from autograph.anno import Anno, getanno


def transform(node, ctx):
    """Converts every `name.append(value)` statement on a local list under `node`."""
    return _Lists().visit(node)


class _Lists(traversal.StatementTransformer):
    def __init__(self):
        self.locals = [frozenset()]

    def visit_FunctionDef(self, node):
        args = node.args
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        declared = {n for s in traversal.statements(node)
                    if isinstance(s, (gast.Global, gast.Nonlocal)) for n in s.names}
        self.locals.append((params | activity.of_block(node.body).modified) - declared)
        self.generic_visit(node)
        self.locals.pop()
        return node

    def visit_Expr(self, node):
        call = node.value
        target = qual_names.qn(call.func) if isinstance(call, gast.Call) else None
        lst, _, method = (target or "").rpartition(".")
        if method != "append" or lst not in self.locals[-1] or len(call.args) != 1 \
                or call.keywords:
            return self.generic_visit(node)
        return templates.replace("lst = ag__.list_append(lst, value)", getanno(node, Anno.ORIGIN),
                                 lst=lst, value=call.args[0])
