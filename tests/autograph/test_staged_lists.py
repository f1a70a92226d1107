"""Lists that staged code changes are lists (issue 9): what Python gives, eagerly, converted and
as a graph. In a graph such a list is an `rt.TensorList` (runtime/tensor_list.py)."""

import itertools

import numpy as np
import pytest
from list_programs import (
    append_in_branch,
    concat_after_loop,
    dict_of_lists,
    float32_items_then_a_python_float,
    iterate_built_list,
    length_and_index,
    list_of_lists,
    lists_in_a_list,
    plus_equals_and_extend,
    plus_list,
    pop_in_loop,
    pop_in_while,
    set_and_get_at,
    set_item_and_extend,
    stack_and_list,
    stack_list_of_lists,
    stack_scalars,
    strings,
    truth_of_built_list,
    vectors_of_changing_length,
)
from three_way import assert_agree, outcomes

import autograph
import runtime as rt


@pytest.mark.parametrize("fn, inputs", [
    (stack_and_list, [(3, np.float32([1, 2])), (1, np.float32([5, 6]))]),
    (concat_after_loop, [(3, np.float32([1, 2])), (0, np.float32([5, 6]))]),
    (stack_scalars, [(4,), (0,)]),
    (plus_list, [(4,), (0,)]),
    (plus_equals_and_extend, [(3,), (0,)]),
    (pop_in_loop, [(2,), (0,), (5,)]),
    (pop_in_while, [(2,), (0,)]),
    (length_and_index, [(5,), (1,)]),
    (set_item_and_extend, [(5,), (1,), (0,)]),
    (set_and_get_at, [(0,), (1,), (3,), (5,)]),
    (iterate_built_list, [(4,), (0,)]),
    (append_in_branch, [(5,), (0,)]),
    (strings, [(2,), (0,)]),
    (list_of_lists, [(3, 2), (0, 2), (2, 0)]),
    (stack_list_of_lists, [(3, 2)]),
    (truth_of_built_list, [(3,), (0,)]),
    (vectors_of_changing_length, [(3,)]),
    (dict_of_lists, [(4,), (0,)]),
    (lists_in_a_list, [(3,), (0,)]),
    (float32_items_then_a_python_float, [(3, np.float32([1.5, 2])), (0, np.float32([1, 2]))]),
])
def test_staged_lists_behave_like_python_lists(fn, inputs):
    for args in inputs:
        assert_agree(fn, *args)


def test_errors_of_python_lists_are_errors_of_staged_lists():
    # Python raises in all three: an empty stack, a pop from an empty list, an index past the end.
    assert_agree(stack_and_list, 0, np.float32([1, 2]))
    assert_agree(pop_in_loop, 6)
    assert_agree(length_and_index, 0)
    assert_agree(set_and_get_at, 6)


def test_a_staged_list_is_a_tensor_list_in_the_graph():
    seen = []

    def f(n):
        out = []
        for i in rt.range(n):
            out.append(i)
        seen.append((type(out), out.dtype))
        return out

    result = rt.function(f)(rt.constant(3))
    assert seen == [(rt.TensorList, rt.int32)]
    assert [t.numpy() for t in result] == [0, 1, 2]


def python_numbers_then_tensors(n):
    out = [1, 2]
    for i in rt.range(n):
        out.append(i)
    return out


def items_of_another_dtype(n):
    out = [rt.cast(n, rt.float32)]
    for _ in rt.range(n):
        out.append(n)
    return out


def test_items_take_one_dtype_or_the_graph_says_where_they_differ():
    # Python numbers take the items' dtype if they keep their value.
    assert_agree(python_numbers_then_tensors, 2)
    python, eager, graph = outcomes(items_of_another_dtype, 2)
    assert len(python) == 3 and len(eager) == 3
    assert isinstance(graph, TypeError)
    assert "Use rt.cast" in str(graph) and "out.append(n)" in str(graph)


def test_a_list_of_graph_tensors_is_packed_where_an_op_wants_a_tensor():
    def f(v, i):
        return rt.concat((v, [i]), 0), rt.reduce_sum([i, i * 2.0])

    assert_agree(f, np.float32([1, 2]), np.float32(3))


def test_methods_a_staged_list_does_not_have_are_clear_errors():
    def f(n):
        out = []
        for i in rt.range(n):
            out.append(i)
        out.sort()
        return out

    with pytest.raises(Exception, match="sort"):
        rt.function(f)(rt.constant(2))
    assert autograph.to_graph(f)(rt.constant(2)) is not None  # eagerly a Python list


