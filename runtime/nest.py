"""Nested structures (tuple, list, dict, namedtuple) as leaves and back: the one definition of
leaf order (dicts by sorted key) that tracing, the signature cache key, output packing and
save/load share. (autograph keeps its own small copy, autograph/operators/structures.py, so
that it needs no tensor library.)"""

from __future__ import annotations

from autograph.operators.structures import mapping_like


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value) -> bool:
    return isinstance(value, (list, tuple, dict))


def sorted_keys(mapping) -> list:
    """A dict's keys in leaf order."""
    return sorted(mapping, key=repr)


def _children(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted_keys(value)]
    return list(value)


def _labelled_children(value) -> list:
    """(label, child) pairs of a container in leaf order; labels name the child in a path:
    `['key']`, `.field`, `[0]`."""
    if isinstance(value, dict):
        return [(f"[{k!r}]", value[k]) for k in sorted_keys(value)]
    if _is_namedtuple(value):
        return [(f".{f}", v) for f, v in zip(value._fields, value)]
    return [(f"[{i}]", v) for i, v in enumerate(value)]


def flatten_with_paths(structure, path: str = "") -> list:
    """(path, leaf) pairs of `structure` in `flatten` order; a leaf's path is `path` followed by
    the labels that lead to it, e.g. `x['a'][0]`."""
    if not is_nested(structure):
        return [(path, structure)]
    pairs = []
    for label, child in _labelled_children(structure):
        pairs.extend(flatten_with_paths(child, path + label))
    return pairs


def map_with_paths(fn, structure, path: str = ""):
    """`structure` with each leaf replaced by `fn(leaf, its path)` (see flatten_with_paths)."""
    return pack_sequence_as(structure, [fn(leaf, p) for p, leaf in
                                        flatten_with_paths(structure, path)])


def structure_key(structure, leaf_key, path: str = ""):
    """A hashable key of `structure`: its container types (namedtuple classes by identity), dict
    keys, and `leaf_key(leaf, path)` of each leaf."""
    if isinstance(structure, dict):
        return ("dict", tuple((k, structure_key(structure[k], leaf_key, f"{path}[{k!r}]"))
                              for k in sorted_keys(structure)))
    if isinstance(structure, (list, tuple)):
        kind = type(structure) if _is_namedtuple(structure) else type(structure).__name__
        return (kind, tuple(structure_key(v, leaf_key, path + label)
                            for label, v in _labelled_children(structure)))
    return leaf_key(structure, path)


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
        packed = {k: _pack(structure[k], it) for k in sorted_keys(structure)}
        return mapping_like(structure, [(k, packed[k]) for k in structure])
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
