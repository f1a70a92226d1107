"""Neural-network ops with TensorFlow's names: log_softmax, logsumexp, one_hot, the softmax and
sigmoid cross-entropies, clip_by_norm and clip_by_global_norm.

`log_softmax`, `logsumexp`, `one_hot` and `sparse_softmax_cross_entropy_with_logits` are ops
(kernel, inference, GRADIENT, ONNX, NUMBA and JAX rules here, each numerically stable: the max
is subtracted before `exp`, so logits of +-1000 give finite results). The others are
compositions of ops (`softmax_cross_entropy_with_logits` of log_softmax,
`sigmoid_cross_entropy_with_logits` as TensorFlow writes it, the clips as TensorFlow's), so their
rules are those of their ops. The kernel and the JAX rule of each op are one function of the
array module (`_log_softmax_of(xp, ...)`): numpy's, or jax.numpy's while XLA compiles.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import Tensor, normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, argument_error
from runtime.ops import (
    array_ops,
    creation_ops,
    math_ops,
    reduction_gradients,
    reduction_ops,
    shapes,
)
from runtime.ops.op_support import array_namespace, refuse, static_axes
from runtime.ops.registry import (
    GRADIENT,
    JAX,
    NUMBA,
    ONNX,
    REDUCTION,
    apply,
    define_op,
    lacks,
    register_rule,
)

_NO_NUMBA = ("not lowered to numba: numba's np.max and np.sum take no axis, and its exp, log "
             "and float sums differ from numpy's in the last bits, where jit_compile='auto' "
             "(numba_exactness.lowers_exactly) would take the lowering as exact")


def _floats(x, what: str):
    """`x` as a float tensor (a TypeError naming the user's line for other dtypes)."""
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise refuse(TypeError, f"{what} takes float tensors, not {x.dtype.name}; use "
                                f"rt.cast(x, rt.float32) first.")
    return x


def _max_shift(xp, x, axis):
    """The max along `axis` (kept), where it is finite; 0 where it is not (a row of -inf, or
    one holding +inf or nan), as scipy.special.logsumexp shifts."""
    top = xp.max(x, axis=axis, keepdims=True, initial=-np.inf)
    return xp.where(xp.isfinite(top), top, xp.zeros_like(top))


# ---- log_softmax ---------------------------------------------------------------------------------

def _log_softmax_of(xp, x, axis):
    """x - max - log(sum(exp(x - max))) along `axis`, in the array module `xp`."""
    shifted = x - _max_shift(xp, x, axis)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=axis, keepdims=True))


def _log_softmax_kernel(x, *, axis):
    with np.errstate(divide="ignore", invalid="ignore"):  # rows of -inf give nan, as scipy's
        return normalize(_log_softmax_of(np, x, axis))


def _log_softmax_infer(inputs, *, axis):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise argument_error(TypeError, f"LogSoftmax takes float tensors, not {x.dtype.name}.")
    shapes.normalize_axis(axis, len(x.shape), "log_softmax")
    return [(x.dtype, x.shape)]


LOG_SOFTMAX = define_op("LogSoftmax", infer=_log_softmax_infer, kernel=_log_softmax_kernel)


def log_softmax(logits, axis=-1):
    """tf.nn.log_softmax: logits - log(sum(exp(logits))) along `axis` (default the last),
    computed stably (the max is subtracted first). `logits` must be a float tensor of rank >= 1."""
    logits = _floats(logits, "log_softmax")
    if logits.ndim == 0:
        raise refuse(InvalidArgumentError, "log_softmax needs logits of rank >= 1, got a scalar.")
    axis = shapes.static_ints(axis, "log_softmax's axis")
    if len(axis) != 1:
        raise refuse(TypeError, f"log_softmax takes one axis, got {len(axis)}.")
    axis = shapes.static_check(shapes.normalize_axis, axis[0], logits.ndim, "log_softmax")
    return apply(LOG_SOFTMAX, [logits], {"axis": axis})


@register_rule(GRADIENT, LOG_SOFTMAX)
def _log_softmax_gradient(op, grads):
    """d/dx_j of sum_i g_i y_i is g_j - softmax_j * sum(g)."""
    y, g = op.outputs[0], grads[0]
    total = reduction_ops.reduce_sum(g, op.attrs["axis"], keepdims=True)
    return [g - math_ops.exp(y) * total]


