"""rt.data.Dataset: every source and transformation against a plain Python / numpy oracle, in
Python iteration and as a graph loop inside rt.function (seed S22); shuffle's order (one
function for both), reshuffling across iterations and graph calls, an epoch of training in one
graph call, and errors at the user's line."""

import collections
import inspect
import threading

import numpy as np
import pytest

import runtime as rt
import runtime.data  # noqa: F401 - rt.data
from runtime.data import structure
from runtime.ops import data_ops

Dataset = rt.data.Dataset
RNG = np.random.default_rng(0)
X = RNG.random((11, 3))  # float64
Y = np.arange(11, dtype=np.int64) * 10


def values(element):
    """An element as plain nested Python values (tuples and dicts kept)."""
    return structure.map_structure(lambda t: t.numpy().tolist(), element)


def python_elements(dataset):
    return [values(e) for e in dataset]


def graph_elements(dataset):
    """The elements a graph loop over `dataset` gives (flattened leaves, as values)."""
    leaves = len(structure.flatten(dataset.element_spec))

    @rt.function
    def run():
        a, b, c = [], [], []
        for element in dataset:
            flat = structure.flatten(element)
            a.append(flat[0])
            if leaves > 1:
                b.append(flat[1])
            if leaves > 2:
                c.append(flat[2])
        return a, b, c

    out = run()[:leaves]
    return [list(items) for items in zip(*[[t.numpy().tolist() for t in column]
                                           for column in out])]


def flat_values(elements):
    return [structure.flatten(e) for e in elements]


