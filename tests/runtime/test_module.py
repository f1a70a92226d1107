"""rt.Module: the variables and sub-modules reachable from attributes, trainability, names."""

import numpy as np
import pytest

import runtime as rt


class Inner(rt.Module):
    def __init__(self, name=None):
        super().__init__(name)
        self.w = rt.Variable(1.0, name="w")
        self.frozen = rt.Variable(2.0, trainable=False, name="frozen")


class Outer(rt.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.in_a_list = [rt.Variable(3.0, name="listed"), {"deep": (Inner("deep"),)}]
        self.shared = self.inner.w  # the same variable twice: listed once
        self.count = 7


def test_variables_are_found_through_attributes_lists_dicts_and_tuples_once_each():
    m = Outer()
    names = [v.name.rpartition("_")[0] for v in m.variables]
    assert names == ["w", "frozen", "listed", "w", "frozen"]
    assert [v.name.rpartition("_")[0] for v in m.trainable_variables] == ["w", "listed", "w"]
    assert [v.name.rpartition("_")[0] for v in m.non_trainable_variables] == ["frozen", "frozen"]
    assert [s.name for s in m.submodules] == ["inner", "deep"]
    assert m.name == "outer"


def test_a_frozen_submodule_leaves_its_variables_out_of_trainable_variables():
    m = Outer()
    m.inner.trainable = False
    assert [v.name.rpartition("_")[0] for v in m.trainable_variables] == ["listed", "w"]
    m.trainable = False
    assert m.trainable_variables == [] and len(m.variables) == 5


def test_a_subclass_that_skips_super_init_still_reports_its_state():
    class Lazy(rt.Module):
        def __init__(self):
            self.v = rt.Variable(1.0)

    m = Lazy()
    assert m.variables == [m.v] and m.name == "lazy" and m.trainable


def test_name_scope_prefixes_the_variables_made_inside_it():
    m = rt.Module("encoder")
    with m.name_scope:
        v = rt.Variable(0.0, name="bias")
        with rt.name_scope("inner"):
            u = rt.Variable(0.0)
    assert v.name.startswith("encoder/bias_") and u.name.startswith("encoder/inner/Variable_")
    with pytest.raises(ValueError, match="name"):
        rt.Module("a b")
    with pytest.raises(ValueError, match="without '/'"):
        with rt.name_scope("a/b"):
            pass


def test_decorated_methods_compose_a_train_step_calling_the_decorated_call():
    class Model(rt.Module):
        def __init__(self):
            super().__init__()
            self.w = rt.Variable(np.ones(3, np.float32))
            self.optimizer = rt.optimizers.SGD(0.1)

        @rt.function
        def __call__(self, x):
            return rt.reduce_sum(x * self.w)

        @rt.function
        def train_step(self, x):
            with rt.GradientTape() as tape:
                loss = self(x)
            self.optimizer.apply_gradients(zip(tape.gradient(loss, [self.w]), [self.w]))
            return loss

    def plain(x, w):
        return (x * w).sum(), w - 0.1 * x

    model, w = Model(), np.ones(3, np.float32)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    for _ in range(3):
        loss, w_next = plain(x, w)
        np.testing.assert_allclose(model.train_step(x).numpy(), loss, rtol=1e-6)
        w = w_next
        np.testing.assert_allclose(model.w.numpy(), w, rtol=1e-6)
    assert model.train_step.experimental_get_tracing_count() == 1


def test_a_function_reading_a_module_retraces_when_its_python_state_changes():
    class Scale(rt.layers.Layer):
        def __init__(self):
            super().__init__()
            self.factor = 2.0

        def call(self, x):
            return x * self.factor

    class Net(rt.Model):
        def __init__(self):
            super().__init__()
            self.scale = Scale()
            self.dropout = rt.layers.Dropout(0.5)

        def call(self, x, training=False):
            return self.dropout(self.scale(x))

    net, x = Net(), np.ones(1000, np.float32)
    f = rt.function(lambda x: net(x, training=True))
    f(x)
    net.scale.factor = 10.0  # read by the user layer's call, two modules down
    net.dropout.rate = 0.0  # read by a library layer's call
    np.testing.assert_array_equal(f(x).numpy(), net(x, training=True).numpy())
    assert f.experimental_get_tracing_count() == 2


def test_freezing_a_layer_after_the_step_traced_retraces_the_step():
    model = rt.Sequential([rt.layers.Dense(2, input_shape=(3,)), rt.layers.Dense(1)])
    optimizer = rt.optimizers.SGD(0.1)

    @rt.function
    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(model(x))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                      model.trainable_variables))

    x = np.ones((4, 3), np.float32)
    step(x)
    model.layers[0].trainable = False
    frozen = model.layers[0].get_weights()
    step(x)
    for a, b in zip(frozen, model.layers[0].get_weights()):
        np.testing.assert_array_equal(a, b)


def test_what_does_not_change_a_graph_does_not_retrace():
    model = rt.Sequential([rt.layers.Dense(2), rt.layers.Dense(1)])  # built inside the trace
    optimizer = rt.optimizers.Adam(0.1)  # slots made inside the trace
    metric = rt.metrics.Mean()

    @rt.function
    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(model(x))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                      model.trainable_variables))
        metric.update_state(loss)

    x = np.ones((4, 3), np.float32)
    for _ in range(3):
        step(x)
    optimizer.learning_rate = 0.01  # a variable: read when the graph runs
    metric.reset_state()
    step(x)
    assert step.experimental_get_tracing_count() == 1


class _Scale(rt.layers.Layer):
    def __init__(self, k=2.0):
        super().__init__()
        self.k = k

    def call(self, x):
        return x * self.k


def test_every_way_a_graph_reaches_a_module_retraces_when_it_changes():
    x = np.ones(1, np.float32)
    model = rt.Sequential([_Scale()])
    direct, argument = rt.function(model), rt.function(lambda m, x: m(x))
    layers = [_Scale()]
    listed = rt.function(lambda x: layers[0](x))
    direct(x)
    argument(model, x)
    listed(x)
    model.layers[0].k = 3.0
    layers[0]._k = "unused"  # a private attribute: still a change
    layers[0].k = 5.0
    assert direct(x).numpy()[0] == argument(model, x).numpy()[0] == 3.0
    assert listed(x).numpy()[0] == 5.0
    model.add(_Scale(10.0))  # a layer added later is watched too
    assert direct(x).numpy()[0] == 30.0
    model.layers[1].k = 1.0
    assert direct(x).numpy()[0] == 3.0


def test_a_change_retraces_only_the_functions_that_read_the_changed_module():
    a, b = _Scale(), _Scale()
    fa = rt.function(lambda x: a(x))
    fb = rt.function(lambda x: b(x))
    x = np.ones(1, np.float32)
    fa(x), fb(x)
    for i in range(4):
        b.trainable = bool(i % 2)
        fa(x), fb(x)
    assert fa.experimental_get_tracing_count() == 1
    assert fb.experimental_get_tracing_count() == 5


def test_excluding_variables_from_weight_decay_after_a_step_traced_is_seen():
    bias = rt.Variable([1.0], name="bias")
    optimizer = rt.optimizers.SGD(0.5, weight_decay=0.1)
    step = rt.function(lambda: optimizer.apply_gradients([(rt.constant([0.0]), bias)]))
    step()
    optimizer.exclude_from_weight_decay(var_names=["bias"])
    step()
    np.testing.assert_allclose(bias.numpy(), [0.95])  # decayed once, not twice
