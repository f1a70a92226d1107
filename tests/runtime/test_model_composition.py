"""A model composes with the rest of the library: the same numbers eagerly, in rt.function, on
the XLA executor, in ONNX, from many threads, after pickling, and through rt.grad, each compared
with the same computation written without the boundary."""

import concurrent.futures
import pickle

import numpy as np
import pytest
from op_testing import onnx_agrees

import runtime as rt


def _model():
    rt.random.set_seed(3)
    return rt.Sequential([
        rt.layers.Conv2D(4, 3, padding="same", activation="relu", input_shape=(6, 6, 2)),
        rt.layers.MaxPool2D(2),
        rt.layers.Conv2D(4, 2, strides=2, activation="tanh"),
        rt.layers.Flatten(),
        rt.layers.Dense(3),
    ])


def _images(n=5, seed=0):
    return np.random.default_rng(seed).standard_normal((n, 6, 6, 2)).astype(np.float32)


def _by_hand(model, x):
    """The model's forward pass written with the ops directly (no layers)."""
    k1, b1, k2, b2, w, b = model.trainable_variables
    h = rt.relu(rt.nn.conv2d(x, k1, 1, "SAME") + b1)
    h = rt.nn.max_pool2d(h, 2, 2)
    h = rt.tanh(rt.nn.conv2d(h, k2, 2, "VALID") + b2)
    return rt.matmul(rt.reshape(h, [-1, 4]), w) + b


def test_layers_compute_what_the_ops_compute_and_output_shapes_are_declared_right():
    model = _model()
    x = _images()
    np.testing.assert_allclose(model(x).numpy(), _by_hand(model, x).numpy(), rtol=1e-6)
    shape = (None, 6, 6, 2)
    for layer in model.layers:
        shape = layer.compute_output_shape(shape)
    assert shape == (None, 3) == model.compute_output_shape((None, 6, 6, 2))
    pool = rt.layers.AveragePooling2D(3, strides=2, padding="same")
    assert pool(x).shape == (5, *pool.compute_output_shape((5, 6, 6, 2))[1:])
    gap = rt.layers.GlobalMaxPooling2D(keepdims=True)
    np.testing.assert_array_equal(gap(x).numpy(), x.max(axis=(1, 2), keepdims=True))


def test_a_training_step_is_the_same_eagerly_in_a_function_and_by_hand():
    results = []
    for decorate, forward in ((lambda f: f, None), (rt.function, None), (rt.function, "hand")):
        model = _model()
        optimizer = rt.optimizers.Adam(0.01)
        loss_object = rt.losses.SparseCategoricalCrossentropy(from_logits=True)

        def step(x, y, model=model, optimizer=optimizer, loss_object=loss_object,
                 forward=forward):
            with rt.GradientTape() as tape:
                logits = _by_hand(model, x) if forward == "hand" else model(x, training=True)
                loss = loss_object(y, logits)
            variables = model.trainable_variables
            optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            return loss

        step = decorate(step)
        losses = [float(step(_images(seed=i), np.arange(5) % 3)) for i in range(4)]
        results.append((losses, model.get_weights()))
    for losses, weights in results[1:]:
        np.testing.assert_allclose(losses, results[0][0], rtol=1e-5)
        for a, b in zip(weights, results[0][1]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_rt_grad_of_a_loss_through_the_model_is_the_tapes_gradient():
    model = _model()
    x, y = _images(), np.array([0, 1, 2, 0, 1])

    def loss(x):
        return rt.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True)

    with rt.GradientTape() as tape:
        xt = rt.constant(x)
        tape.watch(xt)
        value = rt.reduce_sum(loss(xt))
    expected = tape.gradient(value, xt).numpy()
    grad = rt.grad(lambda x: rt.reduce_sum(loss(x)))
    np.testing.assert_allclose(grad(rt.constant(x)).numpy(), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(rt.function(grad)(rt.constant(x)).numpy(), expected, rtol=1e-5,
                               atol=1e-7)


def test_the_forward_pass_on_xla_and_in_onnx_agrees_with_the_default_executor():
    pytest.importorskip("jax")
    model = _model()
    x = _images()
    expected = model(x).numpy()
    on_xla = rt.function(lambda x: model(x), jit_compile="xla")
    np.testing.assert_allclose(on_xla(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    onnx_agrees(lambda x: model(x), x, rtol=1e-5, atol=1e-6)


def test_a_decorated_forward_pass_from_many_threads():
    model = _model()
    forward = rt.function(lambda x: model(x))
    inputs = [_images(seed=i) for i in range(16)]
    expected = [model(x).numpy() for x in inputs]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda x: forward(x).numpy(), inputs))
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


def test_a_model_and_its_optimizer_pickle_by_value():
    model = _model()
    optimizer = rt.optimizers.Adam(0.01)
    x, y = _images(), np.arange(5) % 3
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(
            rt.losses.sparse_categorical_crossentropy(y, model(x), from_logits=True))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables))
    copy_model, copy_optimizer = pickle.loads(pickle.dumps((model, optimizer)))
    np.testing.assert_array_equal(copy_model(x).numpy(), model(x).numpy())
    assert int(copy_optimizer.iterations.numpy()) == 1
    assert len(copy_optimizer.variables) == len(optimizer.variables)
