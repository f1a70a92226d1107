"""Nested Python values as leaves and back: the one structure library of autograph and the runtime.

Containers are dicts with their subclasses (OrderedDict, defaultdict, a user's dict subclass:
rebuilt as the same type, with its attributes, see `mapping_like`), lists, tuples and
namedtuples; everything else is a leaf. Its users differ in two rules, each a keyword parameter
of the functions below (the defaults are autograph's):

    sort_keys            a dict's children in sorted key order (`sorted_keys`: by repr), the
                         runtime's leaf order, shared by tracing, the signature cache key,
                         output packing and saved files; else in the dict's own (insertion)
                         order, which autograph's staged control flow keeps (Python code sees
                         it). Either way a rebuilt dict has its keys in the original's order.
    sequence_subclasses  other subclasses of list and tuple (TensorShape, a user's list
                         subclass) are containers, rebuilt as their type (the runtime); else
                         they are leaves (autograph: only exact lists and tuples, and
                         namedtuples)

`runtime/nest.py` binds the runtime's rules (both True). A leaf's path is the labels that lead
to it: `['key']` for a dict item, `.field` for a namedtuple's, `[0]` for a list's or tuple's.
This module uses only the standard library (the runtime imports it; autograph needs no tensor
library).
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Iterable

_BASES = (list, tuple, dict)


# ---- containers --------------------------------------------------------------------------------
def is_namedtuple(value) -> bool:
    """Whether `value` is a namedtuple (a tuple whose type has `_fields`)."""
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _namedtuple_type(kind) -> bool:
    return issubclass(kind, tuple) and hasattr(kind, "_fields")


def _is_sequence(value, sequence_subclasses: bool) -> bool:
    kind = type(value)
    if kind is list or kind is tuple:
        return True
    if sequence_subclasses:
        return isinstance(value, (list, tuple))
    return isinstance(value, tuple) and hasattr(kind, "_fields")


def is_container(value, *, sequence_subclasses: bool = False) -> bool:
    """Whether `value` is a container (see the module doc), not a leaf."""
    return isinstance(value, dict) or _is_sequence(value, sequence_subclasses)


def sorted_keys(mapping) -> list:
    """A dict's keys in sorted order (by repr; keys with one repr keep their order)."""
    return sorted(mapping, key=repr)


def _keys(mapping, sort_keys: bool) -> list:
    return sorted_keys(mapping) if sort_keys else list(mapping)


def items(value, *, sort_keys: bool = False, sequence_subclasses: bool = False) -> list:
    """(key, child) pairs of the container `value` in leaf order (a dict's key, or an index);
    [] for a leaf."""
    if isinstance(value, dict):
        return [(k, value[k]) for k in _keys(value, sort_keys)]
    if _is_sequence(value, sequence_subclasses):
        return list(enumerate(value))
    return []


def mapping_like(value, items):
    """A dict of `value`'s type and attributes (a defaultdict's factory...) holding `items`."""
    if type(value) is dict:
        return dict(items)
    new = _copy.copy(value)
    new.clear()
    new.update(items)
    return new


def _sequence_like(kind, children: list):
    """A list or tuple of type `kind` (a namedtuple takes its fields as arguments)."""
    return kind(*children) if _namedtuple_type(kind) else kind(children)


def _labels(value) -> list:
    """The path labels of a list's or tuple's items: `.field` for a namedtuple, else `[i]`."""
    if is_namedtuple(value):
        return [f".{f}" for f in type(value)._fields]
    return [f"[{i}]" for i in range(len(value))]


# ---- leaves and trees --------------------------------------------------------------------------
def leaves(value, *, sort_keys: bool = False, sequence_subclasses: bool = False) -> list:
    """The leaves of `value`, depth first in leaf order (no recursion: any depth)."""
    if not isinstance(value, _BASES):
        return [value]
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if not isinstance(v, _BASES):
            out.append(v)
        elif isinstance(v, dict):
            stack.extend(reversed([v[k] for k in _keys(v, sort_keys)]))
        elif _is_sequence(v, sequence_subclasses):
            stack.extend(reversed(list(v)))
        else:
            out.append(v)
    return out


