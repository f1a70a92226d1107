import numpy as np
from pass_testing import apply_pass, op_types, traced

import runtime as rt
from runtime.passes import cse

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_merges_ops_with_same_type_inputs_and_attrs():
    def f(x):
        a = rt.tanh(x) * 2.0
        b = rt.tanh(x) * 2.0
        return a + b

    graph = apply_pass(cse.transform, f, X)
    assert op_types(graph).count("Tanh") == 1
    assert op_types(graph).count("Mul") == 1
    assert op_types(graph).count("Const") == 1  # the two equal 2.0 constants merge too


def test_different_attrs_or_constants_stay_apart():
    def f(x):
        return rt.reduce_sum(x, axis=0), rt.reduce_sum(x, axis=1), x * 2.0, x * 3.0

    graph = apply_pass(cse.transform, f, X)
    assert op_types(graph).count("Sum") == 2
    assert op_types(graph).count("Mul") == 2


def test_negative_zero_is_not_zero():
    def f(x):
        return x + 0.0, x + -0.0

    graph = apply_pass(cse.transform, f, X)
    assert op_types(graph).count("Add") == 2


def test_stateful_ops_and_variable_reads_are_never_merged():
    v = rt.Variable(1.0)

    def f(x):
        a = v.read_value()
        v.assign_add(rt.constant(1.0))
        b = v.read_value()
        return x + a, x + b, rt.random.uniform([2]), rt.random.uniform([2])

    graph = traced(f, np.float32(0.0))
    cse.transform(graph)
    graph.lint()
    assert op_types(graph).count("ReadVariableOp") == 2
    assert op_types(graph).count("Add") == 2
    assert sum(t.startswith("Random") for t in op_types(graph)) == 2


def test_merges_inside_branches():
    def f(x):
        return rt.cond(rt.reduce_sum(x) > 0, lambda: rt.exp(x) + rt.exp(x), lambda: x)

    graph = apply_pass(cse.transform, f, X)
    assert op_types(graph).count("Exp") == 1
