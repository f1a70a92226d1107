"""rt.profile: the time of a compiled call by op and by the user's line (issue 30)."""

import numpy as np
import pytest

import runtime as rt


@rt.function
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def layer(x, w):
    h = rt.relu(x @ w)
    return rt.reduce_sum(h * h)


def test_a_matmul_dominates_and_lines_are_the_users():
    x = rt.constant(np.ones((128, 128), np.float32))
    report = rt.profile(layer, x, x, min_time=0.05)
    kinds = [row[0] for row in report.ops]
    assert kinds[0] == "MatMul" and set(kinds) == {"MatMul", "Relu", "Mul", "Sum"}
    assert all(row[3] == 1 for row in report.ops)  # each op runs once a call
    assert report.lines[0][0].endswith("h = rt.relu(x @ w)")
    assert "test_profiling.py:" in report.lines[0][0]
    assert abs(sum(us for _, us in report.lines) - report.kernels_us) < 1e-6
    text = str(report)
    assert text.startswith("rt.profile: layer on the default executor (numpy code):")
    assert "by source line:" in text and "MatMul" in text


def test_control_flow_counts_every_iteration():
    report = rt.profile(collatz_steps, rt.constant(27), min_time=0.05)
    runs = {row[0]: row[3] for row in report.ops}
    assert runs["While"] == 1 and runs["If"] == 111 and runs["FloorDiv"] == 70
    assert runs["Mul"] == 41  # 27 takes 111 steps: 70 halvings, 41 times 3n + 1
    lines = [where for where, _ in report.lines]
    assert any(line.endswith("while n != 1:") for line in lines)
    assert "its own control" in str(report)


def test_other_executors_are_named():
    pytest.importorskip("jax")
    f = rt.function(layer, jit_compile="xla")
    x = rt.constant(np.ones((8, 8), np.float32))
    report = rt.profile(f, x, x, min_time=0.01)
    assert "on XLA (through JAX)" in str(report)
    assert {row[0] for row in report.ops} == {"MatMul", "Relu", "Mul", "Sum"}
