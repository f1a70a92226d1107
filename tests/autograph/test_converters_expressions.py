"""and / or / not, chained comparisons, conditional expressions, asserts, list appends and
calls: Python semantics (short-circuit included) on Python and staged values."""

import pytest
from fake_backend import Sym, unwrap

import autograph


def test_and_or_short_circuit_on_python_values():
    calls = []

    def right(v):
        calls.append(v)
        return v

    def f(a):
        return a and right(1), a or right(2)

    assert autograph.to_graph(f)(0) == (0, 2)
    assert calls == [2]
    assert autograph.to_graph(f)(5) == (1, 5)
    assert calls == [2, 1]


def test_and_or_not_staged(fake):
    def f(a, b):
        return (a > 0 and b > 0), (a > 0 or b > 0), not a > 0

    out = autograph.to_graph(f)(Sym(1), Sym(-1))
    assert [unwrap(v) for v in out] == [False, True, False]
    assert [op for op, _ in fake.log] == ["cond", "cond"]


def test_chained_comparison():
    def f(x):
        return 0 < x < 10

    assert "ag__.and_(0 < x, lambda: x < 10)" in autograph.to_code(f)
    assert [autograph.to_graph(f)(v) for v in (-1, 5, 20)] == [False, True, False]


def test_conditional_expression(fake):
    def f(x):
        return x * 2 if x > 0 else -x

    assert autograph.to_graph(f)(-3) == 3
    assert unwrap(autograph.to_graph(f)(Sym(4))) == 8


def test_assert_python_and_staged(fake):
    def f(x):
        assert x > 0, "x must be positive"
        return x

    assert autograph.to_graph(f)(1) == 1
    with pytest.raises(AssertionError, match="x must be positive"):
        autograph.to_graph(f)(-1)
    assert unwrap(autograph.to_graph(f)(Sym(2))) == 2
    assert ("assert", "x must be positive") in fake.log


def test_assert_without_message_names_the_source():
    def f(x):
        assert x > 0
        return x

    with pytest.raises(AssertionError, match="assert x > 0"):
        autograph.to_graph(f)(-1)


def test_list_append_python_and_staged(fake):
    def f(n):
        out = []
        for i in range(n):
            out.append(i * 2)
        return out

    assert autograph.to_graph(f)(3) == [0, 2, 4]
    assert unwrap(autograph.to_graph(f)(Sym(3))) == [0, 2, 4]


def test_print_python_and_staged(fake, capsys):
    def f(x):
        print("value", x)

    autograph.to_graph(f)(1)
    assert capsys.readouterr().out == "value 1\n"
    autograph.to_graph(f)(Sym(2))
    assert capsys.readouterr().out == ""
    assert ("print", "value 2") in fake.log


def test_builtins_on_staged_values(fake):
    def f(x, y):
        return len(x), max(y, 3), min(y, 3), int(y), float(y)

    out = autograph.to_graph(f)(Sym([1, 2]), Sym(5))
    assert [unwrap(v) for v in out] == [2, 5, 3, 5, 5.0]


def test_range_of_staged_value_stages_the_loop(fake):
    def f(n):
        total = 0
        for i in range(n):
            total += i
        return total

    assert unwrap(autograph.to_graph(f)(Sym(4))) == 6
    assert fake.log == [("for", ("total",))]


def test_user_functions_are_converted_recursively(fake):
    def helper(x):
        if x > 0:
            return 1
        return -1

    def f(x):
        return helper(x) + helper(-x)

    assert "ag__.converted_call(helper, x)" in autograph.to_code(f)
    assert unwrap(autograph.to_graph(f)(Sym(3))) == 0
    assert [op for op, _ in fake.log] == ["cond", "cond"]


def test_do_not_convert_is_honoured(fake):
    @autograph.do_not_convert
    def helper(x):
        if x > 0:
            return 1
        return -1

    def f(x):
        return helper(x)

    assert autograph.to_graph(f)(3) == 1
    with pytest.raises(TypeError, match="Python bool"):
        autograph.to_graph(f)(Sym(3))


def test_methods_and_callable_objects_are_converted(fake):
    class Model:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            if x > self.k:
                return x
            return self.k

        def double(self, x):
            return self(x) * 2

    def f(m, x):
        return m.double(x)

    assert unwrap(autograph.to_graph(f)(Model(2), Sym(5))) == 10
    assert unwrap(autograph.to_graph(Model(7).double)(Sym(5))) == 14


def test_lambda_conversion(fake):
    g = lambda x: x if x > 0 else -x  # noqa: E731
    assert unwrap(autograph.to_graph(g)(Sym(-3))) == 3


def test_recursive_function():
    assert autograph.to_graph(factorial)(5) == 120


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def test_closure_stays_live():
    k = 1

    def f(x):
        return x + k

    converted = autograph.to_graph(f)
    k = 10
    assert converted(1) == 11


def test_enumerate_and_zip_over_staged_values_stage_one_loop(fake):
    def f(xs, ws):
        total = 0
        for i, x in enumerate(xs):
            total += i * x
        for x, w in zip(xs, ws):
            total += x * w
        return total

    assert unwrap(autograph.to_graph(f)(Sym([1, 2, 3]), Sym([1, 1, 1, 5]))) == f([1, 2, 3],
                                                                                  [1, 1, 1, 5])
    assert [op for op, _ in fake.log] == ["for", "for"]


class Base:
    def value(self, x):
        return x + 1


class Child(Base):
    def value(self, x):
        if x > 0:
            return super().value(x) * 2
        return 0


def test_zero_argument_super_in_a_branch():
    assert autograph.to_graph(Child().value)(3) == 8
    assert "super(__class__, self)" in autograph.to_code(Child.value)


def test_assigned_list_comprehension_becomes_a_staged_loop(fake):
    def f(xs):
        v = "untouched"
        ys = [v * 2 for v in xs if v > 1]
        return ys, v

    code = autograph.to_code(f)
    assert "ys = []" in code and "ag__.for_stmt(xs" in code
    assert autograph.to_graph(f)([1, 2, 3]) == ([4, 6], "untouched")
    ys, v = autograph.to_graph(f)(Sym([1, 2, 3]))
    assert unwrap(ys) == [4, 6] and v == "untouched"


def test_other_comprehensions_stay_python():
    def f(xs):
        return {k: [v for v in range(k)] for k in xs}

    assert autograph.to_graph(f)([1, 2]) == {1: [0], 2: [0, 1]}
