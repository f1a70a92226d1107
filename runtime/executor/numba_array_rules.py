"""The NUMBA rules of the ops that move data and read shapes (split, concat, stack, indexing,
gather, reshape, transpose, broadcasting, tiling, shape, size) and that fill new arrays (zeros,
ones, fill, range): numpy's values exactly."""

from __future__ import annotations

from runtime.errors import NoLoweringError, with_origin
from runtime.executor.numba_expressions import (
    as_output_dtype,
    dims_of,
    numpy_name,
    product_of,
    tuple_of,
)
from runtime.ops import array_ops, creation_ops, math_ops
from runtime.ops.op_support import cannot_lower
from runtime.ops.registry import NUMBA, register_rules


def _split(op, a, typed):
    rank, axis, start, pieces = len(op.inputs[0].shape), op.attrs["axis"], 0, []
    for size in op.attrs["sizes"]:
        index = [":"] * rank
        index[axis] = f"{start}:{start + size}"
        pieces.append(f"{a[0]}[{', '.join(index)}]")
        start += size
    return ", ".join(pieces)


def _filled_like(value: int):
    """ZerosLike (`value` 0) or OnesLike (1): a typed scalar, or np.zeros_like / np.ones_like."""
    function = "np.zeros_like" if value == 0 else "np.ones_like"

    def rule(op, a, typed):
        out = op.outputs[0]
        if len(out.shape) == 0:
            return typed(value, out.dtype)
        return f"{function}({a[0]}, {numpy_name(out.dtype)})"
    return rule


def _concat(op, a, typed):
    return f"np.concatenate(({', '.join(a)},), {op.attrs['axis']})"


def _pack(op, a, typed):
    """rt.stack: numbers into a new array of the op's dtype (numba would type Python-like
    scalars its own way), arrays by np.stack."""
    if op.outputs[0].dtype.is_string:
        raise NoLoweringError(with_origin(
            "jit_compile='numba' does not lower a stack of strings (numba has no numpy "
            "strings).", op.origin))
    if all(len(t.shape) == 0 for t in op.inputs):
        return f"np.array([{', '.join(a)}], dtype={numpy_name(op.outputs[0].dtype)})"
    return f"np.stack(({', '.join(a)},), {op.attrs['axis']})"


def _getitem(op, a, typed):
    """Basic indexing: ints, slices and 0-d integer tensors (numba compiles the graph with
    bounds checks then: an index past the end is an IndexError, as numpy's), `None`, `...`.
    Indexing by integer arrays is not lowered."""
    def part(value):
        if value is None:
            return ""
        return a[1 + value[1]] if isinstance(value, tuple) else str(value)

    index = []
    for item in op.attrs["spec"]:
        kind = item[0]
        if kind == "int":
            index.append(str(item[1]))
        elif kind == "slice":
            index.append(":".join(part(v) for v in item[1:]))
        elif kind == "newaxis":
            index.append("None")
        elif kind == "ellipsis":
            index.append("...")
        elif op.inputs[1 + item[1]].shape:  # an integer array: numpy's advanced indexing
            raise NoLoweringError(with_origin(
                "jit_compile='numba' does not lower indexing by an integer array (numba "
                "takes one such index only, and places its axes otherwise); use rt.gather.",
                op.origin))
        else:
            index.append(a[1 + item[1]])
    return as_output_dtype(op, f"{a[0]}[{', '.join(index)},]" if len(index) == 1 else
                     f"{a[0]}[{', '.join(index)}]")


def _reshape(op, a, typed):
    shape = tuple(op.attrs["shape"])
    return f"np.ascontiguousarray({a[0]}).reshape({shape!r})"


def _transpose(op, a, typed):
    return f"np.ascontiguousarray(np.transpose({a[0]}, {tuple(op.attrs['perm'])!r}))"


def _gather(op, a, typed):
    """rt.gather: `params[:, ..., indices]`, numba's one fancy index (a 1-D array, or a scalar;
    indices of more dims are flattened, and the result reshaped). numba compiles the graph with
    bounds checks then: an index past the end is an IndexError, as numpy's, never a read past
    the array (see _failing_ops). Exact."""
    params, indices = op.inputs
    if params.dtype.is_string:
        raise cannot_lower(op, "does not lower a gather of strings (numba has no numpy strings)")
    rank = len(params.shape)
    axis = op.attrs["axis"] % rank
    index = a[1] if len(indices.shape) <= 1 else f"{a[1]}.ravel()"
    expr = f"{a[0]}[{':, ' * axis}{index}]"
    if len(indices.shape) <= 1:
        return as_output_dtype(op, expr)
    dims, parts = dims_of(params, a[0]), dims_of(indices, a[1])
    return f"{expr}.reshape({tuple_of(dims[:axis] + parts + dims[axis + 1:])})"


