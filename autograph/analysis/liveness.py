"""Liveness: which names are read later, before being reassigned.

Runs after jump lowering, so control flow is structured (no break/continue; `return` only in
tail position) and a backward pass over the block structure is exact enough. Annotates
`if`/`while`/`for` with `Anno.LIVE_IN` (live at the start of an `if`'s branches; at a loop's head)
and `Anno.LIVE_OUT` (live after it). Nested functions are analysed on their own.
"""

from __future__ import annotations

import gast

from autograph import anno
from autograph.analysis import activity
from autograph.anno import Anno


def analyze(fn_node) -> None:
    """Annotates the compound statements of `fn_node` and of the functions nested in it."""
    _block(fn_node.body, frozenset())


def _block(stmts, live):
    for stmt in reversed(stmts):
        live = _stmt(stmt, live)
    return live


def _reads(node):
    return activity.of(node).read if node is not None else frozenset()


def _stmt(node, live_out):
    if isinstance(node, gast.If):
        live_in = _block(node.body, live_out) | _block(node.orelse, live_out)
        anno.setanno(node, Anno.LIVE_OUT, live_out)
        anno.setanno(node, Anno.LIVE_IN, live_in)
        # The converted `if` passes in the variables it modifies that are live after it, but
        # reads only those live at the start of a branch: one that every path of both branches
        # assigns before reading goes in as an Undefined (converters/control_flow.py).
        return live_in | _reads(node.test)
    elif isinstance(node, (gast.While, gast.For)):
        live_in = _loop(node, live_out)
    elif isinstance(node, gast.Return):
        return _reads(node.value)
    elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        analyze(node)
        return (live_out - {node.name}) | _scope(node, Anno.SCOPE).read
    elif isinstance(node, (gast.With, gast.AsyncWith)):
        inner = _block(node.body, live_out)
        items = activity.of_block([gast.Expr(value=i.context_expr) for i in node.items])
        targets = activity.of_block(
            [gast.Expr(value=i.optional_vars) for i in node.items if i.optional_vars]
        )
        return (inner - targets.modified) | items.read
    elif isinstance(node, gast.Try):
        after = _block(node.finalbody, live_out)
        # `except E as e` binds `e` (and unbinds it at the end of the clause).
        handlers = frozenset().union(*[
            _block(h.body, after) - ({h.name.id} if isinstance(h.name, gast.Name) else set())
            for h in node.handlers])
        return _block(node.body, _block(node.orelse, after) | handlers) | handlers
    else:
        scope = _scope(node, Anno.SCOPE)
        return (live_out - scope.modified) | scope.read
    anno.setanno(node, Anno.LIVE_OUT, live_out)
    anno.setanno(node, Anno.LIVE_IN, live_in)
    return live_in


def _scope(node, key):
    """The activity annotation `key` of `node` (computed if the tree was not analysed)."""
    scope = anno.getanno(node, key)
    if scope is not None:
        return scope
    if key is Anno.SCOPE:
        return activity.of(node)
    return activity.of_block(node.body if key is Anno.BODY_SCOPE else node.orelse)


def _loop(node, live_out):
    """The live set at the loop head: a fixpoint over the body."""
    if isinstance(node, gast.For):
        head_reads = frozenset()
        target = activity.of(node.target).modified
    else:
        head_reads = _reads(node.test)
        target = frozenset()
    extra = anno.getanno(node, Anno.LOOP_TEST)
    head_reads |= _reads(extra)
    exit_live = live_out | _block(node.orelse, live_out)
    live = exit_live | head_reads
    while True:
        body_in = _block(node.body, live) - target
        new = exit_live | head_reads | body_in
        if new == live:
            break
        live = new
    if isinstance(node, gast.For):
        live = live | _reads(node.iter)
    return live
