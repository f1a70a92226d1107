"""Converts `if`, `while` and `for` into calls of `ag__.if_stmt/while_stmt/for_stmt`.

Runs after jump lowering. Each branch or loop body becomes a local function that takes the
variables it modifies (those live before or after the statement) and returns them:

    if x > 0:                  def if_true(total):
        total += 100               total += 100
                        ->         return total
                               def if_false(total):
                                   return total
                               total = ag__.if_stmt(x > 0, if_true, if_false, (total,),
                                                    ('total',))
An `if` whose branches `return` (tail position after lowering) becomes `return ag__.if_stmt(...)`.
Variables first assigned by the statement are passed as `ag__.Undefined('name')`.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal
from autograph.analysis import activity, definedness, liveness
from autograph.anno import Anno, getanno, hasanno
from autograph.errors import ConversionError, at
from autograph.origins import stamp

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def transform(node, ctx):
    """Converts the control flow of the function `node` (and of functions nested in it)."""
    activity.analyze(node)
    liveness.analyze(node)
    definedness.analyze(node)
    converter = _ControlFlow(ctx, _appearance_order(node))
    node = converter.visit(node)
    if converter.maybe_undefined:
        node = _GuardReads(converter.maybe_undefined).visit(node)
    return node


class _ControlFlow(traversal.StatementTransformer):
    def __init__(self, ctx, order):
        self.namer = ctx.namer
        self.order = order
        self.maybe_undefined = set()  # variables passed as ag__.Undefined somewhere
        self.declared = [set()]  # names declared global/nonlocal, per function

    def visit_FunctionDef(self, node):
        declared = {
            name for s in traversal.statements(node) if isinstance(s, (gast.Global, gast.Nonlocal))
            for name in s.names
        }
        self.declared.append(declared)
        self.generic_visit(node)
        self.declared.pop()
        return node

    def visit_Try(self, node):
        # Control flow inside `try` stays Python: the `except` could not catch errors raised
        # when a graph runs. A tensor condition there is an error at the user's line.
        return _InTry(self).visit(node)

    # ---- if ----------------------------------------------------------------------------------
    def visit_If(self, node):
        true_name, false_name = self.namer.new("if_true"), self.namer.new("if_false")
        self.generic_visit(node)
        origin = getanno(node, Anno.ORIGIN)
        modified = getanno(node, Anno.BODY_SCOPE).modified | getanno(
            node, Anno.ORELSE_SCOPE).modified
        self._check_declared(modified, node)
        returns = _contains_return(node)
        live = getanno(node, Anno.LIVE_IN) | (frozenset() if returns else getanno(
            node, Anno.LIVE_OUT))
        state = self._ordered(modified & live)
        ret = [] if returns else _return_state(state)
        branches = (
            _function(true_name, state, node.body + ret, origin)
            + _function(false_name, state, (node.orelse or [gast.Pass()]) + ret, origin)
        )
        args = [node.test, templates.name(true_name), templates.name(false_name)]
        if state:
            args.append(self._state_args(state, node))
        if state and not returns:
            args.append(templates.strings_tuple(state))
        call = _ag_call("if_stmt", args)
        if returns:
            stmt = gast.Return(value=call)
        else:
            stmt = _assign_state(state, call)
        stamp(stmt, origin)
        return branches + [stmt]

    # ---- while -------------------------------------------------------------------------------
    def visit_While(self, node):
        test_name, body_name = self.namer.new("loop_test"), self.namer.new("loop_body")
        self.generic_visit(node)
        origin = getanno(node, Anno.ORIGIN)
        state = self._loop_state(node, getanno(node, Anno.BODY_SCOPE).modified)
        stmts = _function(test_name, state, [gast.Return(value=node.test)], origin)
        stmts += _function(body_name, state, node.body + _return_state(state), origin)
        args = [templates.name(test_name), templates.name(body_name)]
        if state:
            args += [self._state_args(state, node), templates.strings_tuple(state)]
        stmt = _assign_state(state, _ag_call("while_stmt", args))
        stamp(stmt, origin)
        return stmts + [stmt]

    # ---- for ---------------------------------------------------------------------------------
    def visit_For(self, node):
        test_name = self.namer.new("loop_test") if hasanno(node, Anno.LOOP_TEST) else None
        body_name = self.namer.new("loop_body")
        self.generic_visit(node)
        origin = getanno(node, Anno.ORIGIN)
        target_names = activity.of(node.target).modified
        state = self._loop_state(node, getanno(node, Anno.BODY_SCOPE).modified | target_names)
        body = node.body
        if isinstance(node.target, gast.Name) and node.target.id not in state:
            item = node.target.id
        else:
            item = self.namer.new("itr")
            body = templates.replace("target = item", origin, target=node.target,
                                     item=item) + body
        stmts = _function(body_name, [item] + state, body + _return_state(state), origin)
        args = [node.iter, templates.name(body_name)]
        if state:
            args += [self._state_args(state, node), templates.strings_tuple(state)]
        keywords = []
        extra_test = getanno(node, Anno.LOOP_TEST)
        if extra_test is not None:
            stmts = _function(test_name, state, [gast.Return(value=extra_test)], origin) + stmts
            keywords.append(gast.keyword(arg="extra_test", value=templates.name(test_name)))
        call = _ag_call("for_stmt", args, keywords)
        stmt = _assign_state(state, call)
        stamp(stmt, origin)
        return stmts + [stmt]

    # ---- helpers -----------------------------------------------------------------------------
    def _loop_state(self, node, modified):
        self._check_declared(modified, node)
        live = getanno(node, Anno.LIVE_IN) | getanno(node, Anno.LIVE_OUT)
        return self._ordered(modified & live)

    def _ordered(self, names) -> list:
        """`names` in order of first appearance in the function."""
        return sorted(names, key=lambda n: (self.order.get(n, len(self.order)), n))

    def _check_declared(self, modified, node):
        bad = sorted(modified & self.declared[-1])
        if bad:
            raise ConversionError(at(
                f"'{bad[0]}' is declared global or nonlocal and assigned inside an `if` or loop; "
                "autograph cannot convert that (the assignment would stay local to the branch). "
                "Assign it outside the control flow, or return the value instead.",
                getanno(node, Anno.ORIGIN)))

    def _state_args(self, state, node):
        """`(a, ag__.Undefined('b'))`: the current values of the state variables."""
        defined = getanno(node, Anno.DEFINED_IN)
        self.maybe_undefined |= set(state) - defined
        elts = [
            templates.name(n) if n in defined
            else _ag_call("Undefined", [gast.Constant(value=n, kind=None)])
            for n in state
        ]
        return gast.Tuple(elts=elts, ctx=gast.Load())


class _InTry(traversal.StatementTransformer):
    """Leaves `if`/`while`/`for` as Python, with their condition or iterable checked by
    `ag__.python_value`; functions defined inside are converted as usual."""

    def __init__(self, converter):
        self.converter = converter

    def _check(self, expr, what):
        return _ag_call("python_value", [expr, gast.Constant(value=what, kind=None)])

    def visit_If(self, node):
        self.generic_visit(node)
        node.test = self._check(node.test, "if")
        return node

    def visit_While(self, node):
        self.generic_visit(node)
        node.test = self._check(node.test, "while")
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        node.iter = self._check(node.iter, "for")
        return node

    def visit_FunctionDef(self, node):
        return self.converter.visit(node)


class _GuardReads(traversal.Transformer):
    """The user's reads of a variable that may be undefined become `ag__.ld(name)`, which
    raises like Python would if it is (generated names are left alone)."""

    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        if (node.id in self.names and isinstance(node.ctx, gast.Load)
                and not getanno(node, Anno.GENERATED)):
            return gast.copy_location(_ag_call("ld", [node]), node)
        return node


def _ag_call(name, args, keywords=()):
    func = gast.Attribute(value=templates.name("ag__"), attr=name, ctx=gast.Load())
    return gast.Call(func=func, args=list(args), keywords=list(keywords))


def _function(name, params, body, origin):
    """`def name(params): body` (without a `pass` that other statements make redundant)."""
    body = [s for s in body if not isinstance(s, gast.Pass)] or [gast.Pass()]
    return templates.replace("def fn(params):\n    body", origin, fn=name, params=list(params),
                             body=body)


def _return_state(state):
    if not state:
        return []
    if len(state) == 1:
        return [gast.Return(value=templates.name(state[0]))]
    return [gast.Return(value=templates.names_tuple(state))]


def _assign_state(state, call):
    if not state:
        return gast.Expr(value=call)
    target = templates.name(state[0], gast.Store()) if len(state) == 1 else \
        templates.names_tuple(state, gast.Store())
    return gast.Assign(targets=[target], value=call, type_comment=None)


def _contains_return(node) -> bool:
    """Whether a `return` is in `node`'s blocks (not in functions or classes defined there)."""
    stack = traversal.block_children(node)
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Return):
            return True
        if not isinstance(n, _FUNCTIONS):
            stack.extend(traversal.block_children(n))
    return False


def _appearance_order(node) -> dict:
    """Name -> index of its first appearance in `node` (source order, depth first)."""
    order = {}
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Name) and n.id not in order:
            order[n.id] = len(order)
        stack.extend(reversed(traversal.children(n)))
    return order
