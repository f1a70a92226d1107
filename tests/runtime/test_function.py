"""rt.function: the signature cache, retracing, input signatures, methods, outputs, errors."""

import collections
import inspect
import logging

import numpy as np
import pytest

import runtime as rt


def test_cached_calls_do_not_retrace():
    f = rt.function(lambda x, y: x * y)
    for i in range(5):
        assert f(rt.constant(float(i)), rt.constant(2.0)).numpy() == 2.0 * i
    assert f.experimental_get_tracing_count() == 1


def test_dtype_and_shape_are_part_of_the_key():
    f = rt.function(lambda x: x + 1)
    f(rt.constant(1))
    f(rt.constant(1.0))
    f(rt.constant([1.0]))
    f(rt.constant([2.0]))
    assert f.experimental_get_tracing_count() == 3


def _divide(x, s):
    return x / s


def test_python_floats_zero_and_minus_zero_and_nan_are_different_arguments():
    # -0.0 == 0.0 in Python, but x / -0.0 is -inf: a graph traced for one must not run for the
    # other (on the fast path, the general path and nested in a tuple).
    f = rt.function(_divide)
    g = rt.function(lambda x, s: _divide(x, s[0]))
    x = rt.constant(1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        for s in (0.0, -0.0, 0.0, float("nan"), -0.0, 2.0):
            want = np.float32(1.0) / np.float32(s)
            for got in (f(x, s), f(x, s=s), g(x, (s,))):
                np.testing.assert_array_equal(got.numpy(), want)
                assert np.signbit(got.numpy()) == np.signbit(want)
    assert f.experimental_get_tracing_count() == 4  # 0.0, -0.0, nan, 2.0
    for _ in range(3):  # a new nan object each time: still the same signature
        f(x, s=float("nan"))
        g(x, (float("nan"),))
    assert f.experimental_get_tracing_count() == 4
    assert g.experimental_get_tracing_count() == 4


def test_a_call_of_one_numpy_scalar_takes_its_own_dict_with_the_general_paths_results():
    def f(x):
        return x * 2 if x > 0 else x - 1

    for options in ({}, {"numpy_results": True}):
        g = rt.function(f, **options)
        for x in (np.float32(1.5), np.float32(-1.5), np.int32(3), np.float32(2.5), np.int32(-3)):
            first, again = g(x), g(x)  # (the general path, then the fast one)
            for got in (first, again):
                value = got if options else got.numpy()
                assert type(value) is type(f(x)) and value == f(x)
        assert g.experimental_get_tracing_count() == 2  # one trace per dtype
        assert set(g._fast_scalar) == (set() if options else {np.float32, np.int32})


def test_a_call_of_numpy_scalars_alone_is_looked_up_by_their_types():
    def f(x, y):
        return x * y if x > y else y - x

    g = rt.function(f)
    calls = [(np.float64(1.5), np.float64(0.5)), (np.float64(-1.5), np.float64(2.0)),
             (np.float32(3.0), np.float32(1.0)), (np.int64(2), np.int64(7)),
             (np.float64(1.5), 0.5), (rt.constant(np.float64(2.0)), np.float64(1.0))]
    for args in calls:
        first, again = g(*args), g(*args)  # (the general path, then a fast one)
        plain = f(*(a.numpy() if isinstance(a, rt.Tensor) else a for a in args))
        for got in (first, again):
            assert got.numpy() == plain and got.numpy().dtype == np.asarray(plain).dtype
    assert set(g._fast_scalar) == {(np.float64, np.float64), (np.float32, np.float32),
                                   (np.int64, np.int64)}
    with rt.GradientTape():  # (a tape: the general path, recorded)
        x = np.float64(3.0)
        assert g(x, np.float64(2.0)).numpy() == 6.0

    def h(*xs):
        return xs[0] * xs[-1] - xs[1]

    k = rt.function(h)
    for n in (3, 4):  # (three arguments' key is written out, more are mapped)
        args = tuple(np.float64(v) for v in (1.5, 2.0, 0.5, 4.0)[:n])
        assert k(*args).numpy() == k(*args).numpy() == h(*args)
        assert tuple(map(type, args)) in k._fast_scalar
    args = (np.float32(1.5), np.float32(2.0), np.float32(0.5))  # (other types: another key)
    assert k(*args).numpy() == k(*args).numpy() == h(*args)
    assert len(k._fast_scalar) == 3


def test_keywords_and_defaults_bind_to_one_signature():
    @rt.function
    def f(x, scale=2.0, *, shift=0.0):
        return x * scale + shift

    x = rt.constant(3.0)
    assert f(x).numpy() == 6.0
    assert f(x, scale=2.0).numpy() == 6.0
    assert f.experimental_get_tracing_count() == 1
    assert f(x, shift=1.0).numpy() == 7.0
    assert f.experimental_get_tracing_count() == 2


def test_tensor_defaults_on_every_call_path():
    steps = rt.constant(4)

    @rt.function
    def f(x, n=steps):
        return x * rt.cast(n, rt.float32)

    x = rt.constant([1.0, 2.0])
    for _ in range(3):  # the first call traces; the later ones take the cached path
        np.testing.assert_array_equal(f(x).numpy(), [4.0, 8.0])
    np.testing.assert_array_equal(f(x, rt.constant(2)).numpy(), [2.0, 4.0])
    assert f.experimental_get_tracing_count() == 1


def test_nested_structures_of_tensors_and_python_values():
    Point = collections.namedtuple("Point", "x y")

    @rt.function
    def f(p, d, items):
        return p.x + p.y + d["a"] + items[0] * items[1]

    out = f(
        Point(rt.constant(1.0), rt.constant(2.0)), {"a": rt.constant(3.0)}, [rt.constant(4.0), 5.0]
    )
    assert out.numpy() == 1 + 2 + 3 + 20
    assert f.experimental_get_tracing_count() == 1
    f(Point(rt.constant(1.0), rt.constant(2.0)), {"a": rt.constant(3.0)}, [rt.constant(4.0), 6.0])
    assert f.experimental_get_tracing_count() == 2


def test_structured_outputs_with_python_values():
    @rt.function
    def f(x):
        return {"double": x * 2, "label": "ok", "pair": (x, None)}

    out = f(rt.constant(2))
    assert out["double"].numpy() == 4
    assert out["label"] == "ok"
    assert out["pair"][0].numpy() == 2 and out["pair"][1] is None


def test_numpy_arrays_are_keyed_like_tensors():
    f = rt.function(lambda x: x * 2)
    f(np.ones(3, np.float32))
    f(np.zeros(3, np.float32))
    assert f.experimental_get_tracing_count() == 1


def test_unhashable_python_argument_is_a_clear_error():
    f = rt.function(lambda x, opts: x)
    with pytest.raises(TypeError, match="opts.*unhashable"):
        f(rt.constant(1), {1, 2})


def test_input_signature_fixes_the_graph():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def f(x):
        return rt.reduce_sum(x)

    assert f(rt.constant([1.0, 2.0])).numpy() == 3.0
    assert f(rt.constant([1.0, 2.0, 3.0])).numpy() == 6.0
    assert f([1.0, 2.0]).numpy() == 3.0
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError, match="input_signature"):
        f(rt.constant([1, 2]))
    with pytest.raises(TypeError, match="input_signature"):
        f(rt.constant([[1.0]]))


