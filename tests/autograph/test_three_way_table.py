"""The table of small functions, compared three ways: plain Python on numpy values (the
oracle), `rt.function` (traced graph), and `autograph.to_graph` on eager tensors."""

import numpy as np
import pytest
import table_functions

import autograph
import runtime as rt

CASES = [
    pytest.param(fn, args, id=f"{fn.__name__}-{i}")
    for fn, arg_sets in table_functions.CASES
    for i, args in enumerate(arg_sets)
]


def as_numpy(value):
    if isinstance(value, (list, tuple)):
        return [as_numpy(v) for v in value]
    return np.asarray(value)


def assert_same(actual, expected):
    actual, expected = as_numpy(actual), as_numpy(expected)
    if isinstance(expected, list):
        if isinstance(actual, np.ndarray):  # a list carried by a graph loop is a stacked tensor
            actual = list(actual)
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_same(a, e)
        return
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=1e-5)


def test_table_is_large_enough():
    assert len(table_functions.CASES) >= 60


@pytest.mark.parametrize("fn, args", CASES)
def test_graph_matches_python(fn, args):
    expected = fn(*args)
    actual = rt.function(fn)(*[rt.constant(a) for a in args])
    assert_same(actual, expected)


@pytest.mark.parametrize("fn, args", CASES)
def test_converted_eager_matches_python(fn, args):
    expected = fn(*args)
    actual = autograph.to_graph(fn)(*[rt.constant(a) for a in args])
    assert_same(actual, expected)
