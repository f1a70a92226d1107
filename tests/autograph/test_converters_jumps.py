"""return / break / continue lowering: the moved form where possible, flags otherwise, and
Python semantics in every case (on Python values and staged values)."""

import pytest
from fake_backend import Sym, unwrap

import autograph


def early_return(x):
    if x > 0:
        return x
    y = x * 2
    return y


def return_in_both_after_nested(x, y):
    if x > 0:
        if y > 0:
            return 1
    return 2


def return_needs_flag(x):
    if x > 0:
        if x > 5:
            return 1
        x = x + 100
    x = x * 2
    x = x + 1
    return x


def return_in_loop(n):
    for i in range(n):
        if i * i > 10:
            return i
    return -1


def return_in_nested_loop(n):
    i = 0
    while i < n:
        j = 0
        while j < n:
            if i * j == 6:
                return i * 10 + j
            j += 1
        i += 1
    return -1


def no_return_value(x):
    if x > 0:
        return
    return x


def break_and_else(n):
    for i in range(n):
        if i == 3:
            break
    else:
        return -1
    return i


def continue_nested(n):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            if i % 3 == 0:
                continue
            total += 100
        total += i
    return total


def break_in_nested_loop(n):
    total = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            total += j
    return total


CASES = [
    (early_return, (3,)), (early_return, (-3,)),
    (return_in_both_after_nested, (1, 1)), (return_in_both_after_nested, (1, -1)),
    (return_in_both_after_nested, (-1, 1)),
    (return_needs_flag, (7,)), (return_needs_flag, (2,)), (return_needs_flag, (-2,)),
    (return_in_loop, (10,)), (return_in_loop, (2,)),
    (return_in_nested_loop, (5,)), (return_in_nested_loop, (2,)),
    (no_return_value, (1,)), (no_return_value, (-1,)),
    (break_and_else, (5,)), (break_and_else, (2,)),
    (continue_nested, (10,)),
    (break_in_nested_loop, (5,)),
]


@pytest.mark.parametrize("fn, args", CASES)
def test_python_semantics(fn, args):
    assert autograph.to_graph(fn)(*args) == fn(*args)


STAGED = [c for c in CASES if c[0] not in (no_return_value, break_and_else)]


@pytest.mark.parametrize("fn, args", STAGED)
def test_staged_semantics(fake, fn, args):
    assert unwrap(autograph.to_graph(fn)(*[Sym(a) for a in args])) == fn(*args)


def test_early_return_moves_code_instead_of_flags():
    code = autograph.to_code(early_return)
    assert "do_return" not in code and "retval" not in code
    assert "return ag__.if_stmt(x > 0, if_true, if_false)" in code


def test_small_rest_is_duplicated_not_flagged():
    assert "do_return" not in autograph.to_code(return_in_both_after_nested)


def test_flags_where_moving_would_duplicate():
    code = autograph.to_code(return_needs_flag)
    assert "do_return" in code and code.rstrip().endswith("return retval")


def test_return_in_loop_breaks_out():
    code = autograph.to_code(return_in_loop)
    assert "break_" in code and "retval" in code
    assert autograph.to_graph(return_in_loop)(0) == -1


def test_continue_moves_rest_into_else():
    def f(xs):
        total = 0
        for x in xs:
            if x < 0:
                continue
            total += x
        return total

    assert "continue_" not in autograph.to_code(f)
    assert autograph.to_graph(f)([1, -2, 3]) == 4


def test_continue_flag_when_both_paths_fall_through():
    assert "continue_" in autograph.to_code(continue_nested)


def test_staged_return_in_one_branch_only_is_an_error(fake):
    def f(x):
        if x > 0:
            return x

    with pytest.raises(autograph.AutoGraphError,
                       match="returned value is None in the false branch but a tensor in the true"):
        autograph.to_graph(f)(Sym(1))
