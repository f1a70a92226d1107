"""Seed behaviours S3, S10 and S13 of shared/SEED_EXAMPLES.md: they need the converter."""

import numpy as np

import autograph
import runtime as rt


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def test_s3_if_on_a_tensor_becomes_a_graph_conditional():
    f = rt.function(simple_relu)
    one, zero = f(rt.constant(1)), f(rt.constant(-1))
    assert one.numpy() == 1 and zero.numpy() == 0
    assert one.dtype is rt.int32 and zero.dtype is rt.int32

    code = autograph.to_code(simple_relu)
    compile(code, "<to_code>", "exec")
    assert autograph.to_code(f) == code
    assert len([line for line in code.splitlines() if line.strip()]) <= 15

    graph_def = f.get_concrete_function(rt.constant(1)).graph.as_graph_def()
    ops = [node["op"] for node in graph_def["node"]]
    assert "Placeholder" in ops and "Greater" in ops
    assert ops.count("If") == 1
    (if_node,) = [node for node in graph_def["node"] if node["op"] == "If"]
    branches = {if_node["attr"]["then_branch"]["graph"], if_node["attr"]["else_branch"]["graph"]}
    assert branches <= {fn["name"] for fn in graph_def["library"]["function"]}
    assert len(branches) == 2


def myadd(a, b):
    for i in rt.range(3):
        rt.print(i)
    c = a + b
    print("tracing")
    return c


def test_s10_tensor_loops_graph_print_and_strings(capsys):
    f = rt.function(myadd)
    assert f(rt.constant("hello"), rt.constant("world")).numpy() == b"helloworld"
    assert capsys.readouterr().out.split() == ["tracing", "0", "1", "2"]
    f(rt.constant("hello"), rt.constant("world"))
    assert capsys.readouterr().out.split() == ["0", "1", "2"]
    assert f(rt.constant(1), rt.constant(2)).numpy() == 3
    assert capsys.readouterr().out.split() == ["tracing", "0", "1", "2"]
    f("hello", "world")
    f("good", "morning")
    assert capsys.readouterr().out.split().count("tracing") == 2


def newton_sqrt(a):
    y = a
    while rt.abs(y * y - a) > 1e-6:
        y = (y + a / y) / 2
    return y


def test_s13_data_dependent_loop_becomes_a_graph_loop():
    f = rt.function(newton_sqrt)
    for a in (2.0, 9.0, 0.25):
        np.testing.assert_allclose(f(rt.constant(a)).numpy(), np.sqrt(np.float32(a)), rtol=1e-6)
    graph = f.get_concrete_function(rt.constant(2.0)).graph
    assert [op.type for op in graph.walk() if op.type == "While"] == ["While"]
