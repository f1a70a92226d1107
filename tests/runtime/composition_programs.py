"""The callee and helpers the composition tests share (test_composition.py: the matrix;
test_composition_rules.py: the callee's own rules across the boundary)."""

from __future__ import annotations

import threading

import numpy as np

import runtime as rt

W = rt.Variable(np.array([0.5, -1.0, 2.0]), name="W")
SPEC = rt.TensorSpec([3], rt.float64)
POSITIVE = np.array([0.3, -0.7, 1.1])  # the tensor `if` takes its true branch, 2 loop trips
NEGATIVE = np.array([-1.0, 0.2, -0.4])  # the false branch, 1 loop trip


def body(x, w=None):
    """The callee written as plain Python: a tensor `if`, a `while` whose trip count the data
    decides, and a variable read."""
    y = x * (W if w is None else w)
    if rt.reduce_sum(y) > 0.0:
        y = rt.sin(y) * x
    else:
        y = y * y
    n = rt.constant(0)
    while n < rt.cast(rt.reduce_sum(rt.abs(x)), rt.int32):
        y = y * 0.9 + rt.tanh(y)
        n += 1
    return rt.reduce_sum(y * y)


class Model:
    """A decorated method reading a variable of its object (and a Python float attribute)."""

    def __init__(self):
        self.w = W
        self.scale = 1.0

    @rt.function
    def predict(self, x):
        return body(x, self.w) * self.scale


def tape_outside(h, w, x):
    x = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = h(x)
    return [y.numpy(), *(g.numpy() for g in tape.gradient(y, [x, w]))]


def in_threads(work, count) -> None:
    """Runs work(0) ... work(count - 1) at once, each in a thread; raises what they raised."""
    errors = []

    def guarded(k):
        try:
            work(k)
        except Exception as e:  # noqa: BLE001 - raised below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:2]


@rt.custom_gradient
def hundredfold_gradient(x):
    def grad(dy):
        return dy * 100.0

    return x * 1.0, grad


def uses_custom(x):
    return rt.reduce_sum(hundredfold_gradient(x) * x)
