"""Function boundaries for the differential fuzzer (test_differential.py, boundary mode).

`boundary_cases()` draws a program of `program_grammar` and puts `rt.function` boundaries into
it: `f` itself is always decorated (at a random place in its stack of Python decorators), and
each module-level helper `hi`, `hf`, `hv` that the program defines is wrapped in `rt.function`
(three times in four, also at a random place in its stack). An `rt.function` at the top of a
stack may have an `input_signature` matching the arguments' dtypes and shapes (then every call
of that helper is written with both arguments by position, `h(e)` as `h(e, 1)`: a function with
an input_signature takes its arguments by position, all of them). The nested function `inner`
and the lambda `g` (closures over `f`'s variables, which the program always has here) are
wrapped too, `inner` with an input_signature at any place in its stack (its decorators pass
its argument by position, as its callers do).

A `BoundaryCase` holds both sources: `source` with the boundaries, `plain_source` the same
module with every `rt.function` this module added taken out (the program the decorators must
not change). Both are made by `ast.unparse` of one tree, so they differ only in those lines.
"""

from __future__ import annotations

import ast
import re
from typing import NamedTuple

import program_grammar as grammar
from hypothesis import strategies as st

# Found by this fuzzer and fixed (composition tests in tests/runtime/test_composition.py): a
# nested rt.function reading a tensor of the function being traced other than through its own
# closure cells (an attribute, a dict item, two levels down, under a Python decorator's
# wrapper, or returned as it is) raised "belongs to another graph"; `t = -1.5;
# g = rt.function(lambda: t); t = g() + 1.0` in `f` left f's first trace unsaveable and f
# retraced at the next call; a class decorator calling functools.update_wrapper (`Offset`) over
# an rt.function was skipped (its `__call__` never ran) in converted code and in rt.function.

HELPER_SPECS = {  # the input_signature of a helper `(v, w)`
    "hi": ("rt.TensorSpec([], rt.int32)", "rt.TensorSpec([], rt.int32)"),
    "hf": ("rt.TensorSpec([], rt.float32)", "rt.TensorSpec([], rt.int32)"),
    "hv": ("rt.TensorSpec({p}, rt.float32)", "rt.TensorSpec([], rt.int32)"),
    "inner": ("rt.TensorSpec([], rt.int32)",),
}
F_SPEC = ("rt.TensorSpec([], rt.int32)", "rt.TensorSpec([], rt.int32)",
          "rt.TensorSpec([], rt.float32)", "rt.TensorSpec({p}, rt.float32)",
          "rt.TensorSpec([], rt.int32)")


class _Writer(grammar._Writer):
    """The grammar's writer, with the helpers `hi`, `hf`, `hv` (each still drawn), `inner` and
    `g` always declared, and called more often: a statement is a call of a helper two times in
    three, else (one time in six) a call of `inner` or `g`, else the grammar's choice (which
    may be a call too)."""

    def flag(self, feature):
        on = super().flag(feature)
        if feature in ("decorated", "inner", "lambda_"):
            setattr(self.features, feature, True)
            on = True
        return on

    def statement(self, scope):
        roll = self.draw(st.integers(0, 5))
        if roll < 4 and self.helper_kinds(scope):
            return self.write_call(scope)
        nested = [(kind, call) for kind in (grammar.INT, grammar.FLOAT)
                  for call in scope.calls[kind] if call in ("g()", "inner({arg})")]
        if roll == 4 and nested:  # `target = inner(e)`, `target = g()`
            kind, call = self.choose(nested, nested)
            target = self.choose(grammar.TARGETS[kind], scope.targets[kind])
            call = call.format(arg=self.expr(scope, grammar.INT, 1))
            return [f"{target} = {grammar._wrap(call)}"], scope
        return super().statement(scope)


@st.composite
def programs(draw):
    """program_grammar.programs, written by the writer above."""
    writer = _Writer(draw, draw(grammar.templates()))
    lines, scope = grammar._prologue(writer)
    lines += writer.block(scope, least=0, most=4)
    if not writer.chance(8):
        lines.append(f"return {writer.returned(scope, writer.template)}")
    body = "\n".join(writer.helpers + ["", "", *writer.f_decorators, "def f(x, y, u, p, n):",
                                        *grammar._indent(lines)]) + "\n"
    header = "import runtime as rt\n"
    used = [name for name in grammar.DECORATORS if re.search(rf"\b{name}\b", body)]
    if used:
        header = ("import functools\n\n" + header
                  + "".join("\n" + grammar.DECORATORS[n] for n in used))
    if writer.features.global_:
        header += "\nG = 0\n"
    if writer.features.box:
        header += "\n" + grammar.BOX_CLASS
    if writer.features.try_:
        header += "\n" + grammar.CHECK_HELPER
    return header + body


@st.composite
def cases(draw):
    return grammar.Case(draw(programs()), draw(st.lists(grammar.arguments, min_size=2,
                                                        max_size=3)))


