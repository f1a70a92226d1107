"""A Python loop that unrolls into the graph while tracing is said once, at its line, with the
way to make it a graph loop; loops that add few ops, and eager runs, say nothing."""

import warnings

import pytest

import autograph
import runtime as rt


def long_python_for(x):
    for _ in range(1000):
        x = x * 0.5 + 1.0
    return x


def long_python_while(x):
    i = 0
    while i < 1000:
        x = x * 0.5 + 1.0
        i += 1
    return x


def python_arithmetic_only(x):
    s = 0
    for i in range(5000):
        s += i
    return x + s


def short_python_for(x):
    for _ in range(10):
        x = x * 0.5 + 1.0
    return x


@pytest.mark.parametrize("fn, kind", [(long_python_for, "for"), (long_python_while, "while")])
def test_an_unrolled_loop_is_said_once_at_its_line(fn, kind):
    with pytest.warns(autograph.UnrolledLoopWarning,
                      match=f"This Python `{kind}` loop ran 1000 iterations while the graph was "
                      r"traced and added \d+ ops") as caught:
        assert rt.function(fn)(rt.constant(1.0)).numpy() == pytest.approx(2.0)
    (warning,) = [w for w in caught if w.category is autograph.UnrolledLoopWarning]
    assert warning.filename == __file__
    assert f"{kind} " in open(__file__).read().splitlines()[warning.lineno - 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error", autograph.UnrolledLoopWarning)
        rt.function(fn)(rt.constant([1.0, 2.0]))  # the same line again: said once


@pytest.mark.parametrize("fn", [python_arithmetic_only, short_python_for])
def test_loops_that_add_few_ops_say_nothing(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error", autograph.UnrolledLoopWarning)
        rt.function(fn)(rt.constant(1.0))


def test_eager_runs_say_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error", autograph.UnrolledLoopWarning)
        autograph.to_graph(long_python_for)(rt.constant(1.0))
