"""Seed behaviours S20, S21, S25 and S27 of shared/SEED_EXAMPLES.md: models as objects (a Module
with variables, a Sequential image classifier trained with Adam), metrics, and a gradient
clipped by norm in a custom gradient. Each runs eagerly and as rt.function, with the same
numbers."""

import numpy as np
import pytest

import runtime as rt

# ---- S20: a model class -------------------------------------------------------------------------

class Linear(rt.Module):
    def __init__(self):
        super().__init__()
        self.W = rt.Variable(5.0, name="weight")
        self.B = rt.Variable(10.0, name="bias")

    def __call__(self, inputs):
        return inputs * self.W + self.B


def _loss(model, inputs, targets):
    error = model(inputs) - targets
    return rt.reduce_mean(rt.square(error))


def _grad(model, inputs, targets):
    with rt.GradientTape() as tape:
        loss_value = _loss(model, inputs, targets)
    return tape.gradient(loss_value, [model.W, model.B])


def _train_linear(decorate):
    rng = np.random.default_rng(0)
    training_inputs = rng.standard_normal(2000).astype(np.float32)
    noise = rng.standard_normal(2000).astype(np.float32)
    training_outputs = training_inputs * 3 + 2 + noise
    model = Linear()
    optimizer = rt.optimizers.SGD(learning_rate=0.01)

    def step(inputs, outputs):
        grads = _grad(model, inputs, outputs)
        optimizer.apply_gradients(zip(grads, [model.W, model.B]))
        return _loss(model, inputs, outputs)

    step = decorate(step)
    printed = [float(_loss(model, training_inputs, training_outputs))]
    for i in range(300):
        loss = step(training_inputs, training_outputs)
        if i % 20 == 0:
            printed.append(float(loss))
    return model, printed, step


def test_s20_a_model_class_collects_its_variables_and_trains():
    model, losses, _ = _train_linear(lambda f: f)
    assert model.trainable_variables == [model.W, model.B]
    assert [v.name.rpartition("_")[0] for v in model.variables] == ["weight", "bias"]
    assert 60 < losses[0] < 75 and losses[-1] < 1.2
    assert abs(float(model.W.numpy()) - 3.0) < 0.1 and abs(float(model.B.numpy()) - 2.0) < 0.1
    graph_model, graph_losses, step = _train_linear(rt.function)
    np.testing.assert_allclose(graph_losses, losses, rtol=1e-5)
    np.testing.assert_allclose([graph_model.W.numpy(), graph_model.B.numpy()],
                               [model.W.numpy(), model.B.numpy()], rtol=1e-5)
    assert step.experimental_get_tracing_count() == 1


def test_s20_a_decorated_call_method_traces_once_per_instance():
    class Decorated(Linear):
        @rt.function
        def __call__(self, inputs):
            return inputs * self.W + self.B

    a, b = Decorated(), Decorated()
    b.W.assign(1.0)
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(a(x).numpy(), x * 5 + 10)
    np.testing.assert_array_equal(b(x).numpy(), x * 1 + 10)
    a(x + 1)
    assert Decorated.__call__.__get__(a).experimental_get_tracing_count() == 1
    assert Decorated.__call__.__get__(b).experimental_get_tracing_count() == 1


# ---- S21: a sequential image model on scikit-learn's 8x8 digits --------------------------------

def _digits():
    datasets = pytest.importorskip("sklearn.datasets")
    digits = datasets.load_digits()
    images = (digits.images / 16.0).astype(np.float32)[..., None]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(images))
    images, labels = images[order], labels[order]
    n_test = len(images) // 5  # a held-out 20%
    return (images[n_test:], labels[n_test:]), (images[:n_test], labels[:n_test])


def _image_model(head, input_shape):
    rt.random.set_seed(0)
    return rt.Sequential([
        rt.layers.Conv2D(16, [3, 3], activation="relu", input_shape=input_shape),
        rt.layers.Conv2D(16, [3, 3], activation="relu"),
        head,
        rt.layers.Dense(10),
    ])


