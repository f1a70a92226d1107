"""Python scalars are weak (JAX's rule) in graphs too: a variable that starts as a Python scalar
stays weak through graph loops and branches and takes the dtype of the tensors it meets, so the
graph gives what Python gives on numpy values (three ways: Python, converted eager, graph)."""

import sys
import types
from pathlib import Path

import numpy as np
import pytest

import runtime as rt

sys.path.insert(0, str(Path(__file__).parent.parent / "autograph"))
from three_way import assert_agree, outcomes  # noqa: E402

F32 = np.array([1.5, 2.5, -0.5], np.float32)
I32 = np.array([1, 2, 3], np.int32)
I64 = np.array([3, -4, 5], np.int64)
TRUE, FALSE = np.bool_(True), np.bool_(False)


# ---- loops ----------------------------------------------------------------------------------


def sum_items(v):
    s = 0
    for e in v:
        s += e
    return s


@pytest.mark.parametrize("v", [F32, I32, I64], ids=["float32", "int32", "int64"])
def test_int_start_takes_the_dtype_of_the_items(v):
    assert_agree(sum_items, v)


def weighted_by_position(v):
    acc = 0.0
    for i, e in enumerate(v):
        acc += i * e
    return acc


@pytest.mark.parametrize("v", [F32, np.array([1.0, 2.0, 3.0])], ids=["float32", "float64"])
def test_enumerates_count_is_a_python_int_as_ranges_is(v):
    # (it was an int32 tensor: `i * e` of float64 items raised; found by a new-user trial)
    assert_agree(weighted_by_position, v)


def count_to(n):
    i = 0
    while i < n:
        i += 1
    return i


@pytest.mark.parametrize("n", [np.int64(5), np.int32(5), np.int64(0)])
def test_int_counter_compared_with_an_int64_tensor(n):
    assert_agree(count_to, n)


def doubling(n):
    s = 0
    i = 0
    while i < n:
        s = s * 2 + 1
        i += 1
    return s


def test_weak_variable_that_meets_no_strong_value_is_int64():
    # a Python int's stand-in has Python's width on this platform (numpy's default int), as a
    # Python float's is float64
    python, _, graph = assert_agree(doubling, np.int64(10))
    assert python == 1023 and type(python) is int
    assert graph.dtype is rt.int64 and graph.numpy() == 1023


def sum_nested(m):
    s = 0
    for row in m:
        for e in row:
            s += e
    return s


def triangle(n):
    total = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total + n


def inner_loop_starts_from_outer(m):
    total = 0
    for row in m:
        acc = total
        for e in row:
            acc += e
        total = acc
    return total


def test_nested_loops():
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert_agree(sum_nested, m)
    assert_agree(inner_loop_starts_from_outer, m)
    assert_agree(triangle, np.int64(5))


def count_until(v, limit):
    i = 0
    s = 0
    for e in v:
        if s > limit:
            break
        s += e
        i += 1
    return i, s


def test_weak_counters_with_a_break():
    assert_agree(count_until, I64, np.int64(2))


def sum_of_range(n):
    s = 0
    for i in rt.range(n):
        s += i
    return s


def test_loop_over_rt_range():
    assert_agree(sum_of_range, np.int32(5))


def running_sum(v):
    s = 0
    sums = []
    for e in v:
        s += e
        sums.append(s)
    return sums[-1]


def test_dry_run_of_a_loop_body_uses_a_weak_placeholder():
    # The empty list makes autograph dry-run the body with a placeholder for `s`.
    assert_agree(running_sum, F32)


def exact_float_start(v):
    s = 2.0
    for e in v:
        s = e
    return s


def test_float_start_replaced_by_ints_converts_exactly():
    assert_agree(exact_float_start, I32)


def negated(n):
    s = 0
    i = 0
    while i < n:
        s = -s + abs(-2)
        i += 1
    return s + n


def test_negation_and_abs_keep_a_variable_weak():
    assert_agree(negated, np.int64(3))


# ---- branches ---------------------------------------------------------------------------------


