"""Turning Python and numpy values into tensors, and the dtype rules of binary ops."""

import numpy as np
import pytest
from op_testing import check_op

import runtime as rt


@pytest.mark.parametrize("value,dtype", [
    (1.5, rt.float32), (3, rt.int32), (True, rt.bool), ("s", rt.string), (b"s", rt.string),
    ([1, 2], rt.int32), ([1, 2.5], rt.float32), ([[True], [False]], rt.bool),
    (["a", b"b"], rt.string), (np.float64(1.5), rt.float64), (np.int64(2), rt.int64),
    (np.array([1, 2], np.int16), rt.int16), (np.array(1.0, np.float16), rt.float16),
    (np.uint8(3), rt.uint8),
])
def test_default_dtypes(value, dtype):
    t = rt.convert_to_tensor(value)
    assert t.dtype is dtype
    assert t.ndim == np.ndim(value)
    if t.ndim == 0:
        assert isinstance(t.numpy(), bytes if dtype is rt.string else np.generic)


def test_explicit_dtype_and_constant_options():
    assert rt.convert_to_tensor(1.5, rt.float64).numpy().dtype == np.float64
    assert rt.constant(1, dtype=rt.float32).numpy() == np.float32(1)
    assert rt.constant(2, "int64").dtype is rt.int64
    np.testing.assert_array_equal(rt.constant([1, 2], shape=[2, 2]).numpy(), [[1, 2], [1, 2]])
    t = rt.constant([1.0])
    assert rt.convert_to_tensor(t) is t
    assert rt.constant(t).numpy().tolist() == [1.0]


def test_conversion_errors():
    with pytest.raises(TypeError, match=r"float32.*int32.*rt\.cast"):
        rt.convert_to_tensor(rt.constant(1), rt.float32)
    with pytest.raises(TypeError):
        rt.convert_to_tensor(["a", 1])
    with pytest.raises(TypeError, match="dtype"):
        rt.constant(1, dtype="uint32")
    assert rt.constant(1, dtype="complex").dtype is rt.complex128  # numpy's name: complex128


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint8, np.float16,
                                   np.float64])
def test_python_scalars_take_the_tensor_dtype(dtype):
    check_op(lambda t: t + 1, lambda a: a + dtype(1), np.array([1, 2], dtype))
    check_op(lambda t: 2 * t, lambda a: dtype(2) * a, np.array([1, 2], dtype))
    check_op(lambda t: t + [1, 2], lambda a: a + np.int64([1, 2]), np.array([1, 2], np.int64))


def test_python_float_next_to_an_integer_or_bool_tensor_gives_float32():
    check_op(lambda t: t * 1.5, lambda a: a * np.float32(1.5), np.array([1, 2], np.int64),
             dtype=np.float32)
    check_op(lambda t: t + [0.5, 1], lambda a: a + np.float32([0.5, 1]),
             np.array([1, 2], np.int32), dtype=np.float32)
    check_op(lambda t: rt.where(t > 0, t, 0.5), lambda a: np.where(a > 0, a, 0.5),
             np.array([-1, 2], np.int32), dtype=np.float32)


def test_two_python_values():
    assert rt.add(1, 2).dtype is rt.int32
    assert rt.add(1, 2.5).dtype is rt.float32 and rt.add(1, 2.5).numpy() == 3.5
    assert rt.multiply([1, 2], 2).numpy().tolist() == [2, 4]
    assert rt.maximum(np.float64(1), 2).dtype is rt.float64


def test_different_tensor_dtypes_are_a_type_error_naming_both():
    for a, b in [(rt.constant(1), rt.constant(1.0)), (rt.constant(1.0), np.float64(1.0)),
                 (rt.constant([1], rt.int64), rt.constant([1], rt.int32))]:
        with pytest.raises(TypeError) as info:
            a + b
        message = str(info.value)
        assert a.dtype.name in message and rt.convert_to_tensor(b).dtype.name in message
        assert "rt.cast" in message


def test_variables_convert_by_reading():
    v = rt.Variable([1.0, 2.0])
    t = rt.convert_to_tensor(v)
    assert isinstance(t, rt.EagerTensor) and t.numpy().tolist() == [1.0, 2.0]
    assert (rt.constant([1.0, 1.0]) + v).numpy().tolist() == [2.0, 3.0]


def test_python_int_out_of_int32_range_is_not_wrapped():
    assert rt.constant(2**40).numpy() == 2**40
    assert rt.constant(2**40).dtype is rt.int64


def test_arbitrary_objects_are_not_tensors():
    with pytest.raises(TypeError):
        rt.convert_to_tensor(object())


def test_a_list_of_tensors_keeps_their_dtype_eagerly_as_in_a_graph():
    x = rt.constant(0.1, rt.float64)
    k = rt.constant(3)

    def pack(x, k):
        return rt.convert_to_tensor([x, x * 2.0, 0.5]), rt.convert_to_tensor([[k], [k + 1]])

    for run in (pack, rt.function(pack)):
        floats, ints = run(x, k)
        assert floats.dtype is rt.float64 and floats.numpy().tolist() == [0.1, 0.2, 0.5]
        assert ints.dtype is rt.int32 and ints.numpy().tolist() == [[3], [4]]
