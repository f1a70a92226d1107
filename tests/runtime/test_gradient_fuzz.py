"""Differential fuzzing of gradients through control flow: random programs over float64 scalars
and 3-vectors, differentiated three ways, must agree.

Each program is a module written to a file of its own (autograph needs real source) defining
`f(x, v, n)` (x: float64 scalar, v: float64 3-vector, n: int32 scalar, a loop bound 0-4) with
arithmetic (+ - * and / by `1.5 + square(.)`), rt.sin, rt.exp (of a tanh or sin), rt.tanh,
rt.square, rt.maximum, reductions (sum, mean, max, also of slices), indexing `v[j]` and
`v[i % 3]` with a loop index, `if`/`elif`/`else` on tensor conditions (nested, with `and`,
`or`, `not`), `while` loops bounded by a counter (`while i < n and s0 < 1.0:`, the counter
incremented first in the body), `for i in rt.range(n)` / `rt.range(K)` (K may be 0, so may n),
Python `range(K)` loops and `for e in <vector>`, loop `else`, `break` / `continue`, several
loop-carried scalars and vectors (and `a0 = 0.0`, a Python float that tensor code turns into a
tensor), values read from outside the loops (arguments, locals computed before them, the module
globals W and C and the rt.Variable V), and body-local temporaries. Values stay bounded: loop
bodies update their state through tanh, sin or a factor below one.

For each program and each of its inputs, the value of f and its gradients with respect to x, v
and V, three ways:

1. eager: `rt.GradientTape` around `f` called on eager tensors (Python runs the control flow);
2. graph: the same inside `rt.function` (autograph turns the tensor `if`/`while`/`for` into
   `If`/`While` ops, differentiated by runtime/autodiff/control_flow.py);
3. central finite differences (step 1e-6) of `f` run eagerly (V perturbed by `assign`).

The rule: (1) and (2) agree to rtol 1e-9 / atol 1e-12 (values and gradients), and both agree
with (3) to rtol 1e-4 (atol 1e-6 * (1 + |f|), for round-off in f) where f is smooth at the
input: the comparison is skipped when a float condition, an `rt.maximum` or an
`rt.reduce_max` is within 1e-3 of a tie (a copy of `f`, `f_probe`, records these margins). A
graph error must be an `rt.errors.Error` with a message naming the program's file, and counts
as a failure unless it matches DOCUMENTED_LIMITS.

CI runs 40 programs, the same ones every time (derandomized). More:

    GRAD_FUZZ_PROGRAMS=400 python -m pytest -q -p no:warnings tests/runtime/test_gradient_fuzz.py

GRAD_FUZZ_REPORT=FILE tallies every program instead of stopping (and shrinking) at the first
failure, writes the counts and the failures to FILE (JSON), and fails at the end if any.
GRAD_FUZZ_RANDOM=1 draws other programs on each run.
"""

from __future__ import annotations

import collections
import importlib.util
import itertools
import json
import math
import os
import re
import tempfile
import traceback

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.saved.errors import LoadError

PROGRAMS = int(os.environ.get("GRAD_FUZZ_PROGRAMS", 40))
REPORT = os.environ.get("GRAD_FUZZ_REPORT")
RANDOM = os.environ.get("GRAD_FUZZ_RANDOM") == "1"

H = 1e-6  # finite-difference step
MARGIN = 1e-3  # closer than this to a condition's threshold (or a tie): not smooth enough
SAME = {"rtol": 1e-9, "atol": 1e-12}  # eager vs graph
FD_RTOL = 1e-4

# Errors of the graph call that are documented limits, as (error class, message pattern): a
# match is counted, not failed. The generator avoids the limits of README "Status and limits"
# and control_flow.py (random ops inside a differentiated branch or body). The save -> load
# round trip that conftest.py adds to every new trace refuses a graph whose saved_function.json
# is over 16 MiB (README "Untrusted files"; rare: a program of many nested `if`s).
DOCUMENTED_LIMITS: tuple = (
    (LoadError, r"saved_function\.json holds \d+ bytes, more than the \d+ bytes this runtime "
                r"reads"),
)

# Found by this fuzzer and fixed (regression tests in test_gradients.py): a `return` inside a
# graph `if` or loop failed to trace under an open tape (rt.fill made a graph op for autograph's
# placeholder value), and the gradient of a variable read inside a graph `if` whose inputs hold
# no float tensor was lost (backprop skipped an op without a float input).


