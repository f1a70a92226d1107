"""Numpy code in converted functions (issue 26): numpy's functions called with tensors, ndarray
methods and attributes on tensors, numpy's dtypes. Each program runs three ways (numpy on numpy
values, the converted function on eager tensors, the graph) and must agree exactly."""

import importlib.util

import numpy as np
import pytest
from three_way import assert_agree, outcomes, same

import autograph
import runtime as rt
import runtime.numpy as rnp

F64 = np.array([0.5, -1.25, 3.0, 2.0])
F32 = np.array([[1.5, -2.0, 0.25], [4.0, 0.0, -0.5]], dtype=np.float32)
I32 = np.array([[3, -1, 4], [1, 5, -9]], dtype=np.int32)
I64 = np.array([7, 0, -3, 12], dtype=np.int64)
B = np.array([True, False, True])


def reductions(x):
    return (np.sum(x), np.sum(x, axis=0), np.prod(x, axis=-1), np.mean(x), np.max(x),
            np.min(x, axis=0, keepdims=True), np.argmax(x), np.argmin(x, axis=-1),
            np.all(x), np.any(x > 3), np.std(x), np.var(x, axis=0, ddof=1), np.amax(x))


def methods(x):
    return (x.sum(), x.mean(axis=0), x.max(), x.min(axis=-1), x.prod(), x.std(), x.var(),
            x.argmax(), x.argmin(axis=0), x.all(), x.any(), x.reshape(-1), x.reshape(1, -1),
            x.T, x.transpose(), x.flatten(), x.ravel(), x.astype(np.float64), x.clip(0, 2),
            x.round(), x.copy(), x.ndim, x.shape, x.size, x.dtype == np.dtype(x.dtype.name))


def elementwise(x):
    return (np.sin(x), np.sqrt(np.abs(x)), np.exp(x / 4), np.log(np.abs(x) + 1), np.square(x),
            np.floor(x), np.ceil(x), np.sign(x), np.negative(x), np.absolute(x),
            np.maximum(x, 0.5), np.minimum(x, 1), np.power(x, 2), np.where(x > 0, x, -x),
            np.clip(x, -1, 1), np.round(x, 1), np.tanh(x), np.cos(x))


def integer_elementwise(x):
    return (np.sin(x), np.sqrt(np.abs(x)), np.floor_divide(x, 2), np.remainder(x, 3),
            np.add(x, 1.5), np.multiply(x, x), np.true_divide(x, 2), np.maximum(x, 0),
            np.logical_and(x > 0, x < 4), np.bitwise_and(x, 3), np.equal(x, 1))


def shapes(x):
    return (np.reshape(x, (-1,)), np.transpose(x), np.swapaxes(x, 0, 1), np.moveaxis(x, 0, -1),
            np.expand_dims(x, 0), np.expand_dims(x, (0, 3)), np.squeeze(np.expand_dims(x, 1)),
            np.concatenate([x, x]), np.concatenate([x, x], axis=None), np.stack([x, x], 1),
            np.vstack([x, x]), np.hstack([x, x]), np.tile(x, 2), np.tile(x, (2, 1)),
            np.broadcast_to(x[0], (3, x.shape[1])), np.atleast_2d(x[0]), np.ravel(x),
            np.shape(x), np.ndim(x), np.size(x))


def creation(x):
    n = x.shape[0]
    return (np.zeros(n), np.ones((n, 2), dtype=np.int32), np.full(n, 2.5), np.zeros_like(x),
            np.ones_like(x, dtype=np.float64), np.full_like(x, 7), np.arange(n),
            np.linspace(0.0, 1.0, 5), np.eye(n), np.identity(2))


def whole_arrays(x):
    return (np.array_equal(x, x), np.array_equal(x, x + 1), np.array_equal(x, x[:1]),
            np.allclose(x, x + 1e-9), np.isclose(x, x * 1.5), np.allclose(x, x + 1))


def products(a, b):
    return np.matmul(a, b), a @ b, np.matmul(a[0], b), np.matmul(a, b[:, 0])


