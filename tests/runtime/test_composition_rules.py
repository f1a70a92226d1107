"""Composition: the callee's own rules across a function boundary (effects, keys, signatures,
random draws, errors, guards, None gradients, lists, explain, training, custom gradients,
threads, nested functions, save -> load), and the findings of second readings, each compared
with the same program without the boundary. The matrix is in test_composition.py."""

from __future__ import annotations

import functools
import gc
import subprocess
import sys
import tempfile
import weakref

import numpy as np
import pytest
from composition_programs import (
    NEGATIVE,
    POSITIVE,
    SPEC,
    Model,
    W,
    body,
    hundredfold_gradient,
    in_threads,
    tape_outside,
    uses_custom,
)

import runtime as rt

# ---- the callee's own rules across the boundary ------------------------------------------------

def test_effects_of_a_callee_run_on_every_call_in_order(capsys):
    v = rt.Variable(0.0)

    @rt.function
    def bump(label):
        v.assign_add(1.0)
        rt.print(label, v)
        return v.read_value()

    @rt.function
    def twice():
        first = bump("first")
        return first, bump("second")

    assert [t.numpy() for t in twice()] == [1.0, 2.0]
    assert [t.numpy() for t in twice()] == [3.0, 4.0]
    assert v.numpy() == 4.0
    assert capsys.readouterr().out.split() == ["first", "1.0", "second", "2.0", "first", "3.0",
                                               "second", "4.0"]


def test_python_effects_of_a_callee_happen_at_its_trace(capsys):
    @rt.function
    def inner(x):
        print("tracing inner")
        return x + 1.0

    outer = rt.function(lambda x: inner(x) * inner(x + 1.0))
    outer(rt.constant(1.0))
    outer(rt.constant(2.0))
    assert capsys.readouterr().out == "tracing inner\n"  # one signature: one trace
    assert inner.experimental_get_tracing_count() == 1


@pytest.mark.no_round_trip  # (its wrapper would be the user's line)
def test_a_callee_keys_python_arguments_and_checks_its_input_signature():
    scale = rt.function(lambda x, k: x * k)
    outer = rt.function(lambda x: scale(x, 2.0) + scale(x, 3.0))
    assert outer(rt.constant(1.0)).numpy() == 5.0
    assert scale.experimental_get_tracing_count() == 2
    strict = rt.function(lambda x: x + 1.0, input_signature=[rt.TensorSpec([None], rt.float32)])
    wrong = rt.function(lambda x: strict(rt.cast(x, rt.int32)))
    with pytest.raises(TypeError, match="does not match its input_signature") as e:
        wrong(rt.constant([1.0]))
    assert "test_composition_rules.py" in str(e.value)


def test_random_numbers_a_callee_draws_are_the_ones_its_gradient_uses():
    @rt.function
    def noisy(x):
        noise = rt.random.uniform([3], dtype=rt.float64)
        return x * noise, noise

    x = rt.constant(POSITIVE)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y, noise = noisy(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), noise.numpy())


def test_errors_inside_a_callee_name_its_line():
    @rt.function
    def pick(x):
        return rt.gather(x, [5])  # out of range

    outer = rt.function(lambda x: pick(x) + 1.0)
    with pytest.raises(rt.errors.InvalidArgumentError) as e:
        outer(rt.constant([1.0, 2.0]))
    assert "return rt.gather(x, [5])" in str(e.value)


GAIN = 2.0


def test_capture_guards_follow_called_functions_and_methods():
    global GAIN
    inner = rt.function(lambda x: x * GAIN)
    outer = rt.function(lambda x: inner(x) + 1.0)
    assert outer(rt.constant(1.0)).numpy() == 3.0
    GAIN = 5.0
    try:
        assert outer(rt.constant(1.0)).numpy() == 6.0
    finally:
        GAIN = 2.0

    class Scaled:
        def __init__(self):
            self.k = 2.0

        @rt.function
        def predict(self, x):
            return x * self.k

        @rt.function
        def step(self, x):
            return self.predict(x) + 1.0

    m = Scaled()
    assert m.step(rt.constant(1.0)).numpy() == 3.0
    m.k = 4.0
    assert m.step(rt.constant(1.0)).numpy() == 5.0


