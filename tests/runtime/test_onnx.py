"""rt.onnx.export: exported models run in onnxruntime and agree with our executor."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as rt
from benchmarks import workloads

try:
    import onnx
    import onnxruntime as ort
except ImportError:
    onnx = ort = None

needs_onnx = pytest.mark.skipif(
    ort is None, reason="onnx and onnxruntime are not installed (pip install 'tracegraph[onnx]')"
)


def _feed(value):
    value = np.asarray(value)
    if value.dtype == object:  # onnxruntime takes str objects for strings
        return np.vectorize(bytes.decode, otypes=[object])(value)
    return value


def _fetched(value):
    if value.dtype == object:
        return np.vectorize(str.encode, otypes=[object])(value)
    return value


def _run_onnx(model, args):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: _feed(a) for i, a in zip(session.get_inputs(), args)}
    return [_fetched(v) for v in session.run(None, feeds)]


def _export_and_compare(fn, *args, exact=True):
    """Runs `fn` traced by us and exported to onnxruntime; returns the ONNX model."""
    f = rt.function(fn, autograph=False)
    tensors = [rt.constant(a) for a in args]
    ours = [t.numpy() for t in rt.nest.flatten(f(*tensors)) if isinstance(t, rt.Tensor)]
    model = rt.onnx.export(f.get_concrete_function(*tensors))
    theirs = _run_onnx(model, args)
    assert len(theirs) == len(ours)
    for a, b in zip(ours, theirs):
        a = np.asarray(a)
        assert a.dtype == b.dtype and a.shape == b.shape
        if exact or a.dtype.kind not in "fc":
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    return model


def _node_types(graph):
    types = []
    for node in graph.node:
        types.append(node.op_type)
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                types.extend(_node_types(attr.g))
    return types


# ---- seed functions and benchmark workloads ------------------------------------------------------

X = np.array([[1.0, -2.0], [3.0, 4.0]], np.float32)


def _collatz(n):
    def body(n, steps):
        return rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), steps + 1

    return rt.while_loop(lambda n, steps: n != 1, body, (n, rt.constant(0)))


def _newton_sqrt(a):  # W5 with rt.while_loop
    return rt.while_loop(lambda y: rt.abs(y * y - a) >= 1e-6, lambda y: (y + a / y) / 2, a)


def _simple_relu(x):  # W4 with rt.cond
    return rt.cond(x > 0, lambda: x, lambda: rt.zeros_like(x))


def _sum_squares(n):  # W6 with rt.while_loop
    return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i * i), (0, 0))[1]


def _rnn(xs, w, u, b):  # W10 with rt.while_loop
    def body(t, h):
        return t + 1, rt.tanh(rt.matmul(xs[t], w) + rt.matmul(h, u) + b)

    h = rt.zeros((xs.shape[1], u.shape[0]))
    return rt.while_loop(lambda t, h: t < rt.shape(xs)[0], body, (0, h))[1]


@needs_onnx
@pytest.mark.parametrize("fn, args", [
    (lambda x, w, b: rt.matmul(x, w) + b, (X, X, np.float32([1, 2]))),  # S1
    (lambda x: rt.maximum(0.0, x), (X,)),  # S4's relu
    (lambda x, y: rt.reduce_mean((x - y) ** 2), (X, X * 0.5)),  # W3 mse, float
    (workloads.mse, (np.int32([1, 5, 9]), np.int32([3, 2, 9]))),  # W3 mse, int32
    (_simple_relu, (np.int32(3),)),
    (_simple_relu, (np.int32(-3),)),
    (_collatz, (np.int32(27),)),
    (_newton_sqrt, (np.float32(1e6),)),
    (lambda x: workloads.power(x, 5), (np.arange(100, dtype=np.int32).reshape(10, 10) % 3 - 1,)),
    (workloads.lstm_cell, workloads._lstm_args(True)),
    (_sum_squares, (np.int32(10),)),
    (workloads.gated_activation, workloads._gated_args(True)),
    (workloads.mlp, workloads._mlp_args(True)),
    (_rnn, workloads._rnn_args(True)),
    (workloads.add_one, workloads._add_one_args(True)),
], ids=["s1_matmul_add", "s4_relu", "w3_mse", "w3_mse_int", "w4_relu_pos", "w4_relu_neg",
        "w7_collatz", "w5_newton", "w1_power", "w2_lstm", "w6_sum_squares", "w8_gated",
        "w9_mlp", "w10_rnn", "w11_add_one"])
def test_seed_functions_and_workloads_agree_with_onnxruntime(fn, args):
    _export_and_compare(fn, *args, exact=False)


@needs_onnx
def test_cond_becomes_if_and_while_loop_becomes_loop():
    model = _export_and_compare(_collatz, np.int32(6))
    types = _node_types(model.graph)
    assert "Loop" in types and "If" in types
    bounded = lambda x: rt.while_loop(  # noqa: E731
        lambda i, a: i < 10, lambda i, a: (i + 1, a * 2.0), (0, x), maximum_iterations=3)
    _export_and_compare(bounded, X)


# ---- the op table --------------------------------------------------------------------------------

INTS = np.int32([-7, 4, 0, 9])
S = np.array([b"hi", b"yo"], dtype=object)

_OP_CASES = {
    "arithmetic": (lambda x: (x + 1, x - 1, x * 2, x / 3, x // 3, x % 3, x ** 2.0,
                              rt.maximum(x, 1.0), rt.minimum(x, 1.0), -x), X),
    "int_arithmetic": (lambda i: (i // 2, i % -3, i / 2, rt.abs(i), -i, rt.relu(i),
                                  rt.round(i), rt.square(i), rt.sign(i)), INTS),
    "comparisons": (lambda x: (x < 1, x <= 1, x > 1, x >= 1, rt.equal(x, 3.0),
                               rt.not_equal(x, 3.0)), X),
    "logic": (lambda x: (rt.logical_and(x > 0, x < 4), rt.logical_or(x > 0, x < 4),
                         rt.logical_xor(x > 0, x < 4), rt.logical_not(x > 0)), X),
    "unary_float": (lambda x: (rt.exp(x), rt.log(rt.abs(x)), rt.sqrt(rt.abs(x)), rt.sin(x),
                               rt.cos(x), rt.tanh(x), rt.sigmoid(x), rt.relu(x), rt.floor(x),
                               rt.ceil(x), rt.round(x * 0.5), rt.square(x)), X),
    "select_cast_clip": (lambda x: (rt.where(x > 0, x, 0.0), rt.cast(x, rt.int64),
                                    rt.clip_by_value(x, -1.0, 1.0), rt.softmax(x),
                                    rt.where(x > 1)), X),
    "layout": (lambda x: (rt.reshape(x, [-1]), rt.transpose(x), rt.expand_dims(x, -1),
                          rt.squeeze(rt.reshape(x, [1, 4, 1])), rt.concat([x, x], 1),
                          rt.stack([x, x], axis=1), rt.unstack(x), rt.split(x, 2, axis=1),
                          rt.tile(x, [2, 1]), rt.broadcast_to(x[0], [3, 2]), rt.identity(x)), X),
    "shape_queries": (lambda x: (rt.shape(x), rt.size(x), rt.rank(x)), X),
    "indexing": (lambda x: (x[1:, ::-1], x[0], x[..., None, 1], x[-1],
                            x[:, rt.constant([1, 0, 1])], rt.gather(x, rt.constant([1, 0]), 1)), X),
    "reductions": (lambda x: (rt.reduce_sum(x, axis=0, keepdims=True), rt.reduce_mean(x),
                              rt.reduce_max(x, axis=(0, 1)), rt.reduce_min(x, axis=1),
                              rt.reduce_prod(x), rt.reduce_any(x > 3, axis=1),
                              rt.reduce_all(x > -3), rt.argmax(x, 1),
                              rt.argmin(x, 0, output_type=rt.int32)), X),
    "creation": (lambda x: (rt.zeros_like(x), rt.ones_like(x, rt.int32), rt.fill(rt.shape(x), 2.0),
                            rt.range(rt.size(x)), rt.linspace(x[0], x[1], 5)), X),
    "strings": (lambda s: (rt.strings.join([s, rt.constant(b"there")], separator=" "), s + s,
                           s == rt.constant(b"hi"), s != rt.constant(b"hi")), S),
}


@needs_onnx
@pytest.mark.parametrize("case", sorted(_OP_CASES))
def test_ops_agree_with_onnxruntime(case):
    fn, arg = _OP_CASES[case]
    _export_and_compare(fn, arg, exact=case not in ("unary_float", "creation", "select_cast_clip"))


@needs_onnx
def test_variables_are_exported_with_their_current_value(tmp_path):
    v = rt.Variable([10.0, 20.0])
    f = rt.function(lambda x: x + v, autograph=False)
    concrete = f.get_concrete_function(rt.constant([1.0, 2.0]))
    path = tmp_path / "model.onnx"
    rt.onnx.export(concrete, path)
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    np.testing.assert_array_equal(_run_onnx(model, [np.float32([1, 2])])[0], [11.0, 22.0])


@needs_onnx
def test_unknown_dims_stay_dynamic():
    f = rt.function(lambda x, w: rt.reduce_sum(rt.matmul(x, w), axis=1), autograph=False)
    concrete = f.get_concrete_function(rt.TensorSpec([None, 2]), rt.TensorSpec([2, 3]))
    model = rt.onnx.export(concrete)
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    for batch in (1, 5):
        x = np.ones((batch, 2), np.float32)
        np.testing.assert_array_equal(_run_onnx(model, [x, w])[0], concrete(x, w).numpy())


@needs_onnx
def test_random_ops_export_with_shape_and_range_but_not_numpys_numbers():
    f = rt.function(lambda: (rt.random.uniform([3, 2], 2.0, 3.0, seed=1),
                             rt.random.normal([4], seed=2)), autograph=False)
    uniform, normal = _run_onnx(rt.onnx.export(f.get_concrete_function()), [])
    assert uniform.shape == (3, 2) and uniform.dtype == np.float32 and normal.shape == (4,)
    assert ((uniform >= 2.0) & (uniform < 3.0)).all()
    g = rt.function(lambda: rt.random.uniform([2], 0, 10, dtype=rt.int32), autograph=False)
    with pytest.raises(rt.onnx.ExportError, match="RandomUniform.*floats only"):
        rt.onnx.export(g.get_concrete_function())


# ---- what cannot be exported ---------------------------------------------------------------------

def _printing(x):
    rt.print("x:", x)
    return x * 2.0


@needs_onnx
def test_print_names_the_op_and_line_unless_dropped():
    concrete = rt.function(_printing, autograph=False).get_concrete_function(rt.constant(1.0))
    with pytest.raises(rt.onnx.ExportError, match=r"(?s)PrintV2.*drop_prints=True.*"
                       r"test_onnx.py\", line \d+\n\s+rt.print\(\"x:\", x\)"):
        rt.onnx.export(concrete)
    model = rt.onnx.export(concrete, drop_prints=True)
    assert _run_onnx(model, [np.float32(3.0)])[0] == 6.0


@needs_onnx
def test_assignments_and_untraceable_choices_give_clear_errors():
    v = rt.Variable(0.0)
    f = rt.function(lambda x: v.assign_add(x).read_value(), autograph=False)
    with pytest.raises(rt.onnx.ExportError, match="AssignAddVariableOp.*no mutable state"):
        rt.onnx.export(f.get_concrete_function(rt.constant(1.0)))
    g = rt.function(lambda x: x * 2.0, autograph=False)
    g(rt.constant(1.0))
    g(rt.constant([1.0]))
    with pytest.raises(rt.onnx.ExportError, match="2 traced signatures.*get_concrete_function"):
        rt.onnx.export(g)


def test_runtime_imports_without_onnx_and_export_names_the_extra():
    code = textwrap.dedent("""
        import sys
        sys.modules["onnx"] = None  # as if not installed
        sys.modules["onnxruntime"] = None
        import runtime as rt
        f = rt.function(lambda x: x + 1.0, autograph=False)
        try:
            rt.onnx.export(f.get_concrete_function(rt.constant(1.0)))
        except ImportError as e:
            print(e)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "pip install 'tracegraph[onnx]'" in result.stdout


