"""Shape manipulation, indexing and gathering: reshape, transpose, concat, stack, slicing, ..."""

from __future__ import annotations

import builtins

import numpy as np

from runtime import dtypes
from runtime.conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError
from runtime.ops import shapes
from runtime.ops.registry import ELEMENTWISE, apply, define_op
from runtime.tensor import SymbolicTensor, Tensor, normalize


def _static_ints(value, what: str) -> tuple:
    """A tuple of Python ints from a list/tuple/eager tensor; symbolic values are an error."""
    if isinstance(value, SymbolicTensor):
        raise TypeError(
            f"{what} must be known while tracing (Python ints or a constant), got the symbolic "
            f"tensor {value.name}."
        )
    if isinstance(value, Tensor):
        value = value.numpy()
    return tuple(int(v) for v in np.atleast_1d(np.asarray(value)).ravel()) if np.ndim(value) else (
        (int(value),)
    )


# ---- reshape / transpose / expand / squeeze ------------------------------------------------

def _reshape_infer(inputs, *, shape):
    x = inputs[0]
    known = shapes.num_elements(x.shape)
    if shape.count(-1) > 1:
        raise InvalidArgumentError(f"reshape: at most one -1 in the shape, got {list(shape)}")
    if -1 in shape:
        rest = shapes.num_elements([d for d in shape if d != -1])
        if known is None:
            return [(x.dtype, tuple(None if d == -1 else d for d in shape))]
        if rest == 0 or known % rest:
            raise InvalidArgumentError(f"reshape: cannot reshape {list(x.shape)} into {list(shape)}")
        return [(x.dtype, tuple(known // rest if d == -1 else d for d in shape))]
    if known is not None and known != shapes.num_elements(shape):
        raise InvalidArgumentError(f"reshape: cannot reshape {list(x.shape)} into {list(shape)}")
    return [(x.dtype, tuple(shape))]


RESHAPE = define_op(
    "Reshape", infer=_reshape_infer, kernel=lambda x, *, shape: normalize(np.reshape(x, shape))
)


def reshape(tensor, shape):
    tensor = convert_to_tensor(tensor)
    return apply(RESHAPE, [tensor], {"shape": _static_ints(shape, "reshape's shape")})


def _transpose_infer(inputs, *, perm):
    x = inputs[0]
    if sorted(perm) != list(range(len(x.shape))):
        raise InvalidArgumentError(f"transpose: perm {list(perm)} does not fit rank {len(x.shape)}")
    return [(x.dtype, tuple(x.shape[p] for p in perm))]


TRANSPOSE = define_op(
    "Transpose", infer=_transpose_infer, kernel=lambda x, *, perm: np.transpose(x, perm)
)


def transpose(a, perm=None):
    a = convert_to_tensor(a)
    perm = tuple(reversed(range(len(a.shape)))) if perm is None else _static_ints(perm, "perm")
    return apply(TRANSPOSE, [a], {"perm": perm})


def _expand_infer(inputs, *, axis):
    x = inputs[0]
    rank = len(x.shape) + 1
    a = shapes.normalize_axis(axis, rank, "expand_dims")
    return [(x.dtype, x.shape[:a] + (1,) + x.shape[a:])]


EXPAND_DIMS = define_op(
    "ExpandDims", infer=_expand_infer, kernel=lambda x, *, axis: np.expand_dims(x, axis)
)


def expand_dims(input, axis):  # noqa: A002 - TensorFlow's name
    return apply(EXPAND_DIMS, [convert_to_tensor(input)], {"axis": int(axis)})


def _squeeze_infer(inputs, *, axis):
    x = inputs[0]
    if axis is None:
        if any(d is None for d in x.shape):
            raise InvalidArgumentError("squeeze: name the axes when some dims are unknown")
        return [(x.dtype, tuple(d for d in x.shape if d != 1))]
    axes = {shapes.normalize_axis(a, len(x.shape), "squeeze") for a in axis}
    for a in axes:
        if x.shape[a] not in (1, None):
            raise InvalidArgumentError(f"squeeze: dimension {a} has size {x.shape[a]}, not 1")
    return [(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))]


SQUEEZE = define_op(
    "Squeeze", infer=_squeeze_infer, kernel=lambda x, *, axis: normalize(np.squeeze(x, axis))
)


def squeeze(input, axis=None):  # noqa: A002 - TensorFlow's name
    axis = None if axis is None else _static_ints(axis, "squeeze's axis")
    return apply(SQUEEZE, [convert_to_tensor(input)], {"axis": axis})


# ---- joining and splitting ------------------------------------------------------------------

def _same_dtype(tensors, what):
    tensors = [convert_to_tensor(t) for t in tensors]
    if not tensors:
        raise ValueError(f"{what} needs at least one tensor.")
    first = tensors[0].dtype
    weak = [t for t in tensors if t.dtype is not first]
    if weak:
        raise TypeError(
            f"{what}: tensors have different dtypes ({first.name} and {weak[0].dtype.name}); "
            "use rt.cast to make them match."
        )
    return tensors


def _concat_infer(inputs, *, axis):
    rank = len(inputs[0].shape)
    a = shapes.normalize_axis(axis, rank, "concat")
    out = list(inputs[0].shape)
    for t in inputs[1:]:
        if len(t.shape) != rank:
            raise InvalidArgumentError("concat: tensors have different ranks")
        for i, d in enumerate(t.shape):
            if i == a:
                out[a] = None if out[a] is None or d is None else out[a] + d
            elif out[i] is None:
                out[i] = d
            elif d is not None and d != out[i]:
                raise InvalidArgumentError(f"concat: dimension {i} differs ({out[i]} vs {d})")
    return [(inputs[0].dtype, tuple(out))]


CONCAT = define_op(
    "ConcatV2", infer=_concat_infer, kernel=lambda *xs, axis: np.concatenate(xs, axis)
)


def concat(values, axis):
    return apply(CONCAT, _same_dtype(values, "concat"), {"axis": int(axis)})


def _stack_infer(inputs, *, axis):
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not t.shape.is_compatible_with(shape):
            raise InvalidArgumentError(f"stack: shapes {list(shape)} and {list(t.shape)} differ")
    a = shapes.normalize_axis(axis, len(shape) + 1, "stack")
    return [(inputs[0].dtype, shape[:a] + (len(inputs),) + shape[a:])]


STACK = define_op("Pack", infer=_stack_infer, kernel=lambda *xs, axis: np.stack(xs, axis))


def stack(values, axis=0):
    return apply(STACK, _same_dtype(values, "stack"), {"axis": int(axis)})


def _unstack_infer(inputs, *, num, axis):
    x = inputs[0]
    a = shapes.normalize_axis(axis, len(x.shape), "unstack")
    rest = x.shape[:a] + x.shape[a + 1:]
    return [(x.dtype, rest)] * num


def _unstack_kernel(x, *, num, axis):
    return tuple(normalize(v) for v in np.moveaxis(x, axis, 0))


UNSTACK = define_op("Unpack", infer=_unstack_infer, kernel=_unstack_kernel)


def unstack(value, num=None, axis=0):
    """A list of the slices of `value` along `axis` (its size must be known)."""
    value = convert_to_tensor(value)
    a = shapes.normalize_axis(axis, len(value.shape), "unstack")
    num = value.shape[a] if num is None else num
    if num is None:
        raise ValueError("unstack: the size of the axis is unknown while tracing; pass num=.")
    out = apply(UNSTACK, [value], {"num": int(num), "axis": a})
    return out if isinstance(out, list) else [out]


def _split_infer(inputs, *, sizes, axis):
    x = inputs[0]
    a = shapes.normalize_axis(axis, len(x.shape), "split")
    if x.shape[a] is not None and sum(sizes) != x.shape[a]:
        raise InvalidArgumentError(f"split: sizes {list(sizes)} do not add up to {x.shape[a]}")
    return [(x.dtype, x.shape[:a] + (s,) + x.shape[a + 1:]) for s in sizes]


def _split_kernel(x, *, sizes, axis):
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis))


