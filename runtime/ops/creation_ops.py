"""Tensors made from shapes and values: zeros, ones, fill, eye, range, linspace (and the *_like
ops, from basic_ops).

A creation op whose arguments are all known (Python values or eager tensors) gives an eager
tensor even while tracing: it becomes a graph constant where it is used. Symbolic arguments
(a shape computed in the graph, a symbolic fill value or bound) give graph ops.
"""

from __future__ import annotations

import numpy as np

from runtime.core import context, dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, eager, normalize
from runtime.core.tensor_conversion import (
    convert_to_tensor,
    is_python_scalar,
    is_weak,
    python_scalar_fits,
)
from runtime.errors import InvalidArgumentError, argument_error, with_origin
from runtime.ops import array_ops, math_ops, reduction_ops, shapes
from runtime.ops.basic_ops import (  # noqa: F401 - creation_ops.zeros_like, as rt.zeros_like
    ONES_LIKE,
    ZEROS_LIKE,
    ones_like,
    zeros_like,
)
from runtime.ops.registry import (
    GRADIENT,
    apply,
    define_op,
    register_rule,
)


def _fill_infer(inputs):
    dims, value = inputs
    if dims.ndim != 1 or dims.shape[0] is None:
        raise argument_error(
            InvalidArgumentError, "fill: dims must be a 1-D tensor of known length"
        )
    known = shapes.known_dims(dims)
    if any(d is not None and d < 0 for d in known):
        raise argument_error(InvalidArgumentError, f"fill: dims {list(known)} must not be negative")
    return [(value.dtype, known)]


def _fill_kernel(dims, value):
    if np.any(dims < 0):
        raise argument_error(ValueError, f"dims {dims.tolist()} must not be negative")
    return normalize(np.full(tuple(dims), value))


FILL = define_op("Fill", infer=_fill_infer, kernel=_fill_kernel)


def _check_scalar(value, what):
    if value.ndim:
        raise argument_error(InvalidArgumentError, with_origin(
            f"{what} must be a scalar, got a tensor of shape {list(value.shape)}", user_origin()))


def fill(dims, value):
    """A tensor of shape `dims` filled with the scalar `value` (dims may be a symbolic shape,
    e.g. `rt.shape(x)`)."""
    value = convert_to_tensor(value)
    _check_scalar(value, "fill's value")
    if shapes.is_dynamic(dims):
        return apply(FILL, [array_ops.shape_tensor(dims, "fill's dims"), value])
    shape = shapes.static_ints(dims, "fill's dims")
    if any(d < 0 for d in shape):
        raise argument_error(InvalidArgumentError, with_origin(
            f"fill: dims {list(shape)} must not be negative", user_origin()))
    if isinstance(value, SymbolicTensor) or (
            context.current_graph() is None and context.recording_tapes()):  # a tape sees it
        return array_ops.broadcast_to(value, shape)
    return eager(np.full(shape, value._value, dtype=value.dtype.np_dtype), value.dtype)


def zeros(shape, dtype=dtypes.float32):
    """A tensor of zeros; `shape` is a list of ints or a 1-D integer tensor."""
    dtype = dtypes.as_dtype(dtype)
    return fill(shape, eager(dtype.np_dtype.type(0), dtype))


def ones(shape, dtype=dtypes.float32):
    """A tensor of ones; `shape` is a list of ints or a 1-D integer tensor."""
    dtype = dtypes.as_dtype(dtype)
    return fill(shape, eager(dtype.np_dtype.type(1), dtype))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32):
    """The identity matrix (ones on the diagonal), `num_rows` x `num_columns`, repeated over
    `batch_shape` leading axes if given."""
    dtype = dtypes.as_dtype(dtype)
    rows = shapes.static_ints(num_rows, "eye's num_rows")[0]
    columns = rows if num_columns is None else shapes.static_ints(num_columns, "num_columns")[0]
    if rows < 0 or columns < 0:
        raise argument_error(InvalidArgumentError, with_origin(
            f"eye: sizes must not be negative, got {rows} x {columns}", user_origin()))
    matrix = np.eye(rows, columns, dtype=dtype.np_dtype)
    if batch_shape is not None:
        batch = shapes.static_ints(batch_shape, "eye's batch_shape")
        matrix = np.broadcast_to(matrix, (*batch, rows, columns)).copy()
    return eager(matrix, dtype)


def _range_infer(inputs, *, length):
    return [(inputs[0].dtype, (length,))]


def _range_kernel(start, limit, delta, *, length):
    if delta == 0:
        raise argument_error(ValueError, "range: delta must not be 0")
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


RANGE = define_op("Range", infer=_range_infer, kernel=_range_kernel)


