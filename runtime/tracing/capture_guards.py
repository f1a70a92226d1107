"""Capture guards: the Python constants a function reads from outside (globals, closure
variables, `self` and class attributes, also read by the lambdas and functions defined in it)
are baked into its graph, so `rt.function` makes their current values part of the signature.
A module it reads or is (`rt.Module`, a model or layer) is guarded by its `_trace_state()`, a
version that changes when Python state a graph may bake in changes (a layer frozen, a rate set).
`guards_of(fn)` finds them at the first call; each guard's getter gives its signature key
(`guard_key`: typed, floats by their bits, other objects by identity); `shown(key)` writes a
key as Python would, for the retrace log.
"""

from __future__ import annotations

import array
import collections
import dis
import inspect
import re
import sys
import types
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from autograph.frames import is_library_code
from runtime.core.tensor import Tensor
from runtime.errors import a_or_an

_GUARDED_TYPES = (bool, int, float, str, type(None))
_CONTAINERS = (tuple, list, dict, set, frozenset)


# Content guards cost one pass over the value at each call: bigger values are guarded by
# identity only (README: written into in place, the graph keeps what it read).
_CONTENT_BUDGET = 1 << 20  # bytes of an array
_ITEMS_BUDGET = 10_000  # items of the containers of one value
_DEPTH_BUDGET = 16  # levels of nested containers


def _guardable(value) -> bool:
    """Whether `value` is plain data a graph may bake in: a Python constant, a numpy number
    or array, a tensor, or a tuple, list, dict or set of those (guarded by content: a list
    or dict changed in place, or an array written into, changes its key), within the budgets
    above (a cyclic container is not)."""
    return _plain(value, [_ITEMS_BUDGET], 0)


def _plain(value, items: list, depth: int) -> bool:
    kind = type(value)
    if kind in _GUARDED_TYPES or issubclass(kind, (np.generic, Tensor)):
        return True  # (never isinstance: it reads __class__, which may run the user's code)
    if kind is np.ndarray:
        return value.dtype.kind in "biufcSU" and value.nbytes <= _CONTENT_BUDGET
    if kind not in _CONTAINERS or depth >= _DEPTH_BUDGET:
        return False
    items[0] -= len(value)
    if items[0] < 0:
        return False
    if kind is dict:
        return all(_plain(k, items, depth + 1) and _plain(v, items, depth + 1)
                   for k, v in value.items())
    return all(_plain(v, items, depth + 1) for v in value)


def guards_of(fn) -> list:
    """[(description, getter)] of the Python constants `fn` reads from outside, by their
    current values: globals, closure variables and (for a bound method) `self` attributes,
    attributes of those that are the user's modules, classes or objects (`cfg.scale`,
    `self.cfg.scale`), read by `fn`, by the lambdas, comprehensions and functions defined in
    it, or by the user's functions it reads (called helpers, `self` methods: they are converted
    and traced into the same graph), a few levels deep. A getter gives the value's signature
    key (`guard_key`)."""
    guards: dict = {}
    if _module_state(fn) is not None:  # rt.function(model): the module itself is called
        guards["the state of the called module"] = lambda: _module_state(fn)
    _collect(fn, guards, set(), "", 0)
    return list(guards.items())


_DEPTH = 4  # how many functions deep reads are followed (fn, its helpers, theirs, ...)


