"""`rt.explain(f, *args)`: one readable report of what `rt.function` does with `f` for these
arguments.

For each line of `f`'s source: what its `if` / `while` / `for` became (a graph construct, or
Python control flow that ran while tracing: loops unrolled into the graph, branches decided),
and the graph ops the line made; then the Python values `f` reads from outside (globals and
closures: baked into the graph as constants, or variables read when it runs); where the graph
runs (the executor of `jit_compile`; for "auto", where it runs now and why, and for the default
executor whether "auto" could move it to numba); then the time of each phase of the first call
(convert, trace, passes, compile, first run).
"""

from __future__ import annotations

import collections
import importlib.util
import inspect
import textwrap
import time
import types
from collections.abc import Callable
from typing import Any

import numpy as np

import autograph
from autograph.conversion import convert_function
from runtime.core.tensor import Tensor
from runtime.errors import NoLoweringError
from runtime.executor import numba_exactness, python_floats
from runtime.executor import registry as executors
from runtime.ops.registry import PLACEHOLDER
from runtime.passes import run_passes
from runtime.tracing import capture_guards as guarding
from runtime.tracing.function import Function
from runtime.tracing.signature import leaf_str
from runtime.variables import Variable


class Explanation:
    """The report (`str()` of it); `decisions`, `calls`, `ops_by_line` and `phases_ms` hold its
    data."""

    def __init__(self, title, lines, decisions, ops_by_line, captured, phases_ms, calls=None,
                 runs_on=""):
        self.title = title
        self.runs_on = runs_on
        self.lines = lines  # [(line number, source text)]
        self.decisions = decisions
        self.calls = calls or {}  # line -> what each traced function called there became
        self.ops_by_line = ops_by_line
        self.captured = captured
        self.phases_ms = phases_ms

    def __str__(self) -> str:
        width = max((len(text) for _, text in self.lines), default=0) + 2
        out = [self.title, ""]
        for lineno, text in self.lines:
            what = _describe_decisions(self.decisions.get(lineno, []))
            calls = "; ".join(self.calls.get(lineno, []))
            ops = _describe_ops(self.ops_by_line.get(lineno, collections.Counter()))
            notes = "; ".join(part for part in (what, calls, ops) if part)
            out.append(f"{lineno:5}  {text:<{width}}{notes}".rstrip())
        out.append("")
        out.append("Reads from outside: " + (", ".join(self.captured) or "nothing"))
        if self.runs_on:
            out.append("Runs on: " + self.runs_on)
        out.append("First call (ms): " + ", ".join(f"{name} {ms:.2f}"
                                                  for name, ms in self.phases_ms.items()))
        return "\n".join(out)

    __repr__ = __str__


def explain(f: Callable[..., Any], *args: Any, **kwargs: Any) -> Explanation:
    """Traces `f` (a Python function or an `rt.function`) for these arguments, as a first call
    of `rt.function(f)` would, and reports what happened (see the module doc)."""
    original = f if isinstance(f, Function) else None
    fn = original.python_function if original is not None else f
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"rt.explain takes a Python function or an rt.function, got "
                        f"{type(f).__name__}.")
    autograph_on = original.options.autograph if original is not None else True
    phases = {}
    start = time.perf_counter()
    if autograph_on:
        convert_function(fn)  # what a first conversion costs (rt.function caches it)
    phases["convert"] = _ms(start)

    fresh = Function(fn, input_signature=original.input_signature if original else None,
                     autograph=autograph_on, optimize=False)
    with autograph.record_decisions() as recorded:
        start = time.perf_counter()
        concrete = fresh.get_concrete_function(*args, **kwargs)
        traced_and_compiled = _ms(start)
    graph = concrete.traced_graph.copy()
    start = time.perf_counter()
    optimized = run_passes(graph, True)
    phases["passes"] = _ms(start)
    start = time.perf_counter()
    python_floats.compile_graph(optimized)
    phases["compile"] = _ms(start)
    phases["trace"] = max(traced_and_compiled - phases["compile"], 0.0)
    start = time.perf_counter()
    concrete(*args, **kwargs)
    phases["first run"] = _ms(start)
    phases = {name: phases[name] for name in ("convert", "trace", "passes", "compile",
                                              "first run")}

    source, first = inspect.getsourcelines(fn)
    filename = inspect.getsourcefile(fn)
    text = textwrap.dedent("".join(source)).splitlines()
    lines = [(first + i, line) for i, line in enumerate(text)]
    decisions = collections.defaultdict(list)
    for decision in recorded:
        if decision.origin is not None and decision.origin.filename == filename:
            decisions[decision.origin.lineno].append(decision)
    ops_by_line: collections.defaultdict[int, collections.Counter] = collections.defaultdict(
        collections.Counter)
    _count_ops(concrete.traced_graph, filename, ops_by_line)
    calls = collections.defaultdict(list)
    for lineno, text in _inlined_calls(concrete.traced_graph, filename):
        calls[lineno].append(text)
    signature = ", ".join(f"{name}: {leaf_str(value)}" for name, value in zip(
        concrete.arg_names, concrete.structured_input_signature))
    title = f"rt.explain: {fn.__qualname__}({signature})"
    guarded = original is None or original.guarded_reads is None or bool(original.guarded_reads)
    return Explanation(title, lines, dict(decisions), dict(ops_by_line),
                       _captured(fn, guarded), phases, dict(calls),
                       _runs_on(original, optimized, args, kwargs))


