"""Issue class "return values": a lowered `return` keeps its own sentinel (never a name
pattern, never a zero that could be returned), fills over nested structures, and a graph that
would return None on some paths raises on exactly those paths."""

import pytest
from three_way import assert_agree, outcomes

import runtime as rt


def tuple_from_nested_if(z, a, c):
    x, y = z, a
    if z > 4:
        x = 3
    elif a % 2 == 0:
        if c < z:
            return x, y, z
    for i in rt.range(2):
        x = x + i
    return x, y, z


@pytest.mark.parametrize("args", [(3, 2, 1), (5, 2, 1), (3, 3, 1), (1, 2, 3)])
def test_tuple_returned_on_one_path_of_a_nested_staged_if(args):
    assert_agree(tuple_from_nested_if, *args)


def dict_or_nested(x):
    for i in rt.range(3):
        if x > i:
            return {"value": x, "pair": (i, x * 2)}
    return {"value": -x, "pair": (x, x)}


@pytest.mark.parametrize("x", [-1, 0, 2, 5])
def test_nested_structure_returned_from_inside_a_staged_loop(x):
    assert_agree(dict_or_nested, x)


def return_in_loop_only(x):
    for i in rt.range(3):
        if x > i:
            return x


def test_return_inside_a_staged_loop_without_a_final_return():
    assert_agree(return_in_loop_only, 2)  # returns from the loop: equal everywhere
    python, eager, graph = outcomes(return_in_loop_only, -1)
    assert python is None and eager is None  # falls off the end
    assert isinstance(graph, rt.errors.InvalidArgumentError)  # never a made-up 0
    assert "reached its end without a `return`" in str(graph)
    assert "def return_in_loop_only" in str(graph)


def user_variable_named_retval(x):
    if x > 0:
        retval = x
    return retval


def test_user_variable_named_retval_is_an_ordinary_variable():
    assert_agree(user_variable_named_retval, 3)
    python, eager, graph = outcomes(user_variable_named_retval, -3)
    assert isinstance(python, UnboundLocalError) and isinstance(eager, UnboundLocalError)
    assert isinstance(graph, rt.errors.InvalidArgumentError)
    assert "'retval' is used before it is assigned" in str(graph)


def loop_return_then_final_return(x):
    for i in rt.range(3):
        if x > i:
            return x
    return x * 10


def endless_loop_left_by_return(x):
    while True:
        if x > 10:
            return x
        x = x * 2


@pytest.mark.parametrize("fn", [loop_return_then_final_return, endless_loop_left_by_return])
def test_function_that_always_returns_needs_no_run_time_check(fn):
    for x in (1, 3, 12):  # positive: the endless loop doubles x until it passes 10
        assert_agree(fn, x)
    graph = rt.function(fn).get_concrete_function(rt.constant(1)).graph
    assert "Assert" not in str(graph)


def none_on_both_staged_paths(x):
    if x > 0:
        return None
    return None


def test_none_returned_on_every_staged_path():
    assert_agree(none_on_both_staged_paths, 1)
    assert_agree(none_on_both_staged_paths, -1)
