"""rt.cond and rt.while_loop: eager behaviour, graph ops, captures, shape relaxation, errors."""

import inspect

import numpy as np
import pytest

import runtime as rt
from runtime.executor.interpreter import run_graph


def _graph_fn(fn):
    return rt.function(fn, autograph=False)


def _check_interpreter_agrees(f, *args):
    concrete = f.get_concrete_function(*args)
    concrete.graph.lint()
    compiled = concrete(*args)
    values = [a.numpy() if isinstance(a, rt.Tensor) else a for a in args]
    interpreted = run_graph(
        concrete.graph, [v for v in values if isinstance(v, (np.ndarray, np.generic))]
    )
    flat = compiled if isinstance(compiled, (list, tuple)) else [compiled]
    for a, b in zip(flat, interpreted):
        np.testing.assert_array_equal(a.numpy(), b)
    return compiled


def test_cond_eager_runs_one_branch():
    calls = []
    out = rt.cond(rt.constant(True), lambda: calls.append("t") or 1, lambda: calls.append("f") or 2)
    assert out == 1 and calls == ["t"]


def test_cond_in_graph_builds_an_if_with_two_subgraphs():
    f = _graph_fn(lambda x: rt.cond(x > 0, lambda: x * 2, lambda: -x))
    assert f(rt.constant(3)).numpy() == 6
    assert f(rt.constant(-3)).numpy() == 3
    graph = f.get_concrete_function(rt.constant(1)).graph
    (if_op,) = [op for op in graph.operations if op.type == "If"]
    assert len(if_op.subgraphs()) == 2
    _check_interpreter_agrees(f, rt.constant(-4))


def test_cond_python_number_branch_takes_the_tensor_dtype():
    f = _graph_fn(lambda x: rt.cond(x > 0, lambda: x, lambda: 0))
    out = f(rt.constant(-1.5))
    assert out.dtype is rt.float32 and out.numpy() == 0.0


def test_cond_nested_structures_and_shape_merge():
    def fn(x):
        return rt.cond(
            rt.reduce_sum(x) > 0,
            lambda: (x, {"n": rt.size(x)}),
            lambda: (x[:1], {"n": rt.constant(0)}),
        )

    f = _graph_fn(fn)
    out, extra = f(rt.constant([1.0, 2.0]))
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0])
    assert extra["n"].numpy() == 2
    graph = f.get_concrete_function(rt.constant([1.0, 2.0])).graph
    (if_op,) = [op for op in graph.operations if op.type == "If"]
    assert tuple(if_op.outputs[0].shape) == (None,)


def test_cond_branch_dtype_mismatch_is_an_error():
    f = _graph_fn(lambda x: rt.cond(x > 0, lambda: x, lambda: rt.cast(x, rt.float32)))
    with pytest.raises(TypeError, match="int32 in the true branch but float32"):
        f(rt.constant(1))


def test_cond_structure_mismatch_names_both_structures():
    f = _graph_fn(lambda x: rt.cond(x > 0, lambda: x, lambda: None))
    with pytest.raises(ValueError, match="different structures"):
        f(rt.constant(1))


def test_nested_cond_captures_through_two_levels():
    def fn(x, y):
        return rt.cond(x > 0, lambda: rt.cond(y > 0, lambda: x + y, lambda: x - y), lambda: y)

    f = _graph_fn(fn)
    for a, b in [(1, 2), (1, -2), (-1, 5)]:
        expected = (a + b if b > 0 else a - b) if a > 0 else b
        assert f(rt.constant(a), rt.constant(b)).numpy() == expected
    _check_interpreter_agrees(f, rt.constant(1), rt.constant(-2))


def test_stateful_branch_ops_run_every_call(capsys):
    def fn(x):
        def yes():
            rt.print("positive", x)
            return x

        return rt.cond(x > 0, yes, lambda: x)

    f = _graph_fn(fn)
    f(rt.constant(1))
    f(rt.constant(2))
    f(rt.constant(-1))
    assert capsys.readouterr().out == "positive 1\npositive 2\n"


def test_while_loop_eager_is_a_python_loop():
    out = rt.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    assert out == (4, 6)


def test_while_loop_in_graph():
    def collatz(n):
        def body(n, steps):
            n = rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
            return n, steps + 1

        return rt.while_loop(lambda n, s: n != 1, body, (n, 0))[1]

    f = _graph_fn(collatz)
    assert f(rt.constant(27)).numpy() == 111
    assert f(rt.constant(1)).numpy() == 0
    _check_interpreter_agrees(f, rt.constant(6))


def test_while_loop_maximum_iterations():
    f = _graph_fn(
        lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 1, [0], maximum_iterations=3)
    )
    assert f(rt.constant(10))[0].numpy() == 3
    assert f(rt.constant(2))[0].numpy() == 2


def test_while_loop_relaxes_changing_shapes():
    f = _graph_fn(
        lambda x: rt.while_loop(lambda x: rt.size(x) < 10, lambda x: rt.concat([x, x], 0), x)
    )
    out = f(rt.constant([1.0]))
    assert out.shape == (16,)
    graph = f.get_concrete_function(rt.constant([1.0])).graph
    (loop,) = [op for op in graph.operations if op.type == "While"]
    assert tuple(loop.outputs[0].shape) == (None,)


def test_while_loop_dtype_change_names_the_variable():
    f = _graph_fn(
        lambda x: rt.while_loop(
            lambda v: v < 3, lambda v: rt.cast(v, rt.float32), [x], names=["total"]
        )
    )
    with pytest.raises(TypeError, match="'total' is int32 before the loop but float32"):
        f(rt.constant(1))


def test_while_loop_captures_outer_tensors():
    def fn(x, step):
        return rt.while_loop(lambda v: v < 100.0, lambda v: v * step, x)

    f = _graph_fn(fn)
    assert f(rt.constant(1.0), rt.constant(3.0)).numpy() == 243.0
    _check_interpreter_agrees(f, rt.constant(2.0), rt.constant(5.0))


def test_cond_predicate_must_be_a_scalar_bool_and_error_names_line():
    def fn(x):
        return rt.cond(x, lambda: x, lambda: x)

    f = _graph_fn(fn)
    with pytest.raises(TypeError, match="scalar bool") as info:
        f(rt.constant([1.0]))
    line = inspect.getsourcelines(fn)[1] + 1
    assert f"line {line}" in str(info.value)


def test_capture_from_two_levels_up_in_one_inner_branch_only():
    def fn(x, y):
        return rt.cond(x > 0, lambda: x, lambda: rt.cond(y > 0, lambda: y, lambda: x))

    f = _graph_fn(fn)
    assert f(rt.constant(1), rt.constant(5)).numpy() == 1
    assert f(rt.constant(-1), rt.constant(5)).numpy() == 5
    assert f(rt.constant(-1), rt.constant(-5)).numpy() == -1
    _check_interpreter_agrees(f, rt.constant(-1), rt.constant(-5))


def test_loop_body_captures_what_the_condition_does_not():
    def fn(x, k):
        return rt.while_loop(
            lambda v: v < 50, lambda v: rt.cond(v > 0, lambda: v * k, lambda: v + k), x
        )

    f = _graph_fn(fn)
    assert f(rt.constant(1), rt.constant(3)).numpy() == 81
    _check_interpreter_agrees(f, rt.constant(-2), rt.constant(3))
