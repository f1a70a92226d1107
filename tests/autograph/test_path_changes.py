"""The function's own lists, dicts and sets changed by a call on a path of a graph `if`
(autograph/operators/path_changes.py), three ways: paths that change them alike agree with
Python; paths that change them differently are refused at the `if` (before, both paths'
changes stayed, silently: `[1.0, 2.0]` where Python gives `[1.0]`)."""

import numpy as np
import pytest
from three_way import assert_agree, outcomes

import autograph
import runtime as rt

F32 = np.float32


def add(container, value):
    container.append(value)


def append_by_a_helper(x):
    out = []
    if x > 0:
        add(out, 1.0)
    else:
        add(out, 2.0)
    return out


def append_by_a_local_function(x):
    out = [0.5]

    def push(v):
        out.append(v)

    if x > 0:
        push(x * 2)
    return sum(out)


def put(table, key):
    table[key] = 1


def put_by_a_helper(x):
    seen = {}
    if x > 0:
        put(seen, "k")
    return len(seen)


def mark(marks, value):
    marks.add(value)


def add_to_a_set(x):
    marks = {1}
    if x > 0:
        mark(marks, 2)
    else:
        mark(marks, 3)
    return len(marks)


def append_an_argument(x, out):
    if x > 0:
        add(out, 1)
    return x


@pytest.mark.parametrize("fn", [append_by_a_helper, append_by_a_local_function, add_to_a_set])
@pytest.mark.parametrize("x", [F32(1.0), F32(-1.0)])
def test_a_call_changing_a_container_differently_on_the_paths_is_refused(fn, x):
    python, eager, graph = outcomes(fn, x)
    assert not isinstance(python, Exception) and not isinstance(eager, Exception)
    assert isinstance(graph, autograph.AutoGraphError), graph
    assert "changed differently on the paths of this graph `if`" in str(graph)
    assert "test_path_changes.py" in str(graph)  # (at the user's `if`)


def test_a_change_on_one_path_only_is_refused_also_for_an_argument():
    out = []
    with pytest.raises(autograph.AutoGraphError, match="The list `out` is changed"):
        rt.function(append_an_argument)(F32(1.0), out)
    assert out == []  # (put back as it was)
    with pytest.raises(autograph.AutoGraphError, match="The dict `seen` is changed"):
        rt.function(put_by_a_helper)(F32(1.0))


def append_alike(x):
    out = [0.25]
    if x > 0:
        add(out, 1.0)
        y = x * 2
    else:
        add(out, 1.0)
        y = x * 3
    return sum(out) + y


def read_by_a_helper(x):
    out = [1.0, 2.0]
    if x > 0:
        y = x + total(out)
    else:
        y = x - total(out)
    return y, len(out)


def total(values):
    return sum(values)


def change_before_the_if(x):
    out = []
    add(out, x)
    if x > 0:
        y = x + len(out)
    else:
        y = x
    add(out, y)
    return y, len(out)


def change_on_a_raising_path(x):
    out = []
    if x > 0:
        add(out, 1.0)
    else:
        raise ValueError("negative")
    return out


@pytest.mark.parametrize("x", [F32(1.0), F32(-1.0)])
def test_paths_changing_alike_reading_or_raising_agree(x):
    assert_agree(append_alike, x)
    assert_agree(read_by_a_helper, x)
    assert_agree(change_before_the_if, x)
    assert_agree(change_on_a_raising_path, x)


def nested_in_a_loop(n):
    out = []
    for i in rt.range(n):
        if i > 1:
            add(out, 1)
    return n


def test_a_change_in_a_branch_nested_in_a_graph_loop_is_refused():
    with pytest.raises(autograph.AutoGraphError, match="The list `out` is changed"):
        rt.function(nested_in_a_loop)(np.int32(3))


GLOBAL_LOG: list = []


def log_by_a_helper(x):
    if x > 0:
        add(GLOBAL_LOG, "positive")
    return x


@pytest.mark.no_round_trip  # (the trace is not kept: the global it reads changed)
def test_a_global_container_is_not_watched():
    """A global's or an attribute's container changed on one path is how caches and lazy
    builds work: not refused (the README's limits say it changes while tracing)."""
    GLOBAL_LOG.clear()
    rt.function(log_by_a_helper)(F32(1.0))
    assert GLOBAL_LOG == ["positive"]


# ---- graph loops: the body is traced once, whatever the number of iterations ----------------
def append_in_a_graph_loop(n):
    out = []
    for _ in range(n):
        add(out, 1)
    return len(out)


def append_in_a_graph_while(n):
    out = []
    i = 0
    while i < n:
        add(out, i)
        i += 1
    return len(out)


@pytest.mark.parametrize("fn", [append_in_a_graph_loop, append_in_a_graph_while])
@pytest.mark.parametrize("n", [0, 3])
def test_a_call_changing_a_container_in_a_graph_loop_is_refused(fn, n):
    python, eager, graph = outcomes(fn, np.int32(n))
    assert python == eager == n  # (the graph gave 1 for both, silently)
    assert isinstance(graph, autograph.AutoGraphError), graph
    assert "is changed by a call in this graph loop" in str(graph)
    assert "test_path_changes.py" in str(graph)


def lookup(memo, key):
    return memo.setdefault(key, 2.0)


def warm_memo_and_reads_in_a_graph_loop(n):
    out = [1.0, 2.0]
    memo = {"k": 0.5}
    s = 0.0
    for i in range(n):
        s += lookup(memo, "k") + total(out) + i
    for _ in range(3):  # a Python loop: changes as Python does
        add(out, 1.0)
    return s, len(out), len(memo)