def test_reduce_retracing_relaxes_shapes():
    f = rt.function(lambda x: x * 2, reduce_retracing=True)
    f(rt.constant([1.0]))
    f(rt.constant([1.0, 2.0]))
    out = f(rt.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(out.numpy(), [2.0, 4.0, 6.0])
    assert f.experimental_get_tracing_count() == 2
    shapes = [c.graph.inputs[0].shape for c in f.concrete_functions()]
    assert (None,) in [tuple(s) for s in shapes]


def test_a_third_shape_traces_one_graph_with_unknown_dims_by_default(caplog):
    f = rt.function(lambda x: x * 2)
    with caplog.at_level(logging.INFO, logger="runtime.function"):
        for n in (1, 2):
            f(rt.constant(np.ones((n, 3), np.float32)))
        assert f.experimental_get_tracing_count() == 2  # two shapes: traced exactly
        assert "unknown dims" not in caplog.text
        for n in (3, 4, 7, 1):
            out = f(rt.constant(np.ones((n, 3), np.float32)))
            np.testing.assert_array_equal(out.numpy(), np.full((n, 3), 2.0))
    assert f.experimental_get_tracing_count() == 3  # the third shape made [None, 3]
    assert "unknown dims ('x' as float32[?, 3])" in caplog.text
    # Exact shapes when asked; a dtype change is not a shape change.
    exact = rt.function(lambda x: x * 2, reduce_retracing=False)
    for n in (1, 2, 3):
        exact(rt.constant(np.ones(n, np.float32)))
    assert exact.experimental_get_tracing_count() == 3
    g = rt.function(lambda x: x * 2)
    for value in ([1.0], [1], np.float64([1.0, 2.0])):
        g(rt.constant(value))
    assert g.experimental_get_tracing_count() == 3


def test_get_concrete_function_with_specs():
    f = rt.function(lambda x: x + 1)
    concrete = f.get_concrete_function(rt.TensorSpec([None, 2], rt.int32))
    assert concrete(rt.constant([[1, 2]])).numpy().tolist() == [[2, 3]]
    assert concrete(rt.constant([[1, 2], [3, 4]])).numpy().tolist() == [[2, 3], [4, 5]]
    with pytest.raises(TypeError, match="int32"):
        concrete(rt.constant([[1.0, 2.0]]))
    assert f(rt.constant([[5, 6]])).numpy().tolist() == [[6, 7]]


def test_structured_input_signature_and_outputs():
    f = rt.function(lambda x, n: x * n)
    concrete = f.get_concrete_function(rt.constant([1.0]), 3)
    assert concrete.structured_input_signature[0] == rt.TensorSpec([1], rt.float32)
    assert concrete.structured_input_signature[1] == 3
    assert concrete.structured_outputs.dtype is rt.float32


def test_methods_have_one_cache_per_instance():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @rt.function
        def __call__(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    assert a(rt.constant(1.0)).numpy() == 2.0
    assert b(rt.constant(1.0)).numpy() == 3.0
    assert a(rt.constant(5.0)).numpy() == 10.0
    assert Scaler.__call__.experimental_get_tracing_count() == 0


def test_python_function_is_exposed():
    def f(x):
        return x

    assert rt.function(f).python_function is f


def test_graph_run_error_names_the_op_and_user_line():
    @rt.function
    def f(x):
        return rt.gather(x, [5])

    line = inspect.getsourcelines(f.python_function)[1] + 2
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        f(rt.constant([1.0, 2.0]))
    message = str(info.value)
    assert "GatherV2" in message
    assert f'{__file__}", line {line}' in message
    assert "rt.gather(x, [5])" in message


def test_symbolic_tensor_as_bool_names_the_line():
    def f(x):
        if x > 0:
            return x
        return -x

    g = rt.function(f, autograph=False)
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        g(rt.constant(1))
    line = inspect.getsourcelines(f)[1] + 1
    assert f"line {line}" in str(info.value)
    assert "rt.cond" in str(info.value)


def test_eager_tensors_captured_from_outside_become_constants():
    w = rt.constant([1.0, 2.0])
    f = rt.function(lambda x: x * w)
    np.testing.assert_array_equal(f(rt.constant(2.0)).numpy(), [2.0, 4.0])
    assert "Const" in [op.type for op in f.get_concrete_function(rt.constant(2.0)).graph.operations]


def test_optimize_false_keeps_the_traced_graph():
    f = rt.function(lambda x: x + 1, optimize=False)
    concrete = f.get_concrete_function(rt.constant(1))
    assert concrete.graph is concrete.traced_graph


def test_random_numbers_differ_between_calls():
    f = rt.function(lambda: rt.random.uniform([4]))
    a, b = f().numpy(), f().numpy()
    assert not np.array_equal(a, b)


def test_dict_arguments_in_any_key_order():
    f = rt.function(lambda d: d["b"] - d["a"])
    assert f({"b": rt.constant(10.0), "a": rt.constant(1.0)}).numpy() == 9.0
    assert f({"a": rt.constant(1.0), "b": rt.constant(10.0)}).numpy() == 9.0


def test_input_signature_traces_with_unknown_dims():
    f = rt.function(
        lambda x: rt.unstack(x, num=2)[0] * 0 + x, input_signature=[rt.TensorSpec([None])]
    )
    concrete = f.get_concrete_function()
    assert tuple(concrete.graph.inputs[0].shape) == (None,)
    np.testing.assert_array_equal(f([1.0, 2.0]).numpy(), [1.0, 2.0])
    g = rt.function(lambda x: x * 2, input_signature=[rt.TensorSpec([None])])
    g([1.0])
    np.testing.assert_array_equal(g([1.0, 2.0, 3.0]).numpy(), [2.0, 4.0, 6.0])


def test_each_retrace_says_why_against_the_closest_earlier_signature(caplog):
    f = rt.function(lambda x, n: x * n)
    with caplog.at_level(logging.INFO, logger="runtime.function"):
        f(rt.constant(1.0), 5)
        f(rt.constant([1.0, 2.0]), 5)
        f(rt.constant(1.0), 6)  # closest: the first call (only n differs)
    assert "argument 'x' changed shape from float32[] to float32[2]" in caplog.text
    assert ("argument 'n' was the Python int 5, now the Python int 6: Python values are part "
            "of the signature; pass a tensor") in caplog.text


def test_a_retrace_past_max_traces_can_be_an_error():
    f = rt.function(lambda x, n: x * n, max_traces=2, on_retrace="error")
    f(rt.constant(1.0), 1)
    f(rt.constant(1.0), 2)
    with pytest.raises(rt.errors.RetraceError, match="traces graph 3 .*max_traces=2"):
        f(rt.constant(1.0), 3)
    assert f(rt.constant(2.0), 2).numpy() == 4.0  # cached signatures still run
    with pytest.raises(ValueError, match="on_retrace"):
        rt.function(lambda x: x, on_retrace="ignore")


def test_numpy_numbers_are_tensor_inputs_keyed_by_dtype():
    f = rt.function(lambda x: x * 2)
    assert f(np.float32(3)).numpy() == 6.0 and f(np.float32(4)).numpy() == 8.0
    assert isinstance(f(np.float32(5)), rt.Tensor)
    assert f(np.array(1.0, np.float32)).numpy() == 2.0  # the same signature as a 0-d array
    assert f.experimental_get_tracing_count() == 1
    assert f(np.int64(3)).dtype is rt.int64 and f.experimental_get_tracing_count() == 2


def _halve_if_big(x):
    if x > 10:
        x = x / 2
    return x


def test_notebook_view_lists_signatures_graphs_and_converted_code():
    f = rt.function(_halve_if_big)
    assert "no traced signatures" in f._repr_html_()
    f(rt.constant(20.0))
    page = f._repr_html_()
    assert "1 traced signature" in page and "float32 Tensor" in page
    assert "<details><summary>converted code</summary>" in page and "ag__.if_stmt" in page


def test_the_garbage_collector_is_off_while_tracing_and_restored_after():
    import gc

    seen = []

    @rt.function
    def f(x):
        seen.append(gc.isenabled())
        return x + 1.0

    assert gc.isenabled()
    f(rt.constant(1.0))
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        f(rt.constant([1.0]))  # a new signature: traces again
        assert seen == [False, False] and not gc.isenabled()  # left as the caller had it
    finally:
        gc.enable()


SCALE = 2.0


def test_public_accessors_tell_options_signatures_traces_and_guarded_reads():
    def scaled(x, n=1):
        return x * SCALE * n

    spec = rt.TensorSpec([None], rt.float32)
    f = rt.function(scaled, max_traces=3, jit_compile=None)
    assert f.input_signature is None and f.options.max_traces == 3 and f.options.autograph
    assert f.python_signature == inspect.signature(scaled)
    assert f.guarded_reads is None and f.concrete_functions() == []  # (looked for at a call)
    f(rt.constant([1.0]))
    f(rt.constant([1.0, 2.0]), 2)
    first, second = f.concrete_functions()
    assert first.arg_names == ["x", "n"] and f.current_traces() == [first, second]
    assert f.guarded_reads == ["the global 'SCALE'"]
    assert rt.function(scaled, capture_guards=False).guarded_reads == []
    g = rt.function(scaled, input_signature=[spec])
    assert g.input_signature == (spec,)
    assert g.get_concrete_function().arg_names == ["x"]


def test_executors_are_registered_by_name_and_optional_ones_load_when_chosen():
    import subprocess
    import sys

    from runtime.executor.registry import EXECUTORS
    from runtime.tracing.function import JIT_COMPILERS

    assert JIT_COMPILERS == tuple(EXECUTORS) == (None, "auto", "numba", "xla")
    code = ("import sys, runtime as rt; f = rt.function(lambda x: x + 1); "
            "f(rt.constant(1.0)); print(sorted({'numba', 'jax'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def _general_calls(f):
    """How many calls of `f` took the general path (counted by wrapping it)."""
    counter = collections.Counter()
    general = f._call_general

    def counted(*args, **kwargs):
        counter["general"] += 1
        return general(*args, **kwargs)

    f._call_general = counted
    return counter


@pytest.mark.parametrize("numpy_results", [False, True])
def test_numpy_arguments_take_the_fast_path_with_the_general_paths_results(numpy_results):
    # A call with numpy arrays and scalars (what plain code passes) is cached like one with
    # tensors: the second call skips binding and keying, and gives what the first gave.
    f = rt.function(lambda x, s, n: x * s + n, numpy_results=numpy_results)
    counter = _general_calls(f)
    x, s = np.arange(4, dtype=np.float32), np.float32(2.5)
    results = [f(x, s, 3) for _ in range(3)]
    assert counter["general"] == 1 and f.experimental_get_tracing_count() == 1
    for got in results:
        assert type(got) is (np.ndarray if numpy_results else rt.EagerTensor)
        np.testing.assert_array_equal(np.asarray(got), x * s + 3)
    mixed = f(rt.constant(x), s, 3)  # a tensor among them: tensors out, as the general path
    assert type(mixed) is rt.EagerTensor and f.experimental_get_tracing_count() == 1
    x[0] = 10.0  # the array is read at each call, as plain code reads it
    assert np.asarray(f(x, s, 3))[0] == 28.0
    # numpy scalars of every numeric type, a 0-d array and an array view
    for value in (np.int8(-3), np.uint8(7), np.float16(1.5), np.complex64(1j), np.bool_(True),
                  np.array(2.0), np.arange(6.0)[::2]):
        g = rt.function(lambda v: v * 2, numpy_results=numpy_results)
        for _ in range(2):
            got = g(value)
            np.testing.assert_array_equal(np.asarray(got), value * 2)
            assert np.asarray(got).dtype == (value * 2).dtype


def _counts(xs):
    n, total, flag = 0, 0.0, False
    for x in xs:
        if x > 0:
            n += 1
            total += 0.5
            flag = True
    return n, total, flag, len(xs), np.shape(xs)[0], xs.size, xs.sum()


def test_numpy_results_give_python_numbers_where_python_does():
    """A counter, a Python float and a bool a graph loop carries, and len()/np.shape/.size of a
    dim a relaxed graph does not know, stand for Python numbers: with numpy_results they come
    back as Python numbers (json.dumps takes them), the other results as numpy values."""
    import json

    f = rt.function(_counts, numpy_results=True)
    for n in (3, 4, 5, 6, 7):  # (from the third length: one relaxed graph)
        xs = np.arange(n, dtype=np.float64) - 2.0
        got, expected = f(xs), _counts(xs)
        assert got == expected and [type(v) for v in got] == [type(v) for v in expected]
        json.dumps(got[:-1])
    assert f.experimental_get_tracing_count() == 3
    one = rt.function(lambda xs: len(xs) + 0, numpy_results=True)
    assert [type(one(np.zeros(k))) for k in (1, 2, 3)] == [int] * 3


def test_numpy_arguments_the_conversion_changes_stay_on_the_general_path():
    # An array whose dtype tensors lack is converted (or refused) on each call: never passed as
    # it is by the fast path.
    f = rt.function(lambda x: x + 1)
    with pytest.raises(TypeError):
        f(np.array([1.0], dtype=np.longdouble))
    with pytest.raises(TypeError):
        f(np.array([1.0], dtype=np.longdouble))
    strings = np.array(["a", "b"])
    g = rt.function(lambda x: x)
    counter = _general_calls(g)
    for _ in range(2):
        assert g(strings).numpy().tolist() == [b"a", b"b"]
    assert counter["general"] == 2


def test_numpy_arguments_under_a_tape_and_while_tracing():
    f = rt.function(lambda x, w: x * w)
    x, w = np.float32(3.0), rt.Variable(2.0)
    f(x, w.read_value())
    with rt.GradientTape() as tape:
        y = f(x, w.read_value())
    assert tape.gradient(y, w).numpy() == 3.0

    @rt.function
    def outer(v):
        return f(np.float32(4.0), v) + 1.0

    assert outer(rt.constant(2.0)).numpy() == 9.0
    assert outer(rt.constant(5.0)).numpy() == 21.0


def test_a_complex_scalar_argument_is_a_constant_on_every_call_path():
    # A numpy complex scalar is keyed by its value (a constant of the graph, as the general path
    # takes it), never passed by the fast path in place of another argument's tensor.
    def rotate(z, phase=np.array(1j)):  # noqa: B008 - the default is the point
        return z * phase

    f = rt.function(rotate)
    for z in (np.complex128(1), np.complex128(2), np.complex128(3), np.complex128(2)):
        assert f(z).numpy() == rotate(z)
    assert f.experimental_get_tracing_count() == 3


def test_numpy_constructors_make_numpy_values_of_python_numbers():
    def made(xs):
        n = 0
        for _ in xs:
            n += 1
        return np.int64(len(xs)), np.float64(n), np.int64(n) // 0

    f = rt.function(made, numpy_results=True)
    for k in (3, 4, 5):
        with np.errstate(divide="ignore"):
            got, expected = f(np.ones(k)), made(np.ones(k))
        assert got == expected and [type(v) for v in got] == [type(v) for v in expected]
