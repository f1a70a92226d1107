"""rt.Variable: read, assign, assign_add and assign_sub eagerly and in graphs; graphs read the
value when they run, not when they were traced."""

import numpy as np
import pytest
from op_testing import run_in_graph

import runtime as rt


def test_eager_reads_and_updates():
    v = rt.Variable([1.0, 2.0])
    assert v.dtype is rt.float32 and v.shape == (2,)
    assert v.assign([3.0, 4.0]) is v
    v.assign_add([1.0, 1.0])
    v.assign_sub(rt.constant([0.5, 0.5]))
    np.testing.assert_array_equal(v.numpy(), [3.5, 4.5])
    value = v.read_value()
    assert isinstance(value, rt.EagerTensor) and value.dtype is rt.float32


def test_the_initial_array_is_copied():
    array = np.array([1.0, 2.0])
    v = rt.Variable(array)
    array[0] = 9.0
    assert v.numpy().tolist() == [1.0, 2.0]


def test_scalar_variables_hold_numpy_scalars():
    v = rt.Variable(3)
    v.assign_add(2)
    assert isinstance(v.numpy(), np.int32) and v.numpy() == 5
    assert isinstance(v.read_value().numpy(), np.int32)
    w = rt.Variable(1.5, dtype=rt.float64)
    w.assign(2)
    assert isinstance(w.numpy(), np.float64) and w.numpy() == 2.0


def test_graphs_read_the_value_at_call_time():
    v = rt.Variable(1.0)
    fn = rt.function(lambda x: x * v, autograph=False)
    assert fn(rt.constant(2.0)).numpy() == 2.0
    v.assign(5.0)
    assert fn(rt.constant(2.0)).numpy() == 10.0
    assert fn.experimental_get_tracing_count() == 1
    compiled, interpreted, concrete = run_in_graph(lambda x: x + v.read_value(), np.float32(1))
    assert compiled.numpy() == interpreted[0] == np.float32(6.0)
    assert isinstance(interpreted[0], np.float32)


def test_updates_in_graphs_run_on_every_call_in_order():
    v = rt.Variable(0)

    @rt.function(autograph=False)
    def step(x):
        before = v.read_value()
        v.assign_add(x)
        v.assign_sub(1)
        middle = v.read_value()
        v.assign(v * 2)
        return before, middle

    assert [t.numpy() for t in step(rt.constant(3))] == [0, 2]
    assert v.numpy() == 4
    assert [t.numpy() for t in step(rt.constant(3))] == [4, 6]
    assert v.numpy() == 12
    graph = step.get_concrete_function(rt.constant(0)).graph
    graph.lint()
    types = [op.type for op in graph.operations]
    assert types.count("AssignAddVariableOp") == 1 and types.count("AssignVariableOp") == 1


def test_updates_without_outputs_are_kept():
    v = rt.Variable([1, 2])
    fn = rt.function(lambda: (v.assign_add([1, 1]), None)[1], autograph=False)
    fn()
    fn()
    assert v.numpy().tolist() == [3, 4]


def test_the_interpreter_updates_variables_too():
    from runtime.executor.interpreter import run_graph

    v = rt.Variable(10.0)
    concrete = rt.function(lambda: (v.assign_sub(1.0), v.read_value())[1],
                           autograph=False).get_concrete_function()
    assert run_graph(concrete.graph, []) == [np.float32(9.0)]
    assert v.numpy() == 9.0


def test_variable_operators_read_the_value():
    v = rt.Variable([1.0, 2.0])
    np.testing.assert_array_equal((v + 1).numpy(), [2.0, 3.0])
    np.testing.assert_array_equal((1 - v).numpy(), [0.0, -1.0])
    np.testing.assert_array_equal((2 ** v).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal((-v).numpy(), [-1.0, -2.0])
    np.testing.assert_array_equal((v > 1.5).numpy(), [False, True])
    np.testing.assert_array_equal(np.asarray(v), [1.0, 2.0])
    assert v[1].numpy() == 2.0 and len(v) == 2 and [float(t) for t in v] == [1.0, 2.0]
    assert rt.reduce_sum(v).numpy() == 3.0
    assert "numpy=[1., 2.]" in repr(v)
    assert float(rt.Variable(2.5)) == 2.5 and bool(rt.Variable(True))


def test_assign_errors_name_the_user_line():
    v = rt.Variable([1.0, 2.0])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"shape \[3\]") as info:
        v.assign([1.0, 2.0, 3.0])
    assert "test_variables.py" in str(info.value)
    with pytest.raises(TypeError, match=r"rt\.cast"):
        v.assign(rt.constant([1, 2]))
    fn = rt.function(lambda x: (v.assign(x), None)[1], autograph=False,
                     input_signature=[rt.TensorSpec([None], rt.float32)])
    concrete = fn.get_concrete_function()
    with pytest.raises(rt.errors.InvalidArgumentError, match="cannot assign") as info:
        concrete(rt.constant([1.0, 2.0, 3.0]))
    assert "test_variables.py" in str(info.value)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_variables_with_unknown_dims_may_change_shape():
    v = rt.Variable([1, 2], shape=[None])
    fn = rt.function(lambda: (v.assign(rt.concat([v, [3]], 0)), v.read_value())[1],
                     autograph=False)
    assert fn().numpy().tolist() == [1, 2, 3]
    assert fn().numpy().tolist() == [1, 2, 3, 3]
    with pytest.raises(ValueError, match="does not fit"):
        rt.Variable([1, 2], shape=[3])


def _make_state():
    return rt.Variable(1.0)


def test_creating_a_variable_on_every_trace_is_an_error():
    def f(x):
        return x + rt.Variable(1.0)

    fn = rt.function(f, autograph=False)
    with pytest.raises(ValueError, match="outside"):
        fn(rt.constant(1.0))
    with pytest.raises(ValueError) as info:  # the error names the line that makes it
        rt.function(lambda x: x * _make_state())(rt.constant(1.0))
    assert "return rt.Variable(1.0)" in str(info.value)


def test_a_numpy_array_next_to_a_variable_is_the_variables_operation_so_a_tape_sees_it():
    v = rt.Variable(2.0)
    x = np.arange(3, dtype=np.float32)
    for result in (x * v, x + v, x - v, x / v, x ** v, x < v):
        assert isinstance(result, rt.EagerTensor)
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(x * v)  # numpy computed this off the tape: the gradient was None
    assert float(tape.gradient(y, v)) == 3.0


def test_a_variable_compares_elementwise_with_an_array_and_by_identity_otherwise():
    v = rt.Variable([1.0, 2.0])
    np.testing.assert_array_equal((np.array([1.0, 3.0], np.float32) == v).numpy(), [True, False])
    np.testing.assert_array_equal((np.array([1.0, 3.0], np.float32) != v).numpy(), [False, True])
    assert v == v and not (v != v) and v != rt.Variable([1.0, 2.0])
    assert {v: 1}[v] == 1
