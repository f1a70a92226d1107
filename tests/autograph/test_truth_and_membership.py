"""`bool(x)` (operators/py_builtins.py) and `x in t` / `x not in t` (converters/membership.py,
operators/membership.py) on tensors, three ways: plain Python on numpy values, converted on
eager tensors, and as a graph (three_way.py)."""

import numpy as np
import pytest
from three_way import assert_agree

import autograph
import runtime as rt

# ---- bool(x) ----------------------------------------------------------------------------------


def truth(x):
    return bool(x)


def truth_of_a_comparison(x):
    return bool(x > 0)


def truth_in_a_condition(x):
    if bool(x):
        return x + 1
    return x - 1


@pytest.mark.parametrize("value", [
    0, 3, -2, 0.0, -1.5, float("nan"), np.bool_(True), np.bool_(False),
    np.array([0], np.int32), np.array([7], np.int32), np.array([[2.5]], np.float32),
], ids=repr)
@pytest.mark.parametrize("fn", [truth, truth_of_a_comparison, truth_in_a_condition],
                         ids=lambda f: f.__name__)
def test_bool_of_one_element_is_pythons_truth_value(fn, value):
    if fn is not truth and isinstance(value, np.bool_):
        pytest.skip("`>`, `+` and `-` do not take bool tensors")
    assert_agree(fn, value)


def test_bool_of_a_staged_value_is_a_scalar_bool():
    concrete = rt.function(truth).get_concrete_function(rt.constant([[3]]))
    (out,) = concrete.graph.outputs
    assert out.dtype is rt.bool and out.shape == ()


@pytest.mark.parametrize("value, message", [
    (np.array([1, 2], np.int32), "more than one element is ambiguous"),
    (np.zeros((2, 3), np.float32), "more than one element is ambiguous"),
    (np.array([], np.int32), "empty"),
])
def test_bool_of_other_sizes_raises_valueerror_while_tracing(value, message):
    python, eager, graph = assert_agree(truth, value)
    assert isinstance(python, ValueError) and isinstance(eager, ValueError)
    assert isinstance(graph, ValueError) and message in str(graph)
    assert "return bool(x)" in str(graph)  # the user's line


def test_bool_of_unknown_size_is_checked_when_the_graph_runs():
    f = rt.function(truth, input_signature=[rt.TensorSpec([None], rt.int32)])
    assert f(rt.constant([5])).numpy() is np.True_
    assert f(rt.constant([0])).numpy() is np.False_
    with pytest.raises(ValueError, match="other than one element is ambiguous") as e:
        f(rt.constant([1, 2]))
    assert "return bool(x)" in str(e.value)
    with pytest.raises(ValueError, match="ambiguous"):
        f(rt.constant(np.array([], np.int32)))


# ---- x in t -----------------------------------------------------------------------------------

def in_tensor(t):
    return 3 in t, 3 not in t, 2.5 in t


def in_tensor_of_a_tensor(t):
    return t[0] in t * 2, t[0] not in t * 2


def item_in_a_python_list(x):
    return x in [1, 2, 3], x not in (4, 5), x in {2, 7}, x in {2: "a"}


def item_in_a_list_of_values(x):
    y = x * 2
    return 4 in [x, y], x in [y, 1], x in [y], x not in [y, x + 0]


def identity_before_equality(x):
    return x in [x], x in [x + 0]  # NaN: found by identity, not by `==`


def test_to_code_shows_the_membership_operators():
    code = autograph.to_code(in_tensor)
    assert "return (ag__.in_(3, t), ag__.not_in(3, t), ag__.in_(2.5, t))" in code


@pytest.mark.parametrize("value", [
    np.array([1, 3], np.int32), np.array([[1.0, 2.5], [3.0, 4.0]], np.float32),
    np.array([], np.float32), np.int32(3), np.float32(0.5),
], ids=repr)
def test_in_a_tensor_is_numpys_any_equal(value):
    assert_agree(in_tensor, value)


def test_in_a_tensor_of_a_tensor():
    assert_agree(in_tensor_of_a_tensor, np.array([2, 1, 5], np.int32))
    assert_agree(in_tensor_of_a_tensor, np.array([0, 1], np.int32))


@pytest.mark.parametrize("value", [2, 3, 7, -1])
def test_staged_item_in_python_containers(value):
    assert_agree(item_in_a_python_list, value)