@register_rule(ONNX, LOG_SOFTMAX)
def _log_softmax_onnx(b, op, x):
    return [b.one("LogSoftmax", x[0], axis=op.attrs["axis"])]


register_rule(JAX, LOG_SOFTMAX)(
    lambda op, x: _log_softmax_of(array_namespace(x), x, op.attrs["axis"]))


# ---- logsumexp -----------------------------------------------------------------------------------

def _logsumexp_of(xp, x, axis, keepdims):
    """log(sum(exp(x))) over `axis` (None: all), shifted by the max as scipy's logsumexp: a row
    of -inf gives -inf, one holding +inf gives +inf."""
    shift = _max_shift(xp, x, axis)
    out = xp.log(xp.sum(xp.exp(x - shift), axis=axis, keepdims=True)) + shift
    if keepdims:
        return out
    reduced = range(x.ndim) if axis is None else [a % x.ndim for a in axis]
    return xp.reshape(out, tuple(d for i, d in enumerate(x.shape) if i not in reduced))


def _logsumexp_kernel(x, *, axis, keepdims):
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) of a row of -inf is -inf
        return normalize(_logsumexp_of(np, x, axis, keepdims))


def _logsumexp_infer(inputs, *, axis, keepdims):
    x = inputs[0]
    if not x.dtype.is_floating:
        raise argument_error(TypeError, f"LogSumExp takes float tensors, not {x.dtype.name}.")
    if axis is not None and not isinstance(axis, tuple):
        raise argument_error(
            TypeError, f"LogSumExp's axis must be None or a tuple of ints, got {axis!r}."
        )
    return [(x.dtype, shapes.reduce(x.shape, axis, keepdims))]


LOGSUMEXP = define_op("LogSumExp", infer=_logsumexp_infer, kernel=_logsumexp_kernel,
                      groups=[REDUCTION])


def logsumexp(x, axis=None, keepdims=False):
    """tf.reduce_logsumexp (scipy.special.logsumexp): log(sum(exp(x))) over `axis` (None: all
    axes; an int or a sequence of ints), without overflow: the max is subtracted first. A slice
    of only -inf gives -inf (as scipy's)."""
    x = _floats(x, "logsumexp")
    if axis is not None:
        axis = tuple(sorted(static_axes(axis, x.ndim, "logsumexp")))
    return apply(LOGSUMEXP, [x], {"axis": axis, "keepdims": bool(keepdims)})


reduce_logsumexp = logsumexp  # TensorFlow's name


@register_rule(GRADIENT, LOGSUMEXP)
def _logsumexp_gradient(op, grads):
    """The gradient weighted by softmax(x) along the reduced axes: exp(x - y). A slice whose
    result is not finite (only -inf: no element changes it) gets zeros."""
    x, y = op.inputs[0], op.outputs[0]
    axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
    g = reduction_gradients.restore_axes(grads[0], x, axis, keepdims)
    top = reduction_gradients.restore_axes(y, x, axis, keepdims)
    finite = math_ops.isfinite(top)
    shift = math_ops.where(finite, top, creation_ops.zeros_like(top))
    weights = math_ops.where(finite, math_ops.exp(x - shift), creation_ops.zeros_like(x))
    return [g * weights]


@register_rule(ONNX, LOGSUMEXP)
def _logsumexp_onnx(b, op, x):
    """As the kernel: ReduceMax, the shift (0 where the max is infinite), ReduceSum of Exp, Log,
    then Squeeze of the reduced axes (ReduceLogSumExp would overflow, or give nan for -inf)."""
    axis, keepdims, rank = op.attrs["axis"], op.attrs["keepdims"], len(op.inputs[0].shape)
    axes = [] if axis is None else [b.int64s(axis)]
    noop = {} if axis is None else {"noop_with_empty_axes": 1}  # axis=(): nothing reduced
    top = b.one("ReduceMax", x[0], *axes, keepdims=1, **noop)
    zero = b.const(0, op.inputs[0].dtype)
    shift = b.one("Where", b.one("IsInf", top), zero, top)
    total = b.one("ReduceSum", b.one("Exp", b.one("Sub", x[0], shift)), *axes, keepdims=1,
                  **noop)
    out = b.one("Add", b.one("Log", total), shift)
    reduced = tuple(range(rank)) if axis is None else axis
    if keepdims or not reduced:
        return [out]
    return [b.one("Squeeze", out, b.int64s(reduced))]


register_rule(JAX, LOGSUMEXP)(lambda op, x: _logsumexp_of(
    array_namespace(x), x, op.attrs["axis"], op.attrs["keepdims"]))


