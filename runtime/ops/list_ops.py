"""Staged lists: the ops behind `rt.TensorList` (see runtime/tensor_list.py).

A list tensor has a list dtype (`dtypes.list_of(item dtype)`) and the shape of its items. Its
run-time value is a `ListValue`: the first `length` items of a Python list that versions of the
list share. The ops are pure functions of their inputs, as graph passes assume, and appending is
still O(1): appending to the newest version extends the shared buffer in place; appending to an
older version (whose buffer a newer version extended since) copies its items first.
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor_conversion import constant
from runtime.errors import (
    GraphLimitError,
    InvalidArgumentError,
    NoGradientError,
    OperatorNotAllowedInGraphError,
    a_or_an,
    argument_error,
)
from runtime.ops import basic_ops
from runtime.ops.registry import GRADIENT, apply, define_op, lacks, register_rules


class ListValue:
    """The run-time value of a list tensor."""

    __slots__ = ("buffer", "length")

    def __init__(self, buffer: list, length: int):
        self.buffer, self.length = buffer, length

    def items(self) -> list:
        return self.buffer[: self.length]

    def __repr__(self) -> str:
        return f"ListValue({self.items()!r})"


def own_item(item):
    """A stored item must not change when the executor reuses an array's buffer."""
    return item.copy() if isinstance(item, np.ndarray) and item.ndim else item


def _join(shape, other, what: str):
    """The item shape that both `shape` and `other` have (unknown where they differ)."""
    if len(shape) != len(other):  # a graph limit: Python lists hold anything
        raise GraphLimitError(
            f"{what}: the items of a staged list must have one rank, got shapes {list(shape)} "
            f"and {list(other)}; stack them into a tensor of one shape first."
        )
    return tuple(a if a == b else None for a, b in zip(shape, other))


def _check_list(value, what: str):
    if not value.dtype.is_list:
        raise argument_error(
            TypeError, f"{what} takes a list tensor, not {a_or_an(value.dtype.name)} tensor"
        )


def _check_item(lst, item, what: str):
    if item.dtype is not lst.dtype.element:  # a graph limit: Python lists hold anything
        raise OperatorNotAllowedInGraphError(
            f"{what}: a list of {lst.dtype.element.name} items cannot take "
            f"{a_or_an(item.dtype.name)} item; use rt.cast so that all items have one dtype."
        )


# ---- ops ---------------------------------------------------------------------------------------
def _from_items_infer(inputs, *, dtype, element_shape):
    shape = tuple(element_shape)
    for item in inputs:
        if item.dtype is not dtype:
            raise argument_error(
                TypeError,
                f"a list of {dtype.name} items cannot hold {a_or_an(item.dtype.name)} item; use "
                "rt.cast so that all items have one dtype.",
            )
        shape = _join(shape, tuple(item.shape), "list")
    return [(dtypes.list_of(dtype), shape)]


LIST_FROM_ITEMS = define_op(
    "ListFromItems",
    infer=_from_items_infer,
    kernel=lambda *items, dtype, element_shape: ListValue([own_item(i) for i in items], len(items)),
    expression=lambda a, attrs: f"ListValue([{', '.join(f'own_item({x})' for x in a)}], {len(a)})",
    expression_globals={"ListValue": ListValue, "own_item": own_item},
)


def _push_back_kernel(lst, item):
    buffer, n = lst.buffer, lst.length
    if len(buffer) != n:  # a newer version of the list extended the buffer: copy
        buffer = buffer[:n]
    buffer.append(item.copy() if type(item) is np.ndarray and item.ndim else item)
    pushed = _new_list_value(ListValue)  # (without __init__'s call: a loop appends often)
    pushed.buffer, pushed.length = buffer, n + 1
    return pushed


_new_list_value = object.__new__


def _push_back_infer(inputs):
    lst, item = inputs
    _check_list(lst, "append")
    _check_item(lst, item, "append")
    return [(lst.dtype, _join(tuple(lst.shape), tuple(item.shape), "append"))]


LIST_PUSH_BACK = define_op("ListPushBack", infer=_push_back_infer, kernel=_push_back_kernel)


def _pop_back_kernel(lst):
    if lst.length == 0:
        raise IndexError("pop from empty list")
    return ListValue(lst.buffer, lst.length - 1), lst.buffer[lst.length - 1]


