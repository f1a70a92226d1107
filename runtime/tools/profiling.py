"""`rt.profile(f, *args)`: where the time of a compiled call goes, by op and by the user's line.

It times the call as the user makes it (the concrete function on its executor: the median of
many calls), then runs the same optimized graph op by op on numpy's kernels (whatever the
executor), timing each (inside graph `if`s and loops too, every iteration), and reports the ops
and the user's source lines that made them, slowest first, with each one's share. The op-by-op
run adds a little time per op, so the shares say where the time goes, and the difference between
the compiled call and the sum of the kernels says how much is call overhead (binding, the
executor's Python, packing the results) where the kernels are short.
"""

from __future__ import annotations

import collections
import statistics
import time
from collections.abc import Callable
from typing import Any, cast

from runtime import nest
from runtime.core.tensor import EagerTensor, normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.executor.interpreter import op_results
from runtime.ops.registry import PLACEHOLDER
from runtime.tracing.function import Function
from runtime.tracing.signature import is_tensor_leaf


class Profile:
    """The report (`str()` of it). `call_us`: the median compiled call; `ops`: rows (op type, op
    name, user line, runs, µs per call) slowest first; `lines`: (user line, µs per call) slowest
    first; `kernels_us`: their sum; `executor`: the executor that ran the call."""

    def __init__(self, name, executor, call_us, ops, lines, calls):
        self.name, self.executor, self.call_us, self.calls = name, executor, call_us, calls
        self.ops, self.lines = ops, lines
        self.kernels_us = sum(row[4] for row in ops)

    def __str__(self) -> str:
        total = max(self.kernels_us, 1e-9)
        out = [f"rt.profile: {self.name} on {self.executor}: {self.call_us:,.1f} µs "
               f"a call (median of {self.calls:,} calls); run op by op, its ops take "
               f"{self.kernels_us:,.1f} µs: {_overhead(self.call_us, self.kernels_us)}.",
               "", "by source line:"]
        for where, us in self.lines[:15]:
            out.append(f"  {us:10,.1f} µs {100 * us / total:5.1f}%  {where}")
        out += ["", "by op:"]
        for kind, name, where, runs, us in self.ops[:20]:
            own = " (its own control, without its ops)" if kind in ("If", "While") else ""
            out.append(f"  {us:10,.1f} µs {100 * us / total:5.1f}%  {kind} {name}{own} "
                       f"(x{runs:g} a call)  {where}")
        if len(self.ops) > 20:
            out.append(f"  ... {len(self.ops) - 20} more ops")
        return "\n".join(out)

    __repr__ = __str__


def _overhead(call_us, kernels_us) -> str:
    rest = call_us - kernels_us
    if kernels_us > 1.2 * call_us:
        return ("more than the compiled call, which runs small ops inline instead of one call "
                "each: read the shares, not the µs")
    if rest < 0.1 * call_us:
        return "about the compiled call's time: the call adds little around them"
    return f"the rest of the call ({rest:,.1f} µs, {100 * rest / call_us:.0f}%) is call overhead"


def profile(f: Callable[..., Any], *args: Any, min_time: float = 0.2, **kwargs: Any) -> Profile:
    """Profiles `f` (an `rt.function`, or a Python function: decorated with the defaults) on
    these arguments: its traced graph for them runs as a call would, then op by op."""
    function = f if isinstance(f, Function) else Function(f)
    concrete = function.get_concrete_function(*args, **kwargs)
    call_us, calls = _median_call_us(lambda: function(*args, **kwargs), min_time)
    values = [cast(EagerTensor, convert_to_tensor(a))._value for a in nest.flatten((args, kwargs))
              if is_tensor_leaf(a)]
    timer = _OpTimer()
    runs = 0
    deadline = time.perf_counter() + min_time
    while runs < 3 or time.perf_counter() < deadline:
        timer.run(concrete.graph, values)
        runs += 1
    ops: list = []
    lines: collections.defaultdict[str, float] = collections.defaultdict(float)
    for op, (count, ns) in timer.times.items():
        us = ns / 1e3 / runs
        where = _where(op)
        ops.append((op.type, op.name, where, count / runs, us))
        lines[where] += us
    ops.sort(key=lambda row: -row[4])
    executor = concrete.executor
    return Profile(function.__name__, executor, call_us, ops,
                   sorted(lines.items(), key=lambda item: -item[1]), calls)


def _median_call_us(call, min_time):
    call()  # warm (a first call may compile)
    samples, deadline = [], time.perf_counter() + min_time
    while len(samples) < 5 or time.perf_counter() < deadline:
        batch = max(1, min(1000, int(len(samples) ** 1.5) + 1))
        start = time.perf_counter_ns()
        for _ in range(batch):
            call()
        samples.append((time.perf_counter_ns() - start) / batch / 1e3)
    return statistics.median(samples), len(samples)


def _where(op) -> str:
    origin = op.origin
    if origin is None:
        return "(made by the library: no user line)"
    return f"{origin.filename}:{origin.lineno}  {origin.text.strip()}"


class _OpTimer:
    """Runs a graph op by op (as the reference interpreter does), timing each op's own work: a
    graph `if`'s or loop's time is its sub-graphs' ops, plus its own control."""

    def __init__(self):
        self.times: dict = collections.defaultdict(lambda: [0, 0])  # op -> [runs, ns]
        self._inner_ns = 0  # time of the ops run inside the current control-flow op

    def run(self, graph, inputs) -> list:
        env = {id(p): v for p, v in zip(graph.inputs, inputs)}
        for op in graph.operations:
            if op.opdef is not PLACEHOLDER:
                self._run_op(op, env)
        return [env[id(t)] for t in graph.outputs]

    def _run_op(self, op, env) -> None:
        args = [env[id(t)] for t in op.inputs]
        inner_before = self._inner_ns
        start = time.perf_counter_ns()
        results = op_results(op, args, self.run)
        elapsed = time.perf_counter_ns() - start
        inner = self._inner_ns - inner_before  # (the ops of its sub-graphs, counted there)
        entry = self.times[op]
        entry[0] += 1
        entry[1] += elapsed - inner
        self._inner_ns = inner_before + elapsed
        for tensor, value in zip(op.outputs, results):
            env[id(tensor)] = normalize(value)
