import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from pass_testing import apply_pass, op_types

import runtime as rt
from runtime.passes import power

FLOATS = hnp.arrays(
    st.sampled_from([np.float16, np.float32, np.float64]), hnp.array_shapes(max_dims=2, max_side=5),
    elements=st.floats(allow_nan=True, allow_infinity=True, width=16),
)


@given(FLOATS)
def test_square_and_sqrt_rewrites_are_bit_identical(x):
    square = apply_pass(power.transform, lambda t: t ** 2, x)
    assert op_types(square) == ["Square"]
    root = apply_pass(power.transform, lambda t: t ** 0.5, x)  # apply_pass compares the bits
    want = ["Sqrt"] if x.dtype != np.float16 else ["Const", "Pow"]
    assert op_types(root) == want


@given(st.integers(-(2**31), 2**31 - 1))
def test_integer_scalar_square_becomes_a_multiply(n):
    graph = apply_pass(power.transform, lambda t: t ** 2, np.int32(n))
    assert op_types(graph) == ["Mul"]


@pytest.mark.parametrize("x", [np.float32(3.3), np.float64(1e-200)])
def test_float_scalars_keep_pow(x):
    # numpy's scalar ** calls C pow, which can differ from x * x in the last bit
    assert op_types(apply_pass(power.transform, lambda t: t ** 2, x)) == ["Const", "Pow"]


def test_power_of_one_disappears_and_others_stay():
    x = np.array([1.5, -2.0], dtype=np.float32)
    assert op_types(apply_pass(power.transform, lambda t: rt.equal(t ** 1, t), x)) == ["Equal"]
    # an array the graph returns stays a new array (plain Python's `x ** 1` is one)
    assert op_types(apply_pass(power.transform, lambda t: t ** 1, x)) == ["Const", "Pow"]
    assert op_types(apply_pass(power.transform, lambda t: t ** 3, x)) == ["Const", "Pow"]
    assert op_types(apply_pass(power.transform, lambda t: rt.pow(2.0, t), x)) == ["Const", "Pow"]
