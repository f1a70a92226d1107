"""rt.layers and rt.Sequential / rt.Model: building on the first call, values against numpy,
eagerly and in graphs, freezing, seeded initializers, and user-defined layers."""

import numpy as np
import pytest

import runtime as rt
from runtime.layers import activations, initializers


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_dense_builds_on_the_first_call_and_computes_inputs_at_kernel_plus_bias():
    layer = rt.layers.Dense(3, activation="relu")
    assert not layer.built and layer.variables == []
    x = _x(4, 5)
    y = layer(x)
    assert layer.built and [tuple(v.shape) for v in layer.variables] == [(5, 3), (3,)]
    kernel, bias = layer.get_weights()
    np.testing.assert_allclose(y.numpy(), np.maximum(x @ kernel + bias, 0), rtol=1e-6)
    y3 = layer(_x(2, 6, 5))  # a rank-3 input: over the last axis
    np.testing.assert_allclose(y3.numpy(), np.maximum(_x(2, 6, 5) @ kernel + bias, 0),
                               rtol=1e-5, atol=1e-6)


def test_floating_inputs_are_cast_to_the_layers_dtype():
    layer = rt.layers.Dense(2)
    assert layer(np.ones((1, 3))).dtype == rt.float32  # float64 numpy input


def test_initializers_are_reproducible_after_set_seed():
    def weights():
        rt.random.set_seed(7)
        model = rt.Sequential([rt.layers.Dense(4, input_shape=(3,)), rt.layers.Dense(2)])
        return model.get_weights()

    first, second = weights(), weights()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    limit = np.sqrt(6 / (3 + 4))  # glorot uniform
    assert np.all(np.abs(first[0]) <= limit) and np.all(first[1] == 0)
    normal = initializers.get("he_normal")((400, 300)).numpy()
    assert np.all(np.abs(normal) <= 2 * np.sqrt(2 / 400) / 0.87962566103423978 + 1e-6)
    assert abs(normal.std() - np.sqrt(2 / 400)) < 0.05 * np.sqrt(2 / 400)
    with pytest.raises(ValueError, match="glorot_uniform"):
        initializers.get("glorot")


def test_activations_by_name_agree_with_numpy():
    x = np.array([-30.0, -1.0, 0.0, 0.5, 30.0], np.float32)
    expected = {
        "relu": np.maximum(x, 0), "sigmoid": 1 / (1 + np.exp(-x)), "tanh": np.tanh(x),
        "softplus": np.logaddexp(x, 0), "elu": np.where(x > 0, x, np.expm1(x)),
        "leaky_relu": np.where(x > 0, x, 0.2 * x), "silu": x / (1 + np.exp(-x)), "linear": x,
    }
    for name, want in expected.items():
        np.testing.assert_allclose(activations.get(name)(rt.constant(x)).numpy(), want,
                                   rtol=1e-6, atol=1e-7, err_msg=name)
    with pytest.raises(ValueError, match="relu"):
        activations.get("rleu")


def test_dropout_only_in_training_and_scales_what_it_keeps():
    layer = rt.layers.Dropout(0.5, seed=3)
    x = np.ones((200, 50), np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    y = layer(x, training=True).numpy()
    assert set(np.unique(y)) == {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6
    step = rt.function(lambda x, training: layer(x, training=training))
    np.testing.assert_array_equal(step(x, False).numpy(), x)
    assert (step(x, True).numpy() == 0).any()


def test_flatten_with_an_unknown_batch_in_a_graph():
    flatten = rt.layers.Flatten()
    f = rt.function(lambda x: flatten(x), input_signature=[rt.TensorSpec([None, 2, 3], rt.float32)])
    np.testing.assert_array_equal(f(_x(4, 2, 3)).numpy(), _x(4, 2, 3).reshape(4, 6))


def _mlp():
    rt.random.set_seed(1)
    return rt.Sequential([rt.layers.Dense(8, activation="tanh", input_shape=(5,)),
                          rt.layers.Dropout(0.25), rt.layers.Dense(3)])


def test_sequential_eager_equals_graph_and_numpy():
    model = _mlp()
    assert model.built and len(model.trainable_variables) == 4  # built from input_shape
    x = _x(6, 5)
    w1, b1, w2, b2 = model.get_weights()
    expected = np.tanh(x @ w1 + b1) @ w2 + b2
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rt.function(lambda x: model(x))(x).numpy(), expected, rtol=1e-5,
                               atol=1e-6)
    assert [layer.name for layer in model.layers][1].startswith("dropout")
    lines = []
    model.summary(print_fn=lines.append)
    assert "Total params: 75" in lines[0] and "(?, 8)" in lines[0]


def test_freezing_a_layer_leaves_it_out_of_training():
    model = _mlp()
    model.layers[0].trainable = False
    assert len(model.trainable_variables) == 2 and len(model.variables) == 4
    before = model.layers[0].get_weights()
    optimizer = rt.optimizers.SGD(0.1)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(model(_x(6, 5)))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables))
    for a, b in zip(before, model.layers[0].get_weights()):
        np.testing.assert_array_equal(a, b)


