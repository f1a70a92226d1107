"""A `for` over a Dataset inside `rt.function`: one graph loop over the in-memory tensors.

    @rt.function
    def train_epoch():
        for images, labels in dataset:     # one While op: an epoch is one graph call
            ...

runtime/tracing/autograph_backend.py hands a dataset that a converted `for` iterates while a
graph is built (alone, or zipped / enumerated with tensors) to `loop`, which gives the loop's
count and its item `i`. Each dataset node gives a `Stream`, by random access, as graph ops:

- `count`: its number of elements (a Python int when known, an int32 tensor, None: infinite);
- `element(i, p)`: element `i` of pass `p` (an int32 scalar; pass 0 at the top);
- `gather(ids, p)`: the elements at the int32 vector `ids` stacked along a new dim 0 (`p` a
  scalar, or a vector beside `ids`): one `gather` for slices; for elements a function computes
  (map, batches of batches), an inner graph loop.

Sources gather slices (`from_tensor_slices`), compute (`range`) or hold one element. `shuffle`
computes, before the loop, the order of positions for every pass it is iterated in (the
`ShuffleOrder` op, whose kernel is the order Python iteration uses: runtime/ops/data_ops.py),
and reads it by position. `batch` gathers positions [k*B, min((k+1)*B, n)) of its input (B
of them, statically, when every batch is full). `map` calls its function (converted by
autograph, like any user function) on the element inside the loop body. `take`, `skip`,
`repeat`, `enumerate` and `zip` are index arithmetic; `repeat(k)` iterates its input k passes
(a shuffle in it gets k orders); `prefetch` changes nothing.

Limits (errors at the user's `for` line): `from_generator` (it runs Python per element),
`filter` anywhere but at the end of the pipeline (maps may follow it; the body then runs under
the predicate, and `len`/`enumerate`/`zip` of it are refused: its count is known only by
running it), and a shuffle inside an infinite `repeat()` or over an infinite input.
"""

from __future__ import annotations

import functools

import numpy as np

from runtime.core import context, dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.data import structure
from runtime.data.dataset import (
    BatchDataset,
    Dataset,
    EnumerateDataset,
    FilterDataset,
    GeneratorDataset,
    MapDataset,
    PrefetchDataset,
    RangeDataset,
    RepeatDataset,
    ShuffleDataset,
    SkipDataset,
    TakeDataset,
    TensorDataset,
    TensorSliceDataset,
    ZipDataset,
    call_function,
    predicate_value,
)
from runtime.errors import OperatorNotAllowedInGraphError, with_origin
from runtime.ops import array_ops, creation_ops, data_ops, math_ops
from runtime.tensor_list import TensorList
from runtime.tracing import python_builtins
from runtime.tracing.staged_control_flow import cond, while_loop

INFINITE_COUNT = 2**31 - 1  # the trip count of a loop over an infinite dataset (int32's max)


class Stream:
    """One dataset node, iterated by random access in the graph being built."""

    __slots__ = ("count", "element", "gather")

    def __init__(self, count, element=None, gather=None):
        self.count = count
        self.element = element
        self.gather = gather


def _limit(message: str) -> OperatorNotAllowedInGraphError:
    return OperatorNotAllowedInGraphError(with_origin(message, user_origin()))


# ---- what autograph's backend asks -----------------------------------------------------------


def loop(iterated, body):
    """(count, item(i), body) of a graph `for` over `iterated`: a dataset, or a tuple of
    datasets and tensors iterated in lockstep (zip / enumerate; the shortest ends the loop).
    `body(item, *loop_vars)` is the loop body; the returned one runs it only on the elements a
    final `filter` keeps."""
    parts = iterated if isinstance(iterated, tuple) else (iterated,)
    counts, items, stages = [], [], ()
    for part in parts:
        if isinstance(part, Dataset):
            base, stages = _final_filters(part)
            if stages and len(parts) > 1:
                raise _limit(
                    "zip() or enumerate() of a filtered dataset cannot be one graph loop: which "
                    "element goes with which is known only by running the predicate. Use "
                    "Dataset.zip / dataset.enumerate() before the filter (or keep a counter "
                    "variable in the loop).")
            stream = _stream(base, 1, counting=False)
            counts.append(stream.count)
            items.append(functools.partial(_first_pass, stream))
        else:
            count, item = _tensor_items(part)
            counts.append(count)
            items.append(item)
    count = functools.reduce(_minimum, counts)

    def item(i):
        values = tuple(item_of(i) for item_of in items)
        return values if isinstance(iterated, tuple) else values[0]

    if stages:
        body = functools.partial(_run_stages, stages, body)
    return (INFINITE_COUNT if count is None else count), item, body


