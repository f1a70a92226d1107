"""Nested Python values as flat leaves plus a `Tree` that rebuilds them.

Tuples, namedtuples, lists and dicts are containers, dicts with their subclasses (OrderedDict,
defaultdict, a user's dict subclass: rebuilt as the same type), as in `runtime/nest.py`;
everything else is a leaf. A dict's keys, in their order, are part of its structure (Python
code sees the order). Staged control flow carries leaves (backends see flat tuples) and rebuilds
the user's structure around them. autograph keeps this small copy so that it does not depend on
a tensor library's.
"""

from __future__ import annotations

import copy as _copy


class Tree:
    """The shape of a nested value: `kind` is None for a leaf, else the container type;
    `keys` are a dict's keys (in its order); `like` is a dict subclass's value, whose type and
    attributes (e.g. a defaultdict's factory) a rebuilt one takes."""

    __slots__ = ("kind", "keys", "children", "like")

    def __init__(self, kind, keys, children, like=None):
        self.kind, self.keys, self.children, self.like = kind, keys, children, like

    def __eq__(self, other) -> bool:
        if not isinstance(other, Tree) or self.kind is not other.kind:
            return False
        if self.keys != other.keys or _factory(self.like) is not _factory(other.like):
            return False
        return self.children == other.children

    __hash__ = None

    def describe(self) -> str:
        """E.g. "a tuple of 2", "a dict with keys 'a', 'b'", "a single value"."""
        if self.kind is None:
            return "a single value"
        if self.keys is not None:
            factory = _factory(self.like)
            name = self.kind.__name__ + (
                "" if factory is None else f"({getattr(factory, '__qualname__', factory)})")
            return f"a {name} with keys " + ", ".join(map(repr, self.keys)) if self.keys else \
                f"an empty {name}"
        return f"a {self.kind.__name__} of {len(self.children)}"

    def paths(self) -> list:
        """The suffix that names each leaf, in leaf order: "" for a leaf, "[0]", "['a']"..."""
        if self.kind is None:
            return [""]
        if self.keys is not None:
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
    if kind is dict or isinstance(value, dict):
        keys = tuple(value)
        return Tree(kind, keys, tuple(_flatten(value[k], leaves) for k in keys),
                    None if kind is dict else value)
    if kind is list or kind is tuple or (isinstance(value, tuple) and hasattr(kind, "_fields")):
        return Tree(kind, None, tuple(_flatten(v, leaves) for v in value))
    leaves.append(value)
    return _LEAF


def unflatten(tree: Tree, leaves) -> object:
    """The value of structure `tree` with the leaves taken in order from the iterator `leaves`."""
    if tree.kind is None:
        return next(leaves)
    children = [unflatten(child, leaves) for child in tree.children]
    if tree.keys is not None:
        return dict(zip(tree.keys, children)) if tree.like is None else \
            mapping_like(tree.like, zip(tree.keys, children))
    if hasattr(tree.kind, "_fields"):
        return tree.kind(*children)
    return tree.kind(children)


def mapping_like(value, items):
    """A dict of `value`'s type and attributes (a defaultdict's factory...) holding `items`."""
    if type(value) is dict:
        return dict(items)
    new = _copy.copy(value)
    new.clear()
    new.update(items)
    return new


def _factory(value):
    return getattr(value, "default_factory", None)


def copy(value):
    """`value` with new containers around the same leaves (a leaf is returned as it is)."""
    if type(value) not in (list, tuple) and not isinstance(value, dict) and not (
            isinstance(value, tuple) and hasattr(type(value), "_fields")):
        return value
    leaves, tree = flatten(value)
    return unflatten(tree, iter(leaves))