def _collect(fn, guards: dict, seen: set, via: str, depth: int) -> None:
    func, owner = (fn.__func__, fn.__self__) if isinstance(fn, types.MethodType) else (fn, None)
    code = getattr(func, "__code__", None)
    if code is None or depth > _DEPTH or (id(code), id(owner)) in seen:
        return
    seen.add((id(code), id(owner)))
    self_name = code.co_varnames[0] if owner is not None and code.co_argcount else None
    reads, written, chains, mutated = _scan(code, self_name)
    names = getattr(func, "__globals__", {})
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    # name -> (what it is, getter of its current value)
    roots: dict[str | None, tuple[str, Callable[..., Any]]] = {}
    for name in sorted(reads["LOAD_GLOBAL"] - written):
        if name in names:
            roots[name] = ("the global", lambda g=names, n=name: g.get(n, _MISSING))
    for name in sorted(reads["LOAD_DEREF"] - written):
        cell = cells.get(name)
        if cell is not None and _cell_set(cell):
            roots[name] = ("the closure variable",
                           lambda c=cell: c.cell_contents if _cell_set(c) else _MISSING)
    if owner is not None:
        roots[self_name] = ("the attribute", lambda o=owner: o)

    def add(description, getter):
        guards.setdefault(description + via, lambda: guard_key(getter()))

    for name, (what, get) in roots.items():
        value = _body_of(get())
        if (name, ()) in mutated and type(value) in _MUTABLE:
            continue  # the function's state, not a constant
        if _module_state(value) is not None:
            add(f"the state of the module '{name}'", lambda get=get: _module_state(get()))
        elif type(value) in (list, tuple, dict):  # modules in a global list (`layers[0](x)`)
            items = value.items() if type(value) is dict else enumerate(value)
            for key, item in items:
                if _module_state(item) is not None:
                    add(f"the state of the module '{name}[{key!r}]'",
                        lambda get=get, key=key: _module_state(_item(get(), key)))
        if name != self_name and _guardable(value):
            add(f"{what} '{name}'", get)
        elif name != self_name and _user_function(value):
            _collect(value, guards, seen, f" (read by {value.__qualname__})", depth + 1)
    for root, path in sorted(chains):
        if root not in roots or root in written:
            continue
        _, get = roots[root]
        value = get()
        for k, attribute in enumerate(path):
            if not _followable(value) or attribute in written and root == self_name:
                break
            value = _body_of(_plain_attribute(value, attribute))
            if value is _MISSING or (root, path[:k + 1]) in mutated and type(value) in _MUTABLE:
                break
            shown = ".".join([root, *path[:k + 1]])
            getter = (lambda get=get, steps=path[:k + 1]: _follow(get(), steps))
            if _module_state(value) is not None:
                add(f"the state of the module '{shown}'",
                    lambda getter=getter: _module_state(getter()))
            if _guardable(value):
                add(f"the attribute '{shown}'", getter)
                break
            if _user_function(value) or type(value) is types.MethodType and _user_function(
                    value.__func__):
                _collect(value, guards, seen, f" (read by {shown})", depth + 1)
                break


def outside_containers(fn) -> list:
    """[(name, container)]: the lists, dicts, sets and deques the code of `fn` can reach from
    outside (`_outside_values`; runtime/tracing/outside_containers.py searches them after each
    trace)."""
    found, seen = [], set()
    for name, value in _outside_values(fn):
        if isinstance(value, (list, dict, set, collections.deque)) and id(value) not in seen:
            seen.add(id(value))
            found.append((name, value))
    return found


def outside_arrays(fn) -> frozenset:
    """The ids of the numpy arrays the code of `fn` can reach from outside (`_outside_values`):
    one it returns as it is gives the caller that array, as plain Python does, where an array
    it made is new at every call."""
    return frozenset(id(value) for _, value in _outside_values(fn) if type(value) is np.ndarray)


def _outside_values(fn):
    """(name, value) of what the code of `fn` reads from outside: the globals and closure
    variables it reads, their attributes it reads, and `self`'s."""
    func, owner = (fn.__func__, fn.__self__) if isinstance(fn, types.MethodType) else (fn, None)
    code = getattr(func, "__code__", None)
    if code is None:
        return
    self_name = code.co_varnames[0] if owner is not None and code.co_argcount else None
    reads, _, chains, mutated = _scan(code, self_name)
    names = getattr(func, "__globals__", {})
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    roots = {(name, ()) for kind in reads.values() for name in kind} | chains | mutated
    for root, path in sorted(roots):
        if root == self_name and owner is not None:
            value = owner
        elif root in cells and _cell_set(cells[root]):
            value = cells[root].cell_contents
        else:
            value = names.get(root, _MISSING)
        yield ".".join([root, *path]), (_follow(value, path) if path and _followable(value)
                                        else value)


