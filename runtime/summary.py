"""`rt.summary`: TensorFlow's summary API, writing event files that TensorBoard reads.

    writer = rt.summary.create_file_writer("logs/run1")
    with writer.as_default():
        for step in range(1000):
            loss = train_step(x, y)
            if step % 100 == 0:
                rt.summary.scalar("loss", loss, step=step)

Summaries go to the default writer (`writer.as_default()` / `writer.set_as_default()`, per
thread, as in TensorFlow); with none, `scalar`, `histogram` and `text` write nothing and return
False (a bool tensor), else True. `step=None` uses the default step
(`rt.summary.experimental.set_step`, or `writer.as_default(step=...)`); with neither, a write
raises ValueError. A step is a Python int, an integer scalar tensor or an integer Variable (such
as `optimizer.iterations`, read each time the summary is written).

The event files are TensorBoard's own format, written with TensorBoard's `EventFileWriter`
(on a background thread: call `flush()` or `close()` before reading them) and summary protos,
as TensorFlow 2 writes them: a scalar is a float32 tensor of the "scalars" plugin (TensorBoard's
Scalars dashboard), a histogram a float64 [buckets, 3] tensor of (left edge, right edge, count)
rows of the "histograms" plugin (Histograms and Distributions), a text a string tensor of the
"text" plugin. The writers need the `tensorboard` package: pip install 'tracegraph[summary]'.

Inside `rt.function`: a summary call is traced as a stateful WriteSummary op
(runtime/ops/summary_ops.py), so the write happens each time the graph runs, with that run's
values and step, in program order with the other effects (prints, assertions, variable
assignments); under a tensor `if` it happens only when the branch runs. As in TensorFlow, the
writer (and a default step that is a Python int) is the one that is the default *while the
function is traced*, recorded in the op: changing the default writer later does not change
what a traced function writes to. In particular, if no writer is the default while the function
is traced, nothing is staged and its calls never write (trace it inside
`with writer.as_default():`, or create the function there). `writer.flush()` and
`writer.close()` inside a function are staged too (`as_default()` flushes when its block ends,
as TensorFlow's does). A graph that writes summaries cannot be saved by `rt.saved` (a writer is
a Python object, not data), exported to ONNX, or compiled by numba or XLA.

Writing to a closed writer raises RuntimeError, eagerly and when a traced function runs;
`as_default()` / `set_as_default()` of a closed writer raise too, `flush()` and `close()` of a
closed writer do nothing.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import types

import numpy as np

from runtime.core import context
from runtime.core.source_info import user_origin
from runtime.core.tensor_conversion import constant, convert_to_tensor
from runtime.errors import with_origin
from runtime.ops import summary_ops
from runtime.ops.registry import apply
from runtime.variables import Variable, current_name_scope

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental", "flush",
           "histogram", "scalar", "text"]

_INSTALL = "pip install 'tracegraph[summary]' (or pip install tensorboard)"
DEFAULT_MAX_QUEUE = 10
DEFAULT_FLUSH_MILLIS = 120_000  # TensorFlow's: two minutes
DEFAULT_FILENAME_SUFFIX = ".v2"
DEFAULT_BUCKETS = 30


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None


_state = _State()


def _tensorboard():
    """TensorBoard's writer, protos and summary builders (imported on first use)."""
    try:
        from tensorboard.compat.proto import event_pb2
        from tensorboard.plugins.histogram import summary_v2 as histogram_v2
        from tensorboard.plugins.scalar import summary_v2 as scalar_v2
        from tensorboard.plugins.text import summary_v2 as text_v2
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError as e:
        raise ImportError(
            "rt.summary writes TensorBoard event files with the tensorboard package, which is "
            f"not installed: {_INSTALL}.") from e
    return types.SimpleNamespace(
        EventFileWriter=EventFileWriter, Event=event_pb2.Event,
        builders={"scalars": scalar_v2.scalar_pb, "histograms": histogram_v2.histogram_pb,
                  "text": text_v2.text_pb})