def _expand_dims(op, a, typed):
    """A new axis of size 1: `x[:, None]` (a view, as numpy's); a scalar becomes an array of
    one item. Exact."""
    x = op.inputs[0]
    if not x.shape:
        return f"np.array([{a[0]}], dtype={numpy_name(x.dtype)})"
    axis = op.attrs["axis"] % (len(x.shape) + 1)
    return f"{a[0]}[{':, ' * axis}None]" if axis < len(x.shape) else f"{a[0]}[..., None]"


def _squeeze(op, a, typed):
    """The axes of size 1 dropped: `x[:, 0]` (a view, as numpy's); all of them: the item.
    Exact. An axis whose size is known only when the graph runs is not lowered: numpy checks
    that it is 1, the index would not."""
    x = op.inputs[0]
    axis = op.attrs["axis"]
    axes = ({i for i, d in enumerate(x.shape) if d == 1} if axis is None
            else {i % len(x.shape) for i in axis})
    if any(x.shape[i] is None for i in axes):
        raise cannot_lower(op, "does not lower squeezing an axis of unknown size (numpy checks "
                               "that it is 1 when the graph runs; an index would not)")
    if not axes:
        return a[0]
    index = ", ".join("0" if i in axes else ":" for i in range(len(x.shape)))
    return as_output_dtype(op, f"{a[0]}[{index}]")


def _shape(op, a, typed):
    """The dims as an array of the op's dtype: numbers where known while tracing. Exact."""
    dtype = numpy_name(op.attrs["out_type"])
    x = op.inputs[0]
    if not x.shape:
        return f"np.zeros(0, {dtype})"
    return f"np.array([{', '.join(dims_of(x, a[0]))}], dtype={dtype})"


def _size(op, a, typed):
    """The number of items: a constant when the dims are known while tracing. Exact."""
    x, dtype = op.inputs[0], op.attrs["out_type"]
    known = 1
    for d in x.shape:
        known = None if known is None or d is None else known * d
    if known is not None:
        return typed(known, dtype)
    return f"{numpy_name(dtype)}({a[0]}.size)"


def _items(op, name: str) -> str:
    """The items of the 1-D shape tensor `name` (op's second input, of known length) as a
    tuple, read when the graph runs."""
    return tuple_of(f"np.int64({name}[{i}])" for i in range(op.inputs[1].shape[0]))


def _dynamic_reshape(op, a, typed):
    """Reshape to a shape held in a tensor: numba's reshape, which takes a -1 (any negative
    dim, as numpy 2's) for the dim that holds the rest, and raises a ValueError where numpy's
    does (see _failing_ops), but gives an empty array of shape (0, 0) for (-1, 0), which numpy
    refuses: that shape is made (-1, -1), which numba refuses too. Exact."""
    x, count = op.inputs[0], op.inputs[1].shape[0]
    if count == 0:
        raise cannot_lower(op, "does not lower a reshape to a scalar by a shape tensor")
    shape = _items(op, a[1])
    if count > 1:
        shape = (f"(lambda t_: t_ if min(t_) >= 0 or 0 not in t_ else {(-1,) * count!r})"
                 f"({shape})")
    operand = f"np.ascontiguousarray({a[0]})" if op.inputs[0].shape else (
        f"np.array([{a[0]}], dtype={numpy_name(x.dtype)})")
    return f"{operand}.reshape({shape})"


def _where_indices(op, a, typed):
    """rt.where(condition): the coordinates of the true items, one row each, in the order of
    numpy's argwhere (numba's is a Fortran-ordered array: made C-ordered). Exact."""
    if not op.inputs[0].shape:
        raise cannot_lower(op, "does not lower rt.where of a scalar condition")
    return f"np.ascontiguousarray(np.argwhere({a[0]}))"


def _broadcast_to(op, a, typed):
    """A new array of the shape (numba's np.broadcast_to gives a read-only view: copied, as the
    kernel copies). Exact; where the input's dims are known only when the graph runs, shapes
    that do not broadcast are a ValueError (see _failing_ops)."""
    x, out = op.inputs[0], op.outputs[0]
    shape = tuple_of(str(d) for d in op.attrs["shape"]) if len(a) == 1 else _items(op, a[1])
    if not x.shape:
        return a[0] if not out.shape else f"np.full({shape}, {a[0]}, {numpy_name(out.dtype)})"
    return f"np.broadcast_to({a[0]}, {shape}).copy()"


