"""The NUMBA rules of staged lists: a list is a numba list of numbers or arrays.

numba lowers the lists numeric loops build: a list made of items (`ListFromItems`, `xs = []`),
appended to by a graph loop once an iteration and read nowhere else in the loop (the emitter
writes that append: codegen's `_Appended`, the list's `append`, with a copy of an array item as
the kernel keeps), then stacked (`ListStack`, `np.stack(xs)`) or counted
(`ListLength`). Items keep the list's dtype; arrays are copied in, as the kernels keep them,
so a later change of the value appended never shows in the list. Every other list op states
why not (runtime/executor/numba_rules.py, which registers these rules and helpers), and so does
a list the graph returns (numba's list is not the runtime's list value).

The lists are numba's own (`[sample]`), which numba compiles inline: appending costs a few
nanoseconds. Its `typed.List`, which Python code can also hold, calls out of the compiled code
on every append (8x slower on the EMA filter's loop); a graph's lists never leave it, so they
need none of that. A list that a loop counting to a limit appends to, and that is only
stacked or counted after the loop, is an array of the loop's count the loop fills instead
(`fillable`: numba's append was a third of the EMA filter's loop).
"""

from __future__ import annotations

from runtime.errors import NoLoweringError, with_origin
from runtime.ops import list_ops


def _items(op, lst) -> tuple:
    """(the items' dtype, their rank) of the list tensor `lst`; lists of lists and of strings
    are not lowered."""
    element = lst.dtype.element
    if element.is_list or element.is_string:
        what = "lists" if element.is_list else "strings"
        raise NoLoweringError(with_origin(
            f"jit_compile='numba' does not lower a list of {what} (numba's lists hold numbers "
            "and arrays here).", op.origin))
    return element, len(lst.shape)


def _empty(dtype, rank: int) -> str:
    """An expression of a value of the list's item type (numba types the list by it)."""
    name = "np.bool_" if dtype.is_bool else f"np.{dtype.np_dtype.name}"
    if rank == 0:
        return f"{name}(0)"
    return f"np.zeros(({'0, ' * rank}), {name})"


def fillable(result) -> bool:
    """Whether the list a loop builds (`result`, a While's output) can be an array the loop
    fills (numba_backend.NumbaEmitter.list_buffer): its items have one known shape and a
    number dtype, and after the loop it is only stacked or counted (numba's own list appends
    at 3-4 ns an item, a third of the EMA filter's loop)."""
    element = result.dtype.element
    if element.is_list or element.is_string or not result.shape.is_fully_defined():
        return False
    graph = result.op.graph
    readers = [op for op in graph.operations if any(t is result for t in op.inputs)]
    return not any(t is result for t in graph.outputs) and all(
        op.opdef in (list_ops.LIST_STACK, list_ops.LIST_LENGTH) for op in readers)


def empty_items(result, count: str) -> str:
    """An expression of an empty array for `count` items of the list `result`."""
    dtype = result.dtype.element
    name = "np.bool_" if dtype.is_bool else f"np.{dtype.np_dtype.name}"
    return f"np.empty(({count}, {''.join(f'{d}, ' for d in result.shape)}), {name})"


def _from_items(op, a, typed):
    dtype, rank = _items(op, op.outputs[0])
    if not a:
        return f"list_like_({_empty(dtype, rank)})"
    items = [f"{x}.copy()" if rank else x for x in a]
    return f"list_of_(({', '.join(items)},))"


def _stack(op, a, typed):
    dtype, rank = _items(op, op.inputs[0])
    return f"stack_list_({a[0]})" if rank else f"stack_numbers_({a[0]}, {_empty(dtype, 0)})"


HELPERS = {
    "list_like_": """def list_like_(sample):
    out = [sample]
    out.pop()
    return out
""",
    "fill_from_": """def fill_from_(out, lst):
    for i in range(len(lst)):
        out[i] = lst[i]
    return out
""",
    "list_of_": """def list_of_(items):
    return list(items)
""",
    "stack_numbers_": """def stack_numbers_(lst, zero):
    if len(lst) == 0:
        raise ValueError("stack needs at least one tensor; the list is empty.")
    out = np.empty(len(lst), type(zero))
    for i in range(len(lst)):
        out[i] = lst[i]
    return out
""",
    "stack_list_": """def stack_list_(lst):
    if len(lst) == 0:
        raise ValueError("stack needs at least one tensor; the list is empty.")
    first = lst[0]
    out = np.empty((len(lst),) + first.shape, first.dtype)
    for i in range(len(lst)):
        if lst[i].shape != first.shape:
            raise ValueError("stack: all input arrays must have the same shape")
        out[i] = lst[i]
    return out
""",
}
RULES = {
    list_ops.LIST_FROM_ITEMS: _from_items,
    list_ops.LIST_STACK: _stack,
    list_ops.LIST_LENGTH: lambda op, a, typed: f"np.int32(len({a[0]}))",
}
