"""Shared helpers of the op tests: run an op eagerly, as a traced graph through the compiled
executor and through the reference interpreter, and compare all of them with numpy.

`check_op(rt_fn, np_fn, *args)` is the workhorse: numpy arguments (arrays, numpy scalars and
`bytes`) become tensors; every other argument (Python scalars, lists, axes) is passed unchanged
to both functions. It checks values, dtypes, that 0-d results are numpy scalars (not 0-d
arrays), that the graph's declared output dtypes and shapes fit the values, and that the compiled
executor and the interpreter agree bit for bit.

`onnx_agrees(rt_fn, *arrays)` exports `rt_fn` to ONNX and checks that onnxruntime gives the
same results (skipping when onnx or onnxruntime is not installed).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import runtime as rt
from runtime.executor.interpreter import run_graph


def is_tensor_arg(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic, bytes))


def to_rt_args(args) -> list:
    return [rt.constant(a) if is_tensor_arg(a) else a for a in args]


def graph_function(rt_fn, **options):
    """`rt_fn` as an rt.function without autograph (the op library alone is under test)."""
    return rt.function(lambda *a: rt_fn(*a), autograph=False, **options)


def assert_value(value, expected, dtype=None, rtol=1e-6, atol=0.0, where="") -> None:
    """`value` (a raw result: numpy array, numpy scalar or bytes) equals `expected`, has
    `dtype` (default: expected's), and is a numpy scalar exactly when it is 0-d."""
    expected_array = np.asarray(expected)
    want_dtype = np.dtype(dtype) if dtype is not None else expected_array.dtype
    if expected_array.dtype.kind in "OSU" and dtype is None:
        want_dtype = np.dtype(object)
    if expected_array.ndim == 0:
        assert isinstance(value, (np.generic, bytes)), (
            f"{where}: 0-d result should be a numpy scalar, got {type(value).__name__}"
        )
    else:
        assert isinstance(value, np.ndarray), f"{where}: expected an array, got {type(value)}"
    actual = np.asarray(value)
    if want_dtype.kind == "O":
        assert actual.dtype == object or isinstance(value, bytes), where
        assert actual.shape == expected_array.shape, where
        assert [_as_bytes(v) for v in actual.flat] == [_as_bytes(v) for v in expected_array.flat]
        return
    assert actual.dtype == want_dtype, f"{where}: dtype {actual.dtype}, expected {want_dtype}"
    assert actual.shape == expected_array.shape, (
        f"{where}: shape {actual.shape} != {expected_array.shape}")
    if want_dtype.kind == "f":
        np.testing.assert_allclose(actual, expected_array.astype(want_dtype), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(actual, expected_array.astype(want_dtype), err_msg=where)


def _as_bytes(v):
    return v.encode() if isinstance(v, str) else v


def _flat(result) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def assert_identical(a, b, where="") -> None:
    """Bit-for-bit equality of two raw results, including their Python types."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    assert a_arr.dtype == b_arr.dtype and a_arr.shape == b_arr.shape, where
    if a_arr.dtype.kind == "f":
        np.testing.assert_array_equal(a_arr, b_arr, err_msg=where)  # NaNs compare equal here
    else:
        assert a_arr.tolist() == b_arr.tolist(), where


def run_in_graph(rt_fn, *args, **options):
    """(results of the compiled graph, results of the interpreter, concrete function)."""
    rt_args = to_rt_args(args)
    fn = graph_function(rt_fn, **options)
    concrete = fn.get_concrete_function(*rt_args)
    concrete.graph.lint()
    concrete.traced_graph.lint()
    compiled = fn(*rt_args)
    inputs = [a.numpy() for a in rt_args if isinstance(a, rt.Tensor)]
    interpreted = run_graph(concrete.graph, inputs)
    return compiled, interpreted, concrete


def check_op(rt_fn, np_fn, *args, dtype=None, rtol=1e-6, atol=0.0):
    """Checks `rt_fn(*args)` against `np_fn(*args)` eagerly, in a compiled graph and in the
    interpreter. `dtype` overrides the expected dtype (where rt's rules differ from numpy's
    on purpose, e.g. Python floats are float32). Returns the eager result."""
    expected = _flat(np_fn(*args))
    eager = rt_fn(*to_rt_args(args))
    eager_flat = _flat(eager)
    assert len(eager_flat) == len(expected)
    for i, (t, want) in enumerate(zip(eager_flat, expected)):
        assert isinstance(t, rt.EagerTensor), f"eager output {i} is {type(t).__name__}"
        assert t.dtype.np_dtype == t.numpy().dtype if not isinstance(t.numpy(), bytes) else True
        assert_value(t.numpy(), want, dtype, rtol, atol, where=f"eager output {i}")
    compiled, interpreted, concrete = run_in_graph(rt_fn, *args)
    compiled = _flat(compiled)
    declared = concrete.graph.outputs
    assert len(compiled) == len(interpreted) == len(declared) == len(expected)
    for i, (t, raw, want, out) in enumerate(zip(compiled, interpreted, expected, declared)):
        assert_value(t.numpy(), want, dtype, rtol, atol, where=f"graph output {i}")
        assert t.dtype is out.dtype is eager_flat[i].dtype, f"graph output {i} dtype"
        assert out.shape.is_compatible_with(np.shape(t.numpy())), (
            f"graph output {i}: declared shape {out.shape} vs actual {np.shape(t.numpy())}"
        )
        assert_identical(raw, t.numpy(), where=f"interpreter vs compiled, output {i}")
        assert_identical(t.numpy(), eager_flat[i].numpy(), where=f"graph vs eager, output {i}")
    return eager


def traced_for_specs(rt_fn, *specs):
    """The concrete function of `rt_fn` traced for `specs` (TensorSpecs, dims may be None)."""
    concrete = graph_function(rt_fn, input_signature=list(specs)).get_concrete_function()
    concrete.graph.lint()
    return concrete


def unknown_dims_specs(args) -> list:
    """TensorSpecs with every dim unknown, for the numpy arguments among `args`."""
    return [rt.TensorSpec((None,) * np.ndim(a), rt.constant(a).dtype) for a in args
            if is_tensor_arg(a)]


def onnx_agrees(rt_fn, *arrays, unknown_dims=False, rtol=0.0, atol=0.0):
    """`rt_fn` exported to ONNX (traced for the arrays' shapes, or with every dim unknown when
    `unknown_dims`) gives our results in onnxruntime on CPU: the same number of outputs, dtypes,
    shapes and values. Values are compared bit for bit unless `rtol` or `atol` is given; then
    float and complex outputs are compared within them (other outputs stay exact). Skips the
    test when onnx or onnxruntime is not installed. Returns the ONNX model (to inspect its
    nodes)."""
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    tensors = [rt.constant(a) for a in arrays]
    if unknown_dims:
        concrete = traced_for_specs(rt_fn, *unknown_dims_specs(arrays))
    else:
        concrete = graph_function(rt_fn).get_concrete_function(*tensors)
    model = rt.onnx.export(concrete)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: np.asarray(a) for i, a in zip(session.get_inputs(), arrays)}
    theirs = session.run(None, feeds)
    ours = [np.asarray(t.numpy()) for t in rt.nest.flatten(concrete(*tensors))]
    assert len(ours) == len(theirs), f"{len(ours)} outputs, onnxruntime gave {len(theirs)}"
    for i, (mine, other) in enumerate(zip(ours, theirs)):
        where = f"ONNX output {i}"
        assert mine.dtype == other.dtype and mine.shape == other.shape, (
            f"{where}: ours {mine.dtype}{mine.shape}, onnxruntime's {other.dtype}{other.shape}")
        if (rtol or atol) and mine.dtype.kind in "fc":
            np.testing.assert_allclose(other, mine, rtol=rtol, atol=atol, err_msg=where)
        else:
            np.testing.assert_array_equal(other, mine, err_msg=where)
    return model


def check_error(rt_fn, *args, match="", error=None):
    """`rt_fn(*args)` raises `error` (default InvalidArgumentError) eagerly, and in a graph
    when traced with known shapes and when run with unknown dims; each message names the
    line of `rt_fn` (a one-line lambda or function of the test file) and matches `match`."""
    error = error or rt.errors.InvalidArgumentError
    code = rt_fn.__code__
    where = f'"{code.co_filename}", line {code.co_firstlineno}'
    rt_args = to_rt_args(args)
    with pytest.raises(error, match=match) as info:
        rt_fn(*rt_args)
    assert where in str(info.value), f"eager error does not name {where}:\n{info.value}"
    with pytest.raises(error, match=match) as info:
        graph_function(rt_fn)(*rt_args)
    assert where in str(info.value), f"graph error does not name {where}:\n{info.value}"
    # With unknown dims, shape errors can only show up when the graph runs (errors that do not
    # depend on dims, like a bad axis, still show up while tracing).
    specs = unknown_dims_specs(args)
    if len(specs) != len(args):
        return
    try:
        concrete = traced_for_specs(rt_fn, *specs)
    except error as e:
        assert re.search(match, str(e)) and where in str(e), f"trace error:\n{e}"
        return
    tensor_args = [a for a in rt_args if isinstance(a, rt.Tensor)]
    with pytest.raises(error, match=match) as info:
        concrete(*tensor_args)
    assert where in str(info.value), f"run-time error does not name {where}:\n{info.value}"
    with pytest.raises(error, match=match) as info:
        run_graph(concrete.graph, [a.numpy() for a in tensor_args])
    assert where in str(info.value), f"interpreter error does not name {where}:\n{info.value}"
