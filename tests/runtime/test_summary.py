"""rt.summary: TensorFlow's summary API, writing event files that TensorBoard reads back,
eagerly and from inside rt.function (a write per call, in program order, only when a tensor
`if` is true)."""

import sys

import numpy as np
import pytest

import runtime as rt
from runtime import summary

try:
    from tensorboard.backend.event_processing import (
        data_provider,
        event_file_loader,
        plugin_event_accumulator,
        plugin_event_multiplexer,
    )
    from tensorboard.context import RequestContext
    from tensorboard.util import tensor_util
except ImportError:  # the optional extra: pip install 'tracegraph[summary]'
    tensorboard = None
else:
    import tensorboard

needs_tensorboard = pytest.mark.skipif(tensorboard is None, reason="needs tensorboard")


@pytest.fixture(autouse=True)
def _no_default_writer_or_step():
    yield
    summary._state.writer = None
    summary._state.step = None


def _accumulator(logdir):
    accumulator = plugin_event_accumulator.EventAccumulator(str(logdir))
    accumulator.Reload()
    return accumulator


def _points(logdir, tag):
    """(step, value) of each summary of `tag`, in the order written."""
    return [(e.step, tensor_util.make_ndarray(e.tensor_proto))
            for e in _accumulator(logdir).Tensors(tag)]


def _dashboard_scalars(logdir):
    """What TensorBoard's Scalars dashboard reads: {tag: [(step, value), ...]} of the run."""
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(str(logdir))
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, str(logdir))
    runs = provider.read_scalars(RequestContext(), experiment_id="", plugin_name="scalars",
                                 downsample=10_000)
    return {tag: [(d.step, d.value) for d in data] for run in runs.values()
            for tag, data in run.items()}


def _events(logdir):
    """(tag, step, value) of every summary in the event files, in file order."""
    found = []
    for path in sorted(p for p in logdir.iterdir() if "tfevents" in p.name):
        for event in event_file_loader.EventFileLoader(str(path)).Load():
            for value in event.summary.value:
                found.append((value.tag, event.step,
                              tensor_util.make_ndarray(value.tensor).tolist()))
    return found


@needs_tensorboard
def test_scalar_every_100_of_1000_steps_reads_back_in_the_scalars_dashboard(tmp_path):
    writer = summary.create_file_writer(str(tmp_path))
    w = rt.Variable(5.0)
    with writer.as_default():
        for step in range(1000):
            loss = w * w / float(step + 1)
            if step % 100 == 0:
                assert bool(summary.scalar("loss", loss, step=step))
    writer.close()
    expected = [(s, np.float32(25.0 / (s + 1))) for s in range(0, 1000, 100)]
    assert [(s, v.dtype, v.shape) for s, v in _points(tmp_path, "loss")] == [
        (s, np.float32, ()) for s, _ in expected]
    assert [(s, float(v)) for s, v in _points(tmp_path, "loss")] == [
        (s, float(v)) for s, v in expected]
    assert _accumulator(tmp_path).PluginTagToContent("scalars") == {"loss": b""}
    assert _dashboard_scalars(tmp_path) == {"loss": [(s, float(v)) for s, v in expected]}
    assert [p.name.endswith(".v2") for p in tmp_path.iterdir()] == [True]


@needs_tensorboard
def test_scalar_inside_a_function_writes_on_every_call_with_its_values(tmp_path):
    writer = summary.create_file_writer(tmp_path)
    w = rt.Variable(5.0)

    @rt.function
    def train_step(step):
        loss = w * w / rt.cast(step + 1, rt.float32)
        summary.scalar("loss", loss, step=step)
        w.assign_sub(0.01)
        return loss

    with writer.as_default():
        for step in range(0, 1000, 100):
            train_step(rt.constant(step, rt.int64))
    writer.flush()
    assert train_step.experimental_get_tracing_count() == 1
    points = _dashboard_scalars(tmp_path)["loss"]
    assert [s for s, _ in points] == list(range(0, 1000, 100))
    assert [v for _, v in points] == pytest.approx(
        [(5.0 - 0.01 * i) ** 2 / (s + 1) for i, s in enumerate(range(0, 1000, 100))], rel=1e-5)