def rebound_globals(fn) -> list:
    """[(name, namespace)]: the globals the code of `fn` assigns (`global calls; calls += 1`)."""
    func = fn.__func__ if isinstance(fn, types.MethodType) else fn
    code = getattr(func, "__code__", None)
    if code is None:
        return []
    names: set[str] = set()
    codes = [code]
    for c in codes:  # grows: nested code objects
        codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        names.update(i.argval for i in dis.get_instructions(c) if i.opname == "STORE_GLOBAL")
    namespace = getattr(func, "__globals__", {})
    return [(name, namespace) for name in sorted(names)]


def _item(container, key):
    try:
        return container[key]
    except (IndexError, KeyError, TypeError):
        return _MISSING


def _module_state(value):
    """For an object with Python state that graphs bake in and that says when it changes (an
    rt.Module: `_trace_state`), that number; else None."""
    state = getattr(type(value), "_trace_state", None)
    return None if state is None else state(value)


def _scan(code, self_name):
    """Of `code` and the code objects defined in it: (names read by kind, names written,
    attribute chains read: (root name, (attr, ...)), the chains whose value the code changes
    in place: a mutating method called on it or on an item of it (`log.append(v)`,
    `self.cache.clear()`, `hist["loss"].append(v)`), an item assigned or deleted (`d[k] = v`,
    `del self.items[0]`)). A chain is `(name, ())` for the
    name itself."""
    reads, written, chains = {"LOAD_GLOBAL": set(), "LOAD_DEREF": set()}, set(), set()
    mutated: set = set()
    codes = [code]
    for c in codes:  # grows: nested code objects
        codes.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        instructions = list(dis.get_instructions(c))
        chain = None
        ends = {}  # index of the instruction that completes a chain -> the chain
        for i, instruction in enumerate(instructions):
            name, value = instruction.opname, instruction.argval
            if name in _ITEM_WRITES:
                container = ends.get(_container_end(instructions, i, _ITEM_WRITES[name]))
                if container is None:  # `d[k] += v`: the item read is a copy of both
                    container = ends.get(_augmented_container_end(instructions, i))
                if container is not None:
                    mutated.add(container)
            if name in _WRITES:
                written.add(value)
            elif name in reads:
                reads[name].add(value)
            if (name in _ATTRIBUTE_READS and chain is None and value in _MUTATORS and i
                    and instructions[i - 1].opname == "BINARY_SUBSCR"):  # d["k"].append(v)
                container = ends.get(_container_end(instructions, i - 1, 1))
                if container is not None:
                    mutated.add(container)
            if name in _ATTRIBUTE_READS and chain is not None:
                if value in _MUTATORS:
                    mutated.add(chain)
                chain = (chain[0], (*chain[1], value))
                chains.add(chain)
                ends[i] = chain
                if name != "LOAD_ATTR":
                    chain = None  # a method: what it is called with is not an attribute
                continue
            chain = None
            if name in reads or name == "LOAD_FAST" and value == self_name and c is code:
                chain = (value, ())
                ends[i] = chain
    return reads, written, chains, mutated


def _container_end(instructions, at: int, operands: int) -> int | None:
    """The index of the last instruction of the container expression of the item write at
    `at`, which takes `operands` values above the container (the key, or a slice's bounds):
    found by walking back over the instructions that push them (straight-line code)."""
    need = operands
    for j in range(at - 1, -1, -1):
        instruction = instructions[j]
        try:
            need -= dis.stack_effect(instruction.opcode, instruction.arg, jump=False)
        except ValueError:  # (an instruction that takes no argument given one, or a jump)
            return None
        if need <= 0:
            return j - 1 if need == 0 else None
    return None


def _augmented_container_end(instructions, at: int) -> int | None:
    """For `d[k] += v` (the item write at `at`): the container expression's last instruction,
    before the key that the copies of both (`COPY 2; COPY 2` or `DUP_TOP_TWO`) read."""
    for j in range(at - 1, 0, -1):
        names = [x.opname for x in instructions[j:j + 3]]
        if names[:2] == ["COPY", "COPY"] and names[2:] == ["BINARY_SUBSCR"] or (
                names[:2] == ["DUP_TOP_TWO", "BINARY_SUBSCR"]):
            return _container_end(instructions, j, 1)
    return None