def _pop_back_infer(inputs):
    (lst,) = inputs
    _check_list(lst, "pop")
    return [(lst.dtype, lst.shape), (lst.dtype.element, lst.shape)]


LIST_POP_BACK = define_op(
    "ListPopBack",
    infer=_pop_back_infer,
    kernel=_pop_back_kernel,
)

def _length_infer(inputs):
    _check_list(inputs[0], "len")
    return [(dtypes.int32, ())]


LIST_LENGTH = define_op(
    "ListLength",
    infer=_length_infer,
    kernel=lambda lst: np.int32(lst.length),
)


def _position(lst, index, what: str) -> int:
    i = int(index)
    if not -lst.length <= i < lst.length:
        raise IndexError(f"list {what}index out of range")
    return i + lst.length if i < 0 else i


def _index_infer(index):
    if not index.dtype.is_integer or len(index.shape) != 0:
        raise argument_error(
            TypeError,
            f"list indices must be integer scalars, not {index.dtype.name}{list(index.shape)}",
        )


def _get_item_infer(inputs):
    lst, index = inputs
    _check_list(lst, "indexing")
    _index_infer(index)
    return [(lst.dtype.element, lst.shape)]


def _get_item_kernel(lst, index):
    if 0 <= index < lst.length:  # numpy integers index Python lists as they are
        return lst.buffer[index]
    return lst.buffer[_position(lst, index, "")]


LIST_GET_ITEM = define_op(
    "ListGetItem",
    infer=_get_item_infer,
    kernel=_get_item_kernel,
    # a list whose buffer holds just its items reads (and raises) as a Python list does
    expression=lambda a, attrs: (f"({a[0]}.buffer[{a[1]}] if len({a[0]}.buffer) == {a[0]}.length "
                           f"else list_get_item({a[0]}, {a[1]}))"),
    expression_globals={"list_get_item": _get_item_kernel},
)


def _set_item_kernel(lst, index, item):
    buffer = lst.items()
    buffer[_position(lst, index, "assignment ")] = own_item(item)
    return ListValue(buffer, lst.length)


def _set_item_infer(inputs):
    lst, index, item = inputs
    _check_list(lst, "item assignment")
    _index_infer(index)
    _check_item(lst, item, "item assignment")
    return [(lst.dtype, _join(tuple(lst.shape), tuple(item.shape), "item assignment"))]


LIST_SET_ITEM = define_op("ListSetItem", infer=_set_item_infer, kernel=_set_item_kernel)


def _concat_lists_infer(inputs):
    a, b = inputs
    _check_list(a, "+")
    _check_list(b, "+")
    if a.dtype is not b.dtype:
        raise argument_error(TypeError, f"cannot concatenate a {a.dtype.name} and a {b.dtype.name}")
    return [(a.dtype, _join(tuple(a.shape), tuple(b.shape), "+"))]


LIST_CONCAT_LISTS = define_op(
    "ListConcatLists",
    infer=_concat_lists_infer,
    kernel=lambda a, b: ListValue(a.items() + b.items(), a.length + b.length),
)


def _stack_kernel(lst):
    items = lst.items()
    if not items:  # as `rt.stack([])` raises eagerly
        raise argument_error(
            InvalidArgumentError, "stack needs at least one tensor; the list is empty."
        )
    first = items[0]
    if isinstance(first, ListValue):
        items = [_stack_kernel(item) for item in items]
    elif isinstance(first, np.generic) and first.dtype.kind in "biufc":
        return np.array(items, dtype=first.dtype)  # numbers: 50x faster than np.stack
    return np.stack(items)


def _stack_infer(inputs):
    (lst,) = inputs
    _check_list(lst, "stack")
    dtype, shape = lst.dtype.element, tuple(lst.shape)
    while dtype.is_list:  # a list of lists stacks into one more dimension
        dtype, shape = dtype.element, (None, *shape)
    return [(dtype, (None, *shape))]


LIST_STACK = define_op("ListStack", infer=_stack_infer, kernel=_stack_kernel)


