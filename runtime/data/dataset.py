"""`rt.data.Dataset`: tf.data's input pipelines over in-memory tensors, iterated in Python.

    dataset = rt.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000).batch(32)
    for images, labels in dataset:          # eager tensors, structures as given
        ...

A dataset is a chain of nodes (a source, then transformations); iterating it in Python streams
elements through the chain as tf.data does (map and filter run their functions eagerly, shuffle
keeps a buffer, prefetch fills a queue from a background thread). Inside `rt.function`, a `for`
over a dataset is one graph loop instead (runtime/data/graph_iteration.py). Elements are
structures (tuples, namedtuples, dicts) of tensors; a list given to a source is one tensor.

Cardinality follows tf.data: a count, `INFINITE_CARDINALITY` (-1) or `UNKNOWN_CARDINALITY`
(-2, after filter or from a generator).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

import autograph
from runtime.core import context, dtypes
from runtime.core.graph import Graph
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.data import structure
from runtime.data.prefetch import prefetched
from runtime.errors import InvalidArgumentError, OperatorNotAllowedInGraphError, with_origin
from runtime.ops import data_ops
from runtime.tracing.signature import TensorSpec

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
AUTOTUNE = -1
_AUTOTUNE_BUFFER = 4  # elements prefetched for AUTOTUNE


def _located(error_type, message):
    return error_type(with_origin(message, user_origin()))


def _integer(value, what: str, low: int, allow_none: bool = False):
    """`value` (a Python/numpy int or an eager integer scalar) as an int >= `low`."""
    if value is None and allow_none:
        return None
    if isinstance(value, EagerTensor) and value.dtype.is_integer and value.shape == ():
        value = value.numpy()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _located(TypeError, f"{what} must be an integer, got {type(value).__name__} "
                                  f"{value!r}.")
    if value < low:
        raise _located(ValueError, f"{what} must be >= {low}, got {value}.")
    return int(value)


def _callable(fn, what: str):
    if not callable(fn):
        raise _located(TypeError, f"{what} must be callable, got {type(fn).__name__} {fn!r}.")
    return fn


def _to_tensor(value, what: str) -> Tensor:
    if value is None:
        raise _located(TypeError, f"{what} is None; a dataset holds tensors (or values that "
                                  "convert to them).")
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "read_value") and hasattr(value, "assign"):  # an rt.Variable
        return value.read_value()
    return convert_to_tensor(value)


def call_function(fn, element, converted: bool):
    """`fn` on one element, as tf.data calls it: a tuple is unpacked into arguments, anything
    else (a tensor, a dict, a namedtuple) is one argument; the result's leaves become tensors.
    `converted`: through autograph (in a graph), else as plain Python (eagerly)."""
    args = element if type(element) is tuple else (element,)
    out = autograph.converted_call(fn, *args) if converted else fn(*args)
    if isinstance(out, list):  # as tf.data: a list is one tensor
        out = convert_to_tensor(out)
    return structure.map_structure(
        lambda leaf: _to_tensor(leaf, f"A value returned by {_name(fn)}"), out)


def _name(fn) -> str:
    return f"the function {getattr(fn, '__name__', type(fn).__name__)!r}"


def spec_of(tensor) -> TensorSpec:
    return TensorSpec(tensor.shape, tensor.dtype)


def _in_graph() -> bool:
    return context.current_graph() is not None


class _ZipMethod:
    """`Dataset.zip(a, b)` (tf.data's static method) and `a.zip(b)` alike."""

    def __get__(self, obj, cls):
        return _zip if obj is None else functools.partial(_zip, obj)


def _zip(*datasets):
    """Dataset.zip(a, b, ...) or Dataset.zip((a, b)) / Dataset.zip({'x': a, 'y': b}): elements
    are the structure of the datasets' elements, until the shortest ends."""
    if len(datasets) == 1 and structure.is_structure(datasets[0]):
        datasets = datasets[0]
    if not datasets:
        raise _located(ValueError, "Dataset.zip needs at least one dataset.")
    for leaf in structure.flatten(datasets):
        if not isinstance(leaf, Dataset):
            raise _located(TypeError, "Dataset.zip takes datasets (or a tuple / dict of them), "
                                      f"got {type(leaf).__name__}.")
    return ZipDataset(datasets)


class Dataset:
    """A sequence of elements (structures of tensors), built from a source by transformations.
    Iterating it gives eager tensors; inside `rt.function` a `for` over it is a graph loop."""

    _inputs: tuple = ()

    # ---- sources ---------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors):
        """Elements are the slices of `tensors` along dim 0 (a tensor or array, or a tuple /
        dict of them, whose dims 0 agree)."""
        return TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors):
        """One element: `tensors`."""
        return TensorDataset(tensors)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None):
        """Elements are what `generator(*args)` yields, converted to `output_signature` (a
        TensorSpec, or a tuple / dict of them). Python iteration only: a graph loop cannot run
        the generator."""
        return GeneratorDataset(generator, output_signature, output_types, output_shapes, args)

    @staticmethod
    def range(*args, output_type=dtypes.int64, dtype=None):
        """Elements are `range(*args)` as scalar int64 tensors (or `output_type`)."""
        return RangeDataset(args, dtype if dtype is not None else output_type)

    zip = _ZipMethod()

    # ---- transformations -------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Elements are `map_func(*element)` (a tuple is unpacked; anything else is one
        argument). `num_parallel_calls` and `deterministic` are accepted, and run serially."""
        return MapDataset(self, _callable(map_func, "map_func"))

    def filter(self, predicate, name=None):
        """The elements for which `predicate(*element)` is true (a scalar bool)."""
        return FilterDataset(self, _callable(predicate, "predicate"))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """TensorFlow's buffered shuffle (a random pick from a buffer of `buffer_size`
        elements, refilled from the input). Each iteration takes a new order unless
        `reshuffle_each_iteration=False`. Without a seed, the order's seed is drawn from
        rt.random's generator when the dataset is made (rt.random.set_seed repeats it)."""
        return ShuffleDataset(self, _integer(buffer_size, "shuffle's buffer_size", 1), seed,
                              bool(reshuffle_each_iteration))

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Elements are `batch_size` consecutive elements stacked along a new dim 0; the last
        batch is smaller unless `drop_remainder`."""
        return BatchDataset(self, _integer(batch_size, "batch_size", 1), bool(drop_remainder))

    def take(self, count, name=None):
        """The first `count` elements (all of them for -1)."""
        return TakeDataset(self, _integer(count, "take's count", -1))

    def skip(self, count, name=None):
        """All but the first `count` elements (none for -1)."""
        return SkipDataset(self, _integer(count, "skip's count", -1))

    def repeat(self, count=None, name=None):
        """The elements `count` times (forever for None or -1); each pass is a new iteration of
        the input (a shuffle in it reshuffles)."""
        count = _integer(count, "repeat's count", -1, allow_none=True)
        return RepeatDataset(self, None if count == -1 else count)

    def enumerate(self, start=0, name=None):
        """Elements are `(index, element)`, the index an int64 scalar from `start`."""
        return EnumerateDataset(self, _integer(start, "enumerate's start", -2**63))

    def prefetch(self, buffer_size, name=None):
        """Python iteration prepares up to `buffer_size` elements ahead in a background thread
        (`rt.data.AUTOTUNE`: a few); in a graph loop it changes nothing."""
        buffer_size = _integer(buffer_size, "prefetch's buffer_size", -1)
        return PrefetchDataset(self, _AUTOTUNE_BUFFER if buffer_size == AUTOTUNE else buffer_size)

    def apply(self, transformation_func):
        """`transformation_func(self)`, which returns a dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise _located(TypeError, "apply's transformation_func must return a Dataset, got "
                                      f"{type(result).__name__}.")
        return result

    # ---- what it holds ---------------------------------------------------------------------
    @property
    def element_spec(self):
        """The structure of TensorSpecs (dtype, shape) of an element."""
        spec = self.__dict__.get("_element_spec")
        if spec is None:
            spec = self.__dict__["_element_spec"] = self._spec()
        return spec

    def cardinality(self):
        """The number of elements as an int64 scalar tensor; -1 (INFINITE_CARDINALITY) for an
        infinite dataset, -2 (UNKNOWN_CARDINALITY) when it is known only by iterating."""
        return EagerTensor(np.int64(self._cardinality()), dtypes.int64)

    def __len__(self):
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __iter__(self):
        if _in_graph():
            raise _located(OperatorNotAllowedInGraphError, (
                "A Dataset is iterated here by Python (iter(), next(), list() or a loop that "
                "autograph does not convert) while a graph is built. Inside rt.function, "
                "iterate it with a `for` statement that autograph converts: it becomes one "
                "graph loop."))
        return self._elements()

    def as_numpy_iterator(self):
        """Iterates the elements as numpy values (same structures)."""
        for element in iter(self):
            yield structure.map_structure(lambda t: t.numpy(), element)

    def __repr__(self) -> str:
        try:
            spec = self.element_spec
        except Exception:  # noqa: BLE001 - a map function that does not trace: still printable
            spec = "?"
        return f"<{type(self).__name__} element_spec={spec}>"

    def __bool__(self):
        return True

    # ---- what each node defines ----------------------------------------------------------
    def _elements(self):
        """Generator of the elements (structures of eager tensors)."""
        raise NotImplementedError

    def _slice_source(self):
        """The TensorSliceDataset whose slices are this dataset's elements (in the order of
        `_positions()`), or None. (Python iteration then indexes arrays: a batch is one
        gather per component.)"""
        return None

    def _positions(self):
        """Iterator of the positions in `_slice_source()` of the elements (an iteration)."""
        raise NotImplementedError

    def _cardinality(self) -> int:
        raise NotImplementedError

    def _spec(self):
        raise NotImplementedError


