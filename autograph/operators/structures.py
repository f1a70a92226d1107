"""Nested Python values as flat leaves plus a `Tree` that rebuilds them.

Tuples, namedtuples, lists and dicts are containers; everything else is a leaf. Staged control
flow carries leaves (backends see flat tuples) and rebuilds the user's structure around them.
autograph keeps this small copy so that it does not depend on a tensor library's.
"""

from __future__ import annotations


class Tree:
    """The shape of a nested value: `kind` is None for a leaf, else the container type;
    `keys` are a dict's keys (in the order of the first value seen)."""

    __slots__ = ("kind", "keys", "children")

    def __init__(self, kind, keys, children):
        self.kind, self.keys, self.children = kind, keys, children

    def __eq__(self, other) -> bool:
        if not isinstance(other, Tree) or self.kind is not other.kind:
            return False
        if self.kind is dict and set(self.keys) != set(other.keys):
            return False
        if self.kind is dict:
            theirs = dict(zip(other.keys, other.children))
            return all(c == theirs[k] for k, c in zip(self.keys, self.children))
        return self.children == other.children

    __hash__ = None

    def describe(self) -> str:
        """E.g. "a tuple of 2", "a dict with keys 'a', 'b'", "a single value"."""
        if self.kind is None:
            return "a single value"
        if self.kind is dict:
            return "a dict with keys " + ", ".join(map(repr, self.keys)) if self.keys else \
                "an empty dict"
        return f"a {self.kind.__name__} of {len(self.children)}"

    def paths(self) -> list:
        """The suffix that names each leaf, in leaf order: "" for a leaf, "[0]", "['a']"..."""
        if self.kind is None:
            return [""]
        if self.kind is dict:
            labels = [f"[{k!r}]" for k in self.keys]
        elif hasattr(self.kind, "_fields"):
            labels = [f".{f}" for f in self.kind._fields]
        else:
            labels = [f"[{i}]" for i in range(len(self.children))]
        return [label + rest for label, child in zip(labels, self.children)
                for rest in child.paths()]


_LEAF = Tree(None, None, ())


def flatten(value) -> tuple[list, Tree]:
    """(leaves, tree) of `value`."""
    leaves = []
    return leaves, _flatten(value, leaves)


def _flatten(value, leaves) -> Tree:
    kind = type(value)
    if kind is dict:
        keys = tuple(value)
        return Tree(dict, keys, tuple(_flatten(value[k], leaves) for k in keys))
    if kind is list or kind is tuple or (isinstance(value, tuple) and hasattr(kind, "_fields")):
        return Tree(kind, None, tuple(_flatten(v, leaves) for v in value))
    leaves.append(value)
    return _LEAF


def unflatten(tree: Tree, leaves) -> object:
    """The value of structure `tree` with the leaves taken in order from the iterator `leaves`."""
    if tree.kind is None:
        return next(leaves)
    children = [unflatten(child, leaves) for child in tree.children]
    if tree.kind is dict:
        return dict(zip(tree.keys, children))
    if hasattr(tree.kind, "_fields"):
        return tree.kind(*children)
    return tree.kind(children)



def copy(value):
    """`value` with new containers around the same leaves (a leaf is returned as it is)."""
    if type(value) not in (dict, list, tuple) and not (
            isinstance(value, tuple) and hasattr(type(value), "_fields")):
        return value
    leaves, tree = flatten(value)
    return unflatten(tree, iter(leaves))
