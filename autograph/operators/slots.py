"""Slots: state that a branch or loop body changes in place rather than returning it.

    ag__.Nonlocal('i')         a variable that nested functions share (bodies say `nonlocal i`)
    ag__.Global('total')       a variable declared `global` (bodies say `global total`)
    ag__.Global('total', globals())   the same, bound (before a plain assignment of it)
    ag__.Item(d, 'k', "d['k']")  a subscript written in the body
    ag__.Attr(o, 'n', 'o.n')     an attribute written in the body
    ag__.Contents(lambda: hist, 'hist')  the items of a container the function holds in no
                                 variable of its own, written at keys the body computes
    ag__.Uncarried('objs[k].n')  a write at such a key into an object a container holds:
                                 refused when the construct is staged

In plain Python the body's own writes are the semantics, and operators never touch slots
(`writing` only notes them while a graph is built: converters/outside_writes.py). A
staged construct reads each slot before and after tracing a path, sets it to the staged values
while tracing, and finally to the construct's outputs (see `control_flow`). A slot that holds
nothing (an empty cell, a missing key or attribute) reads as `Undefined`; setting `Undefined`
empties it again.
"""

from __future__ import annotations

import copy
import types

from autograph import backends
from autograph.errors import AutoGraphError, at
from autograph.operators import structures
from autograph.operators.special_values import Undefined
from autograph.origins import caller_origin


class Slot:
    """One place that holds a value; `name` is its source text, for messages."""

    name: str
    kind: str  # "nonlocal", "global", "item" or "attribute"
    composite = False  # a subscript or attribute (not a variable)

    def bind(self, functions) -> Slot:
        """This slot, ready to be read and set (name slots find their cell in `functions`; a
        bound slot is returned as it is)."""
        return self

    def get(self):
        raise NotImplementedError

    def set(self, value) -> None:
        raise NotImplementedError

    def snapshot(self):
        """What `reset` needs to put the slot back as it is now."""
        return self.get()

    def reset(self, snapshot) -> None:
        self.set(snapshot)

    @property
    def holder(self):
        """The object that holds the value: a cell, a module's namespace, or the object whose
        item or attribute it is."""
        raise NotImplementedError


class Nonlocal(Slot):
    """A variable of the converted function that nested functions share."""

    kind = "nonlocal"

    def __init__(self, name: str):
        self.name = name
        self.cell: types.CellType | None = None

    def bind(self, functions) -> Slot:
        if self.cell is not None:
            return self
        bound = Nonlocal(self.name)
        for fn in functions:
            code = fn.__code__
            if self.name in code.co_freevars:
                bound.cell = fn.__closure__[code.co_freevars.index(self.name)]
                return bound
        raise AssertionError(f"no generated function declares nonlocal {self.name}")

    @property
    def holder(self):
        return self.cell

    def get(self):
        try:
            return self.cell.cell_contents
        except ValueError:  # an empty cell: not assigned yet
            return Undefined(self.name)

    def set(self, value) -> None:
        assert self.cell is not None  # (bound)
        if isinstance(value, Undefined):
            try:
                del self.cell.cell_contents
            except ValueError:
                pass
        else:
            self.cell.cell_contents = value


class Global(Slot):
    """A variable declared `global` in the converted function."""

    kind = "global"

    def __init__(self, name: str, namespace: dict | None = None):
        self.name = name
        self.namespace = namespace  # (None until bound to a function's globals)

    def bind(self, functions) -> Slot:
        if self.namespace is not None:
            return self
        bound = Global(self.name)
        bound.namespace = functions[0].__globals__
        return bound

    @property
    def holder(self):
        return self.namespace

    def get(self):
        return self.namespace.get(self.name, Undefined(self.name))

    def set(self, value) -> None:
        assert self.namespace is not None  # (bound)
        if isinstance(value, Undefined):
            self.namespace.pop(self.name, None)
        else:
            self.namespace[self.name] = value