@needs_onnx
@pytest.mark.parametrize("fn", [
    lambda x, t: rt.reshape(x, rt.stack([rt.shape(x)[1], rt.shape(x)[0]])),
    lambda x, t: rt.reshape(x, [t, -1]),
    lambda x, t: rt.tile(x, [t, 1]),
    lambda x, t: rt.broadcast_to(rt.reduce_sum(x), [t, 3]),
    lambda x, t: rt.zeros([t, 2]) + 1.0,
])
def test_shapes_held_in_tensors_export(fn):
    _export_and_compare(fn, np.arange(12, dtype=np.float32).reshape(4, 3), np.int32(2))


def _nested_conds(depth):
    def f(x):
        def level(d, x):
            if d == 0:
                return x + 1.0
            return rt.cond(x > float(d), lambda: level(d - 1, x * 2.0), lambda: x - 1.0)
        return level(depth, x)
    return rt.function(f, autograph=False)


@needs_onnx
def test_control_flow_nests_up_to_the_limit_onnx_tools_parse_and_no_deeper():
    from runtime.onnx.exporter import MAX_NESTING

    _export_and_compare(_nested_conds(MAX_NESTING).python_function, np.float32(40.0))
    deep = _nested_conds(MAX_NESTING + 1)
    with pytest.raises(rt.onnx.ExportError, match=f"nests more than {MAX_NESTING} levels"):
        rt.onnx.export(deep.get_concrete_function(rt.constant(1.0)))
