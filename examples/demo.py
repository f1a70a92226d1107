"""A two-minute tour: `python examples/demo.py`.

Runs one function eagerly and as a graph, and prints the converted code, the graph and the
Python the executor compiled it into.
"""

from __future__ import annotations

import timeit

import autograph
import runtime as rt


def collatz_steps(n):
    """How many Collatz steps take `n` to 1: a `while` with an `if` inside, over tensors."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def _time_us(fn, *args) -> float:
    number = 200
    return min(timeit.repeat(lambda: fn(*args), number=number, repeat=5)) / number * 1e6


def main() -> None:
    n = rt.constant(27)
    graph_fn = rt.function(collatz_steps)
    eager_result = autograph.to_graph(collatz_steps)(n)
    graph_result = graph_fn(n)
    print(f"eager:  collatz_steps({n.numpy()}) = {eager_result!r}")
    print(f"graph:  collatz_steps({n.numpy()}) = {graph_result!r}")

    print("\n--- autograph.to_code(collatz_steps) ---")
    print(autograph.to_code(collatz_steps))
    concrete = graph_fn.get_concrete_function(n)
    print("--- the graph ---")
    print(concrete.graph)
    print("\n--- the Python the executor compiled the graph into ---")
    print(concrete.graph.to_python())

    eager_us = _time_us(autograph.to_graph(collatz_steps), n)
    graph_us = _time_us(graph_fn, n)
    python_us = _time_us(collatz_steps, 27)
    print(f"time per call: eager {eager_us:,.0f} µs, graph {graph_us:,.1f} µs, "
          f"plain Python ints {python_us:,.1f} µs")


if __name__ == "__main__":
    main()
