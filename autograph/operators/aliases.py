"""Other names for a container a staged construct replaces, or writes a copy of.

A construct carries the function's own lists and dicts by value: a list whose length it
changes becomes a staged list (`check_alias`), and a list or dict whose items its paths write
is rebuilt from each path's copy (`held_by_caller`). Another name for the same container (an
alias in the function, a place inside another variable, a caller's variable) would keep the
old one and silently miss the changes, so it is refused at the construct's line. The names
are those of the converted functions running on the stack (`generated_frames`).
"""

from __future__ import annotations

import sys
from types import FrameType

from autograph.errors import AutoGraphError, at
from autograph.origins import REGISTRY, caller_origin


def generated_frames() -> list:
    """The frames of the converted functions running on the stack, innermost first."""
    frames = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if REGISTRY.is_generated(frame.f_code.co_filename):
            frames.append(frame)
        frame = frame.f_back
    return frames


def check_alias(name, lst, root) -> None:
    """A Python list that a staged construct turns into a staged list must be reachable only
    as `name`: another name for it (`b = a`), or another place in the same variable, would
    keep the old Python list and silently miss the construct's changes. Checks the locals of
    the converted function that runs the construct (one level into their containers)."""
    frames = generated_frames()
    if not frames:
        return
    frame = frames[0]
    variable = name.split("[")[0]
    others = []
    for local, value in frame.f_locals.items():
        if local == variable:
            if _occurrences(value, lst) > 1:
                others.append(f"another place in '{variable}'")
        elif value is lst:
            others.append(f"'{local}'")
        elif (type(value) in (list, tuple) or isinstance(value, dict)) and any(
                v is lst for v in (value.values() if isinstance(value, dict) else value)):
            others.append(f"an item of '{local}'")
    if others:
        raise AutoGraphError(at(
            f"'{name}' is changed in length by a graph `if`/loop, so it becomes a staged list "
            f"there, but the same Python list is also {', '.join(others)}, which would keep the "
            "old list and miss the changes. Give the list one name (copy it where a second "
            "one is needed: `b = list(a)`).", caller_origin()))


def definers(code, running: list) -> list:
    """The code of the running functions that define `code`'s function, innermost first (a
    branch function's: the function running the construct, then the one defining that...);
    the chain ends at a function whose definer is not running (a converted function's)."""
    chain = []
    while (code := next((c for c in running if code in c.co_consts), None)) is not None:
        chain.append(code)
    return chain


def held_by_caller(obj, name: str) -> None:
    """Refuses a list or dict that a construct's paths wrote into (each path a copy of it) when
    another name in the converted functions running on the stack holds it: an alias in the
    function (`orig = d`) or a caller's variable (a helper writing into its caller's list).
    Python changes the container they see; the graph leaves it as it was."""
    frames = generated_frames()
    if not frames:
        return
    codes = [f.f_code for f in frames]
    family = [codes[0], *definers(codes[0], codes)]  # (the construct's function, its definers)
    variable = name.split("'")[1] if name.count("'") >= 2 else None
    for frame in frames:
        own = frame.f_code in family
        for local, value in frame.f_locals.items():
            if own and local == variable:
                continue
            if value is obj:
                where = f"'{local}'"
            elif type(value) in (list, tuple, dict) and any(
                    v is obj for v in (value.values() if isinstance(value, dict) else value)):
                where = f"an item of '{local}'"
            else:
                continue
            whose = "" if own else f" of {frame.f_code.co_name}, a caller"
            raise AutoGraphError(at(
                f"Writing into {name} in a graph `if`/loop here changes a copy of it (each path "
                f"takes its own), but the same {type(obj).__name__} is also {where}{whose}, "
                "which Python would see changed and the graph cannot. Return the new values "
                "(a container made in the function) and assign them where they are needed.",
                caller_origin()))


def _occurrences(value, target) -> int:
    """How many times the object `target` is `value` or inside its containers."""
    if value is target:
        return 1
    if isinstance(value, dict):
        return sum(_occurrences(v, target) for v in value.values())
    if type(value) in (list, tuple):
        return sum(_occurrences(v, target) for v in value)
    return 0
