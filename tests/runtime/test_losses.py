"""rt.losses (runtime/losses.py): each Keras loss against its numpy formula (float64), as a
function and as an object with each reduction and sample weights; eagerly and inside
rt.function (known and unknown dims); gradients against finite differences; extreme inputs;
bad input. TensorFlow is compared only when it is installed."""

import numpy as np
import pytest
from op_testing import graph_function, traced_for_specs
from test_gradients import check as check_gradient

import runtime as rt
from runtime import losses

EPS = 1e-7
RNG = np.random.default_rng(11)
N, C = 6, 4
LOGITS = RNG.normal(size=(N, C)).astype(np.float32) * 2
PROBS = (np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)).astype(np.float32)
LABELS = np.array([0, 3, 1, 1, 2, 0])
ONE_HOT = np.eye(C, dtype=np.float32)[LABELS]
BINARY = (RNG.random((N, 3)) > 0.5).astype(np.float32)
SIGMOIDS = RNG.uniform(0.05, 0.95, (N, 3)).astype(np.float32)
REGRESSION = RNG.normal(size=(N, 3)).astype(np.float32)


# ---- numpy formulas (float64) --------------------------------------------------------------------

def np_log_softmax(x, axis=-1):
    x = np.asarray(x, np.float64)
    shifted = x - x.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


def np_mse(y, p):
    return ((np.asarray(y, np.float64) - p) ** 2).mean(-1)


def _clip(p):
    """Keras' clip to [EPS, 1 - EPS], with the bounds in p's dtype (1 - 1e-7 is
    0.99999988 in float32), then in float64."""
    p = np.asarray(p)
    return np.clip(p, p.dtype.type(EPS), p.dtype.type(1 - EPS)).astype(np.float64)


def np_categorical(y, p, from_logits=False, label_smoothing=0.0, axis=-1):
    y = np.asarray(y, np.float64)
    y = y * (1 - label_smoothing) + label_smoothing / y.shape[axis]
    if from_logits:
        return -(y * np_log_softmax(p, axis)).sum(axis)
    p = _clip(p / p.sum(axis, keepdims=True))
    return -(y * np.log(p)).sum(axis)


def np_sparse(labels, p, from_logits=False):
    labels = np.asarray(labels).astype(np.int64).reshape(np.shape(p)[:-1])
    logits = p if from_logits else np.log(_clip(p))
    return -np.take_along_axis(np_log_softmax(logits), labels[..., None], -1)[..., 0]


def np_binary(y, p, from_logits=False, label_smoothing=0.0):
    y = np.asarray(y, np.float64) * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        p = np.asarray(p, np.float64)
        return (np.maximum(p, 0) - p * y + np.log1p(np.exp(-np.abs(p)))).mean(-1)
    p = _clip(p)
    return -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean(-1)


