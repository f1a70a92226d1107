"""Random programs (if/elif/else, bounded while, for over rt.range, break, continue, early
return, and/or/not over int32 scalars) agree three ways: plain Python, `rt.function`, and
`autograph.to_graph` on eager tensors. 200 programs in CI, 1000 with HYPOTHESIS_PROFILE=dev."""

import importlib.util
import itertools
import os
import tempfile

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph
import runtime as rt

EXAMPLES = 1000 if os.environ.get("HYPOTHESIS_PROFILE") == "dev" else 200
VARIABLES = ["x", "y", "a", "b"]
_DIRECTORY = tempfile.mkdtemp(prefix="autograph_random_")
_COUNTER = itertools.count()


@st.composite
def expressions(draw, names):
    atom = st.one_of(st.sampled_from(names), st.integers(-5, 5).map(str))
    left, right = draw(atom), draw(atom)
    op = draw(st.sampled_from(["+", "-", "*"]))
    if op == "*" and not right.lstrip("-").isdigit():
        right = str(draw(st.integers(-3, 3)))
    return f"({left} {op} {right})"


@st.composite
def conditions(draw, names, depth=0):
    kind = draw(st.sampled_from(["cmp", "cmp", "not", "and", "or"] if depth < 2 else ["cmp"]))
    if kind == "cmp":
        op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
        return f"{draw(expressions(names))} {op} {draw(expressions(names))}"
    if kind == "not":
        return f"not ({draw(conditions(names, depth + 1))})"
    return (f"({draw(conditions(names, depth + 1))}) {kind} "
            f"({draw(conditions(names, depth + 1))})")


class _Writer:
    def __init__(self, draw):
        self.draw = draw
        self.lines = []
        self.loops = 0

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def block(self, indent, names, depth, in_loop):
        for _ in range(self.draw(st.integers(1, 3))):
            self.statement(indent, names, depth, in_loop)

    def statement(self, indent, names, depth, in_loop):
        kinds = ["assign", "assign", "return"]
        if depth < 3:
            kinds += ["if", "if"]
            if self.loops < 3:
                kinds += ["while", "for"]
        if in_loop:
            kinds += ["break", "continue"]
        kind = self.draw(st.sampled_from(kinds))
        draw = self.draw
        if kind == "assign":
            target = draw(st.sampled_from(["a", "b"]))
            self.emit(indent, f"{target} = {draw(expressions(names))} % 53 - 26")
        elif kind == "return":
            self.emit(indent, f"return {draw(expressions(names))}")
        elif kind in ("break", "continue"):
            self.emit(indent, f"if {draw(conditions(names))}:")
            self.emit(indent + 1, kind)
        elif kind == "if":
            self.emit(indent, f"if {draw(conditions(names))}:")
            self.block(indent + 1, names, depth + 1, in_loop)
            for _ in range(draw(st.integers(0, 2))):
                keyword = draw(st.sampled_from(["elif", "else"]))
                if keyword == "else":
                    self.emit(indent, "else:")
                    self.block(indent + 1, names, depth + 1, in_loop)
                    break
                self.emit(indent, f"elif {draw(conditions(names))}:")
                self.block(indent + 1, names, depth + 1, in_loop)
        elif kind == "while":
            counter = f"k{self.loops}"
            self.loops += 1
            self.emit(indent, f"{counter} = 0")
            extra = f" and ({draw(conditions(names))})" if draw(st.booleans()) else ""
            self.emit(indent, f"while {counter} < {draw(st.integers(0, 4))}{extra}:")
            self.emit(indent + 1, f"{counter} += 1")
            self.block(indent + 1, names + [counter], depth + 1, True)
        else:
            item = f"i{self.loops}"
            self.loops += 1
            self.emit(indent, f"for {item} in rng({draw(st.integers(0, 4))}):")
            self.block(indent + 1, names + [item], depth + 1, True)


@st.composite
def programs(draw):
    writer = _Writer(draw)
    writer.emit(0, "def make(rng):")
    writer.emit(1, "def f(x, y):")
    writer.emit(2, "a = x")
    writer.emit(2, "b = 0")
    writer.block(2, list(VARIABLES), 0, False)
    writer.emit(2, f"return {draw(expressions(VARIABLES))}")
    writer.emit(1, "return f")
    return "\n".join(writer.lines) + "\n"


def load(source):
    name = f"random_program_{next(_COUNTER)}"
    path = os.path.join(_DIRECTORY, name + ".py")
    with open(path, "w") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make


@settings(max_examples=EXAMPLES, deadline=None)
@given(source=programs(), x=st.integers(-20, 20), y=st.integers(-20, 20))
def test_random_programs_agree_three_ways(source, x, y):
    make = load(source)
    expected = make(range)(x, y)
    graph = rt.function(make(rt.range))(rt.constant(x), rt.constant(y))
    eager = autograph.to_graph(make(rt.range))(rt.constant(x), rt.constant(y))
    message = f"program:\n{source}\nx={x}, y={y}"
    assert int(np.asarray(graph)) == expected, message
    assert int(np.asarray(eager)) == expected, message
