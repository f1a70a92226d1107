"""Relaxed traces (a shape that keeps changing makes one graph with unknown dims) against plain
Python: code that reads a dim the relaxed graph does not know (`x.shape[0]`, unpacking
`x.shape`, `len` of a tensor in unconverted code) would see None where Python sees a number, so
such a function is traced for each shape exactly; reading only known dims keeps one graph."""

import functools
import logging

import numpy as np
import pytest

import autograph
import runtime as rt

LENGTHS = (4, 6, 8, 8, 10, 3, 8, 5)


def branch_on_length(x):
    if x.shape[0] == 8:
        return x.sum() * 100.0
    return x.sum()


def unpack_shape(x):
    n, d = x.shape
    return x.sum() * n + d


def python_range_over_length(x):
    total = 0.0
    for i in range(x.shape[0] // 2):
        total = total + x[i, 0]
    return total


def zeros_of_length(x):
    return np.zeros(x.shape[0]) + x[:, 0]


def compare_shape(x):
    return x.sum() if x.shape == (8, 3) else -x.sum()


def shape_in_text(x):
    return f"{x.shape}"


def shape_is_none(x):
    return x.sum() if x.shape[0] is None else x.sum() + 1.0


def shape_slice_product(x):
    lead = x.shape[:1]
    return x.sum() * int(np.prod(lead))


def shape_as_text(x):
    return format(x.shape) + ascii(x.shape) + ",".join(map(str, x.shape)) + f"{x.shape!a}"


def length_in_shape(x):
    return x.sum() if 8 in x.shape else -x.sum()


def largest_dim(x):
    return x.sum() * max(x.shape) + functools.reduce(min, x.shape)


def flattened_by_dims(x):
    return x.reshape(x.shape[0] * x.shape[1])[:3] * 2.0 + np.tile(x[0], x.shape[0])[-3:]


def other_items_in_shape(x):
    return x.sum() if [8] in x.shape or (8, 3) in x.shape or "a" in x.shape else -x.sum()


def tiled_by_dims(x):
    return np.tile(x[0], (x.shape[0],))[-3:] + np.tile(x, (x.shape[0] // 2, 1))[-1]


def dims_by_map(x):
    return x.sum() * sum(map(lambda d: d * 2, x.shape))


READERS = [branch_on_length, unpack_shape, python_range_over_length, zeros_of_length,
           compare_shape, shape_in_text, shape_is_none, shape_slice_product, shape_as_text,
           length_in_shape, largest_dim, flattened_by_dims, dims_by_map,
           other_items_in_shape, tiled_by_dims]



def _inputs():
    return [np.arange(n * 3, dtype=np.float64).reshape(n, 3) for n in LENGTHS]


def _same(actual, expected):
    if isinstance(expected, str):
        assert actual == expected  # (text made when tracing, from the static shape)
        return
    actual = actual.numpy() if hasattr(actual, "numpy") else actual
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected))


@pytest.mark.parametrize("reduce_retracing", [None, True])
@pytest.mark.parametrize("fn", READERS, ids=lambda f: f.__name__)
def test_a_function_reading_a_changing_dim_matches_python(fn, reduce_retracing):
    graph = rt.function(fn, reduce_retracing=reduce_retracing)
    converted = autograph.to_graph(fn)
    for x in _inputs():
        expected = fn(x)
        _same(converted(rt.constant(x)), expected)
        _same(graph(x), expected)
    assert all(c.graph.inputs[0].shape.is_fully_defined() for c in graph.concrete_functions())


def _scale_memo():
    memo = {(8, 3): 100.0}

    def scaled(x):
        return x.sum() * memo.get(x.shape, 1.0)  # (a dict lookup hashes the shape)

    return scaled


def test_a_memo_keyed_by_shape_sees_the_shapes_python_sees():
    python, graph = _scale_memo(), rt.function(_scale_memo())
    for x in _inputs():
        _same(graph(x), python(x))


def test_reading_only_known_dims_keeps_one_relaxed_graph():
    def scale_by_width(x):
        rows, width = x.shape[0:1], x.shape[-1]
        return x.sum(axis=0) * width + len(rows) + x.ndim

    graph = rt.function(scale_by_width)
    for x in _inputs():
        _same(graph(x), scale_by_width(x))
    assert graph.experimental_get_tracing_count() == 3  # two exact, then one [?, 3]
    assert any(c.graph.inputs[0].shape[0] is None for c in graph.concrete_functions())


def test_the_fallback_is_logged_at_the_users_line(caplog):
    graph = rt.function(branch_on_length)
    with caplog.at_level(logging.INFO, logger="runtime.function"):
        for x in _inputs()[:3]:
            graph(x)
    assert "reads the static shape of an argument whose shape changes" in caplog.text
    assert f"{__file__}:" in caplog.text
    explicit = rt.function(unpack_shape, reduce_retracing=True)
    with caplog.at_level(logging.WARNING, logger="runtime.function"):
        caplog.clear()
        for x in _inputs()[:2]:
            explicit(x)
    assert any(r.levelno == logging.WARNING for r in caplog.records)


@rt.function
def _inner_reads_length(x):
    if x.shape[0] == 8:
        return x.sum() * 100.0
    return x.sum()


def test_a_decorated_callee_reading_the_dim_inside_a_relaxed_caller():
    outer = rt.function(lambda x: _inner_reads_length(x) + 1.0)
    other = rt.function(lambda x: _inner_reads_length(x) * 2.0)
    for x in _inputs():
        expected = branch_on_length(x)
        _same(outer(x), expected + 1.0)
        # The callee's trace for unknown dims (made for a relaxed caller) is cached: a second
        # relaxed caller reusing it learns of the read, and a direct call never takes it.
        _same(other(x), expected * 2.0)
        _same(_inner_reads_length(x), expected)
    for f in (outer, other):
        assert all(c.graph.inputs[0].shape.is_fully_defined() for c in f.concrete_functions())


def test_len_and_iteration_of_an_unknown_length_in_unconverted_code():
    def rows_sum(x):
        return sum(row.sum() for row in x) * len(x)  # a generator: runs unconverted

    graph = rt.function(rows_sum)
    for x in _inputs():
        _same(graph(x), rows_sum(x))


def test_an_input_signature_keeps_its_unknown_dims():
    """The graph keeps the signature's unknown dim, and the code reads it as plain Python
    does: the number it is (a tensor while tracing), never None."""
    def f(x):
        return x.sum() / x.shape[0] if x.shape[0] is not None else -x.sum()

    graph = rt.function(f, input_signature=[rt.TensorSpec([None, 3], rt.float64)])
    for x in _inputs()[:3]:
        _same(graph(x), f(x))
    assert graph.experimental_get_tracing_count() == 1
    assert graph.get_concrete_function().structured_input_signature[0].shape == (None, 3)


def test_shapes_print_as_numpy_shapes():
    x = np.zeros((2, 3))
    assert str(rt.constant(x).shape) == str(x.shape) == "(2, 3)"
    assert repr(rt.TensorShape([None, 3])) == "(None, 3)"


def shape_through_getattr(x):
    return x.sum() * (100.0 if getattr(x, "shape")[0] == 8 else 1.0)  # noqa: B009 - the point


def shape_copied(x):
    import copy

    return x.sum() * (100.0 if copy.copy(x.shape)[0] == 8 else 1.0)


@pytest.mark.parametrize("fn", [shape_through_getattr, shape_copied], ids=lambda f: f.__name__)
def test_a_shape_read_through_getattr_or_copied_is_watched(fn):
    graph = rt.function(fn)
    for x in _inputs():
        _same(graph(x), fn(x))


@pytest.mark.parametrize("fn", READERS, ids=lambda f: f.__name__)
def test_unknown_dims_of_an_input_signature_read_as_python_reads_them(fn):
    """With the signature's unknown dim, the code reads `x.shape[0]` as the number it is when
    the graph runs (a tensor standing for the int, as numpy.shape gives it), so one graph
    computes what plain Python does at every length."""
    graph = rt.function(fn, input_signature=[rt.TensorSpec([None, 3], rt.float64)])
    for x in _inputs():
        _same(graph(x), fn(x))
    assert graph.experimental_get_tracing_count() == 1


def mean_of_positives(x):
    column = x[:, 0]
    kept = column[column > 0]
    return kept.sum() / kept.shape[0], kept.shape


def sum_after_the_first(x):
    total = 0.0
    for i in rt.range(1, x.shape[0]):
        total += x[i, 0]
    return total


def sum_after_the_first_python(x):
    total = 0.0
    for i in range(1, x.shape[0]):
        total += x[i, 0]
    return total


@pytest.mark.parametrize("jit_compile", [None, "numba"])
def test_a_dim_only_the_run_knows_reads_as_its_number(jit_compile):
    """A dim unknown in every trace (the length of a boolean mask's result, a signature's None
    dim) reads as its number: `rt.range(1, x.shape[0])` is not `range(1)`."""
    if jit_compile == "numba":
        pytest.importorskip("numba")
    masked = rt.function(mean_of_positives)  # (numba lowers no boolean mask)
    ranged = rt.function(sum_after_the_first, jit_compile=jit_compile,
                         input_signature=[rt.TensorSpec([None, 3], rt.float64)])
    for x in _inputs():
        x = x - 5.0
        mean, shape = masked(x)
        _same(mean, mean_of_positives(x)[0])
        assert tuple(int(d) for d in shape) == mean_of_positives(x)[1]
        _same(ranged(x), sum_after_the_first_python(x))


def test_gradient_through_a_signatures_unknown_dim():
    f = rt.function(lambda x: (x / x.shape[0]).sum() * x.shape[1],
                    input_signature=[rt.TensorSpec([None, 3], rt.float64)])
    for x in _inputs()[:3]:
        value, grad = rt.value_and_grad(f)(rt.constant(x))
        _same(value, x.sum() / x.shape[0] * 3)
        _same(grad, np.full_like(x, 3.0 / x.shape[0]))


def shape_fully_defined(x):
    return x.sum() * 2.0 if x.shape.is_fully_defined() else x.sum()


def test_tensorshapes_own_methods_are_reads_of_the_dims():
    """`is_fully_defined` / `as_list` (TensorShape's, not numpy's) read the dims: a relaxed
    trace is made again with exact shapes, as the eager tensors' answer (found by a review:
    the relaxed graph took the other branch)."""
    graph = rt.function(shape_fully_defined)
    for x in _inputs():
        _same(graph(x), shape_fully_defined(rt.constant(x)))


def zeros_by_repetition(x):
    return np.array([0.0] * x.shape[0]) + x


def test_a_list_repeated_by_an_unknown_dim_is_a_located_error():
    """`[0.0] * n` repeats the list (Python's, for a numpy int too); a graph int was multiplied
    elementwise into it instead (found by a review: a length-1 array, silently). Eager tensors
    repeat it; in a graph with an unknown count it is refused at the user's line."""
    x = np.ones(4)
    assert np.array_equal(rt.constant([1.0, 2.0]) * 0 + 1, [1.0, 1.0])  # (still elementwise)
    assert [0.0] * rt.constant(3) == [0.0, 0.0, 0.0] and rt.constant(2) * (1,) == (1, 1)
    _same(rt.function(zeros_by_repetition)(x), zeros_by_repetition(x))  # (a known length)
    graph = rt.function(zeros_by_repetition, input_signature=[rt.TensorSpec([None], rt.float64)])
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"(?s)can't repeat a list by a graph int.*np\.zeros"
                             r".*test_relaxed_shapes\.py"):
        graph(x)