# ---- sources ---------------------------------------------------------------------------------


def _eager_values(tensors, what):
    """The numpy values of eager `tensors`; a graph tensor (a dataset made while tracing,
    iterated by Python) is an error."""
    for t in tensors:
        if isinstance(t, SymbolicTensor):
            raise _located(OperatorNotAllowedInGraphError, (
                f"{what} holds graph tensors (it was made while a function was traced); "
                "iterate it in that function with a `for` that autograph converts, or make "
                "it from eager tensors or arrays."))
    return [t.numpy() for t in tensors]


class TensorSliceDataset(Dataset):
    def __init__(self, tensors):
        if isinstance(tensors, list):
            tensors = convert_to_tensor(tensors)
        self._structure = structure.map_structure(
            lambda leaf: _to_tensor(leaf, "A component given to from_tensor_slices"), tensors)
        leaves = structure.flatten(self._structure)
        if not leaves:
            raise _located(ValueError, "from_tensor_slices needs at least one tensor.")
        for leaf in leaves:
            if not leaf.shape:
                raise _located(ValueError, (
                    "from_tensor_slices slices along dim 0: a component is a scalar (shape ()); "
                    "use Dataset.from_tensors for a single element."))
        sizes = [leaf.shape[0] for leaf in leaves]
        if len(set(sizes) - {None}) > 1:
            raise _located(ValueError, (
                f"from_tensor_slices: the components' dims 0 differ ({sizes}); each component "
                "must have one slice per element."))
        self._count = None if None in sizes else sizes[0]

    def _cardinality(self):
        return UNKNOWN_CARDINALITY if self._count is None else self._count

    def _spec(self):
        return structure.map_structure(lambda t: TensorSpec(t.shape[1:], t.dtype), self._structure)

    def _elements(self):
        return self.slices_at(self._positions())

    def _slice_source(self):
        return self

    def _positions(self):
        leaves = structure.flatten(self._structure)
        return iter(range(len(_eager_values(leaves[:1], "This dataset")[0])))

    def slices_at(self, positions):
        """Generator of the elements at `positions`."""
        leaves = structure.flatten(self._structure)
        arrays = _eager_values(leaves, "This dataset")
        kinds = [t.dtype for t in leaves]
        for i in positions:
            yield structure.pack(self._structure, [EagerTensor(normalize(a[i]), k)
                                                   for a, k in zip(arrays, kinds)])

    def gather(self, positions: np.ndarray):
        """The elements at `positions` stacked (one batch)."""
        leaves = structure.flatten(self._structure)
        arrays = _eager_values(leaves, "This dataset")
        return structure.pack(self._structure, [EagerTensor(a[positions], t.dtype)
                                                for a, t in zip(arrays, leaves)])


