"""The seed behaviours of shared/SEED_EXAMPLES.md that need only the runtime (S3, S10 and S13,
which need the converter, are in test_seed_examples_autograph.py)."""

import logging

import numpy as np
import pytest

import runtime as rt


@pytest.fixture
def eager_functions():
    rt.config.run_functions_eagerly(True)
    yield
    rt.config.run_functions_eagerly(False)


def test_s1_function_and_graph_agree():
    def f(x, y, b):
        return rt.matmul(x, y) + b

    x, y, b = rt.constant([[1.0, 2.0]]), rt.constant([[2.0], [3.0]]), 4.0
    eager = f(x, y, b)
    graph = rt.function(f)(x, y, b)
    np.testing.assert_array_equal(eager.numpy(), [[12.0]])
    np.testing.assert_array_equal(graph.numpy(), [[12.0]])
    assert graph.dtype is rt.float32


def test_s2_helper_ops_are_in_the_one_graph():
    def inner(x, y, b):
        return rt.matmul(x, y) + b

    @rt.function
    def outer(x):
        y = rt.constant([[2.0], [3.0]])
        b = rt.constant(4.0)
        return inner(x, y, b)

    x = rt.constant([[1.0, 2.0]])
    np.testing.assert_array_equal(outer(x).numpy(), [[12.0]])
    graph = outer.get_concrete_function(x).graph
    graph.lint()
    types = [op.type for op in graph.operations]
    assert "MatMul" in types and "Add" in types


def test_s4_polymorphism_traces_once_per_signature():
    my_relu = rt.function(lambda x: rt.maximum(0.0, x))
    assert my_relu(rt.constant(5.5)).numpy() == 5.5
    np.testing.assert_array_equal(my_relu([1, -1]).numpy(), [1.0, 0.0])
    np.testing.assert_array_equal(my_relu(rt.constant([3.0, -3.0])).numpy(), [3.0, 0.0])
    assert my_relu.experimental_get_tracing_count() == 3
    assert my_relu(rt.constant(-2.5)).numpy() == 0.0
    np.testing.assert_array_equal(my_relu(rt.constant([-1.0, 1.0])).numpy(), [0.0, 1.0])
    assert my_relu.experimental_get_tracing_count() == 3
    text = my_relu.pretty_printed_concrete_signatures()
    assert text.count("Args:") == 3
    assert "x: float32 Tensor, shape=()" in text
    assert "x: [1, -1]" in text
    assert "x: float32 Tensor, shape=(2,)" in text
    assert "float32 Tensor, shape=(2,)" in text.split("x: [1, -1]")[1].split("Returns:")[1]


def test_s5_run_functions_eagerly(eager_functions):
    calls = []

    @rt.function
    def f(x):
        calls.append(1)
        return x * 2

    assert f(rt.constant(2)).numpy() == 4
    assert f(rt.constant(3)).numpy() == 6
    assert len(calls) == 2
    assert f.experimental_get_tracing_count() == 0


def test_s5_back_to_graphs_after_eager():
    rt.config.run_functions_eagerly(True)
    assert rt.config.functions_run_eagerly()
    rt.config.run_functions_eagerly(False)
    assert not rt.config.functions_run_eagerly()
    f = rt.function(lambda x: x + 1)
    assert f(rt.constant(1)).numpy() == 2
    assert f.experimental_get_tracing_count() == 1


def _mse_function():
    @rt.function
    def get_MSE(y_true, y_pred):
        print("Calculating MSE!")
        sq_diff = rt.pow(y_true - y_pred, 2)
        return rt.reduce_mean(sq_diff)

    return get_MSE


def test_s6_python_side_effects_only_when_tracing(capsys):
    get_MSE = _mse_function()
    y_true = rt.constant([5, 0, 3, 6, 1])
    y_pred = rt.constant([2, 3, 4, 5, 6])
    for _ in range(3):
        error = get_MSE(y_true, y_pred)
    assert capsys.readouterr().out.count("Calculating MSE!") == 1
    assert error.numpy() == np.mean((np.array([5, 0, 3, 6, 1]) - [2, 3, 4, 5, 6]) ** 2).astype(int)


