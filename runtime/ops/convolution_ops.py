"""2-D convolution and pooling of images, with TensorFlow's names and conventions: conv2d,
max_pool2d, avg_pool2d, and the gradients of conv2d as functions of their own
(conv2d_backprop_input, conv2d_backprop_filter).

Images are NHWC ([batch, height, width, channels]) and filters HWIO ([height, width,
in_channels, out_channels]). `padding` is "VALID" (no padding) or "SAME" (TF's rule: the output
has ceil(size / stride) rows, and the padding the windows need, `max((out - 1) * stride +
(k - 1) * dilation + 1 - size, 0)`, is split with the smaller half before). Float dtypes only
(float16, float32, float64), one dtype per op; float16 is computed in float32 and rounded once.

Seven ops, each with its kernel, inference (unknown dims give unknown output dims), gradient,
ONNX and JAX rules here (or the reason it has none: MaxPoolGrad has no gradient, the pooling
gradients no ONNX form, and none of them a numba lowering):

- `Conv2D(input, filters)`: for each row of the window, the windows' values in that row (a
  strided view of the padded input) copied into a matrix [batch * rows * columns, width *
  in_channels], times that row of the filters: one BLAS product per window row, summed (BLAS
  runs these faster than one product over the whole window). With one input channel, one
  tap-major matrix of the whole window and one product.
- `Conv2DBackpropInput(input_sizes, filters, grad)` (TF's op: the input's shape as a 1-D int
  tensor, read when the graph runs): for each tap of the window, the gradient times that tap's
  filters, added back into the padded input, which is then cropped (col2im).
- `Conv2DBackpropFilter(input, filter_sizes, grad)`: for each row of the window, that row's
  matrix (as for Conv2D), transposed, times the gradient: one product over (batch, rows,
  columns) per window row.
- `MaxPool(input)`, `AvgPool(input)`: a maximum (sum) over the kernel's taps of strided views.
  Padded positions never count: max pooling pads with -inf, average pooling divides by the
  number of input (not padded) values in each window, as TensorFlow does.
- `MaxPoolGrad(input, grad)`: each window's gradient goes to the first maximum of its window
  (in row-major order of the window; TensorFlow's CPU kernel also keeps the first maximum), and
  is summed where windows overlap.
- `AvgPoolGrad(input_sizes, grad)`: each window's gradient spread evenly over its input values.

The three convolution ops are bilinear and each one's gradients are the other two (and itself),
so gradients of any order are convolutions again. Every kernel sums in a fixed order, so
results are the same bit for bit from call to call, eagerly and in graphs.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from runtime.core import dtypes
from runtime.core.tensor import EagerTensor, Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import InvalidArgumentError, argument_error
from runtime.ops import array_ops, shapes
from runtime.ops.op_support import array_namespace, cannot_export, refuse
from runtime.ops.registry import (
    FRESH_OUTPUT,
    GRADIENT,
    JAX,
    NUMBA,
    ONNX,
    apply,
    define_op,
    lacks,
    register_rule,
)

_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_HWIO = " (filters are [height, width, in_channels, out_channels])"
_PADDINGS = ("VALID", "SAME")


# ---- geometry ----------------------------------------------------------------------------------

def _dim(size, k, stride, dilation, padding, what, name):
    """(output size, padding before, padding after) of one spatial dim of `size` rows read by
    windows of `k` taps `dilation` apart, `stride` apart (TF's VALID and SAME rules)."""
    span = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + span - size, 0)
        return out, total // 2, total - total // 2
    if size < span:
        dilated = f"dilated {what} " if dilation > 1 else f"{what} "
        raise argument_error(
            InvalidArgumentError,
            f"{name}: the input's {what} {size} is smaller than the window's {dilated}{span} "
            "with padding='VALID' (the output would be empty); pass a larger input or "
            "padding='SAME'",
        )
    return (size - span) // stride + 1, 0, 0


def _geometry(size_hw, k_hw, strides, dilations, padding, name):
    """[(out, before, after) of the height, the same of the width]."""
    return [_dim(size_hw[i], k_hw[i], strides[i], dilations[i], padding, ("height", "width")[i],
                 name) for i in range(2)]


def _out_dim(size, k, stride, dilation, padding, what, name):
    """The output size of one dim while tracing: None when the size or the window is unknown."""
    if size is None or k is None:
        return None
    return _dim(size, k, stride, dilation, padding, what, name)[0]


def _taps(geometry, k_hw, strides, dilations):
    """For each tap (a, b) of the window, in row-major order, the (rows, columns) slices of the
    padded input that the tap reads for all outputs."""
    (oh, _, _), (ow, _, _) = geometry
    rows = [slice(a * dilations[0], a * dilations[0] + (oh - 1) * strides[0] + 1, strides[0])
            for a in range(k_hw[0])]
    cols = [slice(b * dilations[1], b * dilations[1] + (ow - 1) * strides[1] + 1, strides[1])
            for b in range(k_hw[1])]
    return [(r, c) for r in rows for c in cols]


def _pads(geometry):
    (_, top, bottom), (_, left, right) = geometry
    return ((0, 0), (top, bottom), (left, right), (0, 0))


def _pad(m, x, geometry, fill=0):
    pads = _pads(geometry)
    if not any(p for pair in pads for p in pair):
        return x
    return m.pad(x, pads, constant_values=fill)


def _crop(x, geometry, size_hw):
    (_, top, _), (_, left, _) = geometry
    if top == left == 0 and x.shape[1:3] == tuple(size_hw):
        return x
    return x[:, top:top + size_hw[0], left:left + size_hw[1], :]


def _work(dtype):
    """The dtype a kernel computes in: float16 is computed in float32 (rounded once at the
    end); the others in themselves."""
    return np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)