class TensorDataset(Dataset):
    def __init__(self, tensors):
        if isinstance(tensors, list):
            tensors = convert_to_tensor(tensors)
        self._structure = structure.map_structure(
            lambda leaf: _to_tensor(leaf, "A component given to from_tensors"), tensors)

    def _cardinality(self):
        return 1

    def _spec(self):
        return structure.map_structure(spec_of, self._structure)

    def _elements(self):
        _eager_values(structure.flatten(self._structure), "This dataset")
        yield self._structure


class RangeDataset(Dataset):
    def __init__(self, args, dtype):
        if not 1 <= len(args) <= 3:
            raise _located(TypeError, f"Dataset.range takes 1 to 3 arguments, got {len(args)}.")
        values = [_integer(a, "Dataset.range's argument", -2**63) for a in args]
        if len(values) == 3 and values[2] == 0:
            raise _located(ValueError, "Dataset.range's step must not be zero.")
        self._range = range(*values)
        self._dtype = dtypes.as_dtype(dtype)
        if not (self._dtype.is_integer or self._dtype.is_floating):
            raise _located(TypeError, f"Dataset.range's output_type must be numeric, got "
                                      f"{self._dtype.name}.")

    def _cardinality(self):
        return len(self._range)

    def _spec(self):
        return TensorSpec((), self._dtype)

    def _elements(self):
        kind = self._dtype.np_dtype.type
        for value in self._range:
            yield EagerTensor(kind(value), self._dtype)


