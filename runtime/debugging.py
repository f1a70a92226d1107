"""`rt.debugging`: run-time checks."""

from runtime.ops.io_ops import assert_true

__all__ = ["assert_true"]
