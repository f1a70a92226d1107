"""Deterministic fresh names: `loop_body`, then `loop_body_1`, ... avoiding the user's names."""

from __future__ import annotations

import builtins

import gast


class Namer:
    """Hands out names not used by the function being converted, nor builtins."""

    def __init__(self, taken):
        self._taken = set(taken) | set(dir(builtins))

    @classmethod
    def for_tree(cls, tree) -> Namer:
        """A namer that avoids every identifier appearing in `tree`."""
        taken = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
        taken |= {
            n.name for n in gast.walk(tree) if isinstance(n, (gast.FunctionDef, gast.ClassDef))
        }
        taken |= {n.arg for n in gast.walk(tree) if isinstance(n, gast.keyword) and n.arg}
        return cls(taken)

    def new(self, base: str) -> str:
        """`base` if free, else `base_1`, `base_2`, ..."""
        name, i = base, 0
        while name in self._taken:
            i += 1
            name = f"{base}_{i}"
        self._taken.add(name)
        return name
