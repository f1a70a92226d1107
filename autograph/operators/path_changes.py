"""The traced call's own lists, dicts, sets, deques and numpy arrays that a call changes in a
staged `if` or loop.

    def f(x):
        L = []
        if x > 0:
            add(L, 1.0)      # def add(L, v): L.append(v)
        else:
            add(L, 2.0)
        return L

The converter sees the call, not the change, so the `if` does not carry `L`; tracing both
paths would leave both changes (`[1.0, 2.0]`), where plain Python makes one. So the
containers the branch (or loop body) functions reach are watched: through their closure cells
that hold the traced call's own variables (a variable or argument of a converted function
running on the stack, found by Python's scoping rules), and from those, the containers'
items, local functions' cells, bound methods (`push = L.append`) and partials, a few levels
deep. Each path of an `if` starts from their contents before it; paths that leave a container
alike keep what they made; paths that differ are refused at the `if`, with the fix. A graph
loop's body runs a number of times known only when the graph runs, so a container it changes
is refused, unless a second trace of the body changes nothing more (a memo filled once, a lazy
build: kept, with a check that the loop runs). What the construct carries itself (its
variables, and the items its slots write) is not watched. Nor are the containers of globals,
of enclosing functions outside the trace, and objects' attributes: changing one on one path
is how caches and lazy builds work (README, "Limits").
"""

from __future__ import annotations

import collections
import functools
import operator
import types

import numpy as np

from autograph import backends
from autograph.errors import AutoGraphError, at
from autograph.operators.aliases import definers, generated_frames
from autograph.origins import caller_origin

_KINDS = (list, dict, set, collections.deque)
_PLAIN = (int, float, complex, bool, str, bytes, type(None))
_DEPTH, _ITEMS = 3, 10_000  # how deep and how much of the reached containers is watched


class PathChanges:
    """Watches the containers `functions` reach (see the module's docstring), except what
    `construct` carries: its variables, and what its slots hold (a dict's item slots: only
    their keys)."""

    def __init__(self, functions, construct):
        whole = {id(v) for v in (*construct.state, *construct.initial)}
        keys: dict = {}
        for slot in construct.slots:
            if slot.kind == "item" and isinstance(slot.holder, dict):  # (the other keys: watched)
                keys.setdefault(id(slot.holder), set()).add(_key(slot.key))
            elif slot.composite and slot.holder is not None:
                whole.add(id(slot.holder))
        self.watched = [(what, c, keys.get(id(c), ())) for what, c in _reached(functions)
                        if id(c) not in whole]
        self.before = self._contents()
        self.after: list = []
        self.runs: list = []  # for a loop: whether each run of the body changed a container

    def _contents(self) -> list:
        return [_contents(c, skip) for _, c, skip in self.watched]

    def start(self) -> None:
        """Puts the containers back as they were before the construct (a path starts there)."""
        self._put(self.before)

    def _put(self, contents) -> None:
        for (_, container, skip), items in zip(self.watched, contents):
            _put(container, items, skip)

    def end(self) -> None:
        """Notes what the path just traced left in the containers."""
        if self.watched:
            self.after.append(self._contents())

    def kept(self, fn):
        """`fn` (a dry run of the other path), leaving the containers as they were."""
        if not self.watched:
            return fn()
        now = self._contents()
        try:
            return fn()
        finally:
            self._put(now)

    def counted(self, body):
        """`body`, noting for each run whether it changed a container."""
        if not self.watched:
            return body

        def run(*args):
            now = self._contents()
            try:
                return body(*args)
            finally:
                self.runs.append(not _same_all(now, self._contents(), self.watched))

        return run

    def changed_in_one_run_only(self) -> bool:
        """Whether the body changed a container in the one run traced so far (a second run
        tells a memo from a change per iteration)."""
        return len(self.runs) == 1 and self.runs[0]

    def check_if(self) -> None:
        """Refuses paths that leave a container differently; else leaves it as they did."""
        if not self.after:
            return
        first = self.after[0]
        for other in self.after[1:]:
            for i, (what, container, _) in enumerate(self.watched):
                if not _same_contents(first[i], other[i], container):
                    self.start()
                    raise AutoGraphError(at(
                        f"{_capital(what)} is changed differently on the paths of this graph "
                        "`if`, by a call (the `if` carries only what the function itself "
                        "assigns or changes). Tracing runs both paths, so both changes would "
                        f"stay. {_fix(what, container, 'in the branch')}, or make the change "
                        "after the `if` with values the branches computed.", caller_origin()))
        self._put(first)

    def check_loop(self) -> list:
        """Refuses a graph loop whose body (or test) changed a container in its last traced
        run, or in its only one. Returns the names of the containers a second run found
        changed already (a memo filled once, a lazy build): plain Python changes them only if
        the loop runs, which the caller checks when the graph runs."""
        if not self.runs:
            return []
        now = self._contents()
        changed = [(i, what) for i, (what, container, _) in enumerate(self.watched)
                   if not _same_contents(now[i], self.before[i], container)]
        if not changed or len(self.runs) > 1 and not self.runs[-1]:
            return [what for _, what in changed]
        i, what = changed[0]
        self.start()
        raise AutoGraphError(at(
            f"{_capital(what)} is changed by a call in this graph loop (the loop carries only "
            "what the function itself assigns or changes). Python changes it on every "
            "iteration; the graph would keep the change tracing made, whatever the number of "
            f"iterations. {_fix(what, self.watched[i][1], 'in the loop')}, or return the values "
            "from the helper.", caller_origin()))


def _capital(what: str) -> str:
    return what[0].upper() + what[1:]


