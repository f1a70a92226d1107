"""The order of `rt.data.Dataset.shuffle`, once for Python iteration and graph loops.

TensorFlow's buffered shuffle: fill a buffer with the first `buffer_size` elements, then
repeatedly pick a random slot, give its element and put the next input element in its place;
when the input ends, the buffer drains in random order. `buffered_shuffle` is that algorithm
over any iterable (Python iteration streams elements through it); `shuffle_order` is its order
over the positions 0..n-1, and the `ShuffleOrder` op computes it for a graph loop (for several
epochs at once, so a loop over a repeated shuffled dataset is one graph loop). Both draw from
`order_rng(seed, epoch)`, so they give the same order for the same seed and epoch.

The epoch of a reshuffling dataset counts the iterations started over it, in this process:
`take_epochs(key, k)` hands out the next k epoch numbers of the dataset `key`, whether a Python
`for` or a graph asks, so each iteration gets a new order, eagerly and in graphs alike.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import argument_error
from runtime.ops import random_ops
from runtime.ops.registry import GRADIENT, JAX, NUMBA, ONNX, apply, define_op, lacks

_DRAWS = 1024  # uniform numbers drawn at a time (the stream of draws does not depend on it)

_epochs: dict[int, int] = {}
_epochs_lock = threading.Lock()
_keys = itertools.count(1)


def new_key() -> int:
    """A key for the epoch counter of a new shuffled dataset."""
    return next(_keys)


def take_epochs(key: int, count: int = 1) -> int:
    """The first of the next `count` epoch numbers of the dataset `key` (its counter moves on)."""
    with _epochs_lock:
        first = _epochs.get(key, 0)
        _epochs[key] = first + count
    return first


def draw_seed() -> int:
    """A seed for a dataset shuffled without one, from rt.random's process-wide generator (so
    rt.random.set_seed makes it repeat)."""
    return int(random_ops.generator(None).integers(2**63))


def order_rng(seed: int, epoch: int) -> np.random.Generator:
    """The generator of one epoch's order of a dataset shuffled with `seed`."""
    return np.random.default_rng([int(epoch), int(seed) % 2**64])


def buffered_shuffle(items, buffer_size: int, rng: np.random.Generator):
    """Yields the items of the iterable `items` in TensorFlow's buffered-shuffle order."""
    source = iter(items)
    buffer = list(itertools.islice(source, buffer_size))
    more = len(buffer) == buffer_size
    draws: list[float] = []
    used = 0
    while buffer:
        if used == len(draws):
            draws, used = rng.random(_DRAWS).tolist(), 0
        slots = len(buffer)
        slot = int(draws[used] * slots)
        used += 1
        if slot == slots:  # (a draw just below 1, rounded up)
            slot -= 1
        yield buffer[slot]
        if more:
            for item in source:
                buffer[slot] = item
                break
            else:
                more = False
        if not more:
            buffer[slot] = buffer[-1]
            buffer.pop()


def shuffle_order(n: int, buffer_size: int, seed: int, epoch: int) -> np.ndarray:
    """The positions 0..n-1 in the order the buffered shuffle gives them (int32)."""
    return np.fromiter(buffered_shuffle(range(n), buffer_size, order_rng(seed, epoch)),
                       dtype=np.int32, count=n)


def _order_kernel(count, passes, *, buffer_size, seed, reshuffle, key):
    n, passes = int(count), int(passes)
    if n < 0 or passes < 0:
        raise argument_error(
            ValueError, f"a shuffle order needs a count and passes >= 0, got {n} and {passes}"
        )
    if not reshuffle:  # every iteration in the same order: epoch 0's
        return np.tile(shuffle_order(n, buffer_size, seed, 0), passes)
    first = take_epochs(key, passes)
    orders = [shuffle_order(n, buffer_size, seed, first + p) for p in range(passes)]
    return np.concatenate(orders) if orders else np.zeros(0, np.int32)


def _order_infer(inputs, **_):
    for tensor, what in zip(inputs, ("count", "passes")):
        if tensor.shape != () or not tensor.dtype.is_integer:
            raise argument_error(
                TypeError,
                f"ShuffleOrder's {what} must be a scalar integer, got "
                f"{tensor.dtype.name} of shape {tuple(tensor.shape)}",
            )
    return [(dtypes.int32, (None,))]


SHUFFLE_ORDER = define_op("ShuffleOrder", infer=_order_infer, kernel=_order_kernel, stateful=True)
lacks(GRADIENT, "integer positions: nothing to differentiate", SHUFFLE_ORDER)
lacks(ONNX, "ONNX has no op that keeps a per-dataset epoch counter between runs", SHUFFLE_ORDER)
lacks(NUMBA, "a Python loop over a buffer and a process-wide epoch counter", SHUFFLE_ORDER)
lacks(JAX, "a stateful epoch counter kept outside the computation; not lowered to XLA",
      SHUFFLE_ORDER)


def shuffle_positions(count, passes, *, buffer_size: int, seed: int, reshuffle: bool, key: int):
    """The ShuffleOrder op: `passes` epochs' orders of positions 0..count-1, one after another
    (an int32 vector of count * passes). Each run takes the next `passes` epochs of `key`."""
    inputs = [convert_to_tensor(count, dtypes.int32), convert_to_tensor(passes, dtypes.int32)]
    return apply(SHUFFLE_ORDER, inputs, {"buffer_size": int(buffer_size), "seed": int(seed),
                                         "reshuffle": bool(reshuffle), "key": int(key)})