# ---- programs ---------------------------------------------------------------------------------

LITERALS = ("0.5", "-0.3", "1.2", "0.7", "-1.1", "2.0", "0.25")
FACTORS = ("0.5", "-0.6", "0.9", "0.3")  # |factor| < 1: loop-carried state stays bounded
THRESHOLDS = ("0.0", "0.5", "-0.5", "1.0", "-1.0", "2.0", "0.2")
COMPARISONS = (">", "<", ">=", "<=")
HEADER = """\
import runtime as rt

W = rt.constant([0.3, -0.5, 0.8], rt.float64)
C = 0.6
V = rt.Variable(rt.constant([0.4, -0.2, 0.9], rt.float64))
"""


def render(node, probe):
    """The source of an expression or condition node; `probe` writes the version that records
    the margins of conditions and ties (f_probe)."""
    kind = node[0]
    r = lambda n: render(n, probe)
    if kind == "t":
        return node[1]
    if kind == "bin":
        return f"({r(node[2])} {node[1]} {r(node[3])})"
    if kind == "fn":
        return f"{node[1]}({r(node[2])})"
    if kind == "div":
        return f"({r(node[1])} / (1.5 + rt.square({r(node[2])})))"
    if kind == "exp":
        return f"rt.exp({node[1]}({r(node[2])}))"
    if kind == "max":
        return f"{'_mx' if probe and node[3] else 'rt.maximum'}({r(node[1])}, {r(node[2])})"
    if kind == "red":
        name = "_rmax" if probe and node[1] == "rt.reduce_max" else node[1]
        return f"{name}({r(node[2])})"
    if kind == "idx":
        return f"{r(node[1])}[{node[2]}]"
    if kind == "cmp":
        lhs = f"_m({r(node[1])}, {node[3]})" if probe else r(node[1])
        return f"{lhs} {node[2]} {node[3]}"
    if kind in ("and", "or"):
        return f"({r(node[1])} {kind} {r(node[2])})"
    if kind == "not":
        return f"not ({r(node[1])})"
    raise AssertionError(node)


def render_block(stmts, indent, probe):
    pad = "    " * indent
    lines = []
    for stmt in stmts:
        kind = stmt[0]
        if kind == "set":
            lines.append(f"{pad}{stmt[1]} {stmt[2]} {render(stmt[3], probe)}")
        elif kind == "jump":
            lines.append(pad + stmt[1])
        elif kind == "return":
            lines.append(f"{pad}return {stmt[1]}")
        elif kind == "if":
            for k, (cond, body) in enumerate(stmt[1]):
                lines.append(f"{pad}{'if' if k == 0 else 'elif'} {render(cond, probe)}:")
                lines += render_block(body, indent + 1, probe)
            if stmt[2] is not None:
                lines.append(f"{pad}else:")
                lines += render_block(stmt[2], indent + 1, probe)
        elif kind == "while":
            _, counter, start, test, body, orelse = stmt
            lines.append(f"{pad}{counter} = {start}")
            lines.append(f"{pad}while {render(test, probe)}:")
            lines.append(f"{pad}    {counter} += 1")
            lines += render_block(body, indent + 1, probe)
        elif kind == "for":
            _, index, over, body, orelse = stmt
            lines.append(f"{pad}for {index} in {render(over, probe)}:")
            lines += render_block(body, indent + 1, probe)
        else:
            raise AssertionError(stmt)
        if kind in ("while", "for") and orelse:
            lines.append(f"{pad}else:")
            lines += render_block(orelse, indent + 1, probe)
    return lines or [pad + "pass"]


class Program:
    def __init__(self, init, body, result):
        self.init, self.body, self.result = init, body, result

    def function(self, name, probe):
        lines = [f"def {name}(x, v, n):"] + render_block(self.init + self.body, 1, probe)
        lines.append(f"    return {self.result}")
        return "\n".join(lines) + "\n"

    @property
    def source(self):
        return self.function("f", False)

    def __repr__(self):  # how hypothesis shows a falsifying example
        return "Program(\n" + self.source + ")"

    def module(self):
        return HEADER + "\n\n" + self.source + "\n\n" + self.function("f_probe", True)


