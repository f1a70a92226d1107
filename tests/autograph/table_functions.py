"""Small functions covering every construct autograph converts (the three-way table).

Each works on plain Python/numpy values (the oracle) and on tensors. `CASES` lists
(function, arguments) pairs; arguments are numpy values.
"""
import numpy as np

f32 = np.float32


# ---- if / elif / else ---------------------------------------------------------------------------
def relu(x):
    if x > 0:
        return x
    else:
        return 0 * x


def sign(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


def if_no_else(x):
    y = x
    if x > 3:
        y = x * 2
    return y


def if_assigns_both(x):
    if x > 0:
        y = x + 1
    else:
        y = x - 1
    return y


def if_two_vars(x):
    a = x
    b = x * 2
    if a > 2:
        a = a + 10
        b = b - 1
    else:
        b = b + 100
    return a + b


def nested_if(x, y):
    if x > 0:
        if y > 0:
            z = x + y
        else:
            z = x - y
    else:
        if y > 0:
            z = y - x
        else:
            z = -x - y
    return z


def early_return(x):
    if x > 5:
        return x * 2
    y = x + 1
    return y * 3


def early_return_nested(x, y):
    if x > 0:
        if y > 0:
            return x + y
    return x - y


def return_in_elif(x):
    if x < 0:
        return -x
    elif x < 10:
        y = x * 2
    else:
        return x + 100
    return y + 1


def augassign_in_branch(x):
    total = 1
    if x > 2:
        total += x
    else:
        total *= 3
    return total


def if_chain_elif(x):
    if x == 0:
        r = 10
    elif x == 1:
        r = 20
    elif x == 2:
        r = 30
    else:
        r = 40
    return r


def float_if(x):
    if x > 0.5:
        x = x * 2.0
    else:
        x = x - 1.0
    return x


# ---- boolean operators, comparisons, conditional expressions -----------------------------------
def and_or(x, y):
    if x > 0 and y > 0:
        return x + y
    if x > 0 or y > 0:
        return x - y
    return x * y


def not_op(x):
    if not x > 3:
        return x + 1
    return x - 1


def chained_compare(x):
    if 0 < x < 10:
        return x * 2
    return x


def if_exp(x):
    return x * 2 if x > 1 else x - 5


def nested_if_exp(x):
    return 1 if x > 5 else (2 if x > 0 else 3)


def bool_value(x, y):
    b = x > 2 and y > 2
    if b:
        return 1
    return 0


def short_circuit_div(x, y):
    if y != 0 and x // y > 2:
        return 1
    return 0


def or_three(x):
    if x == 1 or x == 3 or x == 5:
        return 10
    return 20


# ---- while ---------------------------------------------------------------------------------------
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def while_sum(n):
    i = 0
    total = 0
    while i < n:
        total += i
        i += 1
    return total


def while_break(n):
    i = 0
    while i < 100:
        if i * i > n:
            break
        i += 1
    return i


def while_continue(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        total += i
    return total


def while_return(n):
    i = 0
    while i < n:
        if i * i > 20:
            return i
        i += 1
    return -1


def while_else(n):
    i = 0
    found = 0
    while i < n:
        if i == 7:
            found = 1
            break
        i += 1
    else:
        found = 2
    return found * 100 + i


def nested_while(n):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


def while_float(x):
    steps = 0
    while x > 1.0:
        x = x / 2.0
        steps += 1
    return steps


def newton_sqrt(a):
    y = a
    while abs(y * y - a) > 1e-3:
        y = (y + a / y) / 2.0
    return y


def while_two_conditions(n):
    i = 0
    j = 100
    while i < n and j > 50:
        i += 2
        j -= 3
    return i + j


def while_break_and_continue(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        if total > 20:
            break
        total += i
    return total


def while_temp_var(n):
    i = 0
    acc = 0
    while i < n:
        t = i * 2
        acc += t
        i += 1
    return acc


# ---- for -----------------------------------------------------------------------------------------
def for_range(n):
    total = 0
    for i in range(n):
        total += i
    return total


def for_range_start_stop_step(n):
    total = 0
    for i in range(1, n, 2):
        total += i * i
    return total


def for_python_range(x):
    total = x
    for i in range(4):
        total = total * 2 + i
    return total


def for_over_array(xs):
    total = 0.0
    for x in xs:
        total += x
    return total


def for_break(n):
    total = 0
    for i in range(n):
        if total > 10:
            break
        total += i
    return total


def for_continue(n):
    total = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        total += i
    return total


def for_return(n):
    for i in range(n):
        if i * 3 > 10:
            return i
    return -1


def for_else(n):
    hit = 0
    for i in range(n):
        if i == 5:
            hit = 1
            break
    else:
        hit = 2
    return hit


def nested_for(n):
    total = 0
    for i in range(n):
        for j in range(i):
            total += i * j
    return total


def for_over_list(x):
    total = x
    for k in [1, 2, 3]:
        total = total + k
    return total


def for_enumerate(x):
    total = x
    for i, k in enumerate([5, 6, 7]):
        total = total + i * k
    return total


def for_zip(x):
    total = x
    for a, b in zip([1, 2, 3], [4, 5, 6]):
        total = total + a * b
    return total


def for_dict(x):
    total = x
    for _key, value in {"a": 1, "b": 2}.items():
        total = total + value
    return total


def for_target_after_loop(n):
    i = -1
    for i in range(n):  # noqa: B007 - the target is the result
        pass
    return i


def for_over_array_max(xs):
    best = xs[0]
    for x in xs:
        if x > best:
            best = x
    return best


def for_count_positive(xs):
    count = 0
    for x in xs:
        if x > 0:
            count += 1
    return count


def for_while_mix(n):
    total = 0
    for i in range(n):
        j = i
        while j > 0:
            total += 1
            j -= 2
    return total


def for_return_nested_loop(n):
    for i in range(n):
        for j in range(n):
            if i * j > 6:
                return i * 10 + j
    return -1


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


def i32(v):
    return np.int32(v)


CASES = [
    (relu, [(i32(3),), (i32(-2),)]),
    (sign, [(i32(3),), (i32(-2),), (i32(0),)]),
    (if_no_else, [(i32(5),), (i32(1),)]),
    (if_assigns_both, [(i32(5),), (i32(-5),)]),
    (if_two_vars, [(i32(5),), (i32(1),)]),
    (nested_if, [(i32(1), i32(2)), (i32(1), i32(-2)), (i32(-1), i32(2)), (i32(-1), i32(-2))]),
    (early_return, [(i32(6),), (i32(2),)]),
    (early_return_nested, [(i32(1), i32(2)), (i32(1), i32(-2)), (i32(-1), i32(2))]),
    (return_in_elif, [(i32(-3),), (i32(3),), (i32(30),)]),
    (augassign_in_branch, [(i32(5),), (i32(1),)]),
    (if_chain_elif, [(i32(0),), (i32(1),), (i32(2),), (i32(7),)]),
    (float_if, [(f32(0.75),), (f32(0.25),)]),
    (and_or, [(i32(1), i32(2)), (i32(1), i32(-2)), (i32(-1), i32(-2))]),
    (not_op, [(i32(1),), (i32(5),)]),
    (chained_compare, [(i32(5),), (i32(50),), (i32(-1),)]),
    (if_exp, [(i32(5),), (i32(0),)]),
    (nested_if_exp, [(i32(6),), (i32(1),), (i32(-1),)]),
    (bool_value, [(i32(3), i32(3)), (i32(3), i32(1))]),
    (short_circuit_div, [(i32(9), i32(2)), (i32(9), i32(0))]),
    (or_three, [(i32(3),), (i32(4),)]),
    (collatz, [(i32(27),), (i32(1),)]),
    (while_sum, [(i32(10),), (i32(0),)]),
    (while_break, [(i32(30),)]),
    (while_continue, [(i32(10),)]),
    (while_return, [(i32(10),), (i32(3),)]),
    (while_else, [(i32(10),), (i32(5),)]),
    (nested_while, [(i32(5),)]),
    (while_float, [(f32(100.0),)]),
    (newton_sqrt, [(f32(2.0),), (f32(9.0),)]),
    (while_two_conditions, [(i32(10),), (i32(40),)]),
    (while_break_and_continue, [(i32(20),)]),
    (while_temp_var, [(i32(6),)]),
    (for_range, [(i32(10),), (i32(0),)]),
    (for_range_start_stop_step, [(i32(10),)]),
    (for_python_range, [(i32(1),)]),
    (for_over_array, [(np.array([1.0, 2.5, 3.0], np.float32),)]),
    (for_break, [(i32(10),)]),
    (for_continue, [(i32(10),)]),
    (for_return, [(i32(10),), (i32(3),)]),
    (for_else, [(i32(10),), (i32(3),)]),
    (nested_for, [(i32(5),)]),
    (for_over_list, [(i32(1),)]),
    (for_enumerate, [(i32(1),)]),
    (for_zip, [(i32(1),)]),
    (for_dict, [(i32(1),)]),
    (for_target_after_loop, [(i32(5),)]),
    (for_over_array_max, [(np.array([3, 9, 2, 7], np.int32),)]),
    (for_count_positive, [(np.array([3, -9, 2, -7, 1], np.int32),)]),
    (for_while_mix, [(i32(6),)]),
    (for_return_nested_loop, [(i32(5),), (i32(2),)]),
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
