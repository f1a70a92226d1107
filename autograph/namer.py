"""Deterministic fresh names: `loop_body`, then `loop_body_1`, ... avoiding the user's names.

`fresh_name` is the one helper for this, also used by runtime's code generator and ONNX
exporter."""

from __future__ import annotations

import builtins

import gast

from autograph import traversal

_BUILTINS = frozenset(dir(builtins))


def fresh_name(base: str, taken: set, suffix: str = "_{}") -> str:
    """`base` if it is not in `taken`, else `base + suffix.format(n)` for the first free
    n = 1, 2, ...; the name returned is added to `taken`."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = base + suffix.format(n)
    taken.add(name)
    return name


class Namer:
    """Hands out names not used by the function being converted, nor builtins."""

    def __init__(self, taken):
        self._taken = set(taken) | _BUILTINS

    @classmethod
    def for_tree(cls, tree) -> Namer:
        """A namer that avoids every identifier appearing in `tree`."""
        return cls.for_nodes(traversal.walk(tree))

    @classmethod
    def for_nodes(cls, nodes) -> Namer:
        """A namer that avoids every identifier appearing in `nodes` (all nodes of a tree)."""
        taken = set()
        for n in nodes:
            kind = type(n)
            if kind is gast.Name:
                taken.add(n.id)
            elif kind is gast.FunctionDef or kind is gast.ClassDef:
                taken.add(n.name)
            elif kind is gast.keyword and n.arg:
                taken.add(n.arg)
        return cls(taken)

    def new(self, base: str) -> str:
        """`base` if free, else `base_1`, `base_2`, ..."""
        return fresh_name(base, self._taken)