class _Scope:
    """What a block may read: scalars and vectors (assignable), loop indices (ints), items of
    iterated vectors (floats, read only); whether it is inside a loop; `outside_only`: leaves
    are only the module's V and W (and loop indices)."""

    def __init__(self, scalars, vectors, indices=(), loop=False, items=(), outside_only=False):
        self.scalars, self.vectors = list(scalars), list(vectors)
        self.indices, self.loop, self.items = list(indices), loop, list(items)
        self.outside_only = outside_only

    def child(self, index=None, loop=None, item=None):
        return _Scope(self.scalars, self.vectors,
                      self.indices + ([index] if index else []),
                      self.loop if loop is None else loop,
                      self.items + ([item] if item else []))


class _Writer:
    """Draws one program; every choice shrinks towards the simplest option (listed first)."""

    def __init__(self, draw):
        self.draw = draw
        self.names = itertools.count()
        self.accumulator = False  # the program has `a0 = 0.0`
        self.result = ""  # the returned expression
        self.budget = 30  # statements

    def pick(self, options):
        return self.draw(st.sampled_from(list(options)))

    def number(self, low, high):
        return self.draw(st.integers(low, high))

    # expressions: the leftmost leaf is always a tensor, so every expression is one
    def scalar_leaf(self, scope, literal):
        if scope.outside_only:  # only what the module holds: the variable V, W, C
            options = ["V[0]", "V[2]", "W[1]"] + [f"V[{i} % 3]" for i in scope.indices]
        else:
            options = ["x", "v[0]"] + scope.scalars + scope.items + [
                "v[1]", "v[2]", "W[1]", "V[0]", "V[2]"]
            options += [f"{u}[{j}]" for u in scope.vectors for j in (0, 2)]
        for i in scope.indices:
            if not scope.outside_only:
                options += [f"v[{i} % 3]", f"V[{i} % 3]"]
            options.append(f"rt.cast({i}, rt.float64)")
            options += [f"{u}[{i} % 3]" for u in scope.vectors]
        if literal:
            options = list(LITERALS[:2]) + options + list(LITERALS[2:]) + ["C"]
        return ("t", self.pick(options))

    def scalar(self, scope, depth, literal=False):
        form = self.number(0, 9) if depth > 0 else 0
        if form <= 2:
            return self.scalar_leaf(scope, literal)
        d = depth - 1
        if form == 3:
            return ("bin", self.pick("+-*"), self.scalar(scope, d), self.scalar(scope, d, True))
        if form == 4:
            name = self.pick(["rt.sin", "rt.tanh", "rt.square"])
            return ("fn", name, self.scalar(scope, d))
        if form == 5:
            return ("div", self.scalar(scope, d), self.scalar(scope, d))
        if form == 6:
            return ("exp", self.pick(["rt.tanh", "rt.sin"]), self.scalar(scope, d))
        if form == 7:
            return self.maximum(self.scalar(scope, d), self.scalar(scope, d, True))
        if form == 8:
            name = self.pick(["rt.reduce_sum", "rt.reduce_mean", "rt.reduce_max"])
            arg = self.vector(scope, d)
            if self.number(0, 3) == 0:
                arg = ("idx", arg, self.pick(["1:", ":2", "::2"]))
            return ("red", name, arg)
        index = self.pick(["0", "2", "-1"] + [f"{i} % 3" for i in scope.indices])
        return ("idx", self.vector(scope, d), index)

    def maximum(self, a, b):
        if render(a, False) == render(b, False):  # a tie at every input
            b = ("t", self.pick(LITERALS))
        # a tie of two constants (`rt.cast(i, rt.float64)` and 2.0) is no kink: not probed
        return ("max", a, b, not (_constant(a) and _constant(b)))

    def vector(self, scope, depth):
        form = self.number(0, 7) if depth > 0 else 0
        if form <= 1:
            return ("t", self.pick(["V", "W"] if scope.outside_only else
                                   ["v"] + scope.vectors + ["W", "V"]))
        d = depth - 1
        if form == 2:
            return ("bin", self.pick("+-*"), self.vector(scope, d), self.scalar(scope, d, True))
        if form == 3:
            return ("bin", self.pick("+-*"), self.vector(scope, d), self.vector(scope, d))
        if form == 4:
            name = self.pick(["rt.sin", "rt.tanh", "rt.square"])
            return ("fn", name, self.vector(scope, d))
        if form == 5:
            other = self.vector(scope, d) if self.draw(st.booleans()) else self.scalar(
                scope, d, True)
            return self.maximum(self.vector(scope, d), other)
        if form == 6:
            return ("div", self.vector(scope, d), self.scalar(scope, d))
        return ("exp", self.pick(["rt.tanh", "rt.sin"]), self.vector(scope, d))

    def condition(self, scope, depth=1):
        form = self.number(0, 5) if depth > 0 else 0
        if form <= 2 or (form == 3 and not scope.indices):
            return ("cmp", self.scalar(scope, 2), self.pick(COMPARISONS), self.pick(THRESHOLDS))
        if form == 3:
            i = self.pick(scope.indices)
            return ("t", self.pick([f"{i} % 2 == 0", f"{i} < 2", f"{i} >= 2"]))
        if form == 4:
            return (self.pick(["and", "or"]), self.condition(scope, 0),
                    self.condition(scope, depth - 1))
        return ("not", self.condition(scope, depth - 1))

    # statements
    def assignment(self, scope):
        if self.accumulator and self.number(0, 5) == 0:
            # a Python float (0.0) that tensor code turns into a tensor
            target, value = "a0", self.scalar(scope, 2)
            forms = ["decay", "add"]
        elif scope.vectors and self.number(0, 2) == 0:
            target = self.pick(scope.vectors)
            value = _not_the_variable(self.vector(scope, 2))
            forms = ["rt.tanh", "decay", "add"] if scope.loop else ["plain", "rt.tanh", "add"]
        else:
            target = self.pick(scope.scalars)
            if self.number(0, 3) == 0:  # a value computed from the module's V and W only
                value = self.scalar(_Scope([], [], scope.indices, outside_only=True), 2)
            else:
                value = self.scalar(scope, 3)
            forms = (["rt.tanh", "decay", "add", "scale"] if scope.loop
                     else ["plain", "rt.tanh", "add", "scale"])
        form = self.pick(forms)
        if form == "plain":
            return ("set", target, "=", value)
        if form == "rt.tanh":
            return ("set", target, "=", ("fn", "rt.tanh", value))
        if form == "decay":  # s = 0.5 * s + sin(e)
            return ("set", target, "=", ("bin", "+", ("bin", "*", ("t", target),
                                                      ("t", self.pick(FACTORS))),
                                         ("fn", "rt.sin", value)))
        if form == "add":
            return ("set", target, "+=", ("bin", "*", ("fn", "rt.tanh", value),
                                          ("t", self.pick(FACTORS))))
        return ("set", target, "=", ("bin", "*", ("t", target), ("fn", "rt.tanh", value)))

    def block(self, scope, depth, size=2, nested=True):
        stmts = []
        local = scope.child()
        for _ in range(self.number(1, size)):
            stmts.append(self.statement(local, depth, nested))
            if stmts[-1][0] in ("jump", "return"):
                break
            if stmts[-1][0] == "set" and stmts[-1][1].startswith("t") and (
                    stmts[-1][1] not in local.scalars):
                local.scalars.append(stmts[-1][1])
        return stmts

    def statement(self, scope, depth, nested=True):
        self.budget -= 1
        if self.budget <= 0:  # big enough: only assignments from here on
            depth = 0
        form = self.number(0, 13) if depth > 0 else self.number(0, 4)
        if form <= 3:
            if form == 3 and scope.loop and self.number(0, 1) == 0:
                # a temporary local to this block (read by the statements after it)
                return ("set", f"t{next(self.names)}", "=", self.scalar(scope, 2))
            return self.assignment(scope)
        if form == 4 and nested and self.number(0, 2) == 0:
            return ("return", f"0.5 * ({self.result})")
        if form == 4 and scope.loop:
            return ("jump", self.pick(["break", "continue"]))
        if form <= 7:
            return self.if_statement(scope, depth)
        if form <= 10:
            return self.while_statement(scope, depth)
        return self.for_statement(scope, depth)

    def if_statement(self, scope, depth):
        if self.number(0, 5) == 0:  # `if c: s1 = <from V and W only>`
            value = self.scalar(_Scope([], [], scope.indices, outside_only=True), 2)
            state = ["a0"] * self.accumulator + [s for s in scope.scalars if s.startswith("s")]
            return ("if", [(self.condition(scope), [
                ("set", self.pick(state), "=", ("fn", "rt.tanh", value))])], None)
        arms = [(self.condition(scope), self.block(scope, depth - 1))]
        for _ in range(self.number(0, 2)):
            arms.append((self.condition(scope), self.block(scope, depth - 1)))
        other = self.block(scope, depth - 1) if self.draw(st.booleans()) else None
        return ("if", arms, other)

    def orelse(self, scope, depth):
        return self.block(scope, depth - 1, size=1) if self.number(0, 4) == 0 else None

    def while_statement(self, scope, depth):
        counter = f"i{next(self.names)}"
        bound = self.pick(["n", "3", "2"])
        limit = ("t", f"{counter} < {bound}")
        form = self.number(0, 3)
        if form == 0:
            test = limit
        else:
            data = self.condition(scope.child(counter), 0)
            test = ("and", limit, data) if form < 3 else ("and", data, limit)
        start = self.pick(["0", "n * 0"])
        body = self.block(scope.child(counter, True), depth - 1)
        return ("while", counter, start, test, body, self.orelse(scope, depth))

    def for_statement(self, scope, depth):
        index = f"j{next(self.names)}"
        over = self.pick(["rt.range(n)", "rt.range(3)", "rt.range(0)", "range(2)",
                          "rt.range(n - 1)", "vector"])
        if over == "vector":  # over the items of a vector (a tensor: a graph loop)
            item = index.replace("j", "e")
            over = self.pick([("t", "v"), ("t", "W * x"), self.vector(scope, 1)])
            body = self.block(scope.child(loop=True, item=item), depth - 1)
            return ("for", item, over, body, self.orelse(scope, depth))
        body = self.block(scope.child(index, True), depth - 1)
        return ("for", index, ("t", over), body, self.orelse(scope, depth))

    def program(self):
        ns, nv = self.number(1, 3), self.number(0, 2)
        self.accumulator = self.number(0, 3) == 0
        scalars = [f"s{k}" for k in range(ns)]
        vectors = [f"u{k}" for k in range(nv)]
        weights = ["1.0", "0.7", "-0.4"]
        terms = [f"{w} * {s}" for w, s in zip(weights, scalars)]
        terms += [f"rt.reduce_sum({u} * W)" for u in vectors]
        terms += ["0.5 * a0"] if self.accumulator else []
        self.result = " + ".join(terms)
        top = _Scope(["x"], [])
        init = []
        if self.draw(st.booleans()):  # a value computed before the loops and read inside them
            init.append(("set", "c0", "=", self.scalar(top, 2)))
            top.scalars.append("c0")
        for s in scalars:
            init.append(("set", s, "=", self.pick(
                [("t", "x * 0.5"), ("t", "rt.constant(0.25, rt.float64)"), ("t", "v[1] + x"),
                 self.scalar(top, 2), ("t", "rt.constant(-0.5, rt.float64)")])))
        for u in vectors:
            init.append(("set", u, "=", self.pick(
                [("t", "v * 0.8"), ("t", "W * x"), ("t", "rt.constant([0.1, 0.2, -0.3], "
                                                          "rt.float64)"),
                 _not_the_variable(self.vector(top, 1))])))
        if self.accumulator:
            init.append(("set", "a0", "=", ("t", "0.0")))
        scope = _Scope(top.scalars + scalars, vectors)
        body = self.block(scope, 3, size=3, nested=False)
        return Program(init, body, self.result)