def test_gradients_are_none_only_where_nothing_depends_on_the_source():
    v, unwatched = rt.Variable(2.0), rt.Variable(3.0)
    f = rt.function(lambda x, n: (x * v * unwatched, n * 2, rt.constant(1.0)))
    x = rt.constant(1.5)
    with rt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch([x, v])
        y, doubled, constant = f(x, rt.constant(4))
    dx, dv, du = tape.gradient(y, [x, v, unwatched])
    assert (dx.numpy(), dv.numpy(), du) == (6.0, 4.5, None)  # as without the decorator
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y, doubled, constant = f(x, rt.constant(4))
    assert tape.gradient(constant, x) is None
    assert tape.gradient(y, unwatched).numpy() == 3.0


def _items(x, n):
    out = []
    h = x
    for _ in rt.range(n):
        h = rt.tanh(h * 1.5)
        out.append(h)
    return out


def test_a_staged_list_returned_through_a_tape_gives_its_items_gradients():
    x, n = rt.constant(np.array([0.3, -0.2])), rt.constant(3)
    results = []
    for f in (_items, rt.function(_items)):
        with rt.GradientTape() as tape:
            tape.watch(x)
            items = f(x, n)
            total = rt.reduce_sum(rt.stack(items)) + rt.reduce_sum(items[0] * items[0])
        results.append((len(items), tape.gradient(total, x).numpy()))
    assert results[0][0] == results[1][0] == 3
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-13)


@pytest.mark.no_round_trip  # (its wrapper would be the user's line)
def test_explain_names_the_inlined_function():
    inner = rt.function(lambda x: rt.sin(x) * 2.0)

    def outer(x):
        return inner(x) + 1.0

    report = str(rt.explain(outer, rt.constant(1.0)))
    assert "calls the traced function '<lambda>': its graph inlined (2 ops: Sin, Mul)" in report


def test_a_training_step_through_a_decorated_predict_changes_the_weights():
    model = Model()
    model.w = rt.Variable(np.array([0.1, 0.2, -0.3]))
    before = model.w.numpy().copy()
    optimizer = rt.optimizers.SGD(0.01)

    @rt.function
    def step(x):
        with rt.GradientTape() as tape:
            loss = model.predict(x)
        optimizer.apply_gradients(zip(tape.gradient(loss, [model.w]), [model.w]))
        return loss

    eager_w = rt.Variable(before)
    losses = [step(rt.constant(POSITIVE)).numpy() for _ in range(3)]
    for i in range(3):  # the same steps without any decorator
        with rt.GradientTape() as tape:
            loss = body(rt.constant(POSITIVE), eager_w)
        assert loss.numpy() == losses[i]
        optimizer.apply_gradients(zip(tape.gradient(loss, [eager_w]), [eager_w]))
    np.testing.assert_array_equal(model.w.numpy(), eager_w.numpy())
    assert not np.array_equal(model.w.numpy(), before)


def test_custom_gradients_inside_a_callee_hold_across_every_boundary():
    x = rt.constant(np.array([1.0, 2.0]))
    expected = [101.0, 202.0]  # d/dx (c(x) * x) with dc/dx = 100: 100 x + x

    def tape_around(f):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x).numpy()

    inner = rt.function(uses_custom)
    outer = rt.function(lambda x: inner(x) * 2.0)
    assert tape_around(uses_custom).tolist() == expected
    assert tape_around(inner).tolist() == expected
    assert tape_around(outer).tolist() == [2 * e for e in expected]
    assert rt.grad(inner)(x).numpy().tolist() == expected
    inside = rt.function(lambda x: rt.grad(inner)(x))
    assert inside(x).numpy().tolist() == expected


def test_a_loaded_function_with_custom_gradients_refuses_a_tape():
    f = rt.function(uses_custom, input_signature=[rt.TensorSpec([2], rt.float64)])
    f.get_concrete_function()
    directory = tempfile.mkdtemp(prefix="composition-")
    rt.saved.save(f, directory)
    loaded = rt.saved.load(directory)
    x = rt.constant(np.array([1.0, 2.0]))
    assert loaded(x).numpy() == 5.0  # running it is fine
    with rt.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(rt.errors.NoGradientError, match="custom_gradient"):
            loaded(x)


