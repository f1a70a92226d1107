"""`rt.strings`: string ops."""

from runtime.ops.string_ops import format, join  # noqa: A004 - like str.format

__all__ = ["format", "join"]