def _windows(xp, k_hw, strides, dilations, geometry):
    """The windows of the padded input as a view [N, OH, OW, KH, KW, C] (no copy)."""
    (oh, _, _), (ow, _, _) = geometry
    span_h, span_w = ((k_hw[i] - 1) * dilations[i] + 1 for i in range(2))
    view = sliding_window_view(xp, (span_h, span_w), axis=(1, 2))  # [N, ., ., C, span, span]
    view = view[:, :(oh - 1) * strides[0] + 1:strides[0], :(ow - 1) * strides[1] + 1:strides[1],
                :, ::dilations[0], ::dilations[1]]
    return view.transpose(0, 1, 2, 4, 5, 3)


def _window_rows(xp, k_hw, strides, dilations, geometry):
    """For each row of the window, the windows' values in that row as a matrix
    [N * OH * OW, KW * C] (copied when asked for: one row's matrix at a time)."""
    (oh, _, _), (ow, _, _) = geometry
    view = _windows(xp, k_hw, strides, dilations, geometry)
    for a in range(k_hw[0]):
        yield np.ascontiguousarray(view[:, :, :, a]).reshape(xp.shape[0] * oh * ow, -1)


def _im2col(xp, k_hw, strides, dilations, geometry):
    """The windows of a one-channel padded input as a matrix [N * OH * OW, KH * KW] (im2col):
    one strided copy per tap into a tap-major matrix, returned transposed (BLAS reads it as it
    is; a copy of the window view would move one value at a time)."""
    (oh, _, _), (ow, _, _) = geometry
    cols = np.empty((k_hw[0] * k_hw[1], xp.shape[0], oh, ow), xp.dtype)
    for t, (rows, columns) in enumerate(_taps(geometry, k_hw, strides, dilations)):
        cols[t] = xp[:, rows, columns, 0]
    return cols.reshape(k_hw[0] * k_hw[1], -1).T


# ---- arguments ---------------------------------------------------------------------------------

def _pair(value, what, name):
    """An int, a pair, or TF's 4-list [1, v, v, 1] as a pair of ints >= 1."""
    try:
        items = shapes.static_ints(value, what)
    except TypeError as e:
        raise refuse(TypeError, f"{name}: {e} Pass an int or a pair of ints.") from None
    if len(items) == 4:
        if items[0] != 1 or items[3] != 1:
            raise refuse(ValueError, f"{name}: {what}={list(items)} would slide over the batch "
                                     "or channel dim; only [1, h, w, 1] is supported (or pass "
                                     "an int or a pair (h, w)).")
        items = items[1:3]
    elif len(items) == 1:
        items = items * 2
    if len(items) != 2:
        raise refuse(ValueError, f"{name}: {what} must be an int, a pair (h, w) or [1, h, w, 1], "
                                 f"got {value!r}.")
    if min(items) < 1:
        raise refuse(ValueError, f"{name}: {what} must be at least 1, got {value!r}.")
    return tuple(int(v) for v in items)


def _padding(padding, name):
    if not isinstance(padding, str):
        raise refuse(ValueError, f"{name}: padding must be 'VALID' or 'SAME', got {padding!r} "
                                 "(explicit paddings are not supported: pad the input with "
                                 "rt.pad first and use padding='VALID').")
    if padding.upper() not in _PADDINGS:
        raise refuse(ValueError, f"{name}: padding must be 'VALID' or 'SAME' (any case), got "
                                 f"{padding!r}.")
    return padding.upper()


def _data_format(data_format, name):
    if data_format not in ("NHWC", None):
        raise refuse(ValueError, f"{name}: only data_format='NHWC' is supported, got "
                                 f"{data_format!r}; transpose NCHW images with "
                                 "rt.transpose(x, [0, 2, 3, 1]) first.")


def _float_operands(pairs, name):
    """Converts (value, argument name) pairs to tensors of one float dtype."""
    tensors = [convert_to_tensor(v) for v, _ in pairs]
    for t, (_, what) in zip(tensors, pairs):
        if t.dtype not in _FLOATS:
            raise refuse(TypeError, f"{name}: {what} must be float16, float32 or float64, got "
                                    f"{t.dtype.name}; cast it with rt.cast({what}, rt.float32).")
    first = tensors[0]
    for t, (_, what) in zip(tensors[1:], pairs[1:]):
        if t.dtype is not first.dtype:
            raise refuse(TypeError, f"{name}: {pairs[0][1]} is {first.dtype.name} but {what} is "
                                    f"{t.dtype.name}; cast one with rt.cast(x, dtype) so they "
                                    "match.")
    return tensors


def _sizes_tensor(value, name, what):
    """A 1-D int32 tensor of 4 sizes (a list, a tuple, or an int tensor such as rt.shape(x))."""
    tensor = convert_to_tensor(value) if not isinstance(value, Tensor) else value
    if not tensor.dtype.is_integer or tuple(tensor.shape) not in ((4,), (None,)):
        raise refuse(TypeError, f"{name}: {what} must be 4 ints (a list or a 1-D int tensor "
                                f"such as rt.shape(x)), got {tensor.dtype.name}"
                                f"{list(tensor.shape)}.")
    return tensor


# ---- inference ---------------------------------------------------------------------------------

def _check_attrs(name, strides=(1, 1), dilations=(1, 1), padding="VALID", ksize=(1, 1)):
    """Attrs as the public functions make them (inference checks them: a loaded file may hold
    anything)."""
    for what, value in (("strides", strides), ("dilations", dilations), ("ksize", ksize)):
        if not (isinstance(value, tuple) and len(value) == 2
                and all(type(v) is int and v >= 1 for v in value)):
            raise argument_error(
                InvalidArgumentError, f"{name}: {what} must be a pair of ints >= 1, got {value!r}"
            )
    if padding not in _PADDINGS:
        raise argument_error(
            InvalidArgumentError, f"{name}: padding must be 'VALID' or 'SAME', got {padding!r}"
        )


def _image(t, what, name, layout):
    if t.dtype not in _FLOATS:
        raise argument_error(
            TypeError, f"{name}: {what} must be float16, float32 or float64, got {t.dtype.name}"
        )
    if len(t.shape) != 4:
        raise argument_error(
            InvalidArgumentError,
            f"{name}: {what} must be 4-D {layout}, got shape {list(t.shape)}"
            + (
                "; add a batch dim with rt.expand_dims(x, 0)"
                if what == "input" and len(t.shape) == 3
                else ""
            ),
        )
    return t.shape


