"""The compiled executor: readable source, agreement with the reference interpreter."""

import re

import numpy as np
import pytest

import autograph
import runtime as rt
from runtime.executor.interpreter import run_graph


def test_generated_source_has_one_line_per_op():
    f = rt.function(lambda x, y: rt.matmul(x, y) + 1.0, autograph=False)
    concrete = f.get_concrete_function(rt.constant([[1.0]]), rt.constant([[2.0]]))
    source = concrete.graph.to_python()
    assert source.splitlines()[0] == "def run(x, y):"
    assert "(x @ y)" in source
    assert source.splitlines()[-1].strip().startswith("return")


def test_scalars_stay_numpy_scalars():
    f = rt.function(lambda x: rt.reduce_sum(x) * 2, autograph=False)
    out = f(rt.constant([1, 2, 3]))
    assert isinstance(out.numpy(), np.int32)


def test_compiled_and_interpreted_agree_on_a_loop_with_a_branch():
    def fn(n):
        def body(i, total):
            total = rt.cond(i % 3 == 0, lambda: total + i * i, lambda: total - 1)
            return i + 1, total

        return rt.while_loop(lambda i, t: i < n, body, (0, 0))[1]

    f = rt.function(fn, autograph=False)
    for n in (0, 1, 7, 20):
        concrete = f.get_concrete_function(rt.constant(n))
        compiled = f(rt.constant(n)).numpy()
        (interpreted,) = run_graph(concrete.graph, [np.int32(n)])
        assert compiled == interpreted
        expected = sum(i * i if i % 3 == 0 else -1 for i in range(n))
        assert compiled == expected


def test_generated_file_is_in_linecache_for_tracebacks():
    import linecache

    f = rt.function(lambda x: x * 3, autograph=False)
    concrete = f.get_concrete_function(rt.constant(1))
    lines = linecache.getlines(concrete.generated.filename)
    assert lines and lines[0].startswith("def run(")


def _counting_loop(start, step):
    def fn(limit):
        def body(i, total):
            return i + step, total + i * i

        return rt.while_loop(lambda i, total: i < limit, body, (rt.constant(start), 0))

    return rt.function(fn, autograph=False)


