"""The Tensor API: repr, numpy(), shape, ndim, __array__, Python operators (eagerly and in
graphs), and Python conversions (eagerly; a clear error naming the user's line in graphs)."""

import numpy as np
import pytest
from op_testing import check_op, traced_for_specs

import runtime as rt


def test_repr_and_attributes():
    t = rt.constant(3)
    assert repr(t) == "<rt.Tensor: shape=(), dtype=int32, numpy=3>"
    assert repr(rt.constant([1.5, 2.0])) == (
        "<rt.Tensor: shape=(2,), dtype=float32, numpy=[1.5, 2. ]>")
    assert repr(rt.constant("hi")) == "<rt.Tensor: shape=(), dtype=string, numpy=b'hi'>"
    m = rt.constant(np.zeros((2, 3), np.int64))
    assert m.shape == (2, 3) and m.shape.as_list() == [2, 3] and m.ndim == 2
    assert m.dtype is rt.int64 and isinstance(m.numpy(), np.ndarray)
    assert isinstance(t.numpy(), np.int32) and t.ndim == 0 and t.shape == ()


def test_array_interop():
    t = rt.constant([[1, 2], [3, 4]])
    a = np.asarray(t)
    assert a.dtype == np.int32 and a.tolist() == [[1, 2], [3, 4]]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.sum(t) == 10
    np.testing.assert_array_equal(np.exp(rt.constant([0.0])), [1.0])


def test_symbolic_shapes_may_have_unknown_dims():
    seen = {}

    def f(x):
        seen["shape"], seen["ndim"] = x.shape, x.ndim
        return x

    traced_for_specs(f, rt.TensorSpec([None, 3], rt.float32))
    assert seen["shape"].as_list() == [None, 3] and seen["ndim"] == 2
    assert not seen["shape"].is_fully_defined() and seen["shape"][1] == 3
    assert isinstance(seen["shape"][0], rt.Tensor)  # (the number the run has, as np.shape's)
    assert "?" in repr(rt.function(f, autograph=False).get_concrete_function(
        rt.TensorSpec([None], rt.int32)).graph.inputs[0])


X = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -6.0]], np.float32)
Y = np.array([2.0, -1.5, 0.25], np.float32)
BINARY_OPERATORS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "**": lambda a, b: abs(a) ** b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


@pytest.mark.parametrize("op", sorted(BINARY_OPERATORS))
def test_binary_operators(op):
    fn = BINARY_OPERATORS[op]
    check_op(fn, fn, X, Y)
    check_op(lambda a: fn(a, 2.0), lambda a: fn(a, np.float32(2.0)), X)  # reflected: below
    check_op(lambda a: fn(3.0, a), lambda a: fn(np.float32(3.0), a), Y)
    check_op(fn, fn, np.int64(-7), np.int64(2))


def test_matmul_operator_and_unary_operators():
    check_op(lambda a, b: a @ b, np.matmul, X, X.T.copy())
    check_op(lambda a: [[1.0, 0.0]] @ a, lambda a: np.matmul(np.float32([[1, 0]]), a), X)
    check_op(lambda a: -a, np.negative, X)
    check_op(lambda a: +a, lambda a: a, X)
    check_op(abs, np.abs, X)
    check_op(abs, np.abs, np.int32(-3))


@pytest.mark.parametrize("op,np_fn", [("&", np.logical_and), ("|", np.logical_or),
                                      ("^", np.logical_xor)])
