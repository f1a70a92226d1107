"""Shape inference helpers shared by op definitions (dims may be None: unknown).

They raise InvalidArgumentError for shapes that cannot work. Inside an op's `infer`, `apply`
adds the user's line to the message; an op's public function that validates before `apply`
goes through `static_check`, which adds it.
"""

from __future__ import annotations

import numpy as np

from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.errors import InvalidArgumentError, argument_error, with_origin
from runtime.ops.registry import KNOWN_VALUE


def static_ints(value, what: str) -> tuple:
    """A tuple of Python ints from an int, a list/tuple or an eager tensor. Shapes and axes are
    attrs, so they must be known while tracing: a symbolic tensor is a TypeError."""
    if isinstance(value, SymbolicTensor):
        raise argument_error(
            TypeError,
            f"{what} must be known while tracing (Python ints or a constant), got the symbolic "
            f"tensor {value.name}.",
        )
    if isinstance(value, Tensor):
        value = value.numpy()
    array = np.ravel(np.asarray(value))
    if array.size and array.dtype.kind not in "iu":
        raise argument_error(TypeError, f"{what} must be integers, got {value!r}.")
    return tuple(int(v) for v in array)


def static_check(helper, *args, **kwargs):
    """`helper(*args)`, with an InvalidArgumentError re-raised naming the user's line."""
    try:
        return helper(*args, **kwargs)
    except InvalidArgumentError as e:
        raise argument_error(InvalidArgumentError, with_origin(str(e), user_origin())) from None


def broadcast(*shapes) -> tuple:
    """numpy broadcasting of shapes with unknown dims; raises when known dims conflict."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        dims = [s[len(s) - rank + axis] for s in shapes if len(s) - rank + axis >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise argument_error(
                InvalidArgumentError,
                "shapes " + " and ".join(str(list(s)) for s in shapes) + " cannot be broadcast",
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
        raise argument_error(
            InvalidArgumentError, f"{op}: axis {axis} is out of range for rank {rank}"
        )
    return axis % rank


def reduce(shape, axis, keepdims: bool) -> tuple:
    """The shape after reducing `axis` (None: all axes; int or tuple of ints)."""
    rank = len(shape)
    if axis is None:
        axes = set(range(rank))
    else:
        listed = [normalize_axis(a, rank, "reduce") for a in (
            axis if isinstance(axis, tuple) else (axis,))]
        axes = set(listed)
        if len(axes) != len(listed):
            raise argument_error(InvalidArgumentError, f"reduce: axis {axis} names an axis twice")
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


def is_dynamic(value) -> bool:
    """Whether a shape-like argument holds a symbolic tensor (itself, or among list items)."""
    if isinstance(value, SymbolicTensor):
        return True
    return isinstance(value, (list, tuple)) and any(is_dynamic(v) for v in value)


def known_value(tensor: SymbolicTensor):
    """What tracing knows of the value of an integer tensor: a tuple for a 1-D tensor (None for
    unknown items), an int for a scalar, None when nothing is known. Ops that can tell have a
    KNOWN_VALUE rule (constants, `rt.shape(x)`, casts, packed scalars, an item of a shape)."""
    rule = tensor.op.opdef.rule(KNOWN_VALUE)
    return rule(tensor.op) if rule is not None else None


def known_dims(shape_tensor) -> tuple:
    """The values of a 1-D integer shape tensor that are known while tracing (None for the
    others): from a constant, from `rt.shape(x)` (x's known dims), or from the items of a
    packed list that are constants or such dims."""
    known = known_value(shape_tensor)
    if isinstance(known, tuple):
        return known
    if known is not None:
        return (known,)  # a scalar constant, as np.ravel reads it
    length = shape_tensor.shape[0] if len(shape_tensor.shape) == 1 else None
    if length is None:
        raise argument_error(
            InvalidArgumentError,
            f"a shape must be a 1-D tensor of known length, got {shape_tensor.name} of shape "
            f"{list(shape_tensor.shape)}",
        )
    return (None,) * length