def test_counted_while_loop_compiles_to_a_for_loop_and_keeps_semantics():
    for start, step in [(0, 1), (3, 2), (-5, 3)]:
        f = _counting_loop(start, step)
        for limit in (-10, 0, 1, 2, 7, 20):
            i, total = f(rt.constant(limit))
            expected = list(range(start, limit, step))
            assert total.numpy() == sum(v * v for v in expected)
            final = start if limit <= start else start + -(-(limit - start) // step) * step
            assert i.numpy() == final and i.dtype is rt.int32
            concrete = f.get_concrete_function(rt.constant(limit))
            assert "for " in concrete.graph.to_python()
            interpreted = run_graph(concrete.graph, [np.int32(limit)])
            assert interpreted[0] == i.numpy() and interpreted[1] == total.numpy()


def test_loop_that_changes_its_limit_stays_a_while_loop():
    def fn(limit):
        return rt.while_loop(lambda i, lim: i < lim, lambda i, lim: (i + 1, lim - 1), (0, limit))

    f = rt.function(fn, autograph=False)
    i, lim = f(rt.constant(10))
    assert (i.numpy(), lim.numpy()) == (5, 5)
    assert "while True:" in f.get_concrete_function(rt.constant(10)).graph.to_python()


def test_dying_fresh_temporaries_are_reused_but_views_and_inputs_never():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.ones((2, 3), np.float32)
    f = rt.function(lambda x, y: (rt.square(x - y), rt.sqrt(rt.transpose(x)), rt.exp(x)),
                    autograph=False)
    xt, yt = rt.constant(x), rt.constant(y)
    fresh, view, arg = f(xt, yt)
    source = f.get_concrete_function(xt, yt).graph.to_python()
    assert ", out=sub_" in source  # square writes into the dead `x - y` buffer
    assert source.count("out=") == 1  # never into the transpose view nor the argument x
    np.testing.assert_array_equal(fresh.numpy(), np.square(x - y))
    np.testing.assert_array_equal(view.numpy(), np.sqrt(x.T))
    np.testing.assert_array_equal(arg.numpy(), np.exp(x))
    np.testing.assert_array_equal(xt.numpy(), x)  # the argument's buffer is untouched
    np.testing.assert_array_equal(yt.numpy(), y)


def test_a_power_of_arrays_writes_into_a_dying_buffer_and_of_scalars_rounds_as_numpy_scalars():
    """Pow's kernel is numpy scalars' `**` on two scalars, np.power on arrays: there it writes
    into a dying temporary as every ufunc does."""
    f = rt.function(lambda x, e: (x * 2.0) ** e, autograph=False)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    e = rt.constant(np.float32(1.5))
    out = f(rt.constant(x), e)
    assert ", out=mul_" in f.get_concrete_function(rt.constant(x), e).graph.to_python()
    np.testing.assert_array_equal(out.numpy(), np.power(x * np.float32(2.0), np.float32(1.5)))
    assert f(rt.constant(np.float32(1.5)), e).numpy() == (np.float32(3.0) ** np.float32(1.5))
    # of scalars it is written out; a 0-d array (a reshape's) still rounds as the scalars
    bases = np.float32(np.linspace(0.1, 9.0, 200))
    g = rt.function(lambda x, e: (x ** e, rt.reshape(rt.reshape(x, [1]), []) ** e),
                    autograph=False)
    assert "isinstance(x, generic_)" in g.get_concrete_function(bases[0], e).graph.to_python()
    for b in bases:
        want = b ** np.float32(1.5)
        assert [v.numpy() for v in g(b, e)] == [want, want]


def test_values_are_bound_by_identity_not_by_op_name():
    # Graph names are unique, but compiled code must not depend on it (a saved file could
    # be edited): two constants of one name are two values.
    f = rt.function(lambda x: x * 2.0 + 3.0, autograph=False, optimize=False)
    x = rt.constant(1.0)
    concrete = f.get_concrete_function(x)
    consts = [op for op in concrete.graph.operations if op.type == "Const"]
    assert len(consts) == 2
    consts[1].name = consts[0].name
    from runtime.executor import codegen

    run, _ = codegen.compile_graph(concrete.graph)
    assert run(np.float32(1.0))[0] == 5.0


def test_the_loop_counter_of_compiled_code_never_takes_a_users_name():
    def f(iterations_0):
        r = rt.while_loop(lambda i: i < 100, lambda i: (i + iterations_0,),
                          (rt.constant(0),), maximum_iterations=3)
        return r[0] + iterations_0

    assert rt.function(f, autograph=False)(rt.constant(5)).numpy() == 20


def _value_and_slope(body, maximum_iterations=None):
    """A while loop's result and its gradient with respect to the start `x` (a tape)."""

    def fn(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            out = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, body(y)),
                                (rt.constant(0), x), maximum_iterations=maximum_iterations)[1]
            loss = rt.reduce_sum(out * out)
        return loss, tape.gradient(loss, x)

    return rt.function(fn, autograph=False)


