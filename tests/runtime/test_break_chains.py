"""An unrolled Python loop with a `break` on a tensor (autograph writes one graph `if` per
iteration) runs as a chain the generated code leaves at the break (runtime/executor/
break_chains.py): the values are plain Python's, for a break at every iteration or none."""


import numpy as np
import pytest

import runtime as rt
from runtime.executor import break_chains
from runtime.executor.interpreter import run_graph
from tests import numpy_programs
from tests.runtime.module_files import import_source


def newton(c, x, tol):
    return numpy_programs.newton(c, x, tol, max_iter=12)


def swaps(a, b, limit):
    # the values change places every iteration: the break's values follow them
    total = a * 0.0
    for _ in range(9):
        a, b = b, a + 1.0
        total = total + a
        if total > limit:
            break
    return a, b, total


def reads_from_before(a, limit):
    base = a * 2.0
    for _ in range(6):
        if a > limit:
            break
        a = a + base
    return a, base


def inner_chain_in_a_graph_loop(x, n):
    # the chain's `while True:` sits in a graph loop: its break leaves the chain, not the loop
    total = x * 0.0
    for k in rt.range(n):
        y = x
        for _ in range(5):
            y = y * 2.0
            if y > 10.0 + rt.cast(k, rt.float32):
                break
        total = total + y
    return total


CASES = [
    (newton, [(2.0, 2.0, 1e-12), (2.0, 2.0, 1e-3), (2.0, 2.0, 10.0), (2.0, 2.0, 0.0),
              (np.nan, 2.0, 1e-9)]),
    (swaps, [(1.0, 2.0, 0.5), (1.0, 2.0, 4.0), (1.0, 2.0, 20.0), (1.0, 2.0, 1e9)]),
    (reads_from_before, [(1.0, 0.5), (1.0, 5.0), (1.0, 100.0), (-0.0, -1.0)]),
]


@pytest.mark.parametrize("fn, inputs", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_a_break_chain_gives_plain_pythons_values_wherever_it_breaks(fn, inputs):
    f = rt.function(fn)
    for values in inputs:
        args = [np.float64(v) for v in values]
        want = fn(*args)
        got = f(*args)
        concrete = f.get_concrete_function(*args)
        interpreted = run_graph(concrete.graph, args)
        for g, w, r in zip(got, want, interpreted):
            assert type(g.numpy()) is type(np.asarray(w)[()]) or type(w) is int
            np.testing.assert_array_equal(g.numpy(), w)
            np.testing.assert_array_equal(r, w)
            assert np.signbit(g.numpy()) == np.signbit(w)
    source = concrete.graph.to_python()
    assert "while True:" in source and "        break" in source
    assert any(len(c.levels) >= break_chains.MIN_LEVELS
               for c in break_chains.find(concrete.graph).values())


def test_a_chain_inside_a_graph_loop_leaves_only_the_chain():
    f = rt.function(inner_chain_in_a_graph_loop)
    for x, n in ((1.0, 4), (0.5, 0), (3.0, 7), (20.0, 2)):
        args = rt.constant(np.float32(x)), rt.constant(n)
        want = np.float32(0.0)
        for k in range(n):
            y = np.float32(x)
            for _ in range(5):
                y = y * np.float32(2.0)
                if y > 10.0 + k:
                    break
            want = want + y
        assert f(*args).numpy() == want
    assert "while True:" in f.get_concrete_function(*args).graph.to_python()


def test_a_chain_is_not_taken_where_a_value_leaves_it_early():
    # an iteration's value read after the loop (not only by the next iteration) keeps the ifs
    def kept(a):
        first = a
        for i in range(5):
            a = a * 2.0
            if i == 0:
                first = a
            if a > 8.0:
                break
        return a, first

    f = rt.function(kept)
    for a in (1.0, 5.0, 100.0):
        got = [t.numpy() for t in f(np.float64(a))]
        assert got == list(kept(np.float64(a)))


def _load(tmp_path, name, lines):
    return import_source(tmp_path / f"{name}.py", "\n".join(lines) + "\n").deep


def test_loops_nested_twenty_deep_still_compile(tmp_path):
    # Python allows 20 nested loops: a chain's `while True:` is added only where the loops
    # around it and inside it leave room (a chain holding loops 6 deep, 14 loops down, has none)
    lines = ["import runtime as rt", "", "", "def deep(x):"]
    lines += ["    " * (level + 1) + "for _ in rt.range(1):" for level in range(16)]
    inner = "    " * 17
    lines += [inner + "for _ in range(6):", inner + "    x = x * 2.0",
              inner + "    if x > 5.0:", inner + "        break", "    return x"]
    deep = _load(tmp_path, "deep_loops", lines)
    assert rt.function(deep)(np.float64(1.0)).numpy() == deep(np.float64(1.0))
    lines = ["import runtime as rt", "", "", "def deep(x):"]
    lines += ["    " * (level + 1) + "for _ in rt.range(1):" for level in range(14)]
    at = "    " * 15
    lines.append(at + "done = x > 100.0")
    for _ in range(3):  # (three `if not done:` blocks: a chain)
        lines.append(at + "if not done:")
        lines += [at + "    " * (level + 1) + "for _ in rt.range(1):" for level in range(6)]
        lines += [at + "    " * 7 + "x = x * 2.0", at + "    done = x > 5.0"]
    lines.append("    return x")
    deep = _load(tmp_path, "deep_chain", lines)
    assert rt.function(deep)(np.float64(1.0)).numpy() == deep(np.float64(1.0)) == 8.0
