"""`rt.strings`: string ops."""

from runtime.ops.string_ops import join

__all__ = ["join"]