class Tree:
    """The shape of a nested value: `kind` is None for a leaf, else the container type;
    `keys` are a dict's keys in leaf order and `children` their trees; `like` is a dict
    subclass's value, whose type and attributes (e.g. a defaultdict's factory) a rebuilt one
    takes; `order` is a dict's own key order where it is not the leaf order (sort_keys), else
    None. Trees are equal when they rebuild alike (same types, keys in the same orders, same
    defaultdict factories)."""

    __slots__ = ("kind", "keys", "children", "like", "order")

    def __init__(self, kind, keys, children, like=None, order=None):
        self.kind, self.keys, self.children, self.like, self.order = (
            kind, keys, children, like, order)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Tree) or self.kind is not other.kind:
            return False
        if self.keys != other.keys or self.order != other.order or \
                _factory(self.like) is not _factory(other.like):
            return False
        return self.children == other.children

    __hash__ = None  # type: ignore[assignment]  # (unhashable: compared by value)

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
        elif _namedtuple_type(self.kind):
            labels = [f".{f}" for f in self.kind._fields]
        else:
            labels = [f"[{i}]" for i in range(len(self.children))]
        return [label + rest for label, child in zip(labels, self.children)
                for rest in child.paths()]


_LEAF = Tree(None, None, ())


def flatten(value, *, sort_keys: bool = False, sequence_subclasses: bool = False
            ) -> tuple[list, Tree]:
    """(leaves, tree) of `value`: its leaves in leaf order, and its structure."""
    leaves: list = []
    return leaves, _flatten(value, leaves, sort_keys, sequence_subclasses)


def _flatten(value, leaves, sort_keys, sequence_subclasses) -> Tree:
    if not isinstance(value, _BASES):
        leaves.append(value)
        return _LEAF
    kind = type(value)
    if kind is dict or isinstance(value, dict):
        own = tuple(value)
        keys = tuple(sorted_keys(value)) if sort_keys else own
        return Tree(kind, keys,
                    tuple(_flatten(value[k], leaves, sort_keys, sequence_subclasses)
                          for k in keys),
                    None if kind is dict else value, None if not sort_keys or keys == own else own)
    if _is_sequence(value, sequence_subclasses):
        return Tree(kind, None, tuple(_flatten(v, leaves, sort_keys, sequence_subclasses)
                                      for v in value))
    leaves.append(value)
    return _LEAF


def unflatten(tree: Tree, leaves) -> object:
    """The value of structure `tree` with the leaves taken in order from the iterator `leaves`."""
    if tree.kind is None:
        return next(leaves)
    children = [unflatten(child, leaves) for child in tree.children]
    if tree.keys is None:
        return _sequence_like(tree.kind, children)
    pairs: Iterable[tuple] = zip(tree.keys, children)
    if tree.order is not None:
        by_key = dict(pairs)
        pairs = [(k, by_key[k]) for k in tree.order]
    return dict(pairs) if tree.like is None else mapping_like(tree.like, pairs)


def _factory(value):
    return getattr(value, "default_factory", None)


def pack_sequence_as(structure, leaves, *, sort_keys: bool = False,
                     sequence_subclasses: bool = False):
    """`structure` with its leaves replaced by `leaves` (in leaf order); ValueError when there
    are more leaves than it has. (As `unflatten(flatten(structure)[1], iter(leaves))`, in one
    walk.)"""
    it = iter(leaves)
    result = _pack(structure, it, sort_keys, sequence_subclasses)
    if next(it, _END) is not _END:
        raise ValueError("pack_sequence_as: more leaves than the structure has")
    return result


_END = object()


def _pack(structure, it, sort_keys, sequence_subclasses):
    if not isinstance(structure, _BASES):
        return next(it)
    if isinstance(structure, dict):
        packed = {k: _pack(structure[k], it, sort_keys, sequence_subclasses)
                  for k in _keys(structure, sort_keys)}
        return mapping_like(structure, [(k, packed[k]) for k in structure])
    if _is_sequence(structure, sequence_subclasses):
        return _sequence_like(type(structure), [_pack(v, it, sort_keys, sequence_subclasses)
                                                for v in structure])
    return next(it)


def copy(value, *, sequence_subclasses: bool = False):
    """`value` with new containers around the same leaves (a leaf is returned as it is)."""
    if not is_container(value, sequence_subclasses=sequence_subclasses):
        return value
    leaves, tree = flatten(value, sequence_subclasses=sequence_subclasses)
    return unflatten(tree, iter(leaves))


