"""Nested structures (tuple, list, dict, namedtuple) as leaves and back, by the runtime's rules:
the one definition of leaf order that tracing, the signature cache key, output packing and
save/load share. A thin module over autograph's structure library
(autograph/operators/structures.py), with its two rules set for the runtime: dicts by sorted
key (saved files depend on this order), and subclasses of list and tuple (TensorShape...) are
containers too."""

from __future__ import annotations

from autograph.operators import structures
from autograph.operators.structures import sorted_keys  # noqa: F401 - (part of this module's API)


def is_nested(value) -> bool:
    """Whether `value` is a container (a list, tuple or dict, of any subclass)."""
    return isinstance(value, (list, tuple, dict))


def flatten(structure) -> list:
    """The leaves of `structure`, depth first (dicts in sorted key order)."""
    return structures.leaves(structure, sort_keys=True, sequence_subclasses=True)


def pack_sequence_as(structure, leaves):
    """`structure` with its leaves replaced by `leaves` (in `flatten` order)."""
    return structures.pack_sequence_as(structure, leaves, sort_keys=True, sequence_subclasses=True)


def items(structure) -> list:
    """(key, child) pairs of a container in `flatten` order (a dict's key, or an index)."""
    return structures.items(structure, sort_keys=True, sequence_subclasses=True)


def flatten_with_paths(structure, path: str = "") -> list:
    """(path, leaf) pairs of `structure` in `flatten` order; a leaf's path is `path` followed by
    the labels that lead to it, e.g. `x['a'][0]`."""
    return structures.flatten_with_paths(structure, path, sort_keys=True, sequence_subclasses=True)


def map_with_paths(fn, structure, path: str = ""):
    """`structure` with each leaf replaced by `fn(leaf, its path)` (see flatten_with_paths)."""
    return structures.map_with_paths(fn, structure, path, sort_keys=True, sequence_subclasses=True)


def structure_key(structure, leaf_key, path: str = ""):
    """A hashable key of `structure`: its container types (namedtuple classes by identity), dict
    keys, and `leaf_key(leaf, path)` of each leaf."""
    return structures.structure_key(structure, leaf_key, path, sort_keys=True,
                                    sequence_subclasses=True)


def structure_str(structure) -> str:
    """A short description of a structure's shape: `(_, [_, _])`."""
    return structures.structure_str(structure, sequence_subclasses=True)


def assert_same_structure(a, b, what: str) -> None:
    structures.assert_same_structure(a, b, what, sequence_subclasses=True)
