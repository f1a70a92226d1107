"""rt.optimizers (SGD, Adam, AdamW, RMSprop) against numpy reimplementations of Keras 3's update
formulas, eagerly and inside rt.function (same numbers, one trace); None gradients, clipping,
weight decay, the learning rate as a variable, slots, and argument errors."""

import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import optimizers

W0 = [np.array([1.0, -2.0, 0.5], np.float32), np.array([[0.3], [-0.7]], np.float32)]
C = [np.array([1.0, 0.5, 2.0], np.float32), np.array([[3.0], [0.25]], np.float32)]
D = [np.array([0.1, -0.3, 0.2], np.float32), np.array([[-1.0], [0.5]], np.float32)]


def _numpy_gradients(ws):
    """The gradients of sum(c * w**2 + d * w) for each w."""
    return [np.float32(2) * c * w + d for w, c, d in zip(ws, C, D)]


def _rt_loss(ws):
    return sum(rt.reduce_sum(c * rt.square(w) + d * w) for w, c, d in zip(ws, C, D))


# ---- numpy reimplementations (float32, as Keras computes for float32 variables) ----------------
def _numpy_trajectory(kind, hp, steps):
    f = np.float32
    ws = [w.copy() for w in W0]
    slots = [dict(m=np.zeros_like(w), v=np.zeros_like(w), vhat=np.zeros_like(w),
                  avg=np.zeros_like(w)) for w in ws]
    lr = f(hp.get("learning_rate"))
    wd = hp.get("weight_decay")
    history = []
    for t in range(1, steps + 1):
        grads = _numpy_gradients(ws)
        if wd is not None:
            ws = [w - w * f(wd) * lr for w in ws]
        new = []
        for w, g, s in zip(ws, grads, slots):
            if kind == "sgd":
                momentum = f(hp.get("momentum", 0.0))
                if momentum == 0:
                    w = w - g * lr
                else:
                    s["m"] = s["m"] * momentum - g * lr
                    if hp.get("nesterov"):
                        w = w + (s["m"] * momentum - g * lr)
                    else:
                        w = w + s["m"]
            elif kind == "adam":
                b1, b2 = hp.get("beta_1", 0.9), hp.get("beta_2", 0.999)
                eps = f(hp.get("epsilon", 1e-7))
                # (Keras: the powers of the betas cast to float32; 1 - beta in Python)
                alpha = lr * np.sqrt(f(1) - f(b2) ** f(t)) / (f(1) - f(b1) ** f(t))
                s["m"] = s["m"] + (g - s["m"]) * f(1 - b1)
                s["v"] = s["v"] + (np.square(g) - s["v"]) * f(1 - b2)
                v = s["v"]
                if hp.get("amsgrad"):
                    s["vhat"] = np.maximum(s["vhat"], s["v"])
                    v = s["vhat"]
                w = w - (s["m"] * alpha) / (np.sqrt(v) + eps)
            elif kind == "rmsprop":
                rho, eps = hp.get("rho", 0.9), f(hp.get("epsilon", 1e-7))
                momentum = f(hp.get("momentum", 0.0))
                s["v"] = f(rho) * s["v"] + f(1 - rho) * np.square(g)
                if hp.get("centered"):
                    s["avg"] = f(rho) * s["avg"] + f(1 - rho) * g
                    denominator = s["v"] - np.square(s["avg"]) + eps
                else:
                    denominator = s["v"] + eps
                increment = lr * g / np.sqrt(denominator)
                if momentum > 0:
                    s["m"] = momentum * s["m"] + increment
                    w = w - s["m"]
                else:
                    w = w - increment
            new.append(w.astype(np.float32))
        ws = new
        history.append([w.copy() for w in ws])
    return history