class GeneratorDataset(Dataset):
    def __init__(self, generator, signature, output_types, output_shapes, args):
        self._generator = _callable(generator, "from_generator's generator")
        if signature is None:
            raise _located(TypeError, (
                "from_generator needs output_signature (a TensorSpec, or a tuple / dict of "
                "them), e.g. output_signature=(rt.TensorSpec(shape=(None,), dtype=rt.float32), "
                "rt.TensorSpec(shape=(), dtype=rt.int64)); output_types / output_shapes are "
                "not supported." if output_types is None and output_shapes is None else
                "from_generator takes output_signature instead of output_types / "
                "output_shapes (deprecated in tf.data), e.g. "
                "output_signature=rt.TensorSpec(shape=(None,), dtype=rt.float32)."))
        for leaf in structure.flatten(signature):
            if not isinstance(leaf, TensorSpec):
                raise _located(TypeError, "from_generator's output_signature must be a "
                                          "TensorSpec, or a tuple / dict of them; got "
                                          f"{type(leaf).__name__}.")
        self._signature = signature
        self._args = tuple(args or ())

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _spec(self):
        return self._signature

    def _elements(self):
        signature = self._signature
        for value in self._generator(*self._args):
            if isinstance(signature, tuple) and isinstance(value, list):
                value = tuple(value)
            if not structure.same_structure(signature, value):
                raise _located(TypeError, (
                    "from_generator: the generator yielded an element that does not match "
                    f"output_signature's structure {structure.describe(signature)}: "
                    f"{_short(value)}."))
            yield structure.pack(signature, [
                _converted(leaf, spec)
                for leaf, spec in zip(structure.flatten(value), structure.flatten(signature))])


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 80 else text[:77] + "..."


