"""if / while / for conversion: converted functions on Python values (exactly the original)
and on staged values of the fake backend (graph-style control flow)."""

import pytest
from fake_backend import Sym, unwrap

import autograph


def branchy(x):
    y = 0
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


def loop_sum(n):
    i = 0
    total = 0
    while i < n:
        total += i
        i += 1
    return total


def for_sum(xs):
    total = 0
    for x in xs:
        total += x
    return total


def nested(n):
    total = 0
    for i in range(n):
        j = 0
        while j < i:
            if j % 2 == 0:
                total += j
            j += 1
    return total


def print_only(x):
    if x > 0:
        print("positive")


@pytest.mark.parametrize("fn, args", [
    (branchy, (3,)), (branchy, (-3,)), (loop_sum, (5,)), (for_sum, ([1, 2, 3],)), (nested, (6,)),
])
def test_python_values_run_as_python(fn, args):
    assert autograph.to_graph(fn)(*args) == fn(*args)


def test_if_on_staged_value_uses_backend_cond(fake):
    assert unwrap(autograph.to_graph(branchy)(Sym(3))) == 4
    assert unwrap(autograph.to_graph(branchy)(Sym(-3))) == -4
    assert fake.log.count(("cond", ("y",))) == 2


def test_while_on_staged_value_uses_backend_loop(fake):
    assert unwrap(autograph.to_graph(loop_sum)(Sym(5))) == 10
    assert fake.log == [("while", ("i", "total"))]


def test_for_over_staged_value_uses_backend_loop(fake):
    assert unwrap(autograph.to_graph(for_sum)(Sym([1, 2, 3]))) == 6
    assert fake.log == [("for", ("total",))]


def test_nested_staged_control_flow(fake):
    assert unwrap(autograph.to_graph(nested)(Sym(6))) == nested(6)


def test_python_range_unrolls_while_staged_range_stages(fake):
    to_graph = autograph.to_graph(nested)
    assert to_graph(4) == nested(4)
    assert fake.log == []


def test_side_effect_only_branches(capsys):
    autograph.to_graph(print_only)(1)
    autograph.to_graph(print_only)(-1)
    assert capsys.readouterr().out == "positive\n"


def test_branch_functions_take_and_return_modified_variables():
    code = autograph.to_code(branchy)
    assert "def if_true(y):" in code
    assert "y = ag__.if_stmt(x > 0, if_true, if_false, (y,), ('y',))" in code
    assert "nonlocal" not in code


def test_undefined_before_if_is_passed_as_undefined():
    def f(x):
        if x > 0:
            z = 1
        return z

    code = autograph.to_code(f)
    assert "ag__.Undefined('z')" in code
    assert autograph.to_graph(f)(1) == 1
    with pytest.raises(UnboundLocalError, match="'z' is used before it is assigned"):
        autograph.to_graph(f)(-1)


def test_loop_else_without_break():
    def f(n):
        total = 0
        for i in range(n):
            total += i
        else:
            total += 100
        return total

    assert autograph.to_graph(f)(3) == f(3)


def test_for_with_tuple_target_and_target_live_after():
    def f(pairs):
        k = -1
        for k, _v in pairs:  # noqa: B007 - the target is the result
            pass
        return k

    assert autograph.to_graph(f)([(1, 2), (3, 4)]) == 3
    assert autograph.to_graph(f)([]) == -1


def test_staged_variable_defined_in_one_branch_only_is_checked_where_read(fake):
    def f(x):
        if x > 0:
            z = 1
        return z

    assert unwrap(autograph.to_graph(f)(Sym(1))) == 1
    # The staged check fails (the fake backend raises when it is staged, at its value).
    with pytest.raises(AssertionError, match="'z' is used before it is assigned"):
        autograph.to_graph(f)(Sym(-1))


def test_staged_loop_with_staged_break(fake):
    def f(n):
        i = 0
        while i < n:
            if i * i > 10:
                break
            i += 1
        return i

    assert unwrap(autograph.to_graph(f)(Sym(100))) == 4


def test_python_loop_with_staged_break_runs_guarded_iterations(fake):
    def f(x):
        total = 0
        for i in range(5):
            if total > x:
                break
            total += i
        return total

    assert unwrap(autograph.to_graph(f)(Sym(2))) == f(2)
    assert ("cond", ("total", "break_")) in fake.log or ("cond", ("break_", "total")) in fake.log


def test_global_assigned_in_a_staged_branch_is_carried(fake):
    def f(x):
        global GLOBAL_VALUE
        GLOBAL_VALUE = 0
        if x > 0:
            GLOBAL_VALUE = x
        return GLOBAL_VALUE + 1

    assert unwrap(autograph.to_graph(f)(Sym(5))) == 6
    assert unwrap(GLOBAL_VALUE) == 5
    assert unwrap(autograph.to_graph(f)(Sym(-5))) == 1
    assert ("cond", ("GLOBAL_VALUE",)) in fake.log
    assert "global GLOBAL_VALUE" in autograph.to_code(f).split("def if_true")[1]


def test_control_flow_inside_try_stays_python(fake):
    def f(x):
        try:
            if x > 0:
                y = 1
            else:
                y = 2
        except ValueError:
            y = 3
        return y

    assert "ag__.python_value(x > 0, 'if')" in autograph.to_code(f)
    assert autograph.to_graph(f)(1) == 1
    with pytest.raises(autograph.AutoGraphError, match="inside a `try` block"):
        autograph.to_graph(f)(Sym(1))