# ---- paths -------------------------------------------------------------------------------------
def flatten_with_paths(value, path: str = "", *, sort_keys: bool = False,
                       sequence_subclasses: bool = False) -> list:
    """(path, leaf) pairs of `value` in leaf order; a leaf's path is `path` followed by the
    labels that lead to it, e.g. `x['a'][0]`."""
    leaves, tree = flatten(value, sort_keys=sort_keys, sequence_subclasses=sequence_subclasses)
    return [(path + suffix, leaf) for suffix, leaf in zip(tree.paths(), leaves)]


def map_with_paths(fn, value, path: str = "", *, sort_keys: bool = False,
                   sequence_subclasses: bool = False):
    """`value` with each leaf replaced by `fn(leaf, its path)` (see flatten_with_paths); `fn`
    runs on the leaves in leaf order."""
    leaves, tree = flatten(value, sort_keys=sort_keys, sequence_subclasses=sequence_subclasses)
    return unflatten(tree, iter([fn(leaf, path + suffix)
                                 for suffix, leaf in zip(tree.paths(), leaves)]))


def replace_at(value, path, change):
    """`value` with `change(x)` standing for the `x` at `path` (dict keys and list or tuple
    indices from the top; the containers on the way are copies); `value` itself when it has no
    such path. Follows dicts, lists and tuples of any type."""
    if not path:
        return change(value)
    key, rest = path[0], path[1:]
    if isinstance(value, dict) and key in value:
        return mapping_like(value, [(k, replace_at(v, rest, change) if k == key else v)
                                    for k, v in value.items()])
    if isinstance(value, (list, tuple)) and isinstance(key, int) and key < len(value):
        return _sequence_like(type(value), [replace_at(v, rest, change) if i == key else v
                                            for i, v in enumerate(value)])
    return value


# ---- keys and descriptions ---------------------------------------------------------------------
def structure_key(value, leaf_key, path: str = "", *, sort_keys: bool = False,
                  sequence_subclasses: bool = False):
    """A hashable key of `value`: its container types (namedtuple classes by identity, other
    lists and tuples by type name, every dict as "dict"), dict keys in leaf order, and
    `leaf_key(leaf, its path)` of each leaf."""
    return _key(value, leaf_key, path, sort_keys, sequence_subclasses)


def _key(value, leaf_key, path, sort_keys, sequence_subclasses):
    if not isinstance(value, _BASES):
        return leaf_key(value, path)
    if isinstance(value, dict):
        return ("dict", tuple((k, _key(value[k], leaf_key, f"{path}[{k!r}]", sort_keys,
                                       sequence_subclasses))
                              for k in _keys(value, sort_keys)))
    if _is_sequence(value, sequence_subclasses):
        kind = type(value) if is_namedtuple(value) else type(value).__name__
        return (kind, tuple(_key(v, leaf_key, path + label, sort_keys, sequence_subclasses)
                            for label, v in zip(_labels(value), value)))
    return leaf_key(value, path)


def structure_str(value, *, sequence_subclasses: bool = False) -> str:
    """A short sketch of a structure's shape, dicts in their own key order and namedtuples as
    tuples: `(_, [_, _])`, `{'a': _}`; None shows as None, other leaves as _."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {structure_str(v, sequence_subclasses=sequence_subclasses)}"
                               for k, v in value.items()) + "}"
    if _is_sequence(value, sequence_subclasses):
        inner = ", ".join(structure_str(v, sequence_subclasses=sequence_subclasses)
                          for v in value)
        if isinstance(value, tuple):
            return "(" + inner + ("," if len(value) == 1 else "") + ")"
        return "[" + inner + "]"
    return "None" if value is None else "_"


def assert_same_structure(a, b, what: str, *, sequence_subclasses: bool = False) -> None:
    """ValueError naming `what` unless `a` and `b` have one `structure_str`."""
    sa = structure_str(a, sequence_subclasses=sequence_subclasses)
    sb = structure_str(b, sequence_subclasses=sequence_subclasses)
    if sa != sb:
        raise ValueError(f"{what}: structures differ: {sa} vs {sb}")
