"""Golden `to_code` output for golden_functions.py (readable, deterministic)."""

GOLDEN = {
    "simple_relu": """\
def simple_relu(x):

    def if_true():
        return x

    def if_false():
        return 0
    return ag__.if_stmt(x > 0, if_true, if_false)
""",
    "collatz": """\
def collatz(n):
    steps = 0

    def loop_test(n, steps):
        return n != 1

    def loop_body(n, steps):

        def if_true(n):
            n = n // 2
            return n

        def if_false(n):
            n = 3 * n + 1
            return n
        n = ag__.if_stmt(n % 2 == 0, if_true, if_false, (n,), ('n',))
        steps += 1
        return (n, steps)
    n, steps = ag__.while_stmt(loop_test, loop_body, (n, steps), ('n', 'steps'))
    return steps
""",
    "sum_positive": """\
def sum_positive(xs):
    total = 0

    def loop_body(x, total):

        def if_true(total):
            return total

        def if_false(total):
            total += x
            return total
        total = ag__.if_stmt(x < 0, if_true, if_false, (total,), ('total',))
        return total
    total = ag__.for_stmt(xs, loop_body, (total,), ('total',))
    return total
""",
    "first_square_above": """\
def first_square_above(n, limit):
    i = 0
    break_ = False

    def loop_test(i, break_):
        return ag__.and_cond(ag__.not_(break_), lambda: i < n)

    def loop_body(i, break_):

        def if_true(i, break_):
            break_ = True
            return (i, break_)

        def if_false(i, break_):
            i += 1
            return (i, break_)
        i, break_ = ag__.if_stmt(i * i > limit, if_true, if_false, (i, break_), ('i', 'break_'))
        return (i, break_)
    i, break_ = ag__.while_stmt(loop_test, loop_body, (i, break_), ('i', 'break_'))
    return i
""",
    "early_return": """\
def early_return(x):

    def if_true():
        return x

    def if_false():
        y = x * 2
        return y
    return ag__.if_stmt(x > 0, if_true, if_false)
""",
}
