"""`in_` and `not_in`: Python's `in` / `not in`, staged on tensors.

    x in t        ->   ag__.in_(x, t)
    x not in t    ->   ag__.not_in(x, t)

On a tensor container (eager or staged) `in` is numpy's `(t == x).any()`: a Python bool for an
eager tensor, a staged scalar bool in a graph. On a list, tuple, set or dict holding staged
values, or with a tensor `x`, it is Python's `any(e is x or e == x for e in container)`, each
`e == x` a staged truth value (so `==` on arrays must give one element, as in Python); a set or
dict is searched the same way (tensors hash by identity, numpy scalars by value). Anything else
is Python's `in` itself, but for a staged answer of a container's own `__contains__` (a
shape's unknown dims).
"""

from __future__ import annotations

from autograph import backends

_HASHED = (set, frozenset, dict)
_CONTAINERS = (list, tuple, *_HASHED)


def in_(item, container):
    """`item in container`."""
    backend = backends.tensor_backend(container)
    if backend is not None:
        found = backend.contains(container, item)
        return found if backends.staging(found) is not None else bool(found)
    if not _plain_container(container):
        contains = getattr(type(container), "__contains__", None)
        if contains is None:
            return item in container  # (Python's search by iteration)
        found = contains(container, item)  # (`in` would take the truth of a staged answer)
        backend = backends.staging(found)
        return bool(found) if backend is None else backend.cast(found, bool)  # (its truth)
    item_is_tensor = backends.tensor_backend(item) is not None
    if item_is_tensor and isinstance(container, _HASHED) and getattr(item, "shape", ()):
        raise TypeError(f"unhashable type: a tensor of shape {list(item.shape)} (like a numpy "
                        "array) cannot be looked up in a set or dict")
    if item_is_tensor or backends.staging_any(container) is not None:
        return _staged_any(item, container)
    return item in container


def _plain_container(container) -> bool:
    """A list, tuple, set or dict, or a subclass searched as they are (a namedtuple, a
    shape): not one with its own `__contains__`."""
    return isinstance(container, _CONTAINERS) and any(
        type(container).__contains__ is kind.__contains__ for kind in _CONTAINERS)


def not_in(item, container):
    """`item not in container`."""
    found = in_(item, container)
    backend = backends.staging(found)
    return not found if backend is None else backend.logical_not(found)


def _staged_any(item, elements):
    """`any(e is item or e == item for e in elements)` with staged comparisons: Python values
    decide now (the first true one ends the search, as in Python); staged ones are or-ed."""
    found = []
    for element in elements:
        if element is item:
            return True
        equal = element == item
        backend = backends.staging(equal)
        if backend is None:
            if equal:
                return True
            continue
        found.append(backend.cast(equal, bool))
    if not found:
        return False
    result = found[0]
    for truth in found[1:]:
        result = result | truth
    return result
