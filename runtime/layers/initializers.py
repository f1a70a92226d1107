"""Initial values of layer variables, by Keras' names: `glorot_uniform` (the default of kernels),
`glorot_normal`, `he_uniform`, `he_normal`, `lecun_normal`, `random_uniform`, `random_normal`,
`zeros`, `ones`, or any callable `(shape, dtype) -> values`.

Random initializers draw from `rt.random`'s generator, so `rt.random.set_seed(n)` before a model
is built makes its initial weights the same on every run; `seed=` gives one initializer its own
sequence.
"""

from __future__ import annotations

import math

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor_conversion import constant
from runtime.ops import creation_ops, random_ops


class Initializer:
    """A callable `(shape, dtype) -> eager tensor` of initial values."""

    def __call__(self, shape, dtype=dtypes.float32):
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Zeros(Initializer):
    def __call__(self, shape, dtype=dtypes.float32):
        return creation_ops.zeros(shape, dtype)


class Ones(Initializer):
    def __call__(self, shape, dtype=dtypes.float32):
        return creation_ops.ones(shape, dtype)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=dtypes.float32):
        return random_ops.uniform(shape, self.minval, self.maxval, dtype, self.seed)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=dtypes.float32):
        return random_ops.normal(shape, self.mean, self.stddev, dtype, self.seed)


class VarianceScaling(Initializer):
    """Keras' variance scaling: values of variance `scale / n`, n the fan in, the fan out or
    their mean (`mode`), from a uniform or a normal truncated at two standard deviations."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"mode is 'fan_in', 'fan_out' or 'fan_avg', got {mode!r}.")
        if distribution not in ("uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("distribution is 'uniform', 'truncated_normal' or "
                             f"'untruncated_normal', got {distribution!r}.")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype=dtypes.float32):
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return random_ops.uniform(shape, -limit, limit, dtype, self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.normal(shape, 0.0, math.sqrt(variance), dtype, self.seed)
        # the stddev of a unit normal truncated to [-2, 2]
        stddev = math.sqrt(variance) / 0.87962566103423978
        return _truncated_normal(shape, stddev, dtype, self.seed)


def _truncated_normal(shape, stddev, dtype, seed):
    """Normal values of `stddev` with those beyond two standard deviations drawn again."""
    values = random_ops.normal(shape, 0.0, 1.0, dtypes.float64, seed).numpy()
    while True:
        outside = np.abs(values) > 2.0
        if not outside.any():
            break
        values[outside] = random_ops.normal([int(outside.sum())], 0.0, 1.0, dtypes.float64,
                                            seed).numpy()
    return constant((values * stddev).astype(dtypes.as_dtype(dtype).np_dtype))


def _fans(shape) -> tuple:
    """(fan in, fan out) of a kernel: a conv kernel [*window, in, out] counts its window."""
    shape = tuple(int(d) for d in shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


def GlorotUniform(seed=None):  # noqa: N802 - Keras' class names
    return VarianceScaling(1.0, "fan_avg", "uniform", seed)


def GlorotNormal(seed=None):  # noqa: N802
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed)


def HeUniform(seed=None):  # noqa: N802
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def HeNormal(seed=None):  # noqa: N802
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def LecunNormal(seed=None):  # noqa: N802
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


_BY_NAME = {"zeros": Zeros, "ones": Ones, "random_uniform": RandomUniform,
            "random_normal": RandomNormal, "glorot_uniform": GlorotUniform,
            "glorot_normal": GlorotNormal, "he_uniform": HeUniform, "he_normal": HeNormal,
            "lecun_normal": LecunNormal}


def get(identifier):
    """An initializer from its name, an Initializer, or a callable `(shape, dtype)`."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"unknown initializer {identifier!r}; the known ones are "
                             f"{', '.join(sorted(_BY_NAME))}, or pass a callable "
                             "(shape, dtype) -> values.")
        return _BY_NAME[identifier]()
    if callable(identifier):
        return identifier
    raise TypeError(f"an initializer is a name or a callable (shape, dtype) -> values, got "
                    f"{type(identifier).__name__}.")
