"""Python's folds over lists, tuples and vectors (`max`, `min`, `sum`, `all`, `any`) three
ways (plain Python on numpy values, the converted function on eager tensors, the graph): in
Python's order (a nan first, `-0.0` against `0.0`, float sums added one at a time), over graph
lists a tensor `if` changed (also emptied), and composed with tapes, executors and ONNX."""

import numpy as np
import pytest
from three_way import assert_agree

import runtime as rt

F32, F64 = np.float32, np.float64


# ---- max and min -----------------------------------------------------------------------------
def two_extrema(a, b):
    return max(a, b), min(a, b)


def extrema_of_a_list(a, b, c):
    return max([a, b, c]), min((a, b, c)), max(a, b, c), min(a, 0.5)


def extrema_of_a_vector(v):
    return max(v), min(v)


NAN = F32(np.nan)


@pytest.mark.parametrize("a, b", [(F32(1.5), NAN), (NAN, F32(1.5)), (F32(0.0), F32(-0.0)),
                                  (F32(-0.0), F32(0.0)), (F32(2.0), F32(2.0))])
def test_max_and_min_compare_in_pythons_order(a, b):
    assert_agree(two_extrema, a, b)


@pytest.mark.parametrize("a, b, c", [(F32(1.0), NAN, F32(3.0)), (NAN, F32(1.0), F32(3.0)),
                                     (F32(-1.0), F32(-0.0), F32(0.0))])
def test_max_and_min_of_several(a, b, c):
    assert_agree(extrema_of_a_list, a, b, c)


@pytest.mark.parametrize("v", [np.float32([1.0, np.nan, 3.0, 2.0]), np.float32([np.nan, 1.0]),
                               np.float32([0.0, -0.0, -1.0]), np.float32([-0.0, 0.0]),
                               np.int32([4, -2, 9]), np.array([False, True])])
def test_max_and_min_of_a_vector(v):
    assert_agree(extrema_of_a_vector, v)


def test_max_of_an_empty_vector_raises():
    assert_agree(extrema_of_a_vector, np.float32([]))
    with pytest.raises(ValueError, match=r"max\(\) arg is an empty sequence"):
        rt.function(extrema_of_a_vector, input_signature=[rt.TensorSpec([None])])(
            rt.constant(np.float32([])))


def test_bools_compare():
    assert_agree(two_extrema, np.True_, np.False_)


# ---- sum, all, any ---------------------------------------------------------------------------
def folds(a, b, c):
    return sum([a, b, c]), sum((a, b), 10), all([a, b]), any([a, c]), all([]), any(())


def folds_of_a_vector(v):
    return sum(v), all(v), any(v)


@pytest.mark.parametrize("a, b, c", [(F32(1.0), F32(0.0), F32(2.5)), (np.int32(0), np.int32(0),
                                                                        np.int32(3))])
def test_sum_all_any_of_lists(a, b, c):
    assert_agree(folds, a, b, c)


@pytest.mark.parametrize("v", [np.float32([0.1, 0.7, 1e8, -1e8, 0.3, 0.2, 0.9, 1.1, 1e-3]),
                               np.int32([3, 0, -4]), np.float32([])])
def test_sum_all_any_of_a_vector_add_in_pythons_order(v):
    assert_agree(folds_of_a_vector, v)


# ---- sums of Python numbers and of graph lists --------------------------------------------
def sum_with_python_numbers(u):
    return sum([1, u]), sum([1, 2, u], 0.5)


def test_sum_adds_python_numbers_as_python():
    assert_agree(sum_with_python_numbers, F32(0.5))


def sum_of_a_graph_list(x, items, start):
    parts = list(items)
    if x > 100:  # a tensor `if` not taken: the list becomes a graph list
        parts.pop()
    return sum(parts, start)


