"""Composite writes: the subscripts and attributes a block assigns (`d['k'] = v`, `o.n += 1`,
`del d['k']`), which a staged `if`/loop must carry like variables.

`slots(stmts, modified)` picks those that can be carried: the object and the key are the same
for the whole statement (they are made of names the statement does not assign, constants,
attributes and subscripts, and no call), and no other write target contains them (carrying
`d['a']` carries `d['a']['b']`). For the others, `containers_changed` names the variables
whose objects they change, which the construct then carries whole.
"""

from __future__ import annotations

import ast

import gast

from autograph import traversal

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def source(node) -> str:
    """The source text of an expression, e.g. `d['k']`."""
    return ast.unparse(gast.gast_to_ast(node))


def slots(stmts, modified) -> list:
    """The carried write targets in `stmts` (see the module doc), in source order, one per
    distinct source text."""
    targets: dict = {}
    for node in _writes(stmts):
        targets.setdefault(source(node), node)
    return [node for text, node in targets.items()
            if _stable(node, modified) and not any(_inside(text, other) for other in targets)]


def containers_changed(stmts, modified) -> set:
    """The names of the variables whose objects the writes in `stmts` that cannot be carried
    as slots change (`q[i % n] = v`: the key changes within the block): a staged construct
    carries the whole object instead."""
    found = set()
    for node in _writes(stmts):
        if isinstance(node, (gast.Subscript, gast.Attribute)) and not _stable(node, modified):
            base = node
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name):
                found.add(base.id)
    return found


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


def _stable(node, modified) -> bool:
    """Whether `node`'s object and key are the same throughout the statement."""
    if isinstance(node, gast.Name):
        return node.id not in modified
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.Attribute):
        return _stable(node.value, modified)
    if isinstance(node, gast.Subscript):
        return _stable(node.value, modified) and _stable(node.slice, modified)
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        return _stable(node.operand, modified)
    if isinstance(node, gast.Tuple):
        return all(_stable(e, modified) for e in node.elts)
    return False