def line_of(marker: str) -> int:
    """The line of this file holding `marker` (a comment at the line an error must name)."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text and "line_of" not in text)


def assert_names_line(error, marker):
    text = str(error.value)
    assert f"test_data.py\", line {line_of(marker)}" in text, text


# ---- sources -------------------------------------------------------------------------------------


def test_from_tensor_slices_tuples_dicts_and_dtypes():
    ds = Dataset.from_tensor_slices((X, {"y": Y, "z": [1.5] * 11}))
    got = list(ds)
    assert len(got) == 11 == len(ds) and int(ds.cardinality()) == 11
    a, d = got[3]
    assert a.dtype is rt.float64 and d["y"].dtype is rt.int64 and d["z"].dtype is rt.float32
    np.testing.assert_array_equal(a.numpy(), X[3])
    assert python_elements(ds) == [(X[i].tolist(), {"y": int(Y[i]), "z": 1.5}) for i in range(11)]
    assert ds.element_spec == (rt.TensorSpec((3,), rt.float64), {
        "y": rt.TensorSpec((), rt.int64), "z": rt.TensorSpec((), rt.float32)})


def test_from_tensor_slices_namedtuple_and_list():
    Point = collections.namedtuple("Point", "x y")
    first = next(iter(Dataset.from_tensor_slices(Point(X, Y))))
    assert isinstance(first, Point) and float(first.y) == 0
    assert python_elements(Dataset.from_tensor_slices([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]


def test_from_tensors_and_range():
    assert python_elements(Dataset.from_tensors((X, 2))) == [(X.tolist(), 2)]
    for args in [(5,), (2, 9), (10, 2, -3), (3, 3), (0, 20, 7)]:
        ds = Dataset.range(*args)
        assert python_elements(ds) == list(range(*args)) and len(ds) == len(range(*args))
        assert ds.element_spec == rt.TensorSpec((), rt.int64)
    assert next(iter(Dataset.range(3, output_type=rt.int32))).dtype is rt.int32


def test_from_generator():
    def gen(n):
        for i in range(n):
            yield np.full(i, i, np.float64), i

    signature = (rt.TensorSpec((None,), rt.float32), rt.TensorSpec((), rt.int64))
    ds = Dataset.from_generator(gen, args=(4,), output_signature=signature)
    got = list(ds)
    assert [(a.numpy().tolist(), int(b)) for a, b in got] == [
        ([i] * i, i) for i in range(4)]
    assert got[2][0].dtype is rt.float32 and got[2][1].dtype is rt.int64
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY
    assert list(ds) and len(list(ds)) == 4  # a new generator each iteration


# ---- transformations against Python --------------------------------------------------------------


def test_map_unpacks_tuples_like_tf():
    ds = Dataset.from_tensor_slices((X, Y)).map(lambda x, y: (rt.reduce_sum(x), y + 1))
    assert python_elements(ds) == [(sum(X[i].tolist()), int(Y[i]) + 1) for i in range(11)]
    ds = Dataset.from_tensor_slices({"a": Y}).map(lambda d: d["a"] * 2)
    assert python_elements(ds) == [int(v) * 2 for v in Y]
    assert ds.element_spec == rt.TensorSpec((), rt.int64)
    calls = []

    def eager(v):  # runs eagerly in Python iteration: plain Python on eager tensors
        calls.append(type(v))
        return int(v.numpy()) if v.numpy() > 2 else 0

    assert python_elements(Dataset.range(5).map(eager)) == [0, 0, 0, 3, 4]
    assert set(calls) == {rt.EagerTensor}


def test_filter_batch_take_skip():
    ys = Y.tolist()
    assert python_elements(Dataset.from_tensor_slices(Y).filter(lambda v: v % 20 == 0)) == [
        v for v in ys if v % 20 == 0]
    batches = python_elements(Dataset.from_tensor_slices(Y).batch(4))
    assert batches == [ys[0:4], ys[4:8], ys[8:11]]
    assert python_elements(Dataset.from_tensor_slices(Y).batch(4, drop_remainder=True)) == [
        ys[0:4], ys[4:8]]
    assert python_elements(Dataset.from_tensor_slices(Y).take(3)) == ys[:3]
    assert python_elements(Dataset.from_tensor_slices(Y).take(-1)) == ys
    assert python_elements(Dataset.from_tensor_slices(Y).skip(8)) == ys[8:]
    assert python_elements(Dataset.from_tensor_slices(Y).skip(-1)) == []
    pairs = python_elements(Dataset.from_tensor_slices((X, Y)).batch(5))
    assert [np.array(a).shape for a, _ in pairs] == [(5, 3), (5, 3), (1, 3)]
    assert Dataset.from_tensor_slices(X).batch(5).element_spec == rt.TensorSpec(
        (None, 3), rt.float64)
    assert Dataset.from_tensor_slices(X).batch(5, True).element_spec.shape == (5, 3)


def test_repeat_enumerate_zip_prefetch():
    ys = Y.tolist()
    assert python_elements(Dataset.from_tensor_slices(Y).repeat(2)) == ys * 2
    assert python_elements(Dataset.from_tensor_slices(Y).repeat().take(25)) == (ys * 3)[:25]
    assert python_elements(Dataset.from_tensor_slices(Y).repeat(0)) == []
    assert python_elements(Dataset.from_tensor_slices(Y).enumerate(3)) == list(enumerate(ys, 3))
    a, b = Dataset.range(4), Dataset.from_tensor_slices({"y": Y})
    expected = [(i, {"y": ys[i]}) for i in range(4)]
    assert python_elements(Dataset.zip(a, b)) == expected
    assert python_elements(Dataset.zip((a, b))) == expected
    assert python_elements(a.zip(b)) == expected
    assert python_elements(Dataset.zip({"p": a, "q": a})) == [{"p": i, "q": i} for i in range(4)]
    assert python_elements(Dataset.from_tensor_slices((X, Y)).prefetch(2)) == python_elements(
        Dataset.from_tensor_slices((X, Y)))
    assert python_elements(Dataset.from_tensor_slices(Y).prefetch(rt.data.AUTOTUNE)) == ys


def test_prefetch_runs_ahead_in_a_thread_and_hands_on_errors():
    threads = []

    def record(v):
        threads.append(threading.current_thread())
        if int(v) == 7:
            raise KeyError("seven")
        return v

    ds = Dataset.range(10).map(record).prefetch(3)
    seen = []
    with pytest.raises(KeyError, match="seven"):
        for v in ds:
            seen.append(int(v))
    assert seen == list(range(7))
    assert threading.current_thread() not in threads
    for _ in Dataset.range(1000).prefetch(1):  # stopping early stops the thread
        break


def test_cardinality_and_len():
    n = Dataset.from_tensor_slices(Y)
    inf, unknown = rt.data.INFINITE_CARDINALITY, rt.data.UNKNOWN_CARDINALITY
    cases = [(n, 11), (n.batch(4), 3), (n.batch(4, True), 2), (n.take(20), 11), (n.skip(4), 7),
             (n.repeat(3), 33), (n.repeat(), inf), (n.repeat().take(5), 5), (n.filter(
                 lambda v: True), unknown), (n.repeat().skip(3), inf), (Dataset.zip(
                     n, n.repeat()), 11), (n.shuffle(4).enumerate(), 11), (n.map(lambda v: v), 11)]
    for ds, expected in cases:
        assert int(ds.cardinality()) == expected
        assert ds.cardinality().dtype is rt.int64
    with pytest.raises(TypeError, match="infinite"):
        len(n.repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(n.filter(lambda v: True))


def test_as_numpy_iterator():
    got = list(Dataset.from_tensor_slices((X, Y)).batch(6).as_numpy_iterator())
    assert isinstance(got[0][0], np.ndarray) and got[0][0].dtype == np.float64
    np.testing.assert_array_equal(got[1][1], Y[6:])


# ---- shuffle -------------------------------------------------------------------------------------


def buffered_shuffle_oracle(items, buffer_size, seed, epoch):
    """TF's buffered shuffle as written in its documentation, one draw at a time."""
    rng = data_ops.order_rng(seed, epoch)
    items, out = list(items), []
    buffer, rest = items[:buffer_size], items[buffer_size:]
    while buffer:
        slot = min(int(rng.random() * len(buffer)), len(buffer) - 1)
        out.append(buffer[slot])
        if rest:
            buffer[slot] = rest.pop(0)
        else:
            buffer[slot] = buffer[-1]
            buffer.pop()
    return out