def _train_images(model, optimizer, decorate, train, epochs=3):
    loss_object = rt.losses.SparseCategoricalCrossentropy(from_logits=True)

    def train_step(images, labels):
        with rt.GradientTape() as tape:
            logits = model(images, training=True)
            rt.debugging.assert_equal(logits.shape, (32, 10))
            loss_value = loss_object(labels, logits)
        grads = tape.gradient(loss_value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss_value

    step = decorate(train_step)
    images, labels = train
    loss_history = []
    for _ in range(epochs):
        for start in range(0, len(images) - 31, 32):
            loss_history.append(float(step(images[start:start + 32], labels[start:start + 32])))
    return loss_history, step


def test_s21_the_seeds_model_builds_and_its_step_is_the_same_eagerly_and_as_a_function():
    train, _ = _digits()
    histories = []
    for decorate in (lambda f: f, rt.function):
        model = _image_model(rt.layers.GlobalAveragePooling2D(), (None, None, 1))
        assert model(train[0][0:1]).shape == (1, 10)
        assert len(model.trainable_variables) == 6
        history, step = _train_images(model, rt.optimizers.Adam(), decorate,
                                      (train[0][:320], train[1][:320]), epochs=1)
        histories.append(history)
    np.testing.assert_allclose(histories[1], histories[0], rtol=1e-4)
    assert step.experimental_get_tracing_count() == 1


def test_s21_the_flatten_variant_reaches_90_percent_on_held_out_digits():
    train, (test_images, test_labels) = _digits()
    losses = {}
    for name, decorate in (("eager", lambda f: f), ("graph", rt.function)):
        model = _image_model(rt.layers.Flatten(), (8, 8, 1))
        losses[name], _ = _train_images(model, rt.optimizers.Adam(learning_rate=3e-3), decorate,
                                        train)
        accuracy = rt.metrics.SparseCategoricalAccuracy()
        accuracy.update_state(test_labels, model(test_images))
        assert float(accuracy.result()) >= 0.9, name
    np.testing.assert_allclose(losses["graph"], losses["eager"], rtol=1e-3, atol=1e-5)
    history = losses["graph"]
    assert np.mean(history[-20:]) < 0.3 * np.mean(history[:20])  # the loss falls


def test_s21_the_assertion_on_the_logits_shape_fails_at_the_users_line():
    model = _image_model(rt.layers.Flatten(), (8, 8, 1))

    @rt.function
    def step(images):
        logits = model(images)
        rt.debugging.assert_equal(logits.shape, (32, 10))
        return logits

    with pytest.raises(rt.errors.InvalidArgumentError, match=r"\(16, 10\) != \(32, 10\)") as e:
        step(np.zeros((16, 8, 8, 1), np.float32))
    assert "test_seed_examples_models.py" in str(e.value)


# ---- S25: metrics as objects -----------------------------------------------------------------

def test_s25_a_mean_metric():
    m = rt.metrics.Mean("loss")
    m(0)
    m(5)
    assert float(m.result()) == 2.5
    m([8, 9])
    assert float(m.result()) == 5.5
    assert m.name == "loss"


def test_s25_a_metric_updated_inside_a_function_accumulates_per_call():
    m = rt.metrics.Mean("loss")
    update = rt.function(lambda v: m.update_state(v))
    for value in (0.0, 5.0, 8.0, 9.0):
        update(np.float32(value))
    assert float(m.result()) == 5.5 and update.experimental_get_tracing_count() == 1


# ---- S27: a gradient clipped by norm ---------------------------------------------------------

@rt.custom_gradient
def clip_gradient_by_norm(x, norm):
    y = rt.identity(x)

    def grad_fn(dresult):
        return [rt.clip_by_norm(dresult, norm), None]

    return y, grad_fn


def test_s27_the_gradient_reaching_x_is_clipped_to_the_norm_and_none_reaches_norm():
    x, norm = rt.constant([3.0, 4.0]), rt.constant(1.0)

    def gradients(x, norm):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch([x, norm])
            y = clip_gradient_by_norm(x, norm) * 10.0  # the gradient reaching y's input: 10s
        return tape.gradient(y, x), tape.gradient(y, norm)

    for run in (gradients, rt.function(gradients)):
        dx, dnorm = run(x, norm)
        np.testing.assert_allclose(dx.numpy(), [np.sqrt(0.5), np.sqrt(0.5)], rtol=1e-6)
        assert dnorm is None
        dx, _ = run(x, rt.constant(100.0))  # within the norm: unchanged
        np.testing.assert_allclose(dx.numpy(), [10.0, 10.0])
