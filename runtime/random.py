"""`rt.random`: random numbers (new numbers on every call, in graphs too)."""

from runtime.ops.random_ops import normal, set_seed, uniform

__all__ = ["normal", "set_seed", "uniform"]
