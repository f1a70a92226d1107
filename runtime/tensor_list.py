"""`rt.TensorList`: what a Python list becomes when graph code changes its length.

In a graph, a loop whose trip count is a tensor cannot keep a Python list of its items (there is
no Python list at run time, only a count the graph does not know while tracing). So a list that a
staged loop or `if` appends to, pops from or extends becomes a TensorList: a list tensor of the
graph (`list_ops`) behind the methods of a Python list. Eagerly, and where control flow stays
Python, lists stay Python lists.

    out = []                                   # a Python list
    for i in rt.range(n):                      # a graph loop: `out` becomes a TensorList
        out.append(x * i)                      # O(1) per append
    return rt.stack(out)                       # or rt.concat(out, 0), out[i], len(out) ...

What a TensorList supports: `append`, `pop()`, `extend`, `+` (a new list), `len()` (a tensor,
in converted code), indexing with ints and integer tensors, `lst[i] = v`, iteration in a
converted `for` (a graph loop), `rt.stack`, `rt.concat`, `rt.convert_to_tensor`; its items may
be lists (a list of lists). All items have one dtype and rank (their dims may differ). Returned
from an `rt.function`, it is a Python list of tensors.

A list of Python numbers (or their stand-ins: a loop's counter, `0.1 * i`) is weak, as a Python
number is: it holds them at Python's width (float64, int64) and `lst[i]` is a Python number's
stand-in; numpy's functions (`np.array(lst)`) see numpy's array of the Python list (float64,
int64), and rt's (`rt.stack(lst)`) the tensor a list of Python numbers converts to (float32,
int32), as for a Python list.
"""

from __future__ import annotations

import functools
from typing import cast

from runtime.core import context, dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.core.tensor_conversion import (
    convert_to_tensor,
    is_python_scalar,
    is_weak,
    packed_dtype,
    python_scalar_fits,
    register_conversion,
    weak_dtype,
    weak_join,
)
from runtime.errors import OperatorNotAllowedInGraphError, a_or_an, with_origin
from runtime.ops import basic_ops, list_ops
from runtime.ops.registry import PLACEHOLDER

# What a list tensor's `weak` says about its items: False, tensors as they are; WEAK, Python
# numbers (their stand-ins) held at Python's width; MIXED, Python numbers and narrower tensors
# widened to it (numpy's array of the Python list has that width, but the items' types differ
# one by one, so they are not read back singly).
WEAK, MIXED = True, 2