@pytest.mark.parametrize("fn, args", [
    (reductions, (F64,)), (reductions, (F32,)), (reductions, (I32,)), (reductions, (I64,)),
    (methods, (F32,)), (methods, (I32,)), (methods, (F64,)),
    (elementwise, (F64,)), (elementwise, (F32,)),
    (integer_elementwise, (I32,)), (integer_elementwise, (I64,)),
    (shapes, (F32,)), (shapes, (I32,)),
    (creation, (F64,)), (creation, (I32,)),
    (whole_arrays, (F64,)), (whole_arrays, (F32,)),
    (products, (F32, F32.T.copy())),
], ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_programs_agree_three_ways(fn, args):
    assert_agree(fn, *args)


def bool_reductions(x):
    return np.sum(x), np.mean(x), np.max(x), np.min(x), np.argmax(x), x.sum(), np.any(x)


def small_integers(x):
    return np.sum(x), np.prod(x), np.mean(x), np.sin(x), x.std()


def bool_arithmetic(x):
    a, b = x > 0, x < 2
    with np.errstate(divide="ignore"):
        return (a * b, a + b, np.maximum(a, b), np.minimum(a, b), a / b, a // b, a % b,
                a ** b, True * a, a + False, a * 2, np.sum(a * b))


def python_bool_arithmetic(c):
    a = not c  # a Python bool (its stand-in in a graph): arithmetic gives Python ints
    b = bool(c)  # numpy's functions of Python bools give numpy's bools (and int8)
    return (a + a, a * a, a - a, a * 3, np.add(a, b), np.maximum(a, b), np.multiply(a, True),
            np.floor_divide(a, True))


def clipped(x):
    return np.clip(x, 0.0, 1.0), np.clip(x, -0.0, 0.0), x.clip(-1.0, -0.0), np.clip(x, 0.0, None)


def test_clip_keeps_numpys_signs_of_zeros_and_nans():
    # np.clip of both bounds is numpy's clip ufunc, which keeps x where it equals a bound: it
    # was a minimum of a maximum, which takes the bound (np.clip(-0.0, 0.0, 1.0) gave 0.0)
    values = np.array([-0.0, 0.0, np.nan, -1.0, 0.5, 2.0, -np.inf])
    for x in (values, values.astype(np.float32), np.float64(-0.0), np.float64(0.0)):
        python, eager, graph = assert_agree(clipped, x)
        for label, got in (("converted", eager), ("graph", graph)):
            for want, value in zip(python, got):
                assert np.array_equal(np.signbit(np.asarray(value)), np.signbit(want)), label
    if importlib.util.find_spec("numba") is not None:  # (its rule: the ufunc's choices)
        native = rt.function(clipped, jit_compile="numba")
        for want, value in zip(clipped(values), native(values)):
            assert np.array_equal(np.signbit(np.asarray(value)), np.signbit(want))
            np.testing.assert_array_equal(np.asarray(value), want)


def clipped_integers(x):
    return np.clip(x, -1000, 1000), np.clip(x, -1, 3), np.clip(x, 1, 300), x.clip(0, 1000)


def clipped_by_arrays(x, lo, hi):
    return np.clip(x, lo, hi)


def test_clip_of_integers_and_array_bounds_is_numpys():
    # numpy 2 drops a Python int bound past the integer dtype's range (it was an OverflowError)
    for dtype in (np.int8, np.uint8, np.int64):
        assert_agree(clipped_integers, np.array([0, 2, 5, 127], dtype))
    # array bounds of each shape (numpy keeps x on a tie where a bound stays put as its loop
    # steps: a column's bound along a row), cast or not
    x = np.array([[-0.0, 0.0, 0.5], [2.0, -0.0, 0.0]])
    for lo, hi in ((np.zeros((2, 1)), np.ones((2, 1))), (np.zeros(3), np.ones(3)),
                   (np.zeros((2, 3)), np.full((2, 3), -0.0)), (np.zeros(1), np.ones((2, 1))),
                   (np.zeros((2, 1), np.float32), np.ones(3, np.float32))):
        python, eager, graph = assert_agree(clipped_by_arrays, x, lo, hi)
        for got in (eager, graph):
            assert np.array_equal(np.signbit(np.asarray(got)), np.signbit(python))
    graph = rt.function(clipped_by_arrays).get_concrete_function(x, lo, hi).graph
    from runtime.executor import numba_exactness  # (numba cannot tell how numpy steps)
    assert "clip of array bounds" in numba_exactness.why_not_lowered_exactly(graph)


def test_the_gradient_of_clip_with_crossed_bounds_reaches_the_upper_one():
    # lo > hi: every result is hi, so hi takes every gradient and lo none
    x, lo, hi = rt.constant([0.0, 1.5, 3.0]), rt.constant(2.0), rt.constant(1.0)
    for clip in (rt.clip_by_value, lambda *a: rnp.clip(*a)):
        with rt.GradientTape() as tape:
            tape.watch([x, lo, hi])
            y = rt.reduce_sum(clip(x, lo, hi) * rt.constant([1.0, 2.0, 4.0]))
        gx, glo, ghi = tape.gradient(y, [x, lo, hi])
        assert y.numpy() == 7.0 and glo.numpy() == 0.0 and ghi.numpy() == 7.0
        assert np.array_equal(gx.numpy(), [0.0, 0.0, 0.0])


def test_numpy_dtype_rules_for_bools_and_small_integers():
    # bool arrays multiply and add as numpy's logic (refused before), and Python bools as ints
    assert_agree(bool_arithmetic, np.array([-1.0, 0.5, 3.0]))
    assert_agree(python_bool_arithmetic, np.float64(0.0))
    assert_agree(python_bool_arithmetic, np.float64(1.0))
    assert_agree(bool_reductions, B)
    assert_agree(small_integers, np.array([1, 2, 3], dtype=np.int16))
    assert_agree(small_integers, np.array([1, 2, 3], dtype=np.int8))


def branch_on_numpy(y):
    if np.sum(y) > 0:
        y = np.sin(y) * 2
    else:
        y = np.abs(y)
    total = 0.0
    for v in y:
        total += np.maximum(v, 0.5)
    return y.mean(), total, np.array_equal(y, y)


@pytest.mark.parametrize("y", [F64, -F64])
def test_numpy_calls_decide_graph_control_flow(y):
    assert_agree(branch_on_numpy, y)
    graph = rt.function(branch_on_numpy).get_concrete_function(rt.constant(y)).graph
    assert "If" in [op.type for op in graph.operations]


def test_a_graph_tensor_never_reaches_numpy_even_in_unconverted_code():
    @autograph.do_not_convert
    def library(a, b):
        return np.array_equal(a, b), np.sum(a) + np.float64(1), np.add.reduce(a)

    @rt.function
    def f(x):
        return library(x, x)

    x = np.array([1.0, 2.0])
    assert same(f(rt.constant(x)), library(x, x))


def unknown_numpy(y):
    return np.unwrap(y)


def test_an_unsupported_numpy_function_is_an_error_at_the_users_line():
    with pytest.raises(TypeError) as info:
        rt.function(unknown_numpy)(rt.constant(F64))
    text = str(info.value)
    assert "numpy.unwrap is not supported on tensors" in text
    assert "rt.numpy_function(np.unwrap" in text
    assert "test_numpy_code.py" in text and "return np.unwrap(y)" in text
    # eagerly (no graph) numpy computes on the values, as plain Python does
    assert same(np.asarray(autograph.to_graph(unknown_numpy)(rt.constant(F64))),
                unknown_numpy(F64))


def test_the_error_suggests_the_nearest_supported_function():
    def amaxx():
        pass

    amaxx.__module__ = "numpy"
    error = str(rnp.dispatch.unsupported(amaxx))
    assert "numpy.amaxx is not supported" in error and "nearest supported: numpy.amax" in error


def test_outside_converted_code_numpy_stays_numpy():
    a, b = rt.constant([1.0, 2.0]), rt.constant([3.0, 4.0])
    product = np.multiply(a, b)  # S28
    assert isinstance(product, np.ndarray) and product.tolist() == [3.0, 8.0]
    assert isinstance(np.sin(a), np.ndarray)
    # numpy's reductions call the argument's own method when it has one (as for JAX arrays):
    # `np.sum(a)` is `a.sum()`, numpy's result as a tensor
    assert same(np.sum(a).numpy(), np.sum(a.numpy())) and same(np.mean(a).numpy(), np.float32(1.5))


def test_rt_dtypes_equal_numpys():
    x = rt.constant(I64)
    assert x.dtype == np.dtype("int64") and x.dtype == np.int64 and x.dtype == "int64"
    assert np.dtype("int64") == x.dtype and x.dtype != np.int32 and x.dtype != rt.int32
    assert rt.float32 == np.float32 and rt.bool == np.bool_ and not rt.string == np.dtype(object)
    assert np.zeros(2, rt.float32).dtype == np.float32 and x.dtype.kind == "i"
    assert {rt.float32: 1}[rt.float32] == 1


def test_item_and_tolist():
    x = rt.constant(F32)
    assert x[0, 1].item() == -2.0 and x.item(1, 2) == -0.5 and x.tolist() == F32.tolist()
    assert_agree(lambda v: v[1].item() + 1, I64)
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="tolist"):
        rt.function(lambda v: v.tolist())(x)


