"""Deterministic fresh names: `loop_body`, then `loop_body_1`, ... avoiding the user's names."""

from __future__ import annotations

import builtins

import gast

from autograph import traversal

_BUILTINS = frozenset(dir(builtins))


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
        name, i = base, 0
        while name in self._taken:
            i += 1
            name = f"{base}_{i}"
        self._taken.add(name)
        return name
