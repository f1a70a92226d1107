"""The graph IR: lint catches broken invariants; printing and GraphDef export."""

import json

import pytest

import runtime as rt
from runtime.core.graph import Graph
from runtime.ops import math_ops


def _traced(fn, *args):
    return rt.function(fn, autograph=False).get_concrete_function(*args).graph


def test_ops_are_in_creation_order_and_lint_passes():
    graph = _traced(lambda x: rt.cond(x > 0, lambda: x * 2, lambda: x), rt.constant(1))
    graph.lint()
    assert [op.type for op in graph.operations][0] == "Placeholder"


def test_lint_catches_an_op_reading_a_later_op():
    graph = Graph("g")
    with graph.as_default():
        x = graph.add_input(rt.float32, ())
        y = math_ops.add(x, x)
        z = math_ops.multiply(y, y)
    graph.outputs = [z]
    graph.lint()
    graph.operations.reverse()
    with pytest.raises(AssertionError, match="before it is computed"):
        graph.lint()


def test_lint_catches_duplicate_names():
    graph = Graph("g")
    with graph.as_default():
        x = graph.add_input(rt.float32, ())
        y = math_ops.add(x, x)
    y.op.name = x.op.name
    with pytest.raises(AssertionError, match="duplicate"):
        graph.lint()


def test_str_has_one_line_per_op_with_the_user_line():
    graph = _traced(lambda x: x * 2 + 1, rt.constant(1.0))
    text = str(graph)
    assert "Mul(" in text and "Add(" in text
    assert "test_graph.py:" in text
    assert "float32[]" in text


def test_graph_def_is_json_with_a_function_library():
    graph = _traced(lambda x: rt.cond(x > 0, lambda: x, lambda: 0), rt.constant(1))
    graph_def = json.loads(json.dumps(graph.as_graph_def()))
    ops = [n["op"] for n in graph_def["node"]]
    assert ops.count("Placeholder") == 1 and "Greater" in ops and ops.count("If") == 1
    library = {f["name"] for f in graph_def["library"]["function"]}
    (if_node,) = [n for n in graph_def["node"] if n["op"] == "If"]
    assert {
        if_node["attr"]["then_branch"]["graph"],
        if_node["attr"]["else_branch"]["graph"],
    } <= library


def test_copy_is_independent_and_shares_variables():
    v = rt.Variable(1.0)
    graph = _traced(lambda x: x + v, rt.constant(1.0))
    clone = graph.copy()
    clone.lint()
    assert [op.type for op in clone.operations] == [op.type for op in graph.operations]
    assert all(a is not b for a, b in zip(clone.operations, graph.operations))
    assert clone.variables[v.name] is v


def test_scratch_graph_captures_leave_enclosing_graphs_alone():
    root = Graph("root")
    with root.as_default():
        x = root.add_input(rt.float32, ())
        branch = Graph("branch", outer=root)
        scratch = Graph("scratch", outer=branch, scratch=True)
        with scratch.as_default():
            y = math_ops.add(x, 1.0)
    assert y.op.inputs[0].op.graph is scratch
    assert branch.captures == {} and branch.inputs == []


def test_get_operation_by_name():
    graph = _traced(lambda x: x * 2 + 1, rt.constant(1.0))
    op = graph.operations[-1]
    assert graph.get_operation(op.name) is op
    with pytest.raises(KeyError, match="no_such_op"):
        graph.get_operation("no_such_op")


def _loop_with_branch(x):
    i = 0
    while i < 3:
        if x > 0:
            x = x - 1.0
        i += 1
    return x


def test_tracing_a_function_twice_prints_the_same_graph():
    first = rt.function(_loop_with_branch).get_concrete_function(rt.constant(1.0))
    second = rt.function(_loop_with_branch).get_concrete_function(rt.constant(1.0))
    assert str(first.traced_graph) == str(second.traced_graph)
    assert "graph cond_0_true" in str(first.traced_graph)  # numbered from 0 in each graph
