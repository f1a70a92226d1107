"""Numpy's API on tensors, as `jax.numpy` is JAX's: `import runtime.numpy as rnp`.

Each function has numpy's name, signature and results (values, shapes, dtypes: numpy's
promotion between operands, int64 sums of small integers, float64 for float functions of
integers) and runs as rt ops, eagerly and in graphs. Inside `rt.function` (and any converted
code), a call of numpy's own function with a tensor among its arguments runs the function of
the same name here, so numpy code compiles unchanged; outside converted code numpy stays numpy.
`supported_names()` lists what runs on tensors; anything else is an error that names it.
"""

import numpy as _np

from runtime import fft, linalg
from runtime.core import tensor as _tensor
from runtime.core.dtypes import (
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)
from runtime.numpy import dispatch as _dispatch
from runtime.numpy import functions as _functions
from runtime.numpy import ndarray_methods as _ndarray_methods
from runtime.numpy import random
from runtime.numpy.dispatch import supported_names
from runtime.numpy.functions import *  # noqa: F403 - numpy's names

pi, e, inf, nan, newaxis = _np.pi, _np.e, _np.inf, _np.nan, None

__all__ = [*_functions.__all__, "bool_", "float16", "float32", "float64", "int8", "int16",
           "int32", "int64", "uint8", "complex64", "complex128", "pi", "e", "inf", "nan",
           "newaxis", "supported_names", "linalg", "fft", "random"]

_dispatch.implement(_np, _functions, _functions.__all__)
_dispatch.implement(_np.linalg, linalg, linalg.__all__)
_dispatch.implement(_np.fft, fft, fft.__all__)
_dispatch.implement(_np.random, random, random.__all__)
for _name, _reduction in _functions.UFUNC_REDUCTIONS.items():
    _dispatch.implement_callable(getattr(_np, _name).reduce,
                                 _functions.ufunc_reduce(_name, _reduction),
                                 f"numpy.{_name}.reduce")
_tensor.use_numpy_dispatch(_dispatch.call)
_ndarray_methods.install()
