"""runtime.numpy's functions against numpy's over random shapes, dtypes and values
(hypothesis): eagerly and in a graph each gives exactly numpy's value, shape and dtype, or raises
where numpy raises."""

import pathlib
import warnings

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
import runtime.numpy as rnp

pytestmark = pytest.mark.no_round_trip  # many small graphs: their saving is tested elsewhere
DTYPES = [np.float32, np.float64, np.int32, np.int64]
UNARY = ["absolute", "negative", "positive", "sign", "square", "sqrt", "exp", "log", "sin",
         "cos", "tanh", "floor", "ceil", "logical_not", "round", "ravel", "transpose", "copy",
         "shape", "ndim", "size", "atleast_1d", "atleast_2d", "zeros_like", "ones_like",
         "log1p", "expm1", "log2", "log10", "exp2", "cbrt", "tan", "arcsin", "arccos", "arctan",
         "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "rint",
         "signbit", "trunc", "isnan", "isinf", "isfinite", "cumsum", "cumprod", "sort",
         "argsort", "flip", "nonzero", "flatnonzero", "argwhere", "unique", "diff"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
          "maximum", "minimum", "equal", "not_equal", "less", "less_equal", "greater",
          "greater_equal", "logical_and", "logical_or", "logical_xor", "isclose", "allclose",
          "array_equal", "arctan2", "hypot", "logaddexp", "copysign", "heaviside", "fmod",
          "fmax", "fmin", "outer"]
REDUCTIONS = ["sum", "prod", "mean", "max", "min", "amax", "amin", "all", "any", "argmax",
              "argmin", "std", "var"]
SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _elements(dtype):
    if np.dtype(dtype).kind == "b":
        return st.booleans()
    if np.dtype(dtype).kind == "f":
        return st.floats(-8, 8, width=np.dtype(dtype).itemsize * 8) | st.sampled_from(
            [0.0, -0.0, 0.5, -1.5, 2.5])
    return st.integers(-6, 6)


def arrays(dtype, shape=None):
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)
    return hnp.arrays(dtype, shape if shape is not None else shapes, elements=_elements(dtype))


def _outcome(fn):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn()
    except Exception as e:  # noqa: BLE001 - an error is an outcome to compare
        return e


def _numpy_value(value):
    if isinstance(value, (tuple, list)):
        return type(value)(_numpy_value(v) for v in value)
    return value.numpy() if isinstance(value, rt.Tensor) else value


def _assert_same(actual, expected, where):
    if isinstance(expected, Exception):
        assert isinstance(actual, Exception), f"{where}: numpy raised {expected!r}, got {actual!r}"
        return
    assert not isinstance(actual, Exception), f"{where}: numpy gave {expected!r}, got {actual!r}"
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), where
        for a, e in zip(actual, expected):
            _assert_same(a, e, where)
        return
    if isinstance(expected, int) and not isinstance(expected, np.generic):
        assert int(np.asarray(actual)) == expected, where
        return
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"{where}: dtype {a.dtype}, numpy {e.dtype}"
    assert a.shape == e.shape, f"{where}: shape {a.shape}, numpy {e.shape}"
    assert np.array_equal(a, e, equal_nan=a.dtype.kind == "f"), f"{where}: {a} != {e}"


def _three_ways(name, numpy_fn, rt_fn, arrays_, extra=()):
    """numpy on the arrays, rnp eagerly on tensors, rnp in a graph: the same."""
    expected = _outcome(lambda: numpy_fn(*arrays_, *extra))
    tensors = [rt.constant(a) for a in arrays_]
    eager = _outcome(lambda: _numpy_value(rt_fn(*tensors, *extra)))
    _assert_same(eager, expected, f"{name} eagerly")
    graph = rt.function(lambda *t: rt_fn(*t, *extra), autograph=False)
    _assert_same(_outcome(lambda: _numpy_value(graph(*tensors))), expected, f"{name} in a graph")


@pytest.mark.parametrize("name", UNARY)
@SETTINGS
@given(data=st.data())
def test_unary_functions(name, data):
    x = data.draw(arrays(data.draw(st.sampled_from(DTYPES))))
    # argsort: numpy's default leaves the order of equal items unspecified; rt's is stable
    numpy_fn = getattr(np, name) if name != "argsort" else lambda a: np.argsort(a, kind="stable")
    _three_ways(name, numpy_fn, getattr(rnp, name), [x])


@pytest.mark.parametrize("name", BINARY)
@SETTINGS
@given(data=st.data())
def test_binary_functions_promote_as_numpy(name, data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                         max_side=3))
    if name == "array_equal" and data.draw(st.booleans()):
        shapes = type(shapes)((shapes.input_shapes[0],) * 2, shapes.input_shapes[0])
    x = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shapes.input_shapes[0]))
    if data.draw(st.booleans()):  # a Python number as the second operand: weak, as in numpy
        scalar = data.draw(st.sampled_from([2, -1, 0.5, 3.0]))
        _three_ways(name, lambda a: getattr(np, name)(a, scalar),
                    lambda a: getattr(rnp, name)(a, scalar), [x])
        return
    y = data.draw(arrays(data.draw(st.sampled_from(DTYPES)), shapes.input_shapes[1]))
    _three_ways(name, getattr(np, name), getattr(rnp, name), [x, y])


@pytest.mark.parametrize("name", REDUCTIONS)
@SETTINGS
@given(data=st.data())
def test_reductions(name, data):
    x = data.draw(arrays(data.draw(st.sampled_from(DTYPES + [np.bool_, np.int16]))
                         if name not in ("std", "var", "mean") else
                         data.draw(st.sampled_from(DTYPES))))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    keepdims = data.draw(st.booleans())
    kwargs = {"axis": axis, "keepdims": keepdims}
    if name in ("std", "var"):
        kwargs["ddof"] = data.draw(st.sampled_from([0, 1]))
    _three_ways(name, lambda a: getattr(np, name)(a, **kwargs),
                lambda a: getattr(rnp, name)(a, **kwargs), [x])
    if not hasattr(x, name):
        return
    method = getattr(rt.constant(x), name)  # the ndarray method gives the same
    _assert_same(_outcome(lambda: _numpy_value(method(**kwargs))),
                 _outcome(lambda: getattr(x, name)(**kwargs)), f"x.{name}()")


def test_the_readme_lists_exactly_the_supported_names():
    from runtime.numpy.__main__ import listing

    readme = (pathlib.Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- numpy-names:start -->\n")[1].split("<!-- numpy-names:end -->")[0]
    assert block == listing() + "\n", (
        "README.md's list of numpy names is stale: put the output of `python -m runtime.numpy` "
        "between its numpy-names markers.")


@pytest.mark.parametrize("call", [lambda a: np.mean(a, axis=1.5), lambda a: np.max(a, axis=1.5),
                                  lambda a: np.diff(a, n=1.0), lambda a: np.round(a, 1.5)])
def test_a_float_where_numpy_takes_an_int_is_numpys_type_error(call):
    """Found by a second reading: these truncated the float and gave a value (np.round of 1.5
    places: garbage) where numpy raises TypeError."""
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError):
        call(x)
    with pytest.raises(TypeError):
        rt.function(call)(rt.constant(x))