def test_threads_calling_an_outer_function_whose_callee_retraces():
    inner = rt.function(lambda x: rt.reduce_sum(rt.tanh(x) * x))
    outer = rt.function(lambda x: inner(x) + inner(x * 2.0))

    def work(k):
        for n in range(1, 7):
            x = np.linspace(-1.0, 1.0, n + k)
            expected = np.sum(np.tanh(x) * x) + np.sum(np.tanh(2 * x) * 2 * x)
            got = outer(rt.constant(x)).numpy()
            np.testing.assert_allclose(got, expected, rtol=1e-12)
            with rt.GradientTape() as tape:
                t = rt.constant(x)
                tape.watch(t)
                y = outer(t)
            slope = np.tanh(x) + x / np.cosh(x) ** 2
            slope2 = 2 * (np.tanh(2 * x) + 2 * x / np.cosh(2 * x) ** 2)
            np.testing.assert_allclose(tape.gradient(y, t).numpy(), slope + slope2,
                                       rtol=1e-10)

    in_threads(work, 8)


def test_a_decorated_function_defined_inside_a_traced_one_reads_its_tensors():
    def f(x, n):
        @rt.function
        def inner(k):
            if k > 0:  # (converted once, with f)
                return x * 2.0
            return x

        total = x
        for i in rt.range(n):
            total = total + inner(i)
        return total

    plain = f(rt.constant(1.5), rt.constant(3)).numpy()
    assert rt.function(f)(rt.constant(1.5), rt.constant(3)).numpy() == plain == 9.0


def test_check_compares_a_composed_function_with_plain_python():
    inner = rt.function(body)
    outer = rt.function(lambda x: inner(x) * 2.0 + body(x), check=True)
    for x in (POSITIVE, NEGATIVE):
        expected = body(rt.constant(x)).numpy() * 3.0
        np.testing.assert_allclose(outer(rt.constant(x)).numpy(), expected, rtol=1e-15)


# ---- from a second reading (each silently wrong or failing before) ------------------------------

def _second_derivative(f, value):
    x = rt.constant(value)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = x * f(x)  # the call's output gradient is x: ones at x = 1, yet it depends on x
        dy = inner.gradient(y, x)
    return dy.numpy(), outer.gradient(dy, x).numpy()


def test_an_output_gradient_of_ones_that_a_tape_depends_on_is_not_a_constant():
    square = lambda x: x * x  # noqa: E731
    for value in (1.0, 2.0):
        assert _second_derivative(rt.function(square), value) == _second_derivative(square,
                                                                                    value)


