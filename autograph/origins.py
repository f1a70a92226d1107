"""Where generated code came from: user origins on AST nodes, and maps of generated lines.

`mark(tree, filename, line_offset, lines)` stamps every node of a freshly parsed user function
with its `Origin`. After conversion, `emit` pairs each line of the generated code with the
origin of the first node printed on it (an `OriginMap`). Maps are kept in `REGISTRY`, so
`user_location(file, line)` can answer for any generated file.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import NamedTuple

from autograph import traversal
from autograph.anno import Anno, hasanno, setanno


class Origin(NamedTuple):
    """A place in the user's source: file, line, column (None when only the line is known, as
    for a frame of running code) and the text of the line. Shared by autograph and runtime."""

    filename: str
    lineno: int
    col: int | None
    text: str

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


def mark(tree, filename: str, line_offset: int, col_offset: int, lines: list[str]) -> None:
    """Annotates every node of `tree` (parsed from `lines`) with its user Origin."""
    for node in traversal.walk(tree):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            continue
        text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        col = getattr(node, "col_offset", 0) + col_offset
        setanno(node, Anno.ORIGIN, Origin(filename, lineno + line_offset, col, text))


def stamp(nodes, origin: Origin | None) -> None:
    """Gives `origin` to the nodes a converter made under `nodes`: every node with a position
    that has none, without descending into nodes that have one (the user's, stamped already).
    """
    if origin is None:
        return
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        node = stack.pop()
        if "lineno" in node._attributes:
            if hasanno(node, Anno.ORIGIN):
                continue
            setanno(node, Anno.ORIGIN, origin)
        stack.extend(traversal.children(node))


class OriginMap:
    """Generated line number -> user Origin, for one generated file."""

    def __init__(self, lines: dict[int, Origin]):
        self.lines = lines


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
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        origin = REGISTRY.lookup(frame.f_code.co_filename, frame.f_lineno)
        if origin is not None:
            return origin
        frame = frame.f_back
    return None
