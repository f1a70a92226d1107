"""Small functions covering every construct autograph converts (the three-way table).

Each works on plain Python/numpy values (the oracle) and on tensors. `CASES` lists
(function, arguments) pairs; arguments are numpy values. Branches and loops are in
table_branches.py and table_loops.py; lists, builtins and calls are here.
"""
import numpy as np
import table_branches
import table_loops
from numpy import float32 as f32
from numpy import int32 as i32


# ---- lists, builtins, calls ----------------------------------------------------------------------
def list_append_loop(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return out


def list_append_python(x):
    out = []
    for i in range(3):
        out.append(x + i)
    return out


def helper(a, b):
    if a > b:
        return a - b
    return b - a


def calls_helper(x, y):
    return helper(x, y) + helper(y, 1)


def calls_lambda(x):
    f = lambda v: v * 2 if v > 0 else -v
    return f(x) + f(x - 10)


def nested_def(x):
    def inner(v):
        if v > 2:
            return v - 2
        return v + 2

    return inner(x) * inner(x + 3)


def closure_counter(n):
    k = 3

    def add_k(v):
        return v + k

    total = 0
    for _ in range(n):
        total = add_k(total)
    return total


def builtin_abs_max_min(x, y):
    return abs(x - y) + max(x, y) - min(x, y)


def builtin_len(xs):
    return len(xs) * 2


def default_argument(x, k=3):
    if x > k:
        return x
    return k


class Accumulator:
    def __init__(self, start):
        self.start = start

    def run(self, n):
        total = self.start
        for i in range(n):
            if i % 2 == 0:
                total += i
        return total


def method_call(n):
    return Accumulator(5).run(n)


def assert_positive(x):
    assert x > 0, "x must be positive"
    return x * 2


def tuple_return(x):
    if x > 0:
        a, b = x, x * 2
    else:
        a, b = -x, 0 * x
    return a, b


def recursion_free_fib(n):
    a = 0
    b = 1
    for _ in range(n):
        a, b = b, a + b
    return a


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def is_prime(n):
    if n < 2:
        return 0
    i = 2
    while i * i <= n:
        if n % i == 0:
            return 0
        i += 1
    return 1


def count_primes(n):
    count = 0
    for k in range(n):
        if is_prime(k) == 1:
            count += 1
    return count


def digits_sum(n):
    total = 0
    while n > 0:
        total += n % 10
        n = n // 10
    return total


def while_true_break(x, limit):
    i = 0
    total = 0.0
    while True:
        total += x
        i += 1
        if total > limit:
            break
    return i, total


def fizz_sum(n):
    s = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            s += 15
        elif i % 5 == 0:
            s += 5
        elif i % 3 == 0:
            s += 3
        else:
            continue
    return s


def comprehension_filter(xs):
    ys = [x * 3 for x in xs if x % 2 == 1]
    return ys


CASES = table_branches.CASES + table_loops.CASES + [
    (list_append_loop, [(i32(5),)]),
    (list_append_python, [(i32(5),)]),
    (calls_helper, [(i32(5), i32(2)), (i32(1), i32(4))]),
    (calls_lambda, [(i32(5),), (i32(-3),)]),
    (nested_def, [(i32(1),), (i32(5),)]),
    (closure_counter, [(i32(4),)]),
    (builtin_abs_max_min, [(i32(5), i32(2)), (i32(-1), i32(4))]),
    (builtin_len, [(np.array([1, 2, 3], np.int32),)]),
    (default_argument, [(i32(5),), (i32(1),)]),
    (method_call, [(i32(6),)]),
    (assert_positive, [(i32(5),)]),
    (tuple_return, [(i32(5),), (i32(-5),)]),
    (recursion_free_fib, [(i32(10),)]),
    (gcd, [(i32(48), i32(18))]),
    (count_primes, [(i32(20),)]),
    (digits_sum, [(i32(12345),)]),
    (while_true_break, [(f32(1.5), f32(10.0))]),
    (fizz_sum, [(i32(20),)]),
    (comprehension_filter, [(np.array([1, 2, 3, 5], np.int32),)]),
]