# Values a function may change in place: a mutating method or an item write on one makes it
# the function's state rather than a constant it reads.
_MUTABLE = (list, dict, set, np.ndarray)
# Methods of lists, dicts, sets and numpy arrays that change them in place.
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
                       "update", "setdefault", "popitem", "add", "discard",
                       "intersection_update", "difference_update",
                       "symmetric_difference_update", "__setitem__", "__delitem__",
                       "__iadd__", "fill", "put", "resize", "setfield", "partition"})
# The item writes: how many values each takes above the container.
_ITEM_WRITES = {"STORE_SUBSCR": 1, "DELETE_SUBSCR": 1, "STORE_SLICE": 2}


_ATTRIBUTE_READS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})


def _followable(value) -> bool:
    """Whether the attributes of `value` are the user's state: a module, class or object of
    the user's code (whose attribute access runs no code of its own), or a namespace
    (SimpleNamespace, argparse.Namespace); library objects are left alone."""
    kind = type(value)  # (never isinstance: it reads __class__, which may run the user's code)
    if kind in _NAMESPACES:
        return True
    if issubclass(kind, types.ModuleType):
        return not is_library_code(value.__name__, getattr(value, "__file__", None))
    is_class = issubclass(kind, type)
    cls = value if is_class else kind
    if kind.__getattribute__ is not (type if is_class else object).__getattribute__ or hasattr(
            kind, "__getattr__"):
        return False  # attribute access runs code of its own
    module = sys.modules.get(cls.__module__)
    return module is not None and not is_library_code(cls.__module__,
                                                      getattr(module, "__file__", None))


def _namespaces() -> tuple:
    import argparse

    return (types.SimpleNamespace, argparse.Namespace)


_NAMESPACES = _namespaces()


def _plain_attribute(value, attribute):
    """`value.attribute` when reading it runs no code of the user's: plain data (in the
    instance's or a class's `__dict__`, a `__slots__` member, a namedtuple field), a function
    or method (static and class methods too); _MISSING for a property or another descriptor."""
    try:
        found = inspect.getattr_static(value, attribute)
    except AttributeError:
        return _MISSING
    if isinstance(found, staticmethod):
        return found.__func__
    if isinstance(found, classmethod):
        return types.MethodType(found.__func__, value if isinstance(value, type) else type(value))
    if isinstance(found, types.MemberDescriptorType) or type(found).__name__ == "_tuplegetter":
        return getattr(value, attribute, _MISSING)  # a slot or a namedtuple field (C code)
    if _traced_body(found) is not None and not isinstance(value, (type, types.ModuleType)):
        return found.__get__(value, type(value))  # a decorated method: the instance's Function
    if isinstance(found, (property, types.GetSetDescriptorType)) or (
            hasattr(type(found), "__get__") and not isinstance(found, types.FunctionType)):
        return _MISSING
    if isinstance(found, types.FunctionType) and not isinstance(value, (type, types.ModuleType)):
        return getattr(value, attribute)  # a method of the object
    return found


def _follow(value, steps):
    """`value.a.b...` for `steps` (plain attributes when the guard was made: `_followable`,
    `_plain_attribute`), or _MISSING when one is gone or fails."""
    try:
        for attribute in steps:
            value = getattr(value, attribute, _MISSING)
            if value is _MISSING:
                break
    except Exception:  # noqa: BLE001 - a guard never raises into the call
        return _MISSING
    return value


def _traced_body(value):
    """The Python function of an rt.function whose graph a caller's graph takes in (its reads
    are baked into the caller's graph too), else None (also for capture_guards=False)."""
    get = inspect.getattr_static(type(value), "guarded_python_function", None)
    return None if get is None else get(value)


def _body_of(value):
    """`value`, or the Python function of an rt.function (see `_traced_body`)."""
    body = _traced_body(value)
    return value if body is None else body