def test_numpy_promotion_is_a_setting():
    def mixed(a, b):
        return a + b, a * 0.5

    a, b = np.array([1, 2], dtype=np.int32), np.array([0.5, 1.5], dtype=np.float32)
    python, *_ = outcomes(mixed, a, b)
    strict = outcomes(mixed, a, b)
    assert all(isinstance(r, TypeError) for r in strict[1:])
    rt.config.set_dtype_promotion("numpy")
    try:
        converted, graph = outcomes(mixed, a, b)[1:]
        assert same(converted, python) and same(graph, python)
    finally:
        rt.config.set_dtype_promotion("strict")
    with pytest.raises(ValueError, match="strict"):
        rt.config.set_dtype_promotion("loose")


def test_runtime_numpy_is_a_namespace_of_numpys_names():
    x = rt.constant(I32)
    assert rnp.sum(x).dtype == np.int64 and rnp.mean(x).dtype == np.float64
    assert same(rnp.sum(x, axis=1).numpy(), np.sum(I32, axis=1))
    names = rnp.supported_names()
    assert "numpy.sum" in names and "numpy.array_equal" in names and len(names) > 90
    for name in names:
        assert name.startswith("numpy.")


def test_out_and_unsupported_keywords_are_refused():
    with pytest.raises(TypeError, match="immutable"):
        rt.function(lambda v: np.sum(v, out=v))(rt.constant(F64))
    with pytest.raises(TypeError, match="initial"):
        rt.function(lambda v: np.sum(v, initial=1.0))(rt.constant(F64))