# ---- one_hot -------------------------------------------------------------------------------------

def _classes(xp, depth, rank, axis):
    """0, 1, ..., depth - 1 along the new axis of a one-hot result of indices of `rank`."""
    return xp.reshape(xp.arange(depth), (depth,) + (1,) * (rank - axis))


def _one_hot_of(xp, indices, on, off, depth, axis):
    hit = xp.expand_dims(indices, axis) == _classes(xp, depth, indices.ndim, axis)
    return xp.where(hit, on, off)


def _one_hot_kernel(indices, on, off, *, depth, axis):
    return normalize(_one_hot_of(np, np.asarray(indices), on, off, depth, axis))


def _one_hot_infer(inputs, *, depth, axis):
    indices, on, off = inputs
    if not indices.dtype.is_integer:
        raise argument_error(
            TypeError, f"OneHot: indices must be integers, got {indices.dtype.name}."
        )
    if type(depth) is not int or depth < 0:
        raise argument_error(
            InvalidArgumentError, f"OneHot: depth must be an int >= 0, got {depth!r}."
        )
    if type(axis) is not int or not 0 <= axis <= len(indices.shape):
        raise argument_error(
            InvalidArgumentError,
            f"OneHot: axis {axis!r} is out of range for indices of rank {len(indices.shape)}.",
        )
    if on.dtype is not off.dtype or on.ndim or off.ndim:
        raise argument_error(
            TypeError,
            "OneHot: on_value and off_value must be scalars of one dtype, got "
            f"{on.dtype.name}{list(on.shape)} and {off.dtype.name}{list(off.shape)}.",
        )
    if on.dtype.is_string or on.dtype.is_list:
        raise argument_error(TypeError, f"OneHot does not make {on.dtype.name} tensors.")
    shape = tuple(indices.shape)
    return [(on.dtype, shape[:axis] + (depth,) + shape[axis:])]


ONE_HOT = define_op("OneHot", infer=_one_hot_infer, kernel=_one_hot_kernel)


def _fill_value(value, default, dtype, what):
    if value is None:
        value = default
    if not isinstance(value, Tensor):
        value = convert_to_tensor(np.asarray(value).astype(dtype.np_dtype))
    elif value.weak:  # a Python number
        value = math_ops.cast(value, dtype)
    elif value.dtype is not dtype:
        raise refuse(TypeError, f"one_hot: {what} is {value.dtype.name}, the dtype is "
                                f"{dtype.name}; use rt.cast first.")
    if value.ndim:
        raise refuse(InvalidArgumentError, f"one_hot: {what} must be a scalar, got shape "
                                           f"{list(value.shape)}.")
    return value


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None):
    """tf.one_hot: for each index, `depth` values along a new axis (`axis`, default -1: the
    last), `on_value` (default 1) at the index and `off_value` (default 0) elsewhere. An index
    outside [0, depth) (negative ones too) gives a slice of only `off_value`. The dtype is
    `dtype`, else that of a tensor `on_value` / `off_value`, else float32. No gradient flows to
    the indices (`on_value` and `off_value` get theirs)."""
    indices = convert_to_tensor(indices)
    if not indices.dtype.is_integer:
        raise refuse(TypeError, f"one_hot: indices must be integers, got {indices.dtype.name}.")
    depth = shapes.static_ints(depth, "one_hot's depth")
    if len(depth) != 1 or depth[0] < 0:
        raise refuse(InvalidArgumentError, f"one_hot: depth must be one int >= 0, got {depth}.")
    if dtype is None:
        given = [v for v in (on_value, off_value) if isinstance(v, Tensor) and not v.weak]
        dtype = given[0].dtype if given else dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    if dtype.is_string or dtype.is_list or dtype.is_complex:
        raise refuse(TypeError, f"one_hot does not make {dtype.name} tensors.")
    on = _fill_value(on_value, 1, dtype, "on_value")
    off = _fill_value(off_value, 0, dtype, "off_value")
    axis = -1 if axis is None else shapes.static_ints(axis, "one_hot's axis")[0]
    axis = shapes.static_check(shapes.normalize_axis, axis, indices.ndim + 1, "one_hot")
    return apply(ONE_HOT, [indices, on, off], {"depth": depth[0], "axis": axis})


