"""Effects inside differentiated graph `if`s and loops: random numbers the forward pass drew are
the ones the gradient uses; prints run once; variables the gradient would read after they
changed are refused at the assignment's line."""

import re

import numpy as np
import pytest
from test_gradients import _central_differences

import runtime as rt


def noisy_loop(x, n):
    """y <- sin(y) * noise for n steps, with fresh noise each step; also returns the noise."""
    noises = []
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in rt.range(n):
            noise = rt.random.uniform([3], 0.5, 1.5, dtype=rt.float64)
            noises.append(noise)
            y = rt.sin(y) * noise
        loss = rt.reduce_sum(y * y)
    return loss, tape.gradient(loss, x), noises


def _replayed(x, noises):
    """The loss of noisy_loop with the given noise, as a function of x (plain numpy)."""
    y = x
    for noise in noises:
        y = np.sin(y) * noise
    return np.sum(y * y)


def test_a_differentiated_loop_keeps_the_random_numbers_it_drew(tmp_path):
    f = rt.function(noisy_loop)
    x = np.array([0.3, -0.7, 1.1])
    for n in (0, 1, 4):
        f(rt.constant(x), rt.constant(n))
    rt.saved.save(f, tmp_path / "saved")
    loaded = rt.saved.load(tmp_path / "saved")
    for n, run in [(0, f), (1, f), (4, f), (4, loaded)]:  # zero trips too; saved and loaded
        loss, grad, noises = run(rt.constant(x), rt.constant(n))
        noises = [v.numpy() for v in noises]
        assert len(noises) == n
        np.testing.assert_allclose(loss.numpy(), _replayed(x, noises), rtol=1e-12)
        numeric = _central_differences(lambda v, drawn=noises: _replayed(v[0], drawn), [x])[0]
        np.testing.assert_allclose(grad.numpy(), numeric, rtol=1e-6, atol=1e-9)


def noisy_branch(x, c):
    with rt.GradientTape() as tape:
        tape.watch(x)
        if c > 0:
            mask = rt.random.uniform([3], 0.0, 1.0, dtype=rt.float64)
            y = x * mask
        else:
            mask = rt.ones([3], rt.float64)
            y = x * 2.0
        loss = rt.reduce_sum(y * y)
    return loss, tape.gradient(loss, x), mask


def test_a_differentiated_if_keeps_the_random_numbers_its_branch_drew():
    f = rt.function(noisy_branch)
    x = np.array([0.3, -0.7, 1.1])
    loss, grad, mask = f(rt.constant(x), rt.constant(1))
    np.testing.assert_allclose(loss.numpy(), np.sum((x * mask.numpy()) ** 2), rtol=1e-12)
    np.testing.assert_allclose(grad.numpy(), 2 * x * mask.numpy() ** 2, rtol=1e-12)
    loss, grad, _ = f(rt.constant(x), rt.constant(-1))
    np.testing.assert_allclose(grad.numpy(), 8 * x, rtol=1e-12)


def test_random_numbers_in_an_if_nested_in_a_differentiated_loop_are_refused_at_their_line():
    def nested(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):
                if rt.reduce_sum(y) > 0.0:
                    y = y * rt.random.uniform([3], 0.5, 1.5, dtype=rt.float64)
                else:
                    y = y * 0.5
        return tape.gradient(y, x)

    with pytest.raises(rt.errors.NoGradientError,
                       match=r"draw other random numbers[\s\S]*test_gradients_with_effects.py"):
        rt.function(nested)(rt.constant(np.ones(3)), rt.constant(2))


def test_a_print_in_an_if_nested_in_a_differentiated_loop_runs_once(capfd):
    def nested(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):
                if rt.reduce_sum(y) > 4.0:
                    rt.print("big")
                    y = y * 0.5
                else:
                    y = y * 3.0
        return tape.gradient(y, x)

    grad = rt.function(nested)(rt.constant(np.ones(3)), rt.constant(2))
    np.testing.assert_allclose(grad.numpy(), [1.5, 1.5, 1.5])  # y = x * 3, then y * 0.5
    assert capfd.readouterr().out.count("big") == 1  # once, in the forward loop


def test_a_variable_assigned_inside_or_after_a_differentiated_loop_is_refused_at_its_line():
    v = rt.Variable(1.0)

    def assigned_inside(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):
                if y > 0.0:
                    v.assign_add(1.0)
                    y = y * v.read_value()
        return tape.gradient(y, x)

    def assigned_after(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):
                y = y * v.read_value()
            v.assign(5.0)
        return tape.gradient(y, x)

    def read_before(x, n):
        w = v.read_value()
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in rt.range(n):
                y = y * w
            v.assign(5.0)
        return tape.gradient(y, x)

    for fn, line in ((assigned_inside, "v.assign_add(1.0)"), (assigned_after, "v.assign(5.0)")):
        v.assign(1.0)
        with pytest.raises(rt.errors.NoGradientError,
                           match=rf"would read the assigned value[\s\S]*{re.escape(line)}"):
            rt.function(fn)(rt.constant(1.0), rt.constant(2))
    v.assign(3.0)
    assert rt.function(read_before)(rt.constant(1.0), rt.constant(2)).numpy() == 9.0