@pytest.mark.parametrize("n, buffer_size", [(11, 1), (11, 4), (11, 11), (11, 100), (3000, 50)])
def test_shuffle_is_tfs_buffered_shuffle(n, buffer_size):
    ds = Dataset.range(n).shuffle(buffer_size, seed=42)
    got = python_elements(ds)
    assert got == buffered_shuffle_oracle(range(n), buffer_size, 42, 0)
    assert sorted(got) == list(range(n))
    if buffer_size == 1:
        assert got == list(range(n))
    # the element given k-th was among the first k + buffer_size inputs
    assert all(v < k + buffer_size for k, v in enumerate(got))
    assert data_ops.shuffle_order(n, buffer_size, 42, 0).tolist() == got


def test_reshuffle_each_iteration_and_seeds():
    ds = Dataset.range(50).shuffle(50, seed=1)
    first, second = python_elements(ds), python_elements(ds)
    assert first != second and sorted(first) == sorted(second)
    assert python_elements(Dataset.range(50).shuffle(50, seed=1)) == first  # a new dataset
    assert python_elements(Dataset.range(50).shuffle(50, seed=2)) != first
    fixed = Dataset.range(50).shuffle(50, seed=1, reshuffle_each_iteration=False)
    assert python_elements(fixed) == python_elements(fixed) == first
    rt.random.set_seed(7)
    unseeded = python_elements(Dataset.range(50).shuffle(50))
    rt.random.set_seed(7)
    assert python_elements(Dataset.range(50).shuffle(50)) == unseeded
    # a repeat's passes are new iterations of the shuffle
    passes = python_elements(Dataset.range(20).shuffle(20, seed=3).repeat(2))
    assert passes[:20] != passes[20:] and sorted(passes[20:]) == list(range(20))


# ---- S22 -----------------------------------------------------------------------------------------

IMAGES = RNG.random((1600, 8, 8, 1)).astype(np.float32)
LABELS = RNG.integers(0, 10, 1600)


def test_s22_shuffle_batch_take_enumerate():
    dataset = Dataset.from_tensor_slices((IMAGES, LABELS)).shuffle(1000).batch(32)
    (images, labels), = list(dataset.take(1))
    assert images.shape == (32, 8, 8, 1) and labels.shape == (32,)
    seen = []
    for (batch, (images, labels)) in enumerate(dataset):  # noqa: B007 - the seed's words
        seen.append(labels.numpy())
        assert images.dtype is rt.float32
    assert batch == 49 and len(seen) == 50
    assert sorted(np.concatenate(seen).tolist()) == sorted(LABELS.tolist())


