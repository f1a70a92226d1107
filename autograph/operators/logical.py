"""`and_`, `or_`, `not_`: Python's boolean operators, staged on tensors.

    ag__.and_(a, lambda: b)        # a and b, where its value is used (Python: an operand)
    ag__.and_cond(a, lambda: b)    # a and b, where only its truth is (an `if` test, `not`...)
The right operands are thunks, so they are evaluated only when Python would evaluate them;
on a staged left operand the rest becomes the branch of a graph conditional. A staged `and_`
gives the deciding operand, as Python does, so the operands must have one dtype; `and_cond`
gives truth values (a tensor `b` counts as `b != 0`), whatever the operands' types.
"""

from __future__ import annotations

import operator

from autograph import backends
from autograph.errors import AutoGraphError, at
from autograph.operators import py_builtins
from autograph.operators.control_flow import staged_choice
from autograph.origins import caller_origin


def and_(a, *rest):
    """`a and rest[0]() and ...`."""
    if not rest:
        return a
    backend = backends.staging(a)
    if backend is None:
        return and_(rest[0](), *rest[1:]) if a else a
    return _staged_operand(backend, a, lambda: and_(rest[0](), *rest[1:]), lambda: a, "and")


def or_(a, *rest):
    """`a or rest[0]() or ...`."""
    if not rest:
        return a
    backend = backends.staging(a)
    if backend is None:
        return a if a else or_(rest[0](), *rest[1:])
    return _staged_operand(backend, a, lambda: a, lambda: or_(rest[0](), *rest[1:]), "or")


def and_cond(a, *rest):
    """`a and rest[0]() and ...` used as a condition."""
    if not rest:
        return a
    backend = backends.staging(a)
    if backend is None:
        return and_cond(rest[0](), *rest[1:]) if a else a
    return staged_choice(backend, a, lambda: _truth(backend, and_cond(rest[0](), *rest[1:])),
                         lambda: False)


def or_cond(a, *rest):
    """`a or rest[0]() or ...` used as a condition."""
    if not rest:
        return a
    backend = backends.staging(a)
    if backend is None:
        return a if a else or_cond(rest[0](), *rest[1:])
    return staged_choice(backend, a, lambda: True,
                         lambda: _truth(backend, or_cond(rest[0](), *rest[1:])))


def not_(x):
    """`not x`."""
    backend = backends.staging(x)
    if backend is None:
        return not x
    return backend.logical_not(x)


def _truth(backend, value):
    """Python's truth of `value`: a staged bool for a tensor, a Python bool otherwise."""
    if backend.is_tensor(value):
        return backend.cast(value, bool)
    return bool(value)


def _staged_operand(backend, a, if_true, if_false, op):
    try:
        return staged_choice(backend, a, if_true, if_false)
    except TypeError as e:
        raise AutoGraphError(at(
            f"`{op}` on a tensor gives one of its operands (as in Python), and the operands "
            f"here cannot be one graph value ({e}). Where only its truth matters, use it as a "
            "condition (`if a and b:`); else make the operands one dtype (rt.cast) or compare "
            "explicitly (`a != 0`).", caller_origin())) from None


py_builtins.OVERLOADS[operator.not_] = not_  # `operator.not_(x)` is `not x`