@needs_tensorboard
def test_writes_in_a_function_keep_program_order_with_other_effects(tmp_path, capsys):
    writer = summary.create_file_writer(tmp_path)
    counter = rt.Variable(0, dtype=rt.int64)

    @rt.function(autograph=False)
    def f(x):
        summary.scalar("a", x, step=counter)  # the Variable is read where the write is
        counter.assign_add(1)
        rt.print("between")
        summary.scalar("b", x * 2.0, step=counter)
        summary.text("c", rt.strings.format("x={}", x), step=counter)
        counter.assign_add(10)
        return rt.constant(0)  # no output needs the writes: they still run

    with writer.as_default():
        f(rt.constant(1.0))
        f(rt.constant(2.0))
    writer.close()
    assert capsys.readouterr().out == "between\nbetween\n"
    assert [(tag, step, value) for tag, step, value in _events(tmp_path) if tag != "c"] == [
        ("a", 0, 1.0), ("b", 1, 2.0), ("a", 11, 2.0), ("b", 12, 4.0)]
    assert [(tag, step, value) for tag, step, value in _events(tmp_path) if tag == "c"] == [
        ("c", 1, b"x=1.0"), ("c", 12, b"x=2.0")]
    assert [(tag, step) for tag, step, _ in _events(tmp_path)] == [
        ("a", 0), ("b", 1), ("c", 1), ("a", 11), ("b", 12), ("c", 12)]


@needs_tensorboard
def test_a_write_under_a_tensor_if_happens_only_when_true(tmp_path):
    writer = summary.create_file_writer(tmp_path)

    @rt.function
    def train_step(x, step):
        loss = x * 0.5
        if step % 100 == 0:
            summary.scalar("loss", loss, step=step)
        return loss

    with writer.as_default():
        for step in range(1000):
            train_step(rt.constant(float(step)), rt.constant(step, rt.int64))
    writer.close()
    assert train_step.experimental_get_tracing_count() == 1
    graph = train_step.get_concrete_function(rt.constant(0.0), rt.constant(0, rt.int64)).graph
    assert "If" in [op.type for op in graph.operations]  # a graph cond, not a Python `if`
    assert _dashboard_scalars(tmp_path) == {"loss": [(s, s * 0.5) for s in range(0, 1000, 100)]}


@needs_tensorboard
def test_histogram_and_text_read_back(tmp_path):
    writer = summary.create_file_writer(tmp_path)
    data = np.arange(12, dtype=np.float32).reshape(3, 4)

    @rt.function
    def f(x, step):
        summary.histogram("h_graph", x, step=step, buckets=4)
        summary.text("t_graph", rt.strings.join(["step", "run"], " "), step=step)

    with writer.as_default(step=7):
        assert bool(summary.histogram("weights", rt.constant(data)))  # the default step
        summary.histogram("const", [2.0, 2.0, 2.0], buckets=3)
        summary.histogram("none", rt.constant(data), buckets=0)
        summary.text("notes", "**hello**")
        summary.text("table", rt.constant([["a", "b"], ["c", "d"]]))
        f(rt.constant(data), rt.constant(3, rt.int64))
    writer.close()
    accumulator = _accumulator(tmp_path)
    assert set(accumulator.PluginTagToContent("histograms")) == {
        "weights", "const", "none", "h_graph"}
    assert set(accumulator.PluginTagToContent("text")) == {"notes", "table", "t_graph"}
    [(step, weights)] = _points(tmp_path, "weights")
    assert step == 7 and weights.shape == (30, 3) and weights.dtype == np.float64
    assert weights[:, 2].sum() == 12 and weights[0, 0] == 0 and weights[-1, 1] == 11
    np.testing.assert_allclose(weights[:, 1] - weights[:, 0], 11 / 30)
    [(_, constant)] = _points(tmp_path, "const")
    assert constant.tolist() == [[2.0, 2.0, 0.0], [2.0, 2.0, 0.0], [2.0, 2.0, 3.0]]
    assert _points(tmp_path, "none")[0][1].shape == (0, 3)
    [(step, graph_histogram)] = _points(tmp_path, "h_graph")
    assert step == 3 and graph_histogram.tolist() == [
        [0.0, 2.75, 3.0], [2.75, 5.5, 3.0], [5.5, 8.25, 3.0], [8.25, 11.0, 3.0]]
    assert _points(tmp_path, "notes")[0][1] == b"**hello**"
    assert _points(tmp_path, "table")[0][1].tolist() == [[b"a", b"b"], [b"c", b"d"]]
    assert _points(tmp_path, "t_graph") == [(3, b"step run")]