@register_rule(GRADIENT, ONE_HOT)
def _one_hot_gradient(op, grads):
    """None for the indices; on_value gets the sum of the gradient at the hits, off_value the
    rest."""
    indices, on, _ = op.inputs
    if not on.dtype.is_floating:
        return [None, None, None]
    g = grads[0]
    hit = apply(ONE_HOT, [indices, creation_ops.ones_like(on), creation_ops.zeros_like(on)],
                dict(op.attrs))
    on_grad = reduction_ops.reduce_sum(g * hit)
    return [None, on_grad, reduction_ops.reduce_sum(g) - on_grad]


@register_rule(ONNX, ONE_HOT)
def _one_hot_onnx(b, op, x):
    """Where(Equal(Unsqueeze(indices), 0..depth-1), on, off), as the kernel (ONNX's OneHot
    counts negative indices from the end; TensorFlow's gives only off_value for them)."""
    depth, axis, rank = op.attrs["depth"], op.attrs["axis"], len(op.inputs[0].shape)
    indices = b.cast(x[0], op.inputs[0].dtype, dtypes.int64)
    hit = b.one("Equal", b.one("Unsqueeze", indices, b.int64s([axis])),
                b.const(_classes(np, depth, rank, axis).astype(np.int64)))
    out = op.outputs[0].dtype
    # onnxruntime's Where takes no bool or int16 values: they pick in a wider dtype
    work = {dtypes.bool_: dtypes.uint8, dtypes.int16: dtypes.int32}.get(out, out)
    picked = b.one("Where", hit, b.cast(x[1], out, work), b.cast(x[2], out, work))
    return [b.cast(picked, work, out)]


@register_rule(NUMBA, ONE_HOT)
def _one_hot_numba(op, a, typed):
    depth, axis, rank = op.attrs["depth"], op.attrs["axis"], len(op.inputs[0].shape)
    indices = f"np.expand_dims({a[0]}, {axis})" if rank else f"np.asarray({a[0]}).reshape((1,))"
    classes = f"np.arange({depth}).reshape({(depth,) + (1,) * (rank - axis)!r})"
    return f"np.where({indices} == {classes}, {a[1]}, {a[2]})"


register_rule(JAX, ONE_HOT)(lambda op, indices, on, off: _one_hot_of(
    array_namespace(indices, on, off), indices, on, off, op.attrs["depth"], op.attrs["axis"]))


# ---- sparse_softmax_cross_entropy_with_logits ----------------------------------------------------

def _sparse_loss_of(xp, labels, logits):
    """-log_softmax(logits)[label] per example; nan where the label is out of range (the JAX
    rule: XLA cannot raise)."""
    classes = logits.shape[-1]
    valid = (labels >= 0) & (labels < classes)
    safe = xp.where(valid, labels, xp.zeros_like(labels))
    log_probs = _log_softmax_of(xp, logits, logits.ndim - 1)
    picked = xp.take_along_axis(log_probs, xp.expand_dims(safe, -1), axis=-1)[..., 0]
    return xp.where(valid, -picked, xp.full_like(picked, np.nan))


