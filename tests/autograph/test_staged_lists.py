"""Lists that staged code changes are lists (issue 9): what Python gives, eagerly, converted and
as a graph. In a graph such a list is an `rt.TensorList` (runtime/tensor_list.py)."""

import numpy as np
import pytest
from three_way import assert_agree, outcomes

import autograph
import runtime as rt


def stack_after_loop(n, x):
    out = []
    for i in rt.range(n):
        out.append(x * i)
    return rt.stack(out)


def concat_after_loop(n, x):
    out = []
    for i in rt.range(n):
        out.append(x + i)
    return rt.concat(out, 0)


def plus_list(n):
    s = []
    for i in rt.range(n):
        s = s + [i * 2]
    return s


def plus_equals_and_extend(n):
    s = [0]
    for i in rt.range(n):
        s += [i]
        s.extend([i, i + 1])
    return s


def pop_in_loop(n):
    items = [1, 2, 3, 4, 5]
    total = 0
    for _ in rt.range(n):
        total += items.pop()
    return total, items


def pop_in_while(n):
    items = [10, 20, 30]
    last = 0
    while n > 0:
        last = items.pop()
        n -= 1
    return last, len(items)


def length_and_index(n):
    out = []
    for i in rt.range(n):
        out.append(i * i)
    return len(out), out[0], out[-1], out[n // 2]


def set_item_in_loop(n):
    out = [0, 0, 0]
    for i in rt.range(n):
        out.append(i)
        out[i % 3] = out[i % 3] + i
    return out


def iterate_built_list(n):
    out = []
    for i in rt.range(n):
        out.append(i + 1)
    total = 0
    for v in out:
        total = total + v * v
    return total


def append_in_branch(n):
    out = []
    for i in rt.range(n):
        if i % 2 == 0:
            out.append(i)
    return out


def list_of_lists(n, m):
    rows = []
    for i in rt.range(n):
        row = []
        for j in rt.range(m):
            row.append(i * 10 + j)
        rows.append(row)
    return rows


def stack_list_of_lists(n, m):
    rows = []
    for i in rt.range(n):
        row = []
        for j in rt.range(m):
            row.append(i * 10 + j)
        rows.append(row)
    return rt.stack(rows)


def truth_of_built_list(n):
    out = []
    for i in rt.range(n):
        out.append(i)
    if out:
        return 1
    return 0


def vectors_of_changing_length(n):
    out = []
    v = rt.zeros([0])
    for _ in rt.range(n):
        v = rt.concat([v, [1.0]], 0)
        out.append(rt.reduce_sum(v))
    return out


def dict_of_lists(n):
    d = {"even": [], "odd": [1]}
    for i in rt.range(n):
        d["even"].append(i * 2)
        if i % 2 == 1:
            d["odd"].append(i)
    return d


def lists_in_a_list(n):
    parts = [[], [0.5]]
    for i in rt.range(n):
        parts[0].append(rt.cast(i, rt.float32))
        parts[1].pop()
        parts[1].append(rt.cast(i, rt.float32) * 2.0)
    return parts


@pytest.mark.parametrize("fn, inputs", [
    (dict_of_lists, [(4,), (0,)]),
    (lists_in_a_list, [(3,), (0,)]),
    (stack_after_loop, [(3, np.float32([1, 2])), (1, np.float32([5, 6]))]),
    (concat_after_loop, [(3, np.float32([1, 2])), (1, np.float32([5, 6]))]),
    (plus_list, [(4,), (0,)]),
    (plus_equals_and_extend, [(3,), (0,)]),
    (pop_in_loop, [(2,), (0,), (5,)]),
    (pop_in_while, [(2,), (0,)]),
    (length_and_index, [(5,), (1,)]),
    (set_item_in_loop, [(5,), (0,)]),
    (iterate_built_list, [(4,), (0,)]),
    (append_in_branch, [(5,), (0,)]),
    (list_of_lists, [(3, 2), (0, 2), (2, 0)]),
    (stack_list_of_lists, [(3, 2)]),
    (truth_of_built_list, [(3,), (0,)]),
    (vectors_of_changing_length, [(3,)]),
])
def test_staged_lists_behave_like_python_lists(fn, inputs):
    for args in inputs:
        assert_agree(fn, *args)


def test_errors_of_python_lists_are_errors_of_staged_lists():
    # Python raises in all three: an empty stack, a pop from an empty list, an index past the end.
    assert_agree(stack_after_loop, 0, np.float32([1, 2]))
    assert_agree(pop_in_loop, 6)
    assert_agree(length_and_index, 0)


def test_a_staged_list_is_a_tensor_list_in_the_graph():
    seen = []

    def f(n):
        out = []
        for i in rt.range(n):
            out.append(i)
        seen.append(out)
        return out

    result = rt.function(f)(rt.constant(3))
    assert isinstance(seen[0], rt.TensorList) and seen[0].dtype is rt.int32
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
