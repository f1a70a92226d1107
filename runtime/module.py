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
state changes after it traced: `rt.function`'s capture guards ask `_trace_state()`, which
changes whenever a public attribute (or `trainable`) of a module some graph has read is set
outside tracing.
"""

from __future__ import annotations

import itertools
import os
import re

from runtime import context
from runtime.train import checkpoint
from runtime.variables import Variable, name_scope

_state_changes = itertools.count(1)  # numbers the changes of modules that graphs have read
_last_change = 0


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
        return name if name is not None else _snake_case(type(self).__name__)

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
        if "_read_by_graphs" in self.__dict__:
            _mark_read_by_graphs(value)  # (a module set on a read module is read too)
            # (a property stores its state under other names, which decide)
            public = not name.startswith("_") and not isinstance(
                getattr(type(self), name, None), property)
            if (public or name == "_trainable") and context.current_graph() is None and (
                    context.current_trace() is None):  # (a layer built while tracing: no change)
                _note_state_change()

    def _trace_state(self) -> int:
        """A number that changes when the Python state a graph may bake in changes, for this
        module or any other one that graphs have read (see the module docstring); marks this
        module and its sub-modules as read by graphs."""
        if "_read_by_graphs" not in self.__dict__:
            _mark_read_by_graphs(self)
        return _last_change

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
        found, seen = [], {id(self)}
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


def _mark_read_by_graphs(value) -> None:
    found = []
    _collect_modules(value, found, set())
    for module in found:
        module.__dict__["_read_by_graphs"] = True


def _note_state_change() -> None:
    """Makes every function that reads a module retrace on its next call."""
    global _last_change
    _last_change = next(_state_changes)


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


def _snake_case(name: str) -> str:
    """Keras' rule: `GlobalAveragePooling2D` -> `global_average_pooling2d`, `Conv2D` -> `conv2d`."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