def _sparse_xent_kernel(labels, logits):
    labels = np.asarray(labels)
    classes = logits.shape[-1]
    if labels.shape != logits.shape[:-1]:
        raise argument_error(
            ValueError,
            f"labels of shape {list(labels.shape)} do not fit logits of shape "
            f"{list(logits.shape)} (labels must have the shape of logits without "
            "its last axis)",
        )
    bad = (labels < 0) | (labels >= classes)
    if bad.any():
        raise argument_error(
            ValueError,
            f"Received a label value of {labels[bad][0]} which is outside the "
            f"valid range of [0, {classes}).",
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        return normalize(_sparse_loss_of(np, labels, logits))


def _sparse_xent_infer(inputs):
    labels, logits = inputs
    if not labels.dtype.is_integer:
        raise argument_error(
            TypeError,
            f"SparseSoftmaxCrossEntropyWithLogits: labels must be integers, got "
            f"{labels.dtype.name}.",
        )
    if not logits.dtype.is_floating:
        raise argument_error(
            TypeError,
            f"SparseSoftmaxCrossEntropyWithLogits: logits must be floats, got {logits.dtype.name}.",
        )
    if len(logits.shape) != len(labels.shape) + 1:
        raise argument_error(
            InvalidArgumentError,
            f"labels of shape {list(labels.shape)} do not fit logits of shape "
            f"{list(logits.shape)}: labels must have rank {len(logits.shape) - 1} (the rank of "
            "logits minus one).",
        )
    dims = []
    for a, c in zip(labels.shape, logits.shape[:-1]):
        if a is not None and c is not None and a != c:
            raise argument_error(
                InvalidArgumentError,
                f"labels of shape {list(labels.shape)} do not fit logits of shape "
                f"{list(logits.shape)} (labels must have the shape of logits without its last "
                "axis).",
            )
        dims.append(a if a is not None else c)
    return [(logits.dtype, tuple(dims))]


SPARSE_XENT = define_op("SparseSoftmaxCrossEntropyWithLogits", infer=_sparse_xent_infer,
                        kernel=_sparse_xent_kernel)


def sparse_softmax_cross_entropy_with_logits(labels, logits):
    """tf.nn.sparse_softmax_cross_entropy_with_logits: -log(softmax(logits)[label]) for each
    example, computed stably. `labels`: integers of shape [d_0, ..., d_{r-1}], each in
    [0, num_classes) (another value is an InvalidArgumentError, eagerly or when the graph runs);
    `logits`: floats of shape [d_0, ..., d_{r-1}, num_classes]. The loss has the shape of
    `labels` and the dtype of `logits`. The gradient flows to the logits only."""
    labels = convert_to_tensor(labels)
    logits = _floats(logits, "sparse_softmax_cross_entropy_with_logits")
    if not labels.dtype.is_integer:
        raise refuse(TypeError, "sparse_softmax_cross_entropy_with_logits: labels must be "
                                f"integers, got {labels.dtype.name}; use rt.cast first.")
    shapes.static_check(_sparse_xent_infer, [labels, logits])
    return apply(SPARSE_XENT, [labels, logits])


def _dense_labels(labels, logits):
    """Sparse `labels` as one-hot rows of `logits`' dtype and last dim (known or not)."""
    classes = logits.shape[-1]
    if classes is not None:
        return one_hot(labels, classes, dtype=logits.dtype)
    count = array_ops.shape(logits, out_type=dtypes.int64)[-1]
    hit = math_ops.equal(array_ops.expand_dims(math_ops.cast(labels, dtypes.int64), -1),
                         creation_ops.range(count))
    return math_ops.cast(hit, logits.dtype)


@register_rule(GRADIENT, SPARSE_XENT)
def _sparse_xent_gradient(op, grads):
    """(softmax(logits) - onehot(labels)) * g, for each row; none for the labels."""
    labels, logits = op.inputs
    probs = math_ops.softmax(logits, -1)
    return [None, (probs - _dense_labels(labels, logits)) * array_ops.expand_dims(grads[0], -1)]


@register_rule(ONNX, SPARSE_XENT)
def _sparse_xent_onnx(b, op, x):
    """-GatherElements(LogSoftmax(logits), labels) along the last axis. onnxruntime checks no
    label range: a label past the end is its error, a negative one counts from the end."""
    labels = b.cast(x[0], op.inputs[0].dtype, dtypes.int64)
    log_probs = b.one("LogSoftmax", x[1], axis=-1)
    picked = b.one("GatherElements", log_probs, b.one("Unsqueeze", labels, b.int64s([-1])),
                   axis=-1)
    return [b.one("Neg", b.one("Squeeze", picked, b.int64s([-1])))]


# XLA cannot raise from inside the compiled function (jax_backend checks only indexing and
# asserts with checkify): an out-of-range label gives nan, as TensorFlow's GPU kernel does.
register_rule(JAX, SPARSE_XENT)(
    lambda op, labels, logits: _sparse_loss_of(array_namespace(labels, logits), labels, logits))
lacks(NUMBA, _NO_NUMBA, LOG_SOFTMAX, LOGSUMEXP, SPARSE_XENT)


# ---- compositions --------------------------------------------------------------------------------

def softmax_cross_entropy_with_logits(labels, logits, axis=-1):
    """tf.nn.softmax_cross_entropy_with_logits: -sum(labels * log_softmax(logits)) along `axis`,
    for dense labels (each slice a probability distribution). `labels` are cast to the dtype of
    the float `logits`; the gradient flows to both, as TensorFlow 2's."""
    logits = _floats(logits, "softmax_cross_entropy_with_logits")
    labels = math_ops.cast(convert_to_tensor(labels), logits.dtype)
    if logits.ndim == 0:
        raise refuse(InvalidArgumentError,
                     "softmax_cross_entropy_with_logits needs logits of rank >= 1.")
    axis = shapes.static_check(shapes.normalize_axis,
                               shapes.static_ints(axis, "the axis")[0], logits.ndim,
                               "softmax_cross_entropy_with_logits")
    return -reduction_ops.reduce_sum(labels * log_softmax(logits, axis), axis)


def sigmoid_cross_entropy_with_logits(labels, logits):
    """tf.nn.sigmoid_cross_entropy_with_logits: the binary cross-entropy of sigmoid(logits)
    against `labels` (cast to the logits' dtype), elementwise and stable, written as
    TensorFlow writes it: max(x, 0) - x * z + log(1 + exp(-|x|)) (its gradient is right at
    x = 0 too)."""
    logits = _floats(logits, "sigmoid_cross_entropy_with_logits")
    labels = math_ops.cast(convert_to_tensor(labels), logits.dtype)
    zeros = creation_ops.zeros_like(logits)
    positive = math_ops.greater_equal(logits, zeros)
    relu_logits = math_ops.where(positive, logits, zeros)
    neg_abs_logits = math_ops.where(positive, -logits, logits)
    return relu_logits - logits * labels + math_ops.log1p(math_ops.exp(neg_abs_logits))


def _like_dtype(value, t):
    """`value` (a number or a tensor) as a tensor of `t`'s dtype."""
    if isinstance(value, Tensor):
        return value if value.dtype is t.dtype else math_ops.cast(value, t.dtype)
    return convert_to_tensor(np.asarray(value, dtype=t.dtype.np_dtype))


def clip_by_norm(t, clip_norm, axes=None):
    """tf.clip_by_norm: `t * clip_norm / max(l2norm(t), clip_norm)`, with the L2 norm over
    `axes` (None: all), so the result's norm is at most `clip_norm`. Its gradient is finite
    for a zero `t` too (TensorFlow's formulation)."""
    t = _floats(t, "clip_by_norm")
    clip_norm = _like_dtype(clip_norm, t)
    squares = reduction_ops.reduce_sum(t * t, axes, keepdims=True)
    positive = math_ops.greater(squares, creation_ops.zeros_like(squares))
    safe = math_ops.where(positive, squares, creation_ops.ones_like(squares))
    norm = math_ops.where(positive, math_ops.sqrt(safe), squares)
    return array_ops.identity(t * clip_norm / math_ops.maximum(norm, clip_norm))


def global_norm(t_list):
    """tf.linalg.global_norm: sqrt of the sum of the squares of all elements of the tensors of
    `t_list` (None entries are skipped), in the widest of their float dtypes."""
    tensors = [_floats(t, "global_norm") for t in _tensor_list(t_list, "global_norm")
               if t is not None]
    if not tensors:
        raise refuse(ValueError, "global_norm: t_list holds no tensors.")
    dtype = dtypes.from_numpy(np.result_type(*(t.dtype.np_dtype for t in tensors)))
    total = None
    for t in tensors:
        t = math_ops.cast(t, dtype)
        squares = reduction_ops.reduce_sum(t * t)
        total = squares if total is None else total + squares
    return math_ops.sqrt(total)


def _tensor_list(t_list, what):
    if isinstance(t_list, (Tensor, str, bytes)) or not isinstance(t_list, (list, tuple)):
        raise refuse(TypeError, f"{what}: t_list should be a list or tuple of tensors, got "
                                f"{type(t_list).__name__}.")
    return list(t_list)


def clip_by_global_norm(t_list, clip_norm, use_norm=None):
    """tf.clip_by_global_norm: each tensor of `t_list` times
    clip_norm / max(global_norm, clip_norm), so that their global norm is at most `clip_norm`;
    returns (the list of clipped tensors, None entries kept; the global norm). A global norm
    that is inf or nan makes every result nan, as TensorFlow's. `use_norm` is a global norm
    computed already."""
    t_list = [None if t is None else _floats(t, "clip_by_global_norm")
              for t in _tensor_list(t_list, "clip_by_global_norm")]
    norm = global_norm(t_list) if use_norm is None else _floats(use_norm, "clip_by_global_norm")
    clip_norm = _like_dtype(clip_norm, norm)
    # TensorFlow's clip_norm * min(1 / norm, 1 / clip_norm), without dividing by a zero norm
    scale = clip_norm / math_ops.maximum(norm, clip_norm)
    scale = scale + (norm - norm)  # nan when the norm is not finite
    clipped = [None if t is None else array_ops.identity(t * math_ops.cast(scale, t.dtype))
               for t in t_list]
    return clipped, norm