CASES = {
    "sgd": (optimizers.SGD, "sgd", dict(learning_rate=0.1)),
    "sgd_momentum": (optimizers.SGD, "sgd", dict(learning_rate=0.1, momentum=0.9)),
    "sgd_nesterov": (optimizers.SGD, "sgd",
                     dict(learning_rate=0.05, momentum=0.8, nesterov=True)),
    "sgd_weight_decay": (optimizers.SGD, "sgd", dict(learning_rate=0.1, weight_decay=0.2)),
    "adam": (optimizers.Adam, "adam", dict(learning_rate=0.1)),
    "adam_amsgrad": (optimizers.Adam, "adam",
                     dict(learning_rate=0.2, beta_1=0.5, beta_2=0.9, amsgrad=True)),
    "adamw": (optimizers.AdamW, "adam", dict(learning_rate=0.1, weight_decay=0.004)),
    "adamw_large_decay": (optimizers.AdamW, "adam", dict(learning_rate=0.1, weight_decay=0.5)),
    "rmsprop": (optimizers.RMSprop, "rmsprop", dict(learning_rate=0.01)),
    "rmsprop_centered_momentum": (optimizers.RMSprop, "rmsprop",
                                  dict(learning_rate=0.01, rho=0.8, momentum=0.5,
                                       centered=True)),
}
STEPS = 5


def _run(cls, hp, decorated):
    ws = [rt.Variable(w, name=f"w{i}") for i, w in enumerate(W0)]
    optimizer = cls(**hp)

    def train_step():
        with rt.GradientTape() as tape:
            loss = _rt_loss(ws)
        grads = tape.gradient(loss, ws)
        optimizer.apply_gradients(zip(grads, ws))
        return loss

    step = rt.function(train_step) if decorated else train_step
    history = []
    for _ in range(STEPS):
        step()
        history.append([w.numpy().copy() for w in ws])
    return history, optimizer, step


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_the_numpy_formula_eagerly_and_in_a_function(case):
    cls, kind, hp = CASES[case]
    expected = _numpy_trajectory(kind, hp, STEPS)
    eager, eager_optimizer, _ = _run(cls, hp, decorated=False)
    graph, optimizer, step = _run(cls, hp, decorated=True)
    assert step.experimental_get_tracing_count() == 1
    for t in range(STEPS):
        for want, got_eager, got_graph in zip(expected[t], eager[t], graph[t]):
            assert got_eager.dtype == np.float32
            np.testing.assert_allclose(got_eager, want, rtol=1e-5, atol=1e-7)
            np.testing.assert_allclose(got_graph, got_eager, rtol=1e-6, atol=1e-8)
    assert int(optimizer.iterations.numpy()) == int(eager_optimizer.iterations.numpy()) == STEPS
    assert optimizer.iterations.dtype is rt.int64
    # the variables moved
    assert not np.allclose(graph[-1][0], W0[0])


