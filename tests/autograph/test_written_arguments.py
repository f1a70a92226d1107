"""A list or dict argument (or another container code outside can read) whose items a graph
`if` or loop writes: each path changes a copy, so the caller's object kept its items, where
plain Python changes it in place (silent before). Refused at the line now; the function's own
containers are carried as before. Three ways where Python's value is the oracle."""

import collections

import numpy as np
import pytest
from three_way import assert_agree

import autograph
import runtime as rt

F32 = np.float32


def write_an_argument_item(x, values, s):
    if x > 0:
        values[len(s) - 2] = 5.0
    return x


def write_an_argument_key(x, table, s):
    if x > 0:
        table[len(s)] = x
    return x


def write_an_argument_in_a_loop(n, values):
    for _ in rt.range(n):
        values[0] = values[0] + 1.0
    return n


@pytest.mark.no_round_trip  # (the refusal names the caller's line: here, not the harness's)
@pytest.mark.parametrize("fn, make", [
    (write_an_argument_item, lambda: (F32(1.0), [0.0, 0.0], "ab")),
    (write_an_argument_key, lambda: (F32(1.0), {2: 0.0}, "ab")),
    (write_an_argument_in_a_loop, lambda: (np.int32(3), [0.5])),
])
def test_writing_into_an_arguments_container_under_graph_control_flow_is_refused(fn, make):
    args = make()
    expected = [dict(a) if isinstance(a, dict) else list(a) for a in args[1:2]]
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"here changes a copy of it|changed its argument '\w+' .* in place"):
        rt.function(fn)(*args)
    assert args[1] == expected[0]  # (left as it was)
    assert "test_written_arguments.py" in str(_refusal(fn, make))  # (the user's line)


def _refusal(fn, make):
    try:
        rt.function(fn)(*make())
    except rt.errors.OperatorNotAllowedInGraphError as e:
        return e
    raise AssertionError("not refused")


LABEL = "ab"


def write_own_items(x):
    values = [0.0, 0.0]
    table = {2: 0.0}
    if x > 0:
        values[len(LABEL) - 2] = x  # (a key the statement computes: the list is carried whole)
        table[len(LABEL)] = x * 2
    return values, table


def write_own_items_in_a_loop(n):
    values = [0.5, 0.25]
    for i in range(n):
        values[i % 2] = values[i % 2] + 1.0
    return values


@pytest.mark.parametrize("x", [F32(1.0), F32(-1.0)])
def test_the_functions_own_containers_are_carried(x):
    assert_agree(write_own_items, x)
    assert_agree(write_own_items_in_a_loop, np.int32(3))


# ---- from the review: returning `if`s, subclasses, containers in tuples, aliases, callers ----
def write_in_a_returning_if(x, table):
    if x > 0:
        table[len(LABEL)] = x
        return x
    return -x


def write_into_a_tuples_dict(x, pair):
    if x > 0:
        pair[0][len(LABEL)] = x
    return x


def sort_an_argument(x, values):
    if x > 0:
        values.sort()
    return x


@pytest.mark.no_round_trip
@pytest.mark.parametrize("fn, make", [
    (sort_an_argument, lambda: (F32(1.0), [3.0, 1.0, 2.0])),  # (silent before, too)
    (write_in_a_returning_if, lambda: (F32(1.0), {0: 0.0, 2: 0.0})),
    (write_an_argument_key, lambda: (F32(1.0), collections.OrderedDict([(2, 0.0)]), "ab")),
    (write_into_a_tuples_dict, lambda: (F32(1.0), ({0: 0.0, 2: 0.0},))),
])
def test_arguments_written_in_returning_ifs_subclasses_and_tuples_are_refused(fn, make):
    args = make()
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="changes a copy of it"):
        rt.function(fn)(*args)


def write_through_an_alias(x):
    table = {0: 0.0, 2: 0.0}
    kept = table
    if x > 0:
        table[len(LABEL)] = x
    return kept[2]


def bump(values, n):
    for _ in rt.range(n):
        values[len(LABEL) - 1] = values[len(LABEL) - 1] + 1.0


def write_by_a_helper_into_the_callers_list(n):
    values = [0.0, 0.0]
    bump(values, n)
    return values[1] + 0.0


@pytest.mark.parametrize("fn, arg, where", [
    (write_through_an_alias, F32(1.0), "also 'kept'"),
    (write_by_a_helper_into_the_callers_list, np.int32(3),
     "also 'values' of write_by_a_helper_into_the_callers_list, a caller"),
])
def test_a_written_container_another_name_holds_is_refused(fn, arg, where):
    with pytest.raises(autograph.AutoGraphError, match=where):
        rt.function(fn)(arg)


def own_in_a_returning_if(x):
    table = {0: 0.0, 2: 0.0}
    if x > 0:
        table[len(LABEL)] = x
        return table[2]
    return table[0]


@pytest.mark.parametrize("x", [F32(1.0), F32(-1.0)])
def test_the_functions_own_container_in_a_returning_if_is_carried(x):
    assert_agree(own_in_a_returning_if, x)
