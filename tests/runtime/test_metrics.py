"""rt.metrics: Mean, Sum, Accuracy, SparseCategoricalAccuracy, CategoricalAccuracy and
MeanSquaredError against numpy (Keras 3's semantics), sample weights, reset_state, and updates
inside rt.function (graph assignments on every call, one trace)."""

import numpy as np
import pytest

import runtime as rt
from runtime import metrics

RNG = np.random.default_rng(7)


def _close(tensor, expected):
    np.testing.assert_allclose(np.asarray(tensor), expected, rtol=1e-6, atol=1e-7)


def test_the_seed_mean():
    m = metrics.Mean("loss")
    m(0)
    m(5)
    assert m.result() == 2.5
    m([8, 9])
    assert m.result() == 5.5
    assert float(m.result()) == 5.5 and m.result().dtype is rt.float32


def test_an_empty_mean_is_zero():
    m = metrics.Mean()
    assert float(m.result()) == 0.0
    m.update_state([1.0, 2.0], sample_weight=[0.0, 0.0])
    assert float(m.result()) == 0.0


def test_calling_a_metric_updates_then_returns_the_result():
    m = metrics.Mean()
    assert float(m([1, 3, 5, 7])) == 4.0
    assert float(m(np.array([[2.0, 4.0]]))) == pytest.approx(3.8)  # (16 + 3) / 5: a row is 1
    assert float(m.result()) == pytest.approx(3.8)


@pytest.mark.parametrize("shape", [(), (5,), (4, 3), (2, 3, 4)])
def test_mean_and_sum_match_numpy(shape):
    batches = [RNG.standard_normal(shape).astype(np.float32) for _ in range(3)]
    mean, total = metrics.Mean(), metrics.Sum()
    for batch in batches:
        mean.update_state(rt.constant(batch))
        total.update_state(batch)
    per_sample = [b.reshape(b.shape[0], -1).mean(axis=1) if b.ndim > 1 else b for b in batches]
    samples = np.concatenate([np.atleast_1d(p) for p in per_sample])
    _close(mean.result(), samples.mean())
    _close(total.result(), sum(b.sum() for b in batches))


def test_weighted_mean_and_sum_match_numpy():
    values = RNG.standard_normal((6, 3)).astype(np.float32)
    weights = RNG.uniform(0, 2, 6).astype(np.float32)
    m = metrics.Mean()
    m.update_state(values, sample_weight=weights)  # one weight per row
    _close(m.result(), np.sum(values.mean(axis=1) * weights) / weights.sum())
    m.reset_state()
    full = RNG.uniform(0, 2, (6, 3)).astype(np.float32)
    m.update_state(values, sample_weight=full)  # one weight per element
    _close(m.result(), np.sum((values * full).mean(axis=1)) / full.mean(axis=1).sum())
    m.reset_state()
    m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])  # Keras' documented examples
    assert float(m.result()) == 2.0
    m.update_state(10.0, sample_weight=2.0)
    assert float(m.result()) == pytest.approx((4 + 20) / 4)
    s = metrics.Sum()
    s.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
    assert float(s.result()) == 4.0
    s.update_state(values, sample_weight=weights[:, None])  # [N, 1] weights
    _close(s.result(), 4.0 + np.sum(values * weights[:, None]))


def test_a_sample_weight_of_more_dims_than_the_values_is_an_error():
    with pytest.raises(ValueError, match="sample_weight of shape \\[2, 3\\]"):
        metrics.Mean().update_state([1.0, 2.0], sample_weight=np.ones((2, 3)))


def test_accuracy_matches_numpy():
    y_true = RNG.integers(0, 3, 20)
    y_pred = RNG.integers(0, 3, 20)
    weights = RNG.uniform(0, 1, 20).astype(np.float32)
    m = metrics.Accuracy()
    m.update_state(y_true[:12], y_pred[:12])
    m.update_state(rt.constant(y_true[12:]), rt.constant(y_pred[12:].astype(np.float32)))
    _close(m.result(), np.mean(y_true == y_pred))
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=weights)
    _close(m.result(), np.sum((y_true == y_pred) * weights) / weights.sum())
    keras = metrics.Accuracy()  # Keras' documented example
    keras.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])
    assert float(keras.result()) == 0.75
    keras.reset_state()
    keras.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]], sample_weight=[1, 1, 0, 0])
    assert float(keras.result()) == 0.5


@pytest.mark.parametrize("labels", ["int32", "int64", "float32", "column"])
def test_sparse_categorical_accuracy_matches_numpy(labels):
    logits = RNG.standard_normal((16, 4)).astype(np.float32)
    y = RNG.integers(0, 4, 16)
    expected = np.argmax(logits, -1) == y
    y_true = y[:, None] if labels == "column" else y.astype(labels)
    weights = RNG.uniform(0, 1, 16).astype(np.float32)
    m = metrics.SparseCategoricalAccuracy()
    assert m.name == "sparse_categorical_accuracy"
    m.update_state(y_true, logits)
    _close(m.result(), expected.mean())
    m.reset_state()
    m.update_state(rt.constant(y_true), rt.constant(logits), sample_weight=weights)
    _close(m.result(), np.sum(expected * weights) / weights.sum())


def test_sparse_categorical_accuracy_keras_example():
    m = metrics.SparseCategoricalAccuracy()
    m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]])
    assert float(m.result()) == 0.5
    m.reset_state()
    m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]], sample_weight=[0.7, 0.3])
    assert float(m.result()) == pytest.approx(0.3)