def _constant(node) -> bool:
    """Whether an expression reads no argument, variable or state (only literals, W, C and
    loop indices)."""
    if node[0] == "t":
        text = node[1]
        return text in ("C", "W") or text.startswith(("W[", "rt.cast(", "rt.constant(")) or (
            text.lstrip("-").replace(".", "", 1).isdigit())
    return all(_constant(part) for part in node[1:] if isinstance(part, tuple))


def _not_the_variable(value):
    """`u0 = V` would make u0 the variable object (which a graph loop cannot carry)."""
    return ("fn", "rt.identity", value) if value == ("t", "V") else value


@st.composite
def programs(draw):
    return _Writer(draw).program()


# Inputs in [-1.5, 1.5], offset so that the simplest draws (zeros, equal values) are not ties of
# `x > 0.0`, `rt.maximum(v[0], v[1])` and the like.
VALUES = st.floats(-1.5, 1.5, allow_nan=False).map(lambda f: round(f, 3))
INPUTS = st.tuples(VALUES, st.tuples(VALUES, VALUES, VALUES), st.integers(0, 4)).map(
    lambda d: (d[0] + 0.0113, tuple(round(a + b, 4) for a, b in zip(d[1], (0.0217, -0.0331,
                                                                            0.0429))), d[2]))


