"""Every `except` clause first re-raises an exception that a graph raised while tracing paths
that may never run (see `operators.exceptions.reraise_staged`):

    try:                               try:
        y = check(x)                       y = ag__.converted_call(check, x)
    except ValueError:        ->       except ValueError as exc:
        y = 0                              ag__.reraise_staged(exc)
                                           y = 0
A bare `except:` becomes `except BaseException as exc:`, which catches the same.
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
