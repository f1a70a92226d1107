"""Shape inference helpers shared by op definitions (dims may be None: unknown)."""

from __future__ import annotations

from runtime.errors import InvalidArgumentError


def broadcast(*shapes) -> tuple:
    """numpy broadcasting of shapes with unknown dims; raises when known dims conflict."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        dims = [s[len(s) - rank + axis] for s in shapes if len(s) - rank + axis >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise InvalidArgumentError(
                "shapes " + " and ".join(str(list(s)) for s in shapes) + " cannot be broadcast"
            )
        if known:
            out.append(known.pop())
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def normalize_axis(axis: int, rank: int, op: str) -> int:
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"{op}: axis {axis} is out of range for rank {rank}")
    return axis % rank


def reduce(shape, axis, keepdims: bool) -> tuple:
    """The shape after reducing `axis` (None: all axes; int or tuple of ints)."""
    rank = len(shape)
    if axis is None:
        axes = set(range(rank))
    else:
        axes = {normalize_axis(a, rank, "reduce") for a in (axis if isinstance(axis, tuple) else (axis,))}
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def num_elements(shape):
    n = 1
    for d in shape:
        if d is None:
            return None
        n *= d
    return n
