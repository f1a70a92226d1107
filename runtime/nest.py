"""Flattening nested structures (tuple, list, dict, namedtuple) to leaves and back."""

from __future__ import annotations


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value) -> bool:
    return isinstance(value, (list, tuple, dict))


def _children(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted(value, key=repr)]
    return list(value)


def flatten(structure) -> list:
    """The leaves of `structure`, depth first (dicts in sorted key order)."""
    leaves, stack = [], [structure]
    while stack:
        value = stack.pop()
        if is_nested(value):
            stack.extend(reversed(_children(value)))
        else:
            leaves.append(value)
    return leaves


def pack_sequence_as(structure, leaves):
    """`structure` with its leaves replaced by `leaves` (in `flatten` order)."""
    it = iter(leaves)
    result = _pack(structure, it)
    if next(it, _END) is not _END:
        raise ValueError("pack_sequence_as: more leaves than the structure has")
    return result


_END = object()


def _pack(structure, it):
    if isinstance(structure, dict):
        packed = {k: _pack(structure[k], it) for k in sorted(structure, key=repr)}
        return type(structure)((k, packed[k]) for k in structure)
    if _is_namedtuple(structure):
        return type(structure)(*[_pack(v, it) for v in structure])
    if isinstance(structure, (list, tuple)):
        return type(structure)(_pack(v, it) for v in structure)
    return next(it)


def structure_str(structure) -> str:
    """A short description of a structure's shape: `(_, [_, _])`."""
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {structure_str(v)}" for k, v in structure.items()) + "}"
    if isinstance(structure, tuple):
        return (
            "("
            + ", ".join(structure_str(v) for v in structure)
            + ("," if len(structure) == 1 else "")
            + ")"
        )
    if isinstance(structure, list):
        return "[" + ", ".join(structure_str(v) for v in structure) + "]"
    return "None" if structure is None else "_"


def assert_same_structure(a, b, what: str) -> None:
    if structure_str(a) != structure_str(b):
        raise ValueError(f"{what}: structures differ: {structure_str(a)} vs {structure_str(b)}")