def test_defaults_and_names_are_keras():
    def rate(optimizer):
        return np.float32(optimizer.learning_rate)

    sgd = optimizers.SGD()
    assert (rate(sgd), sgd.momentum, sgd.nesterov, sgd.name) == (0.01, 0.0, False, "SGD")
    adam = optimizers.Adam()
    assert (rate(adam), adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (
        0.001, 0.9, 0.999, 1e-7, False)
    assert adam.name == "adam" and adam.weight_decay is None
    adamw = optimizers.AdamW()
    assert (rate(adamw), adamw.weight_decay, adamw.name) == (0.001, 0.004, "adamw")
    rms = optimizers.RMSprop()
    assert (rate(rms), rms.rho, rms.momentum, rms.epsilon, rms.centered, rms.name) == (
        0.001, 0.9, 0.0, 1e-7, False, "rmsprop")
    assert float(optimizers.SGD(0.5).learning_rate) == 0.5  # positional, as before
    assert isinstance(adam, rt.optimizers.Optimizer) and isinstance(adam, rt.module.Module)


def test_slots_are_made_once_and_listed_in_variables():
    a = rt.Variable(np.zeros((2, 3), np.float32), name="kernel")
    b = rt.Variable(np.zeros(3, np.float64), name="bias")
    optimizer = optimizers.Adam(name="opt")
    assert [v.name.rsplit("_", 1)[0] for v in optimizer.variables] == [
        "opt/iteration", "opt/learning_rate"]
    for _ in range(3):
        optimizer.apply_gradients([(np.ones((2, 3)), a), (np.ones(3), b)])
    names = [v.name for v in optimizer.variables]
    assert len(names) == 6
    assert names[2].startswith(f"opt/momentum/{a.name}_") and names[3].startswith(
        f"opt/velocity/{a.name}_")
    assert names[4].startswith(f"opt/momentum/{b.name}_")
    slots = optimizer.variables[2:]
    assert [tuple(s.shape) for s in slots] == [(2, 3), (2, 3), (3,), (3,)]
    assert [s.dtype for s in slots] == [rt.float32, rt.float32, rt.float64, rt.float64]
    assert b.dtype is rt.float64 and b.numpy().dtype == np.float64
    assert optimizer.trainable_variables == []  # every optimizer variable is non-trainable
    assert optimizer.variables[1].dtype is rt.float32 and optimizer.variables[0].dtype is rt.int64
    assert optimizers.SGD().variables and len(optimizers.SGD().variables) == 2  # no slots


def test_slots_made_while_tracing_are_kept_and_the_function_traces_once():
    w = rt.Variable([1.0, 2.0])
    optimizer = optimizers.RMSprop(0.1, momentum=0.5)

    @rt.function
    def train_step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(w * x)
        optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return loss

    for _ in range(5):
        train_step(rt.constant([1.0, -1.0]))
    assert train_step.experimental_get_tracing_count() == 1
    assert len(optimizer.variables) == 4  # iteration, learning rate, velocity, momentum
    assert optimizer.iterations.numpy() == 5


def test_a_none_gradient_warns_naming_the_variable_once_and_leaves_it_alone():
    a = rt.Variable([1.0, 2.0], name="used")
    b = rt.Variable([5.0], name="unused")
    optimizer = optimizers.SGD(1.0)
    with pytest.warns(UserWarning, match=r"Gradients do not exist for variables \['unused_"):
        optimizer.apply_gradients(zip([rt.constant([1.0, 1.0]), None], [a, b]))
    assert a.numpy().tolist() == [0.0, 1.0] and b.numpy().tolist() == [5.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second time: no warning
        optimizer.apply_gradients(zip([rt.constant([1.0, 1.0]), None], [a, b]))
    assert b.numpy().tolist() == [5.0]


def test_a_none_gradient_inside_a_function():
    a = rt.Variable([1.0, 2.0], name="used")
    b = rt.Variable([5.0], name="unused")
    optimizer = optimizers.Adam(0.1)

    @rt.function
    def train_step():
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(a * a)
        optimizer.apply_gradients(zip(tape.gradient(loss, [a, b]), [a, b]))

    with pytest.warns(UserWarning, match="unused_"):
        for _ in range(3):
            train_step()
    assert train_step.experimental_get_tracing_count() == 1
    assert b.numpy().tolist() == [5.0]
    assert a.numpy()[0] < 1.0


def test_no_gradients_at_all_is_an_error():
    a = rt.Variable(1.0)
    optimizer = optimizers.SGD()
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        optimizer.apply_gradients([(None, a)])
    with pytest.raises(ValueError, match="no \\(gradient, variable\\) pairs"):
        optimizer.apply_gradients(zip([], []))
    assert optimizer.iterations.numpy() == 0 and a.numpy() == 1.0


def test_gradients_may_be_arrays_or_numbers_and_are_cast():
    a = rt.Variable([1.0, 2.0])  # float32
    s = rt.Variable(3.0, dtype=rt.float64)
    optimizer = optimizers.SGD(0.5)
    optimizer.apply_gradients([(np.array([2.0, 4.0]), a), (1, s)])  # float64 array, an int
    assert a.numpy().tolist() == [0.0, 0.0] and a.dtype is rt.float32
    optimizer.apply_gradients([(0.5, s)])
    assert s.numpy() == 2.25 and s.numpy().dtype == np.float64


def test_bad_pairs_are_errors():
    a = rt.Variable([1.0, 2.0], name="weights")
    optimizer = optimizers.SGD()
    with pytest.raises(ValueError, match="gradient for variable weights_.* shape \\[3\\]"):
        optimizer.apply_gradients([(np.ones(3), a)])
    with pytest.raises(TypeError, match="gradient first"):
        optimizer.apply_gradients([(a, np.ones(2))])
    with pytest.raises(TypeError, match="\\(gradient, variable\\) pairs"):
        optimizer.apply_gradients([np.ones(2)])
    with pytest.raises(TypeError, match="floating-point"):
        optimizer.apply_gradients([(1, rt.Variable(3))])


def test_clipnorm_scales_each_gradient_on_its_own():
    a = rt.Variable([0.0, 0.0])
    b = rt.Variable([0.0])
    optimizer = optimizers.SGD(1.0, clipnorm=1.0)
    optimizer.apply_gradients([(rt.constant([3.0, 4.0]), a), (rt.constant([0.5]), b)])
    np.testing.assert_allclose(a.numpy(), [-0.6, -0.8], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), [-0.5])  # norm below clipnorm: unchanged
    optimizer.apply_gradients([(rt.constant([0.0, 0.0]), a), (rt.constant([0.0]), b)])
    assert np.isfinite(a.numpy()).all()  # a zero gradient stays zero, not NaN


def test_global_clipnorm_scales_all_gradients_together():
    a = rt.Variable([0.0, 0.0])
    b = rt.Variable([0.0])
    optimizer = optimizers.SGD(1.0, global_clipnorm=1.3)
    optimizer.apply_gradients([(rt.constant([3.0, 4.0]), a), (rt.constant([12.0]), b)])
    # the global norm is 13: every gradient is scaled by 0.1
    np.testing.assert_allclose(a.numpy(), [-0.3, -0.4], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), [-1.2], rtol=1e-6)
    optimizer.apply_gradients([(rt.constant([0.1, 0.0]), a), (rt.constant([0.0]), b)])
    np.testing.assert_allclose(a.numpy(), [-0.4, -0.4], rtol=1e-6)  # below: unchanged


