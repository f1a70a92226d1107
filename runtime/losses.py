"""`rt.losses`: Keras' losses, as functions and as objects, on tensors (eagerly, inside
`rt.function`, under `rt.GradientTape`: the gradient flows to `y_pred`).

Functions give the loss of each example, averaged over the last axis as Keras' are
(`mean_squared_error`, `binary_crossentropy`) or summed over the classes
(`categorical_crossentropy`, `sparse_categorical_crossentropy`):

    rt.losses.sparse_categorical_crossentropy(labels, probs)      # shape [N]

Objects reduce those to one number, by Keras' default the mean over all loss values
(`reduction="sum_over_batch_size"`), optionally weighted by `sample_weight`:

    loss = rt.losses.SparseCategoricalCrossentropy(from_logits=True)
    value = loss(labels, logits)                                    # a scalar

From probabilities (`from_logits=False`, the default) the predictions are clipped to
[EPSILON, 1 - EPSILON] before the log, as Keras does (with TensorFlow): categorical
crossentropy first scales each row of probabilities to sum to 1; sparse categorical
crossentropy takes the log of the clipped probabilities as logits (so a row that does not sum
to 1 is normalized by the softmax). With `from_logits=True` the stable ops of
runtime/ops/nn_ops.py compute the loss: logits of +-1000 give finite losses and gradients.
Labels may be int or float tensors, numpy arrays or lists; they are cast to the predictions'
dtype (sparse labels to integers: shape [N] or [N, 1]). Predictions that are not floats become
float32.
"""

from __future__ import annotations

from runtime.core import dtypes
from runtime.core.tensor import Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError
from runtime.module import snake_case
from runtime.ops import array_ops, creation_ops, math_ops, nn_ops, reduction_ops, shapes
from runtime.ops.op_support import refuse

EPSILON = 1e-7  # keras.backend.epsilon()
REDUCTIONS = ("none", "sum", "sum_over_batch_size", "mean", "mean_with_sample_weight")


# ---- arguments -----------------------------------------------------------------------------------

def _predictions(y_pred):
    """`y_pred` as a float tensor (float32 unless it is one already)."""
    y_pred = convert_to_tensor(y_pred)
    if y_pred.dtype.is_floating:
        return y_pred
    if y_pred.dtype.is_string or y_pred.dtype.is_list or y_pred.dtype.is_complex:
        raise refuse(TypeError, f"losses take numeric predictions, not {y_pred.dtype.name}.")
    return math_ops.cast(y_pred, dtypes.float32)


def _targets(y_true, y_pred):
    """`y_true` (ints, floats or bools) cast to the dtype of the predictions."""
    y_true = convert_to_tensor(y_true)
    if y_true.dtype.is_string or y_true.dtype.is_list or y_true.dtype.is_complex:
        raise refuse(TypeError, f"losses take numeric labels, not {y_true.dtype.name}.")
    return math_ops.cast(y_true, y_pred.dtype)


def _same_rank(x1, x2, expand_rank_1=True):
    """keras' squeeze_or_expand_to_same_rank: when the ranks differ by one and the longer
    tensor's last dim is 1, it is squeezed (or, when the shorter one is 1-D and
    `expand_rank_1`, that one gets a last axis of 1)."""
    if x1.ndim == x2.ndim + 1 and x1.shape[-1] == 1:
        if x2.ndim == 1 and expand_rank_1:
            return x1, array_ops.expand_dims(x2, -1)
        return array_ops.squeeze(x1, [-1]), x2
    if x2.ndim == x1.ndim + 1 and x2.shape[-1] == 1:
        if x1.ndim == 1 and expand_rank_1:
            return array_ops.expand_dims(x1, -1), x2
        return x1, array_ops.squeeze(x2, [-1])
    return x1, x2


def _mean_last(values, axis=-1):
    """The mean over `axis` (the last), as Keras' losses average; a scalar stays itself."""
    return values if values.ndim == 0 else reduction_ops.reduce_mean(values, axis)


def _check_same_shape(y_true, y_pred, what):
    known = all(d is not None for d in (*y_true.shape, *y_pred.shape))
    if y_true.ndim != y_pred.ndim or known and tuple(y_true.shape) != tuple(y_pred.shape):
        raise refuse(InvalidArgumentError,
                     f"{what}: y_true and y_pred must have the same shape, got "
                     f"{list(y_true.shape)} and {list(y_pred.shape)}.")


def _axis(axis, rank, what):
    return shapes.static_check(shapes.normalize_axis,
                               shapes.static_ints(axis, f"{what}'s axis")[0], rank, what)


def _smooth(y_true, label_smoothing, classes):
    """Labels moved toward the uniform distribution over `classes` (a tensor or a number)."""
    if not label_smoothing:
        return y_true
    return y_true * (1.0 - float(label_smoothing)) + float(label_smoothing) / classes