@needs_tensorboard
def test_without_a_default_writer_nothing_is_written_and_false_is_returned(tmp_path):
    result = summary.scalar("loss", 1.0, step=0)
    assert result.dtype is rt.bool and not bool(result)
    assert not bool(summary.histogram("h", [1.0]))  # no step needed either, as in TensorFlow
    summary.flush()  # nothing to flush

    @rt.function
    def f(x):
        summary.scalar("loss", x, step=1)
        return x + 1.0

    f(rt.constant(1.0))  # traced without a default writer: nothing is staged (TensorFlow's)
    graph = f.get_concrete_function(rt.constant(1.0)).graph
    assert "WriteSummary" not in [op.type for op in graph.operations]
    writer = summary.create_file_writer(tmp_path)
    with writer.as_default():
        f(rt.constant(2.0))  # the trace is reused: still writes nothing
    writer.close()
    assert _accumulator(tmp_path).Tags()["tensors"] == []
    noop = summary.create_noop_writer()
    with noop.as_default():
        assert not bool(summary.scalar("loss", 1.0, step=0))
    assert repr(summary.create_file_writer(None)) == repr(noop)


@needs_tensorboard
def test_the_writer_is_the_default_one_while_tracing(tmp_path):
    first = summary.create_file_writer(tmp_path / "first")
    second = summary.create_file_writer(tmp_path / "second")

    @rt.function
    def f(x):
        summary.scalar("x", x, step=0)
        return x

    with first.as_default():
        f(rt.constant(1.0))
    with second.as_default():
        f(rt.constant(2.0))  # the same trace: writes to `first`
    f(rt.constant(3.0))  # without a default writer too
    first.close()
    second.close()
    assert [v for _, v in _points(tmp_path / "first", "x")] == [1.0, 2.0, 3.0]
    assert _accumulator(tmp_path / "second").Tags()["tensors"] == []


@needs_tensorboard
def test_as_default_inside_a_function(tmp_path):
    writer = summary.create_file_writer(tmp_path)

    @rt.function
    def f(x):
        with writer.as_default(step=5):  # the writer and step of the trace; flushes each call
            summary.scalar("x", x)
        return x

    f(rt.constant(1.0))
    f(rt.constant(2.0))
    assert summary._state.writer is None and summary.experimental.get_step() is None
    graph = f.get_concrete_function(rt.constant(1.0)).graph
    assert [op.type for op in graph.operations if op.type not in ("Const", "Placeholder")] == [
        "WriteSummary", "FlushSummaryWriter"]
    writer.close()
    assert [(s, float(v)) for s, v in _points(tmp_path, "x")] == [(5, 1.0), (5, 2.0)]


@needs_tensorboard
def test_default_step_from_set_step_as_default_and_an_optimizer_variable(tmp_path):
    writer = summary.create_file_writer(tmp_path)
    optimizer = rt.optimizers.SGD(0.1)
    v = rt.Variable(1.0)
    assert summary.experimental.get_step() is None
    summary.experimental.set_step(optimizer.iterations)
    assert summary.experimental.get_step() is optimizer.iterations

    @rt.function
    def train():
        with rt.GradientTape() as tape:
            loss = v * v
        optimizer.apply_gradients([(tape.gradient(loss, v), v)])
        summary.scalar("loss", loss)  # step: the optimizer's iterations, when it runs
        return loss

    with writer.as_default():
        for _ in range(3):
            train()
        with writer.as_default(step=100):
            summary.scalar("loss", 0.5)
        assert summary.experimental.get_step() is optimizer.iterations
        summary.scalar("loss", 0.25, step=np.int64(200))
        summary.experimental.set_step(None)
        with pytest.raises(ValueError, match="no step set"):
            summary.scalar("loss", 1.0)
    writer.close()
    assert [s for s, _ in _points(tmp_path, "loss")] == [1, 2, 3, 100, 200]


