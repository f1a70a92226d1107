"""Gradients through staged lists (rt.TensorList, and Python lists a graph loop stages): each
list op's rule against central finite differences, as plain Python (eagerly, on Python lists),
and in a graph, first and second order."""

import numpy as np
import pytest
from test_gradients import _central_differences

import runtime as rt
from runtime.ops.registry import GRADIENT, REGISTRY

STEPS = rt.constant(4)


def _gradients(fn, arrays, run):
    xs = [rt.constant(a) for a in arrays]

    def grad(*xs):
        with rt.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return y, tape.gradient(y, list(xs))

    value, grads = run(grad)(*xs)
    return float(value), [g.numpy() for g in grads]


def check(fn, *values, plain=None):
    """The gradients of fn eagerly (Python lists), in a graph (staged lists) and by finite
    differences agree, and so do the values. `plain`: fn's twin on Python lists, for an fn that
    makes rt.TensorLists itself (they exist only in graphs)."""
    arrays = [np.asarray(v, np.float64) for v in values]
    eager_value, eager = _gradients(plain or fn, arrays, lambda f: f)
    graph_value, graph = _gradients(fn, arrays, rt.function)
    assert graph_value == pytest.approx(eager_value, rel=1e-12)
    graph_fn = rt.function(fn)
    numeric = _central_differences(
        lambda vs: float(graph_fn(*map(rt.constant, vs))), arrays)
    for e, g, n in zip(eager, graph, numeric):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-8)


def appended_in_a_loop(x, n=STEPS):  # a tensor default: saved with the function
    ys = []
    h = x
    for _ in rt.range(n):
        h = rt.sin(h) * 1.5 + x
        ys.append(h)
    return rt.reduce_sum(rt.stack(ys) ** 2)


def test_push_back_and_stack_in_a_loop():
    check(appended_in_a_loop, [0.3, -0.8])


def test_zero_trip_loop_gives_zero_gradients_of_what_the_loop_would_use():
    def fn(x):
        ys = [x * 2.0]
        for _ in rt.range(rt.constant(0)):
            ys.append(x * 3.0)
        return rt.reduce_sum(rt.stack(ys))

    check(fn, [0.5, 1.5])


def read_back_by_index(x):
    ys = []
    for i in rt.range(3):
        ys.append(x * rt.cast(i + 1, rt.float64))
    total = x * 0.0
    for i in rt.range(3):
        total = total + rt.sin(ys[i]) * ys[2 - i]
    return rt.reduce_sum(total)


def test_get_item_in_a_loop_and_a_list_used_twice():
    check(read_back_by_index, [0.4, -1.1])


def test_from_items_set_item_pop_and_concat_lists():
    def fn(x):
        items = rt.TensorList.from_items([x, x * x, rt.sin(x)])
        items[1] = items[1] * 3.0 + items[0]
        last = items.pop()
        joined = items + rt.TensorList.from_items([last * 2.0])
        return rt.reduce_sum(joined.stack() * rt.constant([[1.0], [2.0], [3.0]], rt.float64))

    def plain(x):
        items = [x, x * x, rt.sin(x)]
        items[1] = items[1] * 3.0 + items[0]
        last = items.pop()
        joined = items + [last * 2.0]
        return rt.reduce_sum(rt.stack(joined) * rt.constant([[1.0], [2.0], [3.0]], rt.float64))

    check(fn, [0.7, -0.2], plain=plain)


def test_concat_of_a_list_along_an_axis():
    def fn(x):
        parts = []
        for i in rt.range(3):
            parts.append(x[: i + 1] * rt.cast(i + 2, rt.float64))
        joined = rt.concat(parts, axis=0)
        return rt.reduce_sum(rt.tanh(joined) * joined)

    check(fn, [0.2, -0.5, 0.9])


def test_an_rnn_collecting_its_states():
    rng = np.random.default_rng(3)

    def rnn(xs, w):
        h = xs[0] * 0.0
        states = []
        for i in rt.range(rt.shape(xs)[0]):
            h = rt.tanh(rt.reshape(rt.matmul(w, (xs[i] + h)[:, None]), [2]))
            states.append(h)
        return rt.reduce_sum(rt.stack(states) * rt.constant([[1.0, -1.0]], rt.float64))

    check(rnn, rng.normal(size=(5, 2)), rng.normal(size=(2, 2)))


def test_second_order_through_a_list():
    def hessian_diagonal(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                ys = []
                for i in rt.range(3):
                    ys.append(rt.sin(x * rt.cast(i + 1, rt.float64)))
                y = rt.reduce_sum(rt.stack(ys))
            g = rt.reduce_sum(inner.gradient(y, x))
        return outer.gradient(g, x)

    x = np.array([0.3, -1.2])
    got = rt.function(hessian_diagonal)(rt.constant(x)).numpy()
    want = sum(-(k ** 2) * np.sin(k * x) for k in (1, 2, 3))
    np.testing.assert_allclose(got, want, rtol=1e-12)


def check_second_order(fn, *values):
    """The gradient of (fn's gradient . weights), by nested tapes in a graph, against finite
    differences of fn's gradient (also a graph)."""
    arrays = [np.asarray(v, np.float64) for v in values]
    weights = [rt.constant(np.linspace(0.5, 1.5, a.size).reshape(a.shape)) for a in arrays]

    def first(*xs):
        with rt.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return tape.gradient(y, list(xs))

    def second(*xs):
        with rt.GradientTape() as outer:
            outer.watch(list(xs))
            grads = first(*xs)
            dot = sum(rt.reduce_sum(g * w) for g, w in zip(grads, weights))
        return outer.gradient(dot, list(xs))

    got = [g.numpy() for g in rt.function(second)(*map(rt.constant, arrays))]
    first_graph = rt.function(first)
    numeric = _central_differences(lambda vs: float(sum(
        rt.reduce_sum(g * w) for g, w in zip(first_graph(*map(rt.constant, vs)), weights))),
        arrays)
    for g, n in zip(got, numeric):
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-7)