def _concat_infer(inputs, *, axis):
    (lst,) = inputs
    _check_list(lst, "concat")
    if lst.dtype.element.is_list:
        raise argument_error(TypeError, "concat: the items of the list are lists; stack them first")
    shape = list(lst.shape)
    if not shape:
        raise argument_error(
            InvalidArgumentError, "concat: the items are scalars (rank 0); use rt.stack"
        )
    a = axis + len(shape) if axis < 0 else axis
    if not 0 <= a < len(shape):
        raise argument_error(
            InvalidArgumentError,
            f"concat: axis {axis} is out of range for items of rank {len(shape)}",
        )
    shape[a] = None
    return [(lst.dtype.element, tuple(shape))]


LIST_CONCAT = define_op(
    "ListConcat",
    infer=_concat_infer,
    kernel=lambda lst, axis: np.concatenate(lst.items(), axis),
)


def _cast_infer(inputs, *, dtype):
    (lst,) = inputs
    _check_list(lst, "cast")
    if lst.dtype.element.is_list or dtype.is_list:
        raise argument_error(TypeError, "a list of lists is not cast")
    return [(dtypes.list_of(dtype), lst.shape)]


def _cast_kernel(lst, dtype):
    kind = dtype.np_dtype
    return ListValue([item.astype(kind) for item in lst.items()], lst.length)


# A list whose items widen (float32 ones to float64 when a Python float joins them: numpy's
# array of such a list is float64; rt.TensorList.append)
LIST_CAST = define_op("ListCast", infer=_cast_infer, kernel=_cast_kernel)


# ---- functions on list tensors (used by rt.TensorList) -----------------------------------------
def from_items(items, dtype, element_shape):
    return apply(LIST_FROM_ITEMS, list(items),
                 {"dtype": dtype, "element_shape": tuple(element_shape)})


def push_back(lst, item):
    return apply(LIST_PUSH_BACK, [lst, item])


def pop_back(lst):
    return apply(LIST_POP_BACK, [lst])


def length(lst):
    return apply(LIST_LENGTH, [lst])


def get_item(lst, index):
    return apply(LIST_GET_ITEM, [lst, index])


def set_item(lst, index, item):
    return apply(LIST_SET_ITEM, [lst, index, item])


def concat_lists(a, b):
    return apply(LIST_CONCAT_LISTS, [a, b])


def stack(lst):
    return apply(LIST_STACK, [lst])


def concat(lst, axis: int):
    return apply(LIST_CONCAT, [lst], {"axis": int(axis)})


def cast(lst, dtype):
    """`lst` with its items cast to `dtype` (itself when they have it)."""
    return lst if lst.dtype.element is dtype else apply(LIST_CAST, [lst], {"dtype": dtype})




# ---- ops the gradients of lists use ------------------------------------------------------------
# The gradient of a list is a list of the same length: the gradient of each item.

def _same_list_infer(inputs):
    for lst in inputs:
        _check_list(lst, "a list gradient")
    a = inputs[0]
    shape = tuple(a.shape)
    for other in inputs[1:]:
        shape = _join(shape, tuple(other.shape), "a list gradient")
    return [(a.dtype, shape)]


def _zeros_like_kernel(lst):
    return ListValue([_zeros_like_kernel(i) if isinstance(i, ListValue) else np.zeros_like(i)
                      for i in lst.items()], lst.length)


LIST_ZEROS_LIKE = define_op("ListZerosLike", infer=_same_list_infer, kernel=_zeros_like_kernel)


def _add_kernel(a, b):
    if a.length != b.length:
        raise argument_error(
            InvalidArgumentError,
            f"cannot add the gradients of lists of {a.length} and {b.length} items",
        )
    return ListValue([_add_kernel(x, y) if isinstance(x, ListValue) else x + y
                      for x, y in zip(a.items(), b.items())], a.length)


LIST_ADD = define_op("ListAdd", infer=_same_list_infer, kernel=_add_kernel)


def _unstack_infer(inputs):
    (value,) = inputs
    if value.dtype.is_list or not value.shape:
        raise argument_error(TypeError, "unstack into a list takes a tensor of rank 1 or more")
    return [(dtypes.list_of(value.dtype), tuple(value.shape[1:]))]


LIST_UNSTACK = define_op(
    "ListUnstack",
    infer=_unstack_infer,
    kernel=lambda value: ListValue([own_item(item) for item in value], len(value)),
)


def _split_at_infer(inputs):
    lst, count = inputs
    _check_list(lst, "split")
    _index_infer(count)
    return [(lst.dtype, lst.shape), (lst.dtype, lst.shape)]


