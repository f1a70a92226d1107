"""Hypothesis strategies that write random programs over the language users write.

`cases()` draws a `Case`: the source of a module that defines `f(x, y, u, p, n)`, and two or
three argument tuples (x, y: int scalars; u: a float scalar; p: a float32 vector of 2-3
elements; n: a loop bound 0-4). The function mixes assignments to variables, dict items, list
items and attributes (`=`, `+=`, `-=`); `if`/`elif`/`else`; bounded `while` loops (`while k <
n and cond`, `while True` left by `break`) and `for` loops (over `range(k)`,
`range(n)`, `rt.range`, a vector, a Python list), with `else`; `break`, `continue` and `return`
at any depth; `try`/`except`/`else`/`finally` around a helper that raises `ValueError`; a lambda
and nested functions reading variables the body changes; `global` and `nonlocal` writes inside
branches and loops; variables assigned on some paths only (`z`, `d['j']`, a loop index read
after its loop); `and`/`or` values and conditional expressions; returns of scalars, vectors,
tuples, lists, dicts and `None` (one structure per program, plus bare `return`s).

Expressions are typed (int, float, vector) so that the numpy oracle never promotes where the
runtime raises by design (int32 with float32, Python float with int32). Values stay small and
float arithmetic exact, so the three runs can be compared bit for bit: assignments wrap with
`% 53 - 26`, `+=`/`-=` add only values that never grow (arguments, literals, loop indices), and
floats are multiplied only by small integers. Every `while` is bounded by a counter that is
incremented first in its body. Draws shrink towards fewer and simpler statements.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

INT, FLOAT, VEC = "int", "float", "vec"
MAX_DEPTH = 3  # compound statements nest at most this deep
MAX_LOOPS = 3  # loops per program
LITERALS = {INT: ("1", "0", "2", "-3"), FLOAT: ("0.5", "1", "-2.25", "1.5"), VEC: ()}
INITS = {INT: ("x", "0", "y", "2", "n"), FLOAT: ("u", "0", "0.5", "p[0]", "-1.5"),
         VEC: ("p", "p * 2", "p + u")}
JUMPS = ("return", "break", "continue")
_LOOP_NAMES = tuple(f"{k}{d}" for k in "ik" for d in range(MAX_DEPTH + 1))
# Every name a choice may pick, in a fixed order (see `_Writer.choose`).
NAMES = {INT: ("x", "y", "n", "a", "b", "G", "d['k']", "box.attr", "c", "z", "v", *_LOOP_NAMES),
         FLOAT: ("u", "p[0]", "p[-1]", "s", "t", "q[1]", "lst[-1]", *_LOOP_NAMES),
         VEC: ("p", "q")}
TARGETS = {INT: ("a", "b", "G", "d['k']", "d['j']", "box.attr", "z"),
           FLOAT: ("s", "t", "lst[0]", "lst[1]"), VEC: ("q",)}
STABLE = {INT: ("x", "y", "n", *_LOOP_NAMES), FLOAT: ("u", "p[0]", "p[1]", *_LOOP_NAMES), VEC: ()}
CALLS = {INT: ("g()", "inner({arg})"), FLOAT: ("g()",), VEC: ()}
EXPRESSIONS = ("atom", "atom", "binary", "binary", "ifexp", "boolop", "call")
CONDITIONS = ("compare", "compare", "compare", "not", "and", "or", "truth", "python")
STATEMENTS = ("assign", "assign", "augassign", "return", "if", "if", "while", "for", "for",
              "try", "break", "continue", "bump")
CHECK_HELPER = '''
def check(v):
    if v > 1:
        raise ValueError("check: v > 1")
    return v
'''
BOX_CLASS = '''
class Box:
    pass
'''


class Case(NamedTuple):
    source: str
    arg_sets: list


@dataclasses.dataclass
class Features:
    """Program-wide choices, drawn while the prologue is written; each shrinks to off."""

    global_: bool = False
    dict: bool = False
    list: bool = False
    box: bool = False  # an attribute of an instance of a class
    nonlocal_: bool = False  # `bump(v)` writes `c` through `nonlocal`
    lambda_: bool = False
    inner: bool = False  # `inner(v)`: a nested function with a branch, reading the body's variables
    try_: bool = False
    undefined: bool = False  # `z` is assigned in the body only (maybe on some paths)


RARE_FEATURES = ("global_", "nonlocal_")  # drawn one time in four


@dataclasses.dataclass(frozen=True)
class Scope:
    """What a statement may use, per type: readable expressions (`atoms`), values that never
    grow (`stable`, added by `+=`), assignable `targets` and `calls`; Python ints (for Python
    conditions); the nesting depth, and whether `break` is allowed."""

    atoms: dict
    stable: dict
    targets: dict
    calls: dict
    python_ints: tuple = ()
    depth: int = 0
    in_loop: bool = False

    def add(self, kind, name, stable=False, python=False, target=False, readable=True):
        def grow(table, yes=True):
            return {**table, kind: table[kind] + (name,)} if yes else table
        return dataclasses.replace(
            self, atoms=grow(self.atoms, readable), stable=grow(self.stable, stable),
            targets=grow(self.targets, target),
            python_ints=self.python_ints + ((name,) if python else ()))

    def with_call(self, kind, call):
        return dataclasses.replace(self, calls={**self.calls, kind: self.calls[kind] + (call,)})

    def nested(self, in_loop=None):
        return dataclasses.replace(
            self, depth=self.depth + 1, in_loop=self.in_loop if in_loop is None else in_loop)


def _indent(lines):
    return ["    " + line for line in lines]


def _wrap(expr):
    return f"{expr} % 53 - 26"


class _Writer:
    """Draws the statements of one program; `loops` counts the loops written so far."""

    def __init__(self, draw, template):
        self.draw = draw
        self.features = Features()
        self.template = template
        self.loops = 0

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def choose(self, options, available):
        """One of `available`, drawn by its position in the fixed `options`: a drawn option that
        is not available (e.g. the program has no dict) maps to an available one. So removing a
        feature leaves the program's other choices as they were, which lets hypothesis shrink."""
        index = self.draw(st.integers(0, len(options) - 1))
        if options[index] in available:
            return options[index]
        return available[index % len(available)]

    def chance(self, one_in):
        return self.draw(st.integers(0, one_in - 1)) == one_in - 1

    def span(self, write, *args):
        """`write(*args)` as one draw, which the shrinker can delete as a whole."""
        return self.draw(_span(self, write, args))

    def flag(self, feature):
        """Draws whether the program uses `feature` (some features one time in four)."""
        on = self.chance(4) if feature in RARE_FEATURES else self.draw(st.booleans())
        setattr(self.features, feature, on)
        return on

    # ---- expressions -------------------------------------------------------------------------
    def atom(self, scope, kind):
        return self.choose(NAMES[kind] + LITERALS[kind], scope.atoms[kind] + LITERALS[kind])

    def expr(self, scope, kind, depth=0):
        forms = {"atom"}
        if depth < 2:
            forms |= {"binary", "ifexp"}
            if kind != VEC:  # a vector's truth value is ambiguous
                forms.add("boolop")
            if scope.calls[kind]:
                forms.add("call")
        form = self.choose(EXPRESSIONS, [f for f in EXPRESSIONS if f in forms])
        if form == "atom":
            return self.atom(scope, kind)
        if form == "binary":
            op = self.pick(["+", "-", "*"])
            left = self.expr(scope, kind, depth + 1)
            if op == "*":
                return f"({left} * {self.draw(st.integers(-3, 3))})"
            right_kind = self.pick([VEC, FLOAT]) if kind == VEC else kind
            return f"({left} {op} {self.expr(scope, right_kind, depth + 1)})"
        if form == "ifexp":
            body, orelse = self.expr(scope, kind, depth + 1), self.expr(scope, kind, depth + 1)
            return f"({body} if {self.condition(scope, depth + 1)} else {orelse})"
        if form == "boolop":
            op = self.pick(["or", "and"])
            return f"({self.expr(scope, kind, depth + 1)} {op} {self.expr(scope, kind, depth + 1)})"
        call = self.choose(CALLS[kind], scope.calls[kind])
        return call.format(arg=self.expr(scope, INT, depth + 1))

    def condition(self, scope, depth=0):
        forms = {"compare"}
        if depth < 2:
            forms |= {"not", "and", "or", "truth"}
        if scope.python_ints:
            forms.add("python")
        form = self.choose(CONDITIONS, [f for f in CONDITIONS if f in forms])
        if form == "compare":
            kind = self.pick([INT, FLOAT])
            op = self.pick(["<", ">", "<=", ">=", "==", "!="])
            return f"{self.expr(scope, kind, 1)} {op} {self.expr(scope, kind, 1)}"
        if form == "not":
            return f"not ({self.condition(scope, depth + 1)})"
        if form == "truth":
            return self.expr(scope, INT, 1)
        if form == "python":
            name = self.choose(_LOOP_NAMES, scope.python_ints)
            return f"{name} % 2 == {self.draw(st.integers(0, 1))}"
        return f"({self.condition(scope, depth + 1)}) {form} ({self.condition(scope, depth + 1)})"

    def returned(self, scope, template):
        """An expression of the structure `template` (see `templates`)."""
        if template == "none":
            return "None"
        if template == "container":
            return "d" if self.features.dict else "lst" if self.features.list else "None"
        if isinstance(template, str):
            return self.expr(scope, template, 1)
        shape, children = template
        items = [self.returned(scope, child) for child in children]
        if shape == "dict":
            return "{" + ", ".join(f"'{k}': {v}" for k, v in zip("abc", items)) + "}"
        if shape == "list":
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    # ---- statements --------------------------------------------------------------------------
    def block(self, scope, least=1, most=3):
        """Statements; each one after the first `least` is there with probability 3/4 if the
        block may be empty (the body of `f`), else 1/2."""
        lines = []
        for i in range(most):
            if i >= least and self.draw(st.integers(0, 3 if least == 0 else 1)) == 0:
                break
            more, scope = self.span(self.statement, scope)
            lines += more
            if more[-1].split(" ")[0] in JUMPS:
                break  # what follows would be dead code
        return lines

    def statement(self, scope):
        """The lines of one statement, and the scope of the statements after it."""
        kinds = {"assign", "augassign", "return"}
        # No `append` yet: a list appended to under graph control flow (also where jump
        # lowering moves code under a flag test) becomes a stacked tensor; issue 9, "staged
        # lists are lists", adds it back.
        if self.features.nonlocal_:
            kinds.add("bump")
        if scope.depth < MAX_DEPTH:
            kinds.add("if")
            if self.loops < MAX_LOOPS:
                kinds |= {"while", "for"}
            if self.features.try_:
                kinds.add("try")
        if scope.in_loop:
            kinds |= {"break", "continue"}
        kind = self.choose(STATEMENTS, [k for k in STATEMENTS if k in kinds])
        if kind in ("break", "continue"):
            return [kind], scope
        if kind == "return":
            return ["return" if self.chance(6) else
                    f"return {self.returned(scope, self.template)}"], scope
        return getattr(self, "write_" + kind)(scope)

    def write_assign(self, scope):
        kind = self.pick([INT, FLOAT, VEC])
        target = self.choose(TARGETS[kind], scope.targets[kind])
        return [f"{target} = {_wrap(self.expr(scope, kind))}"], scope

    def write_augassign(self, scope):
        kind = self.pick([INT, FLOAT])  # `q += ...` would change p in place in numpy
        target = self.choose(TARGETS[kind], scope.targets[kind])
        value = self.choose(STABLE[kind] + LITERALS[kind], scope.stable[kind] + LITERALS[kind])
        return [f"{target} {self.pick(['+=', '-='])} {value}"], scope

    def write_bump(self, scope):
        return [f"bump({self.expr(scope, INT, 1)})"], scope

    def write_if(self, scope):
        inner = scope.nested()
        lines = [f"if {self.condition(scope)}:", *_indent(self.block(inner))]
        for _ in range(self.draw(st.integers(0, 2))):
            if self.draw(st.booleans()):
                return lines + ["else:", *_indent(self.block(inner))], scope
            lines += [f"elif {self.condition(scope)}:", *_indent(self.block(inner))]
        return lines, scope

    def loop_else(self, scope):
        return ["else:", *_indent(self.block(scope.nested()))] if self.chance(4) else []

    def write_while(self, scope):
        self.loops += 1
        counter = f"k{scope.depth}"
        bound = self.pick(["n", "0", "1", "2", "3", "4"])
        python = bound != "n"  # a Python counter, unless the loop is staged
        if self.chance(4):
            header, first = "while True:", [f"if {counter} > {bound}:", "    break"]
        else:
            header, first = f"while {counter} < {bound}:", []
            if self.draw(st.booleans()):
                python = False
                extra = f"({self.condition(scope)})"
                test = f"{counter} < {bound}"
                test = f"{test} and {extra}" if self.draw(st.booleans()) else f"{extra} and {test}"
                header = f"while {test}:"
        body = scope.nested(in_loop=True).add(INT, counter, stable=True, python=python)
        lines = [f"{counter} = 0", header, f"    {counter} += 1", *_indent(first),
                 *_indent(self.block(body))]
        return lines + self.loop_else(scope), scope

    def write_for(self, scope):
        self.loops += 1
        index = f"i{scope.depth}"
        form = self.pick(["range", "rt.range", "vector", "list"])
        kind, python = INT, False
        if form == "range":
            bound = self.pick([str(self.draw(st.integers(0, 4))), "n"])
            iterable, python = f"range({bound})", bound != "n"
        elif form == "rt.range":
            iterable = f"rt.range({self.pick(['n', str(self.draw(st.integers(0, 4)))])})"
        elif form == "vector":
            iterable, kind = self.pick(["p", "q"]), FLOAT
        else:
            kind = self.pick([INT, FLOAT])
            items = [self.atom(scope, kind) for _ in range(self.draw(st.integers(0, 3)))]
            iterable = f"[{', '.join(items)}]"
        body = scope.nested(in_loop=True).add(kind, index, stable=True, python=python)
        lines = [f"for {index} in {iterable}:", *_indent(self.block(body)), *self.loop_else(scope)]
        if self.chance(4):  # the index is read after the loop too
            scope = scope.add(kind, index, stable=True)
        return lines, scope

    def write_try(self, scope):
        inner = scope.nested()
        target = self.choose(TARGETS[INT], scope.targets[INT])
        lines = ["try:", f"    {target} = check({self.expr(scope, INT, 1)})"]
        if self.draw(st.booleans()):
            lines += _indent(self.block(inner))
        handled = self.pick(["ValueError", "ValueError", "Exception", "(KeyError, ValueError)"])
        lines += [f"except {handled}:", *_indent(self.block(inner))]
        if self.draw(st.booleans()):
            lines += ["else:", *_indent(self.block(inner))]
        if self.draw(st.booleans()):
            lines += ["finally:", *_indent(self.block(inner))]
        return lines, scope


