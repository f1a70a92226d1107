"""A `match` statement stays Python control flow; its subject is checked to be a Python value:

    match command:            ->     match ag__.match_subject(command):

A tensor subject is an error at the user's line that says to write the `match` as `if`/`elif`
(which autograph stages), instead of failing inside a pattern's comparison.
"""

from __future__ import annotations

from autograph import templates, traversal
from autograph.anno import Anno, getanno


def transform(node, ctx):
    """Wraps the subject of every `match` under `node`."""
    return _Matches().visit(node)


class _Matches(traversal.StatementTransformer):
    def visit_Match(self, node):
        self.generic_visit(node)
        node.subject = templates.replace_expr("ag__.match_subject(subject)",
                                              getanno(node, Anno.ORIGIN), subject=node.subject)
        return node