@st.composite
def cases(draw):
    program = draw(programs())
    inputs = draw(st.lists(INPUTS, min_size=2, max_size=3))
    return program, inputs


# ---- running them -----------------------------------------------------------------------------

_DIRECTORY = tempfile.TemporaryDirectory(prefix="gradient_fuzz_")
_COUNTER = itertools.count()
_MARGINS: list = []


def _m(value, threshold):
    """f_probe's condition: records how far the condition value is from its threshold."""
    _MARGINS.append((abs(float(value) - float(threshold)), "a condition"))
    return value


def _mx(a, b):
    _MARGINS.append((float(np.min(np.abs(np.asarray(a) - np.asarray(b)))), "rt.maximum"))
    return rt.maximum(a, b)


def _rmax(a):
    values = np.sort(np.asarray(a).ravel())
    if values.size > 1:
        _MARGINS.append((float(values[-1] - values[-2]), "rt.reduce_max"))
    return rt.reduce_max(a)


def load(program):
    name = f"gradient_fuzz_program_{next(_COUNTER)}"
    path = os.path.join(_DIRECTORY.name, name + ".py")
    with open(path, "w") as file:
        file.write(program.module())
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module._m, module._mx, module._rmax = _m, _mx, _rmax
    return module, path


def _tensors(x, v, n):
    return (rt.constant(np.float64(x)), rt.constant(np.asarray(v, np.float64)),
            rt.constant(n, rt.int32))