@pytest.mark.parametrize("n", [0, 4])
def test_a_graph_loop_that_only_reads_or_finds_a_warm_memo_agrees(n):
    assert_agree(warm_memo_and_reads_in_a_graph_loop, np.int32(n))


# ---- what a call reaches: items, local functions, bound methods, partials (second review) ----
def append_to_a_row(x):
    rows = [[], [0.5]]
    if x > 0:
        add(rows[0], 1.0)
    else:
        add(rows[0], 2.0)
    return rows


def append_by_a_bound_method(x):
    out = []
    push = out.append
    if x > 0:
        push(1.0)
    else:
        push(2.0)
    return out


def append_by_a_partial(x):
    import functools

    out = []
    push = functools.partial(add, out)
    if x > 0:
        push(1.0)
    else:
        push(2.0)
    return out


def append_two_local_functions_away(x):
    out = []

    def push2(v):
        out.append(v)

    def push(v):
        push2(v)

    if x > 0:
        push(1.0)
    else:
        push(2.0)
    return out


def append_to_a_deque(x):
    import collections

    queue = collections.deque([0.5])
    if x > 0:
        add(queue, 1.0)
    else:
        add(queue, 2.0)
    return list(queue)


def put_beside_a_carried_key(x):
    d = {"h": x}
    if x > 0:
        d["h"] = x * 2
        put(d, "k")
    else:
        d["h"] = x * 3
    return d


def helper_with_its_own_if(x):
    out = []

    def push(v):
        if v > 0:
            add(out, 1.0)
        else:
            add(out, 2.0)

    push(x)
    return out


@pytest.mark.parametrize("fn", [append_to_a_row, append_by_a_bound_method, append_by_a_partial,
                                append_two_local_functions_away, append_to_a_deque,
                                put_beside_a_carried_key, helper_with_its_own_if])
def test_containers_a_call_reaches_are_watched(fn):
    python, eager, graph = outcomes(fn, F32(1.0))
    assert not isinstance(python, Exception) and not isinstance(eager, Exception)
    assert isinstance(graph, autograph.AutoGraphError), graph
    assert "is changed differently on the paths of this graph `if`" in str(graph)


def fill_a_memo_alike(x):
    memo = {}

    def constant(name):
        if name not in memo:
            memo[name] = rt.constant(np.float32(2.0))  # (an eager tensor on each path: alike)
        return memo[name]

    if x > 0:
        y = x * constant("w")
    else:
        y = x - constant("w")
    return y, len(memo)


def test_paths_making_equal_values_agree():
    assert_agree(fill_a_memo_alike, F32(1.0))
    assert_agree(fill_a_memo_alike, F32(-1.0))


def fill_a_memo_in_a_loop(n):
    memo = {}
    s = 0.0
    for i in range(n):
        s += scale(memo, 3) * i
    return s, len(memo)


def scale(memo, k):
    if k not in memo:
        memo[k] = float(k)
    return memo[k]


def test_a_memo_a_graph_loop_fills_once_is_kept_and_checked_when_the_loop_runs_no_iteration():
    f = rt.function(fill_a_memo_in_a_loop)
    s, size = f(np.int32(4))
    assert (float(s), int(size)) == fill_a_memo_in_a_loop(4) == (18.0, 1)
    assert fill_a_memo_in_a_loop(0) == (0.0, 0)  # Python: the memo stays empty
    with pytest.raises(rt.errors.InvalidArgumentError, match="ran no iteration, but tracing"):
        f(np.int32(0))


def append_both_ways(x, out):
    if x > 0:
        add(out, 1.0)
    else:
        add(out, 2.0)
    return x


def test_a_refused_if_puts_the_containers_back():
    out = [7]
    with pytest.raises(autograph.AutoGraphError, match="The list `out` is changed differently"):
        rt.function(append_both_ways)(F32(1.0), out)
    assert out == [7]


def make_with_an_outside_list():
    log = []

    def f(x):
        if x > 0:
            add(log, "positive")
        return x

    return f, log


@pytest.mark.no_round_trip  # (the trace is not kept: the list it reads changed)
def test_an_enclosing_functions_container_is_outside_the_trace():
    f, log = make_with_an_outside_list()
    rt.function(f)(F32(1.0))
    assert log == ["positive"]  # (as a global's: README, "Limits")


# ---- composition ------------------------------------------------------------------------------
decorated_append_both_ways = rt.function(append_both_ways)  # (the same code, decorated)


def through_a_decorated_helper(x):
    out = []
    y = decorated_append_both_ways(x, out)
    return y, len(out)


def alike_through_a_loop_and_if(n):
    out = [0.5]
    s = 0.0
    for i in range(n):
        if i > 1:
            y = total(out) + i
        else:
            y = total(out) - i
        s += y
    return s


def test_a_decorated_helper_is_refused_as_the_same_code_without_the_boundary():
    for fn in (through_a_decorated_helper, append_by_a_helper):
        with pytest.raises(autograph.AutoGraphError, match="The list `out` is changed differ"):
            rt.function(fn)(F32(1.0))


def test_tracing_in_threads():
    import threading

    errors, results = [], []

    def work(k):
        try:
            if k % 2:
                rt.function(append_by_a_helper)(F32(1.0))
            else:
                results.append(float(rt.function(alike_through_a_loop_and_if)(np.int32(4))))
        except autograph.AutoGraphError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 3 and all("The list `out` is changed" in e for e in errors)
    assert results == [alike_through_a_loop_and_if(4)] * 3