def _same_dtype(name, *named):
    first, what = named[0]
    for t, other in named[1:]:
        if t.dtype is not first.dtype:
            raise argument_error(
                TypeError, f"{name}: {what} is {first.dtype.name} but {other} is {t.dtype.name}"
            )


def _agree(name, a, a_what, b, b_what, hint=""):
    """Two dims that must be equal (when both are known)."""
    if a is not None and b is not None and a != b:
        raise argument_error(
            InvalidArgumentError, f"{name}: {a_what} ({a}) does not match {b_what} ({b}){hint}"
        )


def _known_sizes(t, name, what):
    """The 4 sizes an int tensor holds, as far as tracing knows them (None: unknown)."""
    if not t.dtype.is_integer or len(t.shape) != 1 or t.shape[0] not in (4, None):
        raise argument_error(
            InvalidArgumentError,
            f"{name}: {what} must be a 1-D int tensor of 4 sizes, got "
            f"{t.dtype.name}{list(t.shape)}",
        )
    if isinstance(t, EagerTensor):
        sizes = tuple(int(v) for v in np.ravel(t.numpy()))
    else:
        sizes = shapes.known_dims(t)
    if len(sizes) != 4 or any(d is not None and d < 0 for d in sizes):
        raise argument_error(
            InvalidArgumentError, f"{name}: {what} must be 4 sizes >= 0, got {list(sizes)}"
        )
    return sizes


def _conv_output(name, x_shape, w_shape, strides, dilations, padding):
    n, h, w, c = x_shape
    kh, kw, c_in, o = w_shape
    _agree(name, c, "the input's channels", c_in, "the filters' in_channels", _HWIO)
    if (kh is not None and kh < 1) or (kw is not None and kw < 1):
        raise argument_error(
            InvalidArgumentError,
            f"{name}: the filters' height and width must be at least 1, got {list(w_shape)}",
        )
    return (n, _out_dim(h, kh, strides[0], dilations[0], padding, "height", name),
            _out_dim(w, kw, strides[1], dilations[1], padding, "width", name), o)


def conv2d_output_shape(input_shape, filters_shape, strides=1, padding="VALID", dilations=1):
    """The shape `conv2d` gives for an input and filters of these shapes (None where a dim is
    unknown); what a layer declares before it runs."""
    name = "conv2d"
    return _conv_output(name, tuple(input_shape), tuple(filters_shape),
                        _pair(strides, "strides", name), _pair(dilations, "dilations", name),
                        _padding(padding, name))


def pool2d_output_shape(input_shape, ksize, strides, padding="VALID"):
    """The shape `max_pool2d` and `avg_pool2d` give for an input of `input_shape`."""
    name = "pool2d"
    return _pool_output(name, tuple(input_shape), _pair(ksize, "ksize", name),
                        _pair(strides, "strides", name), _padding(padding, name))


def _conv2d_infer(inputs, *, strides, padding, dilations):
    x, w = inputs
    _check_attrs("conv2d", strides, dilations, padding)
    x_shape = _image(x, "input", "conv2d", "[batch, height, width, channels] (NHWC)")
    w_shape = _image(w, "filters", "conv2d", "[height, width, in_channels, out_channels] (HWIO)")
    _same_dtype("conv2d", (x, "input"), (w, "filters"))
    return [(x.dtype, _conv_output("conv2d", x_shape, w_shape, strides, dilations, padding))]


def _check_grad(name, g_shape, out_shape):
    for i, what in enumerate(("batch", "height", "width", "channels")):
        _agree(name, g_shape[i], f"out_backprop's {what}", out_shape[i],
               f"the convolution's output {what}")


def _backprop_input_infer(inputs, *, strides, padding, dilations):
    name = "conv2d_backprop_input"
    sizes, w, g = inputs
    _check_attrs(name, strides, dilations, padding)
    x_shape = _known_sizes(sizes, name, "input_sizes")
    w_shape = _image(w, "filters", name, "[height, width, in_channels, out_channels] (HWIO)")
    g_shape = _image(g, "out_backprop", name, "[batch, height, width, channels]")
    _same_dtype(name, (w, "filters"), (g, "out_backprop"))
    _check_grad(name, g_shape, _conv_output(name, x_shape, w_shape, strides, dilations, padding))
    n, h, wd, c = x_shape
    return [(g.dtype, (n if n is not None else g_shape[0], h, wd,
                       c if c is not None else w_shape[2]))]


def _backprop_filter_infer(inputs, *, strides, padding, dilations):
    name = "conv2d_backprop_filter"
    x, sizes, g = inputs
    _check_attrs(name, strides, dilations, padding)
    x_shape = _image(x, "input", name, "[batch, height, width, channels] (NHWC)")
    w_shape = _known_sizes(sizes, name, "filter_sizes")
    g_shape = _image(g, "out_backprop", name, "[batch, height, width, channels]")
    _same_dtype(name, (x, "input"), (g, "out_backprop"))
    _check_grad(name, g_shape, _conv_output(name, x_shape, w_shape, strides, dilations, padding))
    kh, kw, c, o = w_shape
    return [(x.dtype, (kh, kw, c if c is not None else x_shape[3],
                       o if o is not None else g_shape[3]))]


def _pool_output(name, x_shape, ksize, strides, padding):
    n, h, w, c = x_shape
    return (n, _out_dim(h, ksize[0], strides[0], 1, padding, "height", name),
            _out_dim(w, ksize[1], strides[1], 1, padding, "width", name), c)


def _pool_infer(name):
    def infer(inputs, *, ksize, strides, padding):
        x = inputs[0]
        _check_attrs(name, strides=strides, padding=padding, ksize=ksize)
        x_shape = _image(x, "input", name, "[batch, height, width, channels] (NHWC)")
        return [(x.dtype, _pool_output(name, x_shape, ksize, strides, padding))]
    return infer


