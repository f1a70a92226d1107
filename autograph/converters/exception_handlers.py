"""Every `except` clause first re-raises an exception that a graph raised while tracing paths
that may never run (see `operators.exceptions.reraise_staged`):

    try:                               try:
        y = check(x)                       y = ag__.converted_call(check, x)
    except ValueError:        ->       except ValueError as exc:
        y = 0                              ag__.reraise_staged(exc)
                                           y = 0
A bare `except:` becomes `except BaseException as exc:`, which catches the same.

Last of all (`guard_statements`), a `try` with `except` clauses runs under `ag__.TryBody()`:
once tracing it made the graph raise on some path, an exception that escapes the statement while
tracing is refused (plain Python may never get there: on some inputs it stops at that raise and
runs an `except`, which a graph cannot do).
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.anno import Anno, getanno


def transform(node, ctx):
    """Instruments the `except` clauses under `node`."""
    return _Handlers(ctx).visit(node)


class _Handlers(traversal.StatementTransformer):
    def __init__(self, ctx):
        self.namer = ctx.namer

    def visit_ExceptHandler(self, node):
        self.generic_visit(node)
        if node.type is None:
            node.type = templates.name("BaseException")
        if node.name is None:
            node.name = templates.name(self.namer.new("exc"), gast.Store())
        check = templates.replace("ag__.reraise_staged(exc)", getanno(node, Anno.ORIGIN),
                                  exc=node.name.id)
        node.body = check + node.body
        return node


def guard_statements(node, ctx):
    """Puts every `try` with `except` clauses under `node` inside `with ag__.TryBody():`."""
    return _Guards().visit(node)


class _Guards(traversal.StatementTransformer):
    def visit_Try(self, node):
        self.generic_visit(node)
        if not node.handlers:
            return node
        return templates.replace("with ag__.TryBody():\n    statement",
                                 getanno(node, Anno.ORIGIN), statement=[node])