def _converted(value, spec: TensorSpec) -> Tensor:
    if isinstance(value, Tensor):
        value = value.numpy()
    try:
        if spec.dtype.is_string:
            tensor = convert_to_tensor(value, spec.dtype)
        else:
            tensor = EagerTensor(normalize(np.asarray(value, dtype=spec.dtype.np_dtype)),
                                 spec.dtype)
    except (TypeError, ValueError) as e:
        raise _located(TypeError, f"from_generator: the generator yielded {_short(value)}, "
                                  f"which does not convert to {spec.dtype.name}: {e}") from None
    if not spec.shape.is_compatible_with(tensor.shape):
        raise _located(InvalidArgumentError, (
            f"from_generator: the generator yielded an element of shape "
            f"{tuple(tensor.shape)} where an element of shape {tuple(spec.shape)} was "
            "expected."))
    return tensor


# ---- transformations -------------------------------------------------------------------------


class _Unary(Dataset):
    def __init__(self, input_dataset):
        self._input = input_dataset
        self._inputs = (input_dataset,)

    def _cardinality(self):
        return self._input._cardinality()

    def _spec(self):
        return self._input.element_spec


class _Reordering(_Unary):
    """A node whose elements are elements of its input (shuffle, take, skip, repeat): over
    slices of arrays, it iterates positions."""

    def _slice_source(self):
        return self._input._slice_source()

    def _elements(self):
        source = self._slice_source()
        if source is not None:
            return source.slices_at(self._positions())
        return self._reorder(self._input._elements)

    def _positions(self):
        return self._reorder(self._input._positions)

    def _reorder(self, items):
        """Generator of this node's items, from `items()` (a new iteration of the input's
        elements or positions at each call)."""
        raise NotImplementedError


class MapDataset(_Unary):
    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = fn

    def _spec(self):
        """What the function returns, traced once on stand-ins of an input element."""
        spec = self._input.element_spec
        graph = Graph("dataset_map", outer=context.current_graph(), scratch=True)
        with context.tapes_paused(), graph.as_default():
            element = structure.map_structure(lambda s: graph.add_input(s.dtype, s.shape), spec)
            out = call_function(self._fn, element, converted=True)
        return structure.map_structure(spec_of, out)

    def _elements(self):
        for element in self._input._elements():
            yield call_function(self._fn, element, converted=False)


def predicate_value(predicate, element, converted: bool):
    """The predicate of `filter` on one element: a scalar bool (tensor or Python bool)."""
    args = element if type(element) is tuple else (element,)
    keep = autograph.converted_call(predicate, *args) if converted else predicate(*args)
    if isinstance(keep, (bool, np.bool_)):
        return keep
    if not isinstance(keep, Tensor) or not keep.dtype.is_bool or keep.shape not in ((), None):
        shown = (f"{keep.dtype.name} tensor of shape {tuple(keep.shape)}"
                 if isinstance(keep, Tensor) else type(keep).__name__)
        raise _located(TypeError, f"filter's predicate {_name(predicate)} must return a scalar "
                                  f"bool tensor, got {shown}.")
    return keep


class FilterDataset(_Unary):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._predicate = predicate

    def _cardinality(self):
        return 0 if self._input._cardinality() == 0 else UNKNOWN_CARDINALITY

    def _elements(self):
        for element in self._input._elements():
            if bool(predicate_value(self._predicate, element, converted=False)):
                yield element


class ShuffleDataset(_Reordering):
    def __init__(self, input_dataset, buffer_size, seed, reshuffle):
        super().__init__(input_dataset)
        self._buffer_size = buffer_size
        if seed is None:  # drawn now: rt.random.set_seed makes it repeatable
            seed = data_ops.draw_seed()
        elif isinstance(seed, EagerTensor):
            seed = int(seed)
        elif not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
            raise _located(TypeError, f"shuffle's seed must be an integer or None, got "
                                      f"{type(seed).__name__}.")
        self._seed = int(seed)
        self._reshuffle = reshuffle
        self._key = data_ops.new_key()

    def epochs(self, count: int) -> int:
        """The first of the next `count` epochs (orders) of this dataset."""
        return data_ops.take_epochs(self._key, count) if self._reshuffle else 0

    def _reorder(self, items):
        epoch = self.epochs(1)
        yield from data_ops.buffered_shuffle(items(), self._buffer_size,
                                             data_ops.order_rng(self._seed, epoch))


