"""Composite writes: the subscripts and attributes a block assigns (`d['k'] = v`, `o.n += 1`,
`del d['k']`), which a staged `if`/loop must carry like variables.

`slots(stmts, modified)` picks those that can be carried: the object and the key are the same
for the whole statement (they are made of names the statement does not assign, constants,
attributes and subscripts, and no call), and no other write target contains them (carrying
`d['a']` carries `d['a']['b']`). The others (`q[i % n] = v`: the key changes within the
block) are `unstable_writes`: the construct carries the container they change instead (the
control-flow converter decides how: a variable of the function whole, another container in
place, or a refusal when the write reaches into an object the container holds).
"""

from __future__ import annotations

import ast
import copy

import gast

from autograph import traversal

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def source(node) -> str:
    """The source text of an expression as the user wrote it, e.g. `d['k']`, `h[len(s)]` (a
    call converted already reads as the call)."""
    return ast.unparse(_AsWritten().visit(gast.gast_to_ast(copy.deepcopy(node))))


class _AsWritten(ast.NodeTransformer):
    """`ag__.converted_call(f, a, k=b)` back to `f(a, k=b)`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr == "converted_call" and node.args
                and isinstance(func.value, ast.Name) and func.value.id == "ag__"):
            return ast.Call(func=node.args[0], args=node.args[1:], keywords=node.keywords)
        return node


def slots(stmts, modified) -> list:
    """The carried write targets in `stmts` (see the module doc), in source order, one per
    distinct source text."""
    targets: dict = {}
    for node in _writes(stmts):
        targets.setdefault(source(node), node)
    return [node for text, node in targets.items()
            if stable(node, modified) and not any(_inside(text, other) for other in targets)]


def unstable_writes(stmts, modified) -> list:
    """[(target, the name its chain starts from, or None)] of the writes in `stmts` that
    cannot be carried as slots."""
    found = []
    for node in _writes(stmts):
        if isinstance(node, (gast.Subscript, gast.Attribute)) and not stable(node, modified):
            base = node
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            found.append((node, base.id if isinstance(base, gast.Name) else None))
    return found


def plain_items(node) -> bool:
    """Whether `node` is a name or items of it (`rows`, `rows[0]`): no attribute between."""
    while isinstance(node, gast.Subscript):
        node = node.value
    return isinstance(node, gast.Name)


def object_inside_computed_item(target, modified) -> bool:
    """Whether `target` writes an attribute at or below an item that a key the statement
    computes picks (`objs[len(s)].count`, `objs[k(i)].pos[0]`): a copy of the container
    shares that object, so carrying the container does not carry the write."""
    node, attribute = target, False
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        if isinstance(node, gast.Attribute):
            attribute = True
        elif attribute and not stable(node.slice, modified):
            return True
        node = node.value
    return False


def _inside(text, other) -> bool:
    """Whether the target `text` is part of the target `other` (`d['a'].b` of `d['a']`)."""
    return len(text) > len(other) and text.startswith(other) and text[len(other)] in "[."



def _writes(stmts) -> list:
    found = []
    stack = list(reversed(stmts))
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCTIONS):
            continue
        if isinstance(node, (gast.Assign, gast.Delete)):
            targets = node.targets
        elif isinstance(node, (gast.AugAssign, gast.AnnAssign, gast.For)):
            targets = [node.target]
        elif isinstance(node, (gast.With, gast.AsyncWith)):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
        else:
            targets = []
        for target in targets:
            found.extend(_composite_targets(target))
        stack.extend(reversed(traversal.block_children(node)))
    return found


def _composite_targets(target) -> list:
    if isinstance(target, (gast.Tuple, gast.List)):
        return [t for elt in target.elts for t in _composite_targets(elt)]
    if isinstance(target, gast.Starred):
        return _composite_targets(target.value)
    return [target] if isinstance(target, (gast.Subscript, gast.Attribute)) else []


def stable(node, modified) -> bool:
    """Whether `node`'s object and key are the same throughout the statement."""
    if isinstance(node, gast.Name):
        return node.id not in modified
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.Attribute):
        return stable(node.value, modified)
    if isinstance(node, gast.Subscript):
        return stable(node.value, modified) and stable(node.slice, modified)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return stable(node.operand, modified)
    if isinstance(node, gast.Tuple):
        return all(stable(e, modified) for e in node.elts)
    return False