def test_bool_operators(op, np_fn):
    fn = {"&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b}[op]
    a, b = np.array([True, True, False, False]), np.array([True, False, True, False])
    check_op(fn, np_fn, a, b)
    check_op(lambda x: fn(x, True), lambda x: np_fn(x, True), a)
    check_op(lambda x: fn(False, x), lambda x: np_fn(False, x), a)
    check_op(lambda x: ~x, np.logical_not, a)
    with pytest.raises(TypeError, match="integer .or bool. tensors, not float32"):
        fn(rt.constant([1.0]), rt.constant([2.0]))


@pytest.mark.parametrize("fn", [lambda a, b: a & b, lambda a, b: a | b, lambda a, b: a ^ b,
                                lambda a, b: a << b, lambda a, b: a >> b,
                                lambda a, b: ~a, lambda a, b: a & 6, lambda a, b: 5 ^ b],
                         ids=["and", "or", "xor", "lshift", "rshift", "invert", "and-int",
                              "int-xor"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_integer_bitwise_operators_are_numpys(fn, dtype):
    a, b = np.array([12, 7, 0, 127], dtype), np.array([10, 3, 1, 2], dtype)
    check_op(fn, fn, a, b)


def test_equality_and_hashing():
    t = rt.constant([1, 2])
    assert (t == t).numpy().tolist() == [True, True]
    assert (t == None) is False and (t != None) is True  # noqa: E711 - what is tested
    unhashable = r"unhashable type: 'EagerTensor' \(int32\[2\]\).*t\.ref\(\)"
    with pytest.raises(TypeError, match=unhashable):
        {t}  # noqa: B018 - what is tested
    assert len({t.ref(), t.ref(), rt.constant([1, 2]).ref()}) == 2  # by identity
    assert t.ref().deref() is t


def test_a_scalar_hashes_as_its_value_as_numpy_scalars_do():
    table = {1.5: "a", 3: "b", True: "c"}
    assert table.get(rt.constant(1.5)) == table.get(np.float32(1.5)) == "a"
    assert table.get(rt.constant(np.int64(3))) == "b"
    assert table.get(rt.constant(2)) is None


def test_a_graph_tensor_is_unhashable_where_the_user_hashes_it():
    def lookup(x):
        return {1.5: 2.0}.get(x, 0.0)

    with pytest.raises(TypeError, match=r"unhashable type: 'SymbolicTensor' \(float32\[\]\)"):
        rt.function(lookup)(rt.constant(1.5))


def test_python_conversions_eagerly():
    assert bool(rt.constant(True)) and not bool(rt.constant(0.0))
    assert int(rt.constant(7)) == 7 and float(rt.constant(2.5)) == 2.5
    assert len(rt.constant([[1], [2], [3]])) == 3
    assert [x.numpy().tolist() for x in rt.constant([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]
    assert [0, 1, 2][rt.constant(2)] == 2
    with pytest.raises(TypeError, match="0-d"):
        len(rt.constant(1))
    with pytest.raises(TypeError, match="0-d"):
        iter(rt.constant(1))
    with pytest.raises(TypeError, match="integer"):
        [0, 1][rt.constant(1.0)]


SYMBOLIC_MISUSES = {
    "bool": (lambda x: bool(x), "Python bool", "rt.cond"),
    "if": (lambda x: 1 if x else 0, "Python bool", "autograph"),
    "int": (lambda x: int(x), "int", "rt.cast"),
    "float": (lambda x: float(x), "float", "rt.cast"),
    "len": (lambda x: len(x), "len", "rt.shape"),
    "iter": (lambda x: list(x), "Iterating", "rt.while_loop"),
    "index": (lambda x: [1, 2][x], "Indexing a Python sequence", "rt.gather(rt.constant("),
    "range": (lambda x: range(x), "Python int", "rt ops"),
    "numpy": (lambda x: x.numpy(), "numpy", "Return the tensor"),
    "array": (lambda x: np.asarray(x), "numpy array", "rt ops"),
}


@pytest.mark.parametrize("name", sorted(SYMBOLIC_MISUSES))
def test_symbolic_tensors_refuse_python_conversions_naming_the_line(name):
    misuse, what, fix = SYMBOLIC_MISUSES[name]
    line = misuse.__code__.co_firstlineno
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        traced_for_specs(misuse, rt.TensorSpec([None], rt.int32))
    message = str(info.value)
    assert what in message and fix in message
    assert f'test_tensor.py", line {line}' in message
    assert isinstance(info.value, TypeError)


def test_symbolic_len_and_iteration_work_when_the_dim_is_known():
    check_op(lambda x: len(x) + x[0], lambda x: x[0] + 3, np.array([5, 6, 7], np.int32))
    check_op(lambda x: [v * 2 for v in x], lambda x: list(x * 2), np.array([1.0, 2.0], np.float32))