def _max_pool_grad_infer(inputs, *, ksize, strides, padding):
    name = "max_pool2d gradient"
    x, g = inputs
    _check_attrs(name, strides=strides, padding=padding, ksize=ksize)
    x_shape = _image(x, "input", name, "[batch, height, width, channels] (NHWC)")
    g_shape = _image(g, "grad", name, "[batch, height, width, channels]")
    _same_dtype(name, (x, "input"), (g, "grad"))
    _check_grad(name, g_shape, _pool_output(name, x_shape, ksize, strides, padding))
    return [(x.dtype, x.shape)]


def _avg_pool_grad_infer(inputs, *, ksize, strides, padding):
    name = "avg_pool2d gradient"
    sizes, g = inputs
    _check_attrs(name, strides=strides, padding=padding, ksize=ksize)
    x_shape = _known_sizes(sizes, name, "input_sizes")
    g_shape = _image(g, "grad", name, "[batch, height, width, channels]")
    _check_grad(name, g_shape, _pool_output(name, x_shape, ksize, strides, padding))
    n, h, w, c = x_shape
    return [(g.dtype, (n if n is not None else g_shape[0], h, w,
                       c if c is not None else g_shape[3]))]


# ---- kernels -----------------------------------------------------------------------------------

def _check_value(name, a, a_what, b, b_what, hint=""):
    if a != b:
        raise argument_error(
            InvalidArgumentError, f"{name}: {a_what} ({a}) does not match {b_what} ({b}){hint}"
        )


def _sizes(values, name, what):
    sizes = tuple(int(v) for v in np.ravel(values))
    if len(sizes) != 4 or min(sizes) < 0:
        raise argument_error(
            InvalidArgumentError, f"{name}: {what} must be 4 sizes >= 0, got {list(sizes)}"
        )
    return sizes


def _check_runtime_grad(name, g, out_shape):
    for i, what in enumerate(("batch", "height", "width", "channels")):
        _check_value(name, g.shape[i], f"out_backprop's {what}", out_shape[i],
                     f"the convolution's output {what}")


def _conv_geometry(name, x_shape, w_shape, strides, padding, dilations):
    _check_value(name, x_shape[3], "the input's channels", w_shape[2],
                 "the filters' in_channels", _HWIO)
    if min(w_shape[:2]) < 1:
        raise argument_error(
            InvalidArgumentError,
            f"{name}: the filters' height and width must be at least 1, got {list(w_shape)}",
        )
    return _geometry(x_shape[1:3], w_shape[:2], strides, dilations, padding, name)


def _conv2d_kernel(x, w, *, strides, padding, dilations):
    geometry = _conv_geometry("conv2d", x.shape, w.shape, strides, padding, dilations)
    (oh, _, _), (ow, _, _) = geometry
    work = _work(x.dtype)
    if 0 in (x.shape[0], oh, ow, w.shape[3], x.shape[3]):
        return np.zeros((x.shape[0], oh, ow, w.shape[3]), x.dtype)
    xp, w = _pad(np, x.astype(work, copy=False), geometry), w.astype(work, copy=False)
    if x.shape[3] == 1:
        out = _im2col(xp, w.shape[:2], strides, dilations, geometry) @ w.reshape(-1, w.shape[3])
    else:  # one product per row of the window: BLAS runs these faster than one long product
        out = None
        for a, cols in enumerate(_window_rows(xp, w.shape[:2], strides, dilations, geometry)):
            part = cols @ w[a].reshape(-1, w.shape[3])
            out = part if out is None else np.add(out, part, out=out)
    return out.reshape(x.shape[0], oh, ow, w.shape[3]).astype(x.dtype, copy=False)


def _backprop_input_kernel(input_sizes, w, g, *, strides, padding, dilations):
    name = "conv2d_backprop_input"
    n, h, wd, c = _sizes(input_sizes, name, "input_sizes")
    kh, kw, _, o = w.shape
    geometry = _conv_geometry(name, (n, h, wd, c), w.shape, strides, padding, dilations)
    _check_runtime_grad(name, g, (n, geometry[0][0], geometry[1][0], o))
    work = _work(g.dtype)
    (oh, top, bottom), (ow, left, right) = geometry
    if 0 in (n, oh, ow, o, c):
        return np.zeros((n, h, wd, c), g.dtype)
    # each tap's share of the gradient, [KH * KW, N * OH * OW, C] (contiguous per tap)
    g, w = g.astype(work, copy=False).reshape(-1, o), w.astype(work, copy=False)
    padded = np.zeros((n, h + top + bottom, wd + left + right, c), work)
    taps = _taps(geometry, (kh, kw), strides, dilations)
    if c == 1:  # one product (a batch of matrix-vector products would be slower)
        shares = (w.reshape(kh * kw, o) @ g.T).reshape(kh * kw, n, oh, ow, c)
        for t, (rows, cols) in enumerate(taps):
            padded[:, rows, cols, :] += shares[t]
    else:  # one product per tap, added in as it is made
        w = w.reshape(kh * kw, c, o)
        for t, (rows, cols) in enumerate(taps):
            padded[:, rows, cols, :] += (g @ w[t].T).reshape(n, oh, ow, c)
    return np.ascontiguousarray(_crop(padded, geometry, (h, wd))).astype(g.dtype, copy=False)


def _backprop_filter_kernel(x, filter_sizes, g, *, strides, padding, dilations):
    name = "conv2d_backprop_filter"
    w_shape = _sizes(filter_sizes, name, "filter_sizes")
    geometry = _conv_geometry(name, x.shape, w_shape, strides, padding, dilations)
    _check_runtime_grad(name, g, (x.shape[0], geometry[0][0], geometry[1][0], w_shape[3]))
    work = _work(x.dtype)
    if 0 in (*w_shape, x.shape[0], g.shape[1], g.shape[2]):
        return np.zeros(w_shape, x.dtype)
    xp, g = _pad(np, x.astype(work, copy=False), geometry), g.astype(work, copy=False)
    g = g.reshape(-1, w_shape[3])
    if x.shape[3] == 1:
        out = _im2col(xp, w_shape[:2], strides, dilations, geometry).T @ g
    else:  # one product per row of the window (see _conv2d_kernel)
        out = np.stack([cols.T @ g for cols in _window_rows(xp, w_shape[:2], strides, dilations,
                                                            geometry)])
    return out.reshape(w_shape).astype(x.dtype, copy=False)