def test_clipvalue_clips_elementwise():
    a = rt.Variable([0.0, 0.0, 0.0])
    optimizer = optimizers.SGD(1.0, clipvalue=0.5)
    optimizer.apply_gradients([(rt.constant([3.0, -4.0, 0.25]), a)])
    np.testing.assert_allclose(a.numpy(), [-0.5, 0.5, -0.25])


def test_clipping_inside_a_function_matches_eager():
    for kwargs in (dict(clipnorm=0.5), dict(global_clipnorm=0.5), dict(clipvalue=0.1)):
        results = []
        for decorated in (False, True):
            ws = [rt.Variable(w) for w in W0]
            optimizer = optimizers.Adam(0.1, **kwargs)

            def step(ws=ws, optimizer=optimizer):
                with rt.GradientTape() as tape:
                    loss = _rt_loss(ws)
                optimizer.apply_gradients(zip(tape.gradient(loss, ws), ws))

            run = rt.function(step) if decorated else step
            for _ in range(3):
                run()
            if decorated:
                assert run.experimental_get_tracing_count() == 1
            results.append([w.numpy() for w in ws])
        for eager, graph in zip(*results):
            np.testing.assert_allclose(graph, eager, rtol=1e-6)


def test_changing_the_learning_rate_does_not_retrace():
    w = rt.Variable([1.0])
    optimizer = optimizers.SGD(0.1)

    @rt.function
    def train_step():
        optimizer.apply_gradients([(rt.constant([1.0]), w)])

    train_step()
    np.testing.assert_allclose(w.numpy(), [0.9])
    optimizer.learning_rate = 0.5
    assert float(optimizer.learning_rate) == 0.5
    assert optimizer.variables[1].numpy() == 0.5
    train_step()
    np.testing.assert_allclose(w.numpy(), [0.4])
    assert train_step.experimental_get_tracing_count() == 1
    optimizer.learning_rate = rt.constant(0.25)
    assert float(optimizer.learning_rate) == 0.25
    optimizer.learning_rate.assign(0.125)  # Keras' way
    assert float(optimizer.learning_rate) == 0.125
    with pytest.raises(ValueError, match="learning_rate"):
        optimizer.learning_rate = -1.0