def range_dtype(values):
    """float32 if a bound is a Python float (else the float tensors'); otherwise the widest
    integer tensor's, int32 for Python ints, and int64 when a Python int does not fit (the
    counter holds every bound, as Python's unbounded ints do)."""
    tensors = [convert_to_tensor(v) for v in values]
    floating = [t.dtype for t in tensors if t.dtype.is_floating]
    if floating:
        return floating[0]
    # (all weak: Python ints, or graph values standing for them, such as an unknown dim:
    # int32, as for the ints themselves; a stand-in is narrowed with a check when it runs)
    strong = [t.dtype for v, t in zip(values, tensors) if not is_weak(v)] or [dtypes.int32]
    dtype = strong[0]
    for other in strong[1:]:
        if other.is_integer and dtype.is_integer:
            dtype = dtypes.from_numpy(np.promote_types(dtype.np_dtype, other.np_dtype))
    if dtype.is_integer and not all(python_scalar_fits(v, dtype) for v in values
                                    if is_python_scalar(v)):
        return dtypes.int64
    return dtype


def range(start, limit=None, delta=1, dtype=None):  # noqa: A001 - TensorFlow's name
    """Like Python's range, as a 1-D tensor: `range(5)`, `range(2, 10, 3)`, `range(0., 1., .25)`.

    Inside a graph this is a `Range` op (its length is unknown when a bound is symbolic), so
    a `for` loop over it becomes a graph loop.
    """
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    dtype = range_dtype(values) if dtype is None else dtypes.as_dtype(dtype)
    if dtype.is_bool or dtype.is_string:
        raise argument_error(TypeError, f"range: dtype must be numeric, not {dtype.name}.")
    values = [math_ops.cast(v, dtype) if isinstance(v, (EagerTensor, SymbolicTensor))
              and not v.weak else convert_to_tensor(v, dtype) for v in values]
    for v, name in zip(values, ("start", "limit", "delta")):
        _check_scalar(v, f"range's {name}")
    length = None
    if all(isinstance(v, EagerTensor) for v in values) and values[2]._value != 0:
        length = len(np.arange(*[v._value for v in values]))
    return apply(RANGE, values, {"length": length})


def _linspace_infer(inputs, *, num, axis):
    start = inputs[0]
    shape = shapes.broadcast(*(t.shape for t in inputs))
    a = shapes.normalize_axis(axis, len(shape) + 1, "linspace")
    return [(start.dtype, shape[:a] + (num,) + shape[a:])]


def _linspace_kernel(start, stop, *, num, axis):
    dtype = np.asarray(start).dtype
    return normalize(np.linspace(start, stop, num, axis=axis).astype(dtype))


LINSPACE = define_op("LinSpace", infer=_linspace_infer, kernel=_linspace_kernel)


def linspace(start, stop, num, axis=0):
    """`num` evenly spaced values from `start` to `stop` (both included); integer bounds give
    float32, like Python ints do."""
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    if start.dtype is not stop.dtype:
        raise argument_error(
            TypeError,
            f"linspace: start is {start.dtype.name} but stop is {stop.dtype.name}; "
            "use rt.cast to make them match.",
        )
    if not start.dtype.is_floating:
        start, stop = math_ops.cast(start, dtypes.float32), math_ops.cast(stop, dtypes.float32)
    num = shapes.static_ints(num, "linspace's num")[0]
    if num < 0:
        raise argument_error(InvalidArgumentError, with_origin(
            f"linspace: num must not be negative, got {num}", user_origin()))
    return apply(LINSPACE, [start, stop], {"num": num, "axis": int(axis)})


register_rule(GRADIENT, FILL)(lambda op, grads: [None, reduction_ops.reduce_sum(grads[0])])
# the result does not depend on the input's values


@register_rule(GRADIENT, RANGE)
def _range_gradient(op, grads):
    """start + i * delta: d/dstart sums the gradient, d/ddelta weighs it by i; the limit only
    decides how many values there are (piecewise constant: no gradient)."""
    g = grads[0]
    steps = range(0, array_ops.size(g), 1, dtype=g.dtype)
    return [reduction_ops.reduce_sum(g), None, reduction_ops.reduce_sum(g * steps)]


@register_rule(GRADIENT, LINSPACE)
def _linspace_gradient(op, grads):
    """start + t * (stop - start) with t = i / (num - 1) along `axis`: each bound gets the
    gradient weighed by its share, summed along `axis` and back to the bound's shape."""
    start, stop = op.inputs
    g, num, out = grads[0], op.attrs["num"], op.outputs[0]
    axis = shapes.normalize_axis(op.attrs["axis"], len(out.shape), "linspace")
    t = np.arange(num, dtype=np.float64) / (num - 1) if num > 1 else np.zeros(num)
    t = convert_to_tensor(t.reshape((num,) + (1,) * (len(out.shape) - axis - 1)).astype(
        out.dtype.np_dtype))
    to_start = reduction_ops.reduce_sum(g * (1.0 - t), axis)
    to_stop = reduction_ops.reduce_sum(g * t, axis)
    return [array_ops.sum_to(to_start, start), array_ops.sum_to(to_stop, stop)]
