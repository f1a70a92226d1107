import gc
import time

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


def _pass_seconds(graph):
    best = float("inf")
    for _ in range(5):
        copy = graph.copy()
        gc.disable()  # collections of the whole heap would blur the measurement
        try:
            start = time.perf_counter()
            optimize_graph(copy)
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    copy.lint()
    assert not any(op.type == "Mul" for op in copy.operations)
    return best


def test_passes_take_linear_time():
    small, large = _pass_seconds(_chain_graph(1000)), _pass_seconds(_chain_graph(4000))
    assert large / small < 10  # 4 when linear; 16 when quadratic