class SummaryWriter:
    """Writes summaries to event files in a log directory (rt.summary.create_file_writer)."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        tb = _tensorboard()
        self.logdir = logdir
        self._builders, self._event = tb.builders, tb.Event
        self._lock = threading.Lock()
        self._closed = False
        self._events = tb.EventFileWriter(logdir, max_queue_size=max_queue,
                                          flush_secs=flush_millis / 1000,
                                          filename_suffix=filename_suffix)

    def __repr__(self) -> str:
        state = ", closed" if self._closed else ""
        return f"<rt.summary writer of {self.logdir!r}{state}>"

    @property
    def closed(self) -> bool:
        """Whether `close()` was called."""
        return self._closed

    def set_as_default(self, step=None):
        """Makes this the default writer (of this thread) from now on; `step`, when given,
        becomes the default step."""
        self._check_open("set_as_default() of")
        _state.writer = self
        if step is not None:
            _state.step = step

    @contextlib.contextmanager
    def as_default(self, step=None):
        """A block in which this is the default writer (and `step`, when given, the default
        step); the previous ones are restored after it. Flushes when the block ends normally,
        as TensorFlow's does."""
        self._check_open("as_default() of")
        old_writer, old_step = _state.writer, _state.step
        try:
            _state.writer = self
            if step is not None:
                _state.step = step
            yield self
            self.flush()
        finally:
            _state.writer, _state.step = old_writer, old_step

    def init(self):
        """Nothing to do: the event file is created with the writer (TensorFlow's API)."""

    def flush(self):
        """Writes the queued summaries to disk (staged when a function is traced; does nothing
        when the writer is closed)."""
        if context.current_graph() is not None:
            apply(summary_ops.FLUSH_SUMMARY_WRITER, [], {"writer": self})
        else:
            self._flush_now()

    def close(self):
        """Flushes and closes the event file (staged when a function is traced); writing to
        the writer afterwards is an error. Closing twice does nothing."""
        if context.current_graph() is not None:
            apply(summary_ops.CLOSE_SUMMARY_WRITER, [], {"writer": self})
        else:
            self._close_now()

    # ---- what the kernels call ------------------------------------------------------------

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(
                f"rt.summary: {what} the summary writer of {self.logdir!r}, which is closed; "
                "create a new writer with rt.summary.create_file_writer.")

    def _write_summary(self, plugin, tag, step, value, description, buckets) -> None:
        build = self._builders[plugin]
        if plugin == "histograms":
            if buckets == 0:  # TensorFlow's shape [0, 3] (tensorboard's builder needs no data)
                summary = build(tag, [], buckets=0, description=description)
            else:
                summary = build(tag, value, buckets=buckets, description=description)
        else:
            summary = build(tag, value, description=description)
        event = self._event(wall_time=time.time(), step=step, summary=summary)
        with self._lock:
            self._check_open(f"writing the summary {tag!r} to")
            self._events.add_event(event)

    def _flush_now(self) -> None:
        with self._lock:
            if not self._closed:
                self._events.flush()

    def _close_now(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._events.close()


class _NoopSummaryWriter:
    """A writer that writes nothing (rt.summary.create_noop_writer, or a None logdir).

    As TensorFlow's, it never becomes the default: summaries inside its `as_default()` go to
    the default writer of the enclosing code, if any."""

    logdir = None
    closed = False

    def __repr__(self) -> str:
        return "<rt.summary no-op writer>"

    def set_as_default(self, step=None):
        pass

    @contextlib.contextmanager
    def as_default(self, step=None):
        yield self

    def init(self):
        pass

    def flush(self):
        pass

    def close(self):
        pass


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """A summary writer for the log directory `logdir` (created if needed), which writes a new
    event file there: `events.out.tfevents.<time>.<host>.<pid>.<n><filename_suffix>`.

    `max_queue`: how many summaries wait in the queue at most (default 10); `flush_millis`:
    how often the queue is written to disk (default 120000, two minutes); `filename_suffix`
    default ".v2". `logdir=None` gives a writer that writes nothing (TensorFlow's). `name`
    is accepted for TensorFlow compatibility. Needs the tensorboard package."""
    del name
    if logdir is None:
        return create_noop_writer()
    if not isinstance(logdir, (str, os.PathLike)):
        raise TypeError(f"create_file_writer takes a directory path, got "
                        f"{type(logdir).__name__}.")
    max_queue = DEFAULT_MAX_QUEUE if max_queue is None else max_queue
    flush_millis = DEFAULT_FLUSH_MILLIS if flush_millis is None else flush_millis
    suffix = DEFAULT_FILENAME_SUFFIX if filename_suffix is None else filename_suffix
    if type(max_queue) is not int or max_queue < 0:
        raise ValueError(f"max_queue must be an int >= 0, got {max_queue!r}.")
    if isinstance(flush_millis, bool) or not isinstance(flush_millis, (int, float)) or (
            flush_millis < 0):
        raise ValueError(f"flush_millis must be a number >= 0, got {flush_millis!r}.")
    if not isinstance(suffix, str):
        raise TypeError(f"filename_suffix must be a string, got {type(suffix).__name__}.")
    return SummaryWriter(os.fspath(logdir), max_queue, flush_millis, suffix)


def create_noop_writer():
    """A writer that writes nothing (see _NoopSummaryWriter)."""
    return _NoopSummaryWriter()


# ---- writing ---------------------------------------------------------------------------------

def scalar(name, data, step=None, description=None):
    """Writes the scalar `data` (cast to float32) under `name`, for TensorBoard's Scalars
    dashboard. Returns a bool tensor: True when it is written (staged, in a function), False
    when there is no default writer."""
    return _write("scalar", "scalars", name, data, step, description)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes a histogram of the values of `data` (any shape, cast to float64) under `name`:
    `buckets` (default 30) equal-width buckets from the least to the greatest value, as a
    [buckets, 3] tensor of (left edge, right edge, count) rows, as TensorFlow 2 writes it
    (Histograms and Distributions dashboards). Returns a bool tensor, as `scalar`."""
    if buckets is not None and (isinstance(buckets, bool) or not isinstance(
            buckets, (int, np.integer)) or buckets < 0):
        raise ValueError(with_origin(
            f"rt.summary.histogram: buckets must be an int >= 0 (or None for "
            f"{DEFAULT_BUCKETS}), got {buckets!r}.", user_origin()))
    return _write("histogram", "histograms", name, data, step, description,
                  None if buckets is None else int(buckets))


def text(name, data, step=None, description=None):
    """Writes the string tensor `data` (any shape; Markdown) under `name`, for TensorBoard's
    Text dashboard. Returns a bool tensor, as `scalar`."""
    return _write("text", "text", name, data, step, description)


def _write(function, plugin, name, data, step, description, buckets=None):
    writer = _state.writer
    if writer is None or isinstance(writer, _NoopSummaryWriter):
        return constant(False)
    origin = user_origin()
    where = f"rt.summary.{function}({name!r})"
    if not isinstance(name, str) or not name:
        raise ValueError(with_origin(f"rt.summary.{function}: the name must be a non-empty "
                                     f"string, got {name!r}.", origin))
    if description is not None and not isinstance(description, str):
        raise TypeError(with_origin(f"{where}: description must be a string, got "
                                    f"{type(description).__name__}.", origin))
    writer._check_open(f"{where} writes to")
    step = _step_tensor(step, where, origin)
    try:
        data = convert_to_tensor(data)
        summary_ops.check_data(plugin, data.dtype, data.shape)
    except (TypeError, ValueError) as e:
        raise type(e)(with_origin(f"{where}: {e}.", origin)) from None
    scope = current_name_scope()
    apply(summary_ops.WRITE_SUMMARY, [step, data], {
        "writer": writer, "tag": f"{scope}/{name}" if scope else name, "plugin": plugin,
        "description": description, "buckets": buckets})
    return constant(True)


def _step_tensor(step, where, origin):
    """The step as a scalar integer tensor: the given one, else the default step."""
    if step is None:
        step = _state.step
    if step is None:
        raise ValueError(with_origin(
            f"{where}: no step set: pass step=, or set a default step with "
            "rt.summary.experimental.set_step(step) or writer.as_default(step=step).", origin))
    if isinstance(step, (bool, np.bool_)):
        raise TypeError(with_origin(f"{where}: the step is an integer, got {step!r}.", origin))
    if isinstance(step, (int, np.integer)):
        return convert_to_tensor(np.int64(step))
    if not isinstance(step, Variable) and not hasattr(step, "dtype"):
        raise TypeError(with_origin(f"{where}: the step is an int, an integer scalar tensor or "
                                    f"Variable, got {type(step).__name__}.", origin))
    step = convert_to_tensor(step)  # a Variable is read here: in a function, when it runs
    try:
        summary_ops.check_step(step.dtype, step.shape)
    except TypeError as e:
        raise TypeError(with_origin(f"{where}: {e}.", origin)) from None
    return step


def flush(writer=None, name=None):
    """Flushes `writer`, or the default writer (nothing when there is none)."""
    del name
    writer = _state.writer if writer is None else writer
    if writer is not None:
        writer.flush()


# ---- the default step ------------------------------------------------------------------------

def set_step(step):
    """Sets the default step of the summaries written on this thread (None: no default). An int
    Variable (e.g. `optimizer.iterations`) is read each time a summary is written."""
    _state.step = step


def get_step():
    """The default step (as set: an int, tensor or Variable), or None."""
    return _state.step


experimental = types.SimpleNamespace(set_step=set_step, get_step=get_step)