def list_of_pairs(n):
    out = []
    for i in rt.range(n):
        out.append((i, i * 2))
    return out


def test_items_a_staged_list_cannot_hold_are_a_located_error():
    python, eager, graph = outcomes(list_of_pairs, 2)
    assert len(python) == 2 and len(eager) == 2
    assert isinstance(graph, TypeError)
    assert "not a tuple: keep one list per part" in str(graph)
    assert "for i in rt.range(n):" in str(graph)  # the loop that makes it a staged list


def test_comparing_or_sorting_a_staged_list_is_a_located_error():
    def equal(n):
        a = []
        for i in rt.range(n):
            a.append(i)
        return a == [0, 1]

    python, eager, graph = outcomes(equal, 2)
    assert python is True and eager is True
    assert isinstance(graph, TypeError) and "return a == [0, 1]" in str(graph)


def second_name(x):
    a = [1]
    b = a
    if x > 0:
        a.append(5)
    return len(b)


def list_also_in_a_dict(n):
    items = [1]
    d = {"x": items}
    for i in rt.range(n):
        d["x"].append(i)
    return len(items)


def test_a_staged_list_with_another_name_is_a_located_error():
    # Python: 2 and 3; a staged list under one name would leave the other name's list as it
    # was (1 and 1): refused instead, at the construct.
    for fn, arg, line in ((second_name, 1, "if x > 0:"),
                          (list_also_in_a_dict, 2, "for i in rt.range(n):")):
        python, eager, graph = outcomes(fn, arg)
        assert python == eager and python > 1
        assert isinstance(graph, autograph.AutoGraphError)
        assert "but the same Python list is also" in str(graph) and line in str(graph)


def empty_row(n):
    rows = [[1]]
    for _ in rt.range(n):
        rows.append([])
    return len(rows)


def test_an_empty_list_item_is_a_located_error():
    python, eager, graph = outcomes(empty_row, 2)
    assert python == 3 and eager == 3
    assert isinstance(graph, rt.errors.OperatorNotAllowedInGraphError)
    assert "An empty Python list cannot be an item" in str(graph)
    assert "rows.append([])" in str(graph)


def return_once_the_list_has_items(n):
    la = []
    for i in rt.range(n):
        if la:
            return i
        la.append(1)
    return -1


def test_a_path_decided_by_a_staged_list_is_traced_as_it_runs():
    # The first dry run of the body sees `la` as the Python list [], so `if la:` looked like a
    # Python False there and the `return` was dropped (the graph returned -1: silently wrong).
    for n in (3, 1, 0):
        assert_agree(return_once_the_list_has_items, n)


_BODY_RUNS = itertools.count()  # (a list's append in a graph loop would be refused)


def _noted(value):
    next(_BODY_RUNS)
    return value


def append_only_while(n):
    out = []
    i = 0
    while i < n:
        out.append(_noted(i * 2))
        i += 1
    return np.array(out)  # Python ints: numpy's int64, as the graph's list of their stand-ins


def append_only_for(xs):
    out = []
    for x in xs:
        out.append(_noted(x + 1.0))
    return rt.stack(out)


def append_and_read(n):
    out = [0]
    i = 0
    while i < n:
        out.append(_noted(out[-1] + len(out)))
        i += 1
    return rt.stack(out)


@pytest.mark.parametrize("fn, arg, traces", [
    (append_only_while, rt.constant(4), 2),  # the dry run and the graph body
    (append_only_for, rt.constant([1.0, 2.0, 3.0]), 2),
    (append_and_read, rt.constant(3), 3),  # it reads the list: dry run again on staged lists
])
def test_a_loop_that_only_appends_is_traced_once_after_its_dry_run(fn, arg, traces):
    # A loop that only appends to a list needs no second dry run on staged lists
    # (autograph/operators/list_uses.py); the results are Python's.
    before = next(_BODY_RUNS)
    graph = rt.function(fn)(arg)
    assert next(_BODY_RUNS) - before - 1 == traces
    np.testing.assert_array_equal(graph.numpy(), np.asarray(fn(arg.numpy())))
    assert_agree(fn, arg.numpy())


def stack_python_ints(n):
    out = []
    i = 0
    while i < n:
        out.append(i * 2)
        i += 1
    return rt.stack(out)


def test_rt_stack_of_a_graph_list_of_python_ints_is_int32():
    assert_agree(stack_python_ints, np.int32(3))