def gradients(f, variable):
    """A function of (x, v, n): f's value and its gradients with respect to x, v and the
    module's variable V (read by f)."""
    def value_and_gradients(x, v, n):
        with rt.GradientTape() as tape:
            tape.watch([x, v])
            y = f(x, v, n)
        gx, gv, gV = tape.gradient(y, [x, v, variable], unconnected_gradients="zero")
        return y, gx, gv, gV

    return value_and_gradients


def _numpy(outputs):
    y, *grads = (np.asarray(t.numpy() if hasattr(t, "numpy") else t, np.float64)
                 for t in outputs)
    return float(y), np.concatenate([g.reshape(-1) for g in grads])


def finite_differences(module, x, v, n):
    """Central differences of f with respect to x, v and V (7 numbers)."""
    point = np.array([x, *v, *module.V.numpy()], np.float64)
    grad = np.zeros(point.size)
    try:
        for k in range(point.size):
            values = []
            for step in (H, -H):
                p = point.copy()
                p[k] += step
                module.V.assign(p[4:])
                values.append(float(module.f(*_tensors(p[0], p[1:4], n))))
            grad[k] = (values[0] - values[1]) / (2 * H)
    finally:
        module.V.assign(point[4:])
    return grad


def margin(module, x, v, n):
    """(How close f's conditions, maximums and reduce_maxes come to a tie at this input, which
    one came closest)."""
    del _MARGINS[:]
    module.f_probe(*_tensors(x, v, n))
    return min(_MARGINS, default=(math.inf, None))


def _clear(error, path):
    text = str(error) + "".join(getattr(error, "__notes__", []))
    return isinstance(error, rt.errors.Error) and path in text


def _documented(error):
    return any(isinstance(error, kind) and re.search(pattern, str(error))
               for kind, pattern in DOCUMENTED_LIMITS)