class Item(Slot):
    """`obj[key]`, written by the body."""

    kind = "item"
    composite = True

    def __init__(self, obj, key, name: str):
        self.obj, self.key, self.name = obj, key, name

    @property
    def holder(self):
        return self.obj

    def get(self):
        try:
            return self.obj[self.key]
        except (KeyError, IndexError):
            return Undefined(self.name)

    def set(self, value) -> None:
        if isinstance(value, Undefined):
            try:
                del self.obj[self.key]
            except (KeyError, IndexError):
                pass
        else:
            self.obj[self.key] = value


    def snapshot(self):
        """An item of a staged list: the list as it is (assigning the old item back would
        add an op to the graph being traced, on the list a path has changed)."""
        if _staged_container(self.obj):
            return _Container(copy.copy(self.obj))
        return self.get()

    def reset(self, snapshot) -> None:
        if isinstance(snapshot, _Container):
            for field in _fields(self.obj):
                setattr(self.obj, field, getattr(snapshot.copy, field))
        else:
            self.set(snapshot)


class Contents(Slot):
    """The items of a dict, list or numpy array that the function holds in no variable of its
    own (a global's, an enclosing function's, `self.cache`), which the body writes at keys it
    computes: carried whole, and set in place. `read` gives the container: called once, when
    the construct is staged (`bind`; Python reads it only where the body runs)."""

    kind = "contents"
    composite = True

    def __init__(self, read, name: str):
        self.read, self.name = read, name

    def bind(self, functions) -> Slot:
        bound = items_of(self.read(), self.name)
        if bound is None:
            obj = self.read()
            raise AutoGraphError(at(
                f"A graph `if` or loop writes items of {self.name} (a {type(obj).__name__}) at "
                "keys computed in its body: autograph carries the items of a dict, list or "
                "numpy array there. Compute the key before the `if`/loop, or return the values "
                "and write them after the call.", caller_origin()))
        return bound


def items_of(obj, name: str):
    """The slot of the items of `obj`, a dict, list or numpy array (None for another kind of
    container, whose own `__setitem__` decides): a plain write at a key the statement
    computes notes it whole (converters/outside_writes.py)."""
    if isinstance(obj, (dict, list)) or (
            type(obj).__module__ == "numpy" and hasattr(obj, "copy")):  # (an ndarray)
        return _BoundContents(obj, name)
    return None


class _BoundContents(Slot):
    """A Contents slot's container, read when the construct was staged."""

    kind = "contents"
    composite = True

    def __init__(self, obj, name: str):
        self.obj, self.name = obj, name

    @property
    def holder(self):
        return self.obj

    def get(self):
        obj = self.obj
        return dict(obj) if isinstance(obj, dict) else list(obj) if isinstance(
            obj, list) else obj.copy()

    def set(self, value) -> None:
        obj = self.obj
        if value is obj:
            return
        if isinstance(obj, dict):
            for key in [k for k in obj if k not in value]:
                del obj[key]
            for key, item in value.items():
                if key not in obj or not _same_leaves(obj[key], item):
                    obj[key] = item  # (an item no path changed keeps its identity)
        elif isinstance(obj, list) and isinstance(value, list) and len(value) == len(obj):
            for index, item in enumerate(value):
                if not _same_leaves(obj[index], item):
                    obj[index] = item
        elif isinstance(obj, list) or backends.staging_any(
                [value] if backends.tensor_backend(value) is not None else []) is not None:
            what = ("changes the length of" if isinstance(obj, list)
                    else "writes graph values into")
            raise AutoGraphError(at(
                f"A graph `if` or loop {what} {self.name}, a "
                f"{type(obj).__name__} the function does not own (a global's, an enclosing "
                "function's or an object's): it would hold the graph's placeholders after "
                "tracing. Return the values from the function and write them after the call.",
                caller_origin()))
        else:
            obj[...] = value

    def reset(self, snapshot) -> None:
        """Puts back the items of `snapshot`, but those it took as staged values (an earlier
        write of the trace left them there: its own record puts them back)."""
        if isinstance(self.obj, list) and len(snapshot) != len(self.obj):
            self.obj[:] = snapshot
            return
        keys = snapshot.keys() if isinstance(self.obj, dict) else range(len(snapshot))
        if isinstance(self.obj, dict):
            for key in [k for k in self.obj if k not in snapshot]:
                del self.obj[key]
        for key in keys:
            item = snapshot[key]
            if backends.staging_any(structures.flatten(item)[0]) is None:
                self.obj[key] = item