def append_then_ask_a_helper(n):
    out = []

    def enough():
        return len(out) > 1  # reads the list: a closure, not the loop's own code

    for i in rt.range(n):
        out.append(1)
        if enough():
            return i
    return -1


def test_a_list_a_helper_reads_takes_the_second_dry_run():
    # `out` is a closure's cell (a slot): the loop's code only appends to it, but the helper
    # reads its length, which the staged list gives as a tensor; skipping the second dry run
    # planned `if enough():` from the Python list and the graph returned -1
    for n in (3, 1):
        assert_agree(append_then_ask_a_helper, n)
        assert int(rt.function(append_then_ask_a_helper)(rt.constant(n))) == (
            append_then_ask_a_helper(n))


# ---- a list of Python numbers keeps Python's width (numpy's np.array of it: float64, int64) --

def floats_in_a_tensor_range(n):
    vals = []
    for i in range(n):
        vals.append(0.1 * i)
    return np.array(vals), np.mean(vals), np.stack(vals), sum(vals), max(vals), len(vals)


def floats_in_a_tensor_if(x):
    vals = []
    if x.sum() > 0:
        vals.append(0.5)
    else:
        vals.append(1 / 3)
    return np.array(vals), vals[0] * 3


def thirds_in_a_while(x):
    vals = [1 / 3]
    while x.sum() > 0:
        vals.append(vals[-1] / 3)
        x = x - 1
    total = 0.0
    for v in vals:
        total += v
    return np.asarray(vals), total, min(vals), vals.pop()


def ints_and_bools(n):
    ints, flags = [], []
    for i in range(n):
        ints.append(i * 3)
        flags.append(i % 2 == 0)
    return np.array(ints), np.array(flags), sum(ints), np.vstack(ints)


def python_floats_then_float32(x):
    vals = [0.5]
    for v in x:
        vals.append(v)
    return np.array(vals), rt.stack(vals).dtype == np.float32


def float32_then_python_floats(x):
    vals = [x[0], x[1]]
    i = 0
    while i < x.sum() * 5:  # (a graph loop: float32 items, then Python floats)
        vals.append(0.5 * i)
        i += 1
    if x.sum() > 0:
        vals.append(1 / 3)
    return np.array(vals), rt.stack(vals).dtype == np.float32


def float32_list_then_python_floats(x):
    vals = []
    for v in x:  # (a graph loop: a list of float32 values)
        vals.append(v)
    vals.append(2 / 3)  # (Python floats join them: np.array of the list is float64)
    vals[0] = 0.1
    return np.array(vals), rt.stack(vals).dtype == np.float32


@pytest.mark.parametrize("fn, arg", [
    (floats_in_a_tensor_range, np.int64(4)),
    (float32_list_then_python_floats, np.array([0.1, 0.2, 0.3], np.float32)),
    (float32_list_then_python_floats, np.array([], np.float32)),
    (float32_then_python_floats, np.array([0.1, 0.2, 0.3], np.float32)),
    (floats_in_a_tensor_if, np.arange(3.0)),
    (floats_in_a_tensor_if, -np.arange(3.0)),
    (thirds_in_a_while, np.float64(3.0)),
    (thirds_in_a_while, np.float64(0.0)),
    (ints_and_bools, np.int64(5)),
    (ints_and_bools, np.int32(5)),  # (range's count over int32 bounds is an int32 stand-in)
    (python_floats_then_float32, np.arange(3, dtype=np.float32)),
])
def test_a_graph_list_of_python_numbers_is_numpys_array_of_them(fn, arg):
    # The list is staged (a tensor decides the loop or `if`): it holds Python numbers at
    # Python's width, as numpy's array of the Python list has them, and its items, sums and
    # extremes are Python numbers (it held float32 and int32 before, silently)
    python = fn(arg)
    numpy_results = rt.function(fn, numpy_results=True)(arg)
    assert len(python) == len(numpy_results)
    for p, g in zip(python, numpy_results):
        assert type(p) is type(g) or (isinstance(p, np.ndarray) and isinstance(g, np.ndarray)), (
            p, g)
        np.testing.assert_array_equal(g, p, strict=True)
    assert_agree(fn, arg)


def test_rt_stack_of_a_graph_list_of_python_floats_is_float32():
    # rt's rule for Python floats (a tensor of them is float32) holds for the staged list too
    def stacked(n):
        vals = []
        for i in range(n):
            vals.append(0.1 * i)
        return rt.stack(vals), rt.convert_to_tensor(vals)

    for result in rt.function(stacked)(np.int64(3)):
        assert result.dtype == rt.float32
        np.testing.assert_array_equal(result.numpy(), np.float32([0.0, 0.1, 0.2]))


