"""Functions whose `rt.explain` reports tests/runtime/test_explain.py keeps as golden text (their
line numbers are part of it: add new code below them)."""

import runtime as rt

SCALE = 3


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = SCALE * n + 1
        steps += 1
    return steps


def mixed(x, k):
    total = x
    for i in range(k):
        if i % 2 == 0:
            total = total * 2.0
        else:
            total = total + 1.0
    for _ in rt.range(3):
        total = total - 0.5
    return total