def from_items_set_pop_concat(x):
    items = rt.TensorList.from_items([x, x * x, rt.sin(x)])
    items[1] = items[1] * 3.0 + items[0] * items[0]
    last = items.pop()
    joined = items + rt.TensorList.from_items([last * last])
    stacked = joined.stack()
    return rt.reduce_sum(rt.sin(stacked) * stacked)


def concat_along_an_axis(x):
    parts = []
    for i in rt.range(3):
        parts.append(x[: i + 1] * x[i])
    joined = rt.concat(parts, axis=0)
    return rt.reduce_sum(rt.tanh(joined) * joined)


@pytest.mark.parametrize("fn", [appended_in_a_loop, read_back_by_index, from_items_set_pop_concat,
                                concat_along_an_axis], ids=lambda fn: fn.__name__)
def test_second_order_by_list_op(fn):
    check_second_order(fn, [0.4, -0.9, 0.6])


def _value_and_grad(fn):
    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return y, tape.gradient(y, x)

    return rt.function(grad)


def test_onnx_export_of_list_gradients():
    onnxruntime = pytest.importorskip("onnxruntime")
    from runtime.onnx.exporter import to_model

    f = _value_and_grad(from_items_set_pop_concat)
    x = rt.constant(np.array([0.4, -0.9, 0.6]))
    want = f(x)
    session = onnxruntime.InferenceSession(
        to_model(f.get_concrete_function(x)).SerializeToString())
    got = session.run(None, {session.get_inputs()[0].name: x.numpy()})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-12)


def test_onnx_export_of_a_loop_that_carries_a_list_refuses_at_the_loop():
    pytest.importorskip("onnx")
    from runtime.onnx.exporter import to_model

    # the loop's gradient keeps the list at each iteration: a list of lists, which ONNX
    # sequences cannot hold
    f = _value_and_grad(appended_in_a_loop)
    x = rt.constant(np.array([0.4, -0.9]))
    with pytest.raises(rt.onnx.ExportError, match=r"holds lists(.|\n)*for _ in rt.range\(n\)"):
        to_model(f.get_concrete_function(x))


def test_a_list_of_lists_refuses_at_the_users_line():
    def fn(x):
        rows = rt.TensorList.from_items([rt.TensorList.from_items([x])])
        return rt.reduce_sum(rows.stack())  # the stack line

    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        return tape.gradient(y, x)

    with pytest.raises(rt.errors.NoGradientError, match=r"list of lists(.|\n)*the stack line"):
        rt.function(grad)(rt.constant([1.0]))


def test_a_list_a_python_float_widens():
    # float32 values, then a Python float: the list holds float64 (ListCast; numpy's array of
    # it is float64), rt.stack gives float32 as of the Python list, and gradients flow back
    def fn(x):
        ys = []
        for _ in rt.range(STEPS):
            ys.append(rt.reduce_sum(rt.sin(x)) * 1.5)
        ys.append(0.1)
        return rt.reduce_sum(rt.stack(ys) ** 2)

    x = np.float32([0.3, -0.8])
    eager_value, eager = _gradients(fn, [x], lambda f: f)
    graph_value, graph = _gradients(fn, [x], rt.function)
    assert graph_value == eager_value
    assert graph[0].dtype == eager[0].dtype == np.float32
    np.testing.assert_array_equal(graph[0], eager[0])
    ops = [op.type for op in rt.function(fn).get_concrete_function(rt.constant(x)).graph.walk()]
    assert "ListCast" in ops


LIST_OPS = {name for name in REGISTRY if name.startswith("List")}


def test_every_list_op_has_a_gradient_rule_or_says_why_not():
    for name in LIST_OPS:
        opdef = REGISTRY[name]
        assert opdef.rule(GRADIENT) is not None or GRADIENT in opdef.lacking, name


def test_second_order_through_nested_loops():
    # the inner loop's gradient runs it again, recording: its history then holds lists
    def f(x, n):
        s = x
        i = n * 0
        while i < n:
            i += 1
            for _ in rt.range(2):
                s = rt.sin(s) * 1.2
        return s

    def second(x, n):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = f(x, n)
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    x, n = rt.constant(0.3, rt.float64), rt.constant(2)
    eager = float(second(x, n))
    graph = float(rt.function(second)(x, n))
    assert graph == pytest.approx(eager, rel=1e-12)

    def first(v):
        with rt.GradientTape() as tape:
            tape.watch(v)
            y = f(v, n)
        return tape.gradient(y, v)

    h = 1e-5
    numeric = (float(first(rt.constant(0.3 + h, rt.float64)))
               - float(first(rt.constant(0.3 - h, rt.float64)))) / (2 * h)
    assert graph == pytest.approx(numeric, rel=1e-6)