@pytest.mark.parametrize("items, start", [
    ([F64([3.75, -0.0, -0.0, 2.5])], F64([0.0, -0.0, -0.0, 0.0])),  # -0.0 + -0.0 stays -0.0
    ([F32(-0.0), F32(-0.0), F32(-0.0)], -0.0),
    ([np.int32([3, 4, 5]), np.int32([1, 1, 1]), np.int32([0, 2, 0])], 0),  # per element
    ([np.array([True, False]), np.array([True, True]), np.array([False, True])], 0),
    ([F32(v) for v in (0.1, 0.7, 1e8, -1e8, 0.3, 0.2, 0.9, 1.1, 1e-3, 0.4)], 0.0),  # in order
    ([F64([1e16, -0.0]), F64([1.0, -0.0]), F64([-1e16, -0.0])], F64(-0.0)),  # a scalar start
    ([np.complex64(1 + 2j), np.complex64(3 - 1j)], np.complex64(0)),
])
def test_sum_of_a_graph_list_is_pythons_left_fold(items, start):
    assert_agree(sum_of_a_graph_list, F32(1.0), items, start)


def sum_of_vectors(x, p):
    parts = [p * -1.0, p * 2.0]
    if rt.reduce_sum(x) > 100:
        parts.pop()
    return sum(parts, p * -0.0)


def test_the_left_fold_composes_with_tapes_executors_and_onnx():
    x, p = np.float32([1.0, 2.0]), np.float32([0.0, -0.0, 2.5])
    expected = sum_of_vectors(x, p)
    f = rt.function(sum_of_vectors, input_signature=[rt.TensorSpec([2], rt.float32),
                                                     rt.TensorSpec([3], rt.float32)])
    variable = rt.Variable(p)
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(f(x, variable) * variable)
    assert tape.gradient(y, variable).numpy().tolist() == (2 * p).tolist()  # d(p*p)/dp
    for jit in ("numba", "auto"):
        pytest.importorskip("numba")
        assert np.array_equal(np.signbit(rt.function(sum_of_vectors, jit_compile=jit)(x, p)),
                              np.signbit(expected))
    onnxruntime = pytest.importorskip("onnxruntime")
    session = onnxruntime.InferenceSession(rt.onnx.export(f).SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    (out,) = session.run(None, dict(zip(names, [x, p])))
    assert out.tolist() == expected.tolist() and np.array_equal(np.signbit(out),
                                                                np.signbit(expected))


def sum_of_an_emptied_graph_list(x, v):
    parts = [v]
    if x > 0:
        parts.pop()
    return sum(parts, 0.5)


def folds_of_an_emptied_graph_list(x):
    parts = [x > 0, x < 3]
    if x > -5:  # (taken: the graph list ends empty)
        parts.pop()
        parts.pop()
    return all(parts), any(parts), sum(parts)


def max_of_an_emptied_graph_list(x):
    parts = [x]
    if x > -5:
        parts.pop()
    return max(parts)


def test_folds_of_a_graph_list_with_no_items_are_pythons():
    assert_agree(folds_of_an_emptied_graph_list, F32(1.0))
    assert_agree(folds_of_an_emptied_graph_list, F32(-9.0))
    python, _, graph = assert_agree(max_of_an_emptied_graph_list, F32(1.0))
    assert "max() arg is an empty sequence" in str(python) and (
        "max() arg is an empty sequence" in str(graph))  # (before: stack needs one tensor)


def test_the_sum_of_no_arrays_from_a_scalar_start_is_refused_when_the_graph_runs():
    f = rt.function(sum_of_an_emptied_graph_list)
    assert f(F32(-1.0), F64([1.0, 2.0])).numpy().tolist() == [1.5, 2.5]
    assert sum_of_an_emptied_graph_list(F32(1.0), F64([1.0, 2.0])) == 0.5  # Python: the start
    with pytest.raises(rt.errors.InvalidArgumentError, match="sum.. of no items with a start"):
        f(F32(1.0), F64([1.0, 2.0]))
