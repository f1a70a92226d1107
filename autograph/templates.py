"""Code templates: Python source with placeholder names, filled with AST nodes or strings.

    templates.replace('''
        def loop_body(state):
            body
            return state
    ''', state=[...names], body=stmts)

A placeholder replaced by a list of statements is spliced as a block; by a string, it becomes
that name; by an expression, that expression. Load/Store/Param contexts are fixed to where the
placeholder stands, and new nodes take `origin` (the user's node being replaced).
"""

from __future__ import annotations

import copy
import textwrap

import gast

from autograph import origins, traversal
from autograph.anno import Anno, setanno


def replace(template: str, origin=None, **replacements) -> list:
    """Parses `template` and substitutes `replacements`; returns a list of statements."""
    parsed = _PARSED.get(template)
    if parsed is None:
        parsed = _PARSED[template] = gast.parse(textwrap.dedent(template))
    tree = _Replacer(replacements).visit(_copy(parsed))
    origins.stamp(tree.body, origin)
    return tree.body


# template text -> its parsed module, copied for each use (copying is 4x faster than parsing)
_PARSED: dict = {}


def _copy(node):
    """A fresh copy of the template tree `node` (fields only: templates have no annotations)."""
    cls = type(node)
    new = cls.__new__(cls)
    fields = new.__dict__
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, gast.AST):
            value = _copy(value)
        elif type(value) is list:
            value = [_copy(v) if isinstance(v, gast.AST) else v for v in value]
        fields[field] = value
    return new


def replace_expr(template: str, origin=None, **replacements):
    """Like `replace` for a template that is a single expression."""
    (stmt,) = replace(template, origin, **replacements)
    return stmt.value


def no_arguments():
    """The arguments of a function that takes none (`lambda: ...`)."""
    return gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])


def name(identifier: str, ctx=None):
    """A gast Name (Load by default), marked as generated."""
    node = _NAME.__new__(_NAME)  # gast's keyword constructor is slow; this is a hot path
    node.__dict__.update(id=identifier, ctx=ctx or gast.Load(), annotation=None,
                         type_comment=None)
    setanno(node, Anno.GENERATED, True)
    return node


_NAME = gast.Name


def names_tuple(identifiers, ctx=None):
    """A tuple expression of names: `(a, b)`; `(a,)` for one."""
    return gast.Tuple(elts=[name(n, ctx) for n in identifiers], ctx=ctx or gast.Load())


def strings_tuple(identifiers):
    """The tuple of string constants `('a', 'b')`."""
    return gast.Tuple(elts=[gast.Constant(value=n, kind=None) for n in identifiers],
                      ctx=gast.Load())


class _Replacer(traversal.Transformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def _value(self, key, ctx):
        value = self.replacements[key]
        if isinstance(value, str):
            return name(value, copy.copy(ctx))
        return _with_ctx(value, ctx)

    def visit_Name(self, node):
        if node.id not in self.replacements:
            return node
        return self._value(node.id, node.ctx)

    def visit_Expr(self, node):
        # A bare placeholder statement (`body`) splices a list of statements.
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            if isinstance(value, list) and (not value or isinstance(value[0], gast.stmt)):
                return value
        return self.generic_visit(node)

    def visit_FunctionDef(self, node):
        if node.name in self.replacements:
            node.name = self.replacements[node.name]
        # A placeholder among parameters expands to one parameter per name.
        params = []
        for arg in node.args.args:
            value = self.replacements.get(arg.id)
            if value is None:
                params.append(arg)
            elif isinstance(value, str):
                params.append(name(value, gast.Param()))
            else:
                params.extend(name(v, gast.Param()) for v in value)
        node.args.args = params
        node.body = [self.visit(s) for s in node.body]
        node.body = [s for item in node.body for s in (item if isinstance(item, list) else [item])]
        return node

    def visit_Tuple(self, node):
        # `(state,)` with state = ['a', 'b'] becomes `(a, b)`.
        elts = []
        for elt in node.elts:
            if isinstance(elt, gast.Name) and isinstance(self.replacements.get(elt.id), list) \
                    and all(isinstance(v, str) for v in self.replacements[elt.id]):
                elts.extend(name(v, copy.copy(elt.ctx)) for v in self.replacements[elt.id])
            else:
                elts.append(self.visit(elt))
        node.elts = elts
        return node


def _with_ctx(node, ctx):
    """`node` (an expression) with its outermost context set to `ctx`."""
    if node is None:
        return None
    if hasattr(node, "ctx") and ctx is not None:
        node.ctx = copy.copy(ctx)
        if isinstance(node, (gast.Tuple, gast.List)):
            for elt in node.elts:
                _with_ctx(elt, ctx)
    return node
