"""Shared by the return/break/continue converters: removing jumps of one kind from a block.

Code after a jump is unreachable and dropped. Code after an `if` that may jump moves into the
branch that falls through, so `if c: return x` / `rest` reads as `if c: return x else: rest`.
When moving would copy more than one simple statement into two branches (or the statement is a
loop, `with` or `try`), the rest is guarded by a flag test instead (`if not break_: rest`).
"""

from __future__ import annotations

import copy

import gast

from autograph import templates, traversal
from autograph.anno import Anno, getanno
from autograph.errors import ConversionError, at

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_LOOPS = (gast.While, gast.For, gast.AsyncFor)
_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.Pass)


class JumpLowering:
    """Removes the jumps of `kind` (statement types) from blocks.

    replace(stmt) -> statements that stand for the jump; guard(stmts) -> the guarded block
    (may raise NeedsFlag); lower_loop(loop) -> statements for a loop that contains jumps
    (only when `into_loops`, for `return`).
    """

    def __init__(self, kind, replace, guard, into_loops=False, lower_loop=None):
        self.kind = kind
        self.replace = replace
        self.guard = guard
        self.into_loops = into_loops
        self.lower_loop = lower_loop

    @classmethod
    def flagged(cls, kind, flag: str) -> JumpLowering:
        """Lowering that sets `flag = True` at each jump and guards the code after a possible
        jump with `if not flag:` (the break and continue converters)."""

        def replace(jump):
            return templates.replace("flag = True", getanno(jump, Anno.ORIGIN), flag=flag)

        def guard(stmts):
            if not stmts:
                return []
            return templates.replace("if not flag:\n    body", getanno(stmts[0], Anno.ORIGIN),
                                     flag=flag, body=stmts)

        return cls(kind, replace, guard)

    @classmethod
    def appears_in(cls, kind, stmts) -> bool:
        """Whether a jump of `kind` leaves one of `stmts` (not counting nested loops)."""
        probe = cls(kind, None, None)
        return any(probe.contains(s) for s in stmts)

    def contains(self, node) -> bool:
        """Whether `node` holds a jump of this kind that leaves it."""
        if isinstance(node, _FUNCTIONS):
            return False
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, self.kind):
                return True
            # Jumps are statements, and statements only appear in blocks: skip expressions.
            for child in traversal.block_children(n):
                if isinstance(child, _FUNCTIONS):
                    continue
                if isinstance(child, _LOOPS) and not self.into_loops:
                    continue
                stack.append(child)
        return False

    def always_jumps(self, stmts) -> bool:
        """Whether every path through `stmts` ends in a jump of this kind: a final jump, an
        `if` whose branches both do, a `with` whose body does, or a `while True:` that no
        `break` leaves (only a jump can)."""
        if not stmts:
            return False
        last = stmts[-1]
        if isinstance(last, self.kind):
            return True
        if isinstance(last, gast.If):
            return self.always_jumps(last.body) and self.always_jumps(last.orelse)
        if isinstance(last, (gast.With, gast.AsyncWith)):
            return self.always_jumps(last.body)
        if isinstance(last, gast.While):
            endless = isinstance(last.test, gast.Constant) and last.test.value is True
            return endless and not self.appears_in(gast.Break, last.body)
        return False

    def block(self, stmts) -> list:
        """The statements of `stmts` with every jump of this kind removed."""
        out: list = []
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, self.kind):
                return out + self.replace(stmt)
            if not self.contains(stmt):
                out.append(stmt)
                continue
            rest = stmts[i + 1:]
            if isinstance(stmt, gast.If):
                falls = [b for b in ("body", "orelse") if not self.always_jumps(getattr(stmt, b))]
                if len(falls) < 2 or not rest or _small(rest):
                    for j, branch in enumerate(falls):
                        moved = rest if j == 0 else copy.deepcopy(rest)
                        setattr(stmt, branch, getattr(stmt, branch) + moved)
                    stmt.body = self.block(stmt.body) or [gast.Pass()]
                    stmt.orelse = self.block(stmt.orelse)
                    return out + [stmt]
                stmt.body = self.block(stmt.body) or [gast.Pass()]
                stmt.orelse = self.block(stmt.orelse)
                out.append(stmt)
            elif isinstance(stmt, _LOOPS):
                out.extend(self.lower_loop(stmt))
            else:
                out.append(self._inner(stmt))
            return out + (self.guard(self.block(rest)) if rest else [])
        return out

    def needs_guard(self, stmts) -> bool:
        """Whether `block(stmts)` would need a guard or a loop lowering (without changing
        anything): then the caller uses flags instead of moving code."""
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, self.kind):
                return False
            if not self.contains(stmt):
                continue
            rest = stmts[i + 1:]
            if isinstance(stmt, gast.If):
                falls = [b for b in ("body", "orelse") if not self.always_jumps(getattr(stmt, b))]
                if len(falls) == 2 and rest and not _small(rest):
                    return True
                return any(self.needs_guard(getattr(stmt, b) + (rest if b in falls else []))
                           for b in ("body", "orelse"))
            if isinstance(stmt, _LOOPS) or rest:
                return True
            if isinstance(stmt, gast.Try) and (
                    stmt.finalbody and any(self.contains(s) for s in stmt.finalbody)
                    or stmt.orelse and any(self.contains(s) for s in stmt.body)):
                return True  # an `else:` to skip after a jump; a jump in `finally`
            blocks = [getattr(stmt, f, None) or [] for f in ("body", "orelse", "finalbody")]
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
            blocks += [c.body for c in getattr(stmt, "cases", [])]
            return any(self.needs_guard(b) for b in blocks)
        return False

    def _inner(self, stmt):
        """`with` / `try` / `match`: lower the blocks inside. A `try`'s `else:` runs only if its
        body ended without a jump, so after a lowered jump it is guarded too."""
        if isinstance(stmt, gast.Match):  # stays Python: each case's block is lowered
            for case in stmt.cases:
                case.body = self.block(case.body) or [gast.Pass()]
            return stmt
        final = getattr(stmt, "finalbody", None)
        if final and self.guard is not None and any(self.contains(s) for s in final):
            jump = next(n for s in final for n in traversal.walk(s) if isinstance(n, self.kind))
            raise ConversionError(at(
                f"`{type(jump).__name__.lower()}` inside `finally` is not supported: it would "
                "silently discard an exception raised in the `try` (Python 3.14 warns about it, "
                "PEP 765). Move it after the `try` statement.", getanno(jump, Anno.ORIGIN)))
        body_jumps = any(self.contains(s) for s in stmt.body)
        stmt.body = self.block(stmt.body) or [gast.Pass()]
        orelse = getattr(stmt, "orelse", None)
        if orelse:
            orelse = self.block(orelse)
            if body_jumps and self.guard is not None:
                orelse = self.guard(orelse)
            stmt.orelse = orelse or [gast.Pass()]
        if final:
            stmt.finalbody = self.block(final) or [gast.Pass()]
        for handler in getattr(stmt, "handlers", []):
            handler.body = self.block(handler.body) or [gast.Pass()]
        return stmt


def _small(rest) -> bool:
    return len(rest) == 1 and isinstance(rest[0], _SIMPLE)
