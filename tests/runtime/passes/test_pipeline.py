import numpy as np
import pytest

import runtime as rt
from runtime.passes import optimize_graph


def w3b(y_true, y_pred):
    return rt.reduce_mean(rt.pow(y_true - y_pred, 2))


@pytest.fixture
def restore_config():
    yield
    rt.config.optimize_graphs(True)


def test_optimized_graph_is_separate_and_traced_graph_stays_inspectable():
    a = rt.constant(np.arange(4, dtype=np.float32))
    concrete = rt.function(w3b, autograph=False).get_concrete_function(a, a)
    assert concrete.graph is not concrete.traced_graph
    assert [op.type for op in concrete.traced_graph.operations if op.type != "Placeholder"] == [
        "Sub", "Const", "Pow", "Mean"
    ]
    assert [op.type for op in concrete.graph.operations if op.type != "Placeholder"] == [
        "Sub", "Square", "Mean"
    ]
    concrete.graph.lint()
    concrete.traced_graph.lint()


def test_optimize_false_and_the_config_switch_turn_the_passes_off(restore_config):
    a = rt.constant(np.arange(4, dtype=np.float32))
    concrete = rt.function(w3b, autograph=False, optimize=False).get_concrete_function(a, a)
    assert concrete.graph is concrete.traced_graph
    rt.config.optimize_graphs(False)
    concrete = rt.function(w3b, autograph=False).get_concrete_function(a, a)
    assert concrete.graph is concrete.traced_graph
    rt.config.optimize_graphs(True)
    concrete = rt.function(w3b, autograph=False).get_concrete_function(a, a)
    assert concrete.graph is not concrete.traced_graph


def _chain_graph(n):
    def long_chain(x):
        for i in range(n):
            x = x * 1.0 + float(i % 7)
        return x

    function = rt.function(long_chain, autograph=False, optimize=False)
    return function.get_concrete_function(rt.constant(np.float32(1.0))).graph


def test_passes_finish_on_a_long_chain():
    # Their time grows linearly with the graph: measured by `python -m benchmarks` (the
    # "graph passes" line), not asserted here.
    graph = _chain_graph(4000)
    optimize_graph(graph)
    graph.lint()
    assert not any(op.type == "Mul" for op in graph.operations)
