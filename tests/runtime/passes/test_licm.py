import numpy as np
from pass_testing import apply_pass, run, traced

import runtime as rt
from benchmarks import scaling
from runtime.passes import licm


def loop_ops(graph, part="body"):
    loop = next(op for op in graph.walk() if op.type == "While")
    ops = loop.attrs[part].operations
    return [op.type for op in ops if op.type not in ("Placeholder", "Const")]


def test_invariant_ops_move_before_the_loop():
    def f(x, w):
        def body(i, acc):
            scale = rt.exp(w) * 2.0  # invariant: w is captured
            return i + 1, acc + x * scale  # x * scale is invariant too

        return rt.while_loop(lambda i, acc: i < 3, body, [rt.constant(0), x])[1]

    x = np.array([1.0, 2.0], dtype=np.float32)
    graph = apply_pass(licm.transform, f, x, np.float32(0.5))
    assert loop_ops(graph) == ["Add", "Add"]
    outer = [op.type for op in graph.operations]
    assert outer.index("Exp") < outer.index("Mul") < outer.index("While")
    loop = next(op for op in graph.operations if op.type == "While")
    assert len(loop.inputs) == len(loop.attrs["body"].inputs) == len(loop.attrs["cond"].inputs)


def test_condition_invariants_move_too_and_nested_loops_hoist_twice():
    def f(n, k):
        def outer_body(i, total):
            def inner_body(j, s):
                return j + 1, s + rt.square(k) * 3

            _, s = rt.while_loop(lambda j, s: j < k - 3, inner_body, [rt.constant(0), total])
            return i + 1, s

        # (both parts of each loop capture the same tensors: runtime/tracing/staged_control_flow.py
        # cannot yet unify captures of a tensor two graphs up that only one part uses)
        outer_cond = lambda i, t: i < n * 2 + k * 0  # noqa: E731
        return rt.while_loop(outer_cond, outer_body, [rt.constant(0), rt.constant(0)])[1]

    graph = apply_pass(licm.transform, f, np.int32(2), np.int32(5))
    top = [op.type for op in graph.operations]
    assert top.count("Mul") == 3 and "Square" in top and "Sub" in top  # out of both loops
    assert "Mul" not in loop_ops(graph, "cond")
    assert run(graph, np.int32(2), np.int32(5)) == [np.int32(4 * 2 * 75)]


def test_stateful_variant_and_unknown_shape_ops_stay():
    v = rt.Variable(1.0)

    def f(x, y):
        def body(i, acc):
            v.assign_add(rt.constant(1.0))
            return i + 1, acc + v.read_value() + rt.reduce_sum(y) + rt.tanh(acc)

        return rt.while_loop(lambda i, acc: i < 2, body, [rt.constant(0), x])[1]

    graph = traced(f, np.float32(0.0), np.ones(3, np.float32))  # not run: state changes
    licm.transform(graph)
    graph.lint()
    body = loop_ops(graph)
    assert {"AssignAddVariableOp", "ReadVariableOp", "Tanh"} <= set(body)
    assert "Sum" not in body  # y is invariant with a known shape


def _nest(depth):
    return scaling.loop_nest(depth, trips=1)  # one trip each: 20 levels run 20 bodies


def test_graphs_of_loop_nests_grow_linearly_with_depth():
    sizes = {}
    for depth in (5, 10, 20):
        graph = apply_pass(licm.transform, _nest(depth), np.float32(1.0), np.float32(0.5))
        graph.lint()
        sizes[depth] = sum(1 for _ in graph.walk())
        assert run(graph, np.float32(1.0), np.float32(0.5)) == [
            run(traced(_nest(depth), np.float32(1.0), np.float32(0.5)), np.float32(1.0),
                np.float32(0.5))[0]]
    assert sizes[20] - sizes[10] == 2 * (sizes[10] - sizes[5])  # the same ops per level
