"""Three-way table, part 2: `while` and `for` loops with break / continue / return / else
(see table_functions.py)."""
import numpy as np
from golden_functions import collatz  # the same function is golden-tested
from numpy import float32 as f32
from numpy import int32 as i32


# ---- while ---------------------------------------------------------------------------------------
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


CASES = [
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
]