def numpy_of_a_dim_as_text(x):
    return f"{np.abs(np.shape(x)[0])!r} {np.maximum(x.shape[0], 2)!r} {np.shape(x)[0]!r}"


def test_numpys_functions_of_a_dim_are_numpy_scalars():
    """np.abs(n) of the Python int n is np.int64 (its text says so); the dim itself is the int
    (found by a review: the graph kept the results Python numbers' stand-ins)."""
    x = np.ones(5)
    for signature in (None, [rt.TensorSpec([None], rt.float64)]):
        text = rt.function(numpy_of_a_dim_as_text, input_signature=signature)(x)
        text = text.numpy().decode() if hasattr(text, "numpy") else text  # (exact: Python's)
        assert text == numpy_of_a_dim_as_text(x) == "np.int64(5) np.int64(5) 5"


def shape_by_percent(x):
    return "%d x %d" % x.shape  # noqa: UP031 - the point


def list_plus_shape(x):
    return [1] + x.shape


def test_a_shape_is_a_tuple_to_percent_and_to_concatenation():
    """`"%d x %d" % x.shape` takes the dims (a tuple's subclass is a tuple to `%`); `[1] +
    x.shape` is Python's TypeError (found by a review: a tuple came back)."""
    x = np.ones((2, 3))
    graph = rt.function(shape_by_percent, input_signature=[rt.TensorSpec([None, None],
                                                                         rt.float64)])
    assert graph(x).numpy().decode() == shape_by_percent(x) == "2 x 3"
    with pytest.raises(TypeError, match="can only concatenate list"):
        list_plus_shape(x)
    with pytest.raises(TypeError, match="can only concatenate list"):
        rt.function(list_plus_shape, input_signature=[rt.TensorSpec([None, 3], rt.float64)])(x)


