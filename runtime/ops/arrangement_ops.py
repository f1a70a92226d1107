"""Rearranging the items of an array, with numpy's names: roll, flip, repeat, pad, tril, triu,
diag, trace, take, take_along_axis.

`flip`, `take` and `trace` are compositions of other ops (slicing, gather, a diagonal and a
sum): their rules are those ops' rules. The other ops carry all their rules here: the numpy
kernel, inference with unknown dims, the gradient, and the ONNX, NUMBA and JAX rules (a JAX
rule runs on numpy values known while tracing and on JAX arrays alike: op_support's
`array_namespace`).
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor import SymbolicTensor, Tensor, normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, NoLoweringError, argument_error, with_origin
from runtime.ops import array_ops, creation_ops, math_ops, reduction_ops, shapes
from runtime.ops.op_support import (
    array_namespace,
    cannot_export,
    cannot_lower,
    refuse,
    reshape_like,
    static_axes,
    summed_dtype,
)
from runtime.ops.registry import (
    GRADIENT,
    JAX,
    NUMBA,
    ONNX,
    apply,
    define_op,
    lacks,
    register_rule,
    register_rules,
)

INT64_MAX = np.iinfo(np.int64).max


def _tensor(value, what: str, strings=False):
    t = convert_to_tensor(value)
    if t.dtype.is_list or (t.dtype.is_string and not strings):
        raise refuse(TypeError, f"{what} takes numeric or bool tensors, not {t.dtype.name}.")
    return t


def _onnx_dim(b, name, axis: int) -> str:
    """The size of `axis` of the ONNX value `name`, as a 1-D int64 of one item."""
    return b.one("Shape", name, start=axis, end=axis + 1)


def _flat(b, name) -> str:
    return b.one("Reshape", name, b.int64s([-1]))


# ---- roll ----------------------------------------------------------------------------------------

def _same_shape_infer(inputs, **attrs):
    return [(inputs[0].dtype, inputs[0].shape)]


ROLL = define_op(
    "Roll", infer=_same_shape_infer,
    kernel=lambda x, *, shift, axis: normalize(np.roll(x, shift, axis)),
)


def roll(a, shift, axis=None):
    """numpy.roll: the items of `a` shifted by `shift` places along `axis` (those that leave at
    one end come back at the other); without `axis`, along the flattened array, in its shape.
    `shift` and `axis` are ints or sequences of ints (shifts of the same axis add up)."""
    a = _tensor(a, "roll", strings=True)
    shifts = shapes.static_ints(shift, "roll's shift")
    if axis is None:
        return apply(ROLL, [a], {"shift": (sum(shifts),), "axis": None})
    axes = tuple(shapes.static_check(shapes.normalize_axis, x, a.ndim, "roll")
                 for x in shapes.static_ints(axis, "roll's axis"))
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise refuse(ValueError, f"roll: 'shift' ({len(shifts)} items) and 'axis' ({len(axes)} "
                                 "items) should be scalars or 1-D sequences of one length")
    totals = {}
    for s, x in zip(shifts * (len(axes) if len(shifts) == 1 else 1),
                    axes * (len(shifts) if len(axes) == 1 else 1)):
        totals[x] = totals.get(x, 0) + s
    return apply(ROLL, [a], {"shift": tuple(totals.values()), "axis": tuple(totals)})


@register_rule(GRADIENT, ROLL)
def _roll_gradient(op, grads):
    attrs = op.attrs
    return [apply(ROLL, [grads[0]], {"shift": tuple(-s for s in attrs["shift"]),
                                     "axis": attrs["axis"]})]


@register_rule(ONNX, ROLL)
def _roll_onnx(b, op, x):
    """One Slice + Concat per axis; the split point is read when the model runs for an
    unknown dim."""
    data, axes, dims = x[0], op.attrs["axis"], op.inputs[0].shape
    if axes is None:
        data, axes, dims = _flat(b, data), (0,), (shapes.num_elements(dims),)
    else:
        dims = tuple(dims[a] for a in axes)
    for a, s, d in zip(axes, op.attrs["shift"], dims):
        if d is not None:
            split = b.int64s([d - s % d if d else 0])
        else:
            n = _onnx_dim(b, data, a)
            turn = b.one("Mod", b.int64s([s]), b.one("Max", n, b.int64s([1])), fmod=0)
            split = b.one("Sub", n, turn)
        where = b.int64s([a])
        data = b.one("Concat", b.one("Slice", data, split, b.int64s([INT64_MAX]), where),
                     b.one("Slice", data, b.int64s([0]), split, where), axis=a)
    if op.attrs["axis"] is None:
        data = b.one("Reshape", data, b.one("Shape", x[0]), allowzero=1)
    return [data]


@register_rule(NUMBA, ROLL)
def _roll_numba(op, a, typed):
    if op.attrs["axis"] is not None or op.inputs[0].ndim == 0:
        raise cannot_lower(op, "lowers roll without an axis (numba's np.roll takes none) of an "
                               "array only")
    return f"np.roll({a[0]}, {op.attrs['shift'][0]})"


@register_rule(JAX, ROLL)
def _roll_jax(op, x):
    shift, axis = op.attrs["shift"], op.attrs["axis"]
    return array_namespace(x).roll(x, shift[0] if axis is None else shift, axis)


# ---- flip ----------------------------------------------------------------------------------------

def flip(m, axis=None):
    """numpy.flip: `m` with the order of its items reversed along `axis` (an int or a sequence
    of ints; None: every axis). A slice with step -1 per axis (the rules of indexing)."""
    m = _tensor(m, "flip", strings=True)
    axes = range(m.ndim) if axis is None else static_axes(axis, m.ndim, "flip")
    return array_ops.getitem(m, tuple(slice(None, None, -1) if i in axes else slice(None)
                                      for i in range(m.ndim)))


# ---- repeat --------------------------------------------------------------------------------------

def _repeat_infer(inputs, *, repeats, axis):
    x = inputs[0]
    if axis is None:
        n = shapes.num_elements(x.shape)
        return [(x.dtype, (None if n is None else n * repeats,))]
    d = x.shape[axis]
    return [(x.dtype, x.shape[:axis] + (None if d is None else d * repeats,) + x.shape[axis + 1:])]


REPEAT = define_op(
    "Repeat", infer=_repeat_infer,
    kernel=lambda x, *, repeats, axis: normalize(np.repeat(x, repeats, axis)),
)


def repeat(a, repeats, axis=None):
    """numpy.repeat: each item of `a` `repeats` times in a row along `axis` (None: of the
    flattened array). `repeats` is one int for every item; per-item counts (an array of
    repeats) are not supported."""
    a = _tensor(a, "repeat", strings=True)
    if isinstance(repeats, SymbolicTensor) or np.ndim(
            repeats.numpy() if isinstance(repeats, Tensor) else repeats) != 0:
        raise refuse(TypeError, "repeat takes one int `repeats`, the same count for every item; "
                                "per-item counts (a list or tensor of repeats) are not supported.")
    count = shapes.static_ints(repeats, "repeat's repeats")[0]
    if count < 0:
        raise refuse(ValueError, f"repeat: repeats must not be negative, got {count}.")
    if axis is not None:
        axis = shapes.static_check(shapes.normalize_axis, int(axis), a.ndim, "repeat")
    return apply(REPEAT, [a], {"repeats": count, "axis": axis})


@register_rule(GRADIENT, REPEAT)
def _repeat_gradient(op, grads):
    """The gradients of the copies of an item added up: the output's axis viewed as
    (item, copy) and summed over the copies."""
    x, g = op.inputs[0], grads[0]
    count, axis = op.attrs["repeats"], op.attrs["axis"]
    if count == 0:
        return [creation_ops.zeros_like(x)]
    if axis is None:
        return [reshape_like(reduction_ops.reduce_sum(array_ops.reshape(g, [-1, count]), 1), x)]
    if x.shape.is_fully_defined():
        pairs = tuple(x.shape[:axis + 1]) + (count,) + tuple(x.shape[axis + 1:])
    else:
        dims = array_ops.shape(x)
        pairs = array_ops.concat([dims[:axis + 1], [count], dims[axis + 1:]], 0)
    return [reduction_ops.reduce_sum(array_ops.reshape(g, pairs), axis + 1)]


@register_rule(ONNX, REPEAT)
def _repeat_onnx(b, op, x):
    data, count, axis = x[0], op.attrs["repeats"], op.attrs["axis"]
    rank = op.inputs[0].ndim
    if axis is None:
        data, axis, rank = _flat(b, data), 0, 1
    dims = b.one("Shape", data)
    copies = b.one("Concat", b.one("Shape", data, end=axis + 1), b.int64s([count]),
                   b.one("Shape", data, start=axis + 1), axis=0)
    expanded = b.one("Expand", b.one("Unsqueeze", data, b.int64s([axis + 1])), copies)
    target = b.one("Mul", dims, b.int64s([count if i == axis else 1 for i in range(rank)]))
    return [b.one("Reshape", expanded, target, allowzero=1)]


@register_rule(NUMBA, REPEAT)
def _repeat_numba(op, a, typed):
    if op.attrs["axis"] is not None or op.inputs[0].ndim == 0:
        raise cannot_lower(op, "lowers repeat without an axis (numba's np.repeat takes none) of "
                               "an array only")
    return f"np.repeat({a[0]}, {op.attrs['repeats']})"


@register_rule(JAX, REPEAT)
def _repeat_jax(op, x):
    return array_namespace(x).repeat(x, op.attrs["repeats"], axis=op.attrs["axis"])


# ---- pad -----------------------------------------------------------------------------------------

PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pad_infer(inputs, *, pad_width, mode, constant_values):
    x = inputs[0]
    out = []
    for i, (d, (before, after)) in enumerate(zip(x.shape, pad_width)):
        if d == 0 and mode != "constant" and before + after:
            raise argument_error(
                InvalidArgumentError,
                f"pad: cannot extend the empty axis {i} with mode {mode!r} (only 'constant' can)",
            )
        out.append(None if d is None else d + before + after)
    return [(x.dtype, tuple(out))]


def _pairs_array(pairs, dtype=None):
    """Pairs as numpy reads them (a (rank, 2) array; () for a 0-d tensor is (0, 2))."""
    return np.reshape(np.array(pairs, dtype=dtype), (-1, 2))


def _pad_kernel(x, *, pad_width, mode, constant_values):
    if not pad_width:
        return x  # a 0-d tensor has no axis to pad
    extra = {"constant_values": _pairs_array(constant_values)} if mode == "constant" else {}
    return normalize(np.pad(x, _pairs_array(pad_width, np.int64), mode, **extra))


PAD = define_op("Pad", infer=_pad_infer, kernel=_pad_kernel)


def _per_axis_pairs(value, rank: int, what: str, integers: bool) -> tuple:
    """numpy's forms of a per-axis (before, after) argument: one number, one pair, or one pair
    per axis, as a tuple of `rank` pairs of Python numbers."""
    if isinstance(value, SymbolicTensor):
        raise refuse(TypeError, f"pad's {what} must be known while tracing (numbers or a "
                                f"constant), got the symbolic tensor {value.name}.")
    array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if array.dtype.kind not in ("iu" if integers else "iufb") and array.size:
        kind = "integers" if integers else "numbers"
        raise refuse(TypeError, f"pad's {what} must be {kind}, got {value!r}.")
    try:
        pairs = np.broadcast_to(array, (rank, 2))
    except ValueError:
        raise refuse(ValueError, f"pad's {what} {value!r} does not fit a tensor of rank {rank}: "
                                 "give one number, one (before, after) pair, or one pair per "
                                 "axis.") from None
    if integers and (pairs < 0).any():
        raise refuse(ValueError, f"pad's {what} must not be negative, got {value!r}.")
    return tuple((a.item(), b.item()) for a, b in pairs)


def pad(array, pad_width, mode="constant", constant_values=0):
    """numpy.pad: `array` with `pad_width` items added before and after each axis (one number,
    one (before, after) pair, or one pair per axis). Modes: "constant" (`constant_values`, one
    number or pairs like `pad_width`), "edge", "reflect", "symmetric" and "wrap"; numpy's
    statistic and ramp modes and a callable mode are not supported."""
    array = _tensor(array, "pad")
    if mode not in PAD_MODES:
        raise refuse(ValueError, f"pad: mode {mode!r} is not supported; the modes are "
                                 f"{', '.join(PAD_MODES)}.")
    pad_width = _per_axis_pairs(pad_width, array.ndim, "pad_width", integers=True)
    values = _per_axis_pairs(constant_values, array.ndim, "constant_values", integers=False)
    if mode != "constant" and any(v for pair in values for v in pair):
        raise refuse(ValueError, f"pad: constant_values is for mode 'constant', not {mode!r}.")
    shapes.static_check(_pad_infer, [array], pad_width=pad_width, mode=mode,
                        constant_values=values)
    return apply(PAD, [array], {"pad_width": pad_width, "mode": mode, "constant_values": values})


def _pad_gradient_kernel(grad, shape, *, pad_width, mode):
    """Each padded item's gradient added to the item it copies (padding by a constant copies
    none)."""
    shape = tuple(int(d) for d in shape)
    size = int(np.prod(shape))
    extra = {"constant_values": -1} if mode == "constant" else {}
    source = np.pad(np.arange(size).reshape(shape), _pairs_array(pad_width, np.int64), mode,
                    **extra)
    kept = source >= 0
    out = np.zeros(size, dtype=np.asarray(grad).dtype)
    np.add.at(out, source[kept], np.asarray(grad)[kept])
    return normalize(out.reshape(shape))


PAD_GRADIENT = define_op(
    "PadGrad",
    infer=lambda inputs, *, pad_width, mode: [(inputs[0].dtype, shapes.known_dims(inputs[1]))],
    kernel=_pad_gradient_kernel,
)


@register_rule(GRADIENT, PAD)
def _pad_gradient(op, grads):
    attrs = {"pad_width": op.attrs["pad_width"], "mode": op.attrs["mode"]}
    return [apply(PAD_GRADIENT, [grads[0], array_ops.shape(op.inputs[0])], attrs)]


@register_rule(GRADIENT, PAD_GRADIENT)
def _pad_gradient_gradient(op, grads):
    """PadGrad is linear: its gradient is the padding of the gradient (by zeros)."""
    zeros = tuple((0, 0) for _ in op.attrs["pad_width"])
    return [apply(PAD, [grads[0]], {**op.attrs, "constant_values": zeros}), None]


@register_rule(ONNX, PAD)
def _pad_onnx(b, op, x):
    mode, pad_width, x_in = op.attrs["mode"], op.attrs["pad_width"], op.inputs[0]
    if mode not in ("constant", "edge", "reflect"):
        raise cannot_export(op, f"ONNX Pad has no mode {mode!r} (constant, edge and reflect "
                                "export)")
    if mode == "reflect" and any(d is not None and max(p) >= d
                                 for d, p in zip(x_in.shape, pad_width)):
        raise cannot_export(op, "ONNX reflects once: a reflect pad must be shorter than its axis")
    dtype = dtypes.int32 if x_in.dtype is dtypes.int16 else x_in.dtype  # no int16 Pad
    data = b.cast(x[0], x_in.dtype, dtype)
    if mode != "constant":
        pads = [p[0] for p in pad_width] + [p[1] for p in pad_width]
        data = b.one("Pad", data, b.int64s(pads), mode=mode)
    else:
        rank = len(pad_width)
        sides = [(i, side) for i in range(rank) for side in (0, 1) if pad_width[i][side]]
        values = {op.attrs["constant_values"][i][side] for i, side in sides}
        groups = [sides] if len(values) <= 1 else [[s] for s in sides]
        for group in groups:  # one Pad, or one per side when the values differ (numpy's order)
            pads = [0] * (2 * rank)
            for i, side in group:
                pads[i + side * rank] = pad_width[i][side]
            value = op.attrs["constant_values"][group[0][0]][group[0][1]] if group else 0
            data = b.one("Pad", data, b.int64s(pads),
                         b.const(np.asarray(value).astype(dtype.np_dtype)), mode="constant")
    return [b.cast(data, dtype, x_in.dtype)]


@register_rule(JAX, PAD)
def _pad_jax(op, x):
    mode = op.attrs["mode"]
    extra = {"constant_values": op.attrs["constant_values"]} if mode == "constant" else {}
    out = array_namespace(x).pad(x, op.attrs["pad_width"], mode, **extra)
    return out.astype(op.outputs[0].dtype.np_dtype)


lacks(NUMBA, "numba does not compile np.pad", PAD)
lacks(NUMBA, "not lowered to numba yet", PAD_GRADIENT)
lacks(ONNX, "not yet: the gradient of pad has no export", PAD_GRADIENT)
lacks(JAX, "not lowered yet", PAD_GRADIENT)


# ---- tril, triu ----------------------------------------------------------------------------------

def _triangle_infer(inputs, *, k):
    x = inputs[0]
    if x.ndim == 0:
        raise argument_error(
            InvalidArgumentError,
            "tril and triu need a tensor of rank >= 1 (a 1-D one gives a "
            "square matrix, as in numpy)",
        )
    return [(x.dtype, (x.shape[0], x.shape[0]) if x.ndim == 1 else x.shape)]


TRIL = define_op("Tril", infer=_triangle_infer, kernel=lambda x, *, k: normalize(np.tril(x, k)))
TRIU = define_op("Triu", infer=_triangle_infer, kernel=lambda x, *, k: normalize(np.triu(x, k)))


def _triangle(opdef, m, k, what):
    m = _tensor(m, what)
    shapes.static_check(_triangle_infer, [m], k=0)
    return apply(opdef, [m], {"k": shapes.static_ints(k, f"{what}'s k")[0]})


def tril(m, k=0):
    """numpy.tril: the items of `m` on and below the k-th diagonal of its last two axes, zeros
    above (k > 0: above the main diagonal). A 1-D `m` gives a square matrix of its rows."""
    return _triangle(TRIL, m, k, "tril")


def triu(m, k=0):
    """numpy.triu: the items of `m` on and above the k-th diagonal of its last two axes, zeros
    below. A 1-D `m` gives a square matrix of its rows."""
    return _triangle(TRIU, m, k, "triu")


def _triangle_gradient(op, grads):
    g = apply(op.opdef, [grads[0]], op.attrs)
    return [reduction_ops.reduce_sum(g, 0) if op.inputs[0].ndim == 1 else g]


def _triangle_onnx(b, op, x):
    x_in = op.inputs[0]
    dtype = x_in.dtype
    if dtype.is_integer and dtype is not dtypes.int64 and dtype is not dtypes.int32:
        dtype = dtypes.int32  # onnxruntime's Trilu takes no narrower integers
    data = b.cast(x[0], x_in.dtype, dtype)
    if x_in.ndim == 1:
        dims = b.one("Shape", data)
        data = b.one("Expand", data, b.one("Concat", dims, dims, axis=0))
    out = b.one("Trilu", data, b.const(np.int64(op.attrs["k"])), upper=int(op.opdef is TRIU))
    return [b.cast(out, dtype, x_in.dtype)]


def _triangle_jax(name):
    def rule(op, x):
        xp = array_namespace(x)
        if x.ndim == 1:
            x = xp.broadcast_to(x, (x.shape[0], x.shape[0]))
        return getattr(xp, name)(x, op.attrs["k"])
    return rule


register_rule(GRADIENT, TRIL, TRIU)(_triangle_gradient)
register_rule(ONNX, TRIL, TRIU)(_triangle_onnx)
lacks(NUMBA, "not lowered to numba yet (numba's np.tril and np.triu take seconds to compile)",
      TRIL, TRIU)
register_rules(JAX, {TRIL: _triangle_jax("tril"), TRIU: _triangle_jax("triu")})


# ---- diagonals: diag, trace ----------------------------------------------------------------------

def _diagonal_length(rows, cols, offset):
    if rows is None or cols is None:
        return None
    return max(0, min(rows - max(-offset, 0), cols - max(offset, 0)))


def _diagonal_infer(inputs, *, offset, axis1, axis2):
    x = inputs[0]
    rest = tuple(d for i, d in enumerate(x.shape) if i not in (axis1, axis2))
    return [(x.dtype, rest + (_diagonal_length(x.shape[axis1], x.shape[axis2], offset),))]


DIAGONAL = define_op(
    "Diagonal", infer=_diagonal_infer,
    kernel=lambda x, *, offset, axis1, axis2: normalize(
        np.diagonal(x, offset, axis1, axis2).copy()),
)


def _embed_diagonal_kernel(v, shape, *, offset, axis1, axis2):
    """Zeros of `shape` with `v` on the diagonal that `Diagonal` reads (its last axis along
    the diagonal)."""
    out = np.zeros(tuple(int(d) for d in shape), dtype=np.asarray(v).dtype)
    i = np.arange(np.shape(v)[-1])
    np.moveaxis(out, (axis1, axis2), (-2, -1))[..., i + max(-offset, 0), i + max(offset, 0)] = v
    return normalize(out)


EMBED_DIAGONAL = define_op(
    "EmbedDiagonal",
    infer=lambda inputs, **attrs: [(inputs[0].dtype, shapes.known_dims(inputs[1]))],
    kernel=_embed_diagonal_kernel,
)


def diag(v, k=0):
    """numpy.diag: of a 1-D `v`, the square matrix with `v` on its k-th diagonal (k > 0: above
    the main one); of a 2-D `v`, its k-th diagonal (a copy)."""
    v = _tensor(v, "diag")
    k = shapes.static_ints(k, "diag's k")[0]
    attrs = {"offset": k, "axis1": 0, "axis2": 1}
    if v.ndim == 2:
        return apply(DIAGONAL, [v], attrs)
    if v.ndim != 1:
        raise refuse(ValueError, f"diag takes a 1-D or 2-D tensor, got rank {v.ndim}.")
    n = v.shape[0]
    if n is not None:
        side = array_ops.shape_tensor([n + abs(k)] * 2, "diag's shape")
    else:
        side = array_ops.size(v) + abs(k)
        side = array_ops.stack([side, side])
    return apply(EMBED_DIAGONAL, [v, side], attrs)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """numpy.trace: the sum along the `offset` diagonal of axes `axis1` and `axis2` (of the
    rest, one sum each). Integers narrower than int64 and bools add up in int64, as numpy's;
    `dtype` sets the dtype of the sum."""
    a = _tensor(a, "trace")
    if a.ndim < 2:
        raise refuse(ValueError, f"trace needs a tensor of rank >= 2, got rank {a.ndim}.")
    axis1, axis2 = (shapes.static_check(shapes.normalize_axis, int(x), a.ndim, "trace")
                    for x in (axis1, axis2))
    if axis1 == axis2:
        raise refuse(ValueError, "trace: axis1 and axis2 cannot be the same.")
    out = summed_dtype(a.dtype, "trace") if dtype is None else dtypes.as_dtype(dtype)
    offset = shapes.static_ints(offset, "trace's offset")[0]
    d = apply(DIAGONAL, [a], {"offset": offset, "axis1": axis1, "axis2": axis2})
    return reduction_ops.reduce_sum(math_ops.cast(d, out), -1)


register_rules(GRADIENT, {
    DIAGONAL: lambda op, grads: [apply(EMBED_DIAGONAL, [grads[0], array_ops.shape(op.inputs[0])],
                                       op.attrs)],
    EMBED_DIAGONAL: lambda op, grads: [apply(DIAGONAL, [grads[0]], op.attrs), None],
})


def _diagonal_coordinates(b, length, offset) -> str:
    """The (row, column) pairs of the first `length` items of diagonal `offset` (an ONNX
    (length, 2) int64 value; `length` a 1-D int64 of one item)."""
    i = b.one("Range", b.const(np.int64(0)), b.one("Squeeze", length, b.int64s([0])),
              b.const(np.int64(1)))
    rows = b.one("Add", i, b.const(np.int64(max(-offset, 0))))
    cols = b.one("Add", i, b.const(np.int64(max(offset, 0))))
    last = b.int64s([1])
    return b.one("Concat", b.one("Unsqueeze", rows, last), b.one("Unsqueeze", cols, last), axis=1)


def _diagonal_axes_first(op, rank):
    a1, a2 = op.attrs["axis1"], op.attrs["axis2"]
    return [a1, a2] + [i for i in range(rank) if i not in (a1, a2)]


@register_rule(ONNX, DIAGONAL)
def _diagonal_onnx(b, op, x):
    """The diagonal's axes moved first, GatherND of the diagonal's coordinates, and its axis
    moved last."""
    rank, offset = op.inputs[0].ndim, op.attrs["offset"]
    perm = _diagonal_axes_first(op, rank)
    data = b.one("Transpose", x[0], perm=perm)
    rows = b.one("Sub", _onnx_dim(b, data, 0), b.int64s([max(-offset, 0)]))
    cols = b.one("Sub", _onnx_dim(b, data, 1), b.int64s([max(offset, 0)]))
    length = b.one("Max", b.one("Min", rows, cols), b.int64s([0]))
    out = b.one("GatherND", data, _diagonal_coordinates(b, length, offset))
    return [b.one("Transpose", out, perm=list(range(1, rank - 1)) + [0])]


@register_rule(ONNX, EMBED_DIAGONAL)
def _embed_diagonal_onnx(b, op, x):
    """ScatterND of the values at the diagonal's coordinates into zeros (with the diagonal's
    axes first), then the axes moved back."""
    v, rank, offset = op.inputs[0], len(op.outputs[0].shape), op.attrs["offset"]
    perm = _diagonal_axes_first(op, rank)
    shape = b.cast(x[1], op.inputs[1].dtype, dtypes.int64)
    moved = b.one("Gather", shape, b.int64s(perm))
    zeros = b.one("Expand", b.const(np.zeros((), v.dtype.np_dtype)), moved)
    updates = b.one("Transpose", x[0], perm=[v.ndim - 1] + list(range(v.ndim - 1)))
    coordinates = _diagonal_coordinates(b, _onnx_dim(b, x[0], v.ndim - 1), offset)
    out = b.one("ScatterND", zeros, coordinates, updates)
    return [b.one("Transpose", out, perm=[int(p) for p in np.argsort(perm)])]


@register_rule(NUMBA, DIAGONAL)
def _diagonal_numba(op, a, typed):
    if op.inputs[0].ndim != 2 or (op.attrs["axis1"], op.attrs["axis2"]) != (0, 1):
        raise cannot_lower(op, "lowers the diagonal of a matrix only")
    return f"np.diag({a[0]}, {op.attrs['offset']})"


@register_rule(JAX, DIAGONAL)
def _diagonal_jax(op, x):
    return array_namespace(x).diagonal(x, op.attrs["offset"], op.attrs["axis1"],
                                       op.attrs["axis2"])


@register_rule(JAX, EMBED_DIAGONAL)
def _embed_diagonal_jax(op, v, shape):
    xp, attrs = array_namespace(v), op.attrs
    if array_namespace(shape) is not np:
        raise NoLoweringError(with_origin(
            "jit_compile='xla' cannot compile the EmbedDiagonal op: its shape is only known when "
            "the graph runs, and XLA needs it while compiling.", op.origin))
    out = xp.zeros(tuple(int(d) for d in np.ravel(shape)), dtype=op.outputs[0].dtype.np_dtype)
    moved = xp.moveaxis(out, (attrs["axis1"], attrs["axis2"]), (-2, -1))
    i = np.arange(v.shape[-1])
    offset = attrs["offset"]
    if xp is np:
        moved[..., i + max(-offset, 0), i + max(offset, 0)] = v
    else:
        moved = moved.at[..., i + max(-offset, 0), i + max(offset, 0)].set(v)
    return xp.moveaxis(moved, (-2, -1), (attrs["axis1"], attrs["axis2"]))


lacks(NUMBA, "not lowered to numba yet (its shape is an input)", EMBED_DIAGONAL)


# ---- take, take_along_axis -----------------------------------------------------------------------

def _indices(indices, what):
    indices = convert_to_tensor(indices)
    if not indices.dtype.is_integer:
        raise refuse(TypeError, f"{what}: indices must be integers, got {indices.dtype.name}.")
    return indices


def take(a, indices, axis=None):
    """numpy.take: the items of `a` at `indices` along `axis` (None: of the flattened array);
    negative indices count from the end, and an index out of range is an InvalidArgumentError
    (numpy's mode='raise'). It is `gather` (of the flattened `a` without an axis)."""
    a = _tensor(a, "take", strings=True)
    indices = _indices(indices, "take")
    if axis is None:
        return array_ops.gather(array_ops.reshape(a, [-1]), indices, 0)
    return array_ops.gather(a, indices, shapes.static_ints(axis, "take's axis")[0])


def _take_along_axis_infer(inputs, *, axis):
    x, indices = inputs
    if x.ndim != indices.ndim:
        raise argument_error(
            InvalidArgumentError,
            f"take_along_axis: indices (rank {indices.ndim}) must have the rank of the tensor "
            f"(rank {x.ndim})",
        )
    others = shapes.broadcast(x.shape[:axis] + (1,) + x.shape[axis + 1:],
                              indices.shape[:axis] + (1,) + indices.shape[axis + 1:])
    return [(x.dtype, others[:axis] + (indices.shape[axis],) + others[axis + 1:])]


TAKE_ALONG_AXIS = define_op(
    "TakeAlongAxis", infer=_take_along_axis_infer,
    kernel=lambda x, indices, *, axis: normalize(np.take_along_axis(x, indices, axis)),
)


def take_along_axis(arr, indices, axis=-1):
    """numpy.take_along_axis: the items of `arr` at `indices` along `axis`, which has `arr`'s
    rank (other axes broadcast), e.g. with the result of `argsort`; None: along the flattened
    `arr` (1-D `indices`). An index out of range is an InvalidArgumentError."""
    arr = _tensor(arr, "take_along_axis", strings=True)
    indices = _indices(indices, "take_along_axis")
    if axis is None:
        arr, axis = array_ops.reshape(arr, [-1]), 0
    axis = shapes.static_check(shapes.normalize_axis, int(axis), arr.ndim, "take_along_axis")
    shapes.static_check(_take_along_axis_infer, [arr, indices], axis=axis)
    return apply(TAKE_ALONG_AXIS, [arr, indices], {"axis": axis})


def _take_along_axis_gradient_kernel(grad, indices, shape, *, axis):
    """The gradient of each taken item added to the item it came from (in the broadcast shape,
    then summed over the axes `arr` was broadcast along)."""
    shape = tuple(int(d) for d in shape)
    grad = np.asarray(grad)
    full = list(grad.shape)
    full[axis] = shape[axis]
    out = np.zeros(full, dtype=grad.dtype)
    grid = list(np.ix_(*[np.arange(n) for n in grad.shape]))
    grid[axis] = np.broadcast_to(indices, grad.shape)
    np.add.at(out, tuple(grid), grad)
    spread = tuple(i for i, d in enumerate(shape) if d == 1 and full[i] != 1)
    return normalize(out.sum(axis=spread, keepdims=True, dtype=grad.dtype) if spread else out)


TAKE_ALONG_AXIS_GRADIENT = define_op(
    "TakeAlongAxisGrad",
    infer=lambda inputs, *, axis: [(inputs[0].dtype, shapes.known_dims(inputs[2]))],
    kernel=_take_along_axis_gradient_kernel,
)

register_rules(GRADIENT, {
    TAKE_ALONG_AXIS: lambda op, grads: [
        apply(TAKE_ALONG_AXIS_GRADIENT, [grads[0], op.inputs[1], array_ops.shape(op.inputs[0])],
              op.attrs), None],
    TAKE_ALONG_AXIS_GRADIENT: lambda op, grads: [
        apply(TAKE_ALONG_AXIS, [grads[0], op.inputs[1]], op.attrs), None, None],
})


@register_rule(ONNX, TAKE_ALONG_AXIS)
def _take_along_axis_onnx(b, op, x):
    """GatherElements, after both operands are broadcast (but along the axis)."""
    axis = op.attrs["axis"]
    data, indices = x
    if tuple(op.inputs[0].shape[:axis] + op.inputs[0].shape[axis + 1:]) != tuple(
            op.inputs[1].shape[:axis] + op.inputs[1].shape[axis + 1:]) or None in (
            op.inputs[0].shape + op.inputs[1].shape):

        def but_axis(name):
            return b.one("Concat", b.one("Shape", name, end=axis), b.int64s([1]),
                         b.one("Shape", name, start=axis + 1), axis=0)

        data, indices = (b.one("Expand", data, but_axis(x[1])),
                         b.one("Expand", indices, but_axis(x[0])))
    return [b.one("GatherElements", data, indices, axis=axis)]


@register_rule(JAX, TAKE_ALONG_AXIS)
def _take_along_axis_jax(op, x, indices):
    return array_namespace(x).take_along_axis(x, indices, axis=op.attrs["axis"])


lacks(NUMBA, "not lowered to numba yet", TAKE_ALONG_AXIS, TAKE_ALONG_AXIS_GRADIENT)
lacks(ONNX, "not yet: the gradient of take_along_axis has no export", TAKE_ALONG_AXIS_GRADIENT)
lacks(JAX, "not lowered yet", TAKE_ALONG_AXIS_GRADIENT)
