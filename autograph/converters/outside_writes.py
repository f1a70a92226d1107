"""Writes of state that may outlive the call: each assignment of an attribute, an item or a
`global` name is preceded by `ag__.writing(slot)`, so that a graph value left there is refused
at its line when the trace ends (and the value from before is put back) instead of staying in
the user's objects as the graph's placeholder:

    self.last = y            ->   ag__.writing(ag__.Attr(self, 'last', 'self.last'))
                                  self.last = y
    global total; total = y  ->   ag__.writing(ag__.Global('total', globals()))
                                  total = y

Running eagerly, `writing` returns at once. A target whose object or key the statement itself
changes (`a[i], i = v, 0`) is left as it is: evaluating it early could give another place.
"""

from __future__ import annotations

import copy

import gast

from autograph import templates, traversal
from autograph.analysis import activity, composites
from autograph.anno import Anno, getanno


def transform(node, ctx):
    """Converts every write of an attribute, item or global under the FunctionDef `node`."""
    return _OutsideWrites().visit(node)


def has_writes(nodes) -> bool:
    """Whether any of `nodes` (a function's) writes an attribute, an item or a global."""
    return any(type(n) in (gast.Attribute, gast.Subscript) and type(n.ctx) is gast.Store
               or type(n) is gast.Global for n in nodes)


class _OutsideWrites(traversal.StatementTransformer):
    def __init__(self):
        self.globals = [frozenset()]

    def visit_FunctionDef(self, node):
        self.globals.append(frozenset(n for s in traversal.statements(node)
                                      if isinstance(s, gast.Global) for n in s.names))
        self.generic_visit(node)
        self.globals.pop()
        return node

    def visit_Lambda(self, node):
        return node

    visit_ClassDef = visit_AsyncFunctionDef = visit_Lambda

    def visit_Assign(self, node):
        return self._noted(node, node.targets)

    def visit_AugAssign(self, node):
        return self._noted(node, [node.target])

    def visit_AnnAssign(self, node):
        return self._noted(node, [node.target] if node.value is not None else [])

    def _noted(self, node, targets):
        origin = getanno(node, Anno.ORIGIN)
        modified = activity.of(node).modified
        notes = []
        for target in composites.slots([node], modified):
            text = gast.Constant(value=composites.source(target), kind=None)
            if isinstance(target, gast.Subscript):
                notes += templates.replace("ag__.writing(ag__.Item(obj, key, text))", origin,
                                           obj=copy.deepcopy(target.value),
                                           key=copy.deepcopy(target.slice), text=text)
            else:
                notes += templates.replace("ag__.writing(ag__.Attr(obj, key, text))", origin,
                                           obj=copy.deepcopy(target.value),
                                           key=gast.Constant(value=target.attr, kind=None),
                                           text=text)
        for target, base in composites.unstable_writes([node], modified):
            # (a key the statement computes, `OUT[len(s)] = y`: its container is noted whole)
            if (base is not None and isinstance(target, gast.Subscript)
                    and composites.stable(target.value, modified)):
                text = gast.Constant(value=composites.source(target), kind=None)
                notes += templates.replace("ag__.writing(ag__.items_of(obj, text))", origin,
                                           obj=copy.deepcopy(target.value), text=text)
        for name in _names(targets) & self.globals[-1]:
            namespace = gast.Call(func=templates.name("globals"), args=[], keywords=[])
            notes += templates.replace("ag__.writing(ag__.Global(name, namespace))", origin,
                                       name=gast.Constant(value=name, kind=None),
                                       namespace=namespace)
        return notes + [node]


def _names(targets) -> set:
    found = set()
    for target in targets:
        if isinstance(target, gast.Name):
            found.add(target.id)
        elif isinstance(target, (gast.Tuple, gast.List)):
            found |= _names(target.elts)
        elif isinstance(target, gast.Starred):
            found |= _names([target.value])
    return found
