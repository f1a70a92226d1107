"""`locals()` (and `vars()`) give the user's variables, not those of the generated function
they end up in.

    def f(x):                     def f(x):
        y = x + 1         ->          y = x + 1
        return locals()               return ag__.locals_({'x': lambda: x, 'y': lambda: y})
A branch or loop body becomes a local function (whose frame lacks the variables it does not
use, and has generated ones): so each local and free variable of the function gets a thunk,
which reads its current value (bodies share these variables with the thunks, as with any
closure). Runs first, so only the user's names are listed; `ag__.locals_` keeps the assigned
ones.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.anno import Anno, getanno
from autograph.origins import stamp

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)
_SCOPES = _FUNCTIONS + (gast.ClassDef, gast.ListComp, gast.SetComp, gast.DictComp,
                        gast.GeneratorExp)


def transform(node, ctx):
    """Rewrites the `locals()` calls of the function `node` and of the functions nested in it;
    `ctx.freevars` are the free variables of the function converted."""
    return _Locals(ctx.freevars).visit(node)


def is_locals_call(node) -> bool:
    """Whether `node` is `locals()` (or `vars()`, the same)."""
    return (type(node) is gast.Call and type(node.func) is gast.Name
            and node.func.id in ("locals", "vars") and not node.args and not node.keywords)


class _Locals(traversal.Transformer):
    def __init__(self, freevars):
        self.scopes = [([], frozenset(freevars))]  # (names, names nested functions see)

    def _function(self, node):
        names = _names(node, self.scopes[-1][1])
        self.scopes.append((names, self.scopes[-1][1] | set(names)))
        self.generic_visit(node)
        self.scopes.pop()
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Call(self, node):
        self.generic_visit(node)
        if not is_locals_call(node):
            return node
        names = self.scopes[-1][0]
        call = gast.Call(
            func=gast.Attribute(value=templates.name("ag__"), attr="locals_", ctx=gast.Load()),
            args=[gast.Dict(keys=[gast.Constant(value=n, kind=None) for n in names],
                            values=[gast.Lambda(args=_no_args(), body=templates.name(n))
                                    for n in names])],
            keywords=[])
        stamp(call, getanno(node, Anno.ORIGIN))
        return gast.copy_location(call, node)


def _no_args():
    return gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])


def _names(fn_node, outer) -> list:
    """The local and free variables of `fn_node` (Python's `locals()` keys): its parameters,
    then in order of appearance the names it binds and the names of `outer` (the variables of
    the functions around it) that it reads; not those only its nested scopes use, nor those it
    declares global."""
    args = fn_node.args
    names = {a.id: None for a in args.posonlyargs + args.args + [args.vararg]
             + args.kwonlyargs + [args.kwarg] if a is not None}
    declared_global = set()
    stack = list(reversed(fn_node.body if isinstance(fn_node.body, list) else [fn_node.body]))
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is gast.Name:
            if not isinstance(n.ctx, gast.Load) or n.id in outer:
                names.setdefault(n.id)
        elif kind in (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef):
            names.setdefault(n.name)
        elif kind is gast.alias:
            names.setdefault((n.asname or n.name).split(".")[0])
        elif kind in (gast.MatchAs, gast.MatchStar) and n.name:
            names.setdefault(n.name)
        elif kind is gast.MatchMapping and n.rest:
            names.setdefault(n.rest)
        elif kind is gast.Nonlocal:
            names.update(dict.fromkeys(n.names))
        elif kind is gast.Global:
            declared_global.update(n.names)
        if kind not in _SCOPES:
            stack.extend(reversed(traversal.children(n)))
    return [n for n in names if n not in declared_global]
