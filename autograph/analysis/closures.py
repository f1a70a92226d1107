"""Closures: which variables of a function are shared with other scopes.

A branch or loop body becomes a local function that takes the variables it changes and returns
them. That is exact for variables only that function body sees. A variable that a nested
function or lambda reads (late binding: it must see the current value), or that is declared
`global` / `nonlocal`, is shared: bodies change it in place (`nonlocal x` / `global x`) instead.

Annotates every FunctionDef under the tree with `Anno.SHARED`, a `Shared`: `kinds` maps the
shared variables to "nonlocal" or "global"; `called_writes` are those that nested functions
assign (through `nonlocal`), so any call in a branch or loop body may change them: the nested
functions that a call can reach (all but a `def` without decorators whose name nothing loads).
"""

from __future__ import annotations

from typing import NamedTuple

import gast

from autograph import traversal
from autograph.anno import Anno, setanno

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_SCOPES = _FUNCTIONS + (gast.ClassDef, gast.GeneratorExp)


class Shared(NamedTuple):
    kinds: dict
    called_writes: frozenset


_NOTHING = Shared({}, frozenset())


def analyze(fn_node) -> None:
    """Annotates `fn_node` and the functions nested in it."""
    nodes = traversal.walk(fn_node)
    functions = [n for n in nodes if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))]
    if len(functions) == 1 and not any(
            isinstance(n, _SCOPES + (gast.Global, gast.Nonlocal)) for n in nodes[1:]):
        setanno(fn_node, Anno.SHARED, _NOTHING)  # nothing to share with (the common case)
        return
    for node in functions:
        setanno(node, Anno.SHARED, _shared(node))


def own_variables(fn_node) -> set:
    """The names that are variables of `fn_node` itself: those it binds, but not those it
    declares global or nonlocal."""
    scope = _Scope(fn_node)
    return scope.bound - scope.globals - scope.nonlocals


def bound_names(fn_node) -> set:
    """The names `fn_node` binds in its own scope (parameters, assignments, nested definitions)
    or declares global / nonlocal."""
    scope = _Scope(fn_node)
    return scope.bound | scope.globals | scope.nonlocals


def _shared(fn_node) -> Shared:
    own = _Scope(fn_node)
    kinds = {name: "global" for name in own.globals}
    kinds.update({name: "nonlocal" for name in own.nonlocals})
    local = own.bound - own.globals - own.nonlocals
    written = set()
    loaded = own.loads.union(*(_free(inner) for inner in own.inner_scopes))
    for inner in own.inner_scopes:
        for name in _free(inner) & local:
            kinds[name] = "nonlocal"
        if _callable_later(inner, loaded):
            written |= _nonlocal_writes(inner) & local
    return Shared(kinds, frozenset(written))


def _callable_later(scope_node, loaded: set) -> bool:
    """Whether a call can reach the nested scope: a lambda or class, a decorated function (its
    decorator has it), or a function whose name the enclosing function or one of its nested
    scopes loads; also any, where `locals`, `vars`, `eval` or `exec` are loaded."""
    if not isinstance(scope_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        return True
    return bool(scope_node.decorator_list) or scope_node.name in loaded or bool(
        loaded & {"locals", "vars", "eval", "exec"})


def _nonlocal_writes(scope_node) -> set:
    """Names a nested scope assigns in enclosing scopes (declared `nonlocal` there or deeper)."""
    scope = _Scope(scope_node)
    written = set(scope.nonlocals)
    for inner in scope.inner_scopes:
        written |= _nonlocal_writes(inner) - (scope.bound - scope.nonlocals)
    return written


def _free(scope_node) -> set:
    """Names a nested scope uses (reads, or assigns through `nonlocal`) from outside itself."""
    scope = _Scope(scope_node)
    used = scope.loads | scope.nonlocals
    for inner in scope.inner_scopes:
        used |= _free(inner)
    return used - (scope.bound - scope.nonlocals - scope.globals)


class _Scope(traversal.Visitor):
    """The names one scope loads and binds, its declarations, and the scopes nested in it
    (whose bodies are not visited; their decorators and defaults belong to this scope)."""

    def __init__(self, node):
        self.loads, self.bound = set(), set()
        self.globals, self.nonlocals = set(), set()
        self.inner_scopes = []
        self.comprehension = isinstance(node, gast.GeneratorExp)
        if isinstance(node, _FUNCTIONS):
            args = node.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if arg is not None:
                    self.bound.add(arg.id)
            for stmt in node.body if isinstance(node.body, list) else [node.body]:
                self.visit(stmt)
        elif isinstance(node, gast.ClassDef):
            for stmt in node.body:
                self.visit(stmt)
        else:  # a generator expression: its first iterable is evaluated outside it
            self.generic_visit(node)

    def _nested(self, node):
        """A nested scope: what of it this scope evaluates (defaults, annotations, decorators,
        bases and class keywords) is this scope's."""
        self.inner_scopes.append(node)
        if isinstance(node, _FUNCTIONS):
            args = node.args
            for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
                self.visit(default)
            for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    self.visit(arg.annotation)
            if getattr(node, "returns", None) is not None:
                self.visit(node.returns)
        for decorator in getattr(node, "decorator_list", []):
            self.visit(decorator)
        if isinstance(node, gast.ClassDef):
            for base in node.bases:
                self.visit(base)
            for keyword in node.keywords:
                self.visit(keyword.value)
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            self.bound.add(node.name)

    def visit_FunctionDef(self, node):
        self._nested(node)

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_GeneratorExp = visit_FunctionDef

    def visit_Name(self, node):
        (self.loads if isinstance(node.ctx, gast.Load) else self.bound).add(node.id)

    def visit_NamedExpr(self, node):
        """`(n := ...)` in a generator expression assigns `n` of the enclosing function."""
        if self.comprehension and isinstance(node.target, gast.Name):
            self.nonlocals.add(node.target.id)
            self.visit(node.value)
        else:
            self.generic_visit(node)

    def visit_Global(self, node):
        self.globals.update(node.names)

    def visit_Nonlocal(self, node):
        self.nonlocals.update(node.names)

    def visit_Import(self, node):
        for alias in node.names:
            self.bound.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if isinstance(node.name, gast.Name):
            self.bound.add(node.name.id)
        self.generic_visit(node)
