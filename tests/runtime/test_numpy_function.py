"""rt.numpy_function (runtime/ops/python_call_ops.py): a Python function called on numpy values,
eagerly and as a graph op (compiled executor and reference interpreter), with its results
checked against Tout; an opaque op that passes keep in program order, that has no gradient
(unless rt.custom_gradient gives one) and that saving, ONNX export, numba and XLA refuse at
the user's line."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.executor import tiering
from tests.runtime.op_testing import check_error, check_op

DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_]


def _sorted_and_size(a):
    return np.sort(a, axis=None), np.int64(a.size)


# ---- values: numpy is the oracle ----------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(st.sampled_from(DTYPES).flatmap(
    lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))))
def test_values_dtypes_and_shapes_match_the_function_run_on_numpy(a):
    dtype = a.dtype
    flip = lambda x: rt.numpy_function(np.flip, [x], dtype, shape=[None] * a.ndim)  # noqa: E731
    check_op(flip, np.flip, a)
    two = lambda x: rt.numpy_function(  # noqa: E731
        _sorted_and_size, [x], [dtype, np.int64], shape=[[None], []])
    check_op(two, _sorted_and_size, a)


def test_unknown_dims_in_a_graph():
    f = rt.function(lambda x: rt.numpy_function(np.cumsum, [x], rt.int64, shape=[None]) * 2,
                    input_signature=[rt.TensorSpec([None], rt.int32)])
    for n in (0, 1, 5):
        x = np.arange(n, dtype=np.int32)
        got = f(rt.constant(x))
        assert got.dtype is rt.int64 and np.array_equal(got.numpy(), np.cumsum(x) * 2)
    assert f.get_concrete_function().graph.outputs[0].shape == (None,)


def test_python_values_in_inp_are_passed_as_they_are():
    seen = []

    def func(x, table, word):
        seen.append((type(x), table, word))
        return x * np.float32(table["k"])

    table = {"k": 3}
    x = rt.constant([1.0, 2.0])
    for run in (lambda x: rt.numpy_function(func, [x, table, "w"], rt.float32, shape=[2]),):
        assert np.array_equal(run(x).numpy(), [3.0, 6.0])
        assert np.array_equal(rt.function(run)(x).numpy(), [3.0, 6.0])
    assert seen == [(np.ndarray, table, "w")] * 2


def test_variables_in_inp_are_read_when_the_call_runs():
    v = rt.Variable([1.0, 2.0])

    @rt.function
    def f():
        v.assign([5.0, 6.0])
        return rt.numpy_function(lambda a: a + np.float32(1), [v], rt.float32, shape=[2])

    assert np.array_equal(rt.numpy_function(np.negative, [v], rt.float32).numpy(), [-1.0, -2.0])
    assert np.array_equal(f().numpy(), [6.0, 7.0])


def test_tout_forms_and_outputs():
    x = rt.constant([1, 2], rt.int32)
    one = rt.numpy_function(lambda a: a, [x], "int32")
    assert isinstance(one, rt.EagerTensor) and one.dtype is rt.int32
    listed = rt.numpy_function(lambda a: (a,), [x], (np.int32,))
    assert isinstance(listed, list) and len(listed) == 1 and listed[0].dtype is rt.int32
    effect = []
    assert rt.numpy_function(lambda a: effect.append(1), [x], []) == []
    text = rt.numpy_function(lambda a: np.array(["a", "bc"]), [x], rt.string)
    assert text.dtype is rt.string and list(text.numpy()) == [b"a", b"bc"]
    word = rt.numpy_function(lambda a: "hi", [x], rt.string)
    assert word.numpy() == b"hi"
    scalar = rt.numpy_function(lambda a: a.sum(), [x], rt.int64)
    assert isinstance(scalar.numpy(), np.int64) and int(scalar) == 3


def test_inputs_are_read_only_views():
    def write(a):
        a[0] = 9
        return a

    x = rt.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="read-only"):
        rt.numpy_function(write, [x], rt.float32)
    f = rt.function(lambda x: rt.numpy_function(write, [x], rt.float32, shape=[2]))
    with pytest.raises(ValueError, match="read-only"):
        f(x)
    assert np.array_equal(x.numpy(), [1.0, 2.0])


def test_bad_arguments_are_clear_errors():
    x = rt.constant(1.0)
    with pytest.raises(TypeError, match="takes a callable"):
        rt.numpy_function(3, [x], rt.float32)
    with pytest.raises(TypeError, match=r"list of arguments, got EagerTensor; write \[x\]"):
        rt.numpy_function(np.sin, x, rt.float32)
    with pytest.raises(TypeError, match="Tout: Cannot interpret"):
        rt.numpy_function(np.sin, [x], "nope")
    with pytest.raises(ValueError, match="a list of 2 shapes"):
        rt.numpy_function(np.sin, [x], [rt.float32, rt.float32], shape=[None])
    with pytest.raises(ValueError, match="a shape is a list of dims"):
        rt.numpy_function(np.sin, [x], rt.float32, shape=[-1])


def test_a_graph_needs_the_output_shapes():
    def f(x):
        return rt.numpy_function(np.sin, [x], rt.float32)  # the shapeless line

    with pytest.raises(rt.errors.GraphLimitError, match=r"shape=\[None\](.|\n)*shapeless line"):
        rt.function(f)(rt.constant([1.0]))


def test_the_name_names_the_op():
    f = rt.function(lambda x: rt.numpy_function(np.sin, [x], rt.float32, name="my call",
                                                 shape=[1]))
    graph = f.get_concrete_function(rt.constant([1.0])).graph
    assert [op.name for op in graph.operations if op.type == "NumpyFunction"] == ["my_call"]


# ---- Tout and shape checks --------------------------------------------------------------------

def as_float64(a):
    return a.astype(np.float64)


def test_a_wrong_dtype_is_an_error_naming_the_function_and_the_line():
    check_error(lambda x: rt.numpy_function(as_float64, [x], rt.float32, shape=[None]),
                np.array([1.0, 2.0], np.float32),
                match=r"numpy_function\(as_float64\) returned float64, Tout says float32")


def test_results_are_not_cast_a_python_float_is_float64():
    check_error(lambda x: rt.numpy_function(lambda a: 1.5, [x], rt.float32, shape=[]),
                np.float32(1.0), match=r"returned float64, Tout says float32(.|\n)*not cast")


def test_a_wrong_count_is_an_error():
    check_error(lambda x: rt.numpy_function(lambda a: (a, a), [x], [rt.float32], shape=[[]]),
                np.float32(1.0), match=r"returned 2 values, but Tout lists 1 dtype: return a tuple")
    check_error(lambda x: rt.numpy_function(lambda a: a, [x], [rt.float32] * 2, shape=[[], []]),
                np.float32(1.0), match=r"returned one float32, but Tout lists 2 dtypes")


def test_a_shape_that_does_not_fit_shape_is_an_error():
    check_error(lambda x: rt.numpy_function(np.outer, [x, x], rt.float32, shape=[None]),
                np.array([1.0, 2.0], np.float32),
                match=r"returned the shape \[2, 2\], but shape= says \[None\]")


def test_a_wrong_dtype_of_a_second_output_is_named():
    check_error(lambda x: rt.numpy_function(lambda a: (a, a), [x], [rt.float32, rt.int32],
                                            shape=[[], []]),
                np.float32(1.0), match=r"returned float32 as output 1, Tout says int32")


# ---- errors of the function itself ----------------------------------------------------------

class Refused(Exception):
    def __init__(self, code):
        super().__init__(f"refused {code}")
        self.code = code


def refuse(a):
    raise Refused(int(a))


def test_errors_of_the_function_keep_their_type_and_name_the_line():
    @rt.function
    def f(x):
        y = x + 1
        return rt.numpy_function(refuse, [y], rt.int32, shape=[])  # the refusing line

    for run in (f, f.python_function):
        with pytest.raises(Refused) as info:
            run(rt.constant(2))
        assert info.value.code == 3
        notes = "\n".join(info.value.__notes__)
        assert "raised by refuse, which rt.numpy_function called" in notes
        assert "the refusing line" in notes
        assert f'{__file__}", line' in notes


def test_builtin_errors_of_the_function_keep_their_type():
    """Not wrapped in rt's InvalidArgumentError, as errors of rt's own kernels are."""
    for error, func in ((ZeroDivisionError, lambda a: 1 // int(a)),
                        (ValueError, lambda a: int(f"not a number {a}")),
                        (KeyError, lambda a: {}[int(a)])):
        f = rt.function(lambda x, func=func: rt.numpy_function(func, [x], rt.int64, shape=[]))
        with pytest.raises(error) as info:
            f(rt.constant(0))
        assert type(info.value) is error
        assert "which rt.numpy_function called" in "\n".join(info.value.__notes__)


# ---- autograph: calls inside a tensor `if` and a `while` loop --------------------------------

def halve_if_even(a):
    return a // 2 if a % 2 == 0 else 3 * a + 1


@rt.function
def collatz_steps(n):
    steps = rt.constant(0)
    while n != 1:
        n = rt.numpy_function(halve_if_even, [n], rt.int32, shape=[])
        steps += 1
    return steps


def test_calls_in_a_converted_while_loop():
    for n in (1, 6, 27):
        assert int(collatz_steps(rt.constant(n))) == int(collatz_steps.python_function(
            rt.constant(n)))
    assert int(collatz_steps(rt.constant(27))) == 111


@rt.function
def signed_log(x):
    if rt.reduce_sum(x) > 0:
        y = rt.numpy_function(np.log1p, [x], rt.float32, shape=[None])
    else:
        y = -rt.numpy_function(lambda a: np.log1p(-a), [x], rt.float32, shape=[None])
    return y


def test_calls_in_a_converted_tensor_if():
    for values in ([1.0, 2.0], [-1.0, -3.0]):
        x = rt.constant(values)
        assert np.array_equal(signed_log(x).numpy(), signed_log.python_function(x).numpy())
    assert signed_log.get_concrete_function(rt.constant([1.0])).graph.operations[-1].type == "If"


# ---- an effect: program order, never dropped, merged, folded or moved ---------------------

def shout(a):
    print(f"python sees {a}")
    return a


def test_calls_run_in_program_order_with_prints_and_assignments(capsys):
    v = rt.Variable(1.0)

    @rt.function
    def f(x):
        rt.print("before", x)
        v.assign(x * 10)
        y = rt.numpy_function(lambda a: np.float32(v.numpy()) + a, [x], rt.float32, shape=[])
        rt.numpy_function(shout, [y], rt.float32, shape=[])  # result unused: still runs
        v.assign(0.0)
        rt.print("after", y)
        return y

    assert float(f(rt.constant(2.0))) == 22.0
    assert capsys.readouterr().out == "before 2.0\npython sees 22.0\nafter 22.0\n"
    assert float(v.numpy()) == 0.0


def test_stateful_calls_are_not_merged_folded_or_moved():
    calls = []

    def count(a):
        calls.append(int(a))
        return a

    @rt.function
    def f(n):
        one = rt.constant(1)
        total = rt.numpy_function(count, [one], rt.int32, shape=[])  # constant inputs
        total += rt.numpy_function(count, [one], rt.int32, shape=[])  # the same call again
        i = rt.constant(0)
        while i < n:
            total += rt.numpy_function(count, [one], rt.int32, shape=[])  # loop-invariant
            i += 1
        return total

    f.get_concrete_function(rt.constant(3))
    assert calls == []  # tracing calls nothing: no constant folding
    assert int(f(rt.constant(3))) == 5 and calls == [1] * 5
    assert int(f(rt.constant(3))) == 5 and calls == [1] * 10


def test_stateless_calls_whose_results_are_unused_are_dropped():
    calls = []

    def count(a):
        calls.append(1)
        return a

    @rt.function
    def f(x):
        rt.numpy_function(count, [x], rt.float32, stateful=False, shape=[])  # dropped
        return rt.numpy_function(count, [x], rt.float32, stateful=False, shape=[]) + 1

    assert float(f(rt.constant(1.0))) == 2.0 and calls == [1]
    types = [op.type for op in f.get_concrete_function(rt.constant(1.0)).graph.operations]
    assert types.count("NumpyFunctionStateless") == 1


# ---- gradients -------------------------------------------------------------------------------

def test_a_tape_through_a_call_is_a_clear_error():
    def f(x):
        return rt.numpy_function(np.sin, [x], rt.float32, shape=[])  # the opaque line

    def gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)

    for run in (gradient, rt.function(gradient)):
        with pytest.raises(rt.errors.NoGradientError,
                           match=r"NumpyFunction(.|\n)*rt.numpy_function(.|\n)*rt.custom_gradient"
                                 r"(.|\n)*the opaque line"):
            run(rt.constant(0.5))


def factor(i, calls):
    calls.append(int(i))
    return np.float32(i + 1)


def test_gradients_flow_around_calls_in_a_loop_and_an_if_without_calling_again():
    calls = []

    @rt.function
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y, i = x, rt.constant(0)
            while i < 3:
                y = y * rt.numpy_function(factor, [i, calls], rt.float32, shape=[])
                i += 1
            if x > 0:
                y = y * rt.numpy_function(factor, [i, calls], rt.float32, shape=[])
        return y, tape.gradient(y, x)

    y, dy = f(rt.constant(2.0))
    assert (float(y), float(dy)) == (48.0, 24.0)
    assert calls == [0, 1, 2, 3]  # once each: the gradient reads what the calls returned


@rt.custom_gradient
def numpy_sin(x):
    y = rt.numpy_function(np.sin, [x], rt.float32, shape=[None])

    def grad(dy):
        return dy * rt.numpy_function(np.cos, [x], rt.float32, shape=[None])

    return y, grad


def test_custom_gradient_gives_the_gradient():
    def gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(numpy_sin(x) * 2.0)
        return tape.gradient(y, x)

    x = rt.constant([0.0, 0.5, 1.0])
    expected = 2 * np.cos(x.numpy())
    for run in (gradient, rt.function(gradient)):
        np.testing.assert_allclose(run(x).numpy(), expected, rtol=1e-6)


# ---- refusals: saving, ONNX, numba, XLA ---------------------------------------------------------

def test_saving_is_refused_at_the_line_and_nothing_is_written(tmp_path):
    f = rt.function(lambda x: rt.numpy_function(np.sin, [x], rt.float32, shape=[]))  # save line
    f(rt.constant(1.0))
    with pytest.raises(rt.saved.SaveError, match=r"numpy_function\(sin\) runs Python code, "
                                                 r"which is not plain data(.|\n)*save line"):
        rt.saved.save(f, tmp_path / "saved")
    assert not (tmp_path / "saved").exists()


def test_onnx_export_is_refused_at_the_line():
    pytest.importorskip("onnx")
    f = rt.function(lambda x: rt.numpy_function(np.sin, [x], rt.float32, shape=[]))  # onnx line
    f(rt.constant(1.0))
    with pytest.raises(rt.onnx.ExportError, match=r"NumpyFunction(.|\n)*an ONNX model holds no "
                                                  r"Python code(.|\n)*onnx line"):
        rt.onnx.export(f)


@pytest.mark.parametrize("jit_compile, backend", [("numba", "numba"), ("xla", "jax")])
def test_native_compilers_refuse_at_the_line(jit_compile, backend):
    pytest.importorskip(backend)

    def f(x):
        return rt.numpy_function(np.sin, [x], rt.float32, shape=[]) + 1.0  # the native line

    with pytest.raises(rt.errors.NoLoweringError,
                       match=rf"jit_compile='{jit_compile}' cannot compile the NumpyFunction op "
                             r"\(rt.numpy_function calls a Python function(.|\n)*native line"):
        rt.function(f, jit_compile=jit_compile)(rt.constant(1.0))


def test_jit_compile_auto_keeps_the_graph_on_the_default_executor():
    calls = []

    def count(a):
        calls.append(1)
        return a

    f = rt.function(lambda x: rt.numpy_function(count, [x], rt.float32, shape=[]) * 2.0,
                    jit_compile="auto")
    for _ in range(tiering.HOT_CALLS + 2):
        assert float(f(rt.constant(1.5))) == 3.0
    tiering.wait_for_compiles()
    assert float(f(rt.constant(1.5))) == 3.0
    assert len(calls) == tiering.HOT_CALLS + 3  # every call called it, none was timed twice


# ---- threads and pickling -----------------------------------------------------------------------

def scaled(x):
    return rt.numpy_function(lambda a: a * np.float32(3), [x], rt.float32, shape=[None])


scaled_function = rt.function(scaled)


def test_calls_from_several_threads_at_once():
    results, errors = {}, []

    def work(k):
        try:
            for i in range(20):
                value = np.full(3, k * 100 + i, np.float32)
                results[(k, i)] = scaled_function(rt.constant(value)).numpy()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for (k, i), got in results.items():
        assert np.array_equal(got, np.full(3, (k * 100 + i) * 3, np.float32))


def test_a_function_holding_a_call_pickles_by_reference_and_traces_again():
    x = rt.constant([1.0, 2.0])
    scaled_function(x)
    copy = pickle.loads(pickle.dumps(scaled_function))
    assert np.array_equal(copy(x).numpy(), [3.0, 6.0])