def test_a_lazily_built_model_first_called_inside_a_function_makes_its_variables_once():
    model = rt.Sequential([rt.layers.Dense(4), rt.layers.Dense(2)])
    step = rt.function(lambda x: model(x))
    x = _x(3, 5)
    y = step(x)
    assert len(model.variables) == 4
    assert all(isinstance(v.numpy(), np.ndarray) for v in model.variables)  # not symbolic
    np.testing.assert_allclose(y.numpy(), model(x).numpy(), rtol=1e-6)
    step(x)
    assert len(model.variables) == 4 and step.experimental_get_tracing_count() == 1


class Gated(rt.layers.Layer):
    """A user layer: its tensor `if` becomes a graph cond when traced."""

    def build(self, input_shape):
        self.scale = self.add_weight("scale", (input_shape[-1],), "ones")

    def call(self, inputs, training=False):
        if rt.reduce_sum(inputs) > 0:
            out = inputs * self.scale
        else:
            out = -inputs
        if training:
            out = out * 2.0
        return out


class Classifier(rt.Model):
    def __init__(self):
        super().__init__()
        self.gate = Gated()
        self.heads = [rt.layers.Dense(2), rt.layers.Dense(2)]

    def call(self, inputs, training=False):
        hidden = self.gate(inputs, training=training)
        return self.heads[0](hidden) + self.heads[1](hidden)


def test_a_subclassed_model_with_user_layers_runs_as_python_and_as_a_graph():
    model = Classifier()
    assert [type(layer).__name__ for layer in model.layers] == ["Gated", "Dense", "Dense"]
    step = rt.function(lambda x, training: model(x, training=training))
    for x in (_x(3, 4), -np.abs(_x(3, 4))):
        for training in (False, True):
            np.testing.assert_allclose(step(x, training).numpy(),
                                       model(x, training=training).numpy(), rtol=1e-6)
    assert len(model.trainable_variables) == 5


def test_bad_layer_arguments_say_what_to_pass():
    with pytest.raises(ValueError, match="positive int of units"):
        rt.layers.Dense(0)
    with pytest.raises(ValueError, match="rate"):
        rt.layers.Dropout(1.5)
    with pytest.raises(TypeError, match="Layer"):
        rt.Sequential([lambda x: x])
    with pytest.raises(ValueError, match="last dim"):
        rt.layers.Dense(2).build(rt.TensorShape([None, None]))


def test_training_reaches_inner_layers_that_were_called_without_it():
    class Block(rt.Model):
        def __init__(self):
            super().__init__()
            self.dropout = rt.layers.Dropout(0.5, seed=1)

        def call(self, x, training=False):
            return self.dropout(x)  # no training= here: Keras passes the outer one on

    block, x = Block(), np.ones((50, 40), np.float32)
    assert (block(x, training=True).numpy() == 0).any()
    np.testing.assert_array_equal(block(x).numpy(), x)
    step = rt.function(lambda x: block(x, training=True))
    assert (step(x).numpy() == 0).any()


def test_weights_are_the_layers_not_the_optimizers_or_metrics_a_model_holds():
    class Trainer(rt.Model):
        def __init__(self):
            super().__init__()
            self.dense = rt.layers.Dense(2)
            self.optimizer = rt.optimizers.Adam(0.1)
            self.loss_tracker = rt.metrics.Mean("loss")

        def call(self, x):
            return self.dense(x)

    model, x = Trainer(), _x(3, 4)
    with rt.GradientTape() as tape:
        loss = rt.reduce_sum(model(x))
    model.optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                        model.trainable_variables))
    model.loss_tracker.update_state(loss)
    assert len(model.weights) == 2 and model.count_params() == 10
    fresh = Trainer()
    fresh(x)
    fresh.set_weights(model.get_weights())
    np.testing.assert_array_equal(fresh(x).numpy(), model(x).numpy())
    assert len(model.variables) > 2  # the module's view: everything it holds