_NO_DILATION = (1, 1)


def _pool_geometry(name, x_shape, ksize, strides, padding):
    return _geometry(x_shape[1:3], ksize, strides, _NO_DILATION, padding, name)


def _max_pool_kernel(x, *, ksize, strides, padding):
    geometry = _pool_geometry("max_pool2d", x.shape, ksize, strides, padding)
    (oh, _, _), (ow, _, _) = geometry
    if 0 in (x.shape[0], oh, ow, x.shape[3]):
        return np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    xp = _pad(np, x, geometry, -np.inf)
    out = None
    for rows, cols in _taps(geometry, ksize, strides, _NO_DILATION):
        tap = xp[:, rows, cols, :]
        out = tap.copy() if out is None else np.maximum(out, tap, out=out)
    return out


def _counts(geometry, size_hw, ksize, strides):
    """[OH, OW]: how many input (not padded) values each window holds."""
    per_dim = []
    for (out, before, after), size, k, stride in zip(geometry, size_hw, ksize, strides):
        inside = np.zeros(size + before + after, np.int64)
        inside[before:before + size] = 1
        per_dim.append(sum(inside[a:a + (out - 1) * stride + 1:stride] for a in range(k)))
    return np.outer(per_dim[0], per_dim[1])


def _avg_pool_kernel(x, *, ksize, strides, padding):
    geometry = _pool_geometry("avg_pool2d", x.shape, ksize, strides, padding)
    (oh, _, _), (ow, _, _) = geometry
    if 0 in (x.shape[0], oh, ow, x.shape[3]):
        return np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    work = _work(x.dtype)
    xp = _pad(np, x.astype(work, copy=False), geometry)
    total = None
    for rows, cols in _taps(geometry, ksize, strides, _NO_DILATION):
        tap = xp[:, rows, cols, :]
        total = tap.copy() if total is None else np.add(total, tap, out=total)
    counts = _counts(geometry, x.shape[1:3], ksize, strides).astype(work)
    return (total / counts[None, :, :, None]).astype(x.dtype, copy=False)


def _add_at(m, total, index, value):
    """`total[index] += value` (numpy, in place) or its JAX form."""
    if m is np:
        total[index] += value
        return total
    return total.at[index].add(value)


def _max_pool_backward(m, x, g, ksize, strides, padding):
    """The gradient of max pooling (numpy or jax.numpy `m`): each window's gradient to the first
    maximum of the window, summed where windows overlap."""
    name = "max_pool2d gradient"
    geometry = _pool_geometry(name, x.shape, ksize, strides, padding)
    (oh, _, _), (ow, _, _) = geometry
    _check_runtime_grad(name, g, (x.shape[0], oh, ow, x.shape[3]))
    if 0 in (x.shape[0], oh, ow, x.shape[3]):
        return m.zeros(x.shape, x.dtype)
    xp = _pad(m, x, geometry, -np.inf)
    taps = _taps(geometry, ksize, strides, _NO_DILATION)
    best, first = None, None
    for t, (rows, cols) in enumerate(taps):
        tap = xp[:, rows, cols, :]
        if best is None:
            best, first = tap, m.zeros(tap.shape, np.int32)
        else:
            larger = tap > best  # strictly: on ties the earlier tap keeps the gradient
            best, first = m.where(larger, tap, best), m.where(larger, np.int32(t), first)
    work = _work(g.dtype)
    g = g.astype(work)
    padded = m.zeros(xp.shape, work)
    for t, (rows, cols) in enumerate(taps):
        padded = _add_at(m, padded, (slice(None), rows, cols, slice(None)),
                         m.where(first == t, g, m.zeros((), work)))
    return _crop(padded, geometry, x.shape[1:3]).astype(x.dtype)


def _avg_pool_backward(m, sizes, g, ksize, strides, padding):
    """The gradient of average pooling (numpy or jax.numpy `m`): each window's gradient spread
    evenly over the input values of the window."""
    name = "avg_pool2d gradient"
    n, h, w, c = sizes
    geometry = _pool_geometry(name, sizes, ksize, strides, padding)
    (oh, top, bottom), (ow, left, right) = geometry
    _check_runtime_grad(name, g, (n, oh, ow, c))
    if 0 in (n, oh, ow, c):
        return m.zeros(sizes, g.dtype)
    work = _work(g.dtype)
    counts = _counts(geometry, (h, w), ksize, strides).astype(work)
    share = g.astype(work) / counts[None, :, :, None]
    padded = m.zeros((n, h + top + bottom, w + left + right, c), work)
    for rows, cols in _taps(geometry, ksize, strides, _NO_DILATION):
        padded = _add_at(m, padded, (slice(None), rows, cols, slice(None)), share)
    return _crop(padded, geometry, (h, w)).astype(g.dtype)


def _max_pool_grad_kernel(x, g, *, ksize, strides, padding):
    return np.ascontiguousarray(_max_pool_backward(np, x, g, ksize, strides, padding))


def _avg_pool_grad_kernel(input_sizes, g, *, ksize, strides, padding):
    sizes = _sizes(input_sizes, "avg_pool2d gradient", "input_sizes")
    return np.ascontiguousarray(_avg_pool_backward(np, sizes, g, ksize, strides, padding))


CONV2D = define_op("Conv2D", infer=_conv2d_infer, kernel=_conv2d_kernel, groups=[FRESH_OUTPUT])
CONV2D_BACKPROP_INPUT = define_op("Conv2DBackpropInput", infer=_backprop_input_infer,
                                  kernel=_backprop_input_kernel, groups=[FRESH_OUTPUT])
CONV2D_BACKPROP_FILTER = define_op("Conv2DBackpropFilter", infer=_backprop_filter_infer,
                                   kernel=_backprop_filter_kernel, groups=[FRESH_OUTPUT])