def float_into_a_list_of_ints(n):
    vals = []
    for i in range(n):
        vals.append(i)
    vals.append(0.5)
    return np.array(vals)


def read_a_mixed_list(x):
    vals = [0.5]
    for v in x:  # (float32 values join Python floats: numpy's array of them is float64)
        vals.append(v)
    return vals[1] * 3.0


def test_a_list_of_python_numbers_and_narrower_values_is_read_only_whole():
    # its items differ in type one by one (a Python float, a numpy float32), which a graph list
    # cannot keep apart: reading one is a located error; np.array of it is numpy's
    with pytest.raises(TypeError, match="cannot be read singly") as info:
        rt.function(read_a_mixed_list)(np.float32([0.1, 0.7]))
    assert "test_staged_lists.py" in str(info.value)
    assert_agree(python_floats_then_float32, np.arange(3, dtype=np.float32))


def enumerate_and_zip_a_staged_list(x):
    vals = []
    for v in x:
        vals.append(v * 2)
    s = 0.0
    for i, v in enumerate(vals):
        s = s + i * v
    for v, w in zip(vals, x):
        s = s + v * w
    return s


def test_enumerate_and_zip_take_a_staged_list():
    # (an AttributeError of TensorList's before; found by a second reading)
    for x in (np.float32([1, 2, 3]), np.float32([])):
        assert_agree(enumerate_and_zip_a_staged_list, x)


def returns_a_mixed_list(x):
    vals = []
    for v in x:
        vals.append(v)
    vals.append(1 / 3)
    return vals


_returns_a_mixed_list = rt.function(returns_a_mixed_list)


def stacks_a_mixed_list_a_callee_returns(x):
    return np.array(_returns_a_mixed_list(x))


def test_a_mixed_list_is_not_returned_item_by_item():
    # its items would all be float64 where Python's are float32 values and a float (they
    # were, silently; found by a second reading); a caller's graph still takes it in whole
    x = np.float32([0.1, 0.2])
    with pytest.raises(TypeError, match="returns a list built by graph code") as info:
        rt.function(returns_a_mixed_list)(x)
    assert "test_staged_lists.py" in str(info.value)
    got = rt.function(stacks_a_mixed_list_a_callee_returns, numpy_results=True)(x)
    np.testing.assert_array_equal(got, np.array(returns_a_mixed_list(x)), strict=True)


def int_or_float_list(x):
    vals = []
    if x.sum() > 0:
        vals.append(1)
    else:
        vals.append(0.5)
    return np.array(vals)


def python_ints_then_int8(x):
    vals = []
    if x.sum() > 0:
        vals.append(7)  # (a graph list of Python ints)
    for v in x:
        vals.append(v)
    return np.array(vals)


def python_floats_appended_in_a_later_loop(x):
    vals = []
    for v in x:
        vals.append(v)
    i = 0
    while i < x.sum() * 5:
        vals.append(0.1 * i)
        i += 1
    return np.array(vals)


def a_python_float_appended_on_one_path(x):
    vals = []
    for v in x:
        vals.append(v)
    if x.sum() > 0:
        vals.append(0.1)
    return np.array(vals)


@pytest.mark.parametrize("fn, arg, match", [
    # a Python float joining float32 values on a path that may not run: numpy's array of the
    # list is float64 where it runs, float32 where not (widened on every path for a while)
    (python_floats_appended_in_a_later_loop, np.float32([0.1, 0.2]), "on a path of a graph"),
    (a_python_float_appended_on_one_path, np.float32([0.1, 0.2]), "on a path of a graph"),
    # a Python float never joins a list of ints (it was truncated to 0 for a while)
    (float_into_a_list_of_ints, np.int64(3), "holds int64 items and cannot take a float64"),
    # two branches, two dtypes
    (int_or_float_list, np.arange(3.0), "list<int64>.*list<float64>.*rt.cast"),
    # float32 and int32 values widen in a list of Python numbers (rt.stack of it gives them
    # back); int8 would come back from rt.stack as int32 where rt.stack of the Python list is
    # int8: an error that says to cast
    (python_ints_then_int8, np.array([100, 120], np.int8), "cannot take an int8 item"),
])
def test_lists_a_graph_cannot_hold_as_numpy_would_are_refused(fn, arg, match):
    with pytest.raises(TypeError, match=match):
        rt.function(fn)(arg)
