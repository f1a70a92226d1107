"""Differential fuzzing of gradients through control flow: random programs over float64 scalars
and 3-vectors, differentiated three ways, must agree.

Each program is a module written to a file of its own (autograph needs real source) defining
`f(x, v, n)` (x: float64 scalar, v: float64 3-vector, n: int32 scalar, a loop bound 0-4) with
arithmetic (+ - * and / by `1.5 + square(.)`), rt.sin, rt.exp (of a tanh or sin), rt.tanh,
rt.square, rt.maximum, reductions (sum, mean, max, also of slices), indexing `v[j]` and
`v[i % 3]` with a loop index, `if`/`elif`/`else` on tensor conditions (nested, with `and`,
`or`, `not`), `while` loops bounded by a counter (`while i < n and s0 < 1.0:`, the counter
incremented first in the body), `for i in rt.range(n)` / `rt.range(K)` (K may be 0, so may n:
zero-trip loops), Python `range(K)` loops and `for e in <vector>`, loop `else`, `break` /
`continue` (also in an inner loop of a nest), several loop-carried scalars and vectors, values
read from outside the loops (arguments, locals computed before them, the module globals W and
C and the rt.Variable V), and body-local temporaries. Also:

- Python-number starts: `a0 = 0.0`, and `s1 = 0` / `0.0` / `1.0` / `-0.5` (never s0, so f
  returns a tensor), which tensor code turns into tensors. Such a scalar is read only as a right
  operand (`rt.sin(0.0)` would be float32).
- Tuples of state: `s0, s1 = s1, s0 * 0.5 + rt.sin(...)` (a swap; a name holding a tensor
  never takes a Python number), `u0, u1 = u1, ...`, `s0, u0 = rt.tanh(...), ...`.
- `None`-initialised values: `t = None`, an `if`/`elif`/`else` that sets t in every branch,
  then a read of t; the `t = None` also before a loop whose body holds such an `if`.
- Python lists: `l0` of scalars, `q0` of 3-vectors, `r0` of vectors of lengths 1-3 (only
  concatenated), made before the loops (`l0 = [x * 0.5]`; rarely `[]`, so that stacking it may
  raise: agreement only when eager and graph both raise); `l0.append(...)` (or
  `l0.extend([...])`, `l0 += [...]`, `l0 = l0 + [...]`) anywhere (under `if`s, in loops);
  `l0[-1] = ...`, `l0[i % len(l0)] = ...`; `l0.pop()` under `if len(l0) > 1:` (or `if l0:`);
  reads `l0[-1]`, `l0[0]`, `l0[i % len(l0)]`, `rt.reduce_mean(rt.stack(l0))`, `len(l0)`;
  loops `for k in rt.range(len(l0))` / `range(len(l0))` reading and setting `l0[k]` (they do
  not shorten the list) and `for e in l0:` (does not change it); f's result reduces each list:
  `rt.stack` (weighted by position, through sin, square), `rt.concat(q0, axis=0)`,
  `rt.convert_to_tensor(l0)`, `rt.stack(q0)[:, 1]`, `(... if l0 else x * 0.0)`. A Python list
  stays one in a graph until a graph `if` or loop changes its length, and a Python list cannot
  take a tensor index (TENSOR_INDICES_OF_PYTHON_LISTS): the writer indexes a list with a tensor
  only where it surely is an rt.TensorList by then (_Writer.staged).

Values stay bounded: loop bodies update their state through tanh, sin or a factor below one.

About a quarter of the programs are second order: what they check is g = (f's gradient with
respect to x, v, V) . DIRECTION, an inner tape inside an outer one, reduced to g inside the
outer tape's `with` block, and g's gradient (the outer tape's). These programs have no
rt.maximum or rt.reduce_max (their kinks make g jump).

For each program and each of its inputs, the value of f (and g) and the gradients with respect
to x, v and V, three ways:

1. eager: `rt.GradientTape` around `f` called on eager tensors (Python runs the control flow);
2. graph: the same inside `rt.function` (autograph turns the tensor `if`/`while`/`for` into
   `If`/`While` ops, differentiated by runtime/autodiff/control_flow_gradients.py);
3. central finite differences of `f` run eagerly (step 1e-6; V perturbed by `assign`), or for
   second order of g computed by an eager tape (step 1e-5).

The rule: (1) and (2) agree to rtol 1e-9 / atol 1e-12 (values and gradients), and both agree
with (3) to rtol 1e-4 (atol 1e-6 * (1 + |f|), for round-off in f), second order to rtol 1e-3
(atol 1e-5 * (1 + |g|)), where f is smooth at the input: the comparison is skipped when a float
condition, an `rt.maximum` or an `rt.reduce_max` is within 1e-3 of a tie (a copy of `f`,
`f_probe`, records these margins). A graph error must be an `rt.errors.Error` with a message
naming the program's file, and counts as a failure unless it matches DOCUMENTED_LIMITS. An
eager error is a failure, except `rt.stack` / `rt.concat` of an empty list when the graph
raises too.

Boundary mode (`with_boundaries`, `Tally.run_boundary`): the same programs with some of their
expressions and statements (an `if`, a loop, a `t = None` and its `if`; none that returns,
jumps out or changes a list) moved into module-level helpers `h0`, `h1`, ... that f calls,
each an `rt.function` (some with an input_signature of the arguments' dtypes and shapes) or a
Python function; helpers may call helpers and read V, W and C. F = rt.function(f) (maybe with
an input_signature). The undecorated program (`f_plain`: every helper call replaced by what
the helper computes) differentiated eagerly is the reference, checked against finite
differences as above; each way of `boundary_ways` must give its reference's value and
gradients (SAME), or raise where it raises: a tape around f (the helpers' graphs run eagerly,
each call one recorded operation), a tape around F (F one recorded operation), a tape around f
and around F inside rt.function (inlined), `rt.grad(F)` and `rt.function(rt.grad(F))` (with
respect to x and v; reference `rt.grad(f_plain)`); for second-order programs a tape in a tape
around f and around F, that inside rt.function, `rt.grad(rt.grad(F))` and its rt.function
(d2f/dx2; reference `rt.grad(rt.grad(f_plain))`). A None gradient against zeros is off
(NONE_VS_ZEROS).

CI runs 40 programs, the same ones every time (derandomized), and 20% as many (8) in boundary
mode. More:

    GRAD_FUZZ_PROGRAMS=400 python -m pytest -q -p no:warnings tests/runtime/test_gradient_fuzz.py

GRAD_FUZZ_BOUNDARY selects boundary mode: `mix` (the default: both tests), `only` (all
GRAD_FUZZ_PROGRAMS programs in boundary mode, the other test skipped) or `off`:

    GRAD_FUZZ_BOUNDARY=only GRAD_FUZZ_PROGRAMS=1200 GRAD_FUZZ_RANDOM=1 \
        python -m pytest -q tests/runtime/test_gradient_fuzz.py

GRAD_FUZZ_REPORT=FILE tallies every program instead of stopping (and shrinking) at the first
failure, writes the counts and the failures to FILE (JSON; boundary mode's to FILE.boundary.json
with GRAD_FUZZ_BOUNDARY=mix), and fails at the end if any. GRAD_FUZZ_RANDOM=1 draws other
programs on each run.
"""

from __future__ import annotations

import ast
import collections
import itertools
import json
import math
import os
import random
import re
import tempfile
import traceback

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.saved.errors import LoadError
from tests.runtime.module_files import import_source


@pytest.fixture(autouse=True, scope="module")
def _library_frames_kept():
    """The harness tells a clear error by its innermost frame (a `raise` of the library), so
    tracebacks keep the library's frames here."""
    was = rt.config.traceback_filtering()
    rt.config.set_traceback_filtering(False)
    yield
    rt.config.set_traceback_filtering(was)

PROGRAMS = int(os.environ.get("GRAD_FUZZ_PROGRAMS", 40))
REPORT = os.environ.get("GRAD_FUZZ_REPORT")
RANDOM = os.environ.get("GRAD_FUZZ_RANDOM") == "1"
BOUNDARY = os.environ.get("GRAD_FUZZ_BOUNDARY", "mix")
if BOUNDARY not in ("mix", "only", "off"):
    raise ValueError(f"GRAD_FUZZ_BOUNDARY must be mix, only or off, not {BOUNDARY!r}")
BOUNDARY_SHARE = 0.2  # of PROGRAMS, in boundary mode too with GRAD_FUZZ_BOUNDARY=mix
BOUNDARY_PROGRAMS = {"mix": max(1, round(PROGRAMS * BOUNDARY_SHARE)), "only": PROGRAMS,
                     "off": 0}[BOUNDARY]

H = 1e-6  # finite-difference step
MARGIN = 1e-3  # closer than this to a condition's threshold (or a tie): not smooth enough
SAME = {"rtol": 1e-9, "atol": 1e-12}  # eager vs graph
FD_RTOL = 1e-4
H2 = 1e-5  # finite-difference step of a first-order gradient (second-order programs)
FD2_RTOL = 1e-3

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
# no float tensor was lost (backprop skipped an op without a float input). With lists, None,
# tuples and second order: `t = None` before a loop whose body sets t in every branch of an
# `if` was refused; second order through nested graph loops raised AttributeError; eager
# rt.convert_to_tensor of a list of float64 tensors was float32; an item of a staged list set in
# a graph `if`, or at a tensor index in a graph loop, raised 'belongs to another graph'.


