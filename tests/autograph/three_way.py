"""Runs a function three ways and compares: plain Python on numpy values (the oracle), the
converted function on eager tensors (`autograph.to_graph`), and the graph (`rt.function`).

`outcomes(fn, *args)` returns the three results (or exceptions); `assert_agree(fn, *args)`
checks the project's rule: equal results (structure, dtype and value), or an error in all three.
"""

import numpy as np

import autograph
import runtime as rt


def as_numpy_args(args):
    return [np.asarray(a).astype(a.dtype if hasattr(a, "dtype") else _dtype(a))[()]
            if not isinstance(a, (list, tuple, dict)) else a for a in args]


def _dtype(value):
    return np.float32 if isinstance(value, float) else np.int32


def as_tensor_args(args):
    return [rt.constant(a) if not isinstance(a, (list, tuple, dict)) else a for a in args]


def _run(fn, args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - an error is an outcome to compare
        return e


def outcomes(fn, *args, python=None):
    """(python, converted eager, graph) results of `fn(*args)`; exceptions (conversion errors
    too) are returned. `python`, when given, is run as the oracle instead of `fn` (e.g. the same
    source with Python's `range` for `rt.range`)."""
    return (_run(python or fn, as_numpy_args(args)),
            _run(lambda *a: autograph.to_graph(fn)(*a), as_tensor_args(args)),
            _run(lambda *a: rt.function(fn)(*a), as_tensor_args(args)))


def same(actual, expected) -> bool:
    """Equal nested structure; leaves equal in value (the sign of a float zero too; a nan
    equals a nan, whatever their signs, which depend on how each was made), shape and dtype."""
    if isinstance(expected, (tuple, list)):
        return (isinstance(actual, type(expected)) and len(actual) == len(expected)
                and all(same(a, e) for a, e in zip(actual, expected)))
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and actual.keys() == expected.keys()
                and all(same(actual[k], expected[k]) for k in expected))
    if expected is None:
        return actual is None
    a, e = np.asarray(actual), np.asarray(expected)
    if type(expected) is bool:  # a graph may give a bool tensor
        return a.shape == () and a.dtype.kind == "b" and a == e
    if type(expected) in (int, float):
        # A graph gives a tensor. Python numbers are weak (DESIGN.md, Semantics): a value that
        # stood for one took the dtype of the tensors it met, e.g. `y = 0 if c else t` with a
        # float32 `t` is a float32 tensor. Its value must be exactly Python's.
        if a.shape != () or a.dtype.kind not in "iuf":
            return False
        return _same_floats(a, e) if a.dtype.kind == "f" else bool(a == e)
    if a.dtype != e.dtype or a.shape != e.shape:
        return False
    return _same_floats(a, e) if a.dtype.kind == "f" else np.array_equal(
        a, e, equal_nan=a.dtype.kind == "c")


def _same_floats(a, e) -> bool:
    """Equal floats: nan where the other is nan, else equal with the same sign (-0.0, 0.0)."""
    nan = np.isnan(e)
    if not np.array_equal(np.isnan(a), nan):
        return False
    kept = ~nan
    return np.array_equal(a[kept], e[kept]) and np.array_equal(np.signbit(a[kept]),
                                                               np.signbit(e[kept]))


def assert_agree(fn, *args):
    """All three runs give the same value, or all three raise; returns the outcomes."""
    python, eager, graph = results = outcomes(fn, *args)
    if isinstance(python, Exception):
        assert isinstance(eager, Exception), f"Python raised {python!r}, converted gave {eager!r}"
        assert isinstance(graph, Exception), f"Python raised {python!r}, graph gave {graph!r}"
        return results
    for label, value in (("converted", eager), ("graph", graph)):
        if isinstance(value, Exception):
            raise AssertionError(f"Python gave {python!r}, {label} raised") from value
        assert same(value, python), f"{label} gave {value!r}, Python {python!r}"
    return results