def _stack(values, kind, component: int):
    first = np.shape(values[0])
    for i, value in enumerate(values[1:], 1):
        if np.shape(value) != first:
            raise _located(InvalidArgumentError, (
                f"Cannot batch tensors with different shapes in component {component}: the "
                f"first element has shape {list(first)} and element {i} has shape "
                f"{list(np.shape(value))}."))
    if kind.is_string:
        out = np.empty((len(values), *first), dtype=object)
        out[...] = values if not first else np.array(values, dtype=object)
        return EagerTensor(out, kind)
    return EagerTensor(np.stack(values), kind)


class BatchDataset(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        self._batch_size = batch_size
        self._drop_remainder = drop_remainder

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop_remainder else -(-n // self._batch_size)

    def _spec(self):
        size = self._batch_size if self._drop_remainder else None
        return structure.map_structure(lambda s: TensorSpec((size, *s.shape), s.dtype),
                                       self._input.element_spec)

    def _elements(self):
        slices = self._input._slice_source()
        if slices is not None:  # one gather per batch
            positions = self._input._positions()
            while True:
                group = np.fromiter(itertools.islice(positions, self._batch_size), np.intp)
                if not len(group) or (self._drop_remainder and len(group) < self._batch_size):
                    return
                yield slices.gather(group)
        source = self._input._elements()
        while True:
            group = list(itertools.islice(source, self._batch_size))
            if not group or (self._drop_remainder and len(group) < self._batch_size):
                return
            like = group[0]
            columns = zip(*(structure.flatten(e) for e in group))
            yield structure.pack(like, [
                _stack([t.numpy() for t in column], column[0].dtype, k)
                for k, column in enumerate(columns)])


class TakeDataset(_Reordering):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count == -1:
            return n
        if n == INFINITE_CARDINALITY:
            return self._count
        return UNKNOWN_CARDINALITY if n == UNKNOWN_CARDINALITY else min(n, self._count)

    def _reorder(self, items):
        return items() if self._count == -1 else itertools.islice(items(), self._count)


class SkipDataset(_Reordering):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count == -1:
            return 0 if n != UNKNOWN_CARDINALITY else n
        return n if n < 0 else max(n - self._count, 0)

    def _reorder(self, items):
        if self._count == -1:
            return iter(())
        return itertools.islice(items(), self._count, None)


class RepeatDataset(_Reordering):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count  # None: forever

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._count is None:
            return 0 if n == 0 else INFINITE_CARDINALITY
        return n * self._count

    def _reorder(self, items):
        passes = itertools.count() if self._count is None else range(self._count)
        for _ in passes:
            empty = True
            for element in items():
                empty = False
                yield element
            if empty:
                return


class EnumerateDataset(_Unary):
    def __init__(self, input_dataset, start):
        super().__init__(input_dataset)
        self._start = start

    def _spec(self):
        return (TensorSpec((), dtypes.int64), self._input.element_spec)

    def _elements(self):
        for i, element in enumerate(self._input._elements(), self._start):
            yield (EagerTensor(np.int64(i), dtypes.int64), element)


class PrefetchDataset(_Unary):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        self._buffer_size = buffer_size

    def _elements(self):
        if self._buffer_size == 0:
            return self._input._elements()
        return prefetched(self._input._elements, self._buffer_size)


class ZipDataset(Dataset):
    def __init__(self, datasets):
        self._datasets = datasets
        self._inputs = tuple(structure.flatten(datasets))

    def _cardinality(self):
        counts = [d._cardinality() for d in self._inputs]
        if UNKNOWN_CARDINALITY in counts:
            return UNKNOWN_CARDINALITY
        finite = [n for n in counts if n >= 0]
        return min(finite) if finite else INFINITE_CARDINALITY

    def _spec(self):
        return structure.pack(self._datasets, [d.element_spec for d in self._inputs])

    def _elements(self):
        for elements in zip(*(d._elements() for d in self._inputs)):
            yield structure.pack(self._datasets, elements)


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset"]
