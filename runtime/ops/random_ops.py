"""Random numbers: stateful ops that give new numbers on every call, in graphs too.

Without a seed, numbers come from one process-wide generator. With `seed=`, from a generator
made for that seed the first time it is used: the same program gives the same sequence.
`set_seed(s)` restarts both, so what follows repeats exactly (eagerly and in graphs: kernels look
their generator up when they run).
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import argument_error
from runtime.ops import array_ops, shapes
from runtime.ops.registry import GRADIENT, apply, define_op, lacks

_default_generator = np.random.default_rng()
_seeded_generators: dict[int, np.random.Generator] = {}


def set_seed(seed: int) -> None:
    """Reseeds the process-wide generator and restarts the sequences of seeded ops."""
    global _default_generator
    _default_generator = np.random.default_rng(seed)
    _seeded_generators.clear()


def generator(seed):
    """The numpy Generator that ops with `seed` (None: no seed) draw from now (numba's compiled
    graphs are given it at each call: its draws are numpy's, from the same state)."""
    if seed is None:
        return _default_generator
    found = _seeded_generators.get(seed)
    if found is None:
        found = _seeded_generators[seed] = np.random.default_rng(seed)
    return found


def _uniform_kernel(*, shape, dtype, minval, maxval, seed):
    drawn_from = generator(seed)
    if dtype.is_integer:
        values = drawn_from.integers(minval, maxval, size=shape)
    else:
        values = drawn_from.uniform(minval, maxval, size=shape)
    return normalize(np.asarray(values, dtype=dtype.np_dtype))


def _normal_kernel(*, shape, dtype, mean, stddev, seed):
    values = generator(seed).normal(mean, stddev, size=shape)
    return normalize(np.asarray(values, dtype=dtype.np_dtype))


UNIFORM = define_op(
    "RandomUniform",
    infer=lambda inputs, *, shape, dtype, **_: [(dtype, shape)],
    kernel=_uniform_kernel,
    stateful=True,
)
NORMAL = define_op(
    "RandomStandardNormal",
    infer=lambda inputs, *, shape, dtype, **_: [(dtype, shape)],
    kernel=_normal_kernel,
    stateful=True,
)


def _dynamic(name, what, static_kernel, first, second, check=None):
    """The op of `rt.random.<what>` whose shape (and parameters `first`, `second`) are tensors,
    read when the graph runs; `check(a, b)` refuses parameters that do not fit."""

    def kernel(shape, a, b, *, dtype, seed):
        if np.any(shape < 0):
            raise argument_error(
                ValueError, f"the shape of random numbers {shape.tolist()} must not be negative"
            )
        if check is not None:
            check(a, b)
        return static_kernel(shape=tuple(shape), dtype=dtype, seed=seed,
                             **{first: a.item(), second: b.item()})

    def infer(inputs, *, dtype, **_):
        shape, a, b = inputs
        if a.shape or b.shape:
            raise argument_error(
                ValueError, f"random.{what}'s {first} and {second} must be scalars"
            )
        return [(dtype, shapes.known_dims(shape))]

    return define_op(name, infer=infer, kernel=kernel, stateful=True)


def _ordered(minval, maxval):
    if not minval < maxval:
        raise argument_error(
            ValueError, f"random.uniform needs minval < maxval, got {minval} and {maxval}"
        )


DYNAMIC_UNIFORM = _dynamic("DynamicRandomUniform", "uniform", _uniform_kernel, "minval",
                           "maxval", _ordered)
DYNAMIC_NORMAL = _dynamic("DynamicRandomNormal", "normal", _normal_kernel, "mean", "stddev")


def _dynamic_shape(shape):
    """A shape that holds tensors, as one int tensor."""
    return array_ops.shape_tensor(shape if shapes.is_dynamic(shape) else
                                  list(_shape(shape)) or np.zeros(0, np.int32),
                                  "the shape of random numbers")


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None):
    """Uniform numbers in [minval, maxval) (maxval defaults to 1 for floats). The shape and the
    bounds may be tensors (then they are checked when the graph runs)."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise argument_error(ValueError, "random.uniform with an integer dtype needs maxval.")
        maxval = 1
    if dtype.is_bool or dtype.is_string:
        raise argument_error(TypeError, f"random.uniform needs a numeric dtype, got {dtype.name}.")
    if shapes.is_dynamic(shape) or shapes.is_dynamic([minval, maxval]):
        bounds = [convert_to_tensor(v, dtype) for v in (minval, maxval)]
        return apply(DYNAMIC_UNIFORM, [_dynamic_shape(shape), *bounds],
                     {"dtype": dtype, "seed": _seed(seed)})
    bound = float if dtype.is_floating else int
    if not bound(minval) < bound(maxval):
        raise argument_error(
            ValueError, f"random.uniform needs minval < maxval, got {minval} and {maxval}."
        )
    attrs = {"shape": _shape(shape), "dtype": dtype, "minval": bound(minval),
             "maxval": bound(maxval), "seed": _seed(seed)}
    return apply(UNIFORM, [], attrs)


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None):
    """Normally distributed numbers. The shape, mean and stddev may be tensors (then they are
    checked when the graph runs)."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise argument_error(TypeError, f"random.normal needs a float dtype, got {dtype.name}.")
    if shapes.is_dynamic(shape) or shapes.is_dynamic([mean, stddev]):
        moments = [convert_to_tensor(v, dtype) for v in (mean, stddev)]
        return apply(DYNAMIC_NORMAL, [_dynamic_shape(shape), *moments],
                     {"dtype": dtype, "seed": _seed(seed)})
    attrs = {"shape": _shape(shape), "dtype": dtype, "mean": float(mean),
             "stddev": float(stddev), "seed": _seed(seed)}
    return apply(NORMAL, [], attrs)


def _shape(shape) -> tuple:
    shape = shapes.static_ints(shape, "the shape of random numbers")
    if any(d < 0 for d in shape):
        raise argument_error(
            ValueError, f"The shape of random numbers must not be negative, got {list(shape)}."
        )
    return shape


def _seed(seed):
    return None if seed is None else int(seed)


lacks(GRADIENT, "random values: not differentiated with respect to their parameters", UNIFORM,
      NORMAL, DYNAMIC_UNIFORM, DYNAMIC_NORMAL)
