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

State that bodies change in place is passed as `slots=`: variables shared with nested
functions or declared global (bodies declare them `nonlocal` / `global`, so closures see the
current value), and subscripts and attributes the body assigns (`d['k']`, `o.n`):

    for i in [1, 2]:            def loop_body(itr, s):
        s = s * 10 + get()          nonlocal i
    (get = lambda: i + 2)   ->      i = itr
                                    s = s * 10 + ag__.converted_call(get)
                                    return s
                                s = ag__.for_stmt([1, 2], loop_body, (s,), ('s',),
                                                  slots=(ag__.Nonlocal('i'),))
`del x` inside a branch or loop body becomes `x = ag__.Undefined('x')`.
"""

from __future__ import annotations

import copy

import gast

from autograph import templates, traversal
from autograph.analysis import activity, closures, composites, definedness, liveness
from autograph.anno import Anno, getanno, hasanno
from autograph.operators.state import RETURN_VALUE
from autograph.origins import stamp

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def transform(node, ctx):
    """Converts the control flow of the function `node` (and of functions nested in it)."""
    activity.analyze(node)
    liveness.analyze(node)
    definedness.analyze(node)
    closures.analyze(node)
    converter = _ControlFlow(ctx, _appearance_order(node))
    node = converter.visit(node)
    if converter.maybe_undefined:
        node = _GuardReads(converter.maybe_undefined).visit(node)
    return node


class _ControlFlow(traversal.StatementTransformer):
    def __init__(self, ctx, order):
        self.namer = ctx.namer
        self.return_values = ctx.return_values
        self.order = order
        self.maybe_undefined = set()  # variables passed as ag__.Undefined somewhere
        self.shared = [closures.Shared({}, frozenset())]  # per function (closures.Shared)
        self.local = [frozenset()]  # per function: its own variables (closures.own_variables)
        self.unbound = [set()]  # per function: names to bind to Undefined at its start
        # The parameters of the generated functions around the statement visited (always bound).
        self.bound = [frozenset()]

    def visit_FunctionDef(self, node):
        self.shared.append(getanno(node, Anno.SHARED))
        self.local.append(frozenset(closures.own_variables(node)))
        self.unbound.append(set())
        bound, self.bound = self.bound, [frozenset()]
        self.generic_visit(node)
        self.bound = bound
        self.shared.pop()
        self.local.pop()
        _bind_at_start(node, self.unbound.pop(), self.maybe_undefined)
        return node

    def visit_Try(self, node):
        # Control flow inside `try` with `except` stays Python: the `except` could not catch
        # errors raised when a graph runs. A tensor condition there is an error at the user's
        # line. With `finally` only, the blocks are converted as usual.
        if not node.handlers:
            self.generic_visit(node)
            return node
        return _InTry(self).visit(node)

    def visit_Delete(self, node):
        """`del x` in a body: the variable is unassigned again (an Undefined, read like one)."""
        names = [t.id for t in node.targets if isinstance(t, gast.Name)]
        if len(self.bound) == 1 or len(names) != len(node.targets) or any(
                self.shared[-1].kinds.get(n) == "global" for n in names):
            return node
        self.maybe_undefined.update(names)
        stmts = [templates.replace("name = ag__.Undefined(text)", getanno(node, Anno.ORIGIN),
                                   name=n, text=gast.Constant(value=n, kind=None))[0]
                 for n in names]
        return stmts

    def _visit_body(self, node, params):
        """Converts the blocks of `node`, which become functions taking `params`."""
        self.bound.append(self.bound[-1] | set(params))
        self.generic_visit(node)
        self.bound.pop()

    # ---- if ----------------------------------------------------------------------------------
    def visit_If(self, node):
        true_name, false_name = self.namer.new("if_true"), self.namer.new("if_false")
        modified = getanno(node, Anno.BODY_SCOPE).modified | getanno(
            node, Anno.ORELSE_SCOPE).modified
        modified |= self._containers_changed(node.body + node.orelse, modified)
        shared = self._shared(node, modified)
        # Slots before the blocks are converted (their writes move into local functions).
        slots = self._slots(node, shared, modified, node.body + node.orelse)
        returns = _contains_return(node)
        live = getanno(node, Anno.LIVE_IN) | (frozenset() if returns else getanno(
            node, Anno.LIVE_OUT))
        state = self._ordered((modified & live) - set(shared))
        self._visit_body(node, state)
        origin = getanno(node, Anno.ORIGIN)
        ret = [] if returns else _return_state(state)
        declare = _declarations(shared, self.shared[-1].kinds)
        branches = (
            _function(true_name, state, declare + node.body + ret, origin)
            + _function(false_name, state, declare + (node.orelse or [gast.Pass()]) + ret,
                        origin)
        )
        args = [node.test, templates.name(true_name), templates.name(false_name)]
        if state:
            args.append(self._if_state_args(state, node))
        if state and not returns:
            args.append(self._names(state))
        call = _ag_call("if_stmt", args, slots)
        if returns:
            stmt = gast.Return(value=call)
        else:
            stmt = _assign_state(state, call)
        stamp(stmt, origin)
        return branches + [stmt]

    # ---- while -------------------------------------------------------------------------------
    def visit_While(self, node):
        test_name, body_name = self.namer.new("loop_test"), self.namer.new("loop_body")
        modified = getanno(node, Anno.BODY_SCOPE).modified
        modified |= self._containers_changed(node.body, modified)
        shared = self._shared(node, modified)
        slots = self._slots(node, shared, modified, node.body)
        state = self._loop_state(node, modified - set(shared))
        self._visit_body(node, state)
        origin = getanno(node, Anno.ORIGIN)
        declare = _declarations(shared, self.shared[-1].kinds)
        stmts = _function(test_name, state, declare + [gast.Return(value=node.test)], origin)
        stmts += _function(body_name, state, declare + node.body + _return_state(state), origin)
        args = [templates.name(test_name), templates.name(body_name)]
        if state:
            args += [self._state_args(state, node), self._names(state)]
        stmt = _assign_state(state, _ag_call("while_stmt", args, slots))
        stamp(stmt, origin)
        return stmts + [stmt]

    # ---- for ---------------------------------------------------------------------------------
    def visit_For(self, node):
        test_name = self.namer.new("loop_test") if hasanno(node, Anno.LOOP_TEST) else None
        body_name = self.namer.new("loop_body")
        target_names = activity.of(node.target).modified
        modified = getanno(node, Anno.BODY_SCOPE).modified | target_names
        modified |= self._containers_changed(node.body, modified)
        shared = self._shared(node, modified)
        slots = self._slots(node, shared, modified, node.body + [_target_write(node)])
        state = self._loop_state(node, modified - set(shared))
        self._visit_body(node, state + list(target_names))
        origin = getanno(node, Anno.ORIGIN)
        declare = _declarations(shared, self.shared[-1].kinds)
        body = node.body
        if isinstance(node.target, gast.Name) and node.target.id not in state + shared:
            item = node.target.id
        else:
            item = self.namer.new("itr")
            body = templates.replace("target = item", origin, target=node.target,
                                     item=item) + body
        stmts = _function(body_name, [item] + state, declare + body + _return_state(state),
                          origin)
        args = [node.iter, templates.name(body_name)]
        if state:
            args += [self._state_args(state, node), self._names(state)]
        keywords = []
        extra_test = getanno(node, Anno.LOOP_TEST)
        if extra_test is not None:
            stmts = _function(test_name, state, declare + [gast.Return(value=extra_test)],
                              origin) + stmts
            keywords.append(gast.keyword(arg="extra_test", value=templates.name(test_name)))
        call = _ag_call("for_stmt", args, keywords + slots)
        stmt = _assign_state(state, call)
        stamp(stmt, origin)
        return stmts + [stmt]

    # ---- helpers -----------------------------------------------------------------------------
    def _loop_state(self, node, modified):
        live = getanno(node, Anno.LIVE_IN) | getanno(node, Anno.LIVE_OUT)
        return self._ordered(modified & live)

    def _ordered(self, names) -> list:
        """`names` in order of first appearance in the function."""
        return sorted(names, key=lambda n: (self.order.get(n, len(self.order)), n))

    def _containers_changed(self, stmts, modified) -> set:
        """The function's own variables whose lists or dicts `stmts` change at keys the
        statement computes (`q[i % n] = v`, `rows[k][0] = v`): a staged construct carries
        them whole, rebuilt for each path. (Others: `_computed_key_slots`.)"""
        return {base for target, base in composites.unstable_writes(stmts, modified)
                if base in self.local[-1] and composites.plain_items(target)}

    def _shared(self, node, modified) -> list:
        """The shared variables that `node`'s blocks change in place: those among `modified`,
        and those that nested functions assign, if the blocks call anything (a call, or what
        calls code without one: a class statement, a decorator, `with`, a Python `for`)."""
        shared = self.shared[-1]
        names = modified & shared.kinds.keys()
        if shared.called_writes - names and any(
                _calls(n) for s in traversal.block_children(node) for n in traversal.walk(s)):
            names |= shared.called_writes
        return self._ordered(names)

    def _slots(self, node, shared, modified, stmts) -> list:
        """The `slots=` keyword (empty if there are none): shared variables, then the
        subscripts and attributes that `stmts` assign."""
        defined = getanno(node, Anno.DEFINED_IN)
        self.maybe_undefined |= set(shared) - defined
        kinds = {"nonlocal": "Nonlocal", "global": "Global"}
        elts = [_ag_call(kinds[self.shared[-1].kinds[n]], [gast.Constant(value=n, kind=None)])
                for n in shared]
        for target in composites.slots(stmts, modified):
            text = gast.Constant(value=composites.source(target), kind=None)
            if isinstance(target, gast.Subscript):
                elts.append(_ag_call("Item", [_copy(target.value), _copy(target.slice), text]))
            else:
                key = gast.Constant(value=target.attr, kind=None)
                elts.append(_ag_call("Attr", [_copy(target.value), key, text]))
        elts += self._computed_key_slots(stmts, modified)
        if not elts:
            return []
        return [gast.keyword(arg="slots", value=gast.Tuple(elts=elts, ctx=gast.Load()))]

    def _computed_key_slots(self, stmts, modified) -> list:
        """Slots for the writes at keys a statement computes that carrying a variable of the
        function whole (rebuilt for each path) does not cover. A container the function does
        not hold in a variable of its own, written at such a key (`hist[len(s)] = 1`, a
        global's; `self.cache[k(x)] = v`) is carried in place (`Contents`: carrying a global's
        name would make it a local variable of the function), read only when the construct
        is staged. What no copy of a container holds (an attribute of an item such a key
        picks, `objs[len(s)].count = 1`; a write deeper into another function's container)
        is `Uncarried`: refused when the construct is staged."""
        elts: list = []
        contents: dict = {}
        for target, base in composites.unstable_writes(stmts, modified):
            own = base is not None and (base in self.local[-1] or base in modified)
            container = target.value
            if (isinstance(target, gast.Subscript) and base is not None
                    and composites.stable(container, modified)
                    and not (own and composites.plain_items(container))):
                contents.setdefault(composites.source(container), container)
            elif not (own and composites.plain_items(target)) or (
                    composites.object_inside_computed_item(target, modified)):
                text = gast.Constant(value=composites.source(target), kind=None)
                elts.append(_ag_call("Uncarried", [text]))
        for text, container in contents.items():
            read = gast.Lambda(args=templates.no_arguments(), body=_copy(container))
            elts.append(_ag_call("Contents", [read, gast.Constant(value=text, kind=None)]))
        return elts

    def _names(self, state):
        """The names of the state variables, for messages (a return value's is the operators'
        RETURN_VALUE, not its generated name)."""
        return templates.strings_tuple(
            [RETURN_VALUE if n in self.return_values else n for n in state])

    def _if_state_args(self, state, node):
        """The state values an `if` passes to its branches. A variable that every path of
        both branches assigns before reading it (not live at their start) is never read by
        the `if`, so a loop around the `if` need not carry it: inside a generated function
        where it is not a parameter it goes in as an Undefined (it may not be bound there)."""
        read = getanno(node, Anno.LIVE_IN)
        if len(self.bound) == 1:  # in the user's function itself: its value is at hand
            read = read | (set(state) & getanno(node, Anno.DEFINED_SURELY))
        read = read | (set(state) & self.bound[-1])
        values = self._state_args([n for n in state if n in read], node).elts
        by_name = dict(zip([n for n in state if n in read], values))
        elts = [by_name[n] if n in by_name else _ag_call("Undefined", [
            gast.Constant(value=n, kind=None)]) for n in state]
        return gast.Tuple(elts=elts, ctx=gast.Load())

    def _state_args(self, state, node):
        """`(a, ag__.Undefined('b'))`: the current values of the state variables. A variable
        that only some paths assign before `node` is bound to Undefined at the function's start
        (reading it here must not fail: the paths that run may never read it)."""
        defined = getanno(node, Anno.DEFINED_IN)
        self.maybe_undefined |= set(state) - defined
        maybe = set(state) & defined - getanno(node, Anno.DEFINED_SURELY) - self.bound[-1]
        self.unbound[-1] |= maybe
        self.maybe_undefined |= maybe
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
        """Also keeps the extra test of a lowered `break` (`Anno.LOOP_TEST`), which a Python
        `for` checks before each iteration: `if not (test): break`."""
        self.generic_visit(node)
        node.iter = self._check(node.iter, "for")
        extra_test = getanno(node, Anno.LOOP_TEST)
        if extra_test is not None:
            node.body = templates.replace(
                "if not test:\n    break", getanno(node, Anno.ORIGIN),
                test=self._check(extra_test, "for")) + node.body
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

    def visit_AugAssign(self, node):
        """`x += v` reads `x` too: `x = ag__.ld(x)` first."""
        self.generic_visit(node)
        target = node.target
        if not (isinstance(target, gast.Name) and target.id in self.names):
            return node
        read = templates.replace("name = ag__.ld(name)", getanno(node, Anno.ORIGIN),
                                 name=target.id)
        return read + [node]


def _ag_call(name, args, keywords=()):
    func = gast.Attribute(value=templates.name("ag__"), attr=name, ctx=gast.Load())
    return gast.Call(func=func, args=list(args), keywords=list(keywords))


def _copy(expr):
    """A copy of a user expression, with its origins."""
    return copy.deepcopy(expr)


def _function(name, params, body, origin):
    """`def name(params): body` (without a `pass` that other statements make redundant)."""
    body = [s for s in body if not isinstance(s, gast.Pass)] or [gast.Pass()]
    return templates.replace("def fn(params):\n    body", origin, fn=name, params=list(params),
                             body=body)


def _calls(node) -> bool:
    """Whether `node` calls code: a call, or a statement that calls without one."""
    return isinstance(node, (gast.Call, gast.ClassDef, gast.With, gast.For)) or (
        isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and bool(node.decorator_list))


def _declarations(shared, kinds) -> list:
    """`nonlocal a, b` / `global c` for the shared variables a body changes."""
    out = []
    for kind, node_type in (("nonlocal", gast.Nonlocal), ("global", gast.Global)):
        names = [n for n in shared if kinds[n] == kind]
        if names:
            out.append(node_type(names=names))
    return out


def _target_write(node):
    """The write of a `for` loop's target, as an assignment (for the composite slots)."""
    return gast.Assign(targets=[node.target], value=gast.Constant(value=None, kind=None),
                       type_comment=None)


def _bind_at_start(fn_node, unbound, maybe_undefined) -> None:
    """Starts the function with `name = ag__.Undefined('name')` for the names in `unbound`, and
    for shared variables that only its bodies assign (bodies declare them `nonlocal`, which
    needs a binding in the function itself)."""
    shared = [n for n, kind in getanno(fn_node, Anno.SHARED).kinds.items() if kind == "nonlocal"]
    if shared:
        own = closures.bound_names(fn_node)
        unbound = unbound | {n for n in shared if n not in own}
    if not unbound:
        return
    maybe_undefined.update(unbound)
    head = [templates.replace("name = ag__.Undefined(text)", getanno(fn_node, Anno.ORIGIN),
                              name=n, text=gast.Constant(value=n, kind=None))[0]
            for n in sorted(unbound)]
    docstring = 1 if fn_node.body and isinstance(fn_node.body[0], gast.Expr) and isinstance(
        fn_node.body[0].value, gast.Constant) and isinstance(fn_node.body[0].value.value, str) \
        else 0
    fn_node.body[docstring:docstring] = head


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
    order: dict = {}
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, gast.Name) and n.id not in order:
            order[n.id] = len(order)
        stack.extend(reversed(traversal.children(n)))
    return order