# ---- programs ---------------------------------------------------------------------------------

# A Python list that stays one in a graph (no graph `if` or loop changed its length) indexed by a
# tensor (`ys[i % 2]` in `for i in rt.range(3)`) raises OperatorNotAllowedInGraphError where
# Python runs. Set True to draw such reads and writes too.
TENSOR_INDICES_OF_PYTHON_LISTS = False

LITERALS = ("0.5", "-0.3", "1.2", "0.7", "-1.1", "2.0", "0.25")
FACTORS = ("0.5", "-0.6", "0.9", "0.3")  # |factor| < 1: loop-carried state stays bounded
THRESHOLDS = ("0.0", "0.5", "-0.5", "1.0", "-1.0", "2.0", "0.2")
COMPARISONS = (">", "<", ">=", "<=")
# Python-number starts of loop-carried scalars (s1, s2; never s0, so that f returns a tensor)
PYTHON_STARTS = ("0.0", "0", "1.0", "-0.5")
# Lists made before the loops: l0 holds scalars, q0 3-vectors, r0 vectors of lengths 1-3 (only
# concatenated); or `[]` (rarely: stacking a list left empty raises, eagerly and in a graph).
LIST_STARTS = {
    "l0": ("[x * 0.5]", "[rt.sin(v[1])]", "[v[0], rt.tanh(x)]", "[V[1] * x]"),
    "q0": ("[v * 0.5]", "[W * x]", "[rt.sin(v), v * x]"),
    "r0": ("[v[1:] * x]", "[v * 0.5]", "[v[:1], W[1:] * x]"),
}
LIST_RESULTS = {  # what f returns of each list (terms added to its result)
    "l0": ("rt.reduce_sum(rt.stack(l0))",
           "0.3 * rt.reduce_sum(rt.stack(l0) * rt.cast(rt.range(len(l0)) + 1, rt.float64))",
           "rt.reduce_mean(rt.sin(rt.stack(l0)))",
           "0.2 * rt.reduce_sum(rt.square(rt.stack(l0)))",
           "rt.reduce_sum(rt.convert_to_tensor(l0) * 0.5)"),
    "q0": ("rt.reduce_sum(rt.stack(q0) * W)",
           "0.3 * rt.reduce_sum(rt.concat(q0, axis=0) * rt.sin(rt.concat(q0, axis=0)))",
           "rt.reduce_mean(rt.stack(q0)[:, 1])",
           "rt.reduce_sum(rt.tanh(rt.concat(q0, 0)))"),
    "r0": ("rt.reduce_sum(rt.tanh(rt.concat(r0, axis=0)))",
           "0.4 * rt.reduce_sum(rt.square(rt.concat(r0, 0)))"),
}
HEADER = """\
import runtime as rt

W = rt.constant([0.3, -0.5, 0.8], rt.float64)
C = 0.6
V = rt.Variable(rt.constant([0.4, -0.2, 0.9], rt.float64))
"""


def render(node, probe, inline=False):
    """The source of an expression or condition node; `probe` writes the version that records
    the margins of conditions and ties (f_probe); `probe` or `inline` writes the expression a
    helper call (boundary mode) stands for instead of the call."""
    kind = node[0]
    r = lambda n: render(n, probe, inline)
    if kind == "helper":  # ("helper", name, parameters, the expression it computes)
        return r(node[3]) if probe or inline else f"{node[1]}({', '.join(node[2])})"
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
    if kind == "list":
        return f"[{r(node[1])}]"
    raise AssertionError(node)


def render_block(stmts, indent, probe, inline=False):
    pad = "    " * indent
    lines = []
    for stmt in stmts:
        kind = stmt[0]
        if kind == "set":
            lines.append(f"{pad}{stmt[1]} {stmt[2]} {render(stmt[3], probe, inline)}")
        elif kind == "tuple":  # a, b = b, a * 0.5 + rt.sin(...)
            lines.append(f"{pad}{', '.join(stmt[1])} = "
                         f"{', '.join(render(value, probe, inline) for value in stmt[2])}")
        elif kind == "call":  # l0.append(...)
            lines.append(f"{pad}{stmt[1]}({render(stmt[2], probe, inline)})")
        elif kind == "expr":  # l0.pop()
            lines.append(pad + stmt[1])
        elif kind == "seq":  # statements drawn together (`t = None` and its `if`)
            lines += render_block(stmt[1], indent, probe, inline)
        elif kind == "helper_stmt":  # ("helper_stmt", name, parameters, outputs, statement)
            if probe or inline:
                lines += render_block([stmt[4]], indent, probe, inline)
            else:
                lines.append(f"{pad}{', '.join(stmt[3])} = {stmt[1]}({', '.join(stmt[2])})")
        elif kind == "jump":
            lines.append(pad + stmt[1])
        elif kind == "return":
            lines.append(f"{pad}return {stmt[1]}")
        elif kind == "if":
            for k, (cond, body) in enumerate(stmt[1]):
                lines.append(f"{pad}{'if' if k == 0 else 'elif'} {render(cond, probe, inline)}:")
                lines += render_block(body, indent + 1, probe, inline)
            if stmt[2] is not None:
                lines.append(f"{pad}else:")
                lines += render_block(stmt[2], indent + 1, probe, inline)
        elif kind == "while":
            _, counter, start, test, body, orelse = stmt
            lines.append(f"{pad}{counter} = {start}")
            lines.append(f"{pad}while {render(test, probe, inline)}:")
            lines.append(f"{pad}    {counter} += 1")
            lines += render_block(body, indent + 1, probe, inline)
        elif kind == "for":
            _, index, over, body, orelse = stmt
            lines.append(f"{pad}for {index} in {render(over, probe, inline)}:")
            lines += render_block(body, indent + 1, probe, inline)
        else:
            raise AssertionError(stmt)
        if kind in ("while", "for") and orelse:
            lines.append(f"{pad}else:")
            lines += render_block(orelse, indent + 1, probe, inline)
    return lines or [pad + "pass"]


class Program:
    """`order` 2: the checked quantity is a gradient of f's gradient (see `second_order`).
    Boundary mode (`boundary` set, see `with_boundaries`): `helpers` are the functions the
    body's helper nodes call, and `boundary` the line that decorates f (`F = rt.function(f)`)."""

    def __init__(self, init, body, result, order=1, helpers=(), boundary=None):
        self.init, self.body, self.result, self.order = init, body, result, order
        self.helpers, self.boundary = list(helpers), boundary

    def function(self, name, probe, inline=False):
        lines = [f"def {name}(x, v, n):"] + render_block(self.init + self.body, 1, probe, inline)
        lines.append(f"    return {self.result}")
        return "\n".join(lines) + "\n"

    @property
    def source(self):
        """f (with the helpers and the decorated F in boundary mode)."""
        if self.boundary is None:
            return self.function("f", False)
        helpers = "".join(helper.source() + "\n" for helper in self.helpers)
        return helpers + self.function("f", False) + self.boundary + "\n"

    @property
    def plain_source(self):
        """f without boundaries: every helper call replaced by what the helper computes."""
        return self.function("f_plain", False, inline=True)

    def __repr__(self):  # how hypothesis shows a falsifying example
        if self.boundary is None:
            return f"Program(order={self.order},\n" + self.source + ")"
        return (f"Program(order={self.order}, boundaries,\n" + self.source + "\n"
                + self.plain_source + ")")

    def module(self):
        text = HEADER + "\n\n" + self.source + "\n\n"
        if self.boundary is not None:
            text += self.plain_source + "\n\n"
        return text + self.function("f_probe", True)


class _Scope:
    """What a block may read: scalars and vectors (assignable), loop indices (ints), items of
    iterated vectors and lists (read only: `items` scalars, `vitems` vectors); whether it is
    inside a loop; `outside_only`: leaves are only the module's V and W (and loop indices).
    Lists: `lists` (all of them), `frozen` (iterated by an enclosing `for e in l0`: not
    changed), `nopop` (an enclosing `for k in rt.range(len(l0))` reads `l0[k]`: not shortened),
    `at` ((list, index) pairs: `l0[k]` is in range); `nones`: names set to None before an
    enclosing loop, which an `if` of this block may assign in every branch and then read."""

    def __init__(self, scalars, vectors, indices=(), loop=False, items=(), outside_only=False,
                 lists=(), frozen=(), nopop=(), at=(), vitems=(), nones=()):
        self.scalars, self.vectors = list(scalars), list(vectors)
        self.indices, self.loop, self.items = list(indices), loop, list(items)
        self.outside_only = outside_only
        self.lists, self.frozen, self.nopop = list(lists), list(frozen), list(nopop)
        self.at, self.vitems, self.nones = list(at), list(vitems), list(nones)

    def child(self, index=None, loop=None, item=None, vitem=None, frozen=None, nopop=None,
              at=None, none=None):
        extra = lambda value: [value] if value else []
        return _Scope(self.scalars, self.vectors,
                      self.indices + extra(index),
                      self.loop if loop is None else loop,
                      self.items + extra(item), False, self.lists,
                      self.frozen + extra(frozen), self.nopop + extra(nopop),
                      self.at + extra(at), self.vitems + extra(vitem),
                      self.nones + extra(none))

    def outside(self):
        return _Scope([], [], self.indices, outside_only=True)