def summed(x, n):
    return np.sum(x) * n, {"twice": x * 2}


def test_numpy_in_numpy_out_is_an_option():
    f = rt.function(summed, numpy_results=True)
    total, parts = f(F64, 2)
    assert same(total, summed(F64, 2)[0]) and same(parts["twice"], F64 * 2)
    assert isinstance(total, np.float64) and isinstance(parts["twice"], np.ndarray)
    total, parts = f(rt.constant(F64), 2)  # called with tensors: tensors, as before
    assert isinstance(total, rt.Tensor) and isinstance(parts["twice"], rt.Tensor)
    assert isinstance(rt.function(summed)(F64, 2)[0], rt.Tensor)
    with pytest.raises(ValueError, match="numpy_results"):
        rt.function(summed, numpy_results="yes")


def grids(x, y):
    a, b = np.meshgrid(x, y)
    c, d = np.meshgrid(x, y, indexing="ij")
    e, f = np.meshgrid(x, y, sparse=True)
    return a, b, c, d, e, f, np.meshgrid(x)[0]


def test_meshgrid():
    assert_agree(grids, np.arange(3, dtype=np.int32), np.array([0.5, 1.5]))
    f = rt.function(grids, input_signature=[rt.TensorSpec([None], rt.int32),
                                            rt.TensorSpec([None], rt.float64)])
    x, y = np.arange(4, dtype=np.int32), np.array([0.5, 1.5, 2.5])
    assert all(same(g.numpy(), want) for g, want in zip(f(x, y), grids(x, y)))


def test_rt_function_of_a_numpy_function_traces_runtime_numpys():
    x = rt.constant(F32)
    assert same(rt.function(np.negative)(x).numpy(), np.negative(F32))
    assert same(rt.function(np.sum)(x, axis=1).numpy(), np.sum(F32, axis=1))
    with pytest.raises(TypeError, match="numpy.unwrap is not supported"):
        rt.function(np.unwrap)