@needs_tensorboard
def test_writing_after_close_is_a_clear_error(tmp_path):
    writer = summary.create_file_writer(tmp_path)

    @rt.function
    def f(x):
        summary.scalar("x", x, step=0)
        return x

    writer.set_as_default()
    f(rt.constant(1.0))
    summary.scalar("y", 1.0, step=0)
    writer.close()
    writer.close()  # twice: nothing
    writer.flush()  # closed: nothing
    assert writer.closed and "closed" in repr(writer)
    with pytest.raises(RuntimeError, match="is closed; create a new writer"):
        summary.scalar("y", 2.0, step=1)
    with pytest.raises(RuntimeError, match="writing the summary 'x' to .* which is closed"):
        f(rt.constant(2.0))  # traced while open: the graph's write fails when it runs
    with pytest.raises(RuntimeError, match="as_default.*closed"):
        with writer.as_default():
            pass
    with pytest.raises(RuntimeError, match="set_as_default.*closed"):
        writer.set_as_default()
    assert [v for _, v in _points(tmp_path, "x")] == [1.0]


@needs_tensorboard
def test_flush_and_close_inside_a_function_are_staged(tmp_path, monkeypatch):
    writer = summary.create_file_writer(tmp_path, flush_millis=10**7)  # no timed flush
    flushes = []
    flush_now = writer._flush_now
    monkeypatch.setattr(writer, "_flush_now", lambda: (flushes.append(1), flush_now()))

    @rt.function
    def f(x, last):
        summary.scalar("x", x, step=0)
        summary.flush()
        if last:
            writer.close()
        return x

    with writer.as_default():
        f(rt.constant(1.0), rt.constant(False))
        assert len(flushes) == 1 and not writer.closed
        assert [v for _, v in _points(tmp_path, "x")] == [1.0]
        f(rt.constant(2.0), rt.constant(True))
        assert len(flushes) == 2 and writer.closed
    assert [v for _, v in _points(tmp_path, "x")] == [1.0, 2.0]


@needs_tensorboard
def test_tags_take_name_scopes_and_bad_values_are_refused(tmp_path):
    writer = summary.create_file_writer(tmp_path)
    with writer.as_default(step=0):
        with rt.name_scope("layer1"):
            summary.scalar("mean", 1.0, description="the *mean*")
        with pytest.raises(ValueError, match=r"scalar\('v'\): a scalar summary takes a scalar"):
            summary.scalar("v", [1.0, 2.0])
        with pytest.raises(TypeError, match="takes a string tensor, got float32"):
            summary.text("t", 1.0)
        with pytest.raises(TypeError, match="real number tensor.*got string"):
            summary.histogram("h", "text")
        with pytest.raises(TypeError, match="the step is an integer"):
            summary.scalar("v", 1.0, step=True)
        with pytest.raises(TypeError, match="a scalar integer, got float32"):
            summary.scalar("v", 1.0, step=rt.constant(1.5))
        with pytest.raises(ValueError, match="buckets must be an int >= 0"):
            summary.histogram("h", [1.0], buckets=-1)
    writer.close()
    accumulator = _accumulator(tmp_path)
    assert accumulator.Tags()["tensors"] == ["layer1/mean"]
    assert accumulator.SummaryMetadata("layer1/mean").summary_description == "the *mean*"


@needs_tensorboard
def test_a_function_that_writes_summaries_cannot_be_saved(tmp_path):
    writer = summary.create_file_writer(tmp_path / "logs")

    @rt.function
    def f(x):
        summary.scalar("x", x, step=0)
        return x + 1.0

    with writer.as_default():
        f(rt.constant(1.0))
        with pytest.raises(rt.saved.SaveError, match="WriteSummary op .* cannot be saved"):
            rt.saved.save(f, str(tmp_path / "saved"))
    writer.close()


def test_without_tensorboard_create_file_writer_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tensorboard.summary.writer.event_file_writer", None)
    with pytest.raises(ImportError, match=r"pip install 'tracegraph\[summary\]'"):
        summary.create_file_writer(str(tmp_path))