def test_a_loops_gradient_history_is_kept_on_python_lists_as_the_ops_would():
    from runtime.ops import control_flow_ops as cf

    cases = [
        (lambda y: y * 0.5 + rt.sin(y), np.float32(0.3), None),
        (lambda y: y * 0.5 + rt.sin(y), np.float32(0.3), 2),  # maximum_iterations
        (lambda y: rt.tanh(y) * 1.5 - y * y, np.array([0.1, -0.4, 0.7], np.float32), None),
    ]
    for body, x, limit in cases:
        f = _value_and_slope(body, limit)
        for n in (0, 1, 5):  # zero trips too
            args = rt.constant(x), rt.constant(n)
            concrete = f.get_concrete_function(*args)
            loops = [op for op in concrete.graph.walk() if op.type == "While"]
            assert any(cf.plain_history(op) is not None for op in loops)
            source = concrete.graph.to_python()
            assert "_items.append(" in source
            assert "k_listpushback" not in source
            compiled = [t.numpy() for t in f(*args)]
            interpreted = run_graph(concrete.graph, [x, np.int32(n)])
            for got, want in zip(compiled, interpreted):
                np.testing.assert_array_equal(got, want)
            # the reference: the same loop unrolled in Python, eagerly
            with rt.GradientTape() as tape:
                tape.watch(args[0])
                y = args[0]
                for _ in range(n if limit is None else min(n, limit)):
                    y = body(y)
                loss = rt.reduce_sum(y * y)
            np.testing.assert_allclose(compiled[1], tape.gradient(loss, args[0]).numpy(),
                                       rtol=1e-6)


def test_list_reads_of_an_older_version_or_out_of_range_take_the_kernel():
    from runtime.ops.list_ops import LIST_GET_ITEM, ListValue

    expr = LIST_GET_ITEM.expression(["lst", "i"], {})
    newest = ListValue([np.int32(1), np.int32(2), np.int32(3)], 3)
    older = ListValue(newest.buffer, 2)  # a newer version extended the shared buffer
    scope = dict(LIST_GET_ITEM.expression_globals)
    for lst, i, want in ((newest, 0, 1), (newest, -1, 3), (older, -1, 2), (older, 1, 2)):
        assert eval(expr, scope, {"lst": lst, "i": np.int32(i)}) == want  # noqa: S307
    for lst, i in ((newest, 3), (older, 2), (older, -3)):
        with pytest.raises(IndexError, match="list index out of range"):
            eval(expr, scope, {"lst": lst, "i": np.int32(i)})  # noqa: S307


def _constant_through_a_loop(x, n):
    y = rt.constant([1.0, 2.0, 3.0])
    for _ in rt.range(n):
        y = y + x
    return y


def _zeros_through_a_loop(x, n):
    y = rt.zeros_like(x)  # folded into a constant: its shape is known
    for _ in rt.range(n):
        y = y + x
    return y, [y]