# ---- found by a second reading ---------------------------------------------------------------
def python_numbers_in_numpy_calls(c, x, i8, ints):
    return (np.where(c, 1, 0), np.where(c, 1.5, 0), np.hstack([i8, 1]),
            np.concatenate([x, [1.5]]), np.array([x[0], 1]), np.asarray([x[1], 2.5]),
            np.round(ints, -1), np.round(ints, -2))


def test_python_numbers_in_numpy_calls_take_numpys_dtypes():
    assert_agree(python_numbers_in_numpy_calls, np.array([True, False]),
                 np.array([1.0, 2.0], np.float32), np.array([1], np.int8),
                 np.array([15, 25, 1234, -35]))


def fill_past_the_dtype(x):
    return np.full_like(x, 300)


def catches_a_refusal(x):
    try:
        y = np.nanmean(x)
    except TypeError:
        y = -1.0
    return y


def test_refusals_are_errors_not_values():
    python, converted, graph = outcomes(fill_past_the_dtype, np.array([1], np.int8))
    assert all(isinstance(r, OverflowError) for r in (python, converted, graph))
    python, converted, graph = outcomes(catches_a_refusal, np.array([1.0, 2.0]))
    assert python == 1.5 and same(converted, python)  # eagerly numpy computes on the values
    assert isinstance(graph, rt.errors.NumpyUnsupportedError)  # a user's `except` cannot hide it


def python_number_widths(x):
    s = 0.1
    if x[0] > 0:
        s = s + int(x[0])
    return x[0].item() + 0.1, x.sum().item() * 3.3, s


def test_item_and_python_numbers_keep_pythons_width():
    assert_agree(python_number_widths, np.array([1.5, 2.0], np.float32))


def array_times_tensor(t):
    return np.ones(2, np.float32) * t, np.arange(2.0, dtype=np.float32) < t, np.ones(2) * t


def test_an_array_on_the_left_of_an_operator_follows_the_operators_rule():
    x = np.array([1.0, 2.0], np.float32)
    python, converted, graph = outcomes(array_times_tensor, x)
    assert isinstance(converted, TypeError) and isinstance(graph, TypeError)  # strict, both
    rt.config.set_dtype_promotion("numpy")
    try:
        assert_agree(array_times_tensor, x)
    finally:
        rt.config.set_dtype_promotion("strict")


def test_rt_dtypes_hash_as_numpys():
    assert {np.dtype("float32"): 1}.get(rt.float32) == 1
    assert len({rt.float32, np.dtype("float32")}) == 1


# ---- found by a new user's trial ---------------------------------------------------------------
def random_walk(x, n):
    i = 0
    while i < n:
        x = x + np.random.normal(size=x.shape)
        i += 1
    return x, np.random.rand(3), np.random.uniform(2.0, 3.0, size=(2,))


def test_numpy_random_draws_new_numbers_on_every_call_of_a_graph():
    f = rt.function(random_walk)
    x, n = rt.constant(np.zeros(4)), rt.constant(2)
    (a, r, u), (b, _, _) = f(x, n), f(x, n)
    assert a.dtype == np.float64 and r.shape == (3,) and u.shape == (2,)
    assert not np.array_equal(a.numpy(), b.numpy())  # not frozen while tracing
    assert np.all((2.0 <= u.numpy()) & (u.numpy() < 3.0))
    rt.random.set_seed(3)
    first = f(x, rt.constant(1))[0].numpy()
    rt.random.set_seed(3)
    assert np.array_equal(f(x, rt.constant(1))[0].numpy(), first)  # rt's seed repeats them
    with pytest.raises(rt.errors.NumpyUnsupportedError, match="freeze its numbers"):
        rt.function(lambda v: v * np.random.choice([1, 2]))(x)


def assigns_into_a_tensor(x):
    x[x < 0] = 0.0
    return x


def test_item_assignment_says_how_to_write_it():
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="np.where") as info:
        rt.function(assigns_into_a_tensor)(rt.constant(np.array([-1.0, 2.0])))
    assert "x[x < 0] = 0.0" in str(info.value)


def median_of(x):
    return np.median(x)