def _close(got, want, rtol=2e-6, atol=1e-6):
    got = got.numpy() if isinstance(got, rt.Tensor) else got
    assert np.shape(got) == np.shape(want), (np.shape(got), np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# function, its numpy formula, y_true, y_pred, keyword arguments
CASES = {
    "mse": (losses.mean_squared_error, np_mse, REGRESSION * 0.5, REGRESSION, {}),
    "categorical": (losses.categorical_crossentropy, np_categorical, ONE_HOT, PROBS, {}),
    "categorical_unnormalized": (losses.categorical_crossentropy, np_categorical, ONE_HOT,
                                 PROBS * 3.0, {}),
    "categorical_logits": (losses.categorical_crossentropy, np_categorical, ONE_HOT, LOGITS,
                           {"from_logits": True}),
    "categorical_smoothing": (losses.categorical_crossentropy, np_categorical, ONE_HOT, PROBS,
                              {"label_smoothing": 0.2}),
    "categorical_logits_smoothing": (losses.categorical_crossentropy, np_categorical, ONE_HOT,
                                     LOGITS, {"from_logits": True, "label_smoothing": 0.1}),
    "categorical_axis_0": (losses.categorical_crossentropy, np_categorical, ONE_HOT.T, PROBS.T,
                           {"axis": 0}),
    "sparse": (losses.sparse_categorical_crossentropy, np_sparse, LABELS, PROBS, {}),
    "sparse_logits": (losses.sparse_categorical_crossentropy, np_sparse, LABELS, LOGITS,
                      {"from_logits": True}),
    "sparse_column": (losses.sparse_categorical_crossentropy, np_sparse, LABELS[:, None], PROBS,
                      {}),
    "sparse_float_labels": (losses.sparse_categorical_crossentropy, np_sparse,
                            LABELS.astype(np.float32), LOGITS, {"from_logits": True}),
    "binary": (losses.binary_crossentropy, np_binary, BINARY, SIGMOIDS, {}),
    "binary_logits": (losses.binary_crossentropy, np_binary, BINARY, REGRESSION * 3,
                      {"from_logits": True}),
    "binary_smoothing": (losses.binary_crossentropy, np_binary, BINARY, SIGMOIDS,
                         {"label_smoothing": 0.1}),
    "binary_logits_smoothing": (losses.binary_crossentropy, np_binary, BINARY, REGRESSION,
                                {"from_logits": True, "label_smoothing": 0.2}),
}


# ---- functions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(CASES))
def test_functions_against_numpy_eagerly_and_in_graphs(name):
    fn, np_fn, y, p, kwargs = CASES[name]
    want = np_fn(y, p, **kwargs)
    eager = fn(y, p, **kwargs)
    assert eager.dtype is rt.float32 and eager.shape == want.shape
    _close(eager, want)
    _close(fn(y.tolist(), rt.constant(p), **kwargs), want)  # labels as a list
    graph = graph_function(lambda y, p: fn(y, p, **kwargs))(rt.constant(y), rt.constant(p))
    np.testing.assert_array_equal(graph.numpy(), eager.numpy())
    specs = [rt.TensorSpec((None,) * a.ndim, rt.constant(a).dtype) for a in (y, p)]
    unknown = traced_for_specs(lambda y, p: fn(y, p, **kwargs), *specs)
    _close(unknown(rt.constant(y), rt.constant(p)), want)
    p64 = p.astype(np.float64)
    _close(fn(y, p64, **kwargs), np_fn(y, p64, **kwargs), rtol=1e-12, atol=1e-12)


def test_labels_of_any_kind():
    """int, float and bool labels, numpy arrays, lists and tensors; int predictions become
    float32."""
    want = np_binary(BINARY, SIGMOIDS)
    for y in (BINARY, BINARY.astype(np.int32), BINARY > 0, BINARY.tolist(),
              rt.constant(BINARY.astype(np.int64))):
        _close(losses.binary_crossentropy(y, SIGMOIDS), want)
    want = np_sparse(LABELS, PROBS)
    for y in (LABELS, LABELS.astype(np.int32), LABELS.astype(np.uint8), LABELS.astype(np.float64),
              LABELS.tolist(), [[v] for v in LABELS.tolist()]):
        _close(losses.sparse_categorical_crossentropy(y, PROBS), want)
    got = losses.mean_squared_error([1, 2, 3], [1, 2, 5])
    assert got.dtype is rt.float32 and float(got) == pytest.approx(4 / 3)
    # Keras' squeeze_or_expand_to_same_rank: labels [N] against predictions [N, 1]
    _close(losses.mean_squared_error(REGRESSION[:, 0], REGRESSION[:, :1] * 2),
           REGRESSION[:, 0] ** 2)
    _close(losses.binary_crossentropy(BINARY[:, 0], SIGMOIDS[:, :1]),
           np_binary(BINARY[:, :1], SIGMOIDS[:, :1]))


def test_sparse_labels_with_batch_dims():
    logits = RNG.normal(size=(2, 3, C)).astype(np.float32)
    labels = RNG.integers(0, C, (2, 3))
    _close(losses.sparse_categorical_crossentropy(labels, logits, from_logits=True),
           np_sparse(labels, logits, True))
    _close(losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits),
           np_sparse(labels, logits, True).mean())


def test_extreme_inputs_stay_finite():
    """Probabilities of exactly 0 and 1 are clipped; logits of +-1000 go through the stable
    ops; the gradients are finite too."""
    probs = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], np.float32)
    logits = np.array([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 1000.0]], np.float32)
    labels = np.array([1, 2])
    hot = np.eye(3, dtype=np.float32)[labels]
    p, z = rt.constant(probs), rt.constant(logits)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([p, z])
        values = [losses.sparse_categorical_crossentropy(labels, p),
                  losses.categorical_crossentropy(hot, p),
                  losses.binary_crossentropy(hot, p),
                  losses.sparse_categorical_crossentropy(labels, z, from_logits=True),
                  losses.categorical_crossentropy(hot, z, from_logits=True),
                  losses.binary_crossentropy(hot, z, from_logits=True)]
    for value in values:
        assert np.isfinite(value.numpy()).all()
        for source in (p, z):
            grad = tape.gradient(value, source)
            assert grad is None or np.isfinite(grad.numpy()).all()
    _close(values[0], np_sparse(labels, probs), rtol=1e-5)
    _close(values[1], np_categorical(hot, probs), rtol=1e-5)
    _close(values[2], np_binary(hot, probs), rtol=1e-5)
    _close(values[3], [2000.0, np.log(2.0)], rtol=1e-6)
    _close(values[4], [2000.0, np.log(2.0)], rtol=1e-6)
    _close(values[5], np_binary(hot, logits, True), rtol=1e-6)
    assert float(values[0][0]) == pytest.approx(-np.log(EPS), rel=1e-5)