def _fix(what: str, container, where: str) -> str:
    """How to change the container in the function itself, by its kind."""
    if not what.startswith("the "):
        return "Change it in the function itself, through a variable of its own"
    name = what.split("`")[1]
    example = (f"`{name}[k] = v`" if isinstance(container, dict) else
               f"`{name}.add(v)`" if isinstance(container, set) else f"`{name}.append(v)`")
    return (f"Change `{name}` in the function itself ({example} {where}, or `{name} = "
            f"helper({name}, v)`)")


# ---- what the functions reach ------------------------------------------------------------------
def _own_variable(code, name: str, running: list) -> bool:
    """Whether the free variable `name` of a function with `code` is a variable of a converted
    function running on the stack: the traced call's own. Resolved as Python's scopes are:
    through the functions that define one another, up to one that makes it a local (own); a
    chain that ends first comes from a converted function's own closure (outside)."""
    return any(name in definer.co_cellvars for definer in definers(code, running))


def _reached(functions) -> list:
    """(what, container) of the own containers `functions` reach; `what` names it for
    messages ("the list `out`", "a list that `push` holds")."""
    running = [frame.f_code for frame in generated_frames()]
    seen: set = set()
    found: list = []
    budget = [_ITEMS]

    def cells(fn, depth):
        code, closure = getattr(fn, "__code__", None), getattr(fn, "__closure__", None)
        if code is None or not closure:
            return
        for name, cell in zip(code.co_freevars, closure):
            try:
                value = cell.cell_contents
            except ValueError:  # (a variable not assigned yet)
                continue
            if _own_variable(code, name, running):
                visit(name, value, depth, direct=True)

    def visit(name, value, depth, direct=False):
        if id(value) in seen or depth > _DEPTH or budget[0] <= 0:
            return
        seen.add(id(value))
        budget[0] -= 1
        if isinstance(value, _KINDS):
            kind = type(value).__name__
            found.append((f"the {kind} `{name}`" if direct else
                          f"a {kind} that `{name}` holds", value))
            items = value.values() if isinstance(value, dict) else value
            if len(value) <= budget[0]:
                for item in items:
                    if isinstance(item, (*_KINDS, tuple, types.FunctionType, functools.partial,
                                         np.ndarray)):
                        visit(name, item, depth + 1)
        elif isinstance(value, tuple):
            for item in value:
                visit(name, item, depth + 1)
        elif isinstance(value, types.FunctionType):
            cells(value, depth + 1)
        elif isinstance(value, functools.partial):
            for item in (value.func, *value.args, *value.keywords.values()):
                visit(name, item, depth + 1)
        elif isinstance(value, (types.MethodType, types.BuiltinMethodType)) and isinstance(
                value.__self__, _KINDS):
            visit(name, value.__self__, depth)  # (a bound method: `push = L.append`)
        elif isinstance(value, np.ndarray) and value.flags.writeable:
            found.append((f"the numpy array `{name}`" if direct else
                          f"a numpy array that `{name}` holds", value))

    for fn in functions:
        if fn is not None:
            seen.add(id(fn))
            cells(fn, 0)
    return found


# ---- contents --------------------------------------------------------------------------------
def _key(key):
    return (type(key), key) if isinstance(key, _PLAIN) else id(key)


def _contents(container, skip=()):
    """What `_put` needs to put `container` back: its items (a dict's keys and values, leaving
    out the keys in `skip`, which the construct carries)."""
    if isinstance(container, dict):
        if not skip:
            return list(container), list(dict.values(container))
        keys = [k for k in container if _key(k) not in skip]
        return keys, [dict.__getitem__(container, k) for k in keys]
    if isinstance(container, set):
        return set(container)
    if isinstance(container, np.ndarray):
        return container.copy()
    return list(container)


def _put(container, contents, skip=()) -> None:
    if _same_contents(_contents(container, skip), contents, container):
        return
    if isinstance(container, dict):
        keys, values = contents
        if not skip:
            dict.clear(container)
        else:
            for key in [k for k in container if _key(k) not in skip]:
                dict.__delitem__(container, key)
        dict.update(container, zip(keys, values))
    elif isinstance(container, list):
        list.__setitem__(container, slice(None), contents)
    elif isinstance(container, set):
        set.clear(container)
        set.update(container, contents)
    elif isinstance(container, np.ndarray):
        container[...] = contents
    else:
        collections.deque.clear(container)
        collections.deque.extend(container, contents)


def _same_all(a: list, b: list, watched) -> bool:
    return all(_same_contents(x, y, c) for x, y, (_, c, _) in zip(a, b, watched))


def _same_contents(a, b, container) -> bool:
    if isinstance(container, dict):
        return _same_items(a[0], b[0]) and _same_items(a[1], b[1])
    if isinstance(container, set):
        return a == b
    if isinstance(container, np.ndarray):
        return _same_item(a, b)
    return _same_items(a, b)


def _same_items(a, b) -> bool:
    """The same items in the same order: the same objects, or equal plain values, numpy
    scalars and arrays, and containers of them."""
    if len(a) != len(b):
        return False
    return all(map(operator.is_, a, b)) or all(map(_same_item, a, b))


def _same_item(x, y) -> bool:
    if x is y:
        return True
    if type(x) is not type(y):
        return False
    if isinstance(x, (tuple, list)):
        return _same_items(x, y)
    if isinstance(x, dict):
        return _same_items(list(x), list(y)) and _same_items(list(x.values()), list(y.values()))
    if not isinstance(x, (np.generic, np.ndarray)):
        if isinstance(x, _PLAIN):
            return x == y
        if not hasattr(type(x), "__array__") or backends.staging_any([x, y]) is not None:
            return False
        x, y = np.asarray(x), np.asarray(y)  # (eager tensors: by value)
    return x.dtype == y.dtype and np.shape(x) == np.shape(y) and bool(np.array_equal(
        x, y, equal_nan=x.dtype.kind in "fc"))
