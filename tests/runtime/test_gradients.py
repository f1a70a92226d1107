"""Every gradient rule against central finite differences in float64 (hypothesis draws the
values), eagerly and inside rt.function; tapes' rules for None, integers and errors."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.ops.registry import GRADIENT, REGISTRY

H = 1e-6


def _loss(fn, weights, *xs):
    out = fn(*xs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return sum(rt.reduce_sum(o * w) for o, w in zip(outs, weights))


def _tape_gradients(fn, weights, arrays):
    xs = [rt.constant(a) for a in arrays]
    with rt.GradientTape() as tape:
        tape.watch(xs)
        loss = _loss(fn, weights, *xs)
    return [g.numpy() if g is not None else None for g in tape.gradient(loss, xs)]


def _central_differences(scalar_fn, arrays, h=H):
    """d scalar_fn / d arrays[i] for each i, by central differences."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for index in np.ndindex(a.shape):
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[i][index] += h
            minus[i][index] -= h
            g[index] = (scalar_fn(plus) - scalar_fn(minus)) / (2 * h)
        grads.append(g)
    return grads


def _numeric_gradients(fn, weights, arrays, h=H):
    return _central_differences(
        lambda values: float(_loss(fn, weights, *map(rt.constant, values))), arrays, h)


def check(fn, *arrays, seed=0, h=H, rtol=1e-5):
    """fn's tape gradients equal finite differences, eagerly and as an rt.function."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*map(rt.constant, arrays))
    outs = out if isinstance(out, (list, tuple)) else [out]
    rng = np.random.default_rng(seed)
    weights = [rt.constant(rng.uniform(0.5, 1.5, np.shape(o.numpy()))) for o in outs]
    eager = _tape_gradients(fn, weights, arrays)
    numeric = _numeric_gradients(fn, weights, arrays, h)
    for got, want in zip(eager, numeric):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol / 10)

    def traced(*xs):
        with rt.GradientTape() as tape:
            tape.watch(list(xs))
            loss = _loss(fn, weights, *xs)
        return tape.gradient(loss, list(xs))

    graph = rt.function(traced, autograph=False)(*map(rt.constant, arrays))
    for got, want in zip(graph, eager):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)


def _values(shape, low=-2.0, high=2.0, away_from=None):
    elements = st.floats(low, high, allow_nan=False, allow_infinity=False)
    if away_from is not None:
        elements = elements.filter(lambda v: min(abs(v - p) for p in away_from) > 0.05)
    return st.lists(elements, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))).map(
        lambda v: np.reshape(np.array(v, dtype=np.float64), shape))


A23, B23, R3 = _values((2, 3)), _values((2, 3)), _values((3,))
# distinct values: no ties for max and min
DISTINCT = st.lists(st.floats(-2.0, 2.0, allow_nan=False), min_size=6, max_size=6).filter(
    lambda v: min(abs(a - b) for i, a in enumerate(v) for b in v[i + 1:]) > 0.05).map(
    lambda v: np.reshape(np.array(v, dtype=np.float64), (2, 3)))
APART = _values((2, 3), -1.0, 1.0, away_from=(0.0,))  # an offset that avoids ties
POSITIVE = _values((2, 3), 0.2, 3.0)
KINKS = _values((2, 3), away_from=(0.0,))

# op name -> (function of tensors, strategies of its arguments)
CASES = {
    "Add": (lambda a, b: a + b, (A23, R3)),
    "Sub": (lambda a, b: a - b, (A23, R3)),
    "Mul": (lambda a, b: a * b, (A23, R3)),
    "RealDiv": (lambda a, b: a / b, (A23, _values((3,), 0.5, 2.0))),
    "Pow": (lambda a, b: a ** b, (POSITIVE, _values((2, 3), -1.5, 1.5))),
    "Maximum": (lambda a, d: rt.maximum(a, a + d), (A23, APART)),
    "Minimum": (lambda a, d: rt.minimum(a * 2.0, a + d), (A23, APART)),
    "FloorMod": (lambda a, b: a % b, (_values((2, 3), 0.1, 0.9), _values((2, 3), 1.5, 2.0))),
    "Neg": (lambda a: -a, (A23,)),
    "Abs": (rt.abs, (KINKS,)),
    "Exp": (rt.exp, (A23,)),
    "Log": (rt.log, (POSITIVE,)),
    "Sqrt": (rt.sqrt, (POSITIVE,)),
    "Square": (rt.square, (A23,)),
    "Sin": (rt.sin, (A23,)),
    "Cos": (rt.cos, (A23,)),
    "Tanh": (rt.tanh, (A23,)),
    "Sigmoid": (rt.sigmoid, (A23,)),
    "Relu": (rt.relu, (KINKS,)),
    "Sign": (rt.sign, (KINKS,)),
    "Round": (rt.round, (_values((2, 3), away_from=(-1.5, -0.5, 0.5, 1.5)),)),
    "Floor": (rt.floor, (_values((2, 3), away_from=(-2, -1, 0, 1, 2)),)),
    "Ceil": (rt.ceil, (_values((2, 3), away_from=(-2, -1, 0, 1, 2)),)),
    "Select": (lambda a, b: rt.where(a > 0.0, a * 2.0, b), (KINKS, R3)),
    # through float32: finite differences need a step well above float32's resolution
    "Cast": (lambda a: rt.cast(rt.cast(a, rt.float32), rt.float64) * a, (A23,),
             {"h": 1e-3, "rtol": 1e-3}),
    "ClipByValue": (lambda a: rt.clip_by_value(a, -1.0, 1.0),
                    (_values((2, 3), away_from=(-1, 1)),)),
    "MatMul": (rt.matmul, (A23, _values((3, 2)))),
    "Softmax": (rt.softmax, (A23,)),
    "Sum": (lambda a: rt.reduce_sum(a, axis=1), (A23,)),
    "Mean": (lambda a: rt.reduce_mean(a, axis=0, keepdims=True), (A23,)),
    "Max": (lambda a: rt.reduce_max(a, axis=1), (DISTINCT,)),
    "Min": (lambda a: rt.reduce_min(a), (DISTINCT,)),
    "SumToShape": (lambda a, b: a * b, (_values((2, 1)), R3)),
    "Reshape": (lambda a: rt.reshape(a, [3, 2]) * rt.reshape(a, [3, 2]), (A23,)),
    "Transpose": (lambda a: rt.transpose(a) * rt.constant([[1.0, 2.0]], rt.float64), (A23,)),
    "ExpandDims": (lambda a: rt.expand_dims(a, 1) * a[:, None], (A23,)),
    "Squeeze": (lambda a: rt.squeeze(a, [0]) * 3.0, (_values((1, 3)),)),
    "ConcatV2": (lambda a, b: rt.concat([a, b * b], 1), (A23, _values((2, 2)))),
    "Pack": (lambda a, b: rt.stack([a, b * a], 1), (R3, R3)),
    "Unpack": (lambda a: rt.unstack(a)[1] * rt.unstack(a)[0], (A23,)),
    "SplitV": (lambda a: rt.split(a, [1, 2], axis=1)[1] * 2.0, (A23,)),
    "Tile": (lambda a: rt.tile(a, [2, 3]), (_values((1, 2)),)),
    "BroadcastTo": (lambda a: rt.broadcast_to(a, [2, 3]) * rt.broadcast_to(a, [2, 3]), (R3,)),
    "Identity": (lambda a: rt.identity(a) * a, (A23,)),
    "StridedSlice": (lambda a: a[1, ::2] * a[0, 1:], (A23,)),
    "Fill": (lambda a: rt.fill([2, 2], rt.reduce_sum(a)) * a[:, :2], (A23,)),
    "Prod": (lambda a: rt.reduce_prod(a, axis=1), (A23,)),
    "GatherV2": (lambda a: rt.gather(a, [2, 0, 2], axis=1) * a, (A23,)),
    "ZerosLike": (lambda a: rt.zeros_like(a) + a * a, (A23,)),
    "OnesLike": (lambda a: rt.ones_like(a) * a, (A23,)),
    # 2.95 / delta stays between 5 and 6: the number of values does not change near the inputs
    "Range": (lambda s, d: rt.range(s, s + 2.95, d) ** 2, (_values(()), _values((), 0.5, 0.55))),
    "LinSpace": (lambda a, b: rt.linspace(a, b, 4, axis=1) * rt.transpose(
        rt.linspace(a[:1], b * b, 4)) + rt.linspace(b, a, 1, axis=1), (R3, R3)),
}
# Rules exercised by other tests below: control flow, shapes computed at run time, the
# gradient of indexing (second order); and staged lists (test_list_gradients.py).
ELSEWHERE = {"If", "While", "DynamicReshape", "DynamicBroadcastTo", "DynamicTile",
             "StridedSliceGrad", "StopGradient", "GatherGrad"} | {
    name for name in REGISTRY if name.startswith("List") and name != "ListLength"}
# numpy's other math functions: test_numpy_math_ops.py (its GRADIENTS)
NUMPY_MATH = {"Log1p", "Expm1", "Log2", "Log10", "Exp2", "Cbrt", "Tan", "Asin", "Acos", "Atan",
              "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Deg2Rad", "Rad2Deg", "Reciprocal",
              "Rint", "Trunc", "Atan2", "Hypot", "LogAddExp", "CopySign", "Heaviside", "Fmod",
              "Fmax", "Fmin"}
ELSEWHERE |= NUMPY_MATH
# scans, sorting and arrangement: test_scan_ops.py, test_sorting_ops.py, test_arrangement_ops.py
ELSEWHERE |= {"Cumsum", "Cumprod", "Sort", "Roll", "Repeat", "Pad", "PadGrad", "Tril", "Triu",
              "Diagonal", "EmbedDiagonal", "TakeAlongAxis", "TakeAlongAxisGrad"}
# contractions and selections: test_contraction_ops.py, test_selection_ops.py
ELSEWHERE |= {"Einsum", "TensorDot", "Convolve", "Correlate", "Bincount", "Interp",
              "BooleanMask", "BooleanMaskGrad"}
# numpy.linalg: test_linalg_ops.py
ELSEWHERE |= {"Cholesky", "LogMatrixDeterminant", "MatrixDeterminant", "MatrixInverse",
              "MatrixSolve", "Norm", "Qr", "SelfAdjointEig", "SelfAdjointEigValues", "Svd"}
ELSEWHERE |= {"Angle"}  # of real values: test_fft_ops.py
# log_softmax, logsumexp, one_hot, the sparse cross-entropy: test_nn_ops.py
ELSEWHERE |= {"LogSoftmax", "LogSumExp", "OneHot", "SparseSoftmaxCrossEntropyWithLogits"}
# convolutions and pooling: test_convolution_ops.py
ELSEWHERE |= {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool", "AvgPool",
              "AvgPoolGrad"}


def test_every_gradient_rule_is_checked():
    with_rule = {name for name, op in REGISTRY.items() if op.rule(GRADIENT) is not None}
    assert with_rule == set(CASES) | ELSEWHERE


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    fn, strategies, *options = CASES[name]

    @settings(max_examples=8, deadline=None, derandomize=True)
    @given(st.tuples(*strategies))
    def run(arrays):
        check(fn, *arrays, **(options[0] if options else {}))

    run()


def test_dynamic_shapes_reshape_and_broadcast():
    def fn(a):
        b = rt.reshape(a, rt.shape(a)[::-1])
        tiled = rt.tile(a, rt.shape(a) * 0 + [2, 1])
        return (rt.reshape(b * b, rt.shape(a)) + rt.broadcast_to(a[:1], rt.shape(a)),
                tiled * tiled)

    check(fn, np.arange(6.0).reshape(2, 3) / 7.0)


# ---- tapes -------------------------------------------------------------------------------------

def test_unconnected_and_integer_sources():
    x, y, k = rt.constant(2.0), rt.constant(3.0), rt.constant(4)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([x, y, k])
        z = x * x + rt.cast(k, rt.float32)
    assert tape.gradient(z, y) is None
    assert float(tape.gradient(z, y, unconnected_gradients="zero")) == 0.0
    assert tape.gradient(z, k) is None
    assert float(tape.gradient(z, {"a": x})["a"]) == 4.0


def test_no_gradient_rule_names_the_op_and_the_line():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x // 2.0)  # the floordiv line
    with pytest.raises(rt.errors.NoGradientError, match=r"FloorDiv(.|\n)*the floordiv line"):
        tape.gradient(y, x)


def test_hessian_vector_product_with_nested_tapes():
    x = rt.constant([1.0, 2.0])
    w = rt.constant([[1.0, 2.0], [3.0, 4.0]])
    v = rt.constant([0.5, -1.0])
    for run in (lambda f: f, rt.function):
        def hvp(x):
            with rt.GradientTape() as outer:
                outer.watch(x)
                with rt.GradientTape() as inner:
                    inner.watch(x)
                    y = rt.reduce_sum(rt.sin(x) * rt.reshape(rt.matmul(w, x[:, None]), [2]))
                g = inner.gradient(y, x)
                gv = rt.reduce_sum(g * v)
            return outer.gradient(gv, x)

        got = run(hvp)(x).numpy()
        # Hessian of sum(sin(x) * (W x)) by hand
        xs, wv = np.float32([1.0, 2.0]), np.float32([[1, 2], [3, 4]])
        hess = np.diag(-np.sin(xs) * (wv @ xs)) + np.diag(np.cos(xs)) @ wv + (
            np.diag(np.cos(xs)) @ wv).T
        np.testing.assert_allclose(got, hess @ np.float32([0.5, -1.0]), rtol=1e-5)


# ---- control flow (inside rt.function; eagerly Python runs the branches) -----------------------

def _graph_and_numeric(fn, *values):
    """The tape gradient of fn traced into a graph, and finite differences of fn."""
    def grad(*xs):
        with rt.GradientTape() as tape:
            tape.watch(list(xs))
            y = fn(*xs)
        return tape.gradient(y, list(xs))

    arrays = [np.asarray(v, np.float64) for v in values]
    got = [g.numpy() for g in rt.function(grad)(*map(rt.constant, arrays))]
    graph_fn = rt.function(fn)
    numeric = _central_differences(
        lambda values: float(rt.reduce_sum(graph_fn(*map(rt.constant, values)))), arrays)
    return got, numeric


def newton_sqrt(a):
    y = a
    while rt.abs(y * y - a) > 1e-12:
        y = (y + a / y) / 2.0
    return y


def test_newton_while_loop_gradient_is_one_over_two_sqrt():
    for a in (2.0, 9.0, 0.3):
        got, numeric = _graph_and_numeric(newton_sqrt, a)
        np.testing.assert_allclose(got[0], 1 / (2 * np.sqrt(a)), rtol=1e-9)
        np.testing.assert_allclose(got[0], numeric[0], rtol=1e-5)


def collatz_like(x, n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
            x = x * 0.5 + rt.sin(x)
        else:
            n = 3 * n + 1
            x = x * x * 0.25
        steps += 1
    return x


def test_data_dependent_loop_with_a_branch():
    for n in (6, 7, 1):
        def fn(x, n=n):
            return collatz_like(x, rt.constant(n))

        got, numeric = _graph_and_numeric(fn, [0.3, -0.7])
        np.testing.assert_allclose(got[0], numeric[0], rtol=1e-5, atol=1e-8)


def loop_with_break(x, w):
    total = x * 0.0
    for i in rt.range(10):
        total = total + rt.tanh(x * w) * rt.cast(i, rt.float64)
        if rt.reduce_sum(total) > 3.0:
            break
        x = x + 0.1
    return total


def test_loop_with_break_over_rt_range():
    got, numeric = _graph_and_numeric(loop_with_break, [0.2, 0.5], [0.7, -0.3])
    for g, n in zip(got, numeric):
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-8)


def rnn(xs, w, u):
    h = rt.zeros([2], rt.float64)
    for i in rt.range(rt.shape(xs)[0]):
        h = rt.tanh(rt.reshape(rt.matmul(w, xs[i][:, None]), [2]) + rt.reshape(
            rt.matmul(u, h[:, None]), [2]))
    return h


def test_rnn_over_rt_range_with_matrices_captured():
    rng = np.random.default_rng(1)
    xs, w, u = rng.normal(size=(4, 3)), rng.normal(size=(2, 3)) * 0.5, rng.normal(size=(2, 2))
    got, numeric = _graph_and_numeric(rnn, xs, w, u)
    for g, n in zip(got, numeric):
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-8)


def nested(x):
    total = x * 0.0
    i = 0
    while i < 3:
        j = 0
        while j < i + 1:
            total = total + rt.sin(x * rt.cast(j + 1, rt.float64))
            j += 1
        i += 1
    return total


def test_nested_loops():
    got, numeric = _graph_and_numeric(nested, [0.4, 1.3])
    np.testing.assert_allclose(got[0], numeric[0], rtol=1e-5, atol=1e-8)


def test_prod_gradient_with_zeros():
    for values in ([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]], [[1.5, -2.0, 0.5], [4.0, 0.0, 1.0]]):
        x = rt.constant(values, rt.float64)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.reduce_prod(x, axis=1) * rt.constant([1.0, 2.0], rt.float64))
        a = np.array(values)
        want = np.array([[np.prod(np.delete(row, j)) * w for j in range(3)]
                         for row, w in zip(a, (1.0, 2.0))])
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want)


def test_second_order_through_gather():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.gather(x, [2, 2, 0]) ** 3.0)
        g = inner.gradient(y, x)  # [3 x0^2, 0, 6 x2^2]
        z = rt.reduce_sum(g * g)
    np.testing.assert_allclose(outer.gradient(z, x).numpy(), [36.0, 0.0, 3888.0])


def test_second_order_through_indexing():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(x[1:] * x[1:] * x[1:])
        g = inner.gradient(y, x)
        z = rt.reduce_sum(g * g)
    # g = [0, 3 x1^2, 3 x2^2]; dz/dx = 2 g * 6 x
    np.testing.assert_allclose(outer.gradient(z, x).numpy(), [0.0, 288.0, 972.0])


def test_grad_and_value_and_grad_compose_with_function():
    def f(x, w):
        return rt.reduce_sum(rt.tanh(x * w))

    x, w = rt.constant([0.5, -1.0]), rt.constant([2.0, 3.0])
    want = (1 - np.tanh(np.float32([0.5, -1.0]) * [2, 3]) ** 2) * [2, 3]
    np.testing.assert_allclose(rt.grad(f)(x, w).numpy(), want, rtol=1e-5)
    value, (gx, gw) = rt.function(rt.value_and_grad(f, argnums=(0, 1)))(x, w)
    assert float(value) == pytest.approx(float(f(x, w)))
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(gw.numpy(), (1 - np.tanh([1.0, -3.0]) ** 2) * [0.5, -1.0],
                               rtol=1e-5)


def test_onnx_export_of_a_graph_with_its_gradient():
    onnxruntime = pytest.importorskip("onnxruntime")
    from runtime.onnx.exporter import to_model

    f = rt.function(rt.value_and_grad(lambda x, w: rt.reduce_sum(rt.square(
        rt.matmul(x, w) + 1.0))))
    x = rt.constant(np.float32([[1.0, 2.0], [3.0, 4.0]]))
    w = rt.constant(np.float32([[0.5], [-1.0]]))
    value, grad = f(x, w)
    model = to_model(f.get_concrete_function(x, w))
    session = onnxruntime.InferenceSession(model.SerializeToString())
    names = [i.name for i in session.get_inputs()]
    got = session.run(None, dict(zip(names, [x.numpy(), w.numpy()])))
    np.testing.assert_allclose(got[0], value.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1], grad.numpy(), rtol=1e-6)


def test_gradients_agree_with_jax_grad():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    from benchmarks import external, workloads

    for key, ours in (("G2", workloads.lstm_value_and_grad), ("G9", workloads.mlp_value_and_grad)):
        make_args = {"G2": workloads._lstm_args, "G9": workloads._mlp_grad_args}[key]
        args = [np.asarray(a, np.float64) for a in make_args(True)]
        theirs = external._jax_functions()[key](*[jax.numpy.asarray(a) for a in args])
        for graph in (False, True):
            fn = rt.function(ours) if graph else ours
            got = fn(*map(rt.constant, args))
            for g, t in zip(got, theirs):
                np.testing.assert_allclose(g.numpy(), np.asarray(t), rtol=1e-10, atol=1e-12)


def test_onnx_export_of_a_while_loop_gradient():
    onnxruntime = pytest.importorskip("onnxruntime")
    from runtime.onnx.exporter import to_model

    @rt.function
    def root_and_slope(a):
        with rt.GradientTape() as tape:
            tape.watch(a)
            y = a
            while rt.abs(y * y - a) > 1e-6:
                y = (y + a / y) / 2.0
        return y, tape.gradient(y, a)

    a = rt.constant(np.float32(2.0))
    want = root_and_slope(a)
    session = onnxruntime.InferenceSession(
        to_model(root_and_slope.get_concrete_function(a)).SerializeToString())
    got = session.run(None, {session.get_inputs()[0].name: np.array(2.0, np.float32)})
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


def test_custom_gradient_of_a_function_that_reads_a_variable():
    w = rt.Variable(np.float64(3.0))

    @rt.custom_gradient
    def scale(x):  # its own rule for w: 10x what the true gradient is, to tell them apart
        def grad(dy, variables=None):
            assert variables == [w]
            return dy * w, [rt.reduce_sum(dy * x) * 10.0]
        return x * w, grad

    def step(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(scale(x) * x)
        return tape.gradient(y, [x, w])

    x = np.array([1.0, 2.0])
    for run in (step, rt.function(step)):  # eagerly and as a graph
        dx, dw = run(rt.constant(x))
        np.testing.assert_allclose(dx.numpy(), 3.0 * x + 3.0 * x)  # d(x * w * x)/dx
        np.testing.assert_allclose(dw.numpy(), 10.0 * np.sum(x * x))


def test_custom_gradient_that_reads_a_variable_needs_a_variables_argument():
    w = rt.Variable(2.0)

    @rt.custom_gradient
    def scale(x):
        return x * w, lambda dy: dy * w

    with pytest.raises(TypeError, match=r"keyword argument `variables`[\s\S]*test_gradients.py"):
        scale(rt.constant(1.0))