def test_s22_a_loop_inside_rt_function_is_one_graph_loop_with_the_same_elements():
    def make():
        rt.random.set_seed(11)  # shuffle(1000) without a seed: rt.random's generator
        return Dataset.from_tensor_slices((IMAGES, LABELS)).shuffle(1000).batch(32)

    expected = [(b, labels.numpy()) for (b, (images, labels)) in enumerate(make())]
    dataset = make()

    @rt.function
    def run():
        batches, sums = [], []
        for (batch, (images, labels)) in enumerate(dataset):  # noqa: B007 - the seed's words
            batches.append(batch)
            sums.append(labels)
        return batches, sums

    batches, labels = run()
    assert [int(b) for b in batches] == [b for b, _ in expected]
    for got, (_, want) in zip(labels, expected):
        np.testing.assert_array_equal(got.numpy(), want)
    graph = run.get_concrete_function().graph
    types = [op.type for op in graph.operations]
    assert types.count("While") == 1 and "ShuffleOrder" in types
    assert len(types) < 20  # one loop, not 50 bodies


def test_graph_loop_over_float64_batches():
    dataset = Dataset.from_tensor_slices(X).batch(4)

    @rt.function
    def total():
        s = rt.constant(0.0, rt.float64)
        for batch in dataset:
            s += rt.reduce_sum(batch)
        return s

    result = total()
    assert result.dtype is rt.float64 and float(result) == sum(
        float(b.numpy().sum()) for b in dataset)


def _plus_one(v):
    return v + 1


def _multiple_of_3(v):
    return v % 3 == 0


def _twice(v):
    return v * 2


