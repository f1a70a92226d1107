import numpy as np
from pass_testing import apply_pass, op_types, run, traced

import runtime as rt
from runtime.passes import constant_folding, dead_branch, run_passes


def fold_then_inline(graph):
    constant_folding.transform(graph)
    dead_branch.transform(graph)


def test_constant_predicate_inlines_the_taken_branch():
    def f(x):
        take = rt.greater(rt.constant(2.0), 1.0)
        return rt.cond(take, lambda: rt.exp(x) * 2.0, lambda: rt.tanh(x))

    graph = apply_pass(fold_then_inline, f, np.float32(0.5))
    assert "If" not in op_types(graph) and "Tanh" not in op_types(graph)
    assert "Exp" in op_types(graph)


def test_branch_returning_its_input_and_nested_ifs():
    def f(x, y):
        no = rt.less(rt.constant(2.0), 1.0)
        inner = lambda: rt.cond(rt.logical_not(no), lambda: y + x * 0, lambda: x + y)  # noqa: E731
        return rt.cond(no, lambda: x + y, inner)

    graph = traced(f, np.float32(1.0), np.float32(2.0))
    optimized = run_passes(graph)
    optimized.lint()
    assert op_types(optimized) == ["Const", "Mul", "Add"]
    assert run(optimized, np.float32(1.0), np.float32(2.0)) == [np.float32(2.0)]


def test_stateful_ops_of_the_branch_keep_their_order():
    v = rt.Variable(1.0)

    def f(x):
        def branch():
            v.assign(v.read_value() * 3.0)
            v.assign_add(x)
            return v.read_value()

        return rt.cond(rt.greater(rt.constant(1), 0), branch, lambda: x)

    graph = traced(f, np.float32(2.0))
    fold_then_inline(graph)
    graph.lint()
    kinds = [op.type for op in graph.operations if op.stateful]
    assert kinds == ["AssignVariableOp", "AssignAddVariableOp"]
    v.assign(1.0)
    assert run(graph, np.float32(2.0)) == [np.float32(5.0)]


def test_symbolic_predicate_is_kept():
    graph = apply_pass(fold_then_inline, lambda x: rt.cond(x > 0, lambda: x, lambda: -x),
                       np.float32(-1.0))
    assert "If" in op_types(graph)
