"""runtime: eager tensors on numpy, an op library, graphs traced by `rt.function`, and an
executor that compiles graphs to straight-line Python over numpy.

    import runtime as rt

    @rt.function
    def f(x, y):
        return rt.matmul(x, y) + 1.0
"""

from types import ModuleType as _ModuleType

from autograph import __version__  # one version for the distribution
from runtime import (
    config,
    data,
    debugging,
    errors,
    fft,
    layers,
    linalg,
    losses,
    metrics,
    nn,
    numpy,
    onnx,
    optimizers,
    random,
    saved,
    strings,
    summary,
    train,
)
from runtime.autodiff import GradientTape, custom_gradient, grad, value_and_grad
from runtime.core.dtypes import (
    DType,
    as_dtype,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
)
from runtime.core.dtypes import (
    bool_ as bool,  # noqa: A004 - TensorFlow's name
)
from runtime.core.graph import Graph, Operation
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, TensorShape
from runtime.core.tensor_conversion import constant, convert_to_tensor
from runtime.executor.jax_backend import to_jax
from runtime.models import Model, Sequential
from runtime.module import Module
from runtime.ops import overloads as _overloads  # noqa: F401 - Tensor's operators, conversion's ops
from runtime.ops import reduction_gradients as _reduction_gradients  # noqa: F401 - registers them
from runtime.ops.arrangement_ops import (
    diag,
    flip,
    pad,
    repeat,
    roll,
    take,
    take_along_axis,
    trace,
    tril,
    triu,
)
from runtime.ops.array_ops import (
    broadcast_to,
    concat,
    expand_dims,
    gather,
    identity,
    rank,
    reshape,
    shape,
    size,
    split,
    squeeze,
    stack,
    stop_gradient,
    tile,
    transpose,
    unstack,
)
from runtime.ops.complex_ops import angle, conj, conjugate, imag, real
from runtime.ops.contraction_ops import (
    convolve,
    correlate,
    dot,
    einsum,
    inner,
    outer,
    tensordot,
    vdot,
)
from runtime.ops.creation_ops import (
    eye,
    fill,
    linspace,
    ones,
    ones_like,
    range,  # noqa: A004 - TensorFlow's name
    zeros,
    zeros_like,
)
from runtime.ops.io_ops import print  # noqa: A004 - TensorFlow's name
from runtime.ops.math_ops import (  # numpy's other math functions
    abs,  # noqa: A004 - TensorFlow's name
    absolute,
    add,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    cast,
    cbrt,
    ceil,
    clip_by_value,
    copysign,
    cos,
    cosh,
    deg2rad,
    divide,
    equal,
    exp,
    exp2,
    expm1,
    floor,
    floor_divide,
    floordiv,
    fmax,
    fmin,
    fmod,
    greater,
    greater_equal,
    heaviside,
    hypot,
    invert,
    isfinite,
    isinf,
    isnan,
    left_shift,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logaddexp,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,  # noqa: A004 - TensorFlow's name
    power,
    rad2deg,
    reciprocal,
    relu,
    remainder,
    right_shift,
    rint,
    round,  # noqa: A004 - TensorFlow's name
    sigmoid,
    sign,
    signbit,
    sin,
    sinh,
    softmax,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    true_divide,
    trunc,
    where,
)
from runtime.ops.nn_ops import (
    clip_by_global_norm,
    clip_by_norm,
    global_norm,
    one_hot,
    reduce_logsumexp,
)
from runtime.ops.python_call_ops import numpy_function
from runtime.ops.reduction_ops import (
    argmax,
    argmin,
    reduce_all,
    reduce_any,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from runtime.ops.scan_ops import cumprod, cumsum, diff
from runtime.ops.selection_ops import (
    argwhere,
    bincount,
    flatnonzero,
    interp,
    nonzero,
    unique,
)
from runtime.ops.sorting_ops import argsort, searchsorted, sort
from runtime.tensor_list import TensorList
from runtime.tools import visualize as _visualize  # noqa: F401 - Graph.to_dot, render
from runtime.tools.explain import explain
from runtime.tools.profiling import profile
from runtime.tracing import autograph_backend  # noqa: F401 - registers runtime with autograph
from runtime.tracing.concrete_function import ConcreteFunction
from runtime.tracing.function import Function, function
from runtime.tracing.signature import TensorSpec
from runtime.tracing.staged_control_flow import cond, while_loop
from runtime.variables import Variable, name_scope

_PUBLIC_MODULES = ("config", "data", "debugging", "errors", "fft", "layers", "linalg", "losses",
                   "metrics", "nn", "numpy", "onnx", "optimizers", "random", "saved", "strings",
                   "summary", "train")
# The public API (`from runtime import *`, the API reference): every name imported above, and of
# the modules only the public ones (importing the package binds its internal modules too).
__all__ = sorted(name for name, value in globals().items()
                 if not name.startswith("_") and (name in _PUBLIC_MODULES
                                                   or not isinstance(value, _ModuleType)))
