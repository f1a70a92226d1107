"""numpy.random's everyday functions on tensors: inside a graph, `np.random.normal(...)` gives
new numbers on every call, as the numpy code does each time it runs (not numbers drawn once
while tracing and frozen into the graph). The numbers come from rt's generator
(`rt.random.set_seed`), so they differ from numpy's own sequence; their dtypes are numpy's
(float64)."""

from __future__ import annotations

from runtime.core import dtypes
from runtime.ops import random_ops

__all__ = ["normal", "rand", "randn", "random", "random_sample", "standard_normal", "uniform"]


def _shape(size):
    return () if size is None else (size,) if isinstance(size, int) else size


def normal(loc=0.0, scale=1.0, size=None):
    """numpy.random.normal: float64 numbers of mean `loc`, deviation `scale`."""
    return random_ops.normal(_shape(size), loc, scale, dtype=dtypes.float64)


def standard_normal(size=None):
    """numpy.random.standard_normal."""
    return normal(0.0, 1.0, size)


def randn(*dims):
    """numpy.random.randn."""
    return normal(0.0, 1.0, dims or None)


def uniform(low=0.0, high=1.0, size=None):
    """numpy.random.uniform: float64 numbers in [low, high)."""
    return random_ops.uniform(_shape(size), low, high, dtype=dtypes.float64)


def random(size=None):  # noqa: A001 - numpy's name
    """numpy.random.random: float64 numbers in [0, 1)."""
    return uniform(0.0, 1.0, size)


random_sample = random


def rand(*dims):
    """numpy.random.rand."""
    return uniform(0.0, 1.0, dims or None)