def placeholder(dataset):
    """Stand-ins of one element (for autograph's trial run of the loop body)."""
    graph = context.current_graph()
    return structure.map_structure(lambda spec: graph.add_input(spec.dtype, spec.shape),
                                   dataset.element_spec)


def length(dataset):
    """`len(dataset)` in a graph: its count (an int, or an int32 tensor for slices of graph
    tensors whose dim 0 is unknown); TypeError for an infinite or unknown one, as Python's."""
    n = dataset._cardinality()
    if n >= 0:
        return n
    if n == -1:
        raise TypeError(with_origin(
            "The dataset is infinite, so it has no len(). (enumerate() of a dataset inside "
            "rt.function asks for it: use dataset.enumerate() instead.)", user_origin()))
    if _holds(dataset, (FilterDataset, GeneratorDataset)):
        raise TypeError(with_origin(
            "The dataset length is unknown (a filter or a generator decides it), so it has no "
            "len(). (enumerate() of a dataset inside rt.function asks for it: count the "
            "elements in a loop variable instead, or enumerate before filtering: "
            "dataset.enumerate().filter(...).)", user_origin()))
    count = _stream(dataset, 1, counting=True).count  # (slices of graph tensors)
    if count is None:
        raise TypeError(with_origin("The dataset is infinite.", user_origin()))
    return count


def _holds(dataset, kinds) -> bool:
    return isinstance(dataset, kinds) or any(_holds(d, kinds) for d in dataset._inputs)


# ---- the loop's parts ------------------------------------------------------------------------


def _first_pass(stream, i):
    return stream.element(i, 0)


def _final_filters(dataset):
    """(the dataset under the pipeline's final filters and maps, those stages from the inside
    out) when the pipeline ends with filters (and maps), else (dataset, ())."""
    chain, node = [], dataset
    while isinstance(node, (MapDataset, FilterDataset, PrefetchDataset)):
        chain.append(node)
        node = node._input
    filters = [k for k, node in enumerate(chain) if isinstance(node, FilterDataset)]
    if not filters:
        return dataset, ()
    deepest = filters[-1]  # (the maps under it stay random access)
    stages = [(True, node._predicate) if isinstance(node, FilterDataset) else (False, node._fn)
              for node in reversed(chain[:deepest + 1]) if not isinstance(node, PrefetchDataset)]
    return chain[deepest]._input, tuple(stages)


def _run_stages(stages, body, element, *current):
    """The loop body behind the final maps and filters: a filter's false predicate skips the
    element (its loop variables stay as they are)."""
    for k, (is_filter, fn) in enumerate(stages):
        if not is_filter:
            element = call_function(fn, element, converted=True)
            continue
        keep = predicate_value(fn, element, converted=True)
        if not isinstance(keep, SymbolicTensor):
            if not keep:
                return current
            continue
        rest = stages[k + 1:]
        return tuple(cond(keep, lambda e=element, r=rest: _run_stages(r, body, e, *current),
                          lambda: current))
    return tuple(body(element, *current))