def test_categorical_accuracy_matches_numpy():
    logits = RNG.standard_normal((10, 5)).astype(np.float32)
    labels = np.eye(5, dtype=np.float32)[RNG.integers(0, 5, 10)]
    weights = RNG.uniform(0, 1, 10).astype(np.float32)
    matches = np.argmax(logits, -1) == np.argmax(labels, -1)
    m = metrics.CategoricalAccuracy()
    m.update_state(labels, logits)
    _close(m.result(), matches.mean())
    m.reset_state()
    m.update_state(labels, logits, sample_weight=weights)
    _close(m.result(), np.sum(matches * weights) / weights.sum())
    keras = metrics.CategoricalAccuracy()
    keras.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]],
                       sample_weight=[0.7, 0.3])
    assert float(keras.result()) == pytest.approx(0.3)


def test_mean_squared_error_matches_numpy():
    y_true = RNG.standard_normal((8, 3)).astype(np.float32)
    y_pred = RNG.standard_normal((8, 3)).astype(np.float32)
    weights = RNG.uniform(0, 1, 8).astype(np.float32)
    per_sample = np.mean((y_true - y_pred) ** 2, axis=-1)
    m = metrics.MeanSquaredError()
    m.update_state(y_true[:5], y_pred[:5])
    m.update_state(rt.constant(y_true[5:]), rt.constant(y_pred[5:]))
    _close(m.result(), per_sample.mean())
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=weights)
    _close(m.result(), np.sum(per_sample * weights) / weights.sum())
    keras = metrics.MeanSquaredError()
    keras.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])  # integers: still a float mean
    assert float(keras.result()) == 0.25


def test_reset_state_zeroes_the_variables():
    m = metrics.Mean("loss")
    m([1.0, 2.0, 3.0])
    assert [float(v.numpy()) for v in m.variables] == [6.0, 3.0]
    m.reset_state()
    assert [float(v.numpy()) for v in m.variables] == [0.0, 0.0]
    assert float(m.result()) == 0.0
    m(4.0)
    assert float(m.result()) == 4.0


def test_variables_list_the_state():
    m = metrics.Mean("loss")
    assert [v.name.rsplit("_", 1)[0] for v in m.variables] == ["loss/total", "loss/count"]
    assert all(not v.trainable for v in m.variables) and m.trainable_variables == []
    assert [v.dtype for v in m.variables] == [rt.float32, rt.float32]
    assert [v.name.rsplit("_", 1)[0] for v in metrics.Sum().variables] == ["sum/total"]
    assert len(metrics.SparseCategoricalAccuracy().variables) == 2
    assert m.name == "loss" and m.dtype is rt.float32


def test_a_float64_metric():
    m = metrics.Mean(dtype=rt.float64)
    m([0.1, 0.2])
    assert m.result().dtype is rt.float64 and m.variables[0].dtype is rt.float64
    assert float(m.result()) == (0.1 + 0.2) / 2
    with pytest.raises(TypeError, match="dtype"):
        metrics.Mean(dtype=rt.string)


def test_updates_inside_a_function_run_on_every_call_and_trace_once():
    loss = metrics.Mean("loss")
    accuracy = metrics.SparseCategoricalAccuracy()
    eager_loss = metrics.Mean()
    eager_accuracy = metrics.SparseCategoricalAccuracy()

    @rt.function
    def step(values, y, logits):
        loss(values)
        accuracy.update_state(y, logits)
        return loss.result(), accuracy.result()

    for _ in range(5):
        values = RNG.standard_normal(4).astype(np.float32)
        y = RNG.integers(0, 3, 4)
        logits = RNG.standard_normal((4, 3)).astype(np.float32)
        got = step(rt.constant(values), rt.constant(y), rt.constant(logits))
        want = (eager_loss(values), eager_accuracy(y, logits))
        _close(got[0], float(want[0]))
        _close(got[1], float(want[1]))
    assert step.experimental_get_tracing_count() == 1
    _close(loss.result(), float(eager_loss.result()))
    assert float(loss.variables[1].numpy()) == 20.0


def test_reset_and_weights_inside_a_function():
    m = metrics.Mean()

    @rt.function
    def update(values, weights):
        m.update_state(values, sample_weight=weights)

    @rt.function
    def reset():
        m.reset_state()

    update(rt.constant([1.0, 2.0]), rt.constant([1.0, 3.0]))
    update(rt.constant([5.0, 5.0]), rt.constant([0.0, 0.0]))
    _close(m.result(), 7.0 / 4.0)
    reset()
    assert float(m.result()) == 0.0
    update(rt.constant([4.0, 2.0]), rt.constant([1.0, 1.0]))
    _close(m.result(), 3.0)
    assert update.experimental_get_tracing_count() == 1


def test_a_batch_of_unknown_size_inside_a_function():
    m = metrics.Mean()
    update = rt.function(m.update_state, input_signature=[rt.TensorSpec([None], rt.float32)])
    update(rt.constant([1.0, 2.0, 3.0]))
    update(rt.constant([7.0]))
    _close(m.result(), 13.0 / 4.0)
    assert float(m.count.numpy()) == 4.0
    assert update.experimental_get_tracing_count() == 1


def test_a_metric_subclass():
    class Maximum(metrics.Metric):
        def __init__(self, name="maximum"):
            super().__init__(name=name)
            self.best = self.add_variable(name="best")

        def update_state(self, values):
            self.best.assign(rt.maximum(self.best, rt.reduce_max(rt.cast(values, self.dtype))))

        def result(self):
            return self.best.read_value()

    m = Maximum()
    assert float(m([1, 4, 2])) == 4.0 and float(m([3])) == 4.0
    m.reset_state()
    assert float(m.result()) == 0.0
    with pytest.raises(NotImplementedError, match="update_state"):
        metrics.Metric().update_state(1.0)