class _Writer:
    """Draws one program; every choice shrinks towards the simplest option (listed first)."""

    def __init__(self, draw):
        self.draw = draw
        self.names = itertools.count()
        self.accumulator = False  # the program has `a0 = 0.0`
        self.result = ""  # the returned expression
        self.budget = 30  # statements
        self.smooth = False  # second order: no rt.maximum / rt.reduce_max (kinks)
        self.weak = set()  # scalars that may hold a Python number (only read as right operands)
        self.lists = {}  # name -> "l0" | "q0" | "r0" (its kind)
        self.maybe_empty = set()  # lists started as [] (read only through stack / concat)
        # A Python list stays one in a graph until a graph `if` or loop changes its length (it
        # is an rt.TensorList from then on), and a Python list cannot take a tensor index. The
        # writer tracks, in program order, the lists surely staged by now (`staged`), the lists
        # whose length the enclosing statements surely change (`changed`, a stack), and the loop
        # indices that are Python ints (`python_indices`: of `range(2)`, of a Python `while`).
        self.staged = set()
        self.changed = [set()]
        self.python_indices = set()

    def pick(self, options):
        options = list(options)
        if len(options) == 2:  # see `coin`
            return options[self.number(0, 7) // 4]
        return self.draw(st.sampled_from(options))

    def number(self, low, high):
        return self.draw(st.integers(low, high))

    def two(self, options):
        """Two different items of options."""
        return self.draw(st.permutations(options))[:2]

    def coin(self, odds):
        """True one time in `odds` (shrinks to True; not a draw of two values, which
        hypothesis's derandomized runs seldom vary)."""
        return self.number(0, 4 * odds - 1) < 4

    def lists_of(self, scope, kind, readable=True):
        return [name for name in scope.lists if self.lists[name] == kind and (
            not readable or name not in self.maybe_empty)]

    # expressions: the leftmost leaf is always a tensor, so every expression is one
    def scalar_leaf(self, scope, literal):
        if scope.outside_only:  # only what the module holds: the variable V, W, C
            options = ["V[0]", "V[2]", "W[1]"] + [f"V[{i} % 3]" for i in scope.indices]
        else:
            tensors = [s for s in scope.scalars if s not in self.weak]
            options = ["x", "v[0]"] + tensors + scope.items + [
                "v[1]", "v[2]", "W[1]", "V[0]", "V[2]"]
            options += [f"{u}[{j}]" for u in scope.vectors for j in (0, 2)]
            options += [f"{u}[{j}]" for u in scope.vitems for j in (0, 1)]
        for i in scope.indices:
            if not scope.outside_only:
                options += [f"v[{i} % 3]", f"V[{i} % 3]"]
            options.append(f"rt.cast({i}, rt.float64)")
            options += [f"{u}[{i} % 3]" for u in scope.vectors]
        reads = [] if scope.outside_only else self.list_reads(scope)
        if reads and self.coin(4):
            return ("t", self.pick(reads))
        if literal:  # a right operand: Python numbers too
            weak = [s for s in scope.scalars if s in self.weak]
            options = list(LITERALS[:2]) + options + list(LITERALS[2:]) + ["C"] + weak
        return ("t", self.pick(options))

    def list_reads(self, scope):
        """Scalars read from lists: items (in range), a mean, a length."""
        reads = [f"{name}[{k}]" for name, k in self.at(scope, "l0")]
        for name in self.lists_of(scope, "l0"):  # items of a list of scalars
            reads += [f"{name}[-1]", f"{name}[0]", f"rt.reduce_mean(rt.stack({name}))"]
            reads += [f"{name}[{i} % len({name})]" for i in self.indices(scope, name)]
        reads += [f"{name}[-1][1]" for name in self.lists_of(scope, "q0")]
        reads += [f"{name}[{k}][0]" for name, k in self.at(scope, "q0")]
        return reads + [f"rt.cast(len({name}), rt.float64)" for name in scope.lists]

    def indices(self, scope, name):
        """The loop indices that may index list `name` here."""
        return [i for i in scope.indices if name in self.staged or i in self.python_indices
                or TENSOR_INDICES_OF_PYTHON_LISTS]

    def at(self, scope, kind):
        """(list, index) pairs of the enclosing `for k in range(len(l0))` loops that may be
        read here."""
        return [(name, k) for name, k in scope.at if self.lists[name] == kind and (
            k in self.indices(scope, name))]

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
            names = ["rt.reduce_sum", "rt.reduce_mean"] + ["rt.reduce_max"] * (not self.smooth)
            name = self.pick(names)
            arg = self.vector(scope, d)
            if self.number(0, 3) == 0:
                arg = ("idx", arg, self.pick(["1:", ":2", "::2"]))
            return ("red", name, arg)
        index = self.pick(["0", "2", "-1"] + [f"{i} % 3" for i in scope.indices])
        return ("idx", self.vector(scope, d), index)

    def maximum(self, a, b):
        if self.smooth:  # no kinks in a program differentiated twice
            return ("bin", "+", a, b)
        if render(a, False) == render(b, False):  # a tie at every input
            b = ("t", self.pick(LITERALS))
        # a tie of two constants (`rt.cast(i, rt.float64)` and 2.0) is no kink: not probed
        return ("max", a, b, not (_constant(a) and _constant(b)))

    def vector_leaf(self, scope):
        if scope.outside_only:
            return ("t", self.pick(["V", "W"]))
        reads = [f"{name}[{k}]" for name, k in self.at(scope, "q0")]
        for name in self.lists_of(scope, "q0"):  # items of a list of vectors
            reads += [f"{name}[-1]", f"{name}[0]"]
            reads += [f"{name}[{i} % len({name})]" for i in self.indices(scope, name)]
        if reads and self.coin(4):
            return ("t", self.pick(reads))
        return ("t", self.pick(["v"] + scope.vectors + ["W", "V"] + scope.vitems))

    def vector(self, scope, depth):
        form = self.number(0, 7) if depth > 0 else 0
        if form <= 1:
            return self.vector_leaf(scope)
        d = depth - 1
        if form == 2:
            return ("bin", self.pick("+-*"), self.vector(scope, d), self.scalar(scope, d, True))
        if form == 3:
            return ("bin", self.pick("+-*"), self.vector(scope, d), self.vector(scope, d))
        if form == 4:
            name = self.pick(["rt.sin", "rt.tanh", "rt.square"])
            return ("fn", name, self.vector(scope, d))
        if form == 5:
            other = self.vector(scope, d) if self.coin(2) else self.scalar(
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

    def decay(self, target, value):
        """`target = target * 0.5 + rt.sin(value)`"""
        return ("bin", "+", ("bin", "*", ("t", target), ("t", self.pick(FACTORS))),
                ("fn", "rt.sin", value))

    def state(self, scope):
        """The loop-carried scalars a statement may update (s0..., a0)."""
        return ["a0"] * self.accumulator + [s for s in scope.scalars if s.startswith("s")]

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
                value = self.scalar(scope.outside(), 2)
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
            return ("set", target, "=", self.decay(target, value))
        if form == "add":
            return ("set", target, "+=", ("bin", "*", ("fn", "rt.tanh", value),
                                          ("t", self.pick(FACTORS))))
        return ("set", target, "=", ("bin", "*", ("t", target), ("fn", "rt.tanh", value)))

    def tuple_assignment(self, scope):
        """`a, b = b, a * 0.5 + rt.sin(...)` (a swap of loop state) or `s, u = ..., ...`."""
        scalars = [s for s in scope.scalars if s != "x"]
        form = self.number(0, 2)
        if form == 1 and len(scope.vectors) >= 2:
            a, b = self.two(scope.vectors)
            return ("tuple", [a, b], [("t", b), self.decay(a, _not_the_variable(
                self.vector(scope, 2)))])
        if form == 2 and scope.vectors:
            s, u = self.pick(scalars), self.pick(scope.vectors)
            return ("tuple", [s, u], [("fn", "rt.tanh", self.scalar(scope, 2)),
                                      self.decay(u, _not_the_variable(self.vector(scope, 1)))])
        if len(scalars) < 2:
            return self.assignment(scope)
        a, b = self.two(scalars)
        if b in self.weak and a not in self.weak:  # a tensor name never takes a Python number
            a, b = b, a
        return ("tuple", [a, b], [("t", b), self.decay(a, self.scalar(scope, 2))])

    def list_statement(self, scope):
        """l0.append(...), l0[i] = ..., a guarded l0.pop(), on a list not iterated here."""
        names = [name for name in scope.lists if name not in scope.frozen]
        if not names:
            return self.assignment(scope)
        name = self.pick(names)
        kind = self.lists[name]
        form = ("append", "append", "set", "pop")[self.number(0, 3)]
        if form == "pop" and name in scope.nopop or form == "set" and kind == "r0":
            form = "append"
        if form == "append":
            self.changed[-1].add(name)
            how, item = self.pick(["append", "append", "+=", "+", "extend"]), self.item(scope, kind)
            if how == "+=":
                return ("set", name, "+=", ("list", item))
            if how == "+":
                return ("set", name, "=", ("bin", "+", ("t", name), ("list", item)))
            return ("call", f"{name}.{how}", ("list", item) if how == "extend" else item)
        guard = ("t", name if name in self.maybe_empty else f"len({name}) > 1")
        if form == "pop":
            if name in self.staged:  # else a Python `if`, whose branch depends on the trace
                self.changed[-1].add(name)
            targets = self.state(scope) if kind == "l0" else scope.vectors if kind == "q0" else []
            if targets and self.coin(2):
                target = self.pick(targets)
                value = ("t", f"{name}.pop()")
                stmt = ("set", target, "=", self.decay(target, value))
            else:
                stmt = ("expr", f"{name}.pop()")
            return ("if", [(guard, [stmt])], None)
        indices = ["-1", "0"] + [f"{i} % len({name})" for i in self.indices(scope, name)]
        safe = [k for list_name, k in self.at(scope, self.lists[name]) if list_name == name]
        index = self.pick(safe + indices if name in self.maybe_empty else indices + safe)
        item = f"{name}[{index}]"
        value = self.scalar(scope, 2) if kind == "l0" else _not_the_variable(
            self.vector(scope, 2))
        stmt = ("set", item, "=", self.decay(item, value))
        if name in self.maybe_empty and index not in safe:
            return ("if", [(guard, [stmt])], None)
        return stmt

    def item(self, scope, kind):
        if kind == "l0":
            return self.scalar(scope, 2)
        value = _not_the_variable(self.vector(scope, 2))
        if kind == "r0" and self.coin(2):
            value = ("idx", value, self.pick(["1:", ":2", ":1"]))
        return value

    def block(self, scope, depth, size=2, nested=True):
        stmts = []
        local = scope.child()
        for _ in range(self.number(1, size)):
            stmt = self.statement(local, depth, nested)
            stmts.append(stmt)
            if stmt[0] in ("jump", "return"):
                break
            defined = [stmt[1]] if stmt[0] == "set" else stmt[2] if stmt[0] == "seq" else []
            for name in defined:  # temporaries (`t3 = ...`), and `t3 = None` + `if` setting it
                if name.startswith("t") and name not in local.scalars:
                    local.scalars.append(name)
        return stmts

    def statement(self, scope, depth, nested=True):
        self.budget -= 1
        if self.budget <= 0:  # big enough: only assignments from here on
            depth = 0
        if scope.lists and self.coin(5):
            return self.list_statement(scope)
        form = self.number(0, 13) if depth > 0 else self.number(0, 4)
        if form <= 3:
            other = self.number(0, 5)
            if other == 4 and scope.lists:
                return self.list_statement(scope)
            if other == 5:
                return self.tuple_assignment(scope)
            if form == 3 and scope.loop and self.number(0, 1) == 0:
                # a temporary local to this block (read by the statements after it)
                return ("set", f"t{next(self.names)}", "=", self.scalar(scope, 2))
            return self.assignment(scope)
        if form == 4 and nested and self.number(0, 2) == 0:
            return ("return", f"0.5 * ({self.result})")
        if form == 4 and scope.loop:
            return ("jump", self.pick(["break", "continue"]))
        if form == 4 and scope.lists:
            return self.list_statement(scope)
        if form <= 7:
            return self.if_statement(scope, depth)
        if form <= 10:
            return self.with_none(scope, depth, self.while_statement)
        return self.with_none(scope, depth, self.for_statement)

    def with_none(self, scope, depth, loop):
        """The loop, sometimes after `t = None` (which an `if` in its body may assign in every
        branch before reading it)."""
        if not self.coin(4):
            return loop(scope, depth)
        name = f"t{next(self.names)}"
        return ("seq", [("set", name, "=", ("t", "None")), loop(scope.child(none=name), depth)],
                [])

    def if_statement(self, scope, depth):
        if self.number(0, 5) == 0:  # `if c: s1 = <from V and W only>`
            value = self.scalar(scope.outside(), 2)
            return ("if", [(self.condition(scope), [
                ("set", self.pick(self.state(scope)), "=", ("fn", "rt.tanh", value))])], None)
        if self.coin(2 if scope.nones else 5):
            return self.none_if(scope, depth)
        arms, other = self.branches(scope, lambda: self.block(scope, depth - 1), 2, None)
        return ("if", arms, other)

    def branches(self, scope, arm, most_elifs, other):
        """The arms (condition, body) and else body (None: none) of an `if`, drawn by `arm`,
        and what the `if` stages (see __init__)."""
        before, ends, changes = set(self.staged), [], []

        def branch(condition):
            self.staged = set(before)
            self.changed.append(set())
            body = arm()
            ends.append(self.staged)
            changes.append(self.changed.pop())
            return (condition, body) if condition else body

        arms = [branch(self.condition(scope))]
        for _ in range(self.number(0, most_elifs)):
            arms.append(branch(self.condition(scope)))
        if other is None and self.coin(2):
            other = arm
        other = branch(None) if other else None
        if other is None:
            ends.append(before)
            changes.append(set())
        if all(self.tensor_condition(condition) for condition, _ in arms):
            # a graph `if`: a list one branch changes in length is staged after it
            changed = set().union(*changes)
            self.staged = before | changed
        else:  # a Python `if` (or one that may be): what every branch does
            changed = set.intersection(*changes)
            self.staged = set.intersection(*ends)
        self.changed[-1] |= changed
        return arms, other

    def tensor_condition(self, node):
        """Whether a condition surely is a tensor in a graph."""
        if node[0] == "cmp":
            return True
        if node[0] == "t":  # `i % 2 == 0`, `i < 2`
            return node[1].split()[0] not in self.python_indices
        if node[0] == "not":
            return self.tensor_condition(node[1])
        return self.tensor_condition(node[1]) and self.tensor_condition(node[2])

    def loop(self, tensor, body, orelse):
        """Draws a loop's body and else (functions), and tracks what it stages."""
        before = set(self.staged)
        self.changed.append(set())
        body = body()
        changed = self.changed.pop()
        if tensor:  # a list the body changes in length is staged by the graph loop
            self.changed[-1] |= changed
            self.staged = before | changed
        else:
            self.staged = before
        after = set(self.staged)
        self.changed.append(set())
        orelse = orelse()
        self.changed.pop()
        self.staged = after
        return body, orelse

    def none_if(self, scope, depth):
        """`t = None`, an `if`/`elif`/`else` assigning t in every branch, then a read of t."""
        reuse = scope.nones and not self.coin(4)
        name = self.pick(scope.nones) if reuse else f"t{next(self.names)}"

        def arm():
            first = ("set", name, "=", self.scalar(scope, 2))
            return [first] + (self.block(scope, depth - 1) if self.coin(3) else [])

        arms, other = self.branches(scope, arm, 1, arm)
        target = self.pick(self.state(scope))
        use = ("set", target, "=", self.decay(target, ("bin", "*", ("t", name),
                                                       ("t", self.pick(LITERALS)))))
        init = [] if reuse else [("set", name, "=", ("t", "None"))]
        return ("seq", init + [("if", arms, other), use], [name])

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
        tensor = form > 0 or bound == "n" or start != "0"
        if not tensor:
            self.python_indices.add(counter)
        body, orelse = self.loop(tensor, lambda: self.block(scope.child(counter, True),
                                                            depth - 1),
                                 lambda: self.orelse(scope, depth))
        return ("while", counter, start, test, body, orelse)

    def for_statement(self, scope, depth):
        index = f"j{next(self.names)}"
        over = "list" if scope.lists and self.coin(3) else self.pick(
            ["rt.range(n)", "rt.range(3)", "rt.range(0)", "range(2)", "rt.range(n - 1)", "vector"])
        orelse = lambda: self.orelse(scope, depth)
        if over == "vector":  # over the items of a vector (a tensor: a graph loop)
            item = index.replace("j", "e")
            over = self.pick([("t", "v"), ("t", "W * x"), self.vector(scope, 1)])
            body, orelse = self.loop(True, lambda: self.block(
                scope.child(loop=True, item=item), depth - 1), orelse)
            return ("for", item, over, body, orelse)
        if over == "list":
            name = self.pick(scope.lists)
            tensor = name in self.staged  # else a Python loop over a Python list
            if self.lists[name] != "r0" and self.coin(2):  # for e in l0:
                item = index.replace("j", "e")
                child = (scope.child(loop=True, item=item, frozen=name) if self.lists[name] ==
                         "l0" else scope.child(loop=True, vitem=item, frozen=name))
                body, orelse = self.loop(tensor, lambda: self.block(child, depth - 1), orelse)
                return ("for", item, ("t", name), body, orelse)
            # for k in range(len(l0)): reads l0[k] (l0 is not shortened in the body)
            index = index.replace("j", "k")
            over = self.pick([f"range(len({name}))", f"rt.range(len({name}))"])
            tensor = tensor or over.startswith("rt.")
            if not tensor:
                self.python_indices.add(index)
            at = (name, index) if self.lists[name] != "r0" else None
            child = scope.child(index, True, nopop=name, at=at)

            def body():
                first = []
                if at and (name in self.staged or not tensor) and self.pick([1, 0]):
                    item = f"{name}[{index}]"
                    if self.pick(["read", "write"]) == "read":  # s = s * 0.5 + sin(l0[k])
                        target = self.pick(self.state(scope))
                        item += "[0]" if self.lists[name] == "q0" else ""
                        first = [("set", target, "=", self.decay(target, ("t", item)))]
                    else:  # l0[k] = l0[k] * 0.5 + sin(...)
                        value = self.item(child, self.lists[name])
                        first = [("set", item, "=", self.decay(item, value))]
                return first + self.block(child, depth - 1)

            body, orelse = self.loop(tensor, body, orelse)
            return ("for", index, ("t", over), body, orelse)
        if over == "range(2)":
            self.python_indices.add(index)
        body, orelse = self.loop(over != "range(2)", lambda: self.block(
            scope.child(index, True), depth - 1), orelse)
        return ("for", index, ("t", over), body, orelse)

    def program(self):
        order = 2 if self.coin(4) else 1
        self.smooth = order == 2
        ns, nv = self.number(1, 3), self.number(0, 2)
        self.accumulator = self.number(0, 3) == 0
        scalars = [f"s{k}" for k in range(ns)]
        vectors = [f"u{k}" for k in range(nv)]
        weights = ["1.0", "0.7", "-0.4"]
        terms = [f"{w} * {s}" for w, s in zip(weights, scalars)]
        terms += [f"rt.reduce_sum({u} * W)" for u in vectors]
        terms += ["0.5 * a0"] if self.accumulator else []
        starts = {}
        for name, odds in (("l0", 3), ("q0", 5), ("r0", 8)):
            if self.coin(odds):
                self.lists[name] = name  # the kind of a list is its name
                if self.number(0, 99) < 12:
                    self.maybe_empty.add(name)
                starts[name] = "[]" if name in self.maybe_empty else self.pick(LIST_STARTS[name])
                results = LIST_RESULTS[name]
                if name in self.maybe_empty:  # rt.convert_to_tensor([]) is a float32 [0]
                    results = [r for r in results if "convert_to_tensor" not in r]
                term = self.pick(results)
                if name in self.maybe_empty and self.coin(2):
                    term = f"({term} if {name} else x * 0.0)"
                terms.append(term)
        self.result = " + ".join(terms)
        top = _Scope(["x"], [])
        init = []
        if self.coin(2):  # a value computed before the loops and read inside them
            init.append(("set", "c0", "=", self.scalar(top, 2)))
            top.scalars.append("c0")
        for s in scalars:
            if s != "s0" and self.coin(4):  # a Python number the loops turn into a tensor
                init.append(("set", s, "=", ("t", self.pick(PYTHON_STARTS))))
                self.weak.add(s)
                continue
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
        init += [("set", name, "=", ("t", start)) for name, start in starts.items()]
        scope = _Scope(top.scalars + scalars, vectors, lists=list(self.lists))
        body = self.block(scope, 3, size=3, nested=False)
        return Program(init, body, self.result, order)


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


# ---- boundary mode: helpers in rt.function, f differentiated from outside ---------------------

# A Python list that a graph `if` or loop changed in length is an rt.TensorList; passed to an
# rt.function while a caller is traced, the callee is traced as part of the caller (it used to
# raise "Argument q0 is a TensorList, which cannot be part of a function's signature"). On;
# GRAD_FUZZ_LIST_ARGUMENTS=0 turns it off. (A loop index of `range(2)`, a Python int, that an
# input_signature makes a tensor may index a Python list in the helper:
# OperatorNotAllowedInGraphError, a documented limit, not a bug.)
LIST_ARGUMENTS = os.environ.get("GRAD_FUZZ_LIST_ARGUMENTS", "1") == "1"
# `rt.grad` gives None for an argument no op connects to the result, and eagerly Python's `if`
# connects only the branch it takes; a graph `If` (or `While`) connects all its inputs, and its
# gradient gives zeros for one the result does not depend on. So `rt.grad(rt.function(f))` gives
# 0.0 where `rt.grad(f)` gives None (no helper needed):
#     def f(x, v):
#         u = W * 1.0
#         if v[1] - v[0] >= 0.5: u = rt.tanh(u)
#         else: x = rt.sin(W[1])                 # x never read afterwards
#         return rt.reduce_sum(u * W)
# The tapes of this file ask for unconnected_gradients="zero" and never see it; the rt.grad ways
# of boundary mode count a None against zeros (either way round) as zeros, unless this is True.
NONE_VS_ZEROS = os.environ.get("GRAD_FUZZ_NONE_VS_ZEROS") == "1"
# A Python number that a graph loop carries (`s1 = 0.0` or `a0 = 0.0` before
# `for i in rt.range(n): s1 = h(s1, v)`) is weak: it takes the dtype the body gives it
# (float64), also when it is passed to an rt.function (fixed: it used to become a float32
# tensor there). On; GRAD_FUZZ_WEAK_ARGUMENTS=0 turns it off.
WEAK_ARGUMENTS = os.environ.get("GRAD_FUZZ_WEAK_ARGUMENTS", "1") == "1"
# Names a helper reads as module globals (or builtins), never as parameters
_GLOBAL_NAMES = frozenset({"rt", "W", "C", "V", "len", "range", "None"})
# Expression nodes a helper may compute (not leaves, not conditions)
_HELPER_EXPRESSIONS = ("bin", "fn", "div", "exp", "max", "red", "idx")
SCALAR, VECTOR, INDEX, LIST, MAYBE_NONE = "scalar", "vector", "index", "list", "maybe None"
WEAK = "weak"  # a variable that starts as a Python number (its type: a scalar)
SPECS = {SCALAR: "rt.TensorSpec([], rt.float64)", VECTOR: "rt.TensorSpec([3], rt.float64)",
         INDEX: "rt.TensorSpec([], rt.int32)"}
F_SIGNATURE = (f"input_signature=[{SPECS[SCALAR]}, {SPECS[VECTOR]}, {SPECS[INDEX]}]")


class Helper:
    """A module-level function of the boundary program: `expression` (a node it returns) or
    `statement` (a statement it runs, returning `outputs`), under `decorator` (None: a Python
    function)."""

    def __init__(self, name, params, node, outputs=None, decorator=None):
        self.name, self.params, self.node = name, params, node
        self.outputs, self.decorator = outputs, decorator

    def source(self):
        lines = [f"@{self.decorator}"] if self.decorator else []
        lines.append(f"def {self.name}({', '.join(self.params)}):")
        if self.outputs is None:
            lines.append(f"    return {render(self.node, False)}")
        else:
            lines += render_block([self.node], 1, False)
            lines.append(f"    return {', '.join(self.outputs)}")
        return "\n".join(lines) + "\n"


def _names(text, mode="exec"):
    """(loaded names, stored names) of Python source `text`."""
    loads, stores = set(), set()
    for node in ast.walk(ast.parse(text, mode=mode)):
        if isinstance(node, ast.Name):
            (stores if isinstance(node.ctx, ast.Store) else loads).add(node.id)
    return loads, stores


def _jumps_out(tree) -> bool:
    """Whether `tree` has a `return`, or a `break` / `continue` outside its own loops."""
    def visit(node, in_loop):
        if isinstance(node, ast.Return):
            return True
        if isinstance(node, (ast.Break, ast.Continue)):
            return not in_loop
        if isinstance(node, (ast.For, ast.While)):
            return (any(visit(child, True) for child in node.body)
                    or any(visit(child, in_loop) for child in node.orelse)
                    or visit(node.iter if isinstance(node, ast.For) else node.test, in_loop))
        return any(visit(child, in_loop) for child in ast.iter_child_nodes(node))
    return visit(tree, False)


def _changes_lists(tree, lists) -> bool:
    """Whether `tree` changes one of the Python lists `lists` (`l0.append`, `l0[i] = `,
    `l0 = ...`, `l0 += ...`): a helper gets the caller's list object (changing it in place is
    not what a function boundary keeps)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in lists and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(
                node.value, ast.Name) and node.value.id in lists:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                node.value.id in lists):
            return True
    return False


class _Boundaries:
    """Finds where a program may call a helper (`sites`, in walk order: expression nodes, and
    `if` / loop / `seq` statements that do not jump out, return or change a list), and with
    `chosen` site numbers writes those helpers (`decide(helper)` draws each one's decorator).
    Helper parameters are the names the code reads or writes that are surely defined before it
    (the function's arguments, what the lines before it in its block and the blocks around it
    assign, loop indices); a statement helper returns the names it writes that are defined
    before it, and the name a none_if `seq` declares for the statements after it."""

    def __init__(self, program, chosen=None, decide=None):
        self.program, self.chosen, self.decide = program, chosen, decide
        self.sites: list = []
        self.helpers: list = []
        self.lists = {name for name in ("l0", "q0", "r0")
                      if any(s[0] == "set" and s[1] == name for s in program.init)}
        self.types = {"x": SCALAR, "v": VECTOR, "n": INDEX, "a0": SCALAR, "c0": SCALAR,
                      **{name: LIST for name in self.lists}}
        self.weak = {s[1] for s in program.init if s[0] == "set" and s[3][0] == "t" and (
            s[3][1] in PYTHON_STARTS)}  # (a0 = 0.0 too)

    def run(self):
        stmts = self.block(self.program.init + self.program.body, {"x", "v", "n"})
        return stmts[:len(self.program.init)], stmts[len(self.program.init):]

    def site(self, kind) -> bool:
        self.sites.append(kind)
        return self.chosen is not None and len(self.sites) - 1 in self.chosen

    def helper(self, params, node, outputs=None):
        helper = Helper(f"h{len(self.helpers)}", params, node, outputs)
        self.helpers.append(helper)
        helper.decorator = self.decide(helper, [self.type_of(p) for p in params])
        return helper

    def refused(self, params) -> bool:
        """Whether a helper may not take `params` (see LIST_ARGUMENTS and WEAK_ARGUMENTS)."""
        return bool((not LIST_ARGUMENTS and set(params) & self.lists)
                    or (not WEAK_ARGUMENTS and set(params) & self.weak))

    def type_of(self, name):
        if name in self.types:
            return self.types[name]
        if name[0] == "s" or name in ("a0", "c0", "x") or name[0] == "t":
            return SCALAR
        if name[0] == "u" or name == "v":
            return VECTOR
        return None

    # expressions
    def expr(self, node, defined):
        if node[0] == "t":
            return node
        params = None
        if node[0] in _HELPER_EXPRESSIONS:
            loads, _ = _names(render(node, False, inline=True), "eval")
            params = sorted(loads - _GLOBAL_NAMES)
            if self.refused(params):
                params = None
        chosen = params is not None and self.site("expression")
        node = tuple(self.expr(part, defined) if isinstance(part, tuple) else part
                     for part in node)
        if not chosen:
            return node
        assert set(params) <= defined, (params, defined)
        return ("helper", self.helper(params, node).name, params, node)

    # statements
    def block(self, stmts, defined):
        defined, out = set(defined), []
        for stmt in stmts:
            out.append(self.statement(stmt, defined))
            defined |= self.assigned(stmt)
        return out

    def assigned(self, stmt) -> set:
        """The names a statement surely assigns (at its own level)."""
        if stmt[0] == "set" and stmt[2] == "=" and stmt[1].isidentifier():
            return {stmt[1]}
        if stmt[0] == "tuple":
            return set(stmt[1])
        if stmt[0] == "seq":
            return set().union(*(self.assigned(s) for s in stmt[1]))
        return set()

    def extractable(self, stmt, defined):
        """(parameters, outputs) of a helper running `stmt`, or None."""
        if stmt[0] not in ("if", "while", "for", "seq"):
            return None
        text = "\n".join(render_block([stmt], 0, False, inline=True))
        tree = ast.parse(text)
        if _jumps_out(tree) or _changes_lists(tree, self.lists):
            return None
        loads, stores = _names(text)
        loads -= _GLOBAL_NAMES
        if not (loads - stores) <= defined:
            return None
        params = sorted((loads | stores) & defined)
        if self.refused(params):
            return None
        if any(self.type_of(name) == MAYBE_NONE for name in stores & defined):
            # `t = None` before a loop whose body sets t in every branch of an `if`: passed
            # in, t would be read before the loop sets it (None in a graph loop: refused)
            return None
        # (a `seq` returns what it declares for later statements: its `t = None` and `if` of
        # none_if, not the `t = None` before a loop of with_none, dead after the loop)
        outputs = sorted((stores & defined) | set(stmt[2] if stmt[0] == "seq" else ()))
        return (params, outputs) if outputs else None

    def statement(self, stmt, defined):
        kind = stmt[0]
        if kind == "set" and stmt[3] == ("t", "None"):
            self.types[stmt[1]] = MAYBE_NONE
        helper = self.extractable(stmt, defined)
        chosen = helper is not None and self.site("statement")
        stmt = self.inside(stmt, defined)
        if not chosen:
            return stmt
        params, outputs = helper
        return ("helper_stmt", self.helper(params, stmt, outputs).name, params, outputs, stmt)

    def inside(self, stmt, defined):
        """`stmt` with the helpers chosen inside it."""
        kind = stmt[0]
        e = lambda node, names=defined: self.expr(node, names)
        if kind == "set":
            return ("set", stmt[1], stmt[2], e(stmt[3]))
        if kind == "tuple":
            return ("tuple", stmt[1], [e(value) for value in stmt[2]])
        if kind == "call":
            return ("call", stmt[1], e(stmt[2]))
        if kind == "seq":
            return ("seq", self.block(stmt[1], defined), stmt[2])
        if kind == "if":
            arms = [(e(cond), self.block(body, defined)) for cond, body in stmt[1]]
            return ("if", arms, None if stmt[2] is None else self.block(stmt[2], defined))
        if kind == "while":
            _, counter, start, test, body, orelse = stmt
            self.types[counter] = INDEX
            inner = defined | {counter}
            return ("while", counter, start, e(test, inner), self.block(body, inner),
                    orelse and self.block(orelse, defined))
        if kind == "for":
            _, index, over, body, orelse = stmt
            if over[0] == "t" and "range(" in over[1]:
                self.types[index] = INDEX
            elif over == ("t", "q0"):
                self.types[index] = VECTOR
            else:
                self.types[index] = SCALAR  # an item of a vector or of l0
            return ("for", index, e(over), self.block(body, defined | {index}),
                    orelse and self.block(orelse, defined))
        return stmt  # jump, return, expr


def with_boundaries(program, draw) -> Program:
    """`program` with some of its expressions and statements moved into helpers (one to four),
    each an `rt.function` (with an input_signature when its parameters are all tensors of
    known dtype and shape, some of the time), or a Python function; and `F`, f decorated."""
    counter = _Boundaries(program)  # (finds the sites)
    counter.run()
    sites = counter.sites
    chosen = set()
    if sites:
        chosen = set(draw(st.lists(st.integers(0, len(sites) - 1), min_size=1, max_size=3,
                                   unique=True)))
        statements = [i for i, kind in enumerate(sites) if kind == "statement"]
        if statements and draw(st.integers(0, 2)) < 2:  # a statement helper, two times in three
            chosen.add(draw(st.sampled_from(statements)))

    def decide(helper, types):
        options = ["rt.function", "rt.function", None]
        if all(t in SPECS for t in types):
            specs = ", ".join(SPECS[t] for t in types)
            options.append(f"rt.function(input_signature=[{specs}])")
        return draw(st.sampled_from(options))

    boundaries = _Boundaries(program, chosen, decide)
    init, body = boundaries.run()
    decorated = ("F = rt.function(f)" if draw(st.booleans()) else
                 f"F = rt.function(f, {F_SIGNATURE})")
    return Program(init, body, program.result, program.order, boundaries.helpers, decorated)


@st.composite
def boundary_cases(draw):
    program = with_boundaries(draw(programs()), draw)
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
    module = import_source(path, program.module())
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


# The weights of the first-order gradient in a second-order program's checked quantity
DIRECTION = (np.array(0.7), np.array([0.5, -1.0, 1.5]), np.array([1.1, 0.3, -0.6]))


def second_order(f, variable):
    """A function of (x, v, n): f's value, g = (f's gradient with respect to x, v, V) .
    DIRECTION (reduced inside the outer tape) and g's gradients with respect to x, v and V."""
    wx, wv, wV = (rt.constant(w) for w in DIRECTION)

    def value_and_second_gradients(x, v, n):
        with rt.GradientTape() as outer:
            outer.watch([x, v])
            with rt.GradientTape() as inner:
                inner.watch([x, v])
                y = f(x, v, n)
            gx, gv, gV = inner.gradient(y, [x, v, variable], unconnected_gradients="zero")
            g = rt.reduce_sum(gx * wx) + rt.reduce_sum(gv * wv) + rt.reduce_sum(gV * wV)
        hx, hv, hV = outer.gradient(g, [x, v, variable], unconnected_gradients="zero")
        return y, g, hx, hv, hV

    return value_and_second_gradients


def _numpy(outputs, values):
    """(The first `values` outputs, the rest flattened into one vector), as float64 arrays."""
    arrays = [np.asarray(t.numpy() if hasattr(t, "numpy") else t, np.float64) for t in outputs]
    return (np.array([float(a) for a in arrays[:values]]),
            np.concatenate([a.reshape(-1) for a in arrays[values:]]))


def _checked_quantity(module, order, f=None):
    """The function of (x, v, n) tensors whose gradient the program checks: f, or (order 2)
    f's first-order gradient (eager) in DIRECTION. (`f`: another function of the module.)"""
    f = f or module.f
    if order == 1:
        return lambda *args: float(f(*args))
    first = gradients(f, module.V)

    def directional(*args):
        _, *grads = first(*args)
        return float(sum(np.sum(np.asarray(g.numpy(), np.float64) * w)
                         for g, w in zip(grads, DIRECTION)))

    return directional


def finite_differences(module, x, v, n, order=1, f=None):
    """Central differences of the checked quantity with respect to x, v and V (7 numbers)."""
    quantity = _checked_quantity(module, order, f)
    h = H if order == 1 else H2
    point = np.array([x, *v, *module.V.numpy()], np.float64)
    grad = np.zeros(point.size)
    try:
        for k in range(point.size):
            values = []
            for step in (h, -h):
                p = point.copy()
                p[k] += step
                module.V.assign(p[4:])
                values.append(quantity(*_tensors(p[0], p[1:4], n)))
            grad[k] = (values[0] - values[1]) / (2 * h)
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


def _empty_list(error):
    """The error of Python's rt.stack / rt.concat of an empty list."""
    return isinstance(error, ValueError) and re.search(
        r"(stack|concat) needs at least one tensor", str(error))


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
        found = {"kind": kind, "order": program.order, "program": program.source,
                 "inputs": inputs, **{k: (v.tolist() if isinstance(v, np.ndarray) else v)
                                      for k, v in numbers.items()}}
        source = program.source
        if program.boundary is not None:
            found["undecorated"] = program.plain_source
            source += "\nundecorated (the reference):\n" + program.plain_source
        self.failures.append(found)
        if self.strict:
            raise AssertionError("\n".join(
                [f"gradient fuzz: {kind}", f"program (order {program.order}):", source,
                 f"inputs (x, v, n): {inputs}"] + [f"{k}: {v}" for k, v in numbers.items()]))

    def run(self, program, inputs):
        order = program.order
        prefix = "" if order == 1 else "second order: "
        self.counts[prefix + "programs"] += 1
        module, path = load(program)
        differentiate = gradients if order == 1 else second_order
        eager = differentiate(module.f, module.V)
        graph = rt.function(differentiate(module.f, module.V))
        for x, v, n in inputs:
            self.counts[prefix + "inputs"] += 1
            args = (x, list(v), n)
            try:
                eager_y, eager_g = _numpy(eager(*_tensors(x, v, n)), order)
            except Exception as eager_error:  # noqa: BLE001 - recorded
                self.both_raised(program, path, graph, args, eager_error)
                continue
            try:
                graph_y, graph_g = _numpy(graph(*_tensors(x, v, n)), order)
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
                self.fail(f"{prefix}gradient: eager vs graph", program, args, eager=eager_g,
                          graph=graph_g, margin=closest)
            if closest < MARGIN:
                self.counts[f"inputs within {MARGIN} of a tie ({where}): no finite "
                            "differences"] += 1
                continue
            self.counts[prefix + "inputs checked against finite differences"] += 1
            numeric = finite_differences(module, x, v, n, order)
            rtol, atol = ((FD_RTOL, 1e-6 * (1 + abs(eager_y[0]))) if order == 1 else
                          (FD2_RTOL, 1e-5 * (1 + abs(eager_y[1]))))
            for label, got in (("eager", eager_g), ("graph", graph_g)):
                if not np.allclose(got, numeric, rtol=rtol, atol=atol):
                    self.fail(f"{prefix}gradient: {label} vs finite differences", program,
                              args, tape=got, finite_differences=numeric, margin=closest)

    def run_boundary(self, program, inputs):
        """Boundary mode: the undecorated program (f_plain) differentiated by an eager tape
        (checked against finite differences, as in `run`) is the reference for each way of
        differentiating the program with its boundaries (`boundary_ways`): values and gradients
        equal (SAME), or both raise an empty list's error (see `both_raised`)."""
        order = program.order
        prefix = "boundary: " + ("" if order == 1 else "second order: ")
        self.counts[prefix + "programs"] += 1
        self.counts[prefix + "helpers in rt.function"] += sum(
            bool(h.decorator) for h in program.helpers)
        self.counts[prefix + "helpers as Python functions"] += sum(
            not h.decorator for h in program.helpers)
        module, path = load(program)
        ways = boundary_ways(module, order)
        for x, v, n in inputs:
            self.counts[prefix + "inputs"] += 1
            args = (x, list(v), n)
            try:
                closest = margin(module, x, v, n)[0]
            except Exception:  # noqa: BLE001 - f raises (an empty list stacked): see below
                closest = math.inf
            compare = not 0 < closest < 1e-9  # (see `run`)
            results = {}
            for label, (way, reference, values) in ways.items():
                if reference is None:
                    continue  # (a graph reference)
                if reference not in results:
                    results[reference] = _outcome(ways[reference][0], x, v, n, values)
                expected = results[reference]
                if label == reference:
                    continue
                self.counts[prefix + "ways run"] += 1
                got = _outcome(way, x, v, n, values)
                if isinstance(got, Exception) and not (isinstance(expected, Exception) and (
                        type(got) is type(expected) or _clear(got, path))):
                    # as the undecorated program in a graph raises?
                    graph_reference = GRAPH_REFERENCES[reference]
                    if graph_reference not in results:
                        results[graph_reference] = _outcome(ways[graph_reference][0], x, v, n,
                                                            values)
                    undecorated = results[graph_reference]
                    if isinstance(undecorated, Exception) and (
                            type(undecorated) is type(got) or isinstance(expected, Exception)
                            and not _clear(undecorated, path)):
                        self.counts[f"boundary: raised where {graph_reference} raises too "
                                    "(not about the boundary)"] += 1
                        continue
                self.compare_way(program, path, args, label, reference, expected, got,
                                 compare)
            reference = results["tape around f_plain (undecorated, eager)"]
            if isinstance(reference, Exception) and not _empty_list(reference):
                self.fail("undecorated: eager tape raised (not about the boundary)", program,
                          args, error=_describe(reference))
            elif compare and closest >= MARGIN and not isinstance(reference, Exception):
                self.counts[prefix + "inputs checked against finite differences"] += 1
                numeric = finite_differences(module, x, v, n, order, module.f_plain)
                eager_y, eager_g = reference[0], np.concatenate([g.reshape(-1)
                                                                 for g in reference[1]])
                rtol, atol = ((FD_RTOL, 1e-6 * (1 + abs(eager_y[0]))) if order == 1 else
                              (FD2_RTOL, 1e-5 * (1 + abs(eager_y[1]))))
                if not np.allclose(eager_g, numeric, rtol=rtol, atol=atol):
                    self.fail("undecorated: eager vs finite differences (not about the "
                              "boundary)", program, args, tape=eager_g,
                              finite_differences=numeric, margin=closest)

    def compare_way(self, program, path, args, label, reference, expected, got, compare):
        if isinstance(expected, Exception):  # (an empty list stacked; rt.grad of a None)
            if (not NONE_VS_ZEROS and not isinstance(got, Exception) and _of_none(expected)
                    and not any(np.any(g) for g in got[1] if g is not None)):
                # rt.grad(rt.grad(f_plain)): the inner rt.grad gave None (see NONE_VS_ZEROS)
                self.counts["boundary: rt.grad: None where the reference has zeros, or the "
                            "reverse (NONE_VS_ZEROS)"] += 1
                return
            if not isinstance(got, Exception):
                self.fail(f"{label}: returned where {reference} raised", program, args,
                          reference_error=_describe(expected), got=str(got))
            elif _clear(got, path) or type(got) is type(expected):
                self.counts[f"boundary: both raised ({type(expected).__name__})"] += 1
            else:
                self.fail(f"{label}: raised an unclear error where {reference} raised",
                          program, args, reference_error=_describe(expected),
                          error=_describe(got))
            return
        if isinstance(got, Exception):
            if _documented(got):
                self.counts[f"boundary: error, a documented limit ({type(got).__name__})"] += 1
                return
            clear = "a clear" if _clear(got, path) else "an unclear"
            self.fail(f"{label}: raised {clear} error where {reference} returned", program,
                      args, error=_describe(got))
            return
        if not compare:
            self.counts["boundary: inputs within 1e-9 of a tie: not compared"] += 1
            return
        (e_values, e_grads), (g_values, g_grads) = expected, got
        if not NONE_VS_ZEROS and any((e is None) != (g is None) and not np.any(
                e if g is None else g) for e, g in zip(e_grads, g_grads)):
            self.counts["boundary: rt.grad: None where the reference has zeros, or the "
                        "reverse (NONE_VS_ZEROS)"] += 1
            e_grads, g_grads = ([np.zeros_like(b) if a is None and b is not None else a
                                 for a, b in zip(first, second)]
                                for first, second in ((e_grads, g_grads), (g_grads, e_grads)))
        if not np.allclose(g_values, e_values, **SAME):
            self.fail(f"{label}: value differs from {reference}", program, args,
                      expected=e_values, got=g_values)
        elif len(e_grads) != len(g_grads) or any(
                (e is None) != (g is None) or (e is not None and (
                    e.shape != g.shape or not np.allclose(g, e, **SAME)))
                for e, g in zip(e_grads, g_grads)):
            self.fail(f"{label}: gradient differs from {reference}", program, args,
                      expected=_show(e_grads), got=_show(g_grads))

    def both_raised(self, program, path, graph, args, eager_error):
        """Eager f raised: agreement only when it is an rt.stack / rt.concat of a list left
        empty (a program that may draw `l0 = []`) and the graph raises too: a clear error, or
        (a list the graph left a Python list) Python's error."""
        if not _empty_list(eager_error):
            self.fail("eager raised", program, args, error=_describe(eager_error))
            return
        try:
            outputs = graph(*_tensors(*args))
        except Exception as error:  # noqa: BLE001 - recorded
            if _clear(error, path) or (type(error) is type(eager_error) and str(error).split(
                    "\n")[0] == str(eager_error).split("\n")[0]):
                self.counts["an empty list stacked: eager and graph raised"] += 1
            else:
                self.fail("an empty list stacked: graph raised an unclear error", program,
                          args, eager_error=_describe(eager_error), error=_describe(error))
            return
        self.fail("an empty list stacked: eager raised, graph did not", program, args,
                  eager_error=_describe(eager_error), graph=str(outputs))


def _grad_of_grad(f):
    """d2f/dx2 as `rt.grad(rt.grad(f))`."""
    return rt.grad(rt.grad(f))


# The undecorated program in a graph, for each reference: where a way raises and this raises
# the same error (or, where the reference raised too, an unclear one), the error is not about
# the boundary (the non-boundary test reports it). Found so: a `return` in a graph loop in a
# graph `if` before `rt.stack` of an empty list raises "UnboundLocalError: '<return value>' is
# used before it is assigned" (under tapes "TypeError: tape.gradient: the target must be a
# tensor, got UndefinedReturn") where Python raises "stack needs at least one tensor"; a
# `return` in a graph loop makes the Python `while i < 3` around it a graph loop, whose counter
# (a tensor) then indexes a Python list: OperatorNotAllowedInGraphError (the writer's
# `python_indices` takes that counter for a Python int).
GRAPH_REFERENCES = {
    "tape around f_plain (undecorated, eager)": "rt.function(tape around f_plain)",
    "rt.grad(f_plain) (undecorated, eager)": "rt.function(rt.grad(f_plain))",
    "rt.grad(rt.grad(f_plain)) (undecorated, eager)": "rt.function(rt.grad(rt.grad(f_plain)))",
}


def boundary_ways(module, order):
    """{label: (function of x, v, n tensors, label of its reference, how many leading outputs
    are values)}: the ways to differentiate the program with its boundaries, and their
    references (the same way on the undecorated f_plain, eagerly; a reference is its own
    reference); and the GRAPH_REFERENCES (reference None: run only when needed)."""
    f, f_plain, F, V = module.f, module.f_plain, module.F, module.V
    tape = "tape around f_plain (undecorated, eager)"
    if order == 1:
        grad = "rt.grad(f_plain) (undecorated, eager)"
        return {
            tape: (gradients(f_plain, V), tape, 1),
            GRAPH_REFERENCES[tape]: (rt.function(gradients(f_plain, V)), None, 1),
            GRAPH_REFERENCES[grad]: (rt.function(rt.grad(f_plain, argnums=(0, 1))), None, 0),
            "tape around f (helpers as written), eager": (gradients(f, V), tape, 1),
            "tape around F = rt.function(f), eager": (gradients(F, V), tape, 1),
            "rt.function(tape around f)": (rt.function(gradients(f, V)), tape, 1),
            "rt.function(tape around F)": (rt.function(gradients(F, V)), tape, 1),
            grad: (rt.grad(f_plain, argnums=(0, 1)), grad, 0),
            "rt.grad(F), eager": (rt.grad(F, argnums=(0, 1)), grad, 0),
            "rt.function(rt.grad(F))": (rt.function(rt.grad(F, argnums=(0, 1))), grad, 0),
        }
    tape = "tape around f_plain (undecorated, eager)"
    grad = "rt.grad(rt.grad(f_plain)) (undecorated, eager)"
    return {
        tape: (second_order(f_plain, V), tape, 2),
        GRAPH_REFERENCES[tape]: (rt.function(second_order(f_plain, V)), None, 2),
        GRAPH_REFERENCES[grad]: (rt.function(_grad_of_grad(f_plain)), None, 0),
        "tape in tape around f (helpers as written), eager": (second_order(f, V), tape, 2),
        "tape in tape around F = rt.function(f), eager": (second_order(F, V), tape, 2),
        "rt.function(tape in tape around F)": (rt.function(second_order(F, V)), tape, 2),
        grad: (_grad_of_grad(f_plain), grad, 0),
        "rt.grad(rt.grad(F)), eager": (_grad_of_grad(F), grad, 0),
        "rt.function(rt.grad(rt.grad(F)))": (rt.function(_grad_of_grad(F)), grad, 0),
    }


def _outcome(way, x, v, n, values):
    """(values, [each gradient: a float64 array or None]) of a way, or the error it raised."""
    try:
        outputs = way(*_tensors(x, v, n))
    except Exception as error:  # noqa: BLE001 - an outcome to compare
        return error
    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    arrays = [None if t is None else np.asarray(t.numpy() if hasattr(t, "numpy") else t,
                                                np.float64) for t in outputs]
    return np.array([float(a) for a in arrays[:values]]), arrays[values:]


def _of_none(error):
    """The error of rt.grad of a function that returned None (rt.grad of an rt.grad)."""
    return isinstance(error, TypeError) and "must be a tensor, got NoneType" in str(error)


def _show(grads):
    return [None if g is None else g.tolist() for g in grads]


@pytest.mark.skipif(BOUNDARY == "only", reason="GRAD_FUZZ_BOUNDARY=only")
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


@pytest.mark.skipif(BOUNDARY == "off", reason="GRAD_FUZZ_BOUNDARY=off")
def test_gradients_agree_across_function_boundaries():
    """Boundary mode (see the module's docstring)."""
    tally = Tally(strict=not REPORT)

    @settings(max_examples=BOUNDARY_PROGRAMS or 1, deadline=None, database=None,
              derandomize=not RANDOM, report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck))
    @given(case=boundary_cases())
    def run(case):
        tally.run_boundary(*case)

    run()
    summary = {"counts": dict(tally.counts), "failures": tally.failures}
    if REPORT:
        path = REPORT if BOUNDARY == "only" else REPORT + ".boundary.json"
        with open(path, "w") as file:
            json.dump(summary, file, indent=1)
    assert not tally.failures, json.dumps(summary["counts"], indent=1)


def test_generated_programs_use_every_form():
    """The generator writes what the docstring says (checked on a fixed sample)."""
    programs_ = _sample(400)
    seen = "".join(program.module() for program in programs_)
    for text in ("while", "for", "rt.range(n)", "rt.range(0)", "range(2)", "elif", "else:",
                 "break", "continue", "rt.maximum", "rt.reduce_max",
                 "rt.reduce_sum", "rt.reduce_mean", "rt.exp", "rt.sin", "rt.tanh", "rt.square",
                 "/ (1.5", "% 3]", "for e", " and ", "not (", "W", "V[", "c0", "u1", "s2", "a0 +=",
                 "_m(", "_mx(", "_rmax(",
                 # lists
                 "l0 = [x * 0.5]", "q0 = [", "r0 = [", "l0.append(", "q0.append(", "r0.append(",
                 "rt.stack(l0)", "rt.stack(q0)", "rt.concat(q0", "rt.concat(r0",
                 "rt.convert_to_tensor(l0)", "rt.cast(len("):
        assert text in seen, text
    # (list names vary: l0 scalars, q0 vectors, r0 vectors of other lengths)
    for pattern in (r"[lqr]0 = \[\]", r"l0\[-1\]", r"[lq]0\[0\]", r"q0\[-1\]",
                    r"% len\([lq]0\)\]", r"[lq]0\[-1\] = ", r"[lq]0\[0\] = ",
                    r"[lq]0\[k\d+\]", r"[lq]0\[k\d+\] = ", r"[lqr]0\.pop\(\)",
                    r"if len\([lqr]0\) > 1:", r"if [lqr]0:", r"if [lqr]0 else",
                    r"in rt\.range\(len\([lqr]0\)\)", r"in range\(len\([lqr]0\)\)",
                    r"in l0:", r"in q0:", r"[lqr]0\.extend\(\[", r"[lqr]0 \+= \[",
                    r"[lqr]0 = \([lqr]0 \+ \[",
                    # Python-number starts, None, tuples
                    r"s[12] = 0\.0\n", r"s[12] = 0\n", r"= None", r"s\d, s\d = s\d, ",
                    r"u\d, u\d = u\d, ", r"s\d, u\d = "):
        assert re.search(pattern, seen), pattern
    statements = [s for p in programs_ for s in _walk(p.body)]
    assert any(s[0] in ("while", "for") and s[-1] for s in statements)  # a loop `else`
    assert any(p.order == 2 for p in programs_) and any(p.order == 1 for p in programs_)
    # a `None` set before a loop and assigned in every branch of an `if` in its body
    assert any(s[0] == "seq" and s[1][0][3] == ("t", "None") and s[1][1][0] in ("while", "for")
               and any(inner[0] == "seq" and inner[2] == [s[1][0][1]] and len(inner[1]) == 2
                       for inner in _walk(s[1][1][-2])) for s in statements)
    # a read in a loop nested in a loop that breaks or continues
    assert any(s[0] in ("while", "for") and any(
        inner[0] in ("while", "for") and any(j[0] == "jump" for j in _walk(inner[-2]))
        for inner in _walk(s[-2])) for s in statements)
    # no rt.maximum / rt.reduce_max in second-order programs (not smooth)
    assert not any(p.order == 2 and re.search(r"rt\.maximum|rt\.reduce_max", p.source)
                   for p in programs_)


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
        elif stmt[0] == "seq":
            yield from _walk(stmt[1])


class _RandomWriter(_Writer):
    """The generator with uniform choices from a seeded random.Random (hypothesis's
    derandomized draws of a few hundred programs seldom vary some two-way choices)."""

    def __init__(self, seed):
        super().__init__(None)
        self.random = random.Random(seed)

    def pick(self, options):
        return self.random.choice(list(options))

    def number(self, low, high):
        return self.random.randint(low, high)

    def two(self, options):
        return self.random.sample(list(options), 2)


def _sample(count):
    return [_RandomWriter(seed).program() for seed in range(count)]
