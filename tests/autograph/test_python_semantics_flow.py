"""False refusals and misleading errors of control flow, one section each: what plain Python
gives, the converted function gives eagerly and the graph gives (or all three raise the same
kind of error, at the user's line)."""

import numpy as np
from three_way import assert_agree

import runtime as rt


# ---- a loop test used only for its truth -------------------------------------------------------
def break_in_while_on_one_element(x):
    i = 0
    while x > i:
        i += 1
        if i > 3:
            break
    return i


def return_in_while_on_one_element(x):
    i = 0
    while x > i:
        i += 1
        if i > 3:
            return i * 10
    return i


def return_in_for_under_while_constant(n):
    while 7:
        for i in rt.range(n):
            if i > 2:
                return i
    return -1


def test_a_loop_test_with_a_jump_is_used_only_for_its_truth():
    # `not break_ and x > i` (the lowered break) is a condition: a tensor of one element is
    # reduced to a scalar bool, and a Python constant is true, as in Python.
    for x in (np.array([10.0], np.float32), np.array([[2.0]], np.float32)):
        assert_agree(break_in_while_on_one_element, x)
        assert_agree(return_in_while_on_one_element, x)
    assert_agree(return_in_for_under_while_constant, 5)


# ---- a list that starts empty, indexed by the loop's tensor index ------------------------------
def set_item_at_loop_index(n):
    out = []
    for i in range(n):
        out.append(i)
        out[i] = out[i] * 3 + 1
    return out


def set_item_in_while(n):
    out = []
    i = 0
    while i < n:
        out.append(i * 2.0)
        out[i] += out[-1]
        i += 1
    return out


def test_an_empty_list_indexed_by_a_tensor_in_a_loop_is_staged():
    # The items the first (Python-list) iteration appended before it met the tensor index
    # give the staged list its item type.
    for n in (4, 1, 0):
        assert_agree(set_item_at_loop_index, n)
        assert_agree(set_item_in_while, n)
