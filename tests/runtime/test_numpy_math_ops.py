"""numpy's other elementwise math functions (rt.log1p, rt.arctan2, rt.isnan, rt.fmod, ... and
the numpy names of ops rt has under other names): against numpy eagerly, in compiled graphs and
in the interpreter, with numpy's dtypes (integers into a function of floats give the float
dtype numpy's loops use), nan and inf, broadcasting, unknown dims, weak Python scalars; their
gradients against finite differences; their ONNX export against onnxruntime; their numba and
XLA lowerings against the default executor."""

import numpy as np
import pytest
from op_testing import check_op, onnx_agrees, traced_for_specs
from test_gradients import NUMPY_MATH
from test_gradients import check as check_gradient
from test_onnx import needs_onnx

import runtime as rt

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's, for nan and inf

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int32, np.int64]
EDGES = [-np.inf, -3.5, -1.0, -0.75, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 30.0, np.inf,
         np.nan]
INT_VALUES = [-7, -3, -1, 0, 1, 2, 3, 9]

# name -> (rt function, numpy function); each takes a float tensor, or an integer or bool one
# as numpy's float dtype for it
FLOAT_UNARY = {
    "log1p": (rt.log1p, np.log1p),
    "expm1": (rt.expm1, np.expm1),
    "log2": (rt.log2, np.log2),
    "log10": (rt.log10, np.log10),
    "exp2": (rt.exp2, np.exp2),
    "cbrt": (rt.cbrt, np.cbrt),
    "tan": (rt.tan, np.tan),
    "arcsin": (rt.arcsin, np.arcsin),
    "arccos": (rt.arccos, np.arccos),
    "arctan": (rt.arctan, np.arctan),
    "sinh": (rt.sinh, np.sinh),
    "cosh": (rt.cosh, np.cosh),
    "arcsinh": (rt.arcsinh, np.arcsinh),
    "arccosh": (rt.arccosh, np.arccosh),
    "arctanh": (rt.arctanh, np.arctanh),
    "deg2rad": (rt.deg2rad, np.deg2rad),
    "rad2deg": (rt.rad2deg, np.rad2deg),
    "rint": (rt.rint, np.rint),
    "signbit": (rt.signbit, np.signbit),
}
# the same dtype out as in, integers included (isnan and its kin: bools)
NUMERIC_UNARY = {
    "trunc": (rt.trunc, np.trunc),
    "absolute": (rt.absolute, np.absolute),
    "isnan": (rt.isnan, np.isnan),
    "isinf": (rt.isinf, np.isinf),
    "isfinite": (rt.isfinite, np.isfinite),
}
FLOAT_BINARY = {
    "arctan2": (rt.arctan2, np.arctan2),
    "hypot": (rt.hypot, np.hypot),
    "logaddexp": (rt.logaddexp, np.logaddexp),
    "copysign": (rt.copysign, np.copysign),
    "heaviside": (rt.heaviside, np.heaviside),
}
NUMERIC_BINARY = {
    "fmod": (rt.fmod, np.fmod),
    "fmax": (rt.fmax, np.fmax),
    "fmin": (rt.fmin, np.fmin),
    "power": (rt.power, np.power),
    "remainder": (rt.remainder, np.remainder),
    "true_divide": (rt.true_divide, np.true_divide),
    "floor_divide": (rt.floor_divide, np.floor_divide),
}