def _same_leaves(old, new) -> bool:
    """`new` is `old`, or a copy of its containers around the same leaves."""
    if old is new:
        return True
    old_leaves, old_tree = structures.flatten(old)
    new_leaves, new_tree = structures.flatten(new)
    return old_tree == new_tree and all(a is b for a, b in zip(old_leaves, new_leaves)) and (
        structures.is_container(old))


class Uncarried(Slot):
    """A write in the body at a key the statement computes that changes what no copy of a
    container holds (`objs[len(s)].count = 1`): refused when the construct is staged (each
    path's write would stay, also where the graph does not take the path)."""

    kind = "contents"
    composite = True

    def __init__(self, name: str):
        self.name = name

    @property
    def holder(self):
        return None

    def get(self):
        raise AutoGraphError(at(
            f"{self.name} is written in a graph `if` or loop inside an item that a key computed "
            "there picks (or through a call's result): autograph carries containers across the "
            "paths, not the objects they hold, so every path's write would stay. Pick the item "
            "before the `if`/loop (`item = objs[k]`) and write to it there, or compute with "
            "values and assign after the `if`/loop.", caller_origin()))


class _Container:
    def __init__(self, copy):
        self.copy = copy


def _staged_container(obj) -> bool:
    """A staged object with Python list methods (a staged list): copying it copies its state."""
    return backends.staging(obj) is not None and hasattr(type(obj), "__copy__") and bool(
        _fields(obj))


def _fields(obj) -> tuple:
    return tuple(getattr(type(obj), "__slots__", ())) or tuple(getattr(obj, "__dict__", ()))


class Attr(Slot):
    """`obj.attr`, written by the body."""

    kind = "attribute"
    composite = True

    def __init__(self, obj, attr: str, name: str):
        self.obj, self.attr, self.name = obj, attr, name

    @property
    def holder(self):
        return self.obj

    def get(self):
        try:
            return getattr(self.obj, self.attr)
        except AttributeError:
            return Undefined(self.name)

    def set(self, value) -> None:
        if isinstance(value, Undefined):
            try:
                delattr(self.obj, self.attr)
            except AttributeError:
                pass
        else:
            setattr(self.obj, self.attr, value)


class Mutated(_BoundContents):
    """A Python list that a staged construct's paths append to, which the construct replaces
    by a staged list, or a list or dict they write items of, which each path changes a copy
    of (`effect` says which): the container itself keeps its items, where Python would change
    it in place (refused where code outside the function holds it: an argument, the result, a
    global)."""

    kind = "mutated"

    def __init__(self, obj, name: str, effect: str = "makes it a graph list"):
        super().__init__(obj, name)
        self.effect = effect


def writing(slot: Slot | None) -> None:
    """Before a plain assignment of `slot` (an attribute, an item, a global, or the items of a
    container written at a computed key): while a backend builds a graph, it notes the slot
    with its value from before, so that a graph value left there when the trace ends is
    refused at this line (`Backend.staged_write`)."""
    backend = backends.building_graph()
    if backend is None or slot is None:
        return
    if backends.tensor_backend(slot.holder) is not None or (
            backends.tensor_backend(getattr(slot, "key", None)) is not None):
        return  # (an item of a tensor or a staged list, or at a tensor index: graph state)
    try:
        saved = slot.snapshot()
    except Exception:  # noqa: BLE001 - a property or __getattr__ that fails before the write
        saved = Undefined(slot.name)
    backend.staged_write(slot, saved, caller_origin(), construct=False)
