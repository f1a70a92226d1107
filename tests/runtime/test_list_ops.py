"""The run-time values of staged lists (runtime/ops/list_ops.py): versions share a buffer, so
appending to the newest version is O(1), and every version keeps its own items."""

import numpy as np

from runtime.ops import list_ops
from runtime.ops.list_ops import ListValue


def push(lst, item):
    return list_ops.LIST_PUSH_BACK.kernel(lst, item)


def test_appending_to_the_newest_version_extends_the_shared_buffer_in_place():
    empty = ListValue([], 0)
    one = push(empty, np.int32(1))
    two = push(one, np.int32(2))
    assert one.buffer is two.buffer is empty.buffer  # no copy: O(1) per append
    assert empty.items() == [] and one.items() == [1] and two.items() == [1, 2]


def test_appending_to_an_older_version_copies_and_leaves_the_newer_one_alone():
    one = push(ListValue([], 0), np.int32(1))
    two = push(one, np.int32(2))
    fork = push(one, np.int32(9))
    assert fork.buffer is not two.buffer
    assert two.items() == [1, 2] and fork.items() == [1, 9]


def test_popping_keeps_the_earlier_version_whole():
    three = ListValue([1, 2, 3], 3)
    two, item = list_ops.LIST_POP_BACK.kernel(three)
    assert item == 3 and two.items() == [1, 2] and three.items() == [1, 2, 3]
    again = push(two, np.int32(7))  # a fork of `three`: it copies
    assert again.items() == [1, 2, 7] and three.items() == [1, 2, 3]


def test_stored_arrays_are_owned_by_the_list():
    item = np.zeros(3, np.float32)
    lst = push(ListValue([], 0), item)
    item += 1  # the executor may reuse a dead array's buffer in place
    np.testing.assert_array_equal(lst.items()[0], [0, 0, 0])
