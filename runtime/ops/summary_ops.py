"""Summary ops: write a TensorBoard summary, flush or close a summary writer (`rt.summary`).

Each op is stateful with no outputs, like printing (runtime/ops/io_ops.py): graph passes never
prune, fold, merge or move it, and the executor runs it every time the graph runs, in program
order with the other effects (printing, assertions, variable assignments). Its kernel calls the
writer recorded in its `writer` attr (the default writer when the op was traced) with the
values of its inputs, so the summary holds the values of that run.

WriteSummary: inputs (step, data), a scalar integer step and the value to summarize; attrs
`writer`, `tag` (the summary's name, with name scopes), `plugin` (the TensorBoard plugin:
"scalars", "histograms" or "text"), `description` (str or None) and `buckets` (histograms: the
number of buckets, or None for 30). FlushSummaryWriter / CloseSummaryWriter: no inputs, attr
`writer`. A writer is a Python object, not data: a graph holding these ops cannot be saved
(rt.saved refuses it), exported to ONNX, or compiled by numba or XLA.
"""

from __future__ import annotations

from runtime.errors import argument_error
from runtime.ops.registry import GRADIENT, JAX, NUMBA, ONNX, define_op, lacks

PLUGINS = ("scalars", "histograms", "text")


def check_data(plugin: str, dtype, shape) -> None:
    """Raises TypeError / ValueError unless a tensor of `dtype` and `shape` (dims may be None)
    can be summarized by `plugin`."""
    if plugin == "text":
        if not dtype.is_string:
            raise argument_error(
                TypeError, f"a text summary takes a string tensor, got {dtype.name}"
            )
        return
    if not (dtype.is_integer or dtype.is_floating or dtype.is_bool):
        raise argument_error(
            TypeError,
            f"a {plugin[:-1]} summary takes a real number tensor (its values are "
            f"cast to float), got {dtype.name}",
        )
    if plugin == "scalars" and len(shape) != 0:
        raise argument_error(
            ValueError, f"a scalar summary takes a scalar (shape []), got the shape {list(shape)}"
        )


def check_step(dtype, shape) -> None:
    if not dtype.is_integer or len(shape) != 0:
        raise argument_error(
            TypeError, f"a summary's step is a scalar integer, got {dtype.name}{list(shape)}"
        )


def _infer_write(inputs, *, writer, tag, plugin, description, buckets):
    if len(inputs) != 2:
        raise argument_error(
            ValueError, f"WriteSummary takes 2 inputs (step, data), got {len(inputs)}"
        )
    if plugin not in PLUGINS:
        raise argument_error(ValueError, f"the plugin is one of {PLUGINS}, got {plugin!r}")
    if not isinstance(tag, str) or not (description is None or isinstance(description, str)):
        raise argument_error(TypeError, "tag and description must be strings")
    if buckets is not None and (type(buckets) is not int or buckets < 0):
        raise argument_error(ValueError, f"buckets must be an int >= 0 or None, got {buckets!r}")
    step, data = inputs
    check_step(step.dtype, step.shape)
    check_data(plugin, data.dtype, data.shape)
    return []


def _write_kernel(step, data, *, writer, tag, plugin, description, buckets):
    writer._write_summary(plugin, tag, int(step), data, description, buckets)
    return ()


def _flush_kernel(*, writer):
    writer._flush_now()
    return ()


def _close_kernel(*, writer):
    writer._close_now()
    return ()


def _no_inputs(inputs, *, writer):
    if inputs:
        raise argument_error(ValueError, "the op takes no inputs")
    return []


WRITE_SUMMARY = define_op("WriteSummary", infer=_infer_write, kernel=_write_kernel,
                          stateful=True)
FLUSH_SUMMARY_WRITER = define_op("FlushSummaryWriter", infer=_no_inputs, kernel=_flush_kernel,
                                 stateful=True)
CLOSE_SUMMARY_WRITER = define_op("CloseSummaryWriter", infer=_no_inputs, kernel=_close_kernel,
                                 stateful=True)
_OPS = (WRITE_SUMMARY, FLUSH_SUMMARY_WRITER, CLOSE_SUMMARY_WRITER)

lacks(GRADIENT, "no outputs: a side effect (writing a TensorBoard summary)", *_OPS)
lacks(ONNX, "a summary writer is a Python object writing event files; an ONNX model holds no "
      "Python code (trace the function to export without a default summary writer)", *_OPS)
lacks(NUMBA, "a summary writer is a Python object, which code that numba compiles cannot call",
      *_OPS)
lacks(JAX, "a summary writer is a Python object, which XLA cannot call", *_OPS)