def _gradient_of_a_zero_trip_loop(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in rt.range(n):
            y = y * 2.0
    return tape.gradient(y, x)


def _view_of_a_constant(x, n):
    c = rt.constant([5.0, 6.0, 7.0])
    return c[n:], x * 2.0  # (a slice at run time: a read-only view; a product: a new array)


def _einsum_of_a_constant(x, n):
    return np.einsum("ij->ji", rt.constant(np.arange(6.0).reshape(2, 3)))  # (numpy's: a view)


@pytest.mark.parametrize("numpy_results", [False, True])
@pytest.mark.parametrize("fn", [_constant_through_a_loop, _zeros_through_a_loop,
                                _gradient_of_a_zero_trip_loop, _view_of_a_constant,
                                _einsum_of_a_constant])
def test_a_result_that_is_a_constant_of_the_graph_is_a_new_array_on_every_call(fn,
                                                                               numpy_results):
    # As in plain Python, changing a result in place must not change the next call's result
    # (constant arrays are shared by every call of a compiled graph: they are read-only and
    # results that are constants, or views of them, are copied).
    f = rt.function(fn, numpy_results=numpy_results)
    x, n = rt.constant([1.0, 1.0, 1.0]), rt.constant(0)

    def arrays(results):
        return [np.asarray(t) for t in rt.nest.flatten(results)]

    for _ in range(3):  # (the fast path, then the entry)
        first = [a.copy() for a in arrays(f(x, n))]
        for a in arrays(f(x, n)):
            a[0] = 42.0
        for want, got in zip(first, arrays(f(x, n))):
            np.testing.assert_array_equal(got, want)


def test_indexing_is_a_plain_subscript_in_the_generated_code_with_the_kernels_results():
    def index(x, i):
        return (x[0, 1:3], x[i], x[..., 0], x[None, :, 1], x[1, 2], x[i, i], x[::-1, :i],
                x[-1], x[()], x[1:, ...])

    x, i = rt.constant(np.arange(12.0).reshape(3, 4)), rt.constant(1)
    f = rt.function(index, autograph=False)
    source = f.get_concrete_function(x, i).graph.to_python()
    assert "x[0, 1:3]" in source and "x[::-1, :i]" in source and "normalize(x[..., 0])" in source
    for got, want in zip(f(x, i), index(x.numpy(), 1)):
        assert type(got.numpy()) is type(want) and got.numpy().dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds") as e:
        f(x, rt.constant(7))
    assert "test_executor.py" in str(e.value)


def test_stacking_scalars_gives_what_np_stack_gives():
    f = rt.function(lambda a, b: (rt.stack([a, b, a]), rt.stack([a > b, b > a])),
                    autograph=False)
    for a, b in ((np.float32(1.5), np.float32(2.0)), (np.int64(3), np.int64(-1))):
        values, flags = f(rt.constant(a), rt.constant(b))
        assert values.numpy().dtype == a.dtype and flags.numpy().dtype == np.bool_
        np.testing.assert_array_equal(values.numpy(), np.stack([a, b, a]))
    assert "np_array_((a, b, a, ))" in f.get_concrete_function(
        rt.constant(np.float32(1)), rt.constant(np.float32(1))).graph.to_python()
    # every dtype (numbers as numpy builds their array; strings by the kernel), and 0-d arrays
    g = rt.function(lambda a, b: rt.stack([a, b]), autograph=False)
    for a, b in ((np.float16(1.5), np.float16(-0.0)), (np.complex64(1j), np.complex64(2)),
                 (np.uint8(255), np.uint8(0)), (np.bool_(True), np.bool_(False)),
                 (np.array(2.5), np.float64(3.0)), (b"ab\0", b"c")):
        got = g(a, b).numpy()
        want = np.stack([a, b]) if not isinstance(a, bytes) else np.array([a, b], dtype=object)
        assert got.dtype == want.dtype and got.shape == (2,)
        np.testing.assert_array_equal(got, want)
        assert list(np.signbit(got)) == list(np.signbit(want)) if got.dtype.kind == "f" else True
    # arrays of one known shape along a new first dim: np.array too; other axes: the kernel
    for axis, expressed in ((0, True), (-3, True), (1, False), (-1, False)):
        h = rt.function(lambda a, b, axis=axis: rt.stack([a, b * 2.0], axis=axis))
        a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
        np.testing.assert_array_equal(h(a, b).numpy(), np.stack([a, b * 2.0], axis=axis))
        source = h.get_concrete_function(a, b).graph.to_python()
        assert ("np_array_((a, mul_" in source) is expressed


def _views_kept_while_their_array_dies():
    """Programs where an array's last reader could write its result into the array (buffer
    donation) while a view of it, an identity of it or a loop's pass-through still lives."""
    def sliced(x):
        n = -x
        v = n[0:2]
        return rt.tanh(n), v * 1.0

    def reshaped(x):
        n = -x
        r = rt.reshape(n, [3, 1])
        return rt.exp(n), r + 0.0

    def looped(x):
        n = -x
        w = rt.while_loop(lambda k, v: k < 0, lambda k, v: (k + 1, v), [0, n])[1]
        return rt.tanh(n), w

    def branched(x):
        n = -x
        b = rt.cond(rt.reduce_sum(x) > 100.0, lambda: n * 2.0, lambda: n)
        return rt.tanh(n), b

    return sliced, reshaped, looped, branched


@pytest.mark.parametrize("fn", _views_kept_while_their_array_dies(), ids=lambda f: f.__name__)
def test_an_array_still_shared_by_a_live_value_is_never_overwritten(fn):
    x = np.array([0.5, -1.0, 2.0], np.float32)
    want = fn(rt.constant(x))  # eagerly: the oracle
    got = rt.function(fn, autograph=False)(x)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def _appends_scalars(x, n):
    out = []
    level = x[0]
    for s in x[:n]:
        level = 0.5 * s + 0.5 * level
        out.append(level)
    return rt.stack(out) if out else rt.zeros([0])


def _appends_arrays_it_then_overwrites(x, n):
    rows = []
    y = x
    for _ in rt.range(n):
        y = y * 2.0  # a fresh temporary each time: stored rows must be copies
        rows.append(y)
        y = y + 1.0
    return rows


def _appends_to_a_list_made_before(x, n):
    out = [x]
    for _ in rt.range(n):
        out.append(x + 1.0)
    for _ in rt.range(n):  # the first loop's list goes on growing
        out.append(x - 1.0)
    return out, len(out)


def _reads_its_list_in_the_loop(x, n):
    out = [x[0]]
    for i in rt.range(n):
        out.append(out[-1] * 0.5 + x[i])
    return out


def _appends_in_a_branch(x, n):
    out = []
    for i in rt.range(n):
        if x[i] > 0.0:
            out.append(x[i])
    return out


@pytest.mark.parametrize("fn, appended", [
    (_appends_scalars, True), (_appends_arrays_it_then_overwrites, True),
    (_appends_to_a_list_made_before, True), (_reads_its_list_in_the_loop, False),
    (_appends_in_a_branch, False)])
def test_a_list_a_loop_only_appends_to_is_a_python_list_with_the_kernels_values(fn, appended):
    # `lst.append(x)` once an iteration, the list read nowhere else in the loop: the generated
    # code appends to a Python list (no ListPushBack call); the values are the kernel's (the
    # reference interpreter's), and plain Python's.
    f = rt.function(fn)
    x = np.array([0.5, -1.0, 2.0, 3.0, -0.25], np.float32)
    for n in (0, 1, 4):
        args = rt.constant(x), rt.constant(n)
        concrete = f.get_concrete_function(*args)
        source = concrete.graph.to_python()
        assert ("_items.append(" in source) is appended
        assert ("k_listpushback" in source) is not appended
        compiled = rt.nest.flatten(f(*args))
        interpreted = run_graph(concrete.graph, [x, np.int32(n)])
        plain = rt.nest.flatten(fn(*args))  # eagerly: Python lists
        assert len(compiled) == len(plain)
        for got, want in zip(compiled, plain):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        flat_interpreted = [v for out in interpreted
                            for v in (out.items() if hasattr(out, "items") else [out])]
        for got, want in zip(compiled, flat_interpreted):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("reduction, numpy_fn, ufunc", [
    (rt.reduce_sum, np.sum, "add"), (rt.reduce_prod, np.prod, "multiply"),
    (rt.reduce_max, np.max, "maximum"), (rt.reduce_min, np.min, "minimum")])
def test_reductions_call_the_ufuncs_reduce_where_it_keeps_the_dtype(reduction, numpy_fn, ufunc):
    # The generated code calls np.<ufunc>.reduce itself (np.sum's wrapper costs 2 us) for the
    # dtypes it keeps; the others (np.sum widens int32) take the kernel: the same values and
    # dtypes as numpy and as eager ops, nan and -0.0 included.
    rng = np.random.default_rng(5)
    base = rng.normal(size=(3, 4)) * 4
    base[0, 0], base[1, 2] = -0.0, np.nan
    for dtype in (np.float16, np.float32, np.float64, np.complex128, np.int8, np.int32,
                  np.int64, np.uint8):
        if dtype is np.complex128 and ufunc in ("maximum", "minimum"):
            continue
        x = base.astype(dtype) if np.dtype(dtype).kind in "fc" else np.nan_to_num(base).astype(
            dtype)
        for axis in (None, 0, -1, (0, 1)):
            for keepdims in (False, True):
                f = rt.function(lambda v, r=reduction, a=axis, k=keepdims: r(v, axis=a, keepdims=k))
                with np.errstate(all="ignore"):
                    got = f(x).numpy()
                    eager = reduction(rt.constant(x), axis=axis, keepdims=keepdims).numpy()
                    want = numpy_fn(x, axis=axis, keepdims=keepdims).astype(dtype)
                for value in (got, eager):
                    assert np.asarray(value).dtype == want.dtype and np.shape(value) == want.shape
                    np.testing.assert_array_equal(value, want)
                    if want.dtype.kind == "f":
                        assert np.array_equal(np.signbit(value), np.signbit(want))
                source = f.get_concrete_function(x).graph.to_python()
                widened = ufunc in ("add", "multiply") and dtype in (np.int8, np.int32, np.uint8)
                assert (f"np_{ufunc}_reduce_(v" in source) is not widened


def test_any_all_and_where_written_out_give_the_kernels_values():
    flags = np.array([[True, False, False], [False, False, False]])
    for reduction, numpy_fn, ufunc in ((rt.reduce_any, np.any, "logical_or"),
                                       (rt.reduce_all, np.all, "logical_and")):
        for x in (flags, ~flags, np.zeros((0, 3), bool)):
            for axis in (None, 0, -1):
                f = rt.function(lambda v, r=reduction, a=axis: r(v, axis=a, keepdims=False))
                got, want = f(x).numpy(), numpy_fn(x, axis=axis)
                assert type(got) is type(want) and np.array_equal(got, want)
                assert f"np_{ufunc}_reduce_(v" in f.get_concrete_function(x).graph.to_python()
    g = rt.function(lambda c, x, y: rt.where(c, x, y))
    for c, x, y in ((flags, np.ones((2, 3)), np.float64(-0.0)), (np.True_, np.float32(1),
                                                                 np.float32(2))):
        got, want = g(c, x, y).numpy(), np.where(c, x, y)
        want = want[()] if want.ndim == 0 else want  # (a 0-d result is a scalar)
        assert type(got) is type(want) and np.array_equal(got, want)
        assert list(np.signbit(np.ravel(got))) == list(np.signbit(np.ravel(want)))
        assert ("np_where_(c, x, y)" in g.get_concrete_function(c, x, y).graph.to_python()) is (
            np.ndim(want) > 0)


# ---- `for x in xs`: the generated loop iterates over xs ---------------------------------------

def _sums_rows(x):
    total = x[0] * 0
    for row in x:
        total = total + row * row
    return total


def _enumerates(x):
    total = x[0] * 0
    for i, v in enumerate(x):
        total = total + v * i
    return total


def _uses_its_counter(x):
    total = x[0] * 0
    for i in range(len(x)):
        total = total + x[i] * (i % 2)
    return total


def _iterates_a_slice(x):
    out = []
    for v in x[1:]:
        out.append(v + 1)
    return np.array(out) if out else x[:0]


def _indexes_below_its_length(x):
    total = x[0] * 0
    for i in range(len(x)):
        total = total + x[i] - x[-1]
    return total


# how the generated loop reads the rows: "rows" (`for row in x`), "zip" (with a counter the
# body uses too), "index" (`x[i]`: enumerate's zip with a range, staged as a loop over both)
_LOOP_FORMS = {_sums_rows: "rows", _enumerates: "index", _uses_its_counter: "zip",
               _iterates_a_slice: "rows", _indexes_below_its_length: "rows"}


@pytest.mark.parametrize("fn", list(_LOOP_FORMS))
@pytest.mark.parametrize("x", [np.array([0.5, -1.0, 2.0, 3.0]),
                               np.arange(12, dtype=np.int32).reshape(4, 3),
                               np.array([7.0], np.float32)])
def test_a_loop_over_the_rows_of_a_tensor_iterates_over_them(fn, x):
    # Plain Python, converted code run eagerly, the graph (its loop iterates: `for v in x`
    # instead of `x[i]` on a counter) and the reference interpreter agree; with an unknown
    # number of rows too.
    from tests.autograph.three_way import assert_agree, same

    if fn in (_enumerates, _uses_its_counter) and x.ndim == 2:  # (rows times an int32
        x = x.astype(np.int64)  # counter: int64 in numpy)
    assert_agree(fn, x)
    for signature in (None, [rt.TensorSpec([None, *x.shape[1:]], rt.as_dtype(x.dtype))]):
        f = rt.function(fn, input_signature=signature)
        concrete = f.get_concrete_function(rt.constant(x))
        source = concrete.graph.to_python()
        loops = [line.split("  #")[0].strip() for line in source.splitlines()
                 if line.lstrip().startswith("for ")]
        if fn in (_indexes_below_its_length, _uses_its_counter) and signature is None:
            assert not loops  # (`range(len(x))` of a known length: unrolled while traced)
        else:
            form = ("zip" if " in zip(counting(" in loops[0] else "index" if " in counting("
                    in loops[0] else "rows" if re.fullmatch(r"for \w+ in \w+:", loops[0])
                    else loops[0])
            assert len(loops) == 1 and form == _LOOP_FORMS[fn], source
        assert same(f(rt.constant(x)), fn(x))
        assert same(run_graph(concrete.graph, [x])[0], fn(x))


def test_a_loop_over_an_index_past_the_rows_still_raises_at_the_users_line():
    def reads_past_the_end(x, n):
        total = x[0] * 0
        for i in rt.range(n):
            total = total + x[i]
        return total

    f = rt.function(reads_past_the_end)
    x = rt.constant([1.0, 2.0, 3.0])
    assert f(x, rt.constant(3)).numpy() == 6.0
    assert "for " in f.get_concrete_function(x, rt.constant(3)).graph.to_python()
    with pytest.raises(Exception) as info:
        f(x, rt.constant(4))
    assert "test_executor.py" in str(info.value) or any(
        "test_executor.py" in line for line in info.traceback.format().splitlines()
        if "reads_past_the_end" in line)


def test_the_gradient_of_a_loop_over_rows_is_the_unstaged_loops():
    x = rt.constant(np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]]))

    def loss(x):
        total = rt.constant(0.0, rt.float64)
        for row in x:
            total = total + rt.reduce_sum(row * row * row)
        return total

    graph_grad = rt.grad(rt.function(loss))(x)
    np.testing.assert_allclose(graph_grad.numpy(), 3 * x.numpy() ** 2)


