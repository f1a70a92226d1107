"""jit_compile="numba"'s staged lists (numba's own lists, runtime/executor/numba_lists.py) and
its elementwise chains written into one expression (numba_backend.NumbaEmitter), against the
default executor (numba_agreement.py)."""

import numpy as np
import pytest

import runtime as rt
from tests.runtime.numba_agreement import agree, both

numba = pytest.importorskip("numba")

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile


def _trajectory(y0, steps, h):
    ys = []
    y = y0
    for _ in rt.range(steps):
        y = y + h * y
        ys.append(y)  # (an array: the list keeps a copy)
    return rt.stack(ys), len(ys)


def _numbers(n, dtype):
    xs = [rt.cast(n, dtype)]
    for i in rt.range(n):
        xs.append(rt.cast(i * 3 - 2, dtype))
    return rt.stack(xs), len(xs)


def _rows(x, n):
    rows = [x[0], x[1]]
    for i in rt.range(n):
        rows.append(x[i % 2] * rt.cast(i, x.dtype))
    return rt.stack(rows)


@pytest.mark.parametrize("steps", [0, 1, 5])
def test_lists_a_loop_appends_to_are_numbas_own_lists(steps):
    if steps:
        stacked, count = both(_trajectory, rt.constant([1.0, -2.0]), rt.constant(steps),
                               rt.constant(0.5))
        assert int(count) == steps and stacked.shape == (steps, 2)
    else:  # an empty list: the default executor's error, at the user's line
        for executor in (None, "numba"):
            with pytest.raises(rt.errors.InvalidArgumentError,
                               match=r"stack needs at least one tensor(.|\n)*rt.stack\(ys\)"):
                rt.function(_trajectory, jit_compile=executor)(
                    rt.constant([1.0, -2.0]), rt.constant(0), rt.constant(0.5))
    for dtype in (rt.float32, rt.float64, rt.int32, rt.int64, rt.bool):
        both(lambda n, dtype=dtype: _numbers(n, dtype), rt.constant(steps))
    both(_rows, rt.constant(np.arange(6.0).reshape(2, 3)), rt.constant(steps))
    both(_until, rt.constant(np.float32(0.5)), rt.constant(np.float32(steps)))
    # A loop that counts to a limit fills an array of its count (only stacked and counted after
    # it); one that stops on a value appends to numba's list
    source = rt.function(_trajectory, jit_compile="numba").get_concrete_function(
        rt.constant([1.0]), rt.constant(1), rt.constant(0.5)).generated.source
    assert ".append(" not in source and "fill_from_(" in source and "stack_list_(" in source
    source = rt.function(_until, jit_compile="numba").get_concrete_function(
        rt.constant(np.float32(1)), rt.constant(np.float32(1))).generated.source
    assert ".append(" in source and "fill_from_(" not in source


def _until(step, limit):
    xs = [step]
    total = step
    while total < limit:
        total += step
        xs.append(total)
    return rt.stack(xs), len(xs)


def _returns_the_list(n):
    xs = []
    for i in rt.range(n):
        xs.append(i)
    return xs


def _reads_the_list_in_the_loop(n):
    xs = [0]
    for i in rt.range(n):
        xs.append(len(xs) + i)
    return rt.stack(xs)


def _list_of_lists(n):
    rows = []
    for i in rt.range(n):
        rows.append([i, i])
    return rt.stack(rows)


@pytest.mark.parametrize("fn, match", [
    (_returns_the_list, "does not return a staged list"),
    (_reads_the_list_in_the_loop, "ListPushBack"),
    (_list_of_lists, "a list of lists"),
])
def test_lists_numba_does_not_lower_are_located_errors(fn, match):
    with pytest.raises(rt.errors.NoLoweringError, match=match):
        rt.function(fn, jit_compile="numba")(rt.constant(3))
    rt.function(fn)(rt.constant(3))  # (the default executor computes it)


def _chains(x, n):
    y = x
    for _ in rt.range(n):
        y = rt.maximum((y - 0.5) * 2.0, -y) + x
    d = x - 1.0
    counts = rt.reduce_sum(rt.cast(rt.floor(x * 4.0) == 1.0, rt.int64))
    return y, d * d, counts


@pytest.mark.parametrize("n", [0, 3])
def test_an_elementwise_chain_read_once_is_one_expression_computed_once(n):
    # numba fuses the elementwise operations of one expression into one loop: a chain whose
    # values are read once each is written as one expression (x * 4 -> floor -> ==, summed;
    # y - 0.5 -> * 2 in the loop); a value read twice (d; maximum's operands, which
    # its rule reads more than once) keeps its name, computed once. Same bits as the default.
    args = rt.constant(np.linspace(-1.0, 1.0, 9)), rt.constant(n)
    both(_chains, *args)
    source = rt.function(_chains, jit_compile="numba").get_concrete_function(
        *args).generated.source.split("import numba")[0]
    lines = [line.strip() for line in source.splitlines()]
    assert any(line.startswith("sum_") and "np.floor((x * const_" in line and ".astype(" not
               in line for line in lines), source  # (numba's sum counts the bools: no cast)
    assert any(line.startswith("mul_") and "((while_" in line and " - const_" in line
               for line in lines), source
    d = next(line.split(" = ")[0] for line in lines if line.startswith("sub_") and "(x - " in line)
    assert any(line.endswith(f"({d} * {d})") for line in lines), source


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_chains_of_narrow_integers_wrap_in_their_dtype_as_numpys(dtype):
    # Inside one numba expression narrower integers are computed in int64: a uint8 `a + b`
    # written into `// 2` would not wrap at 256. Such chains stay statements of their own.
    info = np.iinfo(dtype)
    rng = np.random.default_rng(11)
    a, b = (rt.constant(rng.integers(info.min, info.max, 3000, dtype=dtype, endpoint=True))
            for _ in range(2))

    def fn(a, b):
        return ((a + b) // 2, (a + b) > 0, rt.maximum(a + a, 0), rt.reduce_sum(
            rt.cast((a * b) > 0, rt.int64)), rt.minimum(a * 3, a) * 2)

    agree(fn, a, b)