# ---- the losses, as functions --------------------------------------------------------------------

def mean_squared_error(y_true, y_pred):
    """keras.losses.mean_squared_error: mean(square(y_true - y_pred), axis=-1)."""
    y_pred = _predictions(y_pred)
    y_true, y_pred = _same_rank(_targets(y_true, y_pred), y_pred)
    return _mean_last(math_ops.square(y_true - y_pred))


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """keras.losses.categorical_crossentropy: -sum(y_true * log(p)) along `axis`, with one-hot
    (or probability) labels. From probabilities p is y_pred scaled to sum to 1 along `axis`, then
    clipped to [EPSILON, 1 - EPSILON]; from logits it is their softmax (computed stably).
    `label_smoothing` moves the labels toward 1 / num_classes."""
    y_pred = _predictions(y_pred)
    y_true = _targets(y_true, y_pred)
    _check_same_shape(y_true, y_pred, "categorical_crossentropy")
    if y_pred.ndim == 0:
        raise refuse(InvalidArgumentError, "categorical_crossentropy needs y_pred of rank >= 1.")
    axis = _axis(axis, y_pred.ndim, "categorical_crossentropy")
    if label_smoothing:
        classes = y_pred.shape[axis]
        if classes is None:
            classes = math_ops.cast(array_ops.shape(y_pred)[axis], y_pred.dtype)
        y_true = _smooth(y_true, label_smoothing, classes)
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(y_true, y_pred, axis)
    probs = y_pred / reduction_ops.reduce_sum(y_pred, axis, keepdims=True)
    probs = math_ops.clip_by_value(probs, EPSILON, 1.0 - EPSILON)
    return -reduction_ops.reduce_sum(y_true * math_ops.log(probs), axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    """keras.losses.sparse_categorical_crossentropy: -log(p[label]) per example, with integer
    labels (of shape [N] or [N, 1]; floats are truncated to integers) in [0, num_classes):
    another label is an InvalidArgumentError (eagerly or when the graph runs). From
    probabilities, the log of y_pred clipped to [EPSILON, 1 - EPSILON] is taken as logits (as
    Keras with TensorFlow); from logits the stable sparse softmax cross-entropy is used."""
    y_pred = _predictions(y_pred)
    labels = convert_to_tensor(y_true)
    if not (labels.dtype.is_integer or labels.dtype.is_floating or labels.dtype.is_bool):
        raise refuse(TypeError, f"sparse_categorical_crossentropy takes integer labels, not "
                                f"{labels.dtype.name}.")
    if y_pred.ndim == 0:
        raise refuse(InvalidArgumentError,
                     "sparse_categorical_crossentropy needs y_pred of rank >= 1.")
    if labels.ndim == y_pred.ndim:  # labels [..., 1]
        if labels.shape[-1] not in (1, None):
            raise refuse(InvalidArgumentError,
                         f"sparse_categorical_crossentropy takes labels of shape [N] or [N, 1] "
                         f"(class indices), got {list(labels.shape)} for predictions of shape "
                         f"{list(y_pred.shape)}; for one-hot labels use "
                         f"categorical_crossentropy.")
        labels = array_ops.squeeze(labels, [-1])
    if not labels.dtype.is_integer:
        labels = math_ops.cast(labels, dtypes.int64)
    if not from_logits:
        y_pred = math_ops.log(math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON))
    return nn_ops.sparse_softmax_cross_entropy_with_logits(labels, y_pred)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """keras.losses.binary_crossentropy: the mean along `axis` (the last) of
    -(y * log(p) + (1 - y) * log(1 - p)), with p = y_pred clipped to [EPSILON, 1 - EPSILON],
    or from logits the stable sigmoid cross-entropy. `label_smoothing` moves the labels toward
    0.5."""
    y_pred = _predictions(y_pred)
    y_true, y_pred = _same_rank(_targets(y_true, y_pred), y_pred)
    y_true = _smooth(y_true, label_smoothing, 2.0)
    if from_logits:
        losses = nn_ops.sigmoid_cross_entropy_with_logits(y_true, y_pred)
    else:
        p = math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        losses = -(y_true * math_ops.log(p) + (1.0 - y_true) * math_ops.log(1.0 - p))
    if losses.ndim == 0:
        return losses
    return reduction_ops.reduce_mean(losses, _axis(axis, losses.ndim, "binary_crossentropy"))


mse = MSE = mean_squared_error  # Keras' aliases


# ---- reductions ----------------------------------------------------------------------------------

def _standardize_reduction(reduction):
    reduction = "none" if reduction is None else reduction
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {', '.join(map(repr, REDUCTIONS))} (or None), "
                         f"got {reduction!r}.")
    return reduction


