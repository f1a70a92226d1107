"""A list comprehension assigned to a name becomes a loop that appends, so it stages:

    ys = [f(x) for x in xs if x > 0]   ->   ys = []
                                            for x_1 in xs:
                                                if x_1 > 0:
                                                    ys.append(f(x_1))
The comprehension variable is renamed (it must not leak into the function). Only the simple
form is rewritten (one `for`, name targets, no nested functions or comprehensions inside);
other comprehensions run as Python.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.anno import Anno, getanno

_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def transform(node, ctx):
    """Rewrites every `name = [... for ... in ...]` under `node`."""
    return _Comprehensions(ctx).visit(node)


class _Comprehensions(traversal.StatementTransformer):
    def __init__(self, ctx):
        self.namer = ctx.namer

    def visit_Assign(self, node):
        comp = node.value
        if not (len(node.targets) == 1 and isinstance(node.targets[0], gast.Name)
                and isinstance(comp, gast.ListComp) and len(comp.generators) == 1):
            return node
        generator = comp.generators[0]
        targets = _target_names(generator.target)
        inner = [comp.elt, *generator.ifs]
        if targets is None or generator.is_async or any(
                isinstance(n, _SCOPES) for e in inner for n in traversal.walk(e)):
            return node
        renames = {name: self.namer.new(name) for name in targets}
        for n in [generator.target, *inner]:
            for name in traversal.walk(n):
                if isinstance(name, gast.Name) and name.id in renames:
                    name.id = renames[name.id]
        append = templates.replace("result.append(elt)", result=node.targets[0].id,
                                   elt=comp.elt)
        if generator.ifs:
            test = generator.ifs[0] if len(generator.ifs) == 1 else gast.BoolOp(
                op=gast.And(), values=generator.ifs)
            append = templates.replace("if test:\n    append", test=test, append=append)
        return templates.replace(
            "result = []\nfor target in iterated:\n    append", getanno(node, Anno.ORIGIN),
            result=node.targets[0].id, target=generator.target, iterated=generator.iter,
            append=append,
        )


def _target_names(target):
    """The names a comprehension target binds, or None if it is not made of plain names."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, gast.Tuple) and all(isinstance(e, gast.Name) for e in target.elts):
        return [e.id for e in target.elts]
    return None
