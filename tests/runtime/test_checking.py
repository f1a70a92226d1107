"""check=True: each call compares the graph with plain Python, and names where they part."""

import numpy as np
import pytest

import runtime as rt
from runtime import passes


def affine(x):
    y = x * 3.0
    return y + 1.0


def _broken_optimize(graph):
    """A deliberately broken pass: every multiplication constant 3 becomes 4."""
    for op in graph.operations:
        if op.type == "Const" and np.asarray(op.attrs["value"]).tolist() == 3.0:
            op.attrs["value"] = np.asarray(4.0, np.float32)


@pytest.mark.no_round_trip
def test_check_names_the_op_a_broken_pass_changed(monkeypatch):
    monkeypatch.setattr(passes, "optimize_graph", _broken_optimize)
    f = rt.function(affine, check=True)
    with pytest.raises(rt.errors.CheckError) as info:
        f(rt.constant([1.0, 2.0]))
    message = str(info.value)
    assert "output 0 is array([5., 9.]" in message and "array([4., 7.]" in message
    assert "The values first part at Const op" in message  # the constant the pass changed
    assert "a pass changed the result" in message and "y = x * 3.0" in message


def test_check_passes_when_graph_and_python_agree():
    f = rt.function(affine, check=True)
    np.testing.assert_array_equal(f(rt.constant([1.0, 2.0])).numpy(), [4.0, 7.0])
    rt.config.check_functions(True)
    try:
        g = rt.function(affine)
        np.testing.assert_array_equal(g(rt.constant([1.0])).numpy(), [4.0])
    finally:
        rt.config.check_functions(False)
