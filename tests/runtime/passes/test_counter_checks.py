import numpy as np
import pytest
from pass_testing import apply_pass, run, traced

import autograph
import runtime as rt
from runtime.passes import counter_checks


def body_ops(graph):
    loop = next(op for op in graph.walk() if op.type == "While")
    return [op.type for op in loop.attrs["body"].operations
            if op.type not in ("Placeholder", "Const")]


def counters(n):
    i, total = 0, 0
    while i < n:
        total = total + i  # an accumulator: its check stays
        i += 1  # a counter from 0 by 1: its check goes
    return i, total


def test_the_check_of_a_counter_goes_and_others_stay():
    assert body_ops(traced(_converted(counters), np.int64(5))).count("Assert") == 2
    graph = apply_pass(counter_checks.transform, _converted(counters), np.int64(5))
    after = body_ops(graph)
    assert after.count("Assert") == 1  # the accumulator's (x ^ r) & (y ^ r) >= 0
    assert after.count("Add") == 2 and after.count("GreaterEqual") == 1
    assert [int(v) for v in run(graph, np.int64(5))] == [5, 10]


def _converted(fn):
    return autograph.to_graph(fn)


@pytest.mark.parametrize("start, step, kept", [
    (0, 1, 0), (-5, -256, 0), (2 ** 32, 3, 0), (2 ** 32 + 1, 1, 1), (0, 257, 1)])
def test_only_small_steps_from_small_constants_go(start, step, kept):
    def f(n):
        def body(i, k):
            return i + 1, k + step
        return rt.while_loop(lambda i, k: i < n, body, [0, start])

    graph = apply_pass(counter_checks.transform, f, np.int64(4))
    # the counter i (0, +1) always goes; k's check stays when it could fail sooner
    assert body_ops(graph).count("Assert") == kept
    assert [int(v) for v in run(graph, np.int64(4))] == [4, start + 4 * step]


def test_a_counter_that_starts_from_an_argument_keeps_its_check():
    def f(n, start):
        k = int(start)
        for _ in rt.range(n):
            k = k + 1
        return k

    graph = apply_pass(counter_checks.transform, _converted(f), np.int32(3),
                       np.float64(2.0 ** 62))
    assert body_ops(graph).count("Assert") == 1


def steps_to_converge(x, tol):
    steps = 0
    for _ in range(20):  # unrolled by tracing: a chain of graph `if`s after the first break
        x = x / 2
        steps += 1
        if x < tol:
            break
    return x, steps


def asserts(graph):
    return sum(op.type == "Assert" for op in graph.walk())


def test_counters_of_unrolled_loops_have_known_ranges_and_lose_their_checks():
    fn = _converted(steps_to_converge)
    assert asserts(traced(fn, np.float64(100.0), np.float64(0.5))) >= 18  # (the first few fold)
    graph = apply_pass(counter_checks.transform, fn, np.float64(100.0), np.float64(0.5))
    assert asserts(graph) == 0  # steps is within [0, 20]: no check can fail
    assert [float(v) for v in run(graph, np.float64(100.0), np.float64(0.5))] == [0.390625, 8]


def test_a_sum_of_unknown_range_keeps_its_check():
    def f(n, x):
        k = int(n)  # from an argument: any int64
        if x > 0:
            k = k + 1
        return k

    graph = apply_pass(counter_checks.transform, _converted(f), np.float64(3.0), np.float64(1.0))
    assert asserts(graph) >= 1


def compared_with_its_own_sum(v, w=1):
    if bool(w):
        return (0 if w < rt.reduce_sum([w]) else w) * 2
    return w * 2


def test_a_check_folded_to_a_constant_is_left_alone():
    # (found by the random programs: the range pass read the inputs of a folded check)
    assert rt.function(compared_with_its_own_sum)(0).numpy() == 2
