"""Canonical functions whose converted code is golden-tested (test_api_to_code.py)."""


def simple_relu(x):
    if x > 0:
        return x
    else:
        return 0


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def sum_positive(xs):
    total = 0
    for x in xs:
        if x < 0:
            continue
        total += x
    return total


def first_square_above(n, limit):
    i = 0
    while i < n:
        if i * i > limit:
            break
        i += 1
    return i


def early_return(x):
    if x > 0:
        return x
    y = x * 2
    return y