PIPELINES = {
    "slices": lambda: Dataset.from_tensor_slices((X, Y)),
    "dict": lambda: Dataset.from_tensor_slices({"x": X, "y": Y}).batch(3),
    "shuffle-batch": lambda: Dataset.from_tensor_slices((X, Y)).shuffle(5, seed=3).batch(4),
    "repeat-shuffle-batch": lambda: Dataset.from_tensor_slices((X, Y)).repeat(2).shuffle(
        6, seed=3).batch(5).take(4),
    "shuffle-repeat-batch": lambda: Dataset.from_tensor_slices(X).shuffle(4, seed=3).repeat(
        3).batch(7),
    "shuffled-batches": lambda: Dataset.from_tensor_slices(Y).shuffle(3, seed=4).batch(
        2).repeat(3).shuffle(4, seed=5),
    "map-batch": lambda: Dataset.from_tensor_slices(X).map(lambda a: a * 2.0).batch(4),
    "batch-map": lambda: Dataset.from_tensor_slices((X, Y)).batch(4).map(
        lambda a, b: (rt.reduce_sum(a, axis=1), b)),
    "map-tuple-drop": lambda: Dataset.from_tensor_slices(X).map(
        lambda a: (a, rt.reduce_max(a))).batch(2, drop_remainder=True),
    "filter-map": lambda: Dataset.from_tensor_slices(Y).map(_plus_one).filter(
        _multiple_of_3).map(_twice),
    "enumerate-skip": lambda: Dataset.from_tensor_slices(Y).enumerate(5).skip(7),
    "take-skip": lambda: Dataset.from_tensor_slices(Y).skip(2).take(5).skip(1),
    "zip": lambda: Dataset.zip(Dataset.range(3, 40, 4), Dataset.from_tensor_slices({"a": X})),
    "batch-batch": lambda: Dataset.from_tensor_slices(Y[:9]).batch(3).batch(2),
    "repeat-forever-batch": lambda: Dataset.from_tensor_slices(Y).repeat().batch(4).take(5),
    "from_tensors": lambda: Dataset.from_tensors((X[:2], 1.5)).repeat(2),
    "range": lambda: Dataset.range(10, 2, -3),
    "empty": lambda: Dataset.from_tensor_slices(Y).take(-1).skip(-1),
    "prefetch": lambda: Dataset.from_tensor_slices(Y).batch(5).prefetch(2),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_graph_loop_gives_the_python_elements(name):
    expected = flat_values(python_elements(PIPELINES[name]()))
    assert graph_elements(PIPELINES[name]()) == expected


def test_reshuffle_across_graph_calls_as_in_python():
    def make():
        return Dataset.range(30).shuffle(30, seed=9)

    eager = make()
    orders = [python_elements(eager) for _ in range(3)]
    assert orders[0] != orders[1] != orders[2]
    dataset = make()

    @rt.function
    def epoch():
        out = []
        for v in dataset:
            out.append(v)
        return rt.stack(out)

    assert [epoch().numpy().tolist() for _ in range(2)] == orders[:2]
    assert python_elements(dataset) == orders[2]  # Python and graph share the epochs
    assert epoch.experimental_get_tracing_count() == 1


def test_a_loop_over_a_dataset_inside_a_graph_loop_reshuffles_each_pass():
    reference = Dataset.range(6).shuffle(6, seed=2)
    expected = [python_elements(reference) for _ in range(3)]
    dataset = Dataset.range(6).shuffle(6, seed=2)

    @rt.function
    def epochs(n):
        out = []
        for _epoch in rt.range(n):
            for v in dataset:
                out.append(v)
        return rt.stack(out)

    assert epochs(rt.constant(3)).numpy().reshape(3, 6).tolist() == expected


def test_a_tape_around_a_graph_epoch():
    dataset = Dataset.from_tensor_slices(X).shuffle(11, seed=1).batch(3)
    w = rt.Variable(np.ones(3))

    @rt.function
    def loss():
        total = rt.constant(0.0, rt.float64)
        for batch in dataset:
            total += rt.reduce_sum(batch * w)
        return total

    with rt.GradientTape() as tape:
        value = loss()
    np.testing.assert_allclose(tape.gradient(value, w).numpy(), X.sum(axis=0))
    np.testing.assert_allclose(float(value), X.sum())


def test_dataset_as_an_argument_and_made_inside_the_function():
    @rt.function
    def total(dataset):
        s = rt.constant(0, rt.int64)
        for v in dataset:
            s += v
        return s

    assert int(total(Dataset.range(5))) == 10 and int(total(Dataset.range(7))) == 21

    @rt.function(input_signature=[rt.TensorSpec((None, 3), rt.float64)])
    def batch_sums(x):
        out = []
        for batch in Dataset.from_tensor_slices(x).batch(4):
            out.append(rt.reduce_sum(batch))
        return rt.stack(out)

    np.testing.assert_allclose(batch_sums(X).numpy(), [X[i:i + 4].sum() for i in (0, 4, 8)])
    assert batch_sums(X[:5]).numpy().shape == (2,)


def test_graph_loop_with_break_and_converted_map():
    def clip(v):  # a Python `if` on a tensor: converted by autograph in the graph
        if v > 50:
            v = v * 0
        return v

    dataset = Dataset.from_tensor_slices(Y).map(clip)

    @rt.function
    def first_over(limit):
        seen = rt.constant(0, rt.int64)
        for v in dataset:
            if v >= limit:
                break
            seen += v
        return seen

    assert int(first_over(rt.constant(40, rt.int64))) == sum(v for v in [0, 10, 20, 30])
    assert python_elements(dataset) == [v if v <= 50 else 0 for v in Y.tolist()]


# ---- an epoch of training in one graph call ------------------------------------------------------


def _regression(decorated):
    data_rng = np.random.default_rng(3)
    features = data_rng.random((200, 3))
    targets = features @ np.array([1.0, -2.0, 3.0]) + 0.5
    dataset = Dataset.from_tensor_slices((features, targets)).shuffle(200, seed=5).batch(32)
    w, b = rt.Variable(np.zeros(3)), rt.Variable(np.float64(0.0))
    optimizer = rt.optimizers.SGD(0.1)

    def step(x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean((rt.reduce_sum(x * w, axis=1) + b - y) ** 2)
        grads = tape.gradient(loss, [w, b])
        optimizer.apply_gradients(zip(grads, [w, b]))
        return loss

    if not decorated:
        def epoch():
            return [float(step(x, y)) for x, y in dataset]
    else:
        @rt.function
        def graph_epoch():
            losses = []
            for x, y in dataset:
                losses.append(step(x, y))
            return rt.stack(losses)

        def epoch():
            return graph_epoch().numpy().tolist()

    return epoch, (w, b)


def test_an_epoch_of_training_in_one_graph_call_equals_the_python_loop():
    python_epoch, python_weights = _regression(decorated=False)
    graph_epoch, graph_weights = _regression(decorated=True)
    losses = []
    for _ in range(3):  # reshuffled each epoch, alike
        losses.append(python_epoch())
        assert graph_epoch() == losses[-1]
        for a, b in zip(graph_weights, python_weights):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert losses[-1][-1] < losses[0][0] / 4


# ---- errors at the user's line -------------------------------------------------------------------


def test_bad_arguments_name_the_users_line():
    ds = Dataset.range(5)
    with pytest.raises(ValueError, match="batch_size must be >= 1") as error:
        ds.batch(0)  # <- batch(0)
    assert_names_line(error, "<- batch(0)")
    with pytest.raises(ValueError, match="buffer_size must be >= 1") as error:
        ds.shuffle(0)  # <- shuffle(0)
    assert_names_line(error, "<- shuffle(0)")
    with pytest.raises(TypeError, match="must be an integer"):
        ds.take(2.5)
    with pytest.raises(ValueError, match=">= -1"):
        ds.repeat(-3)
    with pytest.raises(TypeError, match="callable"):
        ds.map(3)
    with pytest.raises(ValueError, match="dims 0 differ") as error:
        Dataset.from_tensor_slices((X, Y[:4]))  # <- mismatched slices
    assert_names_line(error, "<- mismatched slices")
    with pytest.raises(ValueError, match="from_tensors"):
        Dataset.from_tensor_slices(3.0)
    with pytest.raises(TypeError, match="output_signature"):
        Dataset.from_generator(lambda: iter([1]))
    with pytest.raises(TypeError, match="Dataset.zip takes datasets"):
        Dataset.zip(ds, [1, 2])


def test_batching_different_shapes_and_a_bad_generator_element():
    ragged = Dataset.from_generator(lambda: iter([[1.0], [1.0, 2.0]]),
                                    output_signature=rt.TensorSpec((None,), rt.float64))
    with pytest.raises(rt.errors.InvalidArgumentError, match="different shapes"):
        list(ragged.batch(2))
    wrong = Dataset.from_generator(lambda: iter([[1.0, 2.0]]),
                                   output_signature=rt.TensorSpec((3,), rt.float64))
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"shape \(2,\)"):
        list(wrong)
    with pytest.raises(TypeError, match="scalar bool"):
        list(Dataset.range(3).filter(lambda v: v))


def test_graph_limits_name_the_users_line():
    generated = Dataset.from_generator(lambda: iter([1, 2]),
                                       output_signature=rt.TensorSpec((), rt.int32))

    @rt.function
    def over_generator():
        total = 0
        for v in generated:  # <- a generator in a graph
            total += v
        return total

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="from_generator") as error:
        over_generator()
    assert_names_line(error, "<- a generator in a graph")

    filtered = Dataset.from_tensor_slices(Y).filter(lambda v: v > 20).batch(2)

    @rt.function
    def filter_then_batch():
        total = rt.constant(0, rt.int64)
        for v in filtered:  # <- a filter before a batch
            total += rt.reduce_sum(v)
        return total

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="boolean_mask") as error:
        filter_then_batch()
    assert_names_line(error, "<- a filter before a batch")

    forever = Dataset.from_tensor_slices(Y).shuffle(4).repeat()

    @rt.function
    def shuffled_forever():
        for v in forever:
            return v

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="repeat a count"):
        shuffled_forever()

    @rt.function
    def python_iteration():
        return next(iter(Dataset.range(3)))  # <- iter() in a graph

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="`for` statement") as error:
        python_iteration()
    assert_names_line(error, "<- iter() in a graph")

    @rt.function
    def enumerate_forever():
        for _, v in enumerate(Dataset.range(3).repeat()):
            return v

    with pytest.raises(TypeError, match=r"dataset.enumerate\(\)"):
        enumerate_forever()


def test_filter_at_the_end_and_len_in_a_graph():
    dataset = Dataset.from_tensor_slices((X, Y)).filter(lambda x, y: y % 20 == 0)

    @rt.function
    def run():
        kept = []
        for _x, y in dataset:
            kept.append(y)
        return rt.stack(kept), len(Dataset.from_tensor_slices(X).batch(4))

    kept, count = run()
    assert kept.numpy().tolist() == [v for v in Y.tolist() if v % 20 == 0] and count == 3

    @rt.function
    def enumerated():
        for i, _v in enumerate(dataset):
            return i

    with pytest.raises(TypeError, match="unknown"):
        enumerated()
