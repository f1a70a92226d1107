"""Shape manipulation, indexing and gathering: reshape, transpose, concat, stack, slicing, ..."""

from __future__ import annotations

import builtins
import functools

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor, Tensor, normalize
from runtime.core.tensor_conversion import convert_to_tensor, is_weak, packed_dtype, weak_join
from runtime.errors import GraphLimitError, InvalidArgumentError, argument_error, with_origin
from runtime.ops import list_ops, reduction_ops, shapes
from runtime.ops.basic_ops import cast, zeros_like
from runtime.ops.registry import (
    ELEMENTWISE,
    FUSED,
    GRADIENT,
    KNOWN_VALUE,
    apply,
    define_op,
    lacks,
    register_rule,
    register_rules,
)
from runtime.tensor_list import TensorList

# ---- reshape / transpose / expand / squeeze ------------------------------------------------

def _reshape_infer(inputs, *, shape):
    x = inputs[0]
    if any(d is not None and d < -1 for d in shape):
        raise argument_error(
            InvalidArgumentError, f"reshape: dims must not be negative, got {list(shape)}"
        )
    known = shapes.num_elements(x.shape)
    if shape.count(-1) > 1:
        raise argument_error(
            InvalidArgumentError, f"reshape: at most one -1 in the shape, got {list(shape)}"
        )
    if -1 in shape:
        rest = shapes.num_elements([d for d in shape if d != -1])
        if known is None:
            return [(x.dtype, tuple(None if d == -1 else d for d in shape))]
        if rest == 0 or known % rest:
            raise argument_error(
                InvalidArgumentError, f"reshape: cannot reshape {list(x.shape)} into {list(shape)}"
            )
        return [(x.dtype, tuple(known // rest if d == -1 else d for d in shape))]
    if known is not None and known != shapes.num_elements(shape):
        raise argument_error(
            InvalidArgumentError, f"reshape: cannot reshape {list(x.shape)} into {list(shape)}"
        )
    return [(x.dtype, tuple(shape))]


RESHAPE = define_op(
    "Reshape", infer=_reshape_infer, kernel=lambda x, *, shape: normalize(np.reshape(x, shape))
)


def _dynamic_reshape_infer(inputs):
    x, shape = inputs
    dims = shapes.known_dims(shape)
    if None in dims:
        return [(x.dtype, tuple(None if d is None or d == -1 else d for d in dims))]
    return _reshape_infer([x], shape=dims)


DYNAMIC_RESHAPE = define_op(
    "DynamicReshape",
    infer=_dynamic_reshape_infer,
    kernel=lambda x, shape: normalize(np.reshape(x, tuple(shape))),
)


def reshape(tensor, shape):
    """`tensor` with the same items in `shape` (ints, with one -1 allowed; or a 1-D integer
    tensor, e.g. `rt.stack([s[1], s[0]])`, or a list holding scalar tensors)."""
    tensor = convert_to_tensor(tensor)
    if shapes.is_dynamic(shape):
        return apply(DYNAMIC_RESHAPE, [tensor, shape_tensor(shape, "reshape's shape")])
    return apply(RESHAPE, [tensor], {"shape": shapes.static_ints(shape, "reshape's shape")})


def shape_tensor(value, what: str):
    """A shape argument that holds symbolic tensors as one 1-D int32 tensor (a scalar is one
    dim, as numpy takes `n` for `(n,)`)."""
    tensor = convert_to_tensor(value)
    if tensor.dtype.is_integer and len(tensor.shape) == 0:
        tensor = apply(RESHAPE, [tensor], {"shape": (1,)})
    if not tensor.dtype.is_integer or len(tensor.shape) != 1:
        raise argument_error(TypeError, with_origin(
            f"{what} must be a 1-D integer tensor, got {tensor.dtype.name}"
            f"{list(tensor.shape)}.", user_origin()))
    if tensor.dtype is not dtypes.int32:
        tensor = cast(tensor, dtypes.int32)
    return tensor


def _transpose_infer(inputs, *, perm):
    x = inputs[0]
    if sorted(perm) != list(range(len(x.shape))):
        raise argument_error(
            InvalidArgumentError, f"transpose: perm {list(perm)} does not fit rank {len(x.shape)}"
        )
    return [(x.dtype, tuple(x.shape[p] for p in perm))]


TRANSPOSE = define_op(
    "Transpose", infer=_transpose_infer, kernel=lambda x, *, perm: normalize(np.transpose(x, perm))
)


def transpose(a, perm=None):
    """`a` with its axes permuted by `perm` (reversed when None), as `np.transpose`."""
    a = convert_to_tensor(a)
    perm = tuple(reversed(range(a.ndim))) if perm is None else shapes.static_ints(perm, "perm")
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
    """`input` with a new axis of size 1 inserted at `axis`."""
    return apply(EXPAND_DIMS, [convert_to_tensor(input)], {"axis": int(axis)})


def _squeeze_infer(inputs, *, axis):
    x = inputs[0]
    if axis is None:
        if any(d is None for d in x.shape):
            raise GraphLimitError(
                "squeeze: name the axes when some dims are unknown")
        return [(x.dtype, tuple(d for d in x.shape if d != 1))]
    axes = {shapes.normalize_axis(a, len(x.shape), "squeeze") for a in axis}
    for a in axes:
        if x.shape[a] not in (1, None):
            raise argument_error(
                InvalidArgumentError, f"squeeze: dimension {a} has size {x.shape[a]}, not 1"
            )
    return [(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))]


SQUEEZE = define_op(
    "Squeeze", infer=_squeeze_infer, kernel=lambda x, *, axis: normalize(np.squeeze(x, axis))
)


def squeeze(input, axis=None):  # noqa: A002 - TensorFlow's name
    """`input` without its size-1 axes (only those in `axis` when given)."""
    axis = None if axis is None else shapes.static_ints(axis, "squeeze's axis")
    return apply(SQUEEZE, [convert_to_tensor(input)], {"axis": axis})


# ---- joining and splitting ------------------------------------------------------------------

def _same_dtype(values, what):
    """Tensors of one dtype; Python scalars among `values` take the dtype of the tensors (or,
    all weak, promote among themselves as Python scalars: an int with a float gives float32)."""
    values = list(values)
    if not values:
        raise argument_error(ValueError, f"{what} needs at least one tensor.")
    strong = [convert_to_tensor(v) for v in values if not is_weak(v)]
    if strong:
        dtype = strong[0].dtype
    else:
        dtype = functools.reduce(weak_join, [packed_dtype(v) for v in values])
    tensors = [convert_to_tensor(v, dtype) if is_weak(v) else convert_to_tensor(v)
               for v in values]
    first = tensors[0].dtype
    for t in tensors:
        if t.dtype is not first:
            raise argument_error(
                TypeError,
                f"{what}: tensors have different dtypes ({first.name} and {t.dtype.name}); "
                "use rt.cast to make them match.",
            )
    return tensors


def _concat_infer(inputs, *, axis):
    rank = len(inputs[0].shape)
    a = shapes.normalize_axis(axis, rank, "concat")
    out = list(inputs[0].shape)
    for t in inputs[1:]:
        if len(t.shape) != rank:
            raise argument_error(InvalidArgumentError, "concat: tensors have different ranks")
        for i, d in enumerate(t.shape):
            if i == a:
                out[a] = None if out[a] is None or d is None else out[a] + d
            elif out[i] is None:
                out[i] = d
            elif d is not None and d != out[i]:
                raise argument_error(
                    InvalidArgumentError, f"concat: dimension {i} differs ({out[i]} vs {d})"
                )
    return [(inputs[0].dtype, tuple(out))]


CONCAT = define_op(
    "ConcatV2", infer=_concat_infer, kernel=lambda *xs, axis: np.concatenate(xs, axis)
)


def concat(values, axis):
    """`values` (tensors, or a TensorList) joined along their existing dim `axis`."""
    if isinstance(values, TensorList):
        return list_ops.concat(values.handle, axis)
    return apply(CONCAT, _same_dtype(values, "concat"), {"axis": int(axis)})


def _stack_infer(inputs, *, axis):
    shape = inputs[0].shape
    for t in inputs[1:]:
        if not t.shape.is_compatible_with(shape):
            raise argument_error(
                InvalidArgumentError, f"stack: shapes {list(shape)} and {list(t.shape)} differ"
            )
    a = shapes.normalize_axis(axis, len(shape) + 1, "stack")
    return [(inputs[0].dtype, shape[:a] + (len(inputs),) + shape[a:])]


def _stack_kernel(*xs, axis):
    if all(isinstance(x, np.generic) for x in xs):  # scalars (the common case): 5x faster
        return np.array(xs, dtype=xs[0].dtype)
    if isinstance(xs[0], bytes):  # strings stay objects (numpy's bytes dtype drops trailing
        xs = [np.array(x, dtype=object) for x in xs]  # zero bytes)
    return np.stack(xs, axis)


def _stack_expression(names, attrs, inputs):
    """Numbers of one known shape stacked along a new first dim: np.array of them is np.stack's
    result (1 us faster on scalars, 4 on small arrays)."""
    shape = inputs[0].shape
    if inputs[0].dtype.is_string or not shape.is_fully_defined() or any(
            tuple(t.shape) != tuple(shape) for t in inputs) or attrs["axis"] not in (
            0, -len(shape) - 1):
        return None
    return f"np_array_(({''.join(x + ', ' for x in names)}))"


STACK = define_op("Pack", infer=_stack_infer, kernel=_stack_kernel,
                  typed_expression=_stack_expression, expression_globals={"np_array_": np.array})


@register_rule(KNOWN_VALUE, STACK)
def _known_pack(op):
    if all(len(t.shape) == 0 for t in op.inputs):
        return tuple(shapes.known_value(t) for t in op.inputs)
    return None


def stack(values, axis=0):
    """`values` (tensors, or a TensorList) joined along a new dim `axis`."""
    if isinstance(values, TensorList):
        stacked = values.stack()
        rank = len(stacked.shape)
        a = shapes.static_check(shapes.normalize_axis, axis, rank, "stack")
        if a == 0:
            return stacked
        return transpose(stacked, [*range(1, a + 1), 0, *range(a + 1, rank)])
    return apply(STACK, _same_dtype(values, "stack"), {"axis": int(axis)})


def _unstack_infer(inputs, *, num, axis):
    x = inputs[0]
    a = shapes.normalize_axis(axis, len(x.shape), "unstack")
    rest = x.shape[:a] + x.shape[a + 1:]
    return [(x.dtype, rest)] * num


def _unstack_kernel(x, *, num, axis):
    return tuple(normalize(v) for v in np.moveaxis(x, axis, 0))


UNSTACK = define_op(
    "Unpack", infer=_unstack_infer, kernel=_unstack_kernel, tuple_outputs=True
)


def unstack(value, num=None, axis=0):
    """A list of the slices of `value` along `axis` (its size must be known)."""
    value = convert_to_tensor(value)
    a = shapes.static_check(shapes.normalize_axis, axis, value.ndim, "unstack")
    num = value.shape[a] if num is None else num
    if num is None:
        raise GraphLimitError(
            "unstack: the size of the axis is unknown while tracing; pass num=.")
    out = apply(UNSTACK, [value], {"num": int(num), "axis": a})
    return out if isinstance(out, list) else [out]


def _split_infer(inputs, *, sizes, axis):
    x = inputs[0]
    a = shapes.normalize_axis(axis, len(x.shape), "split")
    if x.shape[a] is not None and sum(sizes) != x.shape[a]:
        raise argument_error(
            InvalidArgumentError, f"split: sizes {list(sizes)} do not add up to {x.shape[a]}"
        )
    return [(x.dtype, x.shape[:a] + (s,) + x.shape[a + 1:]) for s in sizes]


def _split_kernel(x, *, sizes, axis):
    if sum(sizes) != x.shape[axis]:
        raise argument_error(
            ValueError,
            f"sizes {list(sizes)} do not add up to {x.shape[axis]}, the size of axis {axis}",
        )
    index, pieces, start = [slice(None)] * np.ndim(x), [], 0
    for size in sizes:  # plain slicing: several times faster than np.split on small arrays
        index[axis] = slice(start, start + size)
        pieces.append(normalize(x[tuple(index)]))
        start += size
    return tuple(pieces)


SPLIT = define_op("SplitV", infer=_split_infer, kernel=_split_kernel, tuple_outputs=True)


def _split_sizes(dim, num_or_size_splits, axis):
    """The size of each piece; one size may be -1 (the rest of the axis)."""
    if isinstance(num_or_size_splits, (int, np.integer)):
        n = int(num_or_size_splits)
        if dim is None:
            raise GraphLimitError(
                f"split: the size of axis {axis} is unknown while tracing, so it cannot be "
                f"split into {n} equal parts; pass the sizes of the parts instead.")
        if n <= 0 or dim % n:
            raise argument_error(
                InvalidArgumentError,
                f"split: dimension {axis} of size {dim} cannot be split into {n} equal parts",
            )
        return (dim // n,) * n
    sizes = list(shapes.static_ints(num_or_size_splits, "split sizes"))
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise argument_error(
            InvalidArgumentError, f"split: bad sizes {sizes} (at most one -1, the rest >= 0)"
        )
    if -1 in sizes:
        if dim is None:
            raise GraphLimitError(
                "split: a -1 size needs the size of the axis, which is unknown while tracing")
        rest = dim - (sum(sizes) + 1)
        if rest < 0:
            raise argument_error(
                InvalidArgumentError,
                f"split: sizes {sizes} do not fit dimension {axis} of size {dim}",
            )
        sizes[sizes.index(-1)] = rest
    return tuple(sizes)


def split(value, num_or_size_splits, axis=0):
    """Pieces of `value` along `axis`: a number of equal parts, or a list of sizes."""
    value = convert_to_tensor(value)
    a = shapes.static_check(shapes.normalize_axis, axis, value.ndim, "split")
    sizes = shapes.static_check(_split_sizes, value.shape[a], num_or_size_splits, a)
    out = apply(SPLIT, [value], {"sizes": sizes, "axis": a})
    return out if isinstance(out, list) else [out]


def _tile_infer(inputs, *, multiples):
    x = inputs[0]
    if len(multiples) != len(x.shape):
        raise argument_error(
            InvalidArgumentError,
            f"tile: {len(multiples)} multiple"
            f"{'' if len(multiples) == 1 else 's'} for rank {len(x.shape)}",
        )
    return [(x.dtype, tuple(None if d is None or m is None else d * m
                            for d, m in zip(x.shape, multiples)))]


TILE = define_op(
    "Tile", infer=_tile_infer, kernel=lambda x, *, multiples: normalize(np.tile(x, multiples))
)


def _dynamic_tile_infer(inputs):
    x, multiples = inputs
    return _tile_infer([x], multiples=shapes.known_dims(multiples))


DYNAMIC_TILE = define_op(
    "DynamicTile",
    infer=_dynamic_tile_infer,
    kernel=lambda x, multiples: normalize(np.tile(x, tuple(multiples))),
)


def tile(input, multiples):  # noqa: A002 - TensorFlow's name
    """`input` repeated `multiples[i]` times along axis i (one multiple per axis; ints, or
    scalar tensors, or a 1-D integer tensor)."""
    input = convert_to_tensor(input)
    if shapes.is_dynamic(multiples):
        multiples = shape_tensor(multiples, "multiples")
        return apply(DYNAMIC_TILE, [input, multiples])
    multiples = shapes.static_ints(multiples, "multiples")
    shapes.static_check(_tile_infer, [input], multiples=multiples)
    return apply(TILE, [convert_to_tensor(input)], {"multiples": multiples})


def _broadcast_to_infer(inputs, *, shape):
    out = shapes.broadcast(inputs[0].shape, shape)
    if tuple(out) != tuple(shape):
        raise argument_error(
            InvalidArgumentError,
            f"broadcast_to: cannot broadcast {list(inputs[0].shape)} to {list(shape)}",
        )
    return [(inputs[0].dtype, tuple(shape))]


BROADCAST_TO = define_op(
    "BroadcastTo",
    infer=_broadcast_to_infer,
    kernel=lambda x, *, shape: normalize(np.array(np.broadcast_to(x, shape))),
)


def _dynamic_broadcast_to_infer(inputs):
    x, shape = inputs
    dims = shapes.known_dims(shape)
    if len(x.shape) > len(dims):
        raise argument_error(
            InvalidArgumentError,
            f"broadcast_to: cannot broadcast {list(x.shape)} to rank {len(dims)}",
        )
    return [(x.dtype, dims)]


DYNAMIC_BROADCAST_TO = define_op(
    "DynamicBroadcastTo",
    infer=_dynamic_broadcast_to_infer,
    kernel=lambda x, shape: normalize(np.array(np.broadcast_to(x, tuple(shape)))),
)


def broadcast_to(input, shape):  # noqa: A002 - TensorFlow's name
    """`input` broadcast to `shape` (ints, scalar tensors, or a 1-D integer tensor)."""
    if shapes.is_dynamic(shape):
        shape = shape_tensor(shape, "broadcast_to's shape")
        return apply(DYNAMIC_BROADCAST_TO, [convert_to_tensor(input), shape])
    shape = shapes.static_ints(shape, "broadcast_to's shape")
    return apply(BROADCAST_TO, [convert_to_tensor(input)], {"shape": shape})


def _identity_kernel(x):
    return x.copy() if type(x) is np.ndarray else x


def _identity_expression(names, attrs, inputs):
    """An array's copy (numpy's `x.copy()`, `np.array(x)`: writing into it leaves `x` as it
    was); a scalar or a list itself."""
    t = inputs[0]
    return f"{names[0]}.copy()" if len(t.shape) and not t.dtype.is_list else names[0]


IDENTITY = define_op(
    "Identity",
    infer=lambda inputs: [(inputs[0].dtype, inputs[0].shape)],
    kernel=_identity_kernel,
    groups=[ELEMENTWISE],
    typed_expression=_identity_expression,
)
lacks(FUSED, "its input itself: nothing to compute", IDENTITY)


def identity(input):  # noqa: A002 - TensorFlow's name
    """A tensor with the value of `input`: a new array (numpy's copy), a new node in a graph
    (the simplify pass drops it where no result can be its array)."""
    return apply(IDENTITY, [convert_to_tensor(input)])


# ---- shape queries ---------------------------------------------------------------------------

SHAPE = define_op(
    "Shape",
    infer=lambda inputs, *, out_type: [(out_type, (inputs[0].ndim,))],
    kernel=lambda x, *, out_type: np.array(np.shape(x), dtype=out_type.np_dtype),
)
register_rule(KNOWN_VALUE, SHAPE)(lambda op: tuple(op.inputs[0].shape))
SIZE = define_op(
    "Size",
    infer=lambda inputs, *, out_type: [(out_type, ())],
    kernel=lambda x, *, out_type: out_type.np_dtype.type(np.size(x)),
)
RANK = define_op(
    "Rank", infer=lambda inputs: [(dtypes.int32, ())], kernel=lambda x: np.int32(np.ndim(x))
)


def _out_type(out_type):
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise argument_error(
            TypeError, f"out_type must be rt.int32 or rt.int64, not {out_type.name}."
        )
    return out_type


def shape(input, out_type=dtypes.int32):  # noqa: A002 - TensorFlow's name
    """The shape as a 1-D integer tensor (computed when the graph runs if dims are unknown)."""
    return apply(SHAPE, [convert_to_tensor(input)], {"out_type": _out_type(out_type)})


def size(input, out_type=dtypes.int32):  # noqa: A002 - TensorFlow's name
    """The number of elements, as a scalar integer tensor."""
    return apply(SIZE, [convert_to_tensor(input)], {"out_type": _out_type(out_type)})


def rank(input):  # noqa: A002 - TensorFlow's name
    """The number of dimensions, as a scalar int32 tensor."""
    return apply(RANK, [convert_to_tensor(input)])


# ---- gather and indexing ---------------------------------------------------------------------

def _gather_infer(inputs, *, axis):
    params, indices = inputs
    a = shapes.normalize_axis(axis, len(params.shape), "gather")
    if not indices.dtype.is_integer:
        raise argument_error(
            TypeError, f"gather: indices must be integers, got {indices.dtype.name}"
        )
    return [(params.dtype, params.shape[:a] + indices.shape + params.shape[a + 1:])]


def _gather_kernel(params, indices, *, axis):
    return normalize(np.take(params, indices, axis=axis))


GATHER = define_op("GatherV2", infer=_gather_infer, kernel=_gather_kernel)


def gather(params, indices, axis=None):
    """Slices of `params` at `indices` along `axis`; an out-of-range index is an
    InvalidArgumentError (eagerly, or when the graph runs)."""
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    if not indices.dtype.is_integer:
        raise argument_error(
            TypeError, f"gather: indices must be integers, got {indices.dtype.name}."
        )
    axis = 0 if axis is None else shapes.static_ints(axis, "gather's axis")[0]
    return apply(GATHER, [params, indices], {"axis": axis})


# An index expression is kept as plain data (the op's `spec` attr): one item per part of the
# key, ("int", i), ("slice", start, stop, step), ("tensor", k), ("newaxis",) or ("ellipsis",).
# Tensors in the key (integer index arrays, slice bounds) are inputs of the op; ("tensor", k)
# and slice bounds ("tensor", k) refer to the k-th of them.

def _index_spec(key):
    """The spec of an index expression, and the tensors it uses."""
    items, tensors = [], []

    def tensor_ref(value, scalar: bool):
        t = convert_to_tensor(value)
        if not t.dtype.is_integer:
            raise argument_error(
                TypeError,
                f"Tensor indices must be integers, got {t.dtype.name}"
                + (" (a boolean mask must be the whole key: x[mask])." if t.dtype.is_bool else "."),
            )
        if scalar and t.ndim:
            raise argument_error(
                TypeError, f"Slice bounds must be scalars, got a tensor of shape {list(t.shape)}."
            )
        tensors.append(t)
        return ("tensor", len(tensors) - 1)

    for k in key if isinstance(key, tuple) else (key,):
        if k is None:
            items.append(("newaxis",))
        elif k is Ellipsis:
            items.append(("ellipsis",))
        elif isinstance(k, slice):
            parts = [v if v is None or isinstance(v, Tensor) else int(v)
                     for v in (k.start, k.stop, k.step)]
            items.append(("slice", *[tensor_ref(v, True) if isinstance(v, Tensor) else v
                                     for v in parts]))
        elif isinstance(k, (bool, np.bool_)):
            raise argument_error(TypeError, "Indexing with a Python bool is not supported.")
        elif isinstance(k, (int, np.integer)):
            items.append(("int", int(k)))
        else:
            items.append(tensor_ref(k, False))
    if sum(1 for i in items if i[0] == "ellipsis") > 1:
        raise argument_error(
            InvalidArgumentError, "An index can only have a single ellipsis ('...')."
        )
    return tuple(items), tensors


def _index_tuple(spec, index_values):
    """The numpy index that `spec` describes, given the values of its tensors."""

    def value(part):
        return index_values[part[1]] if isinstance(part, tuple) else part

    out = []
    for item in spec:
        kind = item[0]
        if kind == "newaxis":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        elif kind == "slice":
            out.append(slice(*[value(p) for p in item[1:]]))
        elif kind == "int":
            out.append(item[1])
        else:
            out.append(index_values[item[1]])
    return tuple(out)


def _slice_length(dim, bounds):
    if dim is None or any(isinstance(b, tuple) for b in bounds):
        return None
    return len(builtins.range(*slice(*bounds).indices(dim)))


def _getitem_infer(inputs, *, spec):
    """numpy's indexing rules: integer tensors (and ints next to them) are "advanced" indices
    whose broadcast shape replaces their axes, in place when they are adjacent, else first."""
    x, index_tensors = inputs[0], inputs[1:]
    consumed = sum(1 for i in spec if i[0] in ("int", "slice", "tensor"))
    if consumed > x.ndim:
        raise argument_error(
            InvalidArgumentError, f"too many indices ({consumed}) for a tensor of rank {x.ndim}"
        )
    has_arrays = any(item[0] == "tensor" for item in spec)
    advanced = [p for p, item in enumerate(spec)
                if item[0] == "tensor" or (has_arrays and item[0] == "int")]
    advanced_shape = shapes.broadcast(
        *(index_tensors[item[1]].shape for item in spec if item[0] == "tensor"))
    first = bool(advanced) and advanced[-1] - advanced[0] + 1 != len(advanced)
    out = list(advanced_shape) if first else []
    axis = 0
    for position, item in enumerate(spec):
        kind = item[0]
        if kind == "newaxis":
            out.append(1)
        elif kind == "ellipsis":
            n = x.ndim - consumed
            out.extend(x.shape[axis:axis + n])
            axis += n
        elif kind == "slice":
            out.append(_slice_length(x.shape[axis], item[1:]))
            axis += 1
        else:
            dim = x.shape[axis]
            if kind == "int" and dim is not None and not -dim <= item[1] < dim:
                raise argument_error(
                    InvalidArgumentError,
                    f"index {item[1]} is out of bounds for axis {axis} of size {dim}",
                )
            if has_arrays and not first and position == advanced[0]:
                out.extend(advanced_shape)
            axis += 1
    out.extend(x.shape[axis:])
    return [(x.dtype, tuple(out))]


def _getitem_kernel(x, *index_values, spec):
    return normalize(x[_index_tuple(spec, index_values)])


def _getitem_expression(args, attrs):
    """`x[0, 1:n, None]` written out in the generated code (the kernel's index, without
    building it on every call); `...` can leave a 0-d array, which `normalize` makes a scalar."""
    def bound(part):
        if part is None:
            return ""
        return args[1 + part[1]] if isinstance(part, tuple) else repr(part)

    spec, parts = attrs["spec"], []
    for item in spec:
        kind = item[0]
        if kind == "newaxis":
            parts.append("None")
        elif kind == "ellipsis":
            parts.append("...")
        elif kind == "int":
            parts.append(repr(item[1]))
        elif kind == "slice":
            start, stop, step = item[1:]
            parts.append(f"{bound(start)}:{bound(stop)}" + (f":{bound(step)}" if step is not None
                                                             else ""))
        else:
            parts.append(args[1 + item[1]])
    subscript = f"{args[0]}[{', '.join(parts) if parts else '()'}]"
    return f"normalize({subscript})" if any(i[0] == "ellipsis" for i in spec) else subscript


GETITEM = define_op("StridedSlice", infer=_getitem_infer, kernel=_getitem_kernel,
                    expression=_getitem_expression, expression_globals={"normalize": normalize})


@register_rule(KNOWN_VALUE, GETITEM)
def _known_dim(op):
    """`rt.shape(x)[i]`: x's dim i, when known."""
    spec = op.attrs.get("spec")
    if op.inputs[0].op.opdef is SHAPE and spec and len(spec) == 1 and spec[0][0] == "int":
        dims = tuple(op.inputs[0].op.inputs[0].shape)
        index = spec[0][1]
        if -len(dims) <= index < len(dims):
            return dims[index]
    return None


def getitem(tensor, key):
    """`tensor[key]` with ints, slices (bounds may be scalar tensors), None, ... and integer
    tensors, with numpy's semantics; an out-of-range index is an InvalidArgumentError. A key
    that is one bool tensor (or array, or list of bools) is a boolean mask."""
    tensor = convert_to_tensor(tensor)
    mask = _boolean_mask_key(key)
    if mask is not None:
        shapes.static_check(_boolean_mask_infer, [tensor, mask])
        return apply(BOOLEAN_MASK, [tensor, mask])
    spec, index_tensors = _index_spec(key)
    result = apply(GETITEM, [tensor, *index_tensors], {"spec": spec})
    if result.shape and all(t.ndim == 0 for t in index_tensors):  # (numpy's basic indexing)
        note_view(tensor, result)
    return result


def note_view(source, view) -> None:
    """Notes, while tracing, that numpy gives `view` as a view of `source` (see
    Graph.note_view): an in-place operator on it changes an argument `source` stands for."""
    if isinstance(view, SymbolicTensor) and isinstance(source, SymbolicTensor):
        view.op.graph.note_view(source, view)


# ---- boolean masks: `x[mask]` ----------------------------------------------------------------

def _only_bools(value) -> bool:
    if isinstance(value, list):
        return bool(value) and all(_only_bools(v) for v in value)
    return isinstance(value, (bool, np.bool_))


def _boolean_mask_key(key):
    """The bool tensor of a key that is a boolean mask (a bool tensor or numpy array, or a list
    of Python bools), else None."""
    if isinstance(key, Tensor):
        return key if key.dtype.is_bool else None
    if isinstance(key, np.ndarray) and key.dtype == np.bool_ or (
            isinstance(key, list) and _only_bools(key)):
        return convert_to_tensor(np.asarray(key))
    return None


def _boolean_mask_infer(inputs):
    """numpy's `x[mask]`: the mask covers the leading dims of x (sizes equal); the result has
    one row per true element (how many: unknown in a graph), then x's remaining dims."""
    x, mask = inputs
    if mask.ndim > x.ndim:
        raise argument_error(
            InvalidArgumentError,
            f"too many indices: a boolean mask of rank {mask.ndim} for a tensor of rank {x.ndim}",
        )
    for axis, (d, m) in enumerate(zip(x.shape, mask.shape)):
        if d is not None and m is not None and d != m:
            raise argument_error(
                InvalidArgumentError,
                f"boolean index did not match the tensor along axis {axis}: the axis has size "
                f"{d}, the mask {m}",
            )
    return [(x.dtype, (None, *x.shape[mask.ndim:]))]


BOOLEAN_MASK = define_op(
    "BooleanMask",
    infer=_boolean_mask_infer,
    kernel=lambda x, mask: normalize(x[mask]),
)


def _boolean_mask_gradient_kernel(grad, mask, shape):
    out = np.zeros(tuple(int(d) for d in shape), dtype=np.asarray(grad).dtype)
    out[mask] = grad
    return normalize(out)


BOOLEAN_MASK_GRADIENT = define_op(
    "BooleanMaskGrad",
    infer=lambda inputs: [(inputs[0].dtype, shapes.known_dims(inputs[2]))],
    kernel=_boolean_mask_gradient_kernel,
)


# ---- stop_gradient ---------------------------------------------------------------------------

STOP_GRADIENT = define_op(
    "StopGradient",
    infer=lambda inputs: [(inputs[0].dtype, inputs[0].shape)],
    kernel=lambda x: x,
    expression=lambda a, attrs: a[0],
)


def stop_gradient(input):  # noqa: A002 - TensorFlow's name
    """`input` as a value no gradient flows through (tapes see a constant)."""
    return apply(STOP_GRADIENT, [convert_to_tensor(input)])


# ---- the gradient of indexing: the slice's gradient placed in zeros ----------------------------

def _slice_gradient_kernel(grad, shape, *index_values, spec):
    out = np.zeros(tuple(int(d) for d in shape), dtype=np.asarray(grad).dtype)
    index = _index_tuple(spec, index_values)
    if any(item[0] == "tensor" for item in spec):
        np.add.at(out, index, grad)  # repeated indices add up
    else:
        out[index] += grad
    return normalize(out)


SLICE_GRADIENT = define_op(
    "StridedSliceGrad",
    infer=lambda inputs, *, spec: [(inputs[0].dtype, shapes.known_dims(inputs[1]))],
    kernel=_slice_gradient_kernel,
)


# ---- the gradient of gather: the gathered rows' gradients added into zeros --------------------

def _gather_gradient_kernel(grad, indices, shape, *, axis):
    out = np.zeros(tuple(int(d) for d in shape), dtype=np.asarray(grad).dtype)
    np.add.at(out, (slice(None),) * axis + (indices,), grad)  # repeated indices add up
    return normalize(out)


GATHER_GRADIENT = define_op(
    "GatherGrad",
    infer=lambda inputs, *, axis: [(inputs[0].dtype, shapes.known_dims(inputs[2]))],
    kernel=_gather_gradient_kernel,
)


# ---- summing a broadcast gradient back to its operand's shape -------------------------------

def _sum_to_shape_kernel(grad, shape):
    shape = tuple(int(d) for d in shape)
    lead = np.ndim(grad) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and np.shape(grad)[lead + i] != 1)
    total = np.sum(grad, axis=axes, keepdims=True) if axes else np.asarray(grad)
    return normalize(np.reshape(total, shape).astype(np.asarray(grad).dtype, copy=False))


def _sum_to_shape_infer(inputs):
    grad, shape = inputs
    return [(grad.dtype, shapes.known_dims(shape))]


SUM_TO_SHAPE = define_op("SumToShape", infer=_sum_to_shape_infer, kernel=_sum_to_shape_kernel)


def sum_to(grad, like):
    """`grad`, the gradient of a value broadcast from `like`'s shape, summed back to it (over
    the leading axes and the axes where `like` has size 1)."""
    if grad.shape.is_fully_defined() and like.shape.is_fully_defined():
        if tuple(grad.shape) == tuple(like.shape):
            return grad
        lead = len(grad.shape) - len(like.shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(like.shape)
                                          if d == 1 and grad.shape[lead + i] != 1)
        summed = reduction_ops.reduce_sum(grad, axes, keepdims=True)
        return summed if lead == 0 else reshape(summed, tuple(like.shape))
    return apply(SUM_TO_SHAPE, [grad, shape(like)])



# ---- gradients ---------------------------------------------------------------------------------

def _reshape_to(grad, x):
    if x.shape.is_fully_defined():
        return reshape(grad, tuple(x.shape))
    return reshape(grad, shape(x))


def broadcast_like(grad, x):
    """`grad` broadcast to the shape of `x` (known now, or when the graph runs)."""
    if x.shape.is_fully_defined():
        return broadcast_to(grad, tuple(x.shape))
    return broadcast_to(grad, shape(x))


def _tile_gradient(op, grads):
    """The gradient summed over the copies: viewed as (multiple, dim) pairs of axes, summed over
    the multiples (pairs computed when the graph runs for a DynamicTile or unknown dims)."""
    x, g = op.inputs[0], grads[0]
    rank = len(x.shape)
    if op.opdef is TILE and x.shape.is_fully_defined():
        pairs = tuple(d for m, n in zip(op.attrs["multiples"], x.shape) for d in (m, n))
    else:
        multiples = op.inputs[1] if op.opdef is DYNAMIC_TILE else op.attrs["multiples"]
        multiples = cast(convert_to_tensor(multiples, dtypes.int32), dtypes.int32)
        pairs = reshape(stack([multiples, shape(x)], axis=1), [2 * rank])
    summed = reduction_ops.reduce_sum(reshape(g, pairs), tuple(range(0, 2 * rank, 2)))
    return [_reshape_to(summed, x)] + [None] * (len(op.inputs) - 1)


def _concat_gradient(op, grads):
    axis, g = op.attrs["axis"], grads[0]
    a = shapes.normalize_axis(axis, g.ndim, "concat")
    pieces, start = [], 0
    for t in op.inputs:
        size = t.shape[a] if t.shape[a] is not None else shape(t)[a]
        index = [slice(None)] * a + [slice(start, start + size)]
        pieces.append(getitem(g, tuple(index)))
        start = start + size
    return pieces


def _getitem_gradient(op, grads):
    x, index_tensors = op.inputs[0], op.inputs[1:]
    grad = apply(SLICE_GRADIENT, [grads[0], shape(x), *index_tensors], {"spec": op.attrs["spec"]})
    return [grad] + [None] * len(index_tensors)


def _zeros_for_missing(grads, outputs):
    return [g if g is not None else zeros_like(t) for g, t in zip(grads, outputs)]


register_rules(GRADIENT, {
    RESHAPE: lambda op, grads: [_reshape_to(grads[0], op.inputs[0])],
    DYNAMIC_RESHAPE: lambda op, grads: [_reshape_to(grads[0], op.inputs[0]), None],
    TRANSPOSE: lambda op, grads: [transpose(grads[0], tuple(np.argsort(op.attrs["perm"])))],
    EXPAND_DIMS: lambda op, grads: [_reshape_to(grads[0], op.inputs[0])],
    SQUEEZE: lambda op, grads: [_reshape_to(grads[0], op.inputs[0])],
    CONCAT: _concat_gradient,
    STACK: lambda op, grads: unstack(grads[0], len(op.inputs), op.attrs["axis"]),
    UNSTACK: lambda op, grads: [stack(_zeros_for_missing(grads, op.outputs), op.attrs["axis"])],
    SPLIT: lambda op, grads: [concat(_zeros_for_missing(grads, op.outputs), op.attrs["axis"])],
    TILE: _tile_gradient,
    DYNAMIC_TILE: _tile_gradient,
    BROADCAST_TO: lambda op, grads: [sum_to(grads[0], op.inputs[0])],
    DYNAMIC_BROADCAST_TO: lambda op, grads: [sum_to(grads[0], op.inputs[0]), None],
    SUM_TO_SHAPE: lambda op, grads: [broadcast_like(grads[0], op.inputs[0]), None],
    IDENTITY: lambda op, grads: [grads[0]],
    STOP_GRADIENT: lambda op, grads: [None],
    GETITEM: _getitem_gradient,
    GATHER: lambda op, grads: [apply(GATHER_GRADIENT, [grads[0], op.inputs[1], shape(op.inputs[0])],
                                     {"axis": op.attrs["axis"]}), None],
    GATHER_GRADIENT: lambda op, grads: [gather(grads[0], op.inputs[1], op.attrs["axis"]), None,
                                        None],
    SLICE_GRADIENT: lambda op, grads: [
        apply(GETITEM, [grads[0], *op.inputs[2:]], {"spec": op.attrs["spec"]}),
        None, *[None] * (len(op.inputs) - 2)],
    # the selected elements' gradients put back in zeros, and the other way round
    BOOLEAN_MASK: lambda op, grads: [
        apply(BOOLEAN_MASK_GRADIENT, [grads[0], op.inputs[1], shape(op.inputs[0])]), None],
    BOOLEAN_MASK_GRADIENT: lambda op, grads: [apply(BOOLEAN_MASK, [grads[0], op.inputs[1]]),
                                              None, None],
})
lacks(GRADIENT, "integer results", SHAPE, SIZE, RANK)
