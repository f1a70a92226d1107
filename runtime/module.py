"""`rt.Module`: an object that owns Variables and other modules, and finds them for you.

A module's variables are the ones reachable from its attributes: Variables, sub-modules, and
lists, tuples and dicts of them (to any depth), in the order the attributes were set. Nothing is
registered when an attribute is set: `variables` walks the attributes when asked, so a subclass
that forgets `super().__init__()` or replaces an attribute still reports what it holds now.

    class Linear(rt.Module):
        def __init__(self):
            super().__init__()
            self.W = rt.Variable(5.0, name="weight")
            self.B = rt.Variable(10.0, name="bias")

        @rt.function
        def __call__(self, x):
            return x * self.W + self.B

`trainable_variables` leaves out variables made with `trainable=False` and everything under a
module whose `trainable` is False (how a layer is frozen). A method decorated with `rt.function`
traces once per instance and input signature.

A graph bakes in the Python state of the modules it reads (a layer's `trainable`, a dropout
rate, a factor in a user layer's `call`), so a function that reads a module retraces when such
state changes after it traced: `rt.function`'s capture guards (and its signature, for a module
passed as an argument) ask the module's `_trace_state()`, a version number that changes when an
attribute is set, outside tracing, on the module or on a module under it. A container changed
in place (`self.blocks.append(block)`) is not seen: set the attribute again
(`self.blocks = [*self.blocks, block]`).
"""

from __future__ import annotations

import os
import re
import threading
import weakref

from runtime.core import context
from runtime.train import checkpoint
from runtime.variables import Variable, name_scope

_versions_lock = threading.Lock()


class Module:
    """A named container of Variables and sub-modules (see the module docstring)."""

    _holds_weights = True  # False: its variables are state, not a model's weights (Layer.weights)

    def __init__(self, name: str | None = None):
        if name is not None and (not isinstance(name, str) or not re.fullmatch(r"[\w.-]+", name)):
            raise ValueError(f"a module's name is letters, digits, '_', '.' or '-', got {name!r}.")
        self._name = name

    @property
    def name(self) -> str:
        """The name given, or the class name in snake_case."""
        name = self.__dict__.get("_name")
        return name if name is not None else snake_case(type(self).__name__)

    @property
    def name_scope(self):
        """A context manager: variables created inside it are named `<module name>/...`."""
        return name_scope(self.name)

    @property
    def trainable(self) -> bool:
        """False leaves this module's variables out of every `trainable_variables`."""
        return self.__dict__.get("_trainable", True)

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        roots = self.__dict__.get("_graph_roots")
        if roots and context.current_graph() is None and context.current_trace() is None and (
                not isinstance(getattr(type(self), name, None), property)):
            # (set outside tracing: a layer built while a function traces changes nothing;
            # a property's setter sets the attributes that decide)
            _changed(roots)

    def _trace_state(self) -> int:
        """This module's version: it changes when an attribute of this module or of a module
        under it is set outside tracing (see the module docstring). Graphs that read the
        module key their traces by it."""
        version = self.__dict__.get("_state_version", 0)
        if self.__dict__.get("_marked_version") != version:  # (first read, or changed since)
            for module in (self, *self.submodules):
                module.__dict__.setdefault("_graph_roots", weakref.WeakSet()).add(self)
            self.__dict__["_marked_version"] = version
        return version

    @property
    def variables(self) -> list:
        """Every Variable this module and its sub-modules hold, each once, in attribute order."""
        return [v for v, _ in self._walk_variables()]

    @property
    def trainable_variables(self) -> list:
        """The variables a gradient should update: trainable ones not under a frozen module."""
        return [v for v, trainable in self._walk_variables() if trainable and v.trainable]

    @property
    def non_trainable_variables(self) -> list:
        """`variables` less `trainable_variables`."""
        trainable = {id(v) for v in self.trainable_variables}
        return [v for v in self.variables if id(v) not in trainable]

    @property
    def submodules(self) -> list:
        """Every module under this one (not itself), each once, depth first in attribute order."""
        found: list = []
        seen = {id(self)}
        for value in _children(self):
            _collect_modules(value, found, seen)
        return found

    def _walk_variables(self, weights_only=False):
        """(variable, whether every module on its path is trainable), each variable once;
        `weights_only`: not inside modules whose variables are not weights (`_holds_weights`
        False: an optimizer's slots, a metric's totals)."""
        seen_vars, seen_modules = set(), {id(self)}

        def walk(value, trainable):
            if isinstance(value, Variable):
                if id(value) not in seen_vars:
                    seen_vars.add(id(value))
                    yield value, trainable
            elif isinstance(value, Module):
                if id(value) not in seen_modules and (value._holds_weights or not weights_only):
                    seen_modules.add(id(value))
                    for child in _children(value):
                        yield from walk(child, trainable and value.trainable)
            else:
                for child in _items(value):
                    yield from walk(child, trainable)

        for child in _children(self):
            yield from walk(child, self.trainable)

    # ---- checkpoints (runtime/train) ----
    def _checkpoint_children(self) -> list:
        """(attribute name, value) pairs, public attributes first: what a checkpoint walks."""
        items = list(vars(self).items())
        return [kv for kv in items if not kv[0].startswith("_")] + [
            kv for kv in items if kv[0].startswith("_")]

    def save_weights(self, path) -> None:
        """Writes the module's weights (not an optimizer's or metrics' state it holds) to the
        safetensors file `path`, atomically."""
        checkpoint.write_file(os.fspath(path), {"module": self}, weights_only=True)

    def load_weights(self, path):
        """Restores the weights `save_weights` wrote; a layer not built yet gets its values
        when it builds. Returns a status (`assert_consumed()`, `expect_partial()`)."""
        return checkpoint.read_file(os.fspath(path), {"module": self}, weights_only=True)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"


def _changed(roots) -> None:
    """A new version for each module whose graphs read through the module that changed."""
    with _versions_lock:
        for root in list(roots):
            root.__dict__["_state_version"] = root.__dict__.get("_state_version", 0) + 1


def _children(module: Module) -> list:
    """The attribute values of `module` that may hold variables or modules."""
    return list(vars(module).values())


def _items(value) -> list:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, (list, tuple)):
        return list(value)
    return []


def _collect_modules(value, found: list, seen: set) -> None:
    if isinstance(value, Module):
        if id(value) in seen:
            return
        seen.add(id(value))
        found.append(value)
        for child in _children(value):
            _collect_modules(child, found, seen)
    else:
        for child in _items(value):
            _collect_modules(child, found, seen)


def snake_case(name: str) -> str:
    """Keras' rule: `GlobalAveragePooling2D` -> `global_average_pooling2d`, `Conv2D` -> `conv2d`."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
