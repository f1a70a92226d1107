"""Loading generated code as a real module: compiled from its AST under its own filename,
which is registered in `linecache` (so tracebacks and `inspect` show the generated code; the
text is printed with `ast.unparse` on first read) and in the origin registry (so errors and
graph ops can point back at the user's lines)."""

from __future__ import annotations

import ast
import functools
import itertools
import linecache
import os
import tempfile

from autograph import origins

_DIRECTORY = os.path.join(tempfile.gettempdir(), "autograph_generated")
_NUMBERS = itertools.count(1)


def load(tree: ast.Module, name: str, origin_map: origins.OriginMap):
    """Compiles the module `tree` (laid out by `emit`); returns (module code object, filename)."""
    filename = os.path.join(_DIRECTORY, f"{name}_{next(_NUMBERS)}.py")
    # A lazy entry: linecache calls it the first time the lines are needed.
    linecache.cache[filename] = (functools.partial(source, tree),)
    origins.REGISTRY.add(filename, origin_map)
    return compile(tree, filename, "exec"), filename


def source(tree: ast.Module) -> str:
    """The source text of a generated module."""
    return ast.unparse(tree) + "\n"


def find_code(module_code, *path: str):
    """The code object reached by following function names `path` through nested constants."""
    code = module_code
    for name in path:
        code = next(c for c in code.co_consts if getattr(c, "co_name", None) == name)
    return code
