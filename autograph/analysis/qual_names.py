"""Qualified names: annotates Name and Attribute chains with `Anno.QN` ('a', 'a.b.c').

Converters use them to recognise calls such as `lst.append(v)` without re-walking attributes.
"""

from __future__ import annotations

import gast

from autograph.anno import Anno, getanno, setanno


def resolve(tree) -> None:
    """Annotates every Name and every Attribute on a name (`a.b.c`) under `tree`."""
    for node in gast.walk(tree):
        qn = _qn(node)
        if qn is not None:
            setanno(node, Anno.QN, qn)


def qn(node) -> str | None:
    """The qualified name annotated on `node`, or computed if it has none."""
    return getanno(node, Anno.QN) or _qn(node)


def _qn(node) -> str | None:
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = _qn(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None