def branch_constant(c, x):
    if c:
        y = 1
    else:
        y = 2
    return y + x


@pytest.mark.parametrize("c", [TRUE, FALSE])
@pytest.mark.parametrize("x", [np.float32(1.5), np.int64(7)], ids=["float32", "int64"])
def test_python_scalars_from_both_branches_stay_weak(c, x):
    assert_agree(branch_constant, c, x)


def int_or_float(c, x):
    y = 1 if c else 2.5
    return y * x


@pytest.mark.parametrize("c", [TRUE, FALSE])
def test_int_and_float_branches_give_a_weak_float(c):
    assert_agree(int_or_float, c, np.float32(3.0))


def count_signs(v):
    s = 0
    for e in v:
        if e > 0:
            s = s + 1
        else:
            s = s - 1
    return s + v[0]


def weak_or_item(v):
    s = 0
    for e in v:
        if e > 0:
            y = s
        else:
            y = e
        s = y + 1
    return s


def test_weak_through_a_branch_inside_a_loop():
    assert_agree(count_signs, I64)
    assert_agree(weak_or_item, F32)


# ---- where the documented rule differs from numpy ---------------------------------------------


def float_plus_int(x):
    s = 0.0
    s += x
    return s


def test_python_float_next_to_an_int_tensor_is_float32_not_float64():
    # Documented rule (as in JAX): float32. numpy 2 (NEP 50) gives float64 here.
    python, eager, graph = outcomes(float_plus_int, np.int32(3))
    assert python.dtype == np.float64
    assert eager.dtype is rt.float32 and graph.dtype is rt.float32
    assert python == eager.numpy() == graph.numpy() == 3.0


def float_sum_of_ints(v):
    s = 0.0
    for e in v:
        s += e
    return s


def test_float_start_summing_int_items_is_an_error_eagerly_and_in_a_graph():
    # After one item `s` is a float32 tensor (numpy: float64, which then absorbs int32); two
    # strong dtypes do not mix, in eager mode as in the graph.
    python, eager, graph = outcomes(float_sum_of_ints, I32)
    assert python.dtype == np.float64 and python == 6.0
    for error in (eager, graph):
        assert isinstance(error, TypeError) and "rt.cast" in str(error)


def half_steps(n):
    total = 0
    i = 0
    while i < n:
        total = total + 0.5
        i += 1
    return total


def test_int_start_that_the_body_makes_float_is_float_even_without_iterations():
    assert_agree(half_steps, np.int32(3))
    # Python's result is the int 0 when the loop never runs; a graph value has one dtype, the
    # one the body gives (as in JAX): a Python float's, float64.
    python, _, graph = outcomes(half_steps, np.int32(0))
    assert python == 0 and graph.dtype is rt.float64 and graph.numpy() == 0.0


# ---- errors -----------------------------------------------------------------------------------


def inexact_float_start(v):
    s = 0.5
    for e in v:
        s = e
    return s


def int64_then_float32(n, v):
    x = n
    for e in v:
        x = e
    return x


def strong_int_then_python_float(n, v):
    x = n
    for _ in v:
        x = 1.5
    return x


def float_or_int(c, n):
    if c:
        y = 1.5
    else:
        y = n
    return y


@pytest.mark.parametrize(
    "fn, args, message",
    [
        (inexact_float_start, (I32,), "'s' starts as the Python float 0.5, but the loop body "
                                      "makes it int32"),
        (int64_then_float32, (np.int64(1), F32), "'x' is int64 before the loop but float32"),
        (strong_int_then_python_float, (np.int32(1), F32),
         "'x' is int32 before the loop but the Python float 1.5"),
        (float_or_int, (TRUE, np.int32(2)), "'y' is the Python float 1.5 in the true branch but "
                                            "int32"),
    ],
)
def test_dtypes_that_cannot_be_reconciled_name_the_variable(fn, args, message):
    with pytest.raises(TypeError, match=message) as info:
        rt.function(fn)(*[rt.constant(a) for a in args])
    assert "rt.cast" in str(info.value)


# ---- rt.cond / rt.while_loop and the weak flag -------------------------------------------------


