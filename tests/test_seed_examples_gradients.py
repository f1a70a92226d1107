"""Seed behaviours S14-S19 of shared/SEED_EXAMPLES.md: gradient tapes, eagerly and as
rt.function (same results both ways)."""

import numpy as np
import pytest

import runtime as rt


def line_search_step(fn, init_x, rate=1.0):
    with rt.GradientTape() as tape:
        tape.watch(init_x)
        value = fn(init_x)
    grad = tape.gradient(value, init_x)
    grad_norm = rt.reduce_sum(grad * grad)
    init_value = value
    while value > init_value - rate * grad_norm:
        x = init_x - rate * grad
        value = fn(x)
        rate /= 2.0
    return x, value


def _bowl(x):
    return rt.reduce_sum((x - 0.25) * (x - 0.25) * 3.0)


def test_s14_line_search_eagerly_and_as_function():
    x0 = rt.constant([1.0, -2.0])
    eager_x, eager_value = line_search_step(_bowl, x0)
    graph_x, graph_value = rt.function(line_search_step)(_bowl, x0)
    # the same search in numpy, with the gradient written by hand: 6 (x - 0.25)
    x = np.float32([1.0, -2.0])
    value = init_value = np.sum((x - 0.25) ** 2 * 3.0)
    grad = 6.0 * (x - 0.25)
    rate = 1.0
    while value > init_value - rate * np.sum(grad * grad):
        want_x = x - rate * grad
        value = np.sum((want_x - 0.25) ** 2 * 3.0)
        rate /= 2.0
    np.testing.assert_allclose(eager_x.numpy(), want_x, rtol=1e-6)
    np.testing.assert_allclose(eager_value.numpy(), value, rtol=1e-6)
    np.testing.assert_array_equal(graph_x.numpy(), eager_x.numpy())
    np.testing.assert_array_equal(graph_value.numpy(), eager_value.numpy())


def test_s15_variables_are_watched_and_tensors_need_watch():
    w = rt.Variable([[1.0]])
    with rt.GradientTape() as tape:
        loss = w * w
    np.testing.assert_array_equal(tape.gradient(loss, w).numpy(), [[2.0]])
    x = rt.constant(3.0)
    with rt.GradientTape() as tape:
        y = x * x
    with pytest.raises(ValueError, match="not watched by this tape.*tape.watch"):
        tape.gradient(y, x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


@rt.custom_gradient
def log1pexp(x):
    e = rt.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))

    return rt.log(1 + e), grad


def _plain_log1pexp(x):
    return rt.log(1 + rt.exp(x))


def _gradient_at(fn, value):
    x = rt.constant(value)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


def test_s16_custom_gradient_eagerly_and_as_function():
    for run in (lambda f, v: _gradient_at(f, v), rt.function(_gradient_at)):
        assert float(run(log1pexp, 0.0)) == 0.5
        assert float(run(_plain_log1pexp, 0.0)) == 0.5
        with np.errstate(all="ignore"):
            assert np.isnan(float(run(_plain_log1pexp, 100.0)))
        assert float(run(log1pexp, 100.0)) == 1.0


def _train(step_fn, steps=300):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(2000).astype(np.float32)
    y = (3.0 * x + 2.0 + rng.standard_normal(2000)).astype(np.float32)
    x, y = rt.constant(x), rt.constant(y)
    model = {"W": rt.Variable(5.0), "B": rt.Variable(10.0)}
    optimizer = rt.optimizers.SGD(learning_rate=0.01)

    def step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(x * model["W"] + model["B"] - y))
        grads = tape.gradient(loss, [model["W"], model["B"]])
        optimizer.apply_gradients(zip(grads, [model["W"], model["B"]]))
        return loss

    run = step_fn(step)
    losses = [float(run(x, y)) for _ in range(steps)]
    return losses, float(model["W"].numpy()), float(model["B"].numpy())


def test_s17_training_a_linear_model_eagerly_and_as_function():
    eager = _train(lambda f: f)
    graph = _train(rt.function)
    losses, w, b = eager
    assert 60 < losses[0] < 75 and losses[-1] < 1.1
    assert abs(w - 3.0) < 0.1 and abs(b - 2.0) < 0.1
    np.testing.assert_allclose(graph[0], eager[0], rtol=1e-5)
    np.testing.assert_allclose(graph[1:], eager[1:], rtol=1e-5)


def test_s18_tape_options():
    x = rt.constant(2.0)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.gradient(y, x)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert float(tape.gradient(y, x)) == 4.0 and float(tape.gradient(z, x)) == 12.0
    v = rt.Variable(3.0)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.gradient(y, v) is None and tape.watched_variables() == ()
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        with tape.stop_recording():
            z = y * x  # not recorded
        w = y + rt.stop_gradient(y)
    assert tape.gradient(z, x) is None
    with rt.GradientTape() as tape:
        tape.watch(x)
        w = x * x + rt.stop_gradient(x * x)
    assert float(tape.gradient(w, x)) == 4.0


def test_s19_composition_a_decorated_helper_and_a_tape_around_a_decorated_call():
    inner = rt.function(lambda x, y, b: rt.matmul(x, y) + b)

    @rt.function
    def outer(x):
        y = rt.constant([[2.0], [3.0]])
        b = rt.constant(4.0)
        return inner(x, y, b)

    x = rt.constant([[1.0, 2.0]])
    np.testing.assert_array_equal(outer(x).numpy(), [[12.0]])
    types = [op.type for op in outer.get_concrete_function(x).graph.operations]
    assert "MatMul" in types and "Add" in types  # the helper's ops, in the one graph
    w = rt.Variable([[1.0]])
    square = rt.function(lambda: w * w)
    with rt.GradientTape() as tape:
        loss = square()
    np.testing.assert_array_equal(tape.gradient(loss, w).numpy(), [[2.0]])
