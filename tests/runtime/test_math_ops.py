"""Elementwise math, comparisons, logic, where, cast, clip, matmul and softmax against numpy,
eagerly, in compiled graphs and in the interpreter."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from op_testing import check_error, check_op

import runtime as rt

NUMERIC_DTYPES = [np.float32, np.float64, np.int32, np.int64]
ALL_NUMERIC_DTYPES = NUMERIC_DTYPES + [np.float16, np.int8, np.int16, np.uint8]


def _sigmoid(x):
    return (1 / (1 + np.exp(-x))).astype(x.dtype)


BINARY = {
    "add": (rt.add, np.add),
    "subtract": (rt.subtract, np.subtract),
    "multiply": (rt.multiply, np.multiply),
    "divide": (rt.divide, np.true_divide),
    "floordiv": (rt.floordiv, np.floor_divide),
    "mod": (rt.mod, np.mod),
    "pow": (rt.pow, np.power),
    "maximum": (rt.maximum, np.maximum),
    "minimum": (rt.minimum, np.minimum),
    "equal": (rt.equal, np.equal),
    "not_equal": (rt.not_equal, np.not_equal),
    "less": (rt.less, np.less),
    "less_equal": (rt.less_equal, np.less_equal),
    "greater": (rt.greater, np.greater),
    "greater_equal": (rt.greater_equal, np.greater_equal),
}

UNARY_ANY = {
    "negative": (rt.negative, np.negative),
    "abs": (rt.abs, np.abs),
    "sign": (rt.sign, np.sign),
    "square": (rt.square, np.square),
    "relu": (rt.relu, lambda x: np.maximum(x, 0).astype(x.dtype)),
    "round": (rt.round, np.round),
}
UNARY_FLOAT = {
    "exp": (rt.exp, np.exp),
    "log": (rt.log, np.log),
    "sqrt": (rt.sqrt, np.sqrt),
    "sin": (rt.sin, np.sin),
    "cos": (rt.cos, np.cos),
    "tanh": (rt.tanh, np.tanh),
    "sigmoid": (rt.sigmoid, _sigmoid),
    "floor": (rt.floor, np.floor),
    "ceil": (rt.ceil, np.ceil),
}


def _operands(dtype, nonzero_second):
    """Two arrays with mutually broadcastable random shapes (the second nonzero if asked)."""

    @st.composite
    def build(draw):
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
        if np.dtype(dtype).kind == "f":
            elements = st.floats(-100, 100, width=np.dtype(dtype).itemsize * 8)
        else:
            elements = st.integers(0 if np.dtype(dtype).kind == "u" else -50, 50)
        x = draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=elements))
        y = draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=elements))
        if nonzero_second:
            y = np.where(y == 0, np.ones_like(y), y)
        return x, y

    return build()


@pytest.mark.parametrize("name", sorted(BINARY))
@given(data=st.data())
def test_binary_ops_broadcast_like_numpy(name, data):
    rt_fn, np_fn = BINARY[name]
    dtype = data.draw(st.sampled_from(ALL_NUMERIC_DTYPES))
    x, y = data.draw(_operands(dtype, nonzero_second=name in ("divide", "floordiv", "mod")))
    if name == "pow":
        y = np.abs(y) % 4 if np.dtype(dtype).kind == "i" else np.abs(y) % 3
        x = x % 10
    check_op(rt_fn, np_fn, x, y, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_on_scalars_give_numpy_scalars(name):
    rt_fn, np_fn = BINARY[name]
    check_op(rt_fn, np_fn, np.float32(7.5), np.float32(2.0))
    check_op(rt_fn, np_fn, np.int32(-7), np.int32(2))


@pytest.mark.parametrize("name", sorted(UNARY_ANY))
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_unary_ops(name, dtype):
    rt_fn, np_fn = UNARY_ANY[name]
    x = np.array([[-2.5, -1.0, 0.0], [0.5, 1.5, 3.0]]).astype(dtype)
    check_op(rt_fn, np_fn, x)
    check_op(rt_fn, np_fn, x[0, 0])


@pytest.mark.parametrize("name", sorted(UNARY_FLOAT))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_unary_ops(name, dtype):
    rt_fn, np_fn = UNARY_FLOAT[name]
    x = np.array([[0.25, 1.0, 2.5], [0.5, 1.5, 3.0]], dtype=dtype)
    check_op(rt_fn, np_fn, x, rtol=1e-6)
    check_op(rt_fn, np_fn, x[1, 2], rtol=1e-6)


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "sigmoid", "floor"])
def test_float_unary_ops_reject_integers(name):
    rt_fn, _ = UNARY_FLOAT[name]
    with pytest.raises(TypeError, match="int32.*rt.cast"):
        rt_fn(rt.constant([1, 2]))


def test_round_is_half_to_even_like_numpy():
    check_op(rt.round, np.round, np.array([0.5, 1.5, 2.5, -0.5, -1.5], np.float32))


def test_sigmoid_of_large_magnitudes():
    x = np.array([-100.0, 0.0, 100.0], np.float32)
    out = check_op(rt.sigmoid, _sigmoid, x)
    assert out.numpy().tolist() == [0.0, 0.5, 1.0]


# ---- dtype rules -------------------------------------------------------------------------------

@pytest.mark.parametrize("rt_fn,np_fn", [(rt.add, np.add), (rt.multiply, np.multiply),
                                         (rt.subtract, np.subtract), (rt.maximum, np.maximum)])
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES)
def test_python_scalar_takes_the_tensor_dtype(rt_fn, np_fn, dtype):
    x = np.array([1, 2, 3], dtype=dtype)
    check_op(lambda t: rt_fn(t, 2), lambda a: np_fn(a, np.array(2, dtype)), x)
    check_op(lambda t: rt_fn(3, t), lambda a: np_fn(np.array(3, dtype), a), x)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_int_tensor_with_python_float_gives_float32(dtype):
    x = np.array([1, 2, 3], dtype=dtype)
    check_op(lambda t: t + 0.5, lambda a: a + 0.5, x, dtype=np.float32)
    check_op(lambda t: 0.5 * t, lambda a: a * 0.5, x, dtype=np.float32)
    check_op(lambda t: rt.maximum(t, 1.5), lambda a: np.maximum(a, 1.5), x, dtype=np.float32)


def test_float64_tensor_with_python_float_stays_float64():
    x = np.array([1.0, 2.0], np.float64)
    check_op(lambda t: t * 0.1, lambda a: a * 0.1, x)


@pytest.mark.parametrize("rt_fn", [rt.add, rt.subtract, rt.multiply, rt.divide, rt.equal,
                                   rt.maximum, rt.matmul, rt.pow])
def test_mixed_tensor_dtypes_raise_type_error_naming_both(rt_fn):
    x, y = rt.constant([[1.0]]), rt.constant([[1]])
    with pytest.raises(TypeError, match=r"float32.*int32.*rt\.cast"):
        rt_fn(x, y)
    with pytest.raises(TypeError, match=r"float32.*int32.*rt\.cast"):
        rt.function(rt_fn, autograph=False)(x, y)


def test_mixed_dtypes_error_from_operators():
    with pytest.raises(TypeError, match=r"float64.*float32.*rt\.cast"):
        rt.constant(np.float64(1.0)) + rt.constant(1.0)


def test_numpy_array_operand_keeps_its_dtype():
    with pytest.raises(TypeError, match="rt.cast"):
        rt.constant([1.0, 2.0]) + np.array([1.0, 2.0])  # float64 array vs float32 tensor


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_division_follows_numpy(dtype):
    x = np.array([-7, -1, 0, 1, 7], dtype=dtype)
    y = np.array([2, -2, 3, -3, -2], dtype=dtype)
    check_op(rt.divide, np.true_divide, x, y)  # float64, like numpy
    check_op(rt.floordiv, np.floor_divide, x, y)
    check_op(rt.mod, np.mod, x, y)
    check_op(lambda a: a // 2, lambda a: a // 2, x)
    check_op(lambda a: a % -3, lambda a: a % -3, x)


def test_float_floordiv_and_mod_follow_numpy():
    x = np.array([-7.5, -1.0, 0.0, 1.25, 7.0], np.float32)
    y = np.array([2.0, -2.0, 3.0, -0.5, -2.5], np.float32)
    check_op(rt.floordiv, np.floor_divide, x, y)
    check_op(rt.mod, np.mod, x, y)


def test_float_division_by_zero_gives_inf_and_nan():
    x = np.array([1.0, -1.0, 0.0], np.float32)
    with np.errstate(all="ignore"):
        check_op(rt.divide, np.true_divide, x, np.zeros(3, np.float32))


# ---- logic -------------------------------------------------------------------------------------

BOOLS = np.array([[True, False], [True, True]])


@pytest.mark.parametrize("rt_fn,np_fn", [(rt.logical_and, np.logical_and),
                                         (rt.logical_or, np.logical_or),
                                         (rt.logical_xor, np.logical_xor)])
def test_logical_binary(rt_fn, np_fn):
    check_op(rt_fn, np_fn, BOOLS, np.array([True, False]))
    check_op(rt_fn, np_fn, np.bool_(True), np.bool_(False))
    check_op(lambda a: rt_fn(a, True), lambda a: np_fn(a, True), BOOLS)


def test_logical_not():
    check_op(rt.logical_not, np.logical_not, BOOLS)
    check_op(rt.logical_not, np.logical_not, np.bool_(False))


def test_logical_ops_need_bools():
    with pytest.raises(TypeError, match="bool"):
        rt.logical_and(rt.constant([1]), rt.constant([0]))
    with pytest.raises(TypeError, match="bool"):
        rt.logical_not(rt.constant(1.0))


def test_where_broadcasts():
    cond = np.array([[True], [False]])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check_op(rt.where, np.where, cond, x, np.float32(-1.0))
    check_op(lambda c, a: rt.where(c, a, 0.0), lambda c, a: np.where(c, a, np.float32(0)), cond, x)
    check_op(rt.where, np.where, np.bool_(True), np.int32(1), np.int32(2))


def test_where_with_only_a_condition_gives_coordinates():
    cond = np.array([[True, False, True], [False, False, True]])
    check_op(rt.where, lambda c: np.argwhere(c).astype(np.int64), cond)
    check_op(rt.where, lambda c: np.argwhere(c).astype(np.int64), np.zeros(3, bool))


def test_where_errors():
    with pytest.raises(TypeError, match="condition must be bool"):
        rt.where(rt.constant([1]), 1.0, 2.0)
    with pytest.raises(TypeError, match="rt.cast"):
        rt.where(rt.constant([True]), rt.constant([1.0]), rt.constant([1]))
    with pytest.raises(ValueError, match="both"):
        rt.where(rt.constant([True]), 1.0)


# ---- cast, clip, matmul, softmax ----------------------------------------------------------------

@pytest.mark.parametrize("source", [np.float32, np.float64, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("target", [rt.float32, rt.float64, rt.int32, rt.int64, rt.bool])
def test_cast(source, target):
    x = np.array([-2.7, 0.0, 1.5, 3.0]).astype(source)
    check_op(lambda a: rt.cast(a, target), lambda a: a.astype(target.np_dtype), x)
    check_op(lambda a: rt.cast(a, target), lambda a: a.astype(target.np_dtype), x[2])


def test_cast_accepts_dtype_names_and_python_types():
    assert rt.cast(rt.constant(1.7), "int64").dtype is rt.int64
    assert rt.cast(rt.constant(1), float).dtype is rt.float32


def test_cast_rejects_strings():
    with pytest.raises(TypeError, match="string"):
        rt.cast(rt.constant("a"), rt.int32)


def test_clip_by_value():
    x = np.array([[-3.0, 0.5], [2.0, 9.0]], np.float32)
    check_op(lambda a: rt.clip_by_value(a, -1.0, 1.0), lambda a: np.clip(a, -1, 1), x)
    lo, hi = np.array([-1.0, 0.0], np.float32), np.array([1.0, 5.0], np.float32)
    check_op(rt.clip_by_value, np.clip, x, lo, hi)
    ints = np.array([-5, 1, 7], np.int32)
    check_op(lambda a: rt.clip_by_value(a, 0, 2), lambda a: np.clip(a, 0, 2), ints)
    check_op(lambda a: rt.clip_by_value(a, 0, 2.5), lambda a: np.clip(a, 0, 2.5), ints,
             dtype=np.float32)


@pytest.mark.parametrize("a_shape,b_shape", [((2, 3), (3, 4)), ((5, 2, 3), (3, 1)),
                                             ((1, 2, 3), (4, 3, 2)), ((1, 1), (1, 1))])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_matmul(a_shape, b_shape, dtype):
    rng = np.random.default_rng(0)
    a = rng.integers(-5, 5, a_shape).astype(dtype)
    b = rng.integers(-5, 5, b_shape).astype(dtype)
    check_op(rt.matmul, np.matmul, a, b)
    check_op(lambda x, y: x @ y, np.matmul, a, b)


def test_matmul_transposes():
    a, b = np.ones((2, 3), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)
    check_op(lambda x, y: rt.matmul(x, y, transpose_b=True), lambda x, y: x @ y.T, a, b)
    check_op(lambda x, y: rt.matmul(x, y, transpose_a=True), lambda x, y: x.T @ y, a, b)
    batch = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    check_op(lambda x: rt.matmul(x, x, transpose_a=True, transpose_b=True),
             lambda x: np.swapaxes(x, -1, -2) @ np.swapaxes(x, -1, -2), batch[:, :, :2])


def test_matmul_errors_name_the_user_line():
    a, b = np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)
    check_error(lambda x, y: rt.matmul(x, y), a, b, match="matmul|MatMul")
    with pytest.raises(rt.errors.InvalidArgumentError, match="rank >= 2"):
        rt.matmul(rt.constant(1.0), rt.constant([[1.0]]))


def test_matmul_of_vectors_is_numpys():
    m, v = np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(3, dtype=np.float32)
    check_op(rt.matmul, np.matmul, m, v)
    check_op(rt.matmul, np.matmul, v, m.T.copy())
    check_op(rt.matmul, np.matmul, v, v)
    check_op(lambda x, y: x @ y, lambda x, y: x @ y, np.stack([m, m]), v)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(axis):
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 100.0]], np.float32)

    def np_softmax(a):
        e = np.exp(a - a.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    out = check_op(lambda a: rt.softmax(a, axis=axis), np_softmax, x)
    if axis == -1:
        check_op(rt.softmax, np_softmax, x)  # the default axis is the last
    np.testing.assert_allclose(out.numpy().sum(axis=axis), 1.0, rtol=1e-6)


def test_softmax_errors():
    with pytest.raises(TypeError, match="float"):
        rt.softmax(rt.constant([1, 2]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="axis 2"):
        rt.softmax(rt.constant([[1.0]]), axis=2)


def test_incompatible_broadcast_names_the_user_line():
    a, b = np.ones((2, 3), np.float32), np.ones((4,), np.float32)
    check_error(lambda x, y: x + y, a, b, match="broadcast")
    check_error(lambda x, y: rt.maximum(x, y), a, b, match="broadcast")