# ---- `if not x:` for an If on a negation only it reads ------------------------------------------

def _first_small_step(x, tol):
    steps = 0
    for i in range(5):  # (a Python loop, unrolled while traced: an If per iteration)
        steps += 1
        if np.abs(x[i]) < tol:
            break
    return steps, not steps > 2  # (a negation returned: computed, not written into an if)


@pytest.mark.parametrize("tol", [np.float64(0.3), np.float64(0.01), np.float64(5.0)])
def test_a_break_tests_its_flag_with_not(tol):
    # An unrolled loop's `break` makes each later iteration an If on `not done` (a LogicalNot
    # only that If reads): it is written `if not done:`, not `(done ^ True)` then `if`; the
    # same results three ways and in the interpreter.
    from tests.autograph.three_way import assert_agree, same

    x = np.array([2.0, -1.5, 0.25, 0.001, 3.0])
    assert_agree(_first_small_step, x, tol)
    for signature in (None, [rt.TensorSpec([None], rt.float64), rt.TensorSpec([], rt.float64)]):
        f = rt.function(_first_small_step, input_signature=signature)
        concrete = f.get_concrete_function(rt.constant(x), rt.constant(tol))
        source = concrete.graph.to_python()
        assert source.count("if not ") == 4 and source.count("^ true_") == 1, source
        assert same(f(rt.constant(x), rt.constant(tol)), _first_small_step(x, tol))
        assert same(run_graph(concrete.graph, [x, tol]), list(_first_small_step(x, tol)))