MAX_POOL = define_op("MaxPool", infer=_pool_infer("max_pool2d"), kernel=_max_pool_kernel,
                     groups=[FRESH_OUTPUT])
AVG_POOL = define_op("AvgPool", infer=_pool_infer("avg_pool2d"), kernel=_avg_pool_kernel,
                     groups=[FRESH_OUTPUT])
MAX_POOL_GRAD = define_op("MaxPoolGrad", infer=_max_pool_grad_infer,
                          kernel=_max_pool_grad_kernel, groups=[FRESH_OUTPUT])
AVG_POOL_GRAD = define_op("AvgPoolGrad", infer=_avg_pool_grad_infer,
                          kernel=_avg_pool_grad_kernel, groups=[FRESH_OUTPUT])


# ---- the public functions ----------------------------------------------------------------------

def _conv_attrs(strides, padding, dilations, data_format, name):
    _data_format(data_format, name)
    return {"strides": _pair(strides, "strides", name), "padding": _padding(padding, name),
            "dilations": _pair(dilations, "dilations", name)}


def conv2d(input, filters, strides=1, padding="VALID", dilations=1,  # noqa: A002 - TF's name
           data_format="NHWC"):
    """tf.nn.conv2d: the 2-D convolution (cross-correlation, as TF's) of NHWC images `input`
    [batch, height, width, in_channels] with HWIO `filters` [height, width, in_channels,
    out_channels] -> [batch, out_height, out_width, out_channels]. `strides` and `dilations`: an
    int, a pair (h, w) or TF's [1, h, w, 1]; `padding`: "VALID" or "SAME" (TF's rule, any
    case). Float tensors of one dtype."""
    attrs = _conv_attrs(strides, padding, dilations, data_format, "conv2d")
    x, w = _float_operands([(input, "input"), (filters, "filters")], "conv2d")
    shapes.static_check(_conv2d_infer, [x, w], **attrs)
    return apply(CONV2D, [x, w], attrs)


def conv2d_backprop_input(input_sizes, filters, out_backprop, strides=1, padding="VALID",
                          dilations=1, data_format="NHWC"):
    """tf.compat.v1.nn.conv2d_backprop_input: the gradient of conv2d with respect to its input
    of shape `input_sizes` (4 ints, or an int tensor such as rt.shape(x)), given `filters` and
    the gradient `out_backprop` of the output (the transposed convolution)."""
    name = "conv2d_backprop_input"
    attrs = _conv_attrs(strides, padding, dilations, data_format, name)
    w, g = _float_operands([(filters, "filters"), (out_backprop, "out_backprop")], name)
    sizes = _sizes_tensor(input_sizes, name, "input_sizes")
    shapes.static_check(_backprop_input_infer, [sizes, w, g], **attrs)
    return apply(CONV2D_BACKPROP_INPUT, [sizes, w, g], attrs)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides=1, padding="VALID",  # noqa: A002 - TF's name
                           dilations=1, data_format="NHWC"):
    """tf.compat.v1.nn.conv2d_backprop_filter: the gradient of conv2d with respect to its
    filters of shape `filter_sizes` (4 ints, or an int tensor), given the `input` and the
    gradient `out_backprop` of the output."""
    name = "conv2d_backprop_filter"
    attrs = _conv_attrs(strides, padding, dilations, data_format, name)
    x, g = _float_operands([(input, "input"), (out_backprop, "out_backprop")], name)
    sizes = _sizes_tensor(filter_sizes, name, "filter_sizes")
    shapes.static_check(_backprop_filter_infer, [x, sizes, g], **attrs)
    return apply(CONV2D_BACKPROP_FILTER, [x, sizes, g], attrs)


def _pool(opdef, name, input, ksize, strides, padding, data_format):  # noqa: A002
    _data_format(data_format, name)
    attrs = {"ksize": _pair(ksize, "ksize", name), "strides": _pair(strides, "strides", name),
             "padding": _padding(padding, name)}
    (x,) = _float_operands([(input, "input")], name)
    shapes.static_check(opdef.infer, [x], **attrs)
    return apply(opdef, [x], attrs)


def max_pool2d(input, ksize, strides, padding="VALID",  # noqa: A002 - TF's name
               data_format="NHWC"):
    """tf.nn.max_pool2d: the maximum of each `ksize` window of NHWC images, windows `strides`
    apart (each an int, a pair (h, w) or [1, h, w, 1]); with "SAME" padding the padded
    positions never count. Float tensors."""
    return _pool(MAX_POOL, "max_pool2d", input, ksize, strides, padding, data_format)


def avg_pool2d(input, ksize, strides, padding="VALID",  # noqa: A002 - TF's name
               data_format="NHWC"):
    """tf.nn.avg_pool2d: the mean of each `ksize` window of NHWC images, windows `strides`
    apart; with "SAME" padding each window's mean is over its input values only (the padded
    positions are not counted), as TensorFlow's. Float tensors."""
    return _pool(AVG_POOL, "avg_pool2d", input, ksize, strides, padding, data_format)


# ---- gradients ---------------------------------------------------------------------------------

def _conv(x, w, attrs):
    return apply(CONV2D, [x, w], attrs)


def _grad_input(sizes, w, g, attrs):
    return apply(CONV2D_BACKPROP_INPUT, [sizes, w, g], attrs)


def _grad_filter(x, sizes, g, attrs):
    return apply(CONV2D_BACKPROP_FILTER, [x, sizes, g], attrs)


@register_rule(GRADIENT, CONV2D)
def _conv2d_gradient(op, grads):
    """<g, conv(x, w)> = <backprop_input(g; w), x> = <backprop_filter(x; g), w>."""
    x, w = op.inputs
    return [_grad_input(array_ops.shape(x), w, grads[0], op.attrs),
            _grad_filter(x, array_ops.shape(w), grads[0], op.attrs)]


@register_rule(GRADIENT, CONV2D_BACKPROP_INPUT)
def _backprop_input_gradient(op, grads):
    """backprop_input(w, g) is bilinear with <gx, backprop_input(w, g)> = <g, conv(gx, w)>."""
    _, w, g = op.inputs
    gx = grads[0]
    return [None, _grad_filter(gx, array_ops.shape(w), g, op.attrs), _conv(gx, w, op.attrs)]