@st.composite
def templates(draw, depth=0):
    """The structure every `return` of a program fills: a leaf type (`container` is `d` or
    `lst` itself), or a tuple, list or dict of structures."""
    leaves = [INT, FLOAT, VEC, "none", "container"]
    if depth >= 2 or draw(st.integers(0, 2)) < 2:
        return draw(st.sampled_from(leaves))
    shape = draw(st.sampled_from(["tuple", "dict", "list"]))
    return shape, draw(st.lists(templates(depth + 1), min_size=1, max_size=3))


@st.composite
def _span(draw, writer, write, args):
    outer, writer.draw = writer.draw, draw
    try:
        return write(*args)
    finally:
        writer.draw = outer


def _prologue(writer):
    """The lines that start `f` (variables, containers, closures), and the body's scope."""
    pick = writer.pick
    lines = ["global G", "G = 0"] if writer.flag("global_") else []
    lines += [f"{name} = {pick(INITS[kind])}"
              for name, kind in (("a", INT), ("b", INT), ("s", FLOAT), ("t", FLOAT), ("q", VEC))]
    scope = Scope(atoms={INT: ("x", "y", "n", "a", "b"),
                         FLOAT: ("u", "p[0]", "p[-1]", "s", "t", "q[1]"), VEC: ("p", "q")},
                  stable={INT: ("x", "y", "n"), FLOAT: ("u", "p[0]", "p[1]"), VEC: ()},
                  targets={INT: ("a", "b"), FLOAT: ("s", "t"), VEC: ("q",)},
                  calls={INT: (), FLOAT: (), VEC: ()})
    if writer.features.global_:
        scope = scope.add(INT, "G", target=True)
    for feature in ("dict", "list", "box", "nonlocal_", "lambda_", "inner"):
        on = writer.flag(feature)
        more, declared = writer.span(_DECLARE[feature], writer, scope)  # drawn even when off,
        if on:  # so that turning a feature off changes one choice only (shrinking)
            lines, scope = lines + more, declared
    writer.flag("try_")
    if writer.flag("undefined"):
        scope = scope.add(INT, "z", target=True, readable=writer.draw(st.booleans()))
    return lines, scope