def _times_one(x):
    return x * 1.0


def _twice(x):
    return x + 1.0, x + 1.0


def _one_of_two(x, c):
    if c > 0:
        y = -(-x)  # noqa: B002 - a double negation, which the simplify pass removes
    else:
        y = x * 2.0
    return y


def _scaled_view(x, gain=1.0):
    return (x * gain).T


def _two_views(x):
    return (x + 1.0).T, (x + 1.0).T


def _reshaped(x):
    return np.reshape(-(-x), (3, 1))  # noqa: B002 - a double negation, which simplify removes


@pytest.mark.parametrize("jit_compile", [None, "numba", "auto"])
@pytest.mark.parametrize("numpy_results", [False, True])
def test_results_the_code_computes_are_new_arrays(jit_compile, numpy_results):
    # `x * 1` is a new array in plain Python: the simplified graph's result (or a view of it)
    # must not be the argument's array; two equal results are two arrays (not merged into one)
    if jit_compile == "numba":
        pytest.importorskip("numba")
    x = np.ones(3)
    for fn, args in ((_times_one, (x,)), (_twice, (x,)), (_one_of_two, (x, np.int64(1))),
                     (_scaled_view, (x,)), (_two_views, (x,)), (_reshaped, (x,))):
        f = rt.function(fn, jit_compile=jit_compile, numpy_results=numpy_results)
        for _ in range(3):  # (the fast path, then the entry)
            results = [np.asarray(r) for r in rt.nest.flatten(f(*args))]
            results[0].flat[0] = 99.0
            assert x[0] == 1.0 and all(r.flat[0] != 99.0 for r in results[1:]), fn.__name__


