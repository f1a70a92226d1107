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
from autograph.errors import ConversionError


class SourceUnavailable(Exception):
    """inspect cannot find the source of the function (REPL, exec, builtins)."""


# filename -> (the linecache lines it was parsed from, the module's AST)
_MODULES: dict = {}


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
    cached = _MODULES.get(filename)
    if cached is None or cached[0] is not lines:
        try:
            cached = _MODULES[filename] = (lines, ast.parse("".join(lines)))
        except SyntaxError:
            return None, filename
    if fn.__name__ == "<lambda>":
        found = [n for n in ast.walk(cached[1]) if isinstance(n, ast.Lambda)
                 and n.lineno == code.co_firstlineno and _arg_names(n.args) == _params(code)]
        if len(found) != 1:
            return None, filename
        tree = _lambda_to_def(gast.ast_to_gast(found[0]))
    else:
        found = [n for n in ast.walk(cached[1])
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and n.name == fn.__name__ and _first_line(n) == code.co_firstlineno]
        if not found:
            return None, filename
        tree = gast.ast_to_gast(found[0])
    origins.mark(tree, filename, 0, 0, lines)
    return tree, filename


def _first_line(node) -> int:
    return min([node.lineno] + [d.lineno for d in node.decorator_list])


def _from_inspect(fn):
    try:
        lines, first_line = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError) as e:
        raise SourceUnavailable(str(e)) from None
    dedented = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip())
    if fn.__name__ == "<lambda>":
        node = _parse_lambda(fn, dedented, filename, first_line)
    else:
        try:
            node = gast.parse(dedented).body[0]
        except SyntaxError as e:
            raise SourceUnavailable(
                f"the source of {fn.__qualname__} does not parse: {e}") from None
        if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            raise SourceUnavailable(f"the source of {fn.__qualname__} is not a def")
    origins.mark(node, filename, first_line - 1, indent, dedented.splitlines())
    return node, filename


def _parse_lambda(fn, source: str, filename: str, first_line: int):
    """The lambda expression of `fn` in `source`, as a FunctionDef."""
    try:
        module = gast.parse(source)
    except SyntaxError:
        raise SourceUnavailable(
            f"{filename}:{first_line}: the lambda's line does not parse on its own") from None
    lambdas = [n for n in gast.walk(module) if isinstance(n, gast.Lambda)
               and _arg_names(n.args) == _params(fn.__code__)]
    if len(lambdas) != 1:
        raise SourceUnavailable(
            f"{filename}:{first_line}: cannot tell which lambda on this line is being converted"
        )
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
