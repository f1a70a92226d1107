"""Where generated code came from: user origins on AST nodes, and maps of generated lines.

`mark(tree, filename, line_offset, lines)` stamps every node of a freshly parsed user function
with its `Origin`. After conversion, `to_ast_with_user_lines` and `OriginMap.build` pair
each line of the generated source with the origin of the first node that produced it. Maps are
kept in `REGISTRY`, so `user_location(file, line)` can answer for any generated file.
"""

from __future__ import annotations

import ast
import sys
from typing import NamedTuple

import gast

from autograph.anno import Anno, getanno, hasanno, setanno


class Origin(NamedTuple):
    """A place in the user's source."""

    filename: str
    lineno: int
    col: int
    text: str

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


def mark(tree, filename: str, line_offset: int, col_offset: int, lines: list[str]) -> None:
    """Annotates every node of `tree` (parsed from `lines`) with its user Origin."""
    for node in gast.walk(tree):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            continue
        text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        col = getattr(node, "col_offset", 0) + col_offset
        setanno(node, Anno.ORIGIN, Origin(filename, lineno + line_offset, col, text))


def stamp(nodes, origin: Origin | None) -> None:
    """Gives `origin` to every node under `nodes` that has none (nodes made by a converter)."""
    if origin is None:
        return
    for root in nodes if isinstance(nodes, list) else [nodes]:
        for node in gast.walk(root):
            if not hasanno(node, Anno.ORIGIN):
                setanno(node, Anno.ORIGIN, origin)


class OriginMap:
    """Generated line number -> user Origin, for one generated file."""

    def __init__(self, lines: dict[int, Origin]):
        self.lines = lines

    @classmethod
    def build(cls, tree, generated_tree, by_line: dict[int, Origin]) -> OriginMap:
        """Pairs `tree` (from `to_ast_with_user_lines`) with `generated_tree` (the generated
        source parsed back): both have the same shape, so a parallel walk lines them up."""
        lines: dict[int, Origin] = {}
        for before, after in zip(ast.walk(tree), ast.walk(generated_tree)):
            if type(before) is not type(after):
                break  # unparse changed the shape; the lines mapped so far remain valid
            lineno = getattr(after, "lineno", None)
            user_line = getattr(before, "lineno", 0)
            if lineno is not None and user_line and lineno not in lines:
                lines[lineno] = by_line[user_line]
        return cls(lines)


def to_ast_with_user_lines(tree):
    """`tree` (gast) as a stdlib AST whose line numbers are the user's (0 where a node has no
    origin), and the first Origin of each user line."""
    by_line: dict[int, Origin] = {}
    for node in gast.walk(tree):
        if "lineno" not in node._attributes:
            continue
        origin = getanno(node, Anno.ORIGIN)
        node.lineno = origin.lineno if origin is not None else 0
        node.col_offset = origin.col if origin is not None else 0
        node.end_lineno = node.end_col_offset = None
        if origin is not None:
            by_line.setdefault(origin.lineno, origin)
    return ast.fix_missing_locations(gast.gast_to_ast(tree)), by_line


class OriginRegistry:
    """Origin maps of every generated file, by filename."""

    def __init__(self):
        self._maps: dict[str, OriginMap] = {}

    def add(self, filename: str, origin_map: OriginMap) -> None:
        self._maps[filename] = origin_map

    def is_generated(self, filename: str) -> bool:
        return filename in self._maps

    def lookup(self, filename: str, lineno: int) -> Origin | None:
        origin_map = self._maps.get(filename)
        return None if origin_map is None else origin_map.lines.get(lineno)


# Every generated file of this process; the loader adds to it, errors and the runtime read it.
REGISTRY = OriginRegistry()


def caller_origin() -> Origin | None:
    """The user origin of the innermost generated frame on the call stack."""
    frame = sys._getframe(1)
    while frame is not None:
        origin = REGISTRY.lookup(frame.f_code.co_filename, frame.f_lineno)
        if origin is not None:
            return origin
        frame = frame.f_back
    return None