def sorted_dims(x):
    return sorted(x.shape)


def test_a_builtin_taking_the_truth_of_an_unknown_dim_says_so_at_the_users_line():
    """`sorted(x.shape)` compares the dims in sort's C code: with an unknown dim that is a
    located refusal that names the builtin's truth, not the `if` advice (which did not fit)."""
    graph = rt.function(sorted_dims, input_signature=[rt.TensorSpec([None, 3], rt.float64)])
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"(?s)Python's own code on this line \(a builtin such as bool, "
                             r"filter, sorted.*test_relaxed_shapes\.py.*sorted\(x\.shape\)"):
        graph(np.ones((4, 3)))
    assert rt.function(sorted_dims)(np.ones((4, 3))) == [3, 4]  # (known dims: Python's sort)


def ranges_over_dims(x):
    n = x.shape[0]
    counter = 0
    for i in range(n):  # (Python's range: Python ints, int64 in a graph)
        counter += i
    return rt.range(n), rt.range(1, n, 2), counter


def far_range(x):
    start = x.shape[0] * 3_000_000_000
    return rt.range(start, start + 2)


def test_rt_range_of_an_unknown_dim_is_int32_as_of_the_int():
    """rt.range of Python ints is int32 (int64 past it); of a dim only the run knows, it was
    int64 in the graph (the stand-in's width) where the eager call gives int32. Now int32, with
    a check when the graph runs: a stand-in past int32 raises rather than wraps."""
    x = np.ones((5, 3))
    eager = ranges_over_dims(x)
    graph = rt.function(ranges_over_dims, input_signature=[rt.TensorSpec([None, 3], rt.float64)])
    got = graph(x)
    for actual, expected in zip(got[:2], eager[:2]):
        assert actual.dtype == expected.dtype == rt.int32
        _same(actual, expected)
    assert got[2].dtype == rt.int64 and int(got[2]) == eager[2] == 10
    assert far_range(x).dtype == rt.int64  # (eagerly: past int32, the ints' int64)
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=r"(?s)out of bounds for int32.*test_relaxed_shapes\.py"):
        rt.function(far_range, input_signature=[rt.TensorSpec([None, 3], rt.float64)])(x)
