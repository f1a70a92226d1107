"""String ops (strings are object arrays of `bytes`, or `bytes` when 0-d)."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.conversion import convert_to_tensor
from runtime.ops import shapes
from runtime.ops.registry import apply, define_op
from runtime.tensor import normalize


def _join_kernel(*inputs, separator):
    if all(isinstance(v, bytes) for v in inputs):
        return separator.join(inputs)
    arrays = np.broadcast_arrays(*[np.asarray(v, dtype=object) for v in inputs])
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = separator.join(a[index] for a in arrays)
    return normalize(out)


STRING_JOIN = define_op(
    "StringJoin",
    infer=lambda inputs, *, separator: [
        (dtypes.string, shapes.broadcast(*(t.shape for t in inputs)))
    ],
    kernel=_join_kernel,
)


def join(inputs, separator=""):
    """Elementwise concatenation of string tensors, with `separator` between them."""
    tensors = [convert_to_tensor(t) for t in inputs]
    for t in tensors:
        if not t.dtype.is_string:
            raise TypeError(f"strings.join needs string tensors, got {t.dtype.name}.")
    sep = separator.encode() if isinstance(separator, str) else bytes(separator)
    return apply(STRING_JOIN, tensors, {"separator": sep})