def test_unsupported_functions_say_what_to_write():
    with pytest.raises(rt.errors.NumpyUnsupportedError, match="np.sort") as info:
        rt.function(median_of)(rt.constant(F64))
    assert "shape=[None]" in str(info.value) and "Tout=x.dtype" in str(info.value)
    assert_agree(lambda v: np.concat([v, v]), F64)


def joins_a_loop_list(x):
    rows = []
    for v in x:
        rows.append(v * 2)
    return (np.concatenate(rows), np.concatenate(rows, axis=None), np.hstack(rows),
            np.vstack(rows), np.stack(rows, 1))


def test_numpy_joins_of_a_list_a_graph_loop_built():
    assert_agree(joins_a_loop_list, np.arange(6.0).reshape(2, 3))
    assert_agree(joins_a_loop_list, np.arange(12.0).reshape(2, 3, 2))


def energy(x):
    return np.sum(np.sin(x) * x) + np.mean(x ** 2)


class Scaler:
    def __init__(self):
        self.w = rt.Variable(np.array([0.5, -1.0]))

    @rt.function
    def __call__(self, x):
        return np.sum(np.tanh(x * self.w))


def test_numpy_code_composes_with_gradients_tapes_and_methods():
    x = np.array([0.3, -1.2])
    want = np.sin(x) + x * np.cos(x) + 2 * x / x.size  # d energy / dx
    for grad in (rt.grad(energy), rt.function(rt.grad(energy)), rt.grad(rt.function(energy))):
        np.testing.assert_allclose(grad(rt.constant(x)).numpy(), want, rtol=1e-12)
    tensor = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(tensor)
        y = rt.function(energy)(tensor)
    np.testing.assert_allclose(tape.gradient(y, tensor).numpy(), want, rtol=1e-12)
    scaler = Scaler()
    with rt.GradientTape() as tape:
        y = scaler(tensor)
    w = scaler.w.numpy()
    np.testing.assert_allclose(tape.gradient(y, scaler.w).numpy(),
                               x * (1 - np.tanh(x * w) ** 2), rtol=1e-12)


def sorts_in_place(x):
    y = x * 2.0
    y.sort()
    return y


def fills_in_place(x):
    y = x + 0.0
    y.fill(3.0)
    return y


@pytest.mark.parametrize("fn, instead", [(sorts_in_place, "np.sort"),
                                         (fills_in_place, "np.full_like")])
def test_ndarray_methods_that_change_in_place_are_refused_at_the_line(fn, instead):
    # numpy changes the array; a tensor cannot be changed: a located error that says what to
    # write (a bare AttributeError before)
    assert fn(np.array([3.0, 1.0])).tolist() in ([2.0, 6.0], [3.0, 3.0])
    for run in (lambda: autograph.to_graph(fn)(rt.constant([3.0, 1.0])),
                lambda: rt.function(fn)(np.array([3.0, 1.0]))):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=instead) as info:
            run()
        assert "test_numpy_code.py" in str(info.value)


def divide_raising(x):
    with np.errstate(divide="raise"):
        return 1.0 / x


def divide_quietly(x):
    with np.errstate(divide="ignore"):
        return 1.0 / x


def test_numpy_error_states_that_raise_are_refused_in_graphs():
    # the graph runs after tracing, outside the `with`: numpy's FloatingPointError would
    # silently become inf (it did); refused at the line, "ignore" computes as numpy
    x = np.array([0.0, 2.0])
    with pytest.raises(FloatingPointError):
        divide_raising(x)
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="divide='raise'") as info:
        rt.function(divide_raising)(x)
    assert "test_numpy_code.py" in str(info.value)
    with np.errstate(divide="ignore"):  # (the graph's division warns: it runs outside the with)
        assert_agree(divide_quietly, x)


def numpy_of_python_lists(p):
    return (np.mean([p[0], 0.5]), np.sum([p[0], 1]), np.max((p[0], p[1])), np.sqrt([p[0], 4]),
            np.mean([p[0], p[1]]))


def test_numpy_functions_of_python_lists_promote_as_numpy():
    # a Python list of tensors and Python numbers is numpy's array of it (float64 here: the
    # tensors' float32 with a Python float), not rt's stacking rule (float32) (found by the
    # random programs)
    assert_agree(numpy_of_python_lists, np.array([0.25, 1.0], np.float32))