# ---- objects and reductions ----------------------------------------------------------------------

# the class, its default name, the case of CASES whose keyword arguments it takes
OBJECTS = [
    (losses.MeanSquaredError, "mean_squared_error", "mse"),
    (losses.CategoricalCrossentropy, "categorical_crossentropy", "categorical_smoothing"),
    (losses.CategoricalCrossentropy, "categorical_crossentropy", "categorical_logits"),
    (losses.SparseCategoricalCrossentropy, "sparse_categorical_crossentropy", "sparse"),
    (losses.SparseCategoricalCrossentropy, "sparse_categorical_crossentropy", "sparse_logits"),
    (losses.BinaryCrossentropy, "binary_crossentropy", "binary"),
    (losses.BinaryCrossentropy, "binary_crossentropy", "binary_logits_smoothing"),
]


@pytest.mark.parametrize("cls, name, case", OBJECTS, ids=[o[2] for o in OBJECTS])
def test_objects_and_reductions(cls, name, case):
    _, np_fn, y, p, kwargs = CASES[case]
    per_example = np_fn(y, p, **kwargs)
    weights = RNG.uniform(0.0, 2.0, N)
    loss = cls(**kwargs)
    assert loss.name == name and loss.reduction == "sum_over_batch_size"
    _close(loss(y, p), per_example.mean())
    _close(loss(y, p, sample_weight=weights), (per_example * weights).mean())
    _close(loss(y, p, sample_weight=weights[:, None]), (per_example * weights).mean())
    _close(loss(y, p, sample_weight=2.0), per_example.mean() * 2)
    _close(cls(**kwargs, reduction="sum")(y, p, weights), (per_example * weights).sum(),
           rtol=1e-5)
    _close(cls(**kwargs, reduction="none")(y, p, weights), per_example * weights)
    _close(cls(**kwargs, reduction=None)(y, p), per_example)
    _close(cls(**kwargs, reduction="mean_with_sample_weight")(y, p, weights),
           (per_example * weights).sum() / weights.sum())
    assert cls(**kwargs, name="mine").name == "mine"
    config = loss.get_config()
    assert config["name"] == name and type(cls.from_config(config)) is cls

    traced = rt.function(lambda y, p, w: loss(y, p, sample_weight=w))
    args = (rt.constant(y), rt.constant(p), rt.constant(weights.astype(np.float32)))
    np.testing.assert_array_equal(traced(*args).numpy(), loss(*args).numpy())


def test_reductions_of_more_dims_and_empty_batches():
    values = RNG.uniform(size=(3, 4)).astype(np.float32)
    weights = np.array([1.0, 0.0, 2.0], np.float32)
    _close(losses.reduce_weighted_values(values, weights), (values * weights[:, None]).mean())
    _close(losses.reduce_weighted_values(values, weights, "none"), values * weights[:, None])
    _close(losses.reduce_weighted_values(values, weights, "mean_with_sample_weight"),
           (values * weights[:, None]).sum() / (weights.sum() * 4))
    empty = np.zeros((0,), np.float32)
    assert float(losses.reduce_weighted_values(empty)) == 0.0  # Keras' divide_no_nan
    assert float(losses.MeanSquaredError()(np.zeros((0, 2)), np.zeros((0, 2)))) == 0.0


def test_custom_loss_and_get():
    class Huberish(losses.Loss):
        def call(self, y_true, y_pred):
            return rt.reduce_mean(rt.abs(y_pred - y_true), -1)

    loss = Huberish(reduction="sum")
    assert loss.name == "huberish"
    _close(loss(REGRESSION * 0, REGRESSION), np.abs(REGRESSION).mean(-1).sum(), rtol=1e-5)
    assert losses.get("mse") is losses.mean_squared_error is losses.MSE
    assert losses.get("sparse_categorical_crossentropy") is losses.sparse_categorical_crossentropy
    assert isinstance(losses.get("BinaryCrossentropy"), losses.BinaryCrossentropy)
    assert isinstance(losses.get(losses.MeanSquaredError), losses.MeanSquaredError)
    assert losses.get(loss) is loss and losses.get(None) is None
    with pytest.raises(ValueError, match="Unknown loss"):
        losses.get("hinge_of_fate")
    with pytest.raises(ValueError, match="reduction must be one of"):
        losses.MeanSquaredError(reduction="average")
    with pytest.raises(NotImplementedError):
        losses.Loss()(REGRESSION, REGRESSION)


# ---- gradients -----------------------------------------------------------------------------------

P64 = RNG.uniform(0.1, 0.9, (4, 3))  # probabilities away from the clip bounds
Z64 = RNG.normal(size=(4, 3)) * 2
Y_HOT = np.eye(3)[[0, 2, 1, 1]]
Y_SPARSE = np.array([0, 2, 1, 1])


