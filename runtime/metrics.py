"""`rt.metrics`: running statistics (a mean loss, an accuracy) kept in Variables, as Keras 3.

    loss_metric = rt.metrics.Mean("loss")
    accuracy = rt.metrics.SparseCategoricalAccuracy()

    @rt.function
    def eval_step(x, y):
        logits = model(x)
        loss_metric(loss_fn(y, logits))   # update_state, then result()
        accuracy.update_state(y, logits)

    ...
    print(loss_metric.result(), accuracy.result())
    loss_metric.reset_state()

A metric is an `rt.Module`; its state variables are made in `__init__`, so inside an
`rt.function` its updates are graph assignments that run on every call (the function traces
once) and `variables` lists them.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.module import Module
from runtime.ops.array_ops import broadcast_to, expand_dims, shape, squeeze
from runtime.ops.math_ops import cast, equal, square, where
from runtime.ops.reduction_ops import argmax, reduce_mean, reduce_sum
from runtime.variables import Variable


class Metric(Module):
    """The base of the metrics: state variables, `update_state`, `result` and `reset_state`.

    A subclass makes its state in `__init__` with `add_variable`, accumulates it in
    `update_state(...)` and computes the value from it in `result()`. Calling the metric,
    `metric(...)`, is `update_state(...)` followed by `result()`.
    """

    _holds_weights = False  # its variables are not a model's weights

    def __init__(self, name=None, dtype=None):
        super().__init__(name)
        try:
            self._dtype = dtypes.float32 if dtype is None else dtypes.as_dtype(dtype)
        except (TypeError, ValueError):
            raise TypeError(f"A metric's dtype is a dtype like rt.float32; got {dtype!r}.") \
                from None
        if not (self._dtype.is_floating or self._dtype.is_integer):
            raise TypeError(
                f"A metric's dtype must be a float (or integer) type; got {self._dtype.name}."
            )

    @property
    def dtype(self):
        """The dtype of the metric's state and result (rt.float32 unless given)."""
        return self._dtype

    def add_variable(self, shape=(), dtype=None, name=None) -> Variable:
        """A new state variable of zeros, named `<metric name>/<name>`; non-trainable."""
        dtype = self._dtype if dtype is None else dtypes.as_dtype(dtype)
        with self.name_scope:
            return Variable(lambda: _zeros(shape, dtype), trainable=False, name=name, dtype=dtype)

    def update_state(self, *args, **kwargs) -> None:
        """Accumulates the statistics of a batch."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_state().")

    def result(self):
        """The metric's value computed from its state (a scalar tensor)."""
        raise NotImplementedError(f"{type(self).__name__} must implement result().")

    def reset_state(self) -> None:
        """Sets every state variable back to zeros (e.g. at the start of an epoch)."""
        for variable in self.variables:
            variable.assign(_zeros(tuple(variable.shape), variable.dtype))

    def __call__(self, *args, **kwargs):
        """`update_state(*args, **kwargs)`, then returns `result()`."""
        self.update_state(*args, **kwargs)
        return self.result()


def _zeros(shape, dtype):
    return np.zeros(shape, dtype.np_dtype)


def _squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Keras': squeeze or expand the last dim of one when the ranks differ by exactly 1."""
    r1, r2 = x1.shape.rank, x2.shape.rank
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = expand_dims(x2, -1)
        else:
            x1 = squeeze(x1, -1)
    if r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = expand_dims(x1, -1)
        else:
            x2 = squeeze(x2, -1)
    return x1, x2


def _reduce_to_samplewise_values(values, sample_weight, reduce_fn, dtype):
    """Keras' `reduce_to_samplewise_values`: (per-sample values weighted, per-sample weights)."""
    values = _tensor(values, "values", dtype)
    if sample_weight is not None:
        sample_weight = _tensor(sample_weight, "sample_weight", dtype)
        values, sample_weight = _squeeze_or_expand_to_same_rank(values, sample_weight)
        weight_ndim, values_ndim = sample_weight.shape.rank, values.shape.rank
        if weight_ndim > values_ndim:
            raise ValueError(
                f"sample_weight of shape {list(sample_weight.shape)} has more dimensions than "
                f"the values of shape {list(values.shape)}; give one weight per sample (or a "
                "scalar)."
            )
        if values_ndim > weight_ndim:
            values = reduce_fn(values, axis=list(range(weight_ndim, values_ndim)))
        target = (list(values.shape) if values.shape.is_fully_defined() else shape(values))
        sample_weight = broadcast_to(sample_weight, target)
        values = values * sample_weight
        if weight_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=list(range(1, weight_ndim)))
    if values.shape.rank > 1:
        values = reduce_fn(values, axis=list(range(1, values.shape.rank)))
    return values, sample_weight


def _tensor(value, what, dtype=None):
    """`value` as a tensor (cast to `dtype` if given; Python and numpy numbers are converted
    straight to it, without a float32 step in between)."""
    try:
        if dtype is not None and not isinstance(value, (Tensor, Variable)):
            array = np.asarray(value)
            if array.dtype.kind in "biuf":
                value = array.astype(dtype.np_dtype)
        tensor = convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"The metric's {what} must be numbers, arrays or tensors ({e}).") \
            from None
    return tensor if dtype is None or tensor.dtype == dtype else cast(tensor, dtype)


