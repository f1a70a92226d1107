"""`rt.debugging`: run-time checks."""

from __future__ import annotations

from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, TensorShape
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, with_origin
from runtime.ops import math_ops, reduction_ops
from runtime.ops.io_ops import assert_true


def assert_equal(x, y, message=None):
    """Raises rt.errors.InvalidArgumentError unless `x == y` everywhere (broadcasting).

    A shape (`logits.shape`) is compared at once, while tracing; it must then be fully known
    (compare `rt.shape(t)`, a tensor, to check unknown dims when the graph runs). Tensors are
    compared when the graph runs (eagerly: at once)."""
    what = f"{message}: " if message else ""
    if isinstance(x, TensorShape) or isinstance(y, TensorShape):
        for shape in (x, y):
            if isinstance(shape, TensorShape) and not shape.is_fully_defined():
                raise ValueError(with_origin(
                    f"{what}assert_equal of the shape {list(shape)}, which has dims unknown "
                    "while tracing; compare rt.shape(tensor) instead (checked when the graph "
                    "runs).", user_origin(2)))
        if tuple(x) != tuple(y):
            raise InvalidArgumentError(with_origin(
                f"{what}assert_equal failed: {tuple(x)} != {tuple(y)}.", user_origin(2)))
        return
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if isinstance(x, EagerTensor) and isinstance(y, EagerTensor):
        if not bool(reduction_ops.reduce_all(math_ops.equal(x, y))):
            raise InvalidArgumentError(with_origin(
                f"{what}assert_equal failed: {x.numpy()!r} != {y.numpy()!r}.", user_origin(2)))
        return
    assert_true(reduction_ops.reduce_all(math_ops.equal(x, y)),
                f"{what}assert_equal failed: the two tensors differ")


__all__ = ["assert_equal", "assert_true"]
