"""Annotations: facts that analyses attach to AST nodes, keyed by the `Anno` enum.

Analyses only write annotations; converters read them. Annotations live in a per-node side
table (a dict attribute), so `copy.deepcopy` of a node copies them too.
"""

from __future__ import annotations

import enum

_FIELD = "_ag_anno"


class Anno(enum.Enum):
    """Every annotation key, with what it holds."""

    ORIGIN = "origins.Origin: where the node came from in the user's source"
    QN = "str: the qualified name of a Name or Attribute chain, e.g. 'a.b.c'"
    SCOPE = "activity.Scope: names a statement (or block) reads and modifies"
    BODY_SCOPE = "activity.Scope: names the body of an if/loop reads and modifies"
    ORELSE_SCOPE = "activity.Scope: names the else-branch of an if reads and modifies"
    LIVE_IN = "frozenset[str]: names live at the start of an if's branches, or at a loop's head"
    LIVE_OUT = "frozenset[str]: names live after a compound statement"
    DEFINED_IN = "frozenset[str]: names that may be defined before a statement"
    DEFINED_SURELY = "frozenset[str]: names that are defined on every path to a statement"
    LOOP_TEST = "gast.expr: extra loop condition added by break/return lowering (for loops)"
    GENERATED = "bool: a statement or name made by a converter, not the user"
    TRUTH_ONLY = "bool: an `and`/`or` whose value is used only for its truth (e.g. an `if` test)"
    SHARED = "dict[str, str]: variables a function shares with other scopes -> 'nonlocal'/'global'"

    # Members are singletons: hash by identity, in C (Enum's own __hash__ is Python code, and
    # annotation lookups are among the most frequent operations of a conversion).
    __hash__ = object.__hash__


def setanno(node, key: Anno, value) -> None:
    table = node.__dict__.get(_FIELD)
    if table is None:
        table = {}
        setattr(node, _FIELD, table)
    table[key] = value


def getanno(node, key: Anno, default=None):
    table = node.__dict__.get(_FIELD)
    return default if table is None else table.get(key, default)


def hasanno(node, key: Anno) -> bool:
    table = node.__dict__.get(_FIELD)
    return table is not None and key in table
