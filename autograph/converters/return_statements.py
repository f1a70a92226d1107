"""Lowers `return` so that every remaining `return` ends its function (tail position).

Before:                         After (moved, the common case):
    if x > 0:                       if x > 0:
        return x                        return x
    y = x * 2                       else:
    return y                            y = x * 2
                                        return y
A `return` inside a loop, or code that would have to be copied into several branches, uses
flags instead: `retval = v; do_return = True` (plus `break` in a loop), later code guarded by
`if not do_return:`, and one `return retval` at the end. `retval` starts as
`ag__.UndefinedReturn()` (never a value that could be returned by mistake); when the function
may also end without a `return`, the end is `return ag__.return_value(retval, do_return)`,
which gives None where no `return` ran.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.anno import Anno, getanno, setanno
from autograph.converters._jumps import JumpLowering
from autograph.origins import stamp


def transform(node, ctx):
    """Lowers the returns of the function `node` and of the functions nested in it."""
    return _Returns(ctx).visit(node)


class _Returns(traversal.StatementTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        in_place = JumpLowering(gast.Return, replace=lambda s: [s], guard=None, into_loops=True)
        if in_place.needs_guard(node.body):
            node.body = _FlagLowering(self.ctx, node).lower(node.body)
        else:
            node.body = in_place.block(node.body)
        return node


class _FlagLowering:
    def __init__(self, ctx, fn_node):
        self.do_return = ctx.namer.new("do_return")
        self.retval = ctx.namer.new("retval")
        ctx.return_values.add(self.retval)
        self.guarded = False
        self.origin = getanno(fn_node, Anno.ORIGIN)

    def lower(self, body):
        self.always_returns = JumpLowering(gast.Return, None, None).always_jumps(body)
        self.jumps = JumpLowering(gast.Return, replace=self._replace, guard=self._guard,
                                  into_loops=True, lower_loop=self._loop)
        body = self.jumps.block(body)
        if not self.guarded:
            body = _DropAssignments(self.do_return).visit_block(body)
        head = templates.replace(
            "do_return = False\nretval = ag__.UndefinedReturn()", self.origin,
            do_return=self.do_return, retval=self.retval,
        )
        if not self.guarded:
            head = head[1:]
        if self.always_returns or not self.guarded:
            tail = templates.replace("return retval", self.origin, retval=self.retval)
        else:  # it may end without a `return`: None, where no `return` ran
            tail = templates.replace("return ag__.return_value(retval, do_return)", self.origin,
                                     retval=self.retval, do_return=self.do_return)
        return head + body + tail

    def _replace(self, node, in_loop=False):
        value = node.value if node.value is not None else gast.Constant(value=None, kind=None)
        # The value first: if computing it raises (inside a `try`), no `return` happened.
        stmts = templates.replace(
            "retval = value\ndo_return = True", getanno(node, Anno.ORIGIN),
            do_return=self.do_return, retval=self.retval, value=value,
        )
        setanno(stmts[1], Anno.GENERATED, True)
        if in_loop:
            stmts.append(gast.Break())
            stamp(stmts[-1], getanno(node, Anno.ORIGIN))
        return stmts

    def _guard(self, stmts):
        self.guarded = True
        if not stmts:
            return []
        return templates.replace("if not do_return:\n    body", getanno(stmts[0], Anno.ORIGIN),
                                 do_return=self.do_return, body=stmts)

    def _loop(self, loop):
        """Returns inside a loop set the flags and break (out of every enclosing loop)."""
        loop.body = _LoopReturns(self).visit_block(loop.body)
        loop.orelse = self.jumps.block(loop.orelse)  # `else:` runs after the loop, outside it
        self.guarded = True
        return [loop]


class _LoopReturns(traversal.StatementTransformer):
    def __init__(self, lowering):
        self.lowering = lowering

    def visit_Return(self, node):
        return self.lowering._replace(node, in_loop=True)

    def visit_While(self, node):
        had_return = JumpLowering(gast.Return, None, None, into_loops=True).contains(node)
        self.generic_visit(node)
        if not had_return:
            return node
        exit_outer = templates.replace(
            "if do_return:\n    break", getanno(node, Anno.ORIGIN),
            do_return=self.lowering.do_return,
        )
        return [node] + exit_outer

    visit_For = visit_While

    def visit_FunctionDef(self, node):
        return node

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef


class _DropAssignments(traversal.StatementTransformer):
    """Removes the generated `do_return = True` when nothing tests the flag."""

    def __init__(self, flag):
        self.flag = flag

    def visit_Assign(self, node):
        if getanno(node, Anno.GENERATED) and node.targets[0].id == self.flag:
            return []
        return node