def _describe(error):
    notes = "".join("\n    " + n for n in getattr(error, "__notes__", []))
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (raised at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{notes}{where}"


class Tally:
    def __init__(self, strict):
        self.strict = strict
        self.counts = collections.Counter()
        self.failures: list = []

    def fail(self, kind, program, inputs=None, **numbers):
        self.counts[f"mismatch: {kind}"] += 1
        found = {"kind": kind, "program": program.source, "inputs": inputs,
                 **{k: (v.tolist() if isinstance(v, np.ndarray) else v)
                    for k, v in numbers.items()}}
        self.failures.append(found)
        if self.strict:
            raise AssertionError("\n".join(
                [f"gradient fuzz: {kind}", "program:", program.source,
                 f"inputs (x, v, n): {inputs}"] + [f"{k}: {v}" for k, v in numbers.items()]))

    def run(self, program, inputs):
        self.counts["programs"] += 1
        module, path = load(program)
        eager = gradients(module.f, module.V)
        graph = rt.function(gradients(module.f, module.V))
        for x, v, n in inputs:
            self.counts["inputs"] += 1
            args = (x, list(v), n)
            try:
                eager_y, eager_g = _numpy(eager(*_tensors(x, v, n)))
            except Exception as error:  # noqa: BLE001 - recorded
                self.fail("eager raised", program, args, error=_describe(error))
                continue
            try:
                graph_y, graph_g = _numpy(graph(*_tensors(x, v, n)))
            except Exception as error:  # noqa: BLE001 - recorded
                if _documented(error):
                    self.counts[f"graph error, a documented limit ({type(error).__name__})"] += 1
                    continue
                kind = "graph raised a clear error" if _clear(error, path) else (
                    "graph raised an unclear error")
                self.fail(kind, program, args, error=_describe(error))
                continue
            closest, where = margin(module, x, v, n)
            if 0 < closest < 1e-9:  # the two runs may round their way onto different paths
                self.counts[f"inputs within 1e-9 of a tie ({where}): eager vs graph not "
                            "compared"] += 1
            elif not np.allclose(graph_y, eager_y, **SAME):
                self.fail("value: eager vs graph", program, args, eager=eager_y,
                          graph=graph_y)
            elif not np.allclose(graph_g, eager_g, **SAME):
                self.fail("gradient: eager vs graph", program, args, eager=eager_g,
                          graph=graph_g, margin=closest)
            if closest < MARGIN:
                self.counts[f"inputs within {MARGIN} of a tie ({where}): no finite "
                            "differences"] += 1
                continue
            self.counts["inputs checked against finite differences"] += 1
            numeric = finite_differences(module, x, v, n)
            atol = 1e-6 * (1 + abs(eager_y))
            for label, got in (("eager", eager_g), ("graph", graph_g)):
                if not np.allclose(got, numeric, rtol=FD_RTOL, atol=atol):
                    self.fail(f"gradient: {label} vs finite differences", program, args,
                              tape=got, finite_differences=numeric, margin=closest)


def test_gradients_agree_on_random_programs():
    tally = Tally(strict=not REPORT)

    @settings(max_examples=PROGRAMS, deadline=None, database=None, derandomize=not RANDOM,
              report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
    @given(case=cases())
    def run(case):
        tally.run(*case)

    run()
    summary = {"counts": dict(tally.counts), "failures": tally.failures}
    if REPORT:
        with open(REPORT, "w") as file:
            json.dump(summary, file, indent=1)
    assert not tally.failures, json.dumps(summary["counts"], indent=1)


def test_generated_programs_use_every_form():
    """The generator writes what the docstring says (checked on a fixed sample)."""
    programs_ = _sample(300)
    seen = "".join(program.module() for program in programs_)
    for text in ("while", "for", "rt.range(n)", "rt.range(0)", "range(2)", "elif", "else:",
                 "break", "continue", "rt.maximum", "rt.reduce_max",
                 "rt.reduce_sum", "rt.reduce_mean", "rt.exp", "rt.sin", "rt.tanh", "rt.square",
                 "/ (1.5", "% 3]", "for e", " and ", "not (", "W", "V[", "c0", "u1", "s2", "a0 +=",
                 "_m(", "_mx(", "_rmax("):
        assert text in seen, text
    statements = [s for p in programs_ for s in _walk(p.body)]
    assert any(s[0] in ("while", "for") and s[-1] for s in statements)  # a loop `else`


def _walk(stmts):
    for stmt in stmts:
        yield stmt
        if stmt[0] == "if":
            for _, body in stmt[1]:
                yield from _walk(body)
            yield from _walk(stmt[2] or [])
        elif stmt[0] in ("while", "for"):
            yield from _walk(stmt[-2])
            yield from _walk(stmt[-1] or [])


def _sample(count):
    found = []

    @settings(max_examples=count, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def collect(program):
        found.append(program)

    collect()
    return found
