"""Parsing a live function (def, method, nested def or lambda) to a gast FunctionDef.

A def or lambda is found in the AST of its file (parsed once per file and cached, positions
are then the file's own); one that cannot be found that way comes from `inspect` (dedented).
Decorators are dropped, and a lambda becomes an equivalent `def` named `lambda_`,
so every converted entity is a FunctionDef. Every node is stamped with its user origin.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap

import gast

from autograph import origins
from autograph.anno import Anno, setanno
from autograph.errors import ConversionError


class SourceUnavailable(Exception):
    """autograph cannot get the source of the function; the message says why and what to do."""


# filename -> its _FileIndex: one parse per file, however many functions are converted.
_MODULES: dict = {}
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def parse_function(fn):
    """(gast FunctionDef, filename) for the live function `fn`."""
    node, filename = _from_module(fn)
    if node is None:
        node, filename = _from_inspect(fn)
    if isinstance(node, gast.AsyncFunctionDef):
        raise ConversionError(f"{filename}:{node.lineno}: async functions are not supported")
    node.decorator_list = []
    return node, filename


def _from_module(fn):
    """The def (or lambda) of `fn` in its file's (cached) AST, or None."""
    code = fn.__code__
    filename = code.co_filename
    if filename.startswith("<"):
        return None, filename
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines:
        return None, filename
    index = _MODULES.get(filename)
    if index is None or index.lines is not lines:
        try:
            index = _MODULES[filename] = _FileIndex(lines)
        except SyntaxError:
            return None, filename
    if fn.__name__ == "<lambda>":
        found = [n for n in index.lambdas().get(code.co_firstlineno, ())
                 if _arg_names(n.args) == _params(code)]
        if len(found) != 1:
            return None, filename
        tree = _lambda_to_def(gast.ast_to_gast(found[0]))
        origins.mark(tree, filename, 0, 0, lines)
        return tree, filename
    found = index.defs.get((fn.__name__, code.co_firstlineno))
    if not found:
        return None, filename
    return _ToGast(filename, lines).convert(found[0]), filename


class _FileIndex:
    """A file's AST, its defs by (name, first line) and (when first asked for) its lambdas
    by line."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.module = ast.parse("".join(lines))
        self.defs: dict = {}
        self._lambdas: dict | None = None
        statements = [self.module]
        for n in statements:  # defs are statements: no need to visit expressions
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.setdefault((n.name, _first_line(n)), []).append(n)
            for field in _BLOCKS:
                statements.extend(getattr(n, field, None) or ())

    def lambdas(self) -> dict:
        if self._lambdas is None:
            self._lambdas = {}
            for n in ast.walk(self.module):
                if isinstance(n, ast.Lambda):
                    self._lambdas.setdefault(n.lineno, []).append(n)
        return self._lambdas


def _first_line(node) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def _from_inspect(fn):
    try:
        # from the code object: for a function, inspect would follow `__wrapped__` (set by
        # functools.wraps) and return the source of the function it wraps
        lines, first_line = inspect.getsourcelines(fn.__code__)
        filename = inspect.getsourcefile(fn.__code__) or fn.__code__.co_filename
    except (OSError, TypeError) as e:
        raise SourceUnavailable(
            f"its source code is not available ({e}: defined in a REPL, by exec, or the file "
            "changed); define it in a file") from None
    dedented = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip())
    if fn.__name__ == "<lambda>":
        node = _parse_lambda(fn, dedented, filename, first_line)
    else:
        try:
            node = gast.parse(dedented).body[0]
        except SyntaxError as e:
            raise SourceUnavailable(
                f"its source does not parse on its own ({e}); define it in a file") from None
        if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            raise SourceUnavailable(
                "its source is not a `def` statement (it was made by other code); define it with "
                "`def` in a file")
    origins.mark(node, filename, first_line - 1, indent, dedented.splitlines())
    return node, filename


def _parse_lambda(fn, source: str, filename: str, first_line: int):
    """The lambda expression of `fn` in `source`, as a FunctionDef."""
    try:
        module = gast.parse(source)
    except SyntaxError:
        raise SourceUnavailable(
            f"the line of the lambda ({filename}:{first_line}) does not parse on its own; put "
            "the lambda on a line of its own or make it a `def`") from None
    lambdas = [n for n in gast.walk(module) if isinstance(n, gast.Lambda)
               and _arg_names(n.args) == _params(fn.__code__)]
    if len(lambdas) != 1:
        raise SourceUnavailable(
            f"{len(lambdas) or 'no'} lambdas with its parameters are on {filename}:"
            f"{first_line}, so autograph cannot tell which one it is; put it on a line of its "
            "own or make it a `def`")
    return _lambda_to_def(lambdas[0])


def _lambda_to_def(lam):
    """`def lambda_(args): return body` for a gast Lambda."""
    body = gast.copy_location(gast.Return(value=lam.body), lam.body)
    node = gast.FunctionDef(
        name="lambda_", args=lam.args, body=[body], decorator_list=[], returns=None,
        type_comment=None, type_params=[],
    )
    return gast.copy_location(node, lam)


def _params(code) -> tuple:
    return code.co_varnames[: code.co_argcount]


def _arg_names(args) -> tuple:
    return tuple(getattr(a, "arg", None) or a.id for a in args.posonlyargs + args.args)


class _ToGast:
    """`gast.ast_to_gast` (same result), fused with `origins.mark`: each node that has a
    position is annotated with its user Origin as it is made."""

    # ast class -> (gast class or None, fields, whether it has a position)
    _specs: dict = {}

    def __init__(self, filename: str, lines: list[str]):
        self.filename = filename
        self.lines = lines
        self.texts: dict = {}

    def convert(self, node):
        cls = type(node)
        spec = self._specs.get(cls)
        if spec is None:
            target = getattr(gast, cls.__name__, None)
            spec = self._specs[cls] = (target, cls._fields, "lineno" in cls._attributes)
        target, fields, located = spec
        if cls is ast.Name:
            new = gast.Name(id=node.id, ctx=self.convert(node.ctx), annotation=None,
                            type_comment=None)
        elif cls is ast.arg:
            annotation = None if node.annotation is None else self.convert(node.annotation)
            new = gast.Name(id=node.arg, ctx=gast.Param(), annotation=annotation,
                            type_comment=node.type_comment)
        elif target is None:
            return None  # not part of gast (like gast itself does)
        else:
            new = target.__new__(target)
            values = new.__dict__
            for field in fields:
                value = getattr(node, field, None)
                if isinstance(value, ast.AST):
                    value = self.convert(value)
                elif type(value) is list:
                    value = [self.convert(v) if isinstance(v, ast.AST) else v for v in value]
                values[field] = value
            if cls is ast.ExceptHandler and node.name:
                new.name = gast.Name(id=node.name, ctx=gast.Store(), annotation=None,
                                     type_comment=None)
            elif cls in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                new.type_params = []
        if located:
            lineno = node.lineno
            new.lineno, new.col_offset = lineno, node.col_offset
            new.end_lineno, new.end_col_offset = node.end_lineno, node.end_col_offset
            text = self.texts.get(lineno)
            if text is None:
                lines = self.lines
                text = self.texts[lineno] = lines[lineno - 1].strip() \
                    if 0 < lineno <= len(lines) else ""
            setanno(new, Anno.ORIGIN, origins.Origin(self.filename, lineno, node.col_offset, text))
        return new