def _tensor_items(value):
    """(count, item(i)) of a tensor (dim 0), a staged list or a range, zipped with a dataset."""
    if isinstance(value, TensorList):
        return value.size(), value.__getitem__
    if isinstance(value, SymbolicTensor) and value.op.opdef is creation_ops.RANGE:
        start, limit, delta = value.op.inputs  # (index arithmetic: the range is not made)
        count = value.op.attrs.get("length")
        if count is None:
            count = math_ops.cast(math_ops.maximum((limit - start + delta - math_ops.sign(delta))
                                                   // delta, 0), dtypes.int32)

        def ranged(i):
            number = start + math_ops.cast(i, value.dtype) * delta
            return python_builtins.weak(number) if value.weak else number

        return count, ranged
    tensor = convert_to_tensor(value)
    if not tensor.shape:
        raise TypeError(with_origin("Cannot iterate over a 0-d tensor (a scalar).",
                                    user_origin()))
    count = tensor.shape[0] if tensor.shape[0] is not None else array_ops.shape(tensor)[0]
    return count, lambda i: array_ops.gather(tensor, i)


# ---- counts: a Python int, an int32 tensor, or None (infinite) -------------------------------


def _minimum(a, b):
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return math_ops.minimum(_int32(a), _int32(b))


def _int32(count):
    return convert_to_tensor(count, dtypes.int32) if isinstance(count, int) else count


def _nonnegative(count):
    return max(count, 0) if isinstance(count, int) else math_ops.maximum(count, 0)


def _is_zero(p) -> bool:
    return isinstance(p, int) and p == 0


# ---- streams of the nodes --------------------------------------------------------------------


def _stream(dataset, passes, counting: bool) -> Stream:
    """The stream of `dataset` iterated `passes` times in a row (None: forever); `counting`:
    only its count is wanted (no ops with effects are made)."""
    for cls in type(dataset).__mro__:
        build = _STREAMS.get(cls)
        if build is not None:
            return build(dataset, passes, counting)
    raise _limit(f"{type(dataset).__name__} cannot be iterated by a graph loop.")


def _slices(dataset, passes, counting):
    leaves = structure.flatten(dataset._structure)
    count = dataset._count if dataset._count is not None else array_ops.shape(leaves[0])[0]

    def element(i, p):  # (a vector of positions gathers their slices stacked)
        return structure.pack(dataset._structure, [array_ops.gather(t, i) for t in leaves])

    return Stream(count, element, element)


def _single(dataset, passes, counting):
    def gather(ids, p):
        return structure.map_structure(
            lambda t: array_ops.gather(array_ops.expand_dims(t, 0), ids), dataset._structure)

    return Stream(1, lambda i, p: dataset._structure, gather)


def _range(dataset, passes, counting):
    numbers, kind = dataset._range, dataset._dtype

    def element(i, p):
        return math_ops.cast(i, kind) * numbers.step + numbers.start

    return Stream(len(numbers), element, element)


def _map(dataset, passes, counting):
    up = _stream(dataset._input, passes, counting)

    def element(i, p):
        return call_function(dataset._fn, up.element(i, p), converted=True)

    return Stream(up.count, element,
                  lambda ids, p: _stacked(element, ids, p, dataset.element_spec))


def _filter(dataset, passes, counting):
    raise _limit(
        "Dataset.filter can end the pipeline of a graph loop (maps may follow it), not come "
        "before other transformations (here its elements are batched, shuffled, counted, "
        "repeated, zipped or enumerated): which elements it keeps is known only by running the "
        "predicate. Filter the tensors before making the dataset (e.g. with rt.boolean_mask), "
        "move the filter to the end, or iterate the dataset in Python outside rt.function.")


def _generator(dataset, passes, counting):
    raise _limit(
        "Dataset.from_generator runs a Python generator for each element, so it cannot be "
        "iterated by a graph loop inside rt.function. Iterate it in Python (outside "
        "rt.function, calling a decorated step per element), or make the dataset from tensors "
        "(Dataset.from_tensor_slices).")


def _shuffle(dataset, passes, counting):
    up = _stream(dataset._input, passes, counting)
    n = up.count
    if counting:
        return Stream(n)
    if n is None or passes is None:
        raise _limit(
            "A shuffled dataset inside repeat() without a count, or over an infinite input, "
            "cannot be one graph loop (its orders are computed before the loop). Give repeat "
            "a count (repeat(epochs)), or loop over epochs around the loop over the dataset.")
    order = data_ops.shuffle_positions(n, passes, buffer_size=dataset._buffer_size,
                                       seed=dataset._seed, reshuffle=dataset._reshuffle,
                                       key=dataset._key)

    def positions(i, p):
        return array_ops.gather(order, i if _is_zero(p) else p * n + i)

    return Stream(n, lambda i, p: up.element(positions(i, p), p),
                  lambda ids, p: up.gather(positions(ids, p), p))


def _batch(dataset, passes, counting):
    up = _stream(dataset._input, passes, counting)
    n, size = up.count, dataset._batch_size
    if n is None:
        count = None
    elif dataset._drop_remainder:
        count = n // size
    else:
        count = (n + size - 1) // size
    full = n is None or dataset._drop_remainder or (isinstance(n, int) and n % size == 0)
    offsets = convert_to_tensor(np.arange(size, dtype=np.int32))

    def positions(k):
        if full:  # B positions: the batch's dim 0 is known
            return k * size + offsets
        return creation_ops.range(k * size, math_ops.minimum(k * size + size, n),
                                  dtype=dtypes.int32)

    def element(k, p):
        return up.gather(positions(k), p)

    return Stream(count, element,
                  lambda ids, p: _stacked(element, ids, p, dataset.element_spec))


def _take(dataset, passes, counting):
    up = _stream(dataset._input, passes, counting)
    count = up.count if dataset._count == -1 else _minimum(up.count, dataset._count)
    return Stream(count, up.element, up.gather)


def _skip(dataset, passes, counting):
    up = _stream(dataset._input, passes, counting)
    k = dataset._count
    if k == -1:
        return Stream(0, up.element, up.gather)
    count = None if up.count is None else _nonnegative(up.count - k)
    return Stream(count, lambda i, p: up.element(i + k, p),
                  lambda ids, p: up.gather(ids + k, p))


def _repeat(dataset, passes, counting):
    k = dataset._count
    up = _stream(dataset._input, None if k is None or passes is None else passes * k, counting)
    n = up.count
    if n is None:  # an infinite input: its first pass never ends
        return up
    if k is None:
        count = 0 if isinstance(n, int) and n == 0 else None
    else:
        count = n * k

    def inner(i, p):  # (position in the input, the input's pass)
        turn = i // n
        return i % n, (turn if _is_zero(p) or k is None else p * k + turn)

    return Stream(count, lambda i, p: up.element(*inner(i, p)),
                  lambda ids, p: up.gather(*inner(ids, p)))


def _zip(dataset, passes, counting):
    streams = [_stream(d, passes, counting) for d in dataset._inputs]
    count = functools.reduce(_minimum, [s.count for s in streams])

    def element(i, p):
        return structure.pack(dataset._datasets, [s.element(i, p) for s in streams])

    def gather(ids, p):
        return structure.pack(dataset._datasets, [s.gather(ids, p) for s in streams])

    return Stream(count, element, gather)


def _enumerate(dataset, passes, counting):
    up = _stream(dataset._input, passes, counting)
    start = dataset._start

    def element(i, p):
        return (math_ops.cast(i, dtypes.int64) + start, up.element(i, p))

    def gather(ids, p):
        return (math_ops.cast(ids, dtypes.int64) + start, up.gather(ids, p))

    return Stream(up.count, element, gather)


def _prefetch(dataset, passes, counting):
    return _stream(dataset._input, passes, counting)


def _stacked(element, ids, p, spec):
    """The elements at `ids` stacked along a new dim 0, by an inner graph loop (elements that a
    function computes one at a time: map's, or batches of batches)."""
    leaves = structure.flatten(spec)
    count = array_ops.shape(ids)[0]
    per_id = isinstance(p, Tensor) and len(p.shape) == 1

    def body(j, *lists):
        item = element(array_ops.gather(ids, j), array_ops.gather(p, j) if per_id else p)
        grown = []
        for items, value in zip(lists, structure.flatten(item)):
            items = TensorList(items.handle)
            items.append(value)
            grown.append(items)
        return (j + 1, *grown)

    start = (convert_to_tensor(0, dtypes.int32),
             *[TensorList.from_items([], s.dtype, s.shape) for s in leaves])
    _, *lists = while_loop(lambda j, *_: math_ops.less(j, count), body, start)
    return structure.pack(spec, [items.stack() for items in lists])


_STREAMS = {
    TensorSliceDataset: _slices,
    TensorDataset: _single,
    RangeDataset: _range,
    GeneratorDataset: _generator,
    MapDataset: _map,
    FilterDataset: _filter,
    ShuffleDataset: _shuffle,
    BatchDataset: _batch,
    TakeDataset: _take,
    SkipDataset: _skip,
    RepeatDataset: _repeat,
    ZipDataset: _zip,
    EnumerateDataset: _enumerate,
    PrefetchDataset: _prefetch,
}
