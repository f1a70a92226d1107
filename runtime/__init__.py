"""runtime: eager tensors on numpy, an op library, graphs traced by `rt.function`, and an
executor that compiles graphs to straight-line Python over numpy.

    import runtime as rt

    @rt.function
    def f(x, y):
        return rt.matmul(x, y) + 1.0
"""

from autograph import __version__  # one version for the distribution
from runtime import (  # onnx: lazy
    autograph_backend,  # noqa: E402,F401 - registers runtime with autograph
    config,
    debugging,
    errors,
    numpy,
    onnx,
    optimizers,
    random,
    saved,
    strings,
)
from runtime.autodiff import GradientTape, custom_gradient, grad, value_and_grad
from runtime.concrete_function import ConcreteFunction
from runtime.control_flow import cond, while_loop
from runtime.conversion import constant, convert_to_tensor
from runtime.dtypes import (
    DType,
    as_dtype,
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
from runtime.dtypes import (
    bool_ as bool,  # noqa: A004 - TensorFlow's name
)
from runtime.executor.jax_backend import to_jax
from runtime.explain import explain
from runtime.function import Function, function
from runtime.graph import Graph, Operation
from runtime.ops import overloads as _overloads  # noqa: F401 - installs Tensor operators
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
from runtime.ops.math_ops import (
    abs,  # noqa: A004 - TensorFlow's name
    add,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    cast,
    ceil,
    clip_by_value,
    cos,
    divide,
    equal,
    exp,
    floor,
    floordiv,
    greater,
    greater_equal,
    invert,
    left_shift,
    less,
    less_equal,
    log,
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
    relu,
    right_shift,
    round,  # noqa: A004 - TensorFlow's name
    sigmoid,
    sign,
    sin,
    softmax,
    sqrt,
    square,
    subtract,
    tanh,
    where,
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
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, TensorShape
from runtime.tensor_list import TensorList
from runtime.variables import Variable