SPLIT = define_op("SplitV", infer=_split_infer, kernel=_split_kernel)


def split(value, num_or_size_splits, axis=0):
    value = convert_to_tensor(value)
    a = shapes.normalize_axis(axis, len(value.shape), "split")
    if isinstance(num_or_size_splits, int):
        dim = value.shape[a]
        if dim is None or dim % num_or_size_splits:
            raise InvalidArgumentError(
                f"split: dimension {a} of size {dim} cannot be split into {num_or_size_splits}"
            )
        sizes = (dim // num_or_size_splits,) * num_or_size_splits
    else:
        sizes = _static_ints(num_or_size_splits, "split sizes")
    out = apply(SPLIT, [value], {"sizes": sizes, "axis": a})
    return out if isinstance(out, list) else [out]


def _tile_infer(inputs, *, multiples):
    x = inputs[0]
    if len(multiples) != len(x.shape):
        raise InvalidArgumentError(f"tile: {len(multiples)} multiples for rank {len(x.shape)}")
    return [(x.dtype, tuple(None if d is None else d * m for d, m in zip(x.shape, multiples)))]


TILE = define_op("Tile", infer=_tile_infer, kernel=lambda x, *, multiples: np.tile(x, multiples))


def tile(input, multiples):  # noqa: A002 - TensorFlow's name
    return apply(TILE, [convert_to_tensor(input)], {"multiples": _static_ints(multiples, "multiples")})


def _broadcast_to_infer(inputs, *, shape):
    out = shapes.broadcast(inputs[0].shape, shape)
    if tuple(out) != tuple(shape):
        raise InvalidArgumentError(f"broadcast_to: {list(inputs[0].shape)} to {list(shape)}")
    return [(inputs[0].dtype, tuple(shape))]


BROADCAST_TO = define_op(
    "BroadcastTo",
    infer=_broadcast_to_infer,
    kernel=lambda x, *, shape: np.array(np.broadcast_to(x, shape)),
)


def broadcast_to(input, shape):  # noqa: A002 - TensorFlow's name
    return apply(BROADCAST_TO, [convert_to_tensor(input)], {"shape": _static_ints(shape, "shape")})


IDENTITY = define_op(
    "Identity",
    infer=lambda inputs: [(inputs[0].dtype, inputs[0].shape)],
    kernel=lambda x: x,
    groups=[ELEMENTWISE],
    emit=lambda a, attrs: a[0],
)


def identity(input):  # noqa: A002 - TensorFlow's name
    return apply(IDENTITY, [convert_to_tensor(input)])


# ---- shape queries ---------------------------------------------------------------------------

SHAPE = define_op(
    "Shape",
    infer=lambda inputs: [(dtypes.int32, (len(inputs[0].shape),))],
    kernel=lambda x: np.array(np.shape(x), dtype=np.int32),
)
SIZE = define_op(
    "Size", infer=lambda inputs: [(dtypes.int32, ())], kernel=lambda x: np.int32(np.size(x))
)
RANK = define_op(
    "Rank", infer=lambda inputs: [(dtypes.int32, ())], kernel=lambda x: np.int32(np.ndim(x))
)


def shape(input):  # noqa: A002 - TensorFlow's name
    return apply(SHAPE, [convert_to_tensor(input)])


def size(input):  # noqa: A002 - TensorFlow's name
    return apply(SIZE, [convert_to_tensor(input)])


def rank(input):  # noqa: A002 - TensorFlow's name
    return apply(RANK, [convert_to_tensor(input)])


# ---- gather and indexing ---------------------------------------------------------------------

def _gather_infer(inputs, *, axis):
    params, indices = inputs
    a = shapes.normalize_axis(axis, len(params.shape), "gather")
    if not indices.dtype.is_integer:
        raise TypeError(f"gather: indices must be integers, got {indices.dtype.name}")
    return [(params.dtype, params.shape[:a] + indices.shape + params.shape[a + 1:])]


def _gather_kernel(params, indices, *, axis):
    return normalize(np.take(params, indices, axis=axis))


GATHER = define_op("GatherV2", infer=_gather_infer, kernel=_gather_kernel)


def gather(params, indices, axis=0):
    """Slices of `params` at `indices` along `axis`; an out-of-range index is an
    InvalidArgumentError (eagerly, or when the graph runs)."""
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    return apply(GATHER, [params, indices], {"axis": int(axis)})


def _index_spec(key):
    """Plain-data description of an index expression, and the tensors it uses."""
    items, tensors = [], []
    for k in key if isinstance(key, tuple) else (key,):
        if k is None:
            items.append(("newaxis",))
        elif k is Ellipsis:
            items.append(("ellipsis",))
        elif isinstance(k, slice):
            parts = []
            for v in (k.start, k.stop, k.step):
                if isinstance(v, Tensor):
                    raise TypeError("Slice bounds that are tensors are not supported; use Python ints.")
                parts.append(None if v is None else int(v))
            items.append(("slice", *parts))
        elif isinstance(k, (bool, np.bool_)):
            raise TypeError("Indexing with a Python bool is not supported.")
        elif isinstance(k, (int, np.integer)):
            items.append(("int", int(k)))
        else:
            t = convert_to_tensor(k)
            if not t.dtype.is_integer:
                raise TypeError(f"Tensor indices must be integers, got {t.dtype.name}.")
            items.append(("tensor", len(tensors)))
            tensors.append(t)
    if sum(1 for i in items if i[0] == "ellipsis") > 1:
        raise InvalidArgumentError("An index can only have a single ellipsis ('...').")
    return tuple(items), tensors


def _index_tuple(spec, index_values):
    out = []
    for item in spec:
        kind = item[0]
        if kind == "newaxis":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        elif kind == "slice":
            out.append(slice(*item[1:]))
        elif kind == "int":
            out.append(item[1])
        else:
            out.append(index_values[item[1]])
    return tuple(out)


def _getitem_infer(inputs, *, spec):
    x, index_tensors = inputs[0], inputs[1:]
    consumed = sum(1 for i in spec if i[0] in ("int", "slice", "tensor"))
    if consumed > len(x.shape):
        raise InvalidArgumentError(f"too many indices ({consumed}) for a tensor of rank {len(x.shape)}")
    out, axis = [], 0
    advanced = [t.shape for t, i in zip(index_tensors, [s for s in spec if s[0] == "tensor"])]
    placed = False
    for item in spec:
        kind = item[0]
        if kind == "newaxis":
            out.append(1)
        elif kind == "ellipsis":
            n = len(x.shape) - consumed
            out.extend(x.shape[axis:axis + n])
            axis += n
        elif kind == "int":
            dim = x.shape[axis]
            if dim is not None and not -dim <= item[1] < dim:
                raise InvalidArgumentError(f"index {item[1]} is out of bounds for axis {axis} of size {dim}")
            axis += 1
        elif kind == "slice":
            dim = x.shape[axis]
            out.append(None if dim is None else len(builtins.range(*slice(*item[1:]).indices(dim))))
            axis += 1
        else:
            if not placed:
                out.extend(shapes.broadcast(*advanced))
                placed = True
            axis += 1
    out.extend(x.shape[axis:])
    return [(x.dtype, tuple(out))]


def _getitem_kernel(x, *index_values, spec):
    return normalize(x[_index_tuple(spec, index_values)])


GETITEM = define_op("StridedSlice", infer=_getitem_infer, kernel=_getitem_kernel)


def getitem(tensor, key):
    """`tensor[key]` with ints, slices, None, ... and integer tensors (numpy semantics)."""
    tensor = convert_to_tensor(tensor)
    spec, index_tensors = _index_spec(key)
    return apply(GETITEM, [tensor, *index_tensors], {"spec": spec})