class Sum(Metric):
    """The (weighted) sum of the values given: `update_state([1, 3, 5, 7])` -> 16."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values, sample_weight=None) -> None:
        """Adds `values` (any shape), each times its `sample_weight` if given."""
        values, _ = _reduce_to_samplewise_values(values, sample_weight, reduce_sum, self.dtype)
        self.total.assign_add(reduce_sum(values))

    def result(self):
        return self.total.read_value()


class Mean(Metric):
    """The (weighted) mean of the values given so far: `total / count` (0 before any value).

    Values of rank > 1 count as one sample per row (the mean of the row); with
    `sample_weight` each sample counts its weight.
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values, sample_weight=None) -> None:
        """Accumulates `values` (a number, a list, an array or a tensor of any shape)."""
        values, sample_weight = _reduce_to_samplewise_values(
            values, sample_weight, reduce_mean, self.dtype)
        self.total.assign_add(reduce_sum(values))
        if sample_weight is not None:
            num_samples = reduce_sum(sample_weight)
        elif values.shape.rank >= 1:
            num_samples = values.shape[0]
            if num_samples is None:
                num_samples = shape(values)[0]
        else:
            num_samples = 1
        self.count.assign_add(cast(num_samples, self.dtype))

    def result(self):
        return _divide_no_nan(self.total.read_value(), self.count.read_value())


def _divide_no_nan(x, y):
    """x / y, or 0 where y is 0."""
    zero = equal(y, 0)
    return where(zero, cast(0, x.dtype), x / where(zero, cast(1, y.dtype), y))


class MeanMetricWrapper(Mean):
    """The `Mean` of `fn(y_true, y_pred, **kwargs)`, a function giving per-sample values."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    # (Keras' signature: a wrapper takes the labels and predictions, not Mean's values)
    def update_state(self, y_true, y_pred, sample_weight=None) -> None:  # type: ignore[override]
        """Accumulates `fn(y_true, y_pred)` per sample, each weighted by `sample_weight`."""
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values, sample_weight=sample_weight)


def accuracy(y_true, y_pred):
    """1.0 where `y_true == y_pred` elementwise, else 0.0 (y_true cast to y_pred's dtype)."""
    y_pred = _tensor(y_pred, "y_pred")
    y_true = cast(_tensor(y_true, "y_true"), y_pred.dtype)
    y_true, y_pred = _squeeze_or_expand_to_same_rank(y_true, y_pred)
    return cast(equal(y_true, y_pred), dtypes.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where `argmax(y_pred, -1) == y_true` (integer labels, shape [N] or [N, 1])."""
    y_pred = _tensor(y_pred, "y_pred")
    y_true = _tensor(y_true, "y_true")
    if y_pred.shape.rank < 1:
        raise ValueError(
            "sparse_categorical_accuracy: y_pred must hold a score per class on its last axis; "
            f"got shape {list(y_pred.shape)}."
        )
    if y_true.shape.rank == y_pred.shape.rank and y_true.shape[-1] == 1:
        y_true = squeeze(y_true, -1)
    predicted = argmax(y_pred, axis=-1)
    if predicted.dtype != y_true.dtype:
        predicted = cast(predicted, y_true.dtype)
    return cast(equal(y_true, predicted), dtypes.float32)


def categorical_accuracy(y_true, y_pred):
    """1.0 where `argmax(y_pred, -1) == argmax(y_true, -1)` (one-hot labels)."""
    y_pred = _tensor(y_pred, "y_pred")
    y_true = _tensor(y_true, "y_true")
    if y_pred.shape.rank < 1 or y_true.shape.rank < 1:
        raise ValueError(
            "categorical_accuracy: y_true and y_pred hold a value per class on their last axis; "
            f"got shapes {list(y_true.shape)} and {list(y_pred.shape)}."
        )
    return cast(equal(argmax(y_true, axis=-1), argmax(y_pred, axis=-1)), dtypes.float32)


def mean_squared_error(y_true, y_pred):
    """`mean(square(y_true - y_pred), axis=-1)` (float; y_true cast to y_pred's dtype)."""
    y_pred = _tensor(y_pred, "y_pred")
    if not y_pred.dtype.is_floating:
        y_pred = cast(y_pred, dtypes.float32)
    y_true = cast(_tensor(y_true, "y_true"), y_pred.dtype)
    y_true, y_pred = _squeeze_or_expand_to_same_rank(y_true, y_pred)
    error = square(y_true - y_pred)
    return reduce_mean(error, axis=-1) if error.shape.rank else error


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels (elementwise): the mean of `y_true == y_pred`."""

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often `argmax(y_pred, -1)` equals the integer label `y_true` ([N] or [N, 1], any
    int or float dtype)."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often `argmax(y_pred, -1)` equals `argmax(y_true, -1)` (one-hot labels)."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class MeanSquaredError(MeanMetricWrapper):
    """The mean over samples of `mean(square(y_true - y_pred), axis=-1)`."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, dtype=dtype)


__all__ = [
    "Accuracy",
    "CategoricalAccuracy",
    "Mean",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "Metric",
    "SparseCategoricalAccuracy",
    "Sum",
    "accuracy",
    "categorical_accuracy",
    "mean_squared_error",
    "sparse_categorical_accuracy",
]