@register_rule(GRADIENT, CONV2D_BACKPROP_FILTER)
def _backprop_filter_gradient(op, grads):
    """backprop_filter(x, g) is bilinear with <gw, backprop_filter(x, g)> = <g, conv(x, gw)>."""
    x, _, g = op.inputs
    gw = grads[0]
    return [_grad_input(array_ops.shape(x), gw, g, op.attrs), None, _conv(x, gw, op.attrs)]


@register_rule(GRADIENT, MAX_POOL)
def _max_pool_gradient(op, grads):
    return [apply(MAX_POOL_GRAD, [op.inputs[0], grads[0]], op.attrs)]


@register_rule(GRADIENT, AVG_POOL)
def _avg_pool_gradient(op, grads):
    return [apply(AVG_POOL_GRAD, [array_ops.shape(op.inputs[0]), grads[0]], op.attrs)]


@register_rule(GRADIENT, AVG_POOL_GRAD)
def _avg_pool_grad_gradient(op, grads):
    """AvgPoolGrad is the transpose of (linear) AvgPool: its gradient is AvgPool."""
    return [None, apply(AVG_POOL, [grads[0]], op.attrs)]


lacks(GRADIENT, "second-order gradients of max pooling are not implemented (they would gather "
      "the gradient at each window's first maximum)", MAX_POOL_GRAD)


# ---- ONNX --------------------------------------------------------------------------------------

_TO_NCHW, _TO_NHWC, _HWIO_TO_OIHW = [0, 3, 1, 2], [0, 2, 3, 1], [3, 2, 0, 1]


def _static_geometry(op, size_hw, k_hw, strides, dilations, padding):
    """The geometry from the static dims; a clear export error when one it needs is unknown."""
    if padding == "VALID" and op.opdef in (CONV2D, MAX_POOL, AVG_POOL):
        return None  # no padding: the node needs no sizes
    if None in (*size_hw, *k_hw):
        raise cannot_export(op, f"with padding={padding!r} the ONNX node needs static pads, "
                                "computed from the input's height and width and the window's, "
                                f"but they are unknown while tracing ({list(size_hw)}, window "
                                f"{list(k_hw)}); trace with a TensorSpec whose height and width "
                                "are known (the batch may stay None)")
    return _geometry(size_hw, k_hw, strides, dilations, padding, op.type)


def _onnx_pads(geometry):
    if geometry is None:
        return [0, 0, 0, 0]
    (_, top, bottom), (_, left, right) = geometry
    return [top, left, bottom, right]


def _no_float64(op, onnx_type):
    if op.outputs[0].dtype is dtypes.float64:
        raise cannot_export(op, f"onnxruntime's {onnx_type} has no float64 kernel; cast to "
                                "float32 (rt.cast) before the op to export it")


@register_rule(ONNX, CONV2D)
def _conv2d_onnx(b, op, names):
    """Conv between NHWC -> NCHW transposes, the filters HWIO -> OIHW, explicit pads."""
    _no_float64(op, "Conv")
    a = op.attrs
    x, w = op.inputs
    geometry = _static_geometry(op, x.shape[1:3], w.shape[:2], a["strides"], a["dilations"],
                                a["padding"])
    out = b.one("Conv", b.one("Transpose", names[0], perm=_TO_NCHW),
                b.one("Transpose", names[1], perm=_HWIO_TO_OIHW), strides=list(a["strides"]),
                dilations=list(a["dilations"]), pads=_onnx_pads(geometry))
    return [b.one("Transpose", out, perm=_TO_NHWC)]


@register_rule(ONNX, CONV2D_BACKPROP_INPUT)
def _backprop_input_onnx(b, op, names):
    """ConvTranspose with the forward pads; output_padding adds the input's last rows (columns)
    that no window reads, so the output has the input's height (width)."""
    _no_float64(op, "ConvTranspose")
    a = op.attrs
    _, w, _ = op.inputs
    size_hw = op.outputs[0].shape[1:3]
    geometry = _static_geometry(op, size_hw, w.shape[:2], a["strides"], a["dilations"],
                                a["padding"])
    extra = []
    for (out, before, after), size, k, s, d in zip(geometry, size_hw, w.shape[:2], a["strides"],
                                                   a["dilations"]):
        extra.append(size + before + after - ((out - 1) * s + (k - 1) * d + 1))
    out = b.one("ConvTranspose", b.one("Transpose", names[2], perm=_TO_NCHW),
                b.one("Transpose", names[1], perm=_HWIO_TO_OIHW), strides=list(a["strides"]),
                dilations=list(a["dilations"]), pads=_onnx_pads(geometry), output_padding=extra)
    return [b.one("Transpose", out, perm=_TO_NHWC)]


@register_rule(ONNX, CONV2D_BACKPROP_FILTER)
def _backprop_filter_onnx(b, op, names):
    """A Conv with the roles swapped: the input's channels as the batch and its batch as the
    channels, the gradient as the filter; the forward strides become dilations and the forward
    dilations strides. Rows (columns) past the filter's, from input rows no window reads, are
    sliced off."""
    _no_float64(op, "Conv")
    a = op.attrs
    x = op.inputs[0]
    k_hw = op.outputs[0].shape[:2]
    geometry = _static_geometry(op, x.shape[1:3], k_hw, a["strides"], a["dilations"],
                                a["padding"])
    swapped = b.one("Conv", b.one("Transpose", names[0], perm=[3, 0, 1, 2]),
                    b.one("Transpose", names[2], perm=[3, 0, 1, 2]),
                    strides=list(a["dilations"]), dilations=list(a["strides"]),
                    pads=_onnx_pads(geometry))  # [C, O, KH', KW'], KH' >= KH
    sliced = b.one("Slice", swapped, b.int64s([0, 0]), b.int64s(list(k_hw)), b.int64s([2, 3]))
    return [b.one("Transpose", sliced, perm=[2, 3, 0, 1])]


