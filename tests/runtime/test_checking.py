"""check=True: each call compares the graph with plain Python, and names where they part."""

import numpy as np
import pytest

import runtime as rt
from runtime import passes


def affine(x):
    y = x * 3.0
    return y + 1.0


def _broken_optimize(graph, fuse=None):
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
    assert "the result is array([5., 9.]" in message and "array([4., 7.]" in message
    assert "The values first differ at Const op" in message  # the constant the pass changed
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


def int_or_float(x):
    return (x, 3)


@pytest.mark.no_round_trip
def test_check_sees_structure_and_dtype_and_skips_functions_with_effects(monkeypatch):
    from runtime.tools import checking

    assert checking._difference((rt.constant(3),), [3]) is not None  # tuple vs list
    assert checking._difference(rt.constant(3), 3.0) is None  # a Python number: its kind
    assert checking._difference(rt.constant(3.0), np.float64(3.0)) is not None  # dtypes
    assert checking._difference({"a": 1}, {"b": 1}) is not None
    v = rt.Variable(0.0)

    def bump(x):
        v.assign_add(1.0)
        return x + v

    f = rt.function(bump, check=True)
    with pytest.warns(UserWarning, match="has effects"):
        f(rt.constant(1.0))
    assert v.numpy() == 1.0  # the effect ran once