def _traced(fn, *args):
    """The `weak` flag and dtype of `fn(*args)` while tracing (of its symbolic tensor)."""
    seen = []

    def record(*a):
        t = fn(*a)
        seen.append(types.SimpleNamespace(weak=t.weak, dtype=t.dtype))
        return 0

    rt.function(record, autograph=False)(*args)
    return seen[0]


def test_cond_of_python_scalars_is_weak_and_adapts():
    x = rt.constant(np.float32(2.0))
    y = _traced(lambda x: rt.cond(x > 0, lambda: 1, lambda: 2), x)
    assert y.weak and y.dtype is rt.int64  # Python's int: its value exactly, as far as int64
    total = _traced(lambda x: rt.cond(x > 0, lambda: 1, lambda: 2) + x, x)
    assert not total.weak and total.dtype is rt.float32
    mixed = _traced(lambda x: rt.cond(x > 0, lambda: 1, lambda: 2.5), x)
    assert mixed.weak and mixed.dtype is rt.float64  # Python's float: its value exactly
    strong = _traced(lambda x: rt.cond(x > 0, lambda: 1, lambda: x), x)
    assert not strong.weak and strong.dtype is rt.float32


def test_while_loop_python_start_takes_the_body_dtype():
    x = rt.constant(np.int64(4))
    loop = _traced(lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 1, [0])[0], x)
    assert loop.weak and loop.dtype is rt.int64
    loop = _traced(lambda n: rt.while_loop(lambda i: i < n, lambda i: i + n, [0])[0], x)
    assert not loop.weak and loop.dtype is rt.int64
    f = rt.function(lambda n: rt.while_loop(lambda i: i < n, lambda i: i + n, [0]),
                    autograph=False)
    assert f(x)[0].numpy() == 4 and f(x)[0].dtype is rt.int64


def test_weak_tensor_behaves_like_a_python_scalar_in_ops():
    x = rt.constant(np.int64(3))

    def weak_one(n):
        return rt.cond(n > 0, lambda: 1, lambda: 2)

    assert _traced(lambda n: weak_one(n) + n, x).dtype is rt.int64
    assert _traced(lambda n: weak_one(n) + 0.5, x).weak
    assert _traced(lambda n: weak_one(n) * 2, x).weak
    # a comparison of two Python numbers is a Python bool: its repr is `True`, and `b * 1.5`
    # a Python float (it was a strong bool: `np.True_`, and `np.float64(1.5)`)
    compared = _traced(lambda n: weak_one(n) < 2, x)
    assert compared.weak and compared.dtype is rt.bool
    assert not _traced(lambda n: n < 2, x).weak  # (a tensor's comparison: numpy's bool)
    assert _traced(lambda n: (weak_one(n) < 2) * 1.5, x).weak
    floats = _traced(lambda n: (weak_one(n) + 0.5) + n, x)
    assert floats.dtype is rt.float32 and not floats.weak  # a float next to ints: float32
    stacked = _traced(lambda n: rt.stack([weak_one(n), n]), x)
    assert stacked.dtype is rt.int64


def test_strong_tensors_of_different_dtypes_still_do_not_mix():
    f = rt.function(lambda a, b: a + b, autograph=False)
    with pytest.raises(TypeError, match=r"cast the second to int64 .*rt.cast\(v, rt.int64\)"):
        f(rt.constant(np.int64(1)), rt.constant(np.int32(1)))


# ---- the flag is trace-time only: saved functions and ONNX ------------------------------------


def test_saved_and_exported_graphs_need_no_weak_flag(tmp_path):
    f = rt.function(sum_items)
    v = rt.constant(F32)
    expected = f(v)
    rt.saved.save(f, tmp_path)
    loaded = rt.saved.load(tmp_path)(v)
    assert loaded.dtype is rt.float32 and loaded.numpy() == expected.numpy()
    ort = pytest.importorskip("onnxruntime")
    model = rt.onnx.export(f.get_concrete_function(v))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {session.get_inputs()[0].name: F32})
    assert out.dtype == np.float32 and out == expected.numpy()