def _tile(op, a, typed):
    """np.tile (which numba lacks) as numpy computes it: the array as (1, d0, 1, d1, ...),
    broadcast to (m0, d0, m1, d1, ...), copied and reshaped to (m0 * d0, m1 * d1, ...).
    Exact."""
    x = op.inputs[0]
    if not x.shape:
        return a[0]
    dims = dims_of(x, a[0])
    multiples = ([str(m) for m in op.attrs["multiples"]] if len(a) == 1 else
                 [f"np.int64({a[1]}[{i}])" for i in range(len(dims))])
    spread = tuple_of(item for d in dims for item in ("1", d))
    stacked = tuple_of(item for m, d in zip(multiples, dims) for item in (m, d))
    out = tuple_of(product_of([m, d]) for m, d in zip(multiples, dims))
    return (f"np.broadcast_to(np.ascontiguousarray({a[0]}).reshape({spread}), {stacked})"
            f".copy().reshape({out})")


def _unstack(op, a, typed):
    """The slices along the axis, `x[:, i]` (views, as the kernel's). Exact."""
    axis = op.attrs["axis"]
    if not op.outputs:
        return "()"
    return ", ".join(as_output_dtype(op, f"{a[0]}[{':, ' * axis}{i}]")
                     for i in range(op.attrs["num"]))


def _fill(op, a, typed):
    """np.full of the dims read from the dims tensor (its length is known). Exact; a negative
    dim is numba's ValueError (see _failing_ops)."""
    dims = op.inputs[0]
    if not dims.shape[0]:
        return as_output_dtype(op, a[1])
    shape = tuple_of(f"{a[0]}[{i}]" for i in range(dims.shape[0]))
    return f"np.full({shape}, {a[1]}, {numpy_name(op.outputs[0].dtype)})"


def _range(op, a, typed):
    """rt.range as numpy's arange computes it (numba's np.arange adds i * delta in float64):
    the length is ceil((limit - start) / delta), that difference and quotient in the dtype
    (integers: a float64 quotient), known while tracing or computed when the graph runs; the
    items are start, start + delta, then start + i * (that second item - start) in the dtype
    (integers wrap as numpy's). Exact. A zero delta, or a length that is not a number (NaN or
    infinite bounds), makes a negative one: numba's ValueError (see _failing_ops)."""
    dtype = op.outputs[0].dtype
    if not (dtype.is_integer or dtype.is_floating) or dtype.is_floating and dtype.itemsize < 4:
        raise cannot_lower(op, f"does not lower a range of {dtype.name} (numba has no float16 "
                               "arithmetic)")
    s, limit, d = a
    name = numpy_name(dtype)
    length = op.attrs["length"]
    if length is None:
        quotient = (f"np.float64({name}({name}({limit} - {s}) / {d}))" if dtype.is_floating
                    else f"np.float64({name}({limit} - {s})) / np.float64({d})")
        length = (f"-1 if {d} == 0 else (lambda c_: int(c_) if 0 < c_ < 2.0 ** 62 else "
                  f"(0 if -2.0 ** 62 < c_ <= 0 else -1))(np.ceil({quotient}))")
    counts = "(np.arange(n_) if n_ >= 0 else np.empty(n_, np.int64))"  # -1: ValueError
    if dtype.is_integer:
        return f"(lambda n_: ({s} + {counts} * {d}).astype({name}))({length})"
    second = f"{name}({s} + {d})"
    items = (f"np.where(k_ == 0, {s}, np.where(k_ == 1, {second}, {s} + k_.astype({name}) * "
             f"{name}({second} - {s})))")
    return f"(lambda n_: (lambda k_: {items}.astype({name}))({counts}))({length})"


register_rules(NUMBA, {
    array_ops.SPLIT: _split,
    array_ops.CONCAT: _concat,
    array_ops.STACK: _pack,
    array_ops.UNSTACK: _unstack,
    array_ops.GETITEM: _getitem,
    array_ops.GATHER: _gather,
    array_ops.RESHAPE: _reshape,
    array_ops.TRANSPOSE: _transpose,
    array_ops.EXPAND_DIMS: _expand_dims,
    array_ops.SQUEEZE: _squeeze,
    array_ops.BROADCAST_TO: _broadcast_to,
    array_ops.DYNAMIC_BROADCAST_TO: _broadcast_to,
    array_ops.TILE: _tile,
    array_ops.DYNAMIC_TILE: _tile,
    array_ops.DYNAMIC_RESHAPE: _dynamic_reshape,
    math_ops.WHERE_INDICES: _where_indices,
    array_ops.SHAPE: _shape,
    array_ops.SIZE: _size,
    array_ops.RANK: lambda op, a, typed: typed(len(op.inputs[0].shape), op.outputs[0].dtype),
    creation_ops.ZEROS_LIKE: _filled_like(0),
    creation_ops.ONES_LIKE: _filled_like(1),
    creation_ops.FILL: _fill,
    creation_ops.RANGE: _range,
})