@pytest.mark.parametrize("value", [2, 0, 1])
def test_python_list_holding_staged_values(value):
    assert_agree(item_in_a_list_of_values, value)


@pytest.mark.parametrize("value", [float("nan"), 1.5])
def test_identity_is_tested_before_equality(value):
    assert_agree(identity_before_equality, value)


class Bins:
    """A container whose own `__contains__` computes with its values (numpy's `any`)."""

    def __init__(self, edges):
        self.edges = edges

    def __contains__(self, item):
        return np.any(self.edges == item)


class Counted:
    """A `__contains__` that returns a count (its truth is what `in` gives)."""

    def __init__(self, values):
        self.values = values

    def __contains__(self, item):
        return np.sum(self.values == item)


class Compared(Counted):
    def __contains__(self, item):  # (an array: its truth is ambiguous past one element)
        return self.values == item


def in_a_container_of_the_users(t):
    bins = Bins(t * 2)
    return (4 in bins, 5 not in bins, (3 in Counted(t)) + 1, 2 not in Counted(t))


def in_a_container_answering_an_array(t):
    return 3 in Compared(t)


@pytest.mark.parametrize("value", [np.array([1, 2], np.int32), np.array([3, 5], np.int32)])
def test_in_a_container_whose_contains_computes_on_tensors(value):
    """Its answer's truth is what `in` gives in Python (a count is a bool; an array of two
    is ambiguous); a staged truth in a graph (`in` itself would take the truth of the staged
    answer while tracing; the review of the change found the count returned as it was)."""
    assert_agree(in_a_container_of_the_users, value)
    assert_agree(in_a_container_answering_an_array, value)  # (ValueError in all three)


def branches_on_membership(t):
    if 3 in t:
        return t * 2
    return t


@pytest.mark.parametrize("value", [np.array([1, 3], np.int32), np.array([4, 5], np.int32)])
def test_membership_as_a_staged_condition(value):
    assert_agree(branches_on_membership, value)


def array_in_a_set(v):
    return v in {1, 2}


def test_an_array_in_a_set_is_unhashable_everywhere():
    python, eager, graph = assert_agree(array_in_a_set, np.array([1], np.int32))
    assert all(isinstance(e, TypeError) for e in (python, eager, graph))


def in_a_list_of_arrays(v):
    return 1 in [v]


def test_ambiguous_equality_in_a_list_raises_everywhere():
    python, eager, graph = assert_agree(in_a_list_of_arrays, np.array([1, 2], np.int32))
    assert isinstance(python, ValueError) and isinstance(graph, ValueError)


def in_range_of_tensor(n):
    return 3 in rt.range(n)


def test_in_a_staged_range():
    f = rt.function(in_range_of_tensor)
    assert f(rt.constant(4)).numpy() and not f(rt.constant(3)).numpy()
    assert autograph.to_graph(in_range_of_tensor)(rt.constant(4)) is True


def chained_in(x, t):
    return 0 < x in t


def test_chained_in_is_not_converted():
    """`a < b in c` is split by logical_expressions; its `in` part stays Python's `in`."""
    code = autograph.to_code(chained_in)
    assert "ag__.in_" not in code and "ag__.and_" in code
    assert chained_in(2, [1, 2]) is autograph.to_graph(chained_in)(2, [1, 2]) is True


def test_all_and_any_of_an_eager_tensor_a_traced_function_captures():
    # iterating a captured eager tensor while a graph is built gives graph values, whose truth
    # Python cannot take: all / any are staged then (as min / max are); they raised a bool
    # error (found by the random programs across function boundaries)
    zeros = rt.constant(np.array([0.0, -0.0], np.float32))
    ones = rt.constant(np.array([1.0, 2.0], np.float32))

    @rt.function(input_signature=[rt.TensorSpec([], rt.int32)])
    def inner(v):
        if all(zeros):
            return v + 1
        return v

    @rt.function
    def either(v):
        return any(ones > 1), all(ones), any(zeros)

    @rt.function
    def of_ints(v):  # (a captured eager int's truth is numpy's: it raised a dtype error)
        return all([v, zero]), any([v, zero])

    zero = rt.constant(np.int32(0))
    assert int(inner(rt.constant(np.int32(0)))) == 0
    assert [bool(b) for b in either(rt.constant(np.int32(0)))] == [True, True, False]
    assert [bool(b) for b in of_ints(rt.constant(np.int32(2)))] == [False, True]
