"""An op's refusal of its arguments is marked (rt.errors.ArgumentError): converted code keeps it
as Python's own error, where the limits of graphs are the library's; an error a builtin raises
directly in op code (an `int(axis)`) is too."""

import ast
import pathlib
import pickle
import traceback

import numpy as np
import pytest

import runtime as rt
from runtime.errors import ArgumentError, GraphLimitError, InvalidArgumentError
from runtime.tracing.autograph_backend import RuntimeBackend

ROOT = pathlib.Path(__file__).resolve().parents[2]


def reshape_to_five(x):
    return rt.reshape(x, [5])


@pytest.mark.parametrize("run", [reshape_to_five, rt.function(reshape_to_five)])
def test_an_ops_refusal_is_marked_and_stays_the_error_it_was(run):
    with pytest.raises(InvalidArgumentError, match="cannot reshape") as info:
        run(rt.constant(np.zeros(4, np.float32)))
    assert isinstance(info.value, ArgumentError)
    assert type(info.value).__name__ == "InvalidArgumentError"
    with pytest.raises(TypeError, match="takes") as info:
        rt.bincount(rt.constant([0.5]))
    assert isinstance(info.value, ArgumentError) and type(info.value).__name__ == "TypeError"


def test_a_marked_error_pickles_as_the_error_it_is_marked_from():
    error = rt.errors.argument_error(ValueError, "bad axis")
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is ValueError and copy.args == ("bad axis",)
    assert "ValueError: bad axis" in "".join(traceback.format_exception(error))


def test_limits_of_graphs_are_not_raised_as_python():
    backend = RuntimeBackend()
    assert backend.raises_as_python(rt.errors.argument_error(TypeError, "an op's check"))
    assert not backend.raises_as_python(TypeError("not an op's"))
    assert not backend.raises_as_python(rt.errors.argument_error(GraphLimitError, "a limit"))


def _unmarked_raises(path: pathlib.Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                and isinstance(node.exc.func, ast.Name)
                and node.exc.func.id in ("TypeError", "ValueError", "InvalidArgumentError")):
            yield f"{path.relative_to(ROOT)}:{node.lineno}"


def test_ops_and_numpy_functions_mark_every_refusal():
    """A plain `raise TypeError(...)` in an op would be taken for a limit of graphs: an `except`
    of the user's would then not see it while tracing, as it does eagerly."""
    found = [site for folder in ("runtime/ops", "runtime/numpy")
             for path in sorted((ROOT / folder).rglob("*.py")) for site in _unmarked_raises(path)]
    assert not found, f"raise argument_error(...) instead: {found}"


def sum_over_a_bad_axis_when_positive(x):
    if x[0] > 0:
        return np.sum(x, axis="a")  # int("a") in the op library raises: Python's error
    return x


def test_an_error_a_builtin_raises_in_op_code_is_pythons_too():
    """An `int(axis)` the op library calls raises unmarked; it is the same call's error eagerly,
    so on a path the graph does not take it is not raised (found by a second reading: the mark
    alone missed it)."""
    f = rt.function(sum_over_a_bad_axis_when_positive)
    assert np.array_equal(f(rt.constant(np.array([-1.0, 2.0]))).numpy(), [-1.0, 2.0])
    with pytest.raises(TypeError):  # (numpy's too: the graph raises Python's error again)
        f(rt.constant(np.array([1.0, 2.0])))
    with pytest.raises(TypeError):
        sum_over_a_bad_axis_when_positive(np.array([1.0, 2.0]))


def test_an_input_signature_refuses_numpy_values_of_another_dtype():
    """A float64 array for an int32 spec was cast silently (1.7 -> 1, 2**40 -> 0): it is
    refused now, as a tensor of another dtype is and as the saved function refuses it, naming
    the cast to write."""
    g = rt.function(lambda x: x * 2, numpy_results=True,
                    input_signature=[rt.TensorSpec([None], rt.int32)])
    for value in (np.array([1.7, 2.5]), np.array([2**40]), np.array([1, 2], np.int16)):
        with pytest.raises(TypeError, match=r"x.astype\(np.int32\)"):
            g(value)
    out = g(np.array([1, 2], np.int32))
    assert out.dtype == np.int32 and list(out) == [2, 4]
