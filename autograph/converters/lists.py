"""Calls that change a local variable's object in place make the variable one the statement
modifies, so a staged `if`/loop carries it (a list whose length changes becomes a staged list):

    lst.append(v)            ->   lst = ag__.list_append(lst, v)
    t += lst.pop()           ->   t += lst.pop()
                                  lst = ag__.mutated(lst)
`list_append` appends in place and returns the same list (a staged list's `append` is O(1));
`mutated` returns its argument. The methods are those of lists, dicts and sets that change
them (`append`, `pop`, `update`, ...), on any object: for another object the variable is just
carried as it is. Only local variables are rewritten (assigning a closure or global name would
make it local).
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
            return self._mark(node)
        return templates.replace("lst = ag__.list_append(lst, value)", getanno(node, Anno.ORIGIN),
                                 lst=lst, value=call.args[0])

    def visit_Assign(self, node):
        return self._mark(node)

    visit_AugAssign = visit_AnnAssign = visit_Assign

    def _mark(self, node):
        """`node`, then `name = ag__.mutated(name)` for each local it changes in place."""
        changed = []
        for n in traversal.walk(node):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in MUTATORS:
                root = _root_name(n.func.value)  # `d['k'].append(v)` changes `d`
                if root in self.locals[-1] and root not in changed:
                    changed.append(root)
        origin = getanno(node, Anno.ORIGIN)
        return [node] + [s for name in changed
                         for s in templates.replace("name = ag__.mutated(name)", origin,
                                                    name=name)]


def _root_name(node):
    """`d` for `d`, `d['k']`, `d.items[0]`...; None for other expressions."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


# Methods of lists, dicts and sets that change the object they are called on.
MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                      "update", "setdefault", "popitem", "add", "discard"})