def _split_at_kernel(lst, count):
    items, n = lst.items(), int(count)
    return ListValue(items[:n], n), ListValue(items[n:], lst.length - n)


LIST_SPLIT_AT = define_op("ListSplitAt", infer=_split_at_infer, kernel=_split_at_kernel)


def _split_like_infer(inputs, *, axis):
    like, value = inputs
    _check_list(like, "split")
    if value.dtype.is_list or like.dtype.element is not value.dtype:
        raise argument_error(
            TypeError, f"cannot split {a_or_an(value.dtype.name)} tensor like a {like.dtype.name}"
        )
    return [(like.dtype, tuple(like.shape))]


def _split_like_kernel(like, value, axis):
    ends = np.cumsum([item.shape[axis] for item in like.items()])
    return ListValue([own_item(p) for p in np.split(value, ends[:-1], axis)], like.length)


LIST_SPLIT_LIKE = define_op("ListSplitLike", infer=_split_like_infer, kernel=_split_like_kernel)


def zeros_like(lst):
    return apply(LIST_ZEROS_LIKE, [lst])


def add(a, b):
    return apply(LIST_ADD, [a, b])


def unstack(value):
    return apply(LIST_UNSTACK, [value])


def split_at(lst, count):
    return apply(LIST_SPLIT_AT, [lst, count])


def split_like(value, like, axis: int):
    return apply(LIST_SPLIT_LIKE, [like, value], {"axis": int(axis)})


# ---- gradient rules ----------------------------------------------------------------------------
# Gradients flow through lists of floats and lists of such lists, except into the stack of a list
# of lists.


def zeros_for(value):
    """Zeros shaped like `value`, a tensor or a list (the gradient nothing flows into)."""
    return zeros_like(value) if value.dtype.is_list else basic_ops.zeros_like(value)


def _or_zeros(grad, like):
    return grad if grad is not None else zeros_for(like)


def _from_items_gradient(op, grads):
    return [get_item(grads[0], constant(np.int32(i))) for i in range(len(op.inputs))]


def _push_back_gradient(op, grads):
    rest, last = pop_back(grads[0])
    return [rest, last]


def _pop_back_gradient(op, grads):
    rest, item = op.outputs
    return [push_back(_or_zeros(grads[0], rest), _or_zeros(grads[1], item))]


def _get_item_gradient(op, grads):
    lst, index = op.inputs
    return [set_item(zeros_like(lst), index, grads[0]), None]


def _set_item_gradient(op, grads):
    _, index, item = op.inputs
    grad = grads[0]
    return [set_item(grad, index, zeros_for(item)), None, get_item(grad, index)]


def _concat_lists_gradient(op, grads):
    first, rest = split_at(grads[0], length(op.inputs[0]))
    return [first, rest]


def _stack_gradient(op, grads):
    if op.inputs[0].dtype.element.is_list:
        raise NoGradientError("gradients do not flow through the stack of a list of lists; "
                              "stack the inner lists into tensors first")
    return [unstack(grads[0])]


def _split_at_gradient(op, grads):
    first, rest = op.outputs
    return [concat_lists(_or_zeros(grads[0], first), _or_zeros(grads[1], rest)), None]


register_rules(GRADIENT, {
    LIST_FROM_ITEMS: _from_items_gradient,
    LIST_PUSH_BACK: _push_back_gradient,
    LIST_POP_BACK: _pop_back_gradient,
    LIST_GET_ITEM: _get_item_gradient,
    LIST_SET_ITEM: _set_item_gradient,
    LIST_CONCAT_LISTS: _concat_lists_gradient,
    LIST_STACK: _stack_gradient,
    LIST_CONCAT: lambda op, grads: [split_like(grads[0], op.inputs[0], op.attrs["axis"])],
    LIST_ZEROS_LIKE: lambda op, grads: [None],
    LIST_ADD: lambda op, grads: [grads[0], grads[0]],
    LIST_UNSTACK: lambda op, grads: [stack(grads[0])],
    LIST_SPLIT_AT: _split_at_gradient,
    LIST_SPLIT_LIKE: lambda op, grads: [None, concat(grads[0], op.attrs["axis"])],
    LIST_CAST: lambda op, grads: [cast(grads[0], op.inputs[0].dtype.element)],
})
lacks(GRADIENT, "its output is an integer", LIST_LENGTH)
