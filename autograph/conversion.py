"""The conversion pipeline and the cache of converted functions.

`convert_function(fn)` parses `fn`, runs the converters below in order, compiles the result
(see `emit`: no source text is printed unless asked for) and returns a `Converted` that
`ConversionCache.function(fn)` instantiates with `fn`'s own globals, defaults and closure
cells, so closures stay live.
"""

from __future__ import annotations

import ast
import functools
import sys
import textwrap
import types
import warnings
import weakref
from typing import cast

import gast

from autograph import emit, frames, loader, origins, templates, traversal
from autograph.analysis import truth
from autograph.converters import (
    asserts,
    break_statements,
    call_trees,
    comprehensions,
    conditional_expressions,
    continue_statements,
    control_flow,
    exception_handlers,
    formatting,
    lists,
    locals_calls,
    logical_expressions,
    match_statements,
    membership,
    outside_writes,
    return_statements,
    unsupported,
)
from autograph.namer import Namer
from autograph.parser import SourceUnavailable, parse_function


class Context:
    """What the converters of one function share."""

    def __init__(self, namer: Namer, freevars=()):
        self.namer = namer
        self.freevars = freevars  # the free variables of the function converted
        self.return_values: set = set()  # the generated variables that hold a return value


def convert_tree(node, ctx: Context, nodes=None):
    """Runs the converters over the FunctionDef `node` (skipping those with nothing to do);
    `nodes` are the nodes of `node` if the caller has walked it already."""
    nodes = traversal.walk(node) if nodes is None else nodes
    present = {type(n) for n in nodes}
    if gast.BoolOp in present:  # before the statements holding the tests are rewritten
        truth.analyze(node)
    loops = bool(present & {gast.While, gast.For})
    # First: it lists the user's names, before converters add their own.
    if gast.Call in present and any(locals_calls.is_locals_call(n) for n in nodes):
        node = locals_calls.transform(node, ctx)
    if present & {gast.Yield, gast.YieldFrom, gast.Await}:
        node = unsupported.transform(node, ctx)
    # Before asserts, which hides assertion messages (they stay Python's) in a lambda.
    if gast.JoinedStr in present or any(
            (type(n) is gast.BinOp and type(n.op) is gast.Mod)
            or (type(n) is gast.Attribute and n.attr == "format") for n in nodes):
        node = formatting.transform(node, ctx)
    # Before logical_expressions, which splits chained comparisons (their `in` stays Python's).
    if gast.Compare in present and any(
            type(n) is gast.Compare and type(n.ops[0]) in (gast.In, gast.NotIn) for n in nodes):
        node = membership.transform(node, ctx)
    if gast.Assert in present:
        node = asserts.transform(node, ctx)
    if gast.Match in present:
        node = match_statements.transform(node, ctx)
    if gast.ExceptHandler in present:
        node = exception_handlers.transform(node, ctx)
    if gast.ListComp in present:  # before lists: the loop it makes appends
        node = comprehensions.transform(node, ctx)
        loops = True
    # `lst.append(v)` becomes an assignment, so the analyses see the list as modified (and so
    # do other in-place changes: `lst.pop()`, `d.update(...)`).
    if gast.ListComp in present or any(
            type(n) is gast.Attribute and n.attr in lists.MUTATORS for n in nodes):
        node = lists.transform(node, ctx)
    # Before jumps and control flow move the statements into generated functions.
    if outside_writes.has_writes(nodes):
        node = outside_writes.transform(node, ctx)
    # Jumps are lowered before control flow, which needs structured code.
    if gast.Return in present:
        node = return_statements.transform(node, ctx)
    if loops:  # a `return` in a loop becomes a `break`
        node = break_statements.transform(node, ctx)
    if gast.Continue in present:
        node = continue_statements.transform(node, ctx)
    # Calls are wrapped before control flow, so the generated `ag__` calls stay as they are.
    node = call_trees.transform(node, ctx)
    if loops or gast.If in present:
        node = control_flow.transform(node, ctx)
    if gast.IfExp in present:
        node = conditional_expressions.transform(node, ctx)
    # Last: also converts the `not break_ and ...` tests that jump lowering added.
    node = logical_expressions.transform(node, ctx)
    if gast.ExceptHandler in present:
        node = exception_handlers.guard_statements(node, ctx)
    return node


