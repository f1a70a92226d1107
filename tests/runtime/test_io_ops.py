"""rt.print and rt.debugging.assert_true: side effects that run on every call, in program
order, eagerly and in graphs."""

import numpy as np
import pytest

import runtime as rt


def test_print_eagerly(capsys):
    rt.print("x =", rt.constant([1, 2]), 3.5, sep=" ", end="!\n")
    rt.print(rt.constant(2.5), rt.constant(True))
    assert capsys.readouterr().out == "x = [1 2] 3.5!\n2.5 True\n"


def test_print_runs_on_every_graph_call_in_program_order(capsys):
    v = rt.Variable(0)

    @rt.function(autograph=False)
    def f(x):
        rt.print("first", x)
        v.assign_add(1)
        rt.print("second", v, x * 2, sep="|")
        print("traced")  # a Python print: once per trace
        return x

    f(rt.constant(1))
    f(rt.constant(2))
    assert capsys.readouterr().out == (
        "traced\nfirst 1\nsecond|1|2\nfirst 2\nsecond|2|4\n"
    )
    assert f.experimental_get_tracing_count() == 1


def test_print_output_is_not_needed_for_it_to_run(capsys):
    @rt.function(autograph=False)
    def f(x):
        rt.print(x)
        return rt.constant(0)

    f(rt.constant([[1.5, 2.0]]))
    f(rt.constant([[3.0, 4.0]]))
    assert capsys.readouterr().out == "[[1.5 2. ]]\n[[3. 4.]]\n"
    graph = f.get_concrete_function(rt.constant([[0.0, 0.0]])).graph
    assert [op.type for op in graph.operations].count("PrintV2") == 1


def test_print_in_the_interpreter_too(capsys):
    from runtime.executor.interpreter import run_graph

    fn = rt.function(lambda x: (rt.print("v", x), x + 1)[1], autograph=False)
    concrete = fn.get_concrete_function(rt.constant(np.int64(4)))
    capsys.readouterr()
    assert run_graph(concrete.graph, [np.int64(4)]) == [5]
    assert capsys.readouterr().out == "v 4\n"


def test_assert_true_runs_in_graphs_and_names_the_line():
    fn = rt.function(lambda x: (rt.debugging.assert_true(x > 0, "x must be positive"), x)[1],
                     autograph=False)
    assert fn(rt.constant(1.0)).numpy() == 1.0
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive") as info:
        fn(rt.constant(-1.0))
    assert "test_io_ops.py" in str(info.value)
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive"):
        rt.debugging.assert_true(rt.constant([True, False]), "x must be positive")
    with pytest.raises(TypeError, match="bool"):
        rt.debugging.assert_true(rt.constant(1))