def _runs_on(original, optimized, args, kwargs) -> str:
    """Where the user's rt.function runs this call's graph (traced for these arguments, if it was
    not), and for the default executor whether jit_compile="auto" would move it to numba."""
    jit_compile = original.options.jit_compile if original is not None else None
    if jit_compile is not None:
        try:
            return original.get_concrete_function(*args, **kwargs).executor
        except NoLoweringError as e:  # (calling it raises this error)
            return f"none: {str(e).splitlines()[0]}"
    default = executors.place(None, optimized)
    if importlib.util.find_spec("numba") is None:
        return default
    why = numba_exactness.why_not_lowered_exactly(optimized)  # (the graph "auto" compiles)
    if why is not None:
        return (f"{default}; jit_compile='auto' would keep it there: numba would not compute it "
                f"bit for bit ({why})")
    return (f"{default}; jit_compile='auto' would move it to numba once hot, if numba computes "
            "it faster (numba computes every op bit for bit)")


def _ms(start) -> float:
    return (time.perf_counter() - start) * 1e3


def _count_ops(graph, filename, counts, inside=None) -> None:
    for op in graph.operations:
        if op.opdef is PLACEHOLDER:
            continue
        origin = op.origin
        if origin is not None and origin.filename == filename:
            counts[origin.lineno][op.type] += 1
        for sub in op.subgraphs():
            _count_ops(sub, filename, counts, op)


def _inlined_calls(graph, filename):
    """(line, description) of each call of a traced function that `graph` (or a sub-graph)
    took in: 'calls rt.function inner: its graph inlined, 3 ops: Mul, Add'."""
    for origin, name, ops in graph.inlined_calls:
        if origin is not None and origin.filename == filename:
            counts = collections.Counter()
            for op in ops:
                for inner in [op, *(o for sub in op.subgraphs() for o in sub.walk())]:
                    if inner.opdef is not PLACEHOLDER:
                        counts[inner.type] += 1
            staged = _describe_ops(counts) or "no ops"
            yield origin.lineno, f"calls the traced function '{name}': its graph inlined ({staged})"
    for op in graph.operations:
        for sub in op.subgraphs():
            yield from _inlined_calls(sub, filename)


def _describe_decisions(decisions) -> str:
    if not decisions:
        return ""
    kind = decisions[0].kind
    staged = [d for d in decisions if d.staged]
    python = [d for d in decisions if not d.staged]
    parts = []
    if staged:
        parts.append({"if": "graph If (the condition is a tensor)",
                      "while": "graph While loop (the condition is a tensor)",
                      "for": "graph While loop (it iterates over a tensor)"}[kind]
                     + (f", traced {len(staged)} times" if len(staged) > 1 else ""))
    if python:
        if kind == "if":
            parts.append("Python `if` (a Python condition), decided while tracing"
                         + (f" {len(python)} times" if len(python) > 1 else ""))
        else:
            counts = sorted({d.iterations for d in python})
            shown = "/".join(str(c) for c in counts)
            parts.append(f"Python loop, unrolled while tracing: {shown} iteration"
                         f"{'' if counts == [1] else 's'}"
                         + (f" (run {len(python)} times)" if len(python) > 1 else ""))
    return "; ".join(parts)


def _describe_ops(counts) -> str:
    """E.g. "3 ops: 2 Mul, Add" (constants are not counted)."""
    counts = collections.Counter({t: n for t, n in counts.items() if t != "Const"})
    if not counts:
        return ""
    total = sum(counts.values())
    kinds = ", ".join(f"{n} {t}" if n > 1 else t for t, n in counts.most_common())
    return f"{total} op{'s' if total > 1 else ''}: {kinds}"


def _captured(fn, guards_on: bool) -> list[str]:
    """The outside Python values `fn` reads: name, what it is, and what the graph made of it
    (numbers, strings, arrays and containers of them are guarded, unless capture_guards=False:
    a change, also in place, makes the function trace again)."""
    guarded = guarding.guarded_names(fn) if guards_on else set()
    values = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                values[name] = cell.cell_contents
            except ValueError:
                continue
    for name in fn.__code__.co_names:
        if name in fn.__globals__:
            values.setdefault(name, fn.__globals__[name])
    out = []
    for name, value in values.items():
        if isinstance(value, Variable):
            out.append(f"{name} (a variable: read when the graph runs)")
        elif isinstance(value, (Tensor, np.ndarray, np.generic, bool, int, float, str, list,
                                tuple, dict)) and not isinstance(value, type):
            kind = type(value).__name__
            article = "an" if kind[0] in "aeiou" else "a"
            later = ("the function traces again if it changes" if name in guarded
                     else "changing it later does not change the graph")
            out.append(f"{name} ({article} {kind}: a constant in the graph; {later})")
    return out