def test_second_order_through_a_list_output():
    def f(g, x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                items = g(x, rt.constant(2))
                y = items[1] * items[1]
            dy = inner.gradient(y, x)
        return outer.gradient(dy, x).numpy()

    def squares(x, n):
        out = []
        for _ in rt.range(n):
            x = x * x
            out.append(x)
        return out

    for g in (squares, rt.function(squares)):
        assert f(g, rt.constant(1.0)) == 56.0  # y = x^8


def test_outputs_behind_stop_gradient_or_a_comparison_have_no_gradient():
    f = lambda x: (rt.stop_gradient(x) * 3.0, rt.cast(x > 1.0, rt.float32), x * 2.0)  # noqa
    for g in (f, rt.function(f)):
        x = rt.constant(2.0)
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            stopped, compared, doubled = g(x)
        assert tape.gradient(stopped, x) is None and tape.gradient(compared, x) is None
        assert tape.gradient(doubled, x).numpy() == 2.0


def test_a_watched_non_trainable_variable_read_inside_a_callee_gets_its_gradient():
    v = rt.Variable(3.0, trainable=False)

    def square():
        return v * v

    for f in (square, rt.function(square)):
        with rt.GradientTape() as tape:
            tape.watch(v)
            y = f()
        assert tape.gradient(y, v).numpy() == 6.0


def test_a_variable_assigned_before_a_gradient_that_reads_it_again_is_refused():
    v = rt.Variable(2.0)

    @rt.function
    def f(x):
        if x > 0:  # (the If's gradient runs the branch again: it reads v again)
            return x * v
        return x

    x = rt.constant(1.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    assert tape.gradient(y, x).numpy() == 2.0
    v.assign(100.0)
    with pytest.raises(rt.errors.NoGradientError, match="assigned after this call"):
        tape.gradient(y, x)


def test_second_order_through_custom_gradients_of_a_callee_is_refused():
    f = rt.function(uses_custom)
    x = rt.constant(np.array([1.0, 2.0]))
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            with pytest.raises(rt.errors.NoGradientError, match="custom_gradient"):
                f(x)


@pytest.mark.no_round_trip  # (the round trip keeps the traces it has not checked)
def test_a_callee_keeps_no_caller_graph_alive():
    inner = rt.function(lambda x: x * 2.0)

    def traced_and_dropped():
        outer = rt.function(lambda x: inner(x) + 1.0)
        return weakref.ref(outer.get_concrete_function(rt.constant([1.0])).traced_graph)

    graph = traced_and_dropped()
    gc.collect()
    assert graph() is None


def test_a_recursive_function_calling_a_guarded_callee():
    g = rt.function(lambda x: x * GAIN)

    def f(x, n):
        return x if n == 0 else g(rf(x, n - 1))

    rf = rt.function(f)
    assert rf(rt.constant(1.0), 2).numpy() == GAIN * GAIN


def test_traces_for_callers_do_not_count_as_retraces():
    inner = rt.function(lambda x: x * 2.0, max_traces=2, on_retrace="error")
    for n in range(1, 6):
        outer = rt.function(lambda x: inner(x) + 1.0)
        assert outer(rt.constant(np.ones(n, np.float32))).numpy().tolist() == [3.0] * n


def test_a_custom_gradient_inside_a_graph_if_refuses_the_if_gradient():
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            if rt.reduce_sum(x) > 0:
                y = hundredfold_gradient(x) * 2.0
            else:
                y = x
            total = rt.reduce_sum(y)
        return tape.gradient(total, x)

    x = rt.constant(np.array([1.0, 2.0]))
    assert f(x).numpy().tolist() == [200.0, 200.0]  # eagerly: Python's `if`
    with pytest.raises(rt.errors.NoGradientError, match="inside a graph `if` or loop"):
        rt.function(f)(x)  # (before: the default gradient, 2.0, silently)


def test_a_composed_function_saved_loads_and_differentiates_in_a_fresh_process(tmp_path):
    inner = rt.function(body)
    outer = rt.function(lambda x: inner(x) * 2.0, input_signature=[SPEC])
    outer.get_concrete_function()
    rt.saved.save(outer, tmp_path / "saved")
    script = (
        "import sys, numpy as np, runtime as rt\n"
        "f = rt.saved.load(sys.argv[1])\n"
        "x = rt.constant(np.array(eval(sys.argv[2])))\n"
        "with rt.GradientTape() as tape:\n"
        "    tape.watch(x)\n"
        "    y = f(x)\n"
        "print(repr(float(y.numpy())), repr(tape.gradient(y, x).numpy().tolist()))\n")
    for x in (POSITIVE, NEGATIVE):
        result = subprocess.run([sys.executable, "-c", script, str(tmp_path / "saved"),
                                 repr(x.tolist())], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        value, grad = result.stdout.split(" ", 1)
        _, dx, _ = tape_outside(lambda v: body(v) * 2.0, W, x)
        assert float(value) == float(body(rt.constant(x)).numpy()) * 2.0
        np.testing.assert_allclose(eval(grad), dx, rtol=1e-13)  # noqa: S307 - our own output


class _Offset:
    """A class-based decorator that copies its function's attributes (update_wrapper)."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args) - 1.0


def _twice(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args) * 2.0

    return wrapper


def test_functions_defined_inside_a_traced_one_read_its_tensors_every_way():
    class Box:
        pass

    def f(x):
        box, items, p = Box(), {"k": x}, [x]
        box.attr = x
        through_attribute = rt.function(lambda: box.attr * 1.0)
        through_item = rt.function(lambda: items["k"] + 1.0)
        returned = rt.function(lambda: box.attr)
        closure = rt.function(lambda: x * 1.0)
        two_levels = rt.function(lambda v: v + closure())
        def first():
            return p[0]

        under_wrapper = rt.function(_twice(first))
        t = -1.5
        python_value = rt.function(lambda: t)
        t = python_value() + 1.0  # (the cell is f's own local: no guard of f)
        offset = _Offset(rt.function(lambda v: v * 3.0))
        return (through_attribute() + through_item() + returned() + two_levels(x)
                + under_wrapper() + t + offset(x))

    traced = rt.function(f)
    for value in (2.0, 3.0):
        assert traced(rt.constant(value)).numpy() == f(rt.constant(value)).numpy()
    assert traced.experimental_get_tracing_count() == 1


def test_a_python_number_a_callee_returns_stays_weak_in_the_caller():
    def count(u):
        r = 1
        for _ in rt.range(2):  # (a graph loop: r is a weak int32 tensor in the graph)
            r = r % 53 - 26
        return r

    callee = rt.function(count)
    caller = rt.function(lambda p, u: p + callee(u))  # float32 + a weak int: float32
    assert caller(rt.constant([1.0, 2.0]), rt.constant(0.5)).numpy().tolist() == [3.0, 4.0]