def _quiet(fn):
    """`fn` without numpy's warnings for nan and inf results (the kernels run numpy too)."""
    def run(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return run


def _edges(dtype):
    return np.array(EDGES, dtype)


def _both_shapes(fn):
    """`fn` on an array and on a 0-d value at once: one trace checks both."""
    return lambda x, s: [fn(x), fn(s)]


# ---- values and dtypes -------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(FLOAT_UNARY))
def test_float_functions_of_floats(name):
    rt_fn, np_fn = FLOAT_UNARY[name]
    for dtype in FLOATS:
        check_op(_quiet(_both_shapes(rt_fn)), _quiet(_both_shapes(np_fn)), _edges(dtype),
                 dtype(0.5))


@pytest.mark.parametrize("name", sorted(FLOAT_UNARY))
def test_integers_and_bools_become_numpys_float_dtype(name):
    """int32 and int64: float64; int8, uint8 and bool: float16 (numpy's loops)."""
    rt_fn, np_fn = FLOAT_UNARY[name]
    for dtype in INTS:
        values = np.array(INT_VALUES, dtype).reshape(2, 4)
        result = check_op(_quiet(rt_fn), _quiet(np_fn), values)
        assert result.dtype in (rt.float64, rt.bool)
    check_op(_quiet(rt_fn), _quiet(np_fn), np.array([0, 1, 2], np.int8))
    check_op(_quiet(rt_fn), _quiet(np_fn), np.array([True, False]))


@pytest.mark.parametrize("name", sorted(NUMERIC_UNARY))
def test_numeric_functions_keep_integers(name):
    rt_fn, np_fn = NUMERIC_UNARY[name]
    for dtype in FLOATS:
        check_op(_quiet(_both_shapes(rt_fn)), _quiet(_both_shapes(np_fn)), _edges(dtype),
                 dtype(-2.5))
    for dtype in INTS:
        check_op(_both_shapes(rt_fn), _both_shapes(np_fn), np.array(INT_VALUES, dtype),
                 dtype(-3))


def test_isnan_isinf_isfinite_of_integers_and_bools():
    """numpy: integers and bools are never nan or infinite."""
    for value in (np.array([[0, -5], [7, 1]], np.int64), np.array([True, False]),
                  np.array([3, 200], np.uint8)):
        for fn, np_fn in ((rt.isnan, np.isnan), (rt.isinf, np.isinf),
                          (rt.isfinite, np.isfinite)):
            check_op(fn, np_fn, value)


@pytest.mark.parametrize("name", sorted(FLOAT_BINARY))
def test_float_functions_of_two_operands(name):
    rt_fn, np_fn = FLOAT_BINARY[name]
    grid = np.array(EDGES)
    for dtype in FLOATS:
        a = np.repeat(grid, len(grid)).astype(dtype)  # every pair of edge values
        b = np.tile(grid, len(grid)).astype(dtype)
        check_op(_quiet(rt_fn), _quiet(np_fn), a, b)
        # broadcasting, both ways
        check_op(_quiet(rt_fn), _quiet(np_fn), _edges(dtype)[:6].reshape(2, 3),
                 np.array([-1.0, 0.0, 2.0], dtype))
        check_op(_quiet(rt_fn), _quiet(np_fn), np.array([[-0.5], [2.0]], dtype),
                 _edges(dtype)[6:9])
        check_op(_quiet(rt_fn), _quiet(np_fn), dtype(-0.5), dtype(0.0))
    for dtype in INTS:  # float64, as numpy's
        check_op(_quiet(rt_fn), _quiet(np_fn), np.array(INT_VALUES, dtype),
                 np.array(INT_VALUES[::-1], dtype))


@pytest.mark.parametrize("name", sorted(NUMERIC_BINARY))
def test_numeric_functions_of_two_operands(name):
    rt_fn, np_fn = NUMERIC_BINARY[name]
    grid = np.array(EDGES)
    for dtype in FLOATS:
        a = np.repeat(grid, len(grid)).astype(dtype)
        b = np.tile(grid, len(grid)).astype(dtype)
        check_op(_quiet(rt_fn), _quiet(np_fn), a, b)
        check_op(_quiet(rt_fn), _quiet(np_fn), _edges(dtype)[:6].reshape(2, 3),
                 np.array([-1.5, 0.5, 2.0], dtype))
    for dtype in INTS:
        a = np.array(INT_VALUES, dtype).reshape(2, 4)
        b = np.array([-3, 2, 5, -1], dtype)
        if name != "power":  # integers to negative powers: numpy raises (see below)
            check_op(_quiet(rt_fn), _quiet(np_fn), a, b)
        check_op(_quiet(rt_fn), _quiet(np_fn), a, np.array([2, 3, 1, 4], dtype))


def test_integer_division_by_zero_gives_numpys_zero():
    a = np.array([5, -5, 7, 0], np.int32)
    zero = np.zeros(4, np.int32)
    for fn, np_fn in ((rt.fmod, np.fmod), (rt.remainder, np.remainder),
                      (rt.floor_divide, np.floor_divide)):
        check_op(fn, _quiet(np_fn), a, zero)


def test_fmod_takes_the_sign_of_the_dividend_and_remainder_of_the_divisor():
    a, b = np.array([7, -7, 7, -7], np.int64), np.array([3, 3, -3, -3], np.int64)
    assert rt.fmod(a, b).numpy().tolist() == [1, -1, 1, -1]
    assert rt.remainder(a, b).numpy().tolist() == [1, 2, -2, -1]
    info = np.iinfo(np.int32)
    check_op(rt.fmod, np.fmod, np.array([info.min, info.max], np.int32),
             np.array([3, -7], np.int32))


def test_fmax_and_fmin_ignore_nans_that_maximum_keeps():
    a = np.array([np.nan, 1.0, np.nan, -0.0], np.float32)
    b = np.array([2.0, np.nan, np.nan, 0.0], np.float32)
    assert np.array_equal(rt.fmax(a, b).numpy(), [2.0, 1.0, np.nan, 0.0], equal_nan=True)
    assert np.array_equal(rt.fmin(a, b).numpy(), [2.0, 1.0, np.nan, -0.0], equal_nan=True)
    assert np.isnan(rt.maximum(a, b).numpy()[:3]).all()


def test_numpy_names_are_the_ops_rt_has():
    x = np.array([[-2.5, 4.0], [3.0, -1.0]], np.float32)
    for alias, op in ((rt.absolute, rt.abs), (rt.power, rt.pow), (rt.remainder, rt.mod),
                      (rt.true_divide, rt.divide), (rt.floor_divide, rt.floordiv)):
        args = (x,) if alias is rt.absolute else (x, np.float32(1.5))
        np.testing.assert_array_equal(alias(*args).numpy(), op(*args).numpy())
    assert rt.power.__name__ == "power" and "numpy broadcasting" in rt.power.__doc__
    assert rt.absolute(rt.constant(np.complex64(3 + 4j))).numpy() == np.float32(5.0)


def test_python_scalars():
    """Python numbers are weak next to tensors; alone, a Python int is int32 (float64 out), a
    Python float float32."""
    x = np.array([0.5, -2.0, 3.0], np.float32)
    check_op(rt.arctan2, np.arctan2, x, 2.0)
    check_op(lambda y: rt.hypot(3.0, y), lambda y: np.hypot(3.0, y), x)
    check_op(rt.fmod, np.fmod, np.array([7, -7], np.int64), 3)
    assert rt.log1p(1).dtype is rt.float64 and rt.log1p(1.0).dtype is rt.float32
    assert float(rt.arctan2(1, 1)) == np.arctan2(1, 1)


def test_weak_operands_give_weak_results_in_graphs():
    seen = []

    def fn(x):
        weak = rt.cond(x > 0, lambda: 1.5, lambda: 2.5)  # a Python float, staged
        seen[:] = [(t.weak, t.dtype) for t in [rt.hypot(weak, 2.0), rt.fmax(weak, 0.5),
                                                rt.hypot(weak, x), rt.tan(weak)]]
        return x

    rt.function(fn, autograph=False)(rt.constant(np.float64(3.0)))
    both_weak, also_weak, with_tensor, unary = seen  # (weak, dtype) of each while tracing
    # a Python float staged by a graph `if` is a weak float64 (Python's width)
    assert both_weak == (True, rt.float64) and also_weak[0]
    assert with_tensor == (False, rt.float64)
    assert unary[1] is rt.float64


def test_unknown_dims():
    for fn, np_fn, dtype in ((rt.log1p, np.log1p, rt.float32), (rt.isnan, np.isnan, rt.int32),
                             (rt.tan, np.tan, rt.int64)):
        concrete = traced_for_specs(fn, rt.TensorSpec([None, None], dtype))
        assert concrete.graph.outputs[0].shape.as_list() == [None, None]
        value = np.arange(6).reshape(2, 3).astype(dtype.np_dtype)
        np.testing.assert_array_equal(concrete(rt.constant(value)).numpy(), np_fn(value))
    specs = rt.TensorSpec([None], rt.float32), rt.TensorSpec([None, 1], rt.float32)
    concrete = traced_for_specs(rt.arctan2, *specs)
    assert concrete.graph.outputs[0].shape.as_list() == [None, None]
    a, b = np.float32([1.0, -2.0, 0.5]), np.float32([[2.0], [-1.0]])
    np.testing.assert_array_equal(concrete(rt.constant(a), rt.constant(b)).numpy(),
                                  np.arctan2(a, b))


def test_bad_operands_are_refused_with_what_to_do():
    with pytest.raises(TypeError, match="tan takes numeric tensors, not string"):
        rt.tan(rt.constant([b"a"]))
    with pytest.raises(TypeError, match="isnan takes numeric tensors, not string"):
        rt.isnan(rt.constant(b"a"))
    with pytest.raises(TypeError, match=r"arctan2: operands have different dtypes.*rt.cast"):
        rt.arctan2(rt.constant(np.float32(1)), rt.constant(np.float64(1)))
    with pytest.raises(TypeError, match="trunc needs a numeric tensor, got bool"):
        rt.trunc(rt.constant([True]))
    with pytest.raises(TypeError, match="subtract does not accept bool tensors"):
        rt.subtract(rt.constant([True]), rt.constant([False]))  # (numpy's TypeError too)
    with np.errstate(divide="ignore"):  # other arithmetic on bools is numpy's
        np.testing.assert_array_equal(rt.fmod(rt.constant([True]), rt.constant([True])).numpy(),
                                      np.fmod(np.array([True]), np.array([True])), strict=True)
    with pytest.raises(TypeError, match=r"reciprocal takes float tensors, not int32.*1 / x"):
        rt.reciprocal(rt.constant([2]))
    for fn, args in ((rt.tan, [1j]), (rt.isnan, [1j]), (rt.hypot, [1j, 1j]),
                     (rt.reciprocal, [1j])):
        with pytest.raises(TypeError, match="does not take complex tensors"):
            fn(*[rt.constant(np.complex64(a)) for a in args])
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integers to negative"):
        rt.power(rt.constant([2]), rt.constant([-1]))  # as numpy's


def test_reciprocal_of_floats():
    for dtype in FLOATS:
        check_op(_quiet(_both_shapes(rt.reciprocal)), _quiet(_both_shapes(np.reciprocal)),
                 _edges(dtype), dtype(4.0))


def test_chains_on_big_arrays_are_fused_with_the_same_bits():
    x = np.linspace(-3.0, 3.0, 1 << 16, dtype=np.float32)

    def chain(x):
        return rt.isfinite(rt.log1p(rt.arctan(rt.sinh(x)) + 1.0)), rt.fmod(rt.cbrt(x), 0.7)

    check_op(chain, lambda x: (np.isfinite(np.log1p(np.arctan(np.sinh(x)) + np.float32(1.0))),
                               np.fmod(np.cbrt(x), np.float32(0.7))), x)
    concrete = rt.function(chain, autograph=False).get_concrete_function(rt.constant(x))
    assert "FusedElementwise" in [op.type for op in concrete.graph.operations]


# ---- gradients ---------------------------------------------------------------------------------

_RNG = np.random.default_rng(26)


STEPS = rt.constant(np.array([[0.0, -1.0, 0.0], [2.0, 0.0, 0.0]]))


def _uniform(low, high, shape=(2, 3)):
    return _RNG.uniform(low, high, shape)


# name -> (function of float64 tensors, its arguments), values where the function is smooth
GRADIENTS = {
    "Log1p": (rt.log1p, (_uniform(-0.5, 3.0),)),
    "Expm1": (rt.expm1, (_uniform(-2.0, 2.0),)),
    "Log2": (rt.log2, (_uniform(0.2, 3.0),)),
    "Log10": (rt.log10, (_uniform(0.2, 3.0),)),
    "Exp2": (rt.exp2, (_uniform(-2.0, 2.0),)),
    "Cbrt": (rt.cbrt, (_uniform(0.3, 2.0) * [[1, -1, 1], [-1, 1, -1]],)),
    "Tan": (rt.tan, (_uniform(-1.2, 1.2),)),
    "Asin": (rt.arcsin, (_uniform(-0.9, 0.9),)),
    "Acos": (rt.arccos, (_uniform(-0.9, 0.9),)),
    "Atan": (rt.arctan, (_uniform(-3.0, 3.0),)),
    "Sinh": (rt.sinh, (_uniform(-2.0, 2.0),)),
    "Cosh": (rt.cosh, (_uniform(-2.0, 2.0),)),
    "Asinh": (rt.arcsinh, (_uniform(-3.0, 3.0),)),
    "Acosh": (rt.arccosh, (_uniform(1.2, 3.0),)),
    "Atanh": (rt.arctanh, (_uniform(-0.9, 0.9),)),
    "Deg2Rad": (rt.deg2rad, (_uniform(-90.0, 90.0),)),
    "Rad2Deg": (rt.rad2deg, (_uniform(-2.0, 2.0),)),
    "Reciprocal": (rt.reciprocal, (_uniform(0.3, 2.0) * [[1, -1, 1], [-1, 1, -1]],)),
    "Rint": (rt.rint, (np.array([[-1.2, 0.3, 2.7], [1.4, -2.2, 0.1]]),)),
    "Trunc": (rt.trunc, (np.array([[-1.2, 0.3, 2.7], [1.4, -2.2, 0.1]]),)),
    "Atan2": (rt.arctan2, (_uniform(-2.0, 2.0), _uniform(0.5, 2.0, (3,)) * [1, -1, 1])),
    "Hypot": (rt.hypot, (_uniform(0.5, 2.0) * [[1, -1, 1], [-1, 1, -1]], _uniform(-2, 2, (3,)))),
    "LogAddExp": (rt.logaddexp, (_uniform(-3.0, 3.0), _uniform(-3.0, 3.0, (2, 1)))),
    "CopySign": (rt.copysign, (_uniform(0.5, 2.0) * [[1, -1, 1], [-1, 1, -1]],
                               np.array([-1.0, 2.0, -3.0]))),
    # x1 away from its step at 0; x1 at 0 (a constant) for the gradient of x2
    "Heaviside": (lambda x, h: rt.heaviside(x, h) * h + rt.heaviside(STEPS, h),
                  (np.array([[-1.0, 0.5, 2.0], [0.3, 3.0, -2.0]]), _uniform(0.1, 0.9, (3,)))),
    "Fmod": (rt.fmod, (_uniform(-3.0, 3.0), np.array([0.7, -1.3, 1.9]))),
    "Fmax": (lambda a, d: rt.fmax(a, a + d), (_uniform(-2, 2), np.array([[0.3, -0.4, 0.5]]))),
    "Fmin": (lambda a, d: rt.fmin(a * 2.0, a + d), (_uniform(-2, 2), _uniform(0.2, 1.0) *
                                                   [[1, -1, 1], [-1, 1, -1]])),
}


def test_every_new_gradient_rule_is_checked():
    """(test_gradients.py checks that every rule is checked, these here)"""
    assert set(GRADIENTS) == NUMPY_MATH


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradient_matches_finite_differences(name):
    fn, arrays = GRADIENTS[name]
    check_gradient(fn, *arrays)


def test_gradients_of_nan_ignoring_max_and_min_go_to_the_number():
    a = rt.constant(np.array([np.nan, 1.0, 2.0]))
    b = rt.constant(np.array([3.0, np.nan, 1.0]))
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        high, low = rt.fmax(a, b), rt.fmin(a, b)
    assert [g.numpy().tolist() for g in tape.gradient(high, [a, b])] == [[0, 1, 1], [1, 0, 0]]
    assert [g.numpy().tolist() for g in tape.gradient(low, [a, b])] == [[0, 1, 0], [1, 0, 1]]


# ---- ONNX --------------------------------------------------------------------------------------

ONNX_F32 = np.array([[-2.5, -0.5, 0.0, 0.25], [0.75, 1.0, 3.0, 40.0]], np.float32)
ONNX_CASES = {
    # the ONNX op each declares (onnxruntime runs them on float32; float64 it lacks for most)
    "tan": (rt.tan, [ONNX_F32]),
    "arcsin": (rt.arcsin, [ONNX_F32 / 41]),
    "arccos": (rt.arccos, [ONNX_F32 / 41]),
    "arctan": (rt.arctan, [ONNX_F32]),
    "sinh": (rt.sinh, [ONNX_F32 / 10]),
    "cosh": (rt.cosh, [ONNX_F32 / 10]),
    "arcsinh": (rt.arcsinh, [ONNX_F32]),
    "arccosh": (rt.arccosh, [ONNX_F32 + 3.0]),
    "arctanh": (rt.arctanh, [ONNX_F32 / 41]),
    "rint": (rt.rint, [np.float32([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.7, np.nan])]),
    "reciprocal": (rt.reciprocal, [ONNX_F32]),
    # written out in onnx/rules.py
    "log2": (rt.log2, [np.abs(ONNX_F32), np.float64([0.5, 8.0, 1e300, np.inf])]),
    "log10": (rt.log10, [np.abs(ONNX_F32), np.float64([0.5, 1000.0, 1e-300, np.inf])]),
    "deg2rad": (rt.deg2rad, [ONNX_F32 * 30, np.float64([180.0, -45.0])]),
    "rad2deg": (rt.rad2deg, [ONNX_F32, np.float64([np.pi, -1.0])]),
    "exp2": (rt.exp2, [ONNX_F32, np.float64([-1074.0, 0.5, 1023.0, np.nan])]),
    "cbrt": (rt.cbrt, [ONNX_F32, np.float64([-27.0, 8.0, -np.inf, np.nan, 1e-300])]),
    "trunc": (rt.trunc, [ONNX_F32, np.float64([-2.7, 2.7, -np.inf, np.nan]),
                         np.int64([-3, 4])]),
    "isnan": (rt.isnan, [np.float32([np.nan, np.inf, 1.0]), np.float64([np.nan, -np.inf]),
                         np.int32([1, 2]), np.array([[True]])]),
    "isinf": (rt.isinf, [np.float32([np.nan, np.inf, 1.0]), np.float64([np.nan, -np.inf]),
                         np.int64(3)]),
    "isfinite": (rt.isfinite, [np.float32([np.nan, np.inf, -np.inf, 1.0]), np.float64([2.0]),
                               np.int32([[1, 2]])]),
    "hypot": (rt.hypot, [np.float32([3.0, 0.0, np.inf, np.nan, np.nan, 1e30]),
                         np.float32([4.0, 0.0, np.nan, np.inf, 1.0, 1e30])],
              [np.float64([[1e200], [-3.0]]), np.float64([1e200, 4.0, 0.0])]),
    "logaddexp": (rt.logaddexp, [np.float32([0.0, 1.0, np.inf, -np.inf, np.nan, 50.0]),
                                 np.float32([0.0, -2.0, np.inf, -np.inf, 1.0, -50.0])],
                  [np.float64([[1.0], [700.0]]), np.float64([2.0, 700.0, -3.0])]),
    "heaviside": (rt.heaviside, [np.float32([[-1.0], [0.0], [2.0], [np.nan]]),
                                 np.float32([0.5, 0.25])]),
    "fmod": (rt.fmod, [np.float32([5.5, -5.5, 5.5, 1.0]), np.float32([2.0, 2.0, -2.0, 0.0])],
             [np.int32([7, -7, 7, -7]), np.int32([3, 3, -3, -3])]),
    "fmax": (rt.fmax, [np.float32([np.nan, 1.0, np.nan, 2.0]),
                       np.float32([[3.0], [np.nan]])], [np.int64([1, 5]), np.int64([4, 2])]),
    "fmin": (rt.fmin, [np.float32([np.nan, 1.0, np.nan, 2.0]),
                       np.float32([[3.0], [np.nan]])], [np.int32([1, 5]), np.int32([4, 2])]),
}


@needs_onnx
@pytest.mark.parametrize("name", sorted(ONNX_CASES))
def test_onnx_export_matches_onnxruntime(name):
    fn, *cases = ONNX_CASES[name]
    for args in cases:
        if fn in (rt.hypot, rt.logaddexp, rt.heaviside, rt.fmod, rt.fmax, rt.fmin):
            onnx_agrees(_quiet(fn), *args, rtol=1e-5, atol=1e-6)
        else:
            for value in args:
                onnx_agrees(_quiet(fn), value, rtol=1e-5, atol=1e-6)


@needs_onnx
def test_ops_without_onnx_form_say_why():
    for fn, args, reason in ((rt.log1p, [0.5], "precision near 0"),
                             (rt.arctan2, [1.0, 2.0], "no Atan2"),
                             (rt.copysign, [1.0, -2.0], "sign bit of a nan")):
        f = rt.function(fn, autograph=False)
        concrete = f.get_concrete_function(*[rt.constant(np.float32(a)) for a in args])
        with pytest.raises(rt.onnx.ExportError, match=reason):
            rt.onnx.export(concrete)


# ---- numba and XLA -----------------------------------------------------------------------------

def test_numba_fmod_of_negative_integers():
    pytest.importorskip("numba")
    info = np.iinfo(np.int32)
    a = rt.constant(np.array([7, -7, 7, -7, info.min, 5], np.int32))
    b = rt.constant(np.array([3, 3, -3, -3, 3, 0], np.int32))
    native = rt.function(rt.fmod, jit_compile="numba")
    with np.errstate(all="ignore"):
        want = np.fmod(a.numpy(), b.numpy())
    np.testing.assert_array_equal(native(a, b).numpy(), want)
    assert native(a[0], b[0]).numpy() == np.int32(1)  # scalars: numpy's dtype


def test_xla_lowerings_match_the_default_executor():
    pytest.importorskip("jax")
    x = np.array([[-2.5, -0.5, 0.0, 0.5], [0.75, 1.0, np.inf, np.nan]], np.float32)
    n = np.array([[-7, -1, 0, 3], [5, 2, 9, -4]], np.int32)

    def unary(x):
        return [fn(x) for fn, _ in (*FLOAT_UNARY.values(), *NUMERIC_UNARY.values())]

    def binary(a, b):
        return [fn(a, b) for fn, _ in (*FLOAT_BINARY.values(), *NUMERIC_BINARY.values())]

    def integers(a, b):  # (without JAX's 64-bit mode: no float64 results)
        return [rt.fmod(a, b), rt.fmax(a, b), rt.fmin(a, b), rt.remainder(a, b),
                rt.floor_divide(a, b), rt.trunc(a), rt.isnan(a), rt.isinf(a), rt.isfinite(a)]

    for fn, args in ((unary, (x,)), (unary, (x / 3,)), (binary, (x, x[::-1])),
                     (integers, (n, np.array([3, -2, 0, 5], np.int32)))):
        tensors = [rt.constant(a) for a in args]
        with np.errstate(all="ignore"):
            want = rt.function(_quiet(fn), autograph=False)(*tensors)
        got = rt.function(fn, autograph=False, jit_compile="xla")(*tensors)
        for a, b in zip(want, got):
            assert a.dtype is b.dtype
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=2e-6, atol=1e-6,
                                       equal_nan=True)