def _declare_dict(writer, scope):
    scope = scope.add(INT, "d['k']", target=True).add(INT, "d['j']", target=True, readable=False)
    return [f"d = {{'k': {writer.pick(INITS[INT])}}}"], scope


def _declare_list(writer, scope):
    items = ", ".join(writer.pick(INITS[FLOAT]) for _ in range(2))
    scope = scope.add(FLOAT, "lst[-1]").add(FLOAT, "lst[0]", target=True, readable=False)
    return [f"lst = [{items}]"], scope.add(FLOAT, "lst[1]", target=True, readable=False)


def _declare_box(writer, scope):
    lines = ["box = Box()", f"box.attr = {writer.pick(INITS[INT])}"]
    return lines, scope.add(INT, "box.attr", target=True)


def _declare_nonlocal(writer, scope):
    """`c`, and `def bump(v)`, which writes it (nonlocal) in an `if` or a loop."""
    local = scope.add(INT, "v")
    write = f"c = {_wrap(writer.expr(local, INT, 1))}"
    if writer.draw(st.booleans()):
        body = [f"    if {writer.condition(local, 1)}:", f"        {write}"]
    else:
        body = [f"    for j in {writer.pick(['range(2)', 'rt.range(v % 3)'])}:", f"        {write}"]
    lines = [f"c = {writer.pick(INITS[INT])}", "def bump(v):", "    nonlocal c", *body]
    return lines, scope.add(INT, "c")