def _user_function(value) -> bool:
    return type(value) is types.FunctionType and not is_library_code(
        getattr(value, "__module__", None), value.__code__.co_filename)


def guarded_names(fn) -> set:
    """The names (globals, closure variables, `self.` attributes) whose values `guards_of`
    guards."""
    return {cast(re.Match, re.search(r"'(.*)'", description))[1]  # (each quotes its name)
            for description, _ in guards_of(fn)}


# Names the function itself assigns are its state, not constants it reads.
_WRITES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL", "STORE_ATTR", "DELETE_ATTR",
                     "STORE_DEREF", "DELETE_DEREF"})
_MISSING = ("<missing>",)


def guard_key(value):
    """A guarded value as it goes into the signature: typed (1, 1.0 and True differ; floats by
    their bits, so -0.0 and nan are told apart), containers and numpy arrays by content (a
    list or dict changed in place, an array written into, is a new key) within the budgets
    (else by identity), other objects (tensors, which never change, among them) by identity."""
    try:
        return _content_key(value, [_ITEMS_BUDGET], 0)
    except _OverBudget:
        return _Identity(value)


class _OverBudget(Exception):
    """A value too big (or too deep: cyclic) to guard by content."""


def _content_key(value, items: list, depth: int):
    kind = type(value)
    if kind is float:
        return (float, value.hex())
    if kind in _GUARDED_TYPES:
        return (kind, value)
    if kind in _CONTAINERS:
        items[0] -= len(value)
        if items[0] < 0 or depth >= _DEPTH_BUDGET:
            raise _OverBudget
    if kind is tuple or kind is list:
        if kind is list and value and all(type(v) is float for v in value):
            return (list, float, array.array("d", value).tobytes())  # (a long list of floats)
        return (kind, tuple(_content_key(v, items, depth + 1) for v in value))
    if kind is dict:
        return (dict, tuple((_content_key(k, items, depth + 1), _content_key(v, items, depth + 1))
                            for k, v in value.items()))
    if kind is set or kind is frozenset:
        return (kind, frozenset(_content_key(v, items, depth + 1) for v in value))
    if kind is np.ndarray and value.dtype.kind in "biufcSU":
        if value.nbytes > _CONTENT_BUDGET:
            raise _OverBudget
        return (np.ndarray, value.dtype.str, value.shape, value.tobytes())
    if issubclass(kind, np.generic):
        return (kind, value.tobytes())
    return _Identity(value)


class _Identity:
    """A signature key part for an object that is not a Python constant: equal only to itself
    (it holds the object, so its id cannot be reused while the key lives)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self):
        return id(self.value)

    def __repr__(self):
        text = repr(self.value)
        return text if len(text) <= 40 else a_or_an(type(self.value).__name__)


def is_array_key(key) -> bool:
    """Whether `key` is the guard key of a numpy array (by its contents)."""
    return isinstance(key, tuple) and len(key) == 4 and key[0] is np.ndarray


def shown(key) -> str:
    """A guard key as its value is written in Python (long ones cut short)."""
    text = _shown(key)
    return text if len(text) <= 60 else text[:56] + " ..."


def _shown(key) -> str:
    if not (isinstance(key, tuple) and len(key) >= 2 and isinstance(key[0], type)):
        return repr(key)
    kind, parts = key[0], key[1]
    if kind is float:
        return repr(float.fromhex(parts))
    if kind is np.ndarray:
        return f"a {np.dtype(parts).name}{list(key[2])} array"
    if kind is list and parts is float:
        return repr(array.array("d", key[2]).tolist())
    if kind is dict:
        return "{" + ", ".join(f"{_shown(k)}: {_shown(v)}" for k, v in parts) + "}"
    if kind in (tuple, list, set, frozenset):
        items = [_shown(v) for v in parts]
        if kind is tuple:
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        text = ", ".join(items)
        return f"[{text}]" if kind is list else f"{{{text}}}" if items else f"{kind.__name__}()"
    if issubclass(kind, np.generic):
        return repr(np.frombuffer(parts, kind)[0])
    return repr(parts)


def _cell_set(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - raises ValueError for an empty cell
    except ValueError:
        return False
    return True