def test_gradients_against_finite_differences():
    check_gradient(lambda p: losses.mean_squared_error(Y_HOT, p), Z64)
    check_gradient(lambda p: losses.categorical_crossentropy(Y_HOT, p), P64)
    check_gradient(lambda p: losses.categorical_crossentropy(Y_HOT, p, label_smoothing=0.2), P64)
    check_gradient(lambda z: losses.categorical_crossentropy(Y_HOT, z, from_logits=True), Z64)
    check_gradient(lambda p: losses.sparse_categorical_crossentropy(Y_SPARSE, p), P64)
    check_gradient(lambda z: losses.sparse_categorical_crossentropy(Y_SPARSE, z, True), Z64)
    check_gradient(lambda p: losses.binary_crossentropy(Y_HOT, p), P64)
    check_gradient(lambda z: losses.binary_crossentropy(Y_HOT, z, from_logits=True), Z64)
    weights = np.array([0.5, 1.0, 0.0, 2.0])
    check_gradient(lambda z: losses.SparseCategoricalCrossentropy(from_logits=True)(
        Y_SPARSE, z, weights), Z64)
    check_gradient(lambda p: losses.BinaryCrossentropy(reduction="sum")(Y_HOT, p, weights), P64)
    check_gradient(lambda p: losses.CategoricalCrossentropy()(Y_HOT, p), P64)
    check_gradient(lambda p: losses.MeanSquaredError()(Y_HOT, p), Z64)


def test_gradient_of_a_model_step_in_a_function():
    """The usual training step: the gradient of the mean loss reaches the weights."""
    w = rt.Variable(RNG.normal(size=(3, C)).astype(np.float32))
    x = rt.constant(REGRESSION)
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)

    @rt.function
    def step(x, labels):
        with rt.GradientTape() as tape:
            value = loss(labels, rt.matmul(x, w))
        return value, tape.gradient(value, w)

    value, grad = step(x, rt.constant(LABELS))
    logits = REGRESSION.astype(np.float64) @ w.numpy()
    probs = np.exp(np_log_softmax(logits))
    want = REGRESSION.T.astype(np.float64) @ (probs - np.eye(C)[LABELS]) / N
    _close(value, np_sparse(LABELS, logits, True).mean())
    _close(grad, want, rtol=1e-5)


# ---- bad input -----------------------------------------------------------------------------------

def test_bad_input():
    with pytest.raises(rt.errors.InvalidArgumentError, match="label value of 4"):
        losses.sparse_categorical_crossentropy([0, 4], PROBS[:2])
    traced = rt.function(lambda y, p: losses.sparse_categorical_crossentropy(y, p))
    with pytest.raises(rt.errors.InvalidArgumentError, match="label value of -1") as info:
        traced(rt.constant([0, -1]), rt.constant(PROBS[:2]))
    assert "test_losses.py" in str(info.value)  # the user's line
    with pytest.raises(rt.errors.InvalidArgumentError, match="same shape"):
        losses.categorical_crossentropy(ONE_HOT[:, :3], PROBS)
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"shape \[N\] or \[N, 1\]"):
        losses.sparse_categorical_crossentropy(ONE_HOT, PROBS)
    with pytest.raises(TypeError, match="numeric labels"):
        losses.mean_squared_error(np.array([b"a"], object), [1.0])
    with pytest.raises(TypeError, match="integer labels"):
        losses.sparse_categorical_crossentropy(np.array([b"a"], object), PROBS[:1])


# ---- TensorFlow, when it is installed (it is not a dependency) -----------------------------------

def test_agrees_with_tensorflow_keras_when_installed():
    tf = pytest.importorskip("tensorflow")
    keras = tf.keras
    pairs = [
        (losses.MeanSquaredError(), keras.losses.MeanSquaredError(), REGRESSION * 0.5,
         REGRESSION),
        (losses.CategoricalCrossentropy(label_smoothing=0.1),
         keras.losses.CategoricalCrossentropy(label_smoothing=0.1), ONE_HOT, PROBS),
        (losses.SparseCategoricalCrossentropy(from_logits=True),
         keras.losses.SparseCategoricalCrossentropy(from_logits=True), LABELS, LOGITS),
        (losses.SparseCategoricalCrossentropy(), keras.losses.SparseCategoricalCrossentropy(),
         LABELS, PROBS),
        (losses.BinaryCrossentropy(), keras.losses.BinaryCrossentropy(), BINARY, SIGMOIDS),
        (losses.BinaryCrossentropy(from_logits=True),
         keras.losses.BinaryCrossentropy(from_logits=True), BINARY, REGRESSION),
    ]
    for ours, theirs, y, p in pairs:
        _close(ours(y, p), np.asarray(theirs(y, p)), rtol=1e-5, atol=1e-6)
