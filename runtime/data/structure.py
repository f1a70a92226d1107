"""Element structures of datasets: tuples (namedtuples too) and dicts of leaves, nested.

As in tf.data, a list is not a structure: it is a value (it becomes one tensor). Dicts flatten
in sorted key order and pack back with their keys.
"""

from __future__ import annotations


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_structure(value) -> bool:
    return isinstance(value, (tuple, dict))


def flatten(structure) -> list:
    """The leaves of `structure`, depth first (dicts by sorted key)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack(structure, leaves):
    """`structure` with its leaves replaced by `leaves` (in `flatten` order)."""
    return _pack(structure, iter(leaves))


def _pack(structure, leaves):
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], leaves) for key in sorted(structure)}
        return type(structure)((key, packed[key]) for key in structure)
    if isinstance(structure, tuple):
        items = [_pack(item, leaves) for item in structure]
        return type(structure)(*items) if _is_namedtuple(structure) else type(structure)(items)
    return next(leaves)


def map_structure(fn, structure):
    """`structure` with each leaf replaced by `fn(leaf)`."""
    return pack(structure, [fn(leaf) for leaf in flatten(structure)])


def same_structure(a, b) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(same_structure(x, y) for x, y in zip(a, b)))
    return True


def describe(structure) -> str:
    """A short picture of a structure: `(_, {'x': _})`."""
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {describe(structure[k])}" for k in structure) + "}"
    if isinstance(structure, tuple):
        inner = ", ".join(describe(item) for item in structure)
        return f"({inner},)" if len(structure) == 1 else f"({inner})"
    return "_"