def test_freezing_a_model_freezes_its_layers_and_unfreezing_it_unfreezes_them():
    model = _mlp()
    model.trainable = False
    assert model.trainable_weights == [] and len(model.non_trainable_weights) == 4
    model.trainable = True
    assert len(model.trainable_weights) == 4


def test_a_layer_whose_call_is_decorated_takes_training_and_sits_in_a_sequential():
    class Doubler(rt.layers.Layer):
        @rt.function
        def call(self, x, training=False):
            return x * 2.0 if training else x

    model = rt.Sequential([Doubler()])
    x = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(model(x, training=True).numpy(), 2 * x)
    np.testing.assert_array_equal(model(x).numpy(), x)


def test_a_model_takes_a_tuple_a_list_or_a_dict_of_inputs():
    class TwoInputs(rt.Model):
        def __init__(self):
            super().__init__()
            self.a, self.b = rt.layers.Dense(1, kernel_initializer="ones"), rt.layers.Dense(
                1, kernel_initializer="ones")

        def call(self, inputs):
            if isinstance(inputs, dict):
                inputs = (inputs["a"], inputs["b"])
            return self.a(inputs[0]) + self.b(inputs[1])

    a, b = np.ones((4, 3), np.float64), np.ones((4, 5), np.float32)
    for inputs in ((a, b), [a, b], {"a": a, "b": b}):
        out = TwoInputs()(inputs)
        assert out.dtype == rt.float32
        np.testing.assert_array_equal(out.numpy(), np.full((4, 1), 8.0))


def test_a_layer_that_skips_super_init_still_works_in_a_sequential():
    class Plain(rt.layers.Layer):
        def __init__(self):  # no super().__init__()
            self.units = 2

        def build(self, input_shape):
            self.w = self.add_weight("w", (input_shape[-1], self.units))

        def call(self, x):
            return rt.matmul(x, self.w)

    model = rt.Sequential([Plain(), rt.layers.Dense(1)])
    assert model(_x(2, 3)).shape == (2, 1) and len(model.weights) == 3
    lines = []
    model.summary(print_fn=lines.append)
    assert "plain (Plain)" in lines[0] and "Total params: 9" in lines[0]


def test_dense_says_what_it_was_built_for_and_how_to_cast():
    layer = rt.layers.Dense(2)
    layer(_x(1, 3))
    with pytest.raises(ValueError, match="built for inputs of 3 features") as e:
        layer(_x(1, 5))
    assert "test_layers.py" in str(e.value)
    with pytest.raises(TypeError, match=r"rt.cast\(x, rt.float32\)"):
        layer(np.ones((1, 3), np.int64))


def test_a_model_decorated_directly_and_with_an_input_signature():
    model = _mlp()
    x = _x(2, 5)
    for f in (rt.function(model),
              rt.function(model, input_signature=[rt.TensorSpec([None, 5], rt.float32)])):
        np.testing.assert_allclose(f(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_build_errors_name_the_layer_and_the_fix():
    with pytest.raises(ValueError, match=r"Conv2D 'conv2d\w*' needs images .* rt.expand_dims"):
        rt.layers.Conv2D(2, 3)(np.zeros((28, 28, 1), np.float32))
    with pytest.raises(ValueError, match="Dense 'dense\\w*' needs a tensor"):
        rt.layers.Dense(2)({"a": np.zeros((1, 2), np.float32)})


def test_training_given_to_a_layer_whose_call_does_not_take_it_reaches_its_layers():
    class Block(rt.Model):
        def __init__(self):
            super().__init__()
            self.dropout = rt.layers.Dropout(0.5, seed=2)

        def call(self, x):
            return self.dropout(x)

    x = np.ones((40, 40), np.float32)
    assert (Block()(x, training=True).numpy() == 0).any()
    np.testing.assert_array_equal(Block()(x).numpy(), x)