def _pool_onnx(onnx_type, **extra):
    def rule(b, op, names):
        if onnx_type != "MaxPool":
            _no_float64(op, onnx_type)
        a = op.attrs
        geometry = _static_geometry(op, op.inputs[0].shape[1:3], a["ksize"], a["strides"],
                                    _NO_DILATION, a["padding"])
        out = b.one(onnx_type, b.one("Transpose", names[0], perm=_TO_NCHW),
                    kernel_shape=list(a["ksize"]), strides=list(a["strides"]),
                    pads=_onnx_pads(geometry), **extra)
        return [b.one("Transpose", out, perm=_TO_NHWC)]
    return rule


register_rule(ONNX, MAX_POOL)(_pool_onnx("MaxPool"))
# count_include_pad=0: a window's mean is over its input values only, as TensorFlow's SAME
register_rule(ONNX, AVG_POOL)(_pool_onnx("AveragePool", count_include_pad=0))
lacks(ONNX, "ONNX has no gradient op of pooling (an exported model runs inference; take "
      "gradients before exporting, or export the forward graph)", MAX_POOL_GRAD, AVG_POOL_GRAD)


# ---- NUMBA -------------------------------------------------------------------------------------

lacks(NUMBA, "numba lowers ops to loops it compiles, and the kernels are strided views of the "
      "input times BLAS matrix products, which numba does not compile; a graph holding them "
      "runs on the default executor", CONV2D, CONV2D_BACKPROP_INPUT, CONV2D_BACKPROP_FILTER,
      MAX_POOL, AVG_POOL, MAX_POOL_GRAD, AVG_POOL_GRAD)


# ---- JAX ---------------------------------------------------------------------------------------

def _static_sizes(op, sizes):
    """A sizes operand, which XLA needs while compiling (rt.shape(x) is known then)."""
    if not isinstance(sizes, (np.ndarray, np.generic)):
        raise argument_error(
            ValueError,
            f"its {op.type} sizes are only known when the graph runs, and XLA "
            "needs them while compiling",
        )
    return _sizes(sizes, op.type, "sizes")


def _in_work_dtype(fn):
    """A JAX rule `fn(jax, op, *xs)` computing float16 in float32 (as the kernels do), and the
    numpy kernel on values known while tracing."""
    def rule(op, *xs):
        if array_namespace(*xs) is np:
            return op.opdef.kernel(*xs, **op.attrs)
        import jax

        dtype = op.outputs[0].dtype.np_dtype
        work = _work(dtype)
        xs = [x.astype(work) if getattr(x, "dtype", None) == dtype else x for x in xs]
        return fn(jax, op, *xs).astype(dtype)
    return rule


def _jax_conv(jax, attrs, geometry):
    (_, top, bottom), (_, left, right) = geometry
    return lambda x, w: jax.lax.conv_general_dilated(
        x, w, window_strides=attrs["strides"], padding=[(top, bottom), (left, right)],
        rhs_dilation=attrs["dilations"], dimension_numbers=("NHWC", "HWIO", "NHWC"),
        precision=jax.lax.Precision.HIGHEST)


def _conv2d_jax(jax, op, x, w):
    a = op.attrs
    geometry = _conv_geometry(op.type, x.shape, w.shape, a["strides"], a["padding"],
                              a["dilations"])
    return _jax_conv(jax, a, geometry)(x, w)


def _backprop_input_jax(jax, op, sizes, w, g):
    """The transpose of the (linear) convolution of the input."""
    a, x_shape = op.attrs, _static_sizes(op, sizes)
    conv = _jax_conv(jax, a, _conv_geometry(op.type, x_shape, w.shape, a["strides"],
                                            a["padding"], a["dilations"]))
    transposed = jax.linear_transpose(lambda x: conv(x, w), jax.ShapeDtypeStruct(x_shape, g.dtype))
    return transposed(g)[0]


def _backprop_filter_jax(jax, op, x, sizes, g):
    """The transpose of the (linear) convolution of the filters."""
    a, w_shape = op.attrs, _static_sizes(op, sizes)
    conv = _jax_conv(jax, a, _conv_geometry(op.type, x.shape, w_shape, a["strides"],
                                            a["padding"], a["dilations"]))
    transposed = jax.linear_transpose(lambda w: conv(x, w), jax.ShapeDtypeStruct(w_shape, g.dtype))
    return transposed(g)[0]


def _window(jax, op, x, init, reducer):
    a = op.attrs
    geometry = _pool_geometry(op.type, x.shape, a["ksize"], a["strides"], a["padding"])
    return jax.lax.reduce_window(x, np.array(init, x.dtype), reducer, (1, *a["ksize"], 1),
                                 (1, *a["strides"], 1), _pads(geometry)), geometry


def _max_pool_jax(jax, op, x):
    return _window(jax, op, x, -np.inf, jax.lax.max)[0]


def _avg_pool_jax(jax, op, x):
    a = op.attrs
    total, geometry = _window(jax, op, x, 0, jax.lax.add)
    counts = _counts(geometry, x.shape[1:3], a["ksize"], a["strides"]).astype(x.dtype)
    return total / counts[None, :, :, None]


def _max_pool_grad_jax(jax, op, x, g):
    a = op.attrs
    return _max_pool_backward(jax.numpy, x, g, a["ksize"], a["strides"], a["padding"])


def _avg_pool_grad_jax(jax, op, sizes, g):
    a = op.attrs
    return _avg_pool_backward(jax.numpy, _static_sizes(op, sizes), g, a["ksize"], a["strides"],
                              a["padding"])


for _opdef, _rule in ((CONV2D, _conv2d_jax), (CONV2D_BACKPROP_INPUT, _backprop_input_jax),
                      (CONV2D_BACKPROP_FILTER, _backprop_filter_jax), (MAX_POOL, _max_pool_jax),
                      (AVG_POOL, _avg_pool_jax), (MAX_POOL_GRAD, _max_pool_grad_jax),
                      (AVG_POOL_GRAD, _avg_pool_grad_jax)):
    register_rule(JAX, _opdef)(_in_work_dtype(_rule))