def _weights(sample_weight, values):
    """`sample_weight` as the loss dtype, its rank fitted to `values` (Keras' squeeze or expand
    by one axis; weights of a lower rank get trailing axes of 1, to broadcast per example)."""
    weights = sample_weight if isinstance(sample_weight, Tensor) else convert_to_tensor(
        sample_weight)
    weights = math_ops.cast(weights, values.dtype)
    values, weights = _same_rank(values, weights)
    while 0 < weights.ndim < values.ndim:
        weights = array_ops.expand_dims(weights, -1)
    return values, weights


def reduce_weighted_values(values, sample_weight=None, reduction="sum_over_batch_size"):
    """Keras' reduction of per-example losses: weighted by `sample_weight` (broadcast), then
    "none" (as they are), "sum", "sum_over_batch_size" / "mean" (the sum over the number of
    loss values; 0 for none) or "mean_with_sample_weight" (the sum over the sum of the
    weights)."""
    reduction = _standardize_reduction(reduction)
    values = convert_to_tensor(values)
    weights = None
    if sample_weight is not None:
        values, weights = _weights(sample_weight, values)
        values = values * weights
    if reduction == "none":
        return values
    total = reduction_ops.reduce_sum(values)
    if reduction == "sum":
        return total
    if reduction == "mean_with_sample_weight" and weights is not None:
        count = reduction_ops.reduce_sum(weights * creation_ops.ones_like(values))
    else:
        count = math_ops.cast(array_ops.size(values), values.dtype)
    empty = math_ops.equal(count, creation_ops.zeros_like(count))  # Keras' divide_no_nan
    return math_ops.where(empty, creation_ops.zeros_like(total),
                          total / math_ops.where(empty, creation_ops.ones_like(count), count))


# ---- the losses, as objects ----------------------------------------------------------------------

class Loss:
    """keras.losses.Loss: `loss(y_true, y_pred, sample_weight=None)` computes `call` (the loss
    of each example) and reduces it (`reduction`, Keras' default "sum_over_batch_size": the
    mean). Subclasses write `call(y_true, y_pred)`."""

    def __init__(self, name=None, reduction="sum_over_batch_size"):
        self.name = name or snake_case(type(self).__name__)
        self.reduction = _standardize_reduction(reduction)

    def call(self, y_true, y_pred):
        """The loss of each sample; subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must define call(y_true, y_pred).")

    def __call__(self, y_true, y_pred, sample_weight=None):
        return reduce_weighted_values(self.call(y_true, y_pred), sample_weight, self.reduction)

    def get_config(self) -> dict:
        """The arguments that rebuild this loss (`from_config`)."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        """A loss built from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({settings})"


class LossFunctionWrapper(Loss):
    """A Loss whose `call` is `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, **kwargs):
        super().__init__(name=name or fn.__name__, reduction=reduction)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        """The wrapped loss function applied to the batch."""
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        """The arguments that rebuild this loss, with the wrapped function's."""
        return {**super().get_config(), **self._fn_kwargs}


class MeanSquaredError(LossFunctionWrapper):
    """keras.losses.MeanSquaredError."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error"):
        super().__init__(mean_squared_error, reduction=reduction, name=name)

    def get_config(self) -> dict:
        """The arguments that rebuild this loss (`from_config`)."""
        return Loss.get_config(self)


class CategoricalCrossentropy(LossFunctionWrapper):
    """keras.losses.CategoricalCrossentropy (one-hot or probability labels)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy"):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """keras.losses.SparseCategoricalCrossentropy (integer labels)."""

    def __init__(self, from_logits=False, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy"):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits)


class BinaryCrossentropy(LossFunctionWrapper):
    """keras.losses.BinaryCrossentropy (labels 0 or 1, or probabilities)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy"):
        super().__init__(binary_crossentropy, reduction=reduction, name=name,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


_BY_NAME = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
    "MeanSquaredError": MeanSquaredError, "CategoricalCrossentropy": CategoricalCrossentropy,
    "SparseCategoricalCrossentropy": SparseCategoricalCrossentropy,
    "BinaryCrossentropy": BinaryCrossentropy,
}


def get(identifier):
    """keras.losses.get: a loss from its name (a function's, or a class's: an instance with
    the defaults), or the loss (a callable) itself; None stays None."""
    if identifier is None or (callable(identifier) and not isinstance(identifier, type)):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if isinstance(identifier, str) and identifier in _BY_NAME:
        found = _BY_NAME[identifier]
        return found() if isinstance(found, type) else found
    raise ValueError(f"Unknown loss {identifier!r}; the losses are {', '.join(sorted(_BY_NAME))}.")