class Converted:
    """A converted function: its code object (closing over `ag__` and `fn`'s free names), and
    the generated module's AST (its source text is printed only when asked for)."""

    def __init__(self, code, tree, filename: str):
        self.code = code
        self.tree = tree
        self.filename = filename

    @functools.cached_property
    def source(self) -> str:
        """The converted function's source (dedented, without the factory around it)."""
        source = loader.source(self.tree)
        factory = cast(ast.FunctionDef, ast.parse(source).body[0])
        inner = factory.body[-2]  # the converted def, before `return name`
        lines = source.splitlines(True)[inner.lineno - 1:inner.end_lineno]
        return textwrap.dedent("".join(lines))


def convert_function(fn) -> Converted:
    """Converts the live function `fn` (raises SourceUnavailable or ConversionError)."""
    node, _ = parse_function(fn)
    nodes = traversal.walk(node)
    namer = Namer.for_nodes(nodes)
    namer.new("ag__")
    freevars = list(fn.__code__.co_freevars)
    node = convert_tree(node, Context(namer, freevars), nodes)
    factory_name = namer.new("create_converted")
    # The factory is never run; `global` keeps the function's own name (recursion) resolving
    # in the user's globals rather than to the factory's local.
    own_name = [] if node.name in freevars else [gast.Global(names=[node.name])]
    factory = templates.replace(
        "def factory(ag__, freevars):\n    body\n    return fn",
        fn=node.name, factory=factory_name, freevars=freevars, body=own_name + [node],
    )
    module, lines = emit.emit(gast.Module(body=factory, type_ignores=[]))
    module_code, filename = loader.load(module, fn.__name__.strip("<>"), origins.OriginMap(lines))
    return Converted(loader.find_code(module_code, factory_name, node.name), module, filename)


class ConversionCache:
    """Converted code per code object, and converted functions per function object."""

    def __init__(self, ag_module):
        self._cell = types.CellType(ag_module)
        self._by_code: dict = {}
        self._by_function = weakref.WeakKeyDictionary()
        self.unconverted: dict = {}  # code object -> why it runs unconverted

    def converted(self, fn) -> Converted | None:
        """The conversion of `fn`'s code, or None when its source is unavailable (warned once)."""
        # Code objects compare equal across files (co_filename is not compared), and the
        # conversion holds the origin map of one file.
        code = (fn.__code__, fn.__code__.co_filename)
        if code not in self._by_code:
            try:
                self._by_code[code] = convert_function(fn)
            except SourceUnavailable as e:
                self._by_code[code] = None
                self.unconverted[fn.__code__] = message = (
                    f"autograph could not convert {fn.__qualname__}: {e}. It runs as written, "
                    "so `if`/`while`/`for` on graph tensors in it will fail (or use rt.cond / "
                    "rt.while_loop there).")
                warnings.warn(message, stacklevel=frames.user_stacklevel(sys._getframe()))
        return self._by_code[code]

    def function(self, fn):
        """The converted version of the function `fn` (or `fn` if it cannot be converted)."""
        found = self._by_function.get(fn)
        if found is not None:
            return found
        converted = self.converted(fn)
        if converted is None:
            return fn
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        cells["ag__"] = self._cell
        closure = tuple(cells[name] for name in converted.code.co_freevars)
        new = types.FunctionType(converted.code, fn.__globals__, fn.__name__, fn.__defaults__,
                                 closure)
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__qualname__ = fn.__qualname__
        new.__doc__ = fn.__doc__
        new.__module__ = fn.__module__
        self._by_function[fn] = new
        return new

    def source(self, fn) -> str:
        converted = self.converted(fn)
        if converted is None:
            raise SourceUnavailable(f"the source of {fn.__qualname__} is not available")
        return converted.source
