"""What crossing a function boundary costs, as ratios timed in paired rounds:

- a decorated function calling a decorated function against the same code with a plain helper
  (one graph either way: the callee's graph is inlined), for the steady call and the first call
  (targets: <= 1.05x and <= 1.3x);
- the gradient of G2 (LSTM cell) and G5 (Newton's loop) taken by an eager tape around a call
  of the decorated forward function, against the tape inside the decorated function (<= 1.3x).
"""

from __future__ import annotations

import statistics
import time

import runtime as rt
from benchmarks import harness, workloads


def _two_lstm_steps(cell):
    def two_steps(x, h, c, kernel, recurrent_kernel, bias):
        h, c = cell(x, h, c, kernel, recurrent_kernel, bias)
        return cell(x, h, c, kernel, recurrent_kernel, bias)

    return two_steps


def _first_calls(make, args, repeats: int = 5) -> list[float]:
    """ms of the first call of `make()` (a fresh rt.function each repeat)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        make()(*args)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def _paired_ratio(a, b, args, budget) -> float:
    (a_rounds, _), (b_rounds, _) = harness.measure([(a, args), (b, args)], budget)
    return statistics.median(x / y for x, y in zip(a_rounds, b_rounds))


def _lstm_loss(x, h, c, kernel, recurrent_kernel, bias):
    h2, c2 = workloads.lstm_cell(x, h, c, kernel, recurrent_kernel, bias)
    return rt.reduce_sum(h2 * h2) + rt.reduce_sum(c2)


def _tape_around(forward, watched):
    """value and gradient by an eager tape around a call of the decorated `forward`."""
    def value_and_grad(*args):
        sources = [args[i] for i in watched]
        with rt.GradientTape() as tape:
            tape.watch(sources)
            value = forward(*args)
        return (value, *tape.gradient(value, sources))

    return value_and_grad


def composition_table(budget) -> str:
    """Markdown rows: what, ratio, target, pass/miss."""
    rows = []
    args = tuple(harness.to_rt(a) for a in workloads._lstm_args(False))

    def nested():
        cell = rt.function(harness.fresh_function(workloads.lstm_cell))
        return rt.function(harness.fresh_function(_two_lstm_steps(cell)))

    def by_hand():  # (a fresh helper too: converting it is part of both first calls)
        cell = harness.fresh_function(workloads.lstm_cell)
        return rt.function(harness.fresh_function(_two_lstm_steps(cell)))

    steady = _paired_ratio(nested(), by_hand(), args, budget)
    rows.append(("two LSTM steps: decorated cell in a decorated function / plain helper, "
                 "graph call", steady, 1.05))
    firsts = [_first_calls(nested, args, 1) + _first_calls(by_hand, args, 1)
              for _ in range(7)]  # interleaved
    first = statistics.median(a / b for a, b in firsts)
    rows.append(("the same, first call (trace + compile)", first, 1.3))

    outside = _tape_around(rt.function(_lstm_loss), [3, 4, 5])
    inside = rt.function(workloads.lstm_value_and_grad)
    rows.append(("G2 gradient: eager tape around the decorated forward / tape inside",
                 _paired_ratio(outside, inside, args, budget), 1.3))
    newton_args = tuple(harness.to_rt(a) for a in workloads._newton_args(False))
    outside = _tape_around(rt.function(workloads.newton_sqrt), [0])
    inside = rt.function(workloads.newton_sqrt_and_grad)
    rows.append(("G5 gradient: eager tape around the decorated forward / tape inside",
                 _paired_ratio(outside, inside, newton_args, budget), 1.3))
    lines = ["| composition | ratio | target | |", "|---|---:|---:|---|"]
    for what, ratio, target in rows:
        lines.append(f"| {what} | {ratio:.2f}x | <= {target}x | "
                     f"{'pass' if ratio <= target else 'MISS'} |")
    floor = _tape_floor_us(budget)
    lines.append(f"\nFor scale: an eager tape around one multiply and its gradient (no function) "
                 f"takes {floor:.1f} us here; the G5 graph with the tape inside runs in "
                 f"{_median_us(inside, newton_args, budget):.1f} us.")
    return "\n".join(lines)


def _median_us(fn, args, budget) -> float:
    ((rounds, _),) = harness.measure([(fn, args)], budget)
    return statistics.median(rounds) * 1e6


def _tape_floor_us(budget) -> float:
    x = rt.constant(3.0)

    def multiply_under_a_tape():
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)

    return _median_us(multiply_under_a_tape, (), budget)
