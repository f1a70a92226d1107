"""Whether a staged loop's generated code only appends to a list, read from that code.

A graph loop that appends to a Python list carries the list as a staged list. Its plan is made
from a dry run of the body on Python lists; where the body also reads such a list (its length,
truth, items), the staged list may take other paths, so the plan is made again from a second
dry run on staged lists (control_flow._build_loop). A list the body only appends to (converted
code: `out = ag__.list_append(out, value)`, `value` not reading `out`) and returns, and the
loop's test never reads, cannot change any path: the second dry run would give the plan the
first one gave, and is skipped. Only for a plain loop variable: a list in a slot (a closure's
cell, a global, an attribute) may be read by code outside the loop's functions.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap


def only_appended(names, body, tests=()) -> bool:
    """Whether the loop body function `body` uses each of `names` only as `name =
    ag__.list_append(name, value)` statements and in its last `return`, and the functions
    `tests` do not read them. False when the code cannot be read."""
    if not names or not all(name.isidentifier() for name in names):
        return False
    body_tree = _tree(body)
    if body_tree is None:
        return False
    for test in tests:
        test_tree = _tree(test)
        if test_tree is None or any(isinstance(node, ast.Name) and node.id in names
                                    for node in ast.walk(test_tree)):
            return False
    allowed = _allowed_uses(body_tree, set(names))
    return all(id(node) in allowed for node in ast.walk(body_tree)
               if isinstance(node, ast.Name) and node.id in names)


def _allowed_uses(tree: ast.FunctionDef, names: set) -> set:
    """The ids of the Name nodes of `tree` that are appends to `names` or their return."""
    allowed: set[int] = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and _is_append(statement, names):
            call = statement.value
            assert isinstance(call, ast.Call)  # (what _is_append checked)
            allowed.update((id(statement.targets[0]), id(call.args[0])))
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Return) and last.value is not None:
        values = last.value.elts if isinstance(last.value, ast.Tuple) else [last.value]
        allowed.update(id(v) for v in values if isinstance(v, ast.Name) and v.id in names)
    return allowed


def _is_append(statement: ast.Assign, names: set) -> bool:
    """`name = ag__.list_append(name, value)` with `value` not reading `name`."""
    call = statement.value
    if len(statement.targets) != 1 or not isinstance(call, ast.Call) or call.keywords:
        return False
    target, func = statement.targets[0], call.func
    if not (isinstance(target, ast.Name) and target.id in names and isinstance(func, ast.Attribute)
            and func.attr == "list_append" and isinstance(func.value, ast.Name)
            and func.value.id == "ag__" and len(call.args) == 2):
        return False
    lst, value = call.args
    return (isinstance(lst, ast.Name) and lst.id == target.id
            and not any(isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(value)))


@functools.lru_cache(maxsize=1024)  # one parse per generated function
def _parsed(code) -> ast.FunctionDef | None:
    try:
        lines, _ = inspect.findsource(code)
        start = code.co_firstlineno - 1
        source = textwrap.dedent("".join(inspect.getblock(lines[start:])))
        tree = ast.parse(source).body[0]
    except (OSError, SyntaxError, IndexError, TypeError):
        return None
    return tree if isinstance(tree, ast.FunctionDef) else None


def _tree(fn) -> ast.FunctionDef | None:
    code = getattr(fn, "__code__", None)
    return None if code is None else _parsed(code)
