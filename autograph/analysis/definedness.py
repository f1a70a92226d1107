"""Definedness: which names may hold a value before each `if`/`while`/`for`.

A forward pass; a name is in `Anno.DEFINED_IN` if some path from the function entry assigns
it (parameters count; in a loop body, so does what an earlier iteration assigned). Converters
pass `ag__.Undefined('name')` for names a branch or loop assigns that are certainly undefined
before it.
"""

from __future__ import annotations

import gast

from autograph import anno
from autograph.analysis import activity
from autograph.anno import Anno


def analyze(fn_node) -> None:
    """Annotates the compound statements of `fn_node` and of the functions nested in it."""
    args = fn_node.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    _block(fn_node.body, frozenset(params))


def _block(stmts, defined):
    for stmt in stmts:
        defined = _stmt(stmt, defined)
    return defined


def _stmt(node, defined):
    if isinstance(node, (gast.If, gast.While, gast.For)):
        anno.setanno(node, Anno.DEFINED_IN, defined)
        if isinstance(node, gast.For):
            defined = defined | activity.of(node.target).modified
        if not isinstance(node, gast.If):  # what one iteration assigns, the next may read
            defined = defined | anno.getanno(node, Anno.BODY_SCOPE).modified
        body = _block(node.body, defined)
        orelse = _block(node.orelse, defined if isinstance(node, gast.If) else body)
        return defined | body | orelse
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        analyze(node)
        return defined | {node.name}
    if isinstance(node, (gast.With, gast.AsyncWith)):
        return _block(node.body, defined | activity.of_block(
            [gast.Expr(value=i.optional_vars) for i in node.items if i.optional_vars]).modified)
    if isinstance(node, gast.Try):
        defined = _block(node.body, defined)
        for handler in node.handlers:
            defined = _block(handler.body, defined)
        return _block(node.finalbody, _block(node.orelse, defined))
    return defined | (anno.getanno(node, Anno.SCOPE) or activity.of(node)).modified