def test_s6_eager_runs_print_every_call(capsys, eager_functions):
    get_MSE = _mse_function()
    y_true = rt.constant([5, 0, 3, 6, 1])
    y_pred = rt.constant([2, 3, 4, 5, 6])
    for _ in range(3):
        get_MSE(y_true, y_pred)
    assert capsys.readouterr().out.count("Calculating MSE!") == 3


def test_s7_unneeded_ops_are_pruned():
    def unused_return(x):
        rt.gather(x, [1])
        return x

    x = rt.constant([0.0])
    with pytest.raises(rt.errors.InvalidArgumentError):
        unused_return(x)
    f = rt.function(unused_return)
    np.testing.assert_array_equal(f(x).numpy(), [0.0])
    graph = f.get_concrete_function(x).graph
    graph.lint()
    assert "GatherV2" not in [op.type for op in graph.operations]


def test_s8_python_int_loop_is_unrolled():
    def power(x, y):
        result = rt.eye(10, dtype=rt.int32)
        for _ in range(y):
            result = rt.matmul(x, result)
        return result

    x = rt.constant(np.random.default_rng(0).integers(0, 3, (10, 10)).astype(np.int32))
    eager = power(x, 100)
    f = rt.function(power)
    graph = f(x, 100)
    np.testing.assert_array_equal(eager.numpy(), graph.numpy())
    ops = f.get_concrete_function(x, 100).graph.operations
    assert sum(op.type == "MatMul" for op in ops) == 100


def test_s9_when_does_a_function_trace(capsys):
    @rt.function
    def f(x):
        print("Tracing!")
        return x

    f(rt.constant(2))
    f(rt.constant(3))
    assert capsys.readouterr().out.count("Tracing!") == 1
    assert f.experimental_get_tracing_count() == 1
    f(2)
    f(3)
    assert capsys.readouterr().out.count("Tracing!") == 2
    assert f.experimental_get_tracing_count() == 3


def test_s11_functions_read_variables_at_call_time():
    v = rt.Variable(1.0)

    @rt.function
    def read():
        return v * 2

    assert read().numpy() == 2.0
    v.assign(5.0)
    assert read().numpy() == 10.0


def test_s11_assign_add_runs_every_call():
    v = rt.Variable(1.0)

    @rt.function
    def bump():
        v.assign_add(1.0)
        return v.read_value()

    assert bump().numpy() == 2.0
    assert bump().numpy() == 3.0
    assert v.numpy() == 3.0


def test_s11_variable_created_on_first_call_only():
    class Model:
        def __init__(self):
            self.w = None

        @rt.function
        def __call__(self, x):
            if self.w is None:
                self.w = rt.Variable(2.0)
            return self.w * x

    m = Model()
    assert m(rt.constant(3.0)).numpy() == 6.0
    assert m(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    m.w.assign(10.0)
    assert m(rt.constant(3.0)).numpy() == 30.0


def test_s11_variable_created_on_every_trace_is_an_error():
    @rt.function
    def f(x):
        v = rt.Variable(1.0)
        return v + x

    with pytest.raises(ValueError, match="create .*outside|outside the function"):
        f(rt.constant(1.0))


def test_s12_external_list_mutated_only_while_tracing():
    external = []

    @rt.function
    def f(x):
        external.append(x)
        return x + 1

    f(rt.constant(1))
    f(rt.constant(2))
    f(rt.constant(3))
    assert len(external) == 1
    f(rt.constant([1, 2]))
    assert len(external) == 2


@pytest.mark.no_round_trip  # the warning's place is the caller's: here, this file
def test_retracing_warning_names_the_changed_argument(caplog):
    f = rt.function(lambda x: x + 1, reduce_retracing=False)  # trace every shape
    with caplog.at_level(logging.INFO, logger="runtime.function"), pytest.warns(
            rt.errors.RetracingWarning, match="traces graph 6 .*changed shape") as warned:
        for n in range(7):
            f(rt.constant(np.zeros(n + 1, np.float32)))
    assert "argument 'x' changed shape from float32[1] to float32[2]" in caplog.text  # each
    assert "argument 'x' changed shape from float32[5] to float32[6]" in caplog.text  # retrace
    assert warned[0].filename == __file__  # at the user's call