def _declare_lambda(writer, scope):
    kind = writer.pick([INT, FLOAT])
    return [f"g = lambda: {writer.expr(scope, kind, 1)}"], scope.with_call(kind, "g()")


def _declare_inner(writer, scope):
    local = scope.add(INT, "v")
    lines = ["def inner(v):", f"    if {writer.condition(local, 1)}:",
             f"        return {writer.expr(local, INT, 1)}",
             f"    return {writer.expr(local, INT, 1)}"]
    return lines, scope.with_call(INT, "inner({arg})")


_DECLARE = {"dict": _declare_dict, "list": _declare_list, "box": _declare_box,
            "nonlocal_": _declare_nonlocal, "lambda_": _declare_lambda, "inner": _declare_inner}


@st.composite
def programs(draw):
    """The source of a module defining `f(x, y, u, p, n)` (and the helpers it uses)."""
    writer = _Writer(draw, draw(templates()))
    lines, scope = _prologue(writer)
    lines += writer.block(scope, least=0, most=4)
    if not writer.chance(8):  # else f may fall off its end
        lines.append(f"return {writer.returned(scope, writer.template)}")
    header = "import runtime as rt\n"
    if writer.features.global_:
        header += "\nG = 0\n"
    if writer.features.box:
        header += "\n" + BOX_CLASS
    if writer.features.try_:
        header += "\n" + CHECK_HELPER
    return header + "\n\ndef f(x, y, u, p, n):\n" + "\n".join(_indent(lines)) + "\n"


quarters = st.integers(-16, 16).map(lambda k: k / 4)
arguments = st.tuples(
    st.integers(-6, 6), st.integers(-6, 6), quarters,
    st.lists(quarters, min_size=2, max_size=3).map(lambda v: np.array(v, np.float32)),
    st.integers(0, 4))


@st.composite
def cases(draw):
    """A program and 2-3 argument tuples (x, y, u, p, n) to run it on."""
    return Case(draw(programs()), draw(st.lists(arguments, min_size=2, max_size=3)))