class TensorList:
    """A list built by graph code: a list tensor (`handle`) behind a Python list's methods.
    Methods that change the list (`append`, `pop`, `extend`, item assignment) change which
    tensor it holds, so names bound to this object see the change, as with a Python list."""

    __slots__ = ("handle",)

    def __init__(self, handle: SymbolicTensor):
        if not handle.dtype.is_list:
            raise TypeError(
                f"TensorList takes a list tensor, not {a_or_an(handle.dtype.name)} tensor")
        self.handle = handle

    @classmethod
    def from_items(cls, items, dtype=None, element_shape=None, weak=False) -> TensorList:
        """A TensorList holding `items` (tensors, numbers or lists); `dtype` (else the items')
        and `element_shape` describe the items when `items` is empty, and `weak` whether they
        stand for Python numbers (items given tell it themselves)."""
        items = [_as_item(item) for item in items]
        if items:  # the first strong item's dtype, which Python numbers take; Python numbers
            # alone keep Python's width (np.array of Python floats is float64)
            strong = [i for i in items if not _is_weak_item(i)]
            sample = strong[0] if strong else items[0]
            if dtype is None:
                if isinstance(sample, TensorList):
                    dtype = sample.handle.dtype
                else:
                    dtype = widened(sample.dtype, items) if strong else functools.reduce(
                        weak_join, [_weak_dtype(i) for i in items])
            # (strong items of another dtype widen: Python numbers and those then)
            weak = WEAK if not strong else MIXED if dtype is not _dtype_of(sample) else False
            element_shape = _item_tensor(sample, dtype, weak).shape
        elif dtype is None:
            _empty_item()
        tensors = [_item_tensor(item, dtype, weak) for item in items]
        handle = _made(list_ops.from_items(tensors, dtype, tuple(element_shape or ())), weak)
        return cls(_holding_views(handle, *items))

    def __copy__(self) -> TensorList:
        return TensorList(self.handle)

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of the items."""
        return cast(dtypes.ListDType, self.handle.dtype).element  # (a list tensor's dtype)

    @property
    def element_shape(self) -> tuple:
        """The shape of the items (None where they differ or are unknown)."""
        return tuple(self.handle.shape)

    @property
    def weak(self) -> bool:
        """Whether the items stand for Python numbers (see the module's docstring), or some do
        and the others were widened to their width (`mixed`)."""
        return bool(self.handle.weak)

    @property
    def mixed(self) -> bool:
        """Whether Python numbers and narrower values widened to their width share the list: its
        items cannot be read one by one (their types differ), only all together (np.array)."""
        return self.handle.weak == MIXED

    def check_items_readable(self) -> None:
        """Raises where the items cannot be read one by one (a `mixed` list), at the user's
        line."""
        if self.mixed:
            raise TypeError(with_origin(
                "This list, built by graph code, holds Python numbers and narrower numpy values "
                f"(float32, int32...), held together as {self.dtype.name} (numpy's array of the "
                "list has that dtype: np.array(lst) works), but its items differ in type one by "
                "one, which a graph list cannot keep apart, so they cannot be read singly "
                "(lst[i], pop, a `for` over it, sum, max). Make them one type (append float(v) "
                "or np.float32(0.5)), or read the items of np.array(lst).", user_origin()))

    # ---- changing the list ----
    def append(self, item) -> None:
        """Adds `item` at the end."""
        self._widen_for(item)
        tensor, weak = self._item(item)
        self.handle = _holding_views(_made(list_ops.push_back(self.handle, tensor), weak),
                                     self.handle, item)

    def pop(self, index=-1):
        """Removes and returns the last item (only the last: `pop()`)."""
        if isinstance(index, Tensor) or index != -1:
            raise NotImplementedError(
                "pop(i) of a list built by graph code takes only the last item (pop()); "
                "index it with lst[i] instead.")
        self.check_items_readable()
        weak, old = self.handle.weak, self.handle
        handle, item = list_ops.pop_back(old)
        self.handle = _holding_views(_made(handle, weak), old)
        return present(_holding_views(_made(item, weak), old))

    def extend(self, items) -> None:
        """Appends each of `items` (a list, tuple or TensorList)."""
        if isinstance(items, TensorList):
            self.handle = _holding_views(
                _made(list_ops.concat_lists(self.handle, items.handle),
                      _joined(self.handle.weak, items.handle.weak)), self.handle, items)
            return
        for item in items:
            self.append(item)

    def __setitem__(self, index, item) -> None:
        self._widen_for(item)
        tensor, weak = self._item(item)
        self.handle = _holding_views(
            _made(list_ops.set_item(self.handle, _index(index), tensor), weak), self.handle, item)

    def __add__(self, other):
        if not isinstance(other, (list, tuple, TensorList)) or isinstance(other, tuple):
            return NotImplemented
        joined = TensorList(self.handle)
        joined.extend(other)
        return joined

    def __radd__(self, other):
        if not isinstance(other, list):
            return NotImplemented
        # (an empty `other` keeps this list's weakness)
        return TensorList.from_items(other, self.dtype, self.element_shape, self.handle.weak) + self

    def __iadd__(self, other):
        self.extend(other)
        return self

    # ---- reading it ----
    def __getitem__(self, index):
        if isinstance(index, slice):
            raise TypeError(
                "slicing a list built by graph code is not supported; stack it first "
                "(rt.stack(lst)[a:b]) or index single items.")
        self.check_items_readable()
        item = _made(list_ops.get_item(self.handle, _index(index)), self.handle.weak)
        return present(_holding_views(item, self.handle))

    def size(self) -> SymbolicTensor:
        """The number of items, a scalar int32 tensor (what `len(lst)` gives in converted
        code)."""
        return list_ops.length(self.handle)

    def stack(self) -> SymbolicTensor:
        """The items stacked into one tensor along a new first axis (what `rt.stack(lst)` of
        a Python list holding them gives: Python numbers float32 or int32)."""
        stacked = list_ops.stack(self.handle)
        if not self.weak or packed_dtype(stacked) is stacked.dtype:
            return stacked
        return cast(SymbolicTensor, convert_to_tensor(_made(stacked, True), packed_dtype(stacked)))

    def as_array(self) -> SymbolicTensor:
        """The items stacked as numpy's `np.array` of a Python list holding them: Python
        numbers float64 or int64 (not weak: a numpy array)."""
        return list_ops.stack(self.handle)

    def numbers(self) -> SymbolicTensor:
        """The items stacked as a 1-D tensor for Python's builtins (`sum`, `max`) to go through:
        weak (Python numbers' stand-ins) when they are."""
        self.check_items_readable()
        return _made(list_ops.stack(self.handle), self.weak)

    def __len__(self):
        raise TypeError(
            "len() of a list built by graph code is a tensor; inside a function that autograph "
            "converts (rt.function), `len(lst)` gives it; elsewhere use lst.size().")

    def __iter__(self):
        raise TypeError(
            "a list built by graph code can be iterated by a `for` loop that autograph converts "
            "(it becomes a graph loop); elsewhere, stack it first: rt.unstack(rt.stack(lst)).")

    def __eq__(self, other):
        raise TypeError(with_origin(
            "comparing a list built by graph code with == or != is not supported (Python "
            "compares the items, a graph would need one answer for every length); compare "
            "stacked tensors instead: rt.reduce_all(rt.stack(a) == rt.stack(b)).", user_origin()))

    __ne__ = __eq__
    __hash__ = None  # type: ignore[assignment]  # (unhashable, as a Python list)

    def __contains__(self, item):
        raise TypeError(with_origin(
            "`in` on a list built by graph code is not supported; use rt.reduce_any("
            "rt.stack(lst) == item).", user_origin()))

    def _unsupported(name):
        def method(self, *args, **kwargs):
            raise TypeError(with_origin(
                f"lst.{name}() is not supported on a list built by graph code (append, pop(), "
                "extend, indexing and item assignment are); stack it into a tensor first.",
                user_origin()))
        method.__name__ = name
        method.__doc__ = "Not supported (a TypeError saying what to do): stack the list first."
        return method

    sort, reverse, insert, remove, index, count, copy, clear = map(
        _unsupported,  # type: ignore[arg-type]  # (a helper run in the class body, not a method)
        ("sort", "reverse", "insert", "remove", "index", "count", "copy", "clear"))
    del _unsupported

    def __bool__(self):
        raise OperatorNotAllowedInGraphError(
            "the truth value of a list built by graph code depends on its length, a tensor; "
            "inside a converted `if`/`while` it becomes a graph condition, elsewhere use "
            "lst.size() > 0.")

    def __repr__(self) -> str:
        return (f"<rt.TensorList of {self.dtype.name} items, shape="
                f"{list(self.element_shape)}, in graph {self.handle.op.graph.name!r}>")

    def _widen_for(self, item) -> None:
        """Widens the items (float32 ones to float64: the list is then MIXED) where `item`, a
        Python float (or its stand-in), joins a list of float32 values: Python keeps the float's
        value, which float32 would round, and numpy's array of the list is float64. Refused on
        a path of a graph `if` or loop for a list from before it: the list's dtype would
        depend on whether the path runs, which a graph cannot hold."""
        if not self.weak and not self.dtype.is_list:
            wide = widened(self.dtype, [_as_item(item)])
            if wide is self.dtype:
                return
            if _from_before_the_construct(self.handle):
                raise TypeError(with_origin(
                    f"This list, built by graph code, holds {self.dtype.name} values; a Python "
                    f"float appended to it on a path of a graph `if` or loop makes numpy's "
                    f"array of it {wide.name} where that path runs and {self.dtype.name} where "
                    "it does not, which a graph cannot hold. Append "
                    f"np.{self.dtype.np_dtype.name}(v) to keep {self.dtype.name}, or build the "
                    "list from Python floats (float(v)).", user_origin()))
            self.handle = _holding_views(_made(list_ops.cast(self.handle, wide), MIXED),
                                         self.handle)

    def _item(self, item) -> tuple:
        """`item` as a tensor this list holds, and the list's weakness then: WEAK while it holds
        Python numbers, MIXED once a narrower tensor's values widen to their width (a list of
        Python floats and float32 values: np.array makes float64, rt.stack float32)."""
        item = _as_item(item)
        tensor = _item_tensor(item, self.dtype, self.weak)
        if isinstance(item, Tensor) and item.dtype is not tensor.dtype and not item.weak:
            return tensor, self.handle.weak and MIXED
        return tensor, self.handle.weak if _is_weak_item(item) else False


def widened(dtype: dtypes.DType, items) -> dtypes.DType:
    """The dtype of a list holding `items` and tensors of `dtype`: float64 where a Python float
    (or its stand-in) meets float32 tensors, as in numpy's array of the list (the list is then
    MIXED: rt.stack of it gives float32, as of the Python list), else `dtype`."""
    if dtype is dtypes.float32 and any(
            isinstance(i, float) or isinstance(i, SymbolicTensor) and i.weak
            and i.dtype.is_floating for i in items):
        return dtypes.float64
    return dtype


def _dtype_of(item) -> dtypes.DType:
    return item.handle.dtype if isinstance(item, TensorList) else item.dtype


def _joined(a, b):
    """The weakness of two lists' items together (see WEAK, MIXED)."""
    return max(a, b) if a and b else False


# List ops that make a new version of the list they take first
_VERSIONS = frozenset({list_ops.LIST_PUSH_BACK, list_ops.LIST_POP_BACK, list_ops.LIST_SET_ITEM,
                       list_ops.LIST_CAST, list_ops.LIST_CONCAT_LISTS})


def _from_before_the_construct(handle: SymbolicTensor) -> bool:
    """Whether the list tensor `handle` is (a version of) a list that entered the graph `if`
    branch or loop body being traced from outside (an input of that graph)."""
    while handle.op.opdef in _VERSIONS:
        handle = handle.op.inputs[0]
    return handle.op.graph is not context.current_graph() or (
        handle.op.opdef is PLACEHOLDER and handle.op.graph.outer is not None)


def _holding_views(tensor: SymbolicTensor, *sources) -> SymbolicTensor:
    """`tensor`, a list (or an array item read from one), noted as holding views of the function
    argument that one of `sources` (items, lists, list tensors) is or holds views of (see
    Graph.note_view): a row or basic slice of a numpy argument is a view of it, so an in-place
    operator on one a list gives back changes the caller's array in plain Python."""
    if tensor.dtype.is_list or tensor.shape:
        for source in sources:
            source = source.handle if isinstance(source, TensorList) else source
            if isinstance(source, SymbolicTensor):
                tensor.op.graph.note_view(source, tensor)
    return tensor


def _made(tensor: SymbolicTensor, weak) -> SymbolicTensor:
    """`tensor`, a list op's output, marked as standing for Python numbers or not."""
    tensor.weak = weak
    return tensor


def _is_weak_item(item) -> bool:
    """Whether `item` stands for a Python number (or is a list of only those)."""
    return item.weak if isinstance(item, TensorList) else is_weak(item)


def _weak_dtype(item) -> dtypes.DType:
    """The dtype of a weak item at Python's width (a Python float, or the stand-in of one, as
    float64; an int as int64: a `range` over int32 bounds counts in int32)."""
    if is_python_scalar(item):
        return weak_dtype(item)
    if isinstance(item, TensorList):
        return item.handle.dtype
    if item.dtype.is_floating and not item.dtype.is_complex:
        return dtypes.float64
    return dtypes.int64 if item.dtype.is_integer else item.dtype


def item_spec(item) -> tuple:
    """(dtype, shape, weak) that a list holding `item` has for its items, without making graph
    ops (a Python list holding graph tensors is a list item; of numbers, a tensor item; a Python
    number is weak, at Python's width)."""
    if isinstance(item, TensorList):
        return item.handle.dtype, item.element_shape, item.weak
    _check_item_type(item)
    if isinstance(item, list) and item and (
            any(_is_list_like(v) for v in item) or all(isinstance(v, SymbolicTensor)
                                                        for v in item)):
        dtype, shape, weak = item_spec(item[-1])
        return dtypes.list_of(dtype), shape, weak and all(map(_is_weak_item, item))
    if isinstance(item, SymbolicTensor):  # (a stand-in of a Python number: Python's width)
        return (_weak_dtype(item) if item.weak else item.dtype), tuple(item.shape), item.weak
    if is_python_scalar(item):
        return weak_dtype(item), (), True
    tensor = convert_to_tensor(item)
    return tensor.dtype, tuple(tensor.shape), False


def _empty_item():
    raise OperatorNotAllowedInGraphError(with_origin(
        "An empty Python list cannot be an item of a list built by graph code: a graph needs "
        "the dtype of the items, which an empty list does not show. Start it with an item, or "
        "use a tensor of known dtype (e.g. rt.zeros([0], rt.int32)).", user_origin()))


def _check_item_type(item):
    if not isinstance(item, (list, Tensor)) and not is_python_scalar(item) and not hasattr(
            item, "dtype"):
        raise TypeError(with_origin(
            f"A list built by graph code holds tensors, numbers or lists of them, not a "
            f"{type(item).__name__}: keep one list per part (e.g. `xs.append(x)`, "
            "`ys.append(y)` instead of `pairs.append((x, y))`), or stack the parts into one "
            "tensor.", user_origin()))


def _as_item(item):
    """An item as a TensorList (a list), a tensor, or a Python number (kept until the list's
    dtype is known); None stays None."""
    if item is None or isinstance(item, (Tensor, TensorList)) or is_python_scalar(item):
        return item
    _check_item_type(item)
    if isinstance(item, list) and not item:
        _empty_item()
    if isinstance(item, list) and any(_is_list_like(v) for v in item):
        return TensorList.from_items(item)
    if isinstance(item, list) and item and all(isinstance(v, SymbolicTensor) for v in item):
        return TensorList.from_items(item)
    return convert_to_tensor(item)


def _is_list_like(value) -> bool:
    return isinstance(value, (list, TensorList))


def _item_tensor(item, dtype, weak_list=False) -> Tensor:
    """`item` as a tensor that a list of `dtype` items can hold (a Python number or weak tensor
    converts if it keeps its value: 0.5 never joins a list of ints; in a list of Python numbers,
    a float32 or int32 tensor widens, as numpy's array of them would)."""
    if isinstance(item, TensorList):
        if item.handle.dtype is dtype:
            return item.handle
    elif is_python_scalar(item):
        if python_scalar_fits(item, dtype):
            return convert_to_tensor(item, dtype)
    elif not dtype.is_list:
        try:
            return convert_to_tensor(item, dtype)
        except TypeError:
            if weak_list and isinstance(item, Tensor) and _widens(item.dtype, dtype):
                return basic_ops.cast(item, dtype)
    got = _weak_dtype(item) if is_python_scalar(item) else _dtype_of(item)
    raise TypeError(with_origin(
        f"A list built by graph code holds items of one dtype: this one holds {dtype.name} "
        f"items and cannot take {a_or_an(got.name)} item. Use rt.cast so that all items have one "
        "dtype.", user_origin()))


def _widens(dtype: dtypes.DType, wide: dtypes.DType) -> bool:
    """Whether a list of Python numbers at width `wide` takes values of `dtype` widened: float32
    into float64, int32 into int64 (rt.stack of the list then gives float32 / int32, as rt.stack
    of the Python list; other widths are an error)."""
    return (dtype, wide) in ((dtypes.float32, dtypes.float64), (dtypes.int32, dtypes.int64))


def _index(index):
    return convert_to_tensor(index) if not isinstance(index, Tensor) else index


def present(tensor):
    """A list tensor as the TensorList that Python code sees; other tensors as they are."""
    return TensorList(tensor) if tensor.dtype.is_list else tensor


register_conversion(TensorList, TensorList.stack)