class BoundaryCase(NamedTuple):
    source: str  # with rt.function boundaries
    plain_source: str  # the same program without them
    arg_sets: list
    boundaries: tuple  # what was wrapped, e.g. ("hi@0 signature", "f@1")
    called: tuple  # the wrapped helpers that `f` calls

    def __repr__(self):  # how hypothesis shows a falsifying example
        return (f"BoundaryCase(boundaries={self.boundaries},\nsource:\n{self.source}\n"
                f"arg_sets={self.arg_sets!r})")


def _decorator(signature):
    if signature is None:
        return ast.parse("rt.function", mode="eval").body
    text = f"rt.function(input_signature=[{', '.join(signature)}])"
    return ast.parse(text, mode="eval").body


def _normalize_calls(tree, name):
    """Every call of `name` written with both arguments by position: `h(e)` -> `h(e, 1)`,
    `h(e, w=w)` and `h(v=e, w=w)` -> `h(e, w)`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
            by_name = {k.arg: k.value for k in node.keywords}
            args = list(node.args)
            if "v" in by_name:
                args.append(by_name["v"])
            args.append(by_name.get("w", ast.Constant(1)))
            node.args, node.keywords = args[:2], []


def _wrap_lambda(assign, draw):
    """Wraps `g = <decorators>(lambda: ...)` in `rt.function` (three times in four), over its
    Python decorators (`g = rt.function(twice(lambda: ...))`) or under them (`g =
    twice(rt.function(lambda: ...))`): (parent node, original value), or None."""
    if draw(st.integers(0, 3)) == 3:
        return None
    parent = assign  # the node whose value (an Assign) or first argument (a Call) is wrapped
    if draw(st.booleans()):  # under the decorators
        while isinstance(_wrapped(parent), ast.Call):
            parent = _wrapped(parent)
    original = _wrapped(parent)
    _set_wrapped(parent, ast.Call(func=_decorator(None), args=[original], keywords=[]))
    return parent, original


def _wrapped(parent):
    return parent.value if isinstance(parent, ast.Assign) else parent.args[0]


def _set_wrapped(parent, node):
    if isinstance(parent, ast.Assign):
        parent.value = node
    else:
        parent.args[0] = node


def _functions(tree):
    """{name: FunctionDef} of the module-level functions and of `inner` (nested in `f`), and
    the `g = <lambda>` assignment in `f` (or None)."""
    found = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    lambda_ = None
    if "f" in found:
        for node in ast.walk(found["f"]):
            if isinstance(node, ast.FunctionDef) and node.name == "inner":
                found["inner"] = node
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "g"):
                lambda_ = node
    return found, lambda_


@st.composite
def boundary_cases(draw):
    case = draw(cases())
    lengths = {len(args[3]) for args in case.arg_sets}
    tree = ast.parse(case.source)
    functions, lambda_ = _functions(tree)
    added = []  # (decorator list, node): the decorators this module added
    boundaries = []
    sites = [name for name in ("hi", "hf", "hv", "inner") if name in functions] + ["f"]
    for name in sites:
        node = functions[name]
        # (the first option of each draw is the one hypothesis draws most: the common one)
        if name != "f" and draw(st.integers(0, 3)) == 3:
            continue  # this helper stays a Python function
        stack = node.decorator_list
        # the top of the stack two times in three, else a random place in it
        position = 0 if draw(st.integers(0, 2)) < 2 else draw(st.integers(0, len(stack)))
        signature = None
        # (a dim an input_signature declares unknown reads as its number, a tensor while
        # tracing: grammar.SIGNATURE_DIMS)
        unknown = ["[None]"]
        exact = [f"[{min(lengths)}]"] if len(lengths) == 1 else []
        if (position == 0 or name == "inner") and unknown + exact and draw(
                st.integers(0, 2)) < 2:
            p = draw(st.sampled_from(unknown + exact))
            specs = F_SPEC if name == "f" else HELPER_SPECS[name]
            signature = [spec.format(p=p) for spec in specs]
            if name in ("hi", "hf", "hv"):
                _normalize_calls(tree, name)
        decorator = _decorator(signature)
        stack.insert(position, decorator)
        added.append((stack, decorator))
        boundaries.append(f"{name}@{position}" + (" signature" if signature else ""))
    lambda_wrap = _wrap_lambda(lambda_, draw) if lambda_ else None
    if lambda_wrap:
        boundaries.append("g")
    source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    for stack, decorator in added:
        stack.remove(decorator)
    if lambda_wrap:
        _set_wrapped(*lambda_wrap)
    plain_source = ast.unparse(tree) + "\n"
    wrapped = {b.split("@")[0] for b in boundaries} - {"f"}
    called = {node.func.id for node in ast.walk(functions["f"]) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id in wrapped}
    return BoundaryCase(source, plain_source, case.arg_sets, tuple(boundaries),
                        tuple(sorted(called)))
