import numpy as np
from pass_testing import apply_pass, op_types, run, traced

import runtime as rt
from runtime.passes import constant_folding


def test_folds_constant_subexpressions_into_consts():
    def f(x):
        c = rt.constant(2.0) * rt.constant(3.0) + rt.constant(1.0)
        return x * c

    graph = apply_pass(constant_folding.transform, f, np.float32(2.0))
    assert sorted(op_types(graph)) == ["Const", "Mul"]
    assert run(graph, np.float32(2.0)) == [np.float32(14.0)]


def test_folded_value_keeps_dtype_and_scalar_form():
    def f(x):
        return x + rt.cast(rt.constant(3), rt.float32) / rt.constant(2.0)

    graph = apply_pass(constant_folding.transform, f, np.float32(1.0))
    const = next(op for op in graph.operations if op.type == "Const")
    assert const.attrs["value"].dtype == np.float32 and const.attrs["value"].shape == ()


def test_never_folds_variable_reads_or_stateful_ops():
    v = rt.Variable(2.0)

    def f(x):
        v.assign_add(rt.constant(1.0))
        return x + v.read_value() * rt.constant(1.5)

    graph = traced(f, np.float32(0.0))  # not run: each run changes the variable
    constant_folding.transform(graph)
    graph.lint()
    assert "ReadVariableOp" in op_types(graph)
    assert "AssignAddVariableOp" in op_types(graph)
    assert "Mul" in op_types(graph)


def test_ops_that_fail_or_warn_are_left_to_run_time():
    def f(x):
        bad = rt.gather(rt.constant([1, 2, 3]), rt.constant(7))  # out of range
        inf = rt.constant(1.0) / rt.constant(0.0)  # warns: divide by zero
        return x, bad, inf

    graph = traced(f, np.float32(1.0))
    constant_folding.transform(graph)
    assert "GatherV2" in op_types(graph)
    assert "RealDiv" in op_types(graph)


def test_folds_through_captured_constants_in_branches():
    def f(x):
        c = rt.constant(4.0) + rt.constant(1.0)
        return rt.cond(x > 0, lambda: x * (c * c), lambda: x - c)

    for value in (np.float32(2.0), np.float32(-2.0)):
        graph = apply_pass(constant_folding.transform, f, value)
    branches = next(op for op in graph.operations if op.type == "If").subgraphs()
    computed = [op.type for op in branches[0].operations if op.type not in ("Placeholder", "Const")]
    assert computed == ["Mul"]


def test_loop_variables_are_never_constants():
    def f(x):
        return rt.while_loop(lambda i: i < 5, lambda i: i + 1, [rt.constant(0)])[0] + x

    graph = apply_pass(constant_folding.transform, f, np.int32(1))
    assert "While" in op_types(graph)
    assert run(graph, np.int32(1)) == [np.int32(6)]


def test_large_results_and_array_outputs_stay_computed():
    def f(x):
        big = rt.fill(rt.identity(rt.constant([100_000])), rt.constant(1.0))
        small = rt.constant([1.0, 2.0]) * rt.constant(2.0)
        return x + rt.reduce_sum(big), small

    graph = apply_pass(constant_folding.transform, f, np.float32(0.0))
    assert "Fill" in op_types(graph)
    assert "Mul" in op_types(graph)  # `small` is returned: each call gets a fresh array
