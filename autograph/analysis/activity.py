"""Activity analysis: which names each statement reads and modifies.

Annotates every statement with `Anno.SCOPE` (a `Scope`), and `if`/`while`/`for` with
`Anno.BODY_SCOPE` and `Anno.ORELSE_SCOPE` for their blocks. Only plain names count as
modified: `a.b = v` and `a[i] = v` read `a`. A nested function or lambda reads its free names
and modifies its own name; comprehension variables stay inside the comprehension.
"""

from __future__ import annotations

from typing import NamedTuple

import gast

from autograph import traversal
from autograph.anno import Anno, setanno

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class Scope(NamedTuple):
    """Names read and names modified by a piece of code."""

    read: frozenset
    modified: frozenset

    def __or__(self, other: Scope) -> Scope:
        return Scope(self.read | other.read, self.modified | other.modified)


EMPTY = Scope(frozenset(), frozenset())


def analyze(tree) -> None:
    """Annotates every statement under `tree` (nested functions included)."""
    memo: dict = {}
    statements = [n for n in traversal.statements(tree) if isinstance(n, gast.stmt)]
    for node in reversed(statements):  # inner statements first, so outer ones reuse them
        memo[id(node)] = scope = of(node, memo)
        setanno(node, Anno.SCOPE, scope)
        if isinstance(node, (gast.If, gast.While, gast.For)):
            setanno(node, Anno.BODY_SCOPE, of_block(node.body, memo))
            setanno(node, Anno.ORELSE_SCOPE, of_block(node.orelse, memo))


def of(node, memo=None) -> Scope:
    """The Scope of one node (a statement or an expression); `memo` holds known statements."""
    collector = _Collector(memo or {})
    collector.visit(node)
    return Scope(frozenset(collector.read), frozenset(collector.modified))


def of_block(stmts, memo=None) -> Scope:
    scope = EMPTY
    for s in stmts:
        scope = scope | of(s, memo)
    return scope


class _Collector(traversal.Visitor):
    def __init__(self, memo):
        self.memo = memo
        self.read = set()
        self.modified = set()

    def visit(self, node):
        known = self.memo.get(id(node))
        if known is None:
            return super().visit(node)
        self.read |= known.read
        self.modified |= known.modified
        return None

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load):
            self.read.add(node.id)
        else:
            self.modified.add(node.id)

    def visit_AugAssign(self, node):
        if isinstance(node.target, gast.Name):
            self.read.add(node.target.id)
        self.generic_visit(node)

    def _visit_function(self, node, args, body):
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default)
        inner = _Collector(self.memo)
        for stmt in body if isinstance(body, list) else [body]:
            inner.visit(stmt)
        params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
        params |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
        self.read |= inner.read - inner.modified - params

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.modified.add(node.name)
        self._visit_function(node, node.args, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._visit_function(node, node.args, node.body)

    def visit_ClassDef(self, node):
        self.modified.add(node.name)
        for base in node.bases + node.decorator_list:
            self.visit(base)

    def _visit_comprehension(self, node, elements):
        inner = _Collector(self.memo)
        for generator in node.generators:
            inner.visit(generator)
        for element in elements:
            inner.visit(element)
        self.read |= inner.read - inner.modified

    def visit_ListComp(self, node):
        self._visit_comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._visit_comprehension(node, [node.key, node.value])

    def visit_Import(self, node):
        for alias in node.names:
            self.modified.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.name is not None:
            self.visit(node.name) if isinstance(node.name, gast.Name) else self.modified.add(
                node.name
            )
        if node.type is not None:
            self.visit(node.type)
        for stmt in node.body:
            self.visit(stmt)

    def visit_Global(self, node):
        pass

    visit_Nonlocal = visit_Global
