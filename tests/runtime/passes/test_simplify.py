import numpy as np
import pytest
from pass_testing import apply_pass, op_types, run

import runtime as rt
from runtime.passes import simplify

F = np.array([-0.0, 0.0, 1.5, -np.inf, np.nan], dtype=np.float32)
INTS = np.array([-3, 0, 7], dtype=np.int32)


def _used(expr):
    """`expr` read by another op (an array the graph returns is not rewritten to an argument:
    test_a_returned_array_is_not_rewritten_to_its_argument)."""
    return lambda x: rt.equal(expr(x), x)


@pytest.mark.parametrize("expr", [
    lambda x: x * 1.0, lambda x: 1.0 * x, lambda x: x / 1.0, lambda x: x - 0.0,
    lambda x: rt.negative(-x), lambda x: rt.cast(x, rt.float32), lambda x: rt.identity(x),
])
def test_neutral_float_rewrites_disappear(expr):
    graph = apply_pass(simplify.transform, _used(expr), F)
    assert op_types(graph) == ["Equal"]


@pytest.mark.parametrize(
    "expr", [lambda x: x + 0, lambda x: 0 + x, lambda x: x * 1, lambda x: rt.negative(-x)]
)
def test_neutral_int_rewrites_disappear(expr):
    assert op_types(apply_pass(simplify.transform, _used(expr), INTS)) == ["Equal"]
    # on a scalar (a numpy scalar: no array to write into), the result itself too
    assert op_types(apply_pass(simplify.transform, expr, INTS[0])) == []


def test_a_returned_array_is_not_rewritten_to_its_argument():
    # plain Python's `x * 1` is a new array: writing into it leaves x as it was
    for expr in (lambda x: x * 1.0, lambda x: rt.negative(-x), lambda x: rt.transpose(x, [0])):
        assert len(op_types(apply_pass(simplify.transform, expr, F))) >= 1


def test_float_plus_zero_stays_because_negative_zero_changes():
    graph = apply_pass(simplify.transform, lambda x: x + 0.0, F)
    assert op_types(graph) == ["Const", "Add"]
    assert np.signbit(run(graph, F)[0][0]) == np.False_


def test_rewrite_that_would_change_shape_is_skipped():
    graph = apply_pass(simplify.transform, lambda x: x * rt.constant([1.0, 1.0]), np.float32(3.0))
    assert "Mul" in op_types(graph)


def test_transposes():
    m = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    graph = apply_pass(simplify.transform, _used(lambda x: rt.transpose(rt.transpose(x))), m)
    assert op_types(graph) == ["Equal"]
    graph = apply_pass(
        simplify.transform, lambda x: rt.transpose(rt.transpose(x, [1, 0, 2]), [0, 2, 1]), m
    )
    assert op_types(graph) == ["Transpose", "Transpose"]
    graph = apply_pass(simplify.transform, _used(lambda x: rt.transpose(x, [0, 1, 2])), m)
    assert op_types(graph) == ["Equal"]


def test_double_logical_not():
    b = np.array([True, False])
    graph = apply_pass(simplify.transform, _used(lambda x: rt.logical_not(rt.logical_not(x))), b)
    assert op_types(graph) == ["Equal"]


def test_logical_and_or_with_constants():
    b = np.array([True, False])
    for expr in (lambda x: rt.logical_and(x, rt.constant(True)),
                 lambda x: rt.logical_or(rt.constant(False), x)):
        assert op_types(apply_pass(simplify.transform, _used(expr), b)) == ["Equal"]
    for expr, value in ((lambda x: rt.logical_and(rt.constant(False), x), False),
                        (lambda x: rt.logical_or(x, rt.constant([True, True])), True)):
        graph = apply_pass(simplify.transform, expr, b)
        assert op_types(graph) == ["Const"]
        assert run(graph, b)[0].tolist() == [value, value]


def test_range_loop_test_reduces_to_one_comparison():
    def count(n):
        return rt.while_loop(
            lambda i, s: rt.logical_or(rt.logical_and(rt.greater(rt.constant(1), 0), i < n),
                                       rt.logical_and(rt.less_equal(rt.constant(1), 0), i > n)),
            lambda i, s: (i + 1, s + i), [rt.constant(0), rt.constant(0)])[1]

    from runtime.passes import constant_folding

    def fold_and_simplify(graph):
        constant_folding.transform(graph)
        simplify.transform(graph)

    graph = apply_pass(fold_and_simplify, count, np.int32(5))
    loop = next(op for op in graph.operations if op.type == "While")
    assert [op.type for op in loop.attrs["cond"].operations if op.type != "Placeholder"] == [
        "Less"
    ]


def test_zeros_and_ones_like_a_static_shape_become_constants():
    graph = apply_pass(simplify.transform, lambda x: x * rt.zeros_like(x) + rt.ones_like(x),
                       np.float32(2.0))
    assert op_types(graph) == ["Const", "Mul", "Const", "Add"]
    # a returned array stays an op: each call must give a fresh array
    graph = apply_pass(simplify.transform, lambda x: rt.zeros_like(x), F)
    assert op_types(graph) == ["ZerosLike"]