def _copies(x):
    return (x.copy(), np.copy(x), np.array(x), np.array(x, dtype=np.float64), x.flatten(),
            x ** 1, x.astype(x.dtype), +x, np.positive(x), np.conj(x), np.clip(x, None, None),
            np.floor(x.astype(np.int64)), np.round(x.astype(np.int64)), np.sum(x, axis=()),
            np.max(x, axis=()))


def _same_dtype_then_in_place(x):
    y = x.astype(x.dtype)
    y += 1.0  # (y is a new array in plain Python: no in-place refusal)
    return y


@pytest.mark.parametrize("jit_compile", [None, "numba"])
@pytest.mark.parametrize("numpy_results", [False, True])
def test_copies_are_new_arrays(jit_compile, numpy_results):
    # numpy's copies (x.copy(), np.array(x), x.astype(x.dtype), +x, ...) never share the
    # argument's memory nor each other's
    if jit_compile == "numba":
        pytest.importorskip("numba")
    x = np.arange(4.0)
    f = rt.function(_copies, jit_compile=jit_compile, numpy_results=numpy_results)
    for _ in range(3):
        results = [np.asarray(r) for r in f(x)]
        for i, r in enumerate(results):
            assert not np.shares_memory(r, x), i
            assert not any(np.shares_memory(r, other) for other in results[i + 1:]), i
        for got, want in zip(results, _copies(x)):
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(
        rt.function(_same_dtype_then_in_place, jit_compile=jit_compile)(x), x + 1.0)
    assert x[0] == 0.0


def test_copies_are_new_arrays_in_converted_code_run_eagerly():
    t = rt.constant(np.arange(4.0))
    results = [r.numpy() for r in autograph.to_graph(_copies)(t)]
    for i, r in enumerate(results):
        assert not np.shares_memory(r, t.numpy()), i
        assert not any(np.shares_memory(r, other) for other in results[i + 1:]), i
    for got, want in zip(results, _copies(np.arange(4.0))):
        np.testing.assert_array_equal(got, want)


def _counted(x, m):
    n = 0
    for _ in range(m):
        n += 1
    return x * (+n), np.floor(n), np.round(n), np.conj(n)


def test_unary_plus_of_a_python_number_is_the_number():
    # `+n` of a Python int stays a Python int (float32 * it stays float32); numpy's functions
    # of it give numpy's int64 scalars
    x = np.ones(2, np.float32)
    want = _counted(x, 3)
    got = rt.function(_counted, numpy_results=True)(x, np.int64(3))
    for g, w in zip(got, want):
        assert type(g) is type(w) and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
