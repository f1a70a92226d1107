"""`and_`, `or_`, `not_`: Python's boolean operators, staged on tensors.

    ag__.and_(a, lambda: b)   # a and b
The right operands are thunks, so they are evaluated only when Python would evaluate them;
on a staged left operand the rest becomes the branch of a graph conditional.
"""

from __future__ import annotations

from autograph import backends


def and_(a, *rest):
    """`a and rest[0]() and ...`."""
    if not rest:
        return a
    backend = backends.staging(a)
    if backend is None:
        return and_(rest[0](), *rest[1:]) if a else a
    return backend.cond(a, lambda: and_(rest[0](), *rest[1:]), lambda: a, None)


def or_(a, *rest):
    """`a or rest[0]() or ...`."""
    if not rest:
        return a
    backend = backends.staging(a)
    if backend is None:
        return a if a else or_(rest[0](), *rest[1:])
    return backend.cond(a, lambda: a, lambda: or_(rest[0](), *rest[1:]), None)


def not_(x):
    """`not x`."""
    backend = backends.staging(x)
    if backend is None:
        return not x
    return backend.logical_not(x)