def test_weight_decay_is_decoupled_and_can_exclude_variables():
    kernel = rt.Variable([2.0], name="kernel")
    bias = rt.Variable([2.0], name="bias")
    optimizer = optimizers.SGD(0.5, weight_decay=0.1)
    optimizer.exclude_from_weight_decay(var_names=["bias"])
    optimizer.apply_gradients([(rt.constant([0.0]), kernel), (rt.constant([0.0]), bias)])
    np.testing.assert_allclose(kernel.numpy(), [2.0 - 2.0 * 0.1 * 0.5])
    assert bias.numpy().tolist() == [2.0]


def test_minimize_with_a_loss_function():
    w = rt.Variable(10.0)
    optimizer = optimizers.RMSprop(learning_rate=0.1)
    optimizer.minimize(lambda: (w ** 2) / 2.0, [w])
    np.testing.assert_allclose(w.numpy(), 9.683772, rtol=1e-6)  # Keras' documented example
    with pytest.raises(ValueError, match="tape"):
        optimizer.minimize(w * 2.0, [w])


@pytest.mark.parametrize("make, message", [
    (lambda: optimizers.SGD(-0.1), "learning_rate.*at least 0"),
    (lambda: optimizers.Adam(learning_rate="fast"), "learning_rate.*finite number"),
    (lambda: optimizers.SGD(0.1, clipnorm=1.0, global_clipnorm=1.0),
     "Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"),
    (lambda: optimizers.SGD(0.1, clipvalue=1.0, clipnorm=1.0), "Only one of"),
    (lambda: optimizers.SGD(0.1, clipnorm=-1.0), "clipnorm.*greater than 0"),
    (lambda: optimizers.SGD(momentum=1.5), "momentum.*at most 1"),
    (lambda: optimizers.Adam(beta_1=1.0), "beta_1.*less than 1"),
    (lambda: optimizers.AdamW(weight_decay=None), "weight_decay"),
    (lambda: optimizers.RMSprop(rho=-0.5), "rho"),
    (lambda: optimizers.Adam(weight_decay=-1.0), "weight_decay"),
    (lambda: optimizers.Adam(name="my optimizer"), "name"),
])
def test_bad_arguments_are_clear_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_variable_seen_later_gets_its_slots_then():
    a, b = rt.Variable([1.0]), rt.Variable([2.0])
    optimizer = optimizers.SGD(0.1, momentum=0.5)
    optimizer.apply_gradients([(1.0 * np.ones(1), a)])
    assert len(optimizer.variables) == 3
    optimizer.apply_gradients([(np.ones(1), a), (np.ones(1), b)])
    assert len(optimizer.variables) == 4
    np.testing.assert_allclose(b.numpy(), [1.9])


def test_pickling_an_optimizer_with_its_variables_keeps_the_slots():
    import pickle

    w = rt.Variable([1.0, 2.0])
    optimizer = optimizers.Adam(0.1)
    optimizer.apply_gradients([(np.ones(2), w)])
    w2, optimizer2 = pickle.loads(pickle.dumps((w, optimizer)))
    assert len(optimizer2.variables) == 4
    assert np.float32(optimizer2.learning_rate) == np.float32(0.1)
    optimizer.apply_gradients([(np.ones(2), w)])
    optimizer2.apply_gradients([(np.ones(2), w2)])
    assert len(optimizer2.variables) == 4 and optimizer2.iterations.numpy() == 2
    np.testing.assert_array_equal(w2.numpy(), w.numpy())


def test_threads_applying_the_first_gradients_at_once_make_each_slot_once():
    import concurrent.futures

    variables = [rt.Variable(np.ones(3, np.float32)) for _ in range(50)]
    for _ in range(5):
        optimizer = optimizers.Adam(0.1)
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda _, optimizer=optimizer: optimizer.apply_gradients(
                [(np.ones(3, np.float32), v) for v in variables]), range(4)))
        assert len(optimizer.variables) == 2 + 2 * len(variables)
