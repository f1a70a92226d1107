"""Definedness: which names may hold a value, and which surely do, before each `if`/`while`/
`for`.

A forward pass over (may, surely) pairs. A name is in `Anno.DEFINED_IN` if some path from the
function entry assigns it (parameters count; in a loop body, so does what an earlier iteration
assigned), and in `Anno.DEFINED_SURELY` if every path does (a loop body may run zero times, a
`try` body may stop at any statement, `del` unassigns). Converters pass
`ag__.Undefined('name')` for names a branch or loop assigns that are certainly undefined before
it, and bind the names that are only maybe defined before reading them.
"""

from __future__ import annotations

from typing import NamedTuple

import gast

from autograph import anno
from autograph.analysis import activity
from autograph.anno import Anno


class _Defined(NamedTuple):
    may: frozenset
    surely: frozenset

    def add(self, names) -> _Defined:
        return _Defined(self.may | names, self.surely | names)

    def join(self, other: _Defined) -> _Defined:
        """Either of two paths was taken."""
        return _Defined(self.may | other.may, self.surely & other.surely)


def analyze(fn_node) -> None:
    """Annotates the compound statements of `fn_node` and of the functions nested in it."""
    args = fn_node.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    _block(fn_node.body, _Defined(frozenset(params), frozenset(params)))


def _block(stmts, defined: _Defined) -> _Defined:
    for stmt in stmts:
        defined = _stmt(stmt, defined)
    return defined


def _stmt(node, defined: _Defined) -> _Defined:
    if isinstance(node, (gast.If, gast.While, gast.For)):
        anno.setanno(node, Anno.DEFINED_IN, defined.may)
        anno.setanno(node, Anno.DEFINED_SURELY, defined.surely)
        if isinstance(node, gast.If):
            return _block(node.body, defined).join(_block(node.orelse, defined))
        inside = defined
        if isinstance(node, gast.For):
            inside = inside.add(activity.of(node.target).modified)
        # What one iteration assigns, the next may read.
        inside = _Defined(inside.may | anno.getanno(node, Anno.BODY_SCOPE).modified,
                          inside.surely)
        body = _block(node.body, inside)
        after = defined.join(body)  # the body may run zero times
        return _block(node.orelse, after) if node.orelse else after
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        analyze(node)
        return defined.add({node.name})
    if isinstance(node, (gast.With, gast.AsyncWith)):
        return _block(node.body, defined.add(activity.of_block(
            [gast.Expr(value=i.optional_vars) for i in node.items if i.optional_vars]).modified))
    if isinstance(node, gast.Try):
        completed = _block(node.orelse, _block(node.body, defined))
        # A handler starts after any prefix of the body.
        raised = _Defined(defined.may | completed.may, defined.surely)
        for handler in node.handlers:
            completed = completed.join(_block(handler.body, raised))
        return _block(node.finalbody, completed)
    if isinstance(node, gast.Delete):
        deleted = activity.of(node).modified
        return _Defined(defined.may, defined.surely - deleted)
    return defined.add((anno.getanno(node, Anno.SCOPE) or activity.of(node)).modified)
