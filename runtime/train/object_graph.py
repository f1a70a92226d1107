"""The object graph of a checkpoint: which value of a file belongs to which Variable.

A value's key is the path of attribute names (list indices, dict keys) from a root object to its
variable: `model/dense/kernel`, `optimizer/iterations`. Objects take part through a protocol:
`_checkpoint_children()` gives (name, child) pairs (rt.Module: its attributes, public ones
first, so a variable reachable by several paths is saved under its public one);
`_checkpoint_slots()` gives an optimizer's (model variable, slot name, slot variable), saved
under `<optimizer path>/slots/<the model variable's path>/<slot name>` when the model variable
is saved too; `_restore_slot(variable, name, value)` puts a slot's value back (now, or when the
slot is made). A layer not built yet when values for it are restored keeps them and assigns
them when it builds its variables (`_defer_restore`), as the variables come into being.
"""

from __future__ import annotations

import numpy as np

from runtime.train.safetensors_format import CheckpointError
from runtime.variables import Variable

SLOTS = "slots"


def _escape(name) -> str:
    return str(name).replace("%", "%25").replace("/", "%2F")


def _children(value, weights_only: bool):
    """(name, child) pairs of a trackable object or a container; [] for anything else."""
    children = getattr(type(value), "_checkpoint_children", None)
    if children is not None:
        if weights_only and not getattr(value, "_holds_weights", True):
            return []
        return [(_escape(k), v) for k, v in children(value)]
    if isinstance(value, dict):
        return [(_escape(k), v) for k, v in value.items() if isinstance(k, (str, int))]
    if isinstance(value, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(value)]
    return []


def walk(roots: dict, weights_only: bool = False):
    """(variables {path: Variable}, optimizers [(path, optimizer)]): every variable reachable
    from `roots` ({name: object}) under its first path, each object visited once."""
    variables, seen_variables, seen, optimizers = {}, set(), set(), []

    def visit(value, path):
        if isinstance(value, Variable):
            if id(value) not in seen_variables:
                seen_variables.add(id(value))
                variables[path] = value
            return
        if isinstance(value, (dict, list, tuple)) or hasattr(type(value), "_checkpoint_children"):
            if id(value) in seen:
                return
            seen.add(id(value))
            if hasattr(type(value), "_checkpoint_slots") and not weights_only:
                optimizers.append((path, value))
            for name, child in _children(value, weights_only):
                visit(child, f"{path}/{name}")

    for name, root in roots.items():
        visit(root, _escape(name))
    return variables, optimizers


def values_of(roots: dict, weights_only: bool = False) -> dict:
    """{path: numpy value} of every variable reachable from `roots`, and of the optimizers'
    slots of those variables."""
    variables, optimizers = walk(roots, weights_only)
    values = {path: np.asarray(v.numpy()) for path, v in variables.items()}
    path_of = {id(v): path for path, v in variables.items()}
    for path, optimizer in optimizers:
        for variable, name, slot in optimizer._checkpoint_slots():
            if id(variable) in path_of:
                values[f"{path}/{SLOTS}/{path_of[id(variable)]}/{_escape(name)}"] = np.asarray(
                    slot.numpy())
    return values


def assign(variable: Variable, value: np.ndarray, path: str) -> None:
    """`variable.assign(value)` after checking that the saved value fits it."""
    if not variable.shape.is_compatible_with(value.shape):
        raise CheckpointError(f"the checkpoint's {path!r} has shape {list(value.shape)}, but "
                              f"the variable {variable.name} has shape {list(variable.shape)}.")
    if value.dtype != variable.dtype.np_dtype:
        raise CheckpointError(f"the checkpoint's {path!r} is {value.dtype}, but the variable "
                              f"{variable.name} is {variable.dtype.name}.")
    variable.assign(value)


class Restoration:
    """What restoring a file into objects did: the status `Checkpoint.restore` returns."""

    def __init__(self, values: dict, path):
        self._values, self._path = values, path
        self._used: set = set()  # keys assigned (or handed to a layer that will build)
        self._waiting: set = set()  # keys held by layers not built yet
        self._unmatched: list = []  # paths of variables that got no value
        self._slots_by_variable: dict = {}  # model variable path -> [(optimizer, slot, key)]

    # ---- restoring ----
    def restore(self, roots: dict, weights_only: bool = False) -> Restoration:
        variables, optimizers = walk(roots, weights_only)
        for path, variable in variables.items():
            self._variable(path, variable)
        for path, optimizer in optimizers:
            self._optimizer(path, optimizer, variables)
        self._defer_to_unbuilt(roots, weights_only)
        return self

    def _variable(self, path, variable) -> None:
        if path in self._values:
            assign(variable, self._values[path], path)
            self._used.add(path)
            self._waiting.discard(path)
            for optimizer, name, key in self._slots_by_variable.pop(path, ()):
                optimizer._restore_slot(variable, name, self._values[key])
                self._waiting.discard(key)
        else:
            self._unmatched.append(path)

    def _optimizer(self, path, optimizer, variables) -> None:
        prefix = f"{path}/{SLOTS}/"
        for key in self._values:
            if not key.startswith(prefix):
                continue
            variable_path, _, name = key[len(prefix):].rpartition("/")
            name = name.replace("%2F", "/").replace("%25", "%")
            self._used.add(key)
            if variable_path in variables:
                optimizer._restore_slot(variables[variable_path], name, self._values[key])
            else:  # its variable is made later (a layer not built yet)
                self._waiting.add(key)
                self._slots_by_variable.setdefault(variable_path, []).append(
                    (optimizer, name, key))

    def _defer_to_unbuilt(self, roots, weights_only) -> None:
        """Hands the values under a layer that is not built yet to that layer."""
        def visit(value, path, seen):
            if id(value) in seen:
                return
            seen.add(id(value))
            if hasattr(type(value), "_defer_restore") and not getattr(value, "built", True):
                keys = [k for k in self._values
                        if k.startswith(path + "/") and k not in self._used]
                if keys:
                    self._used.update(keys)
                    self._waiting.update(keys)
                    value._defer_restore(self, path)
                return
            for name, child in _children(value, weights_only):
                visit(child, f"{path}/{name}", seen)

        seen: set = set()
        for name, root in roots.items():
            visit(root, _escape(name), seen)

    def restore_built(self, layer, path: str) -> None:
        """Assigns the values waiting for `layer` (at `path`), now that it is built."""
        variables, _ = walk({"": layer})
        for relative, variable in variables.items():
            self._variable(path + relative, variable)

    # ---- the status API ----
    def assert_consumed(self) -> Restoration:
        """Raises unless every value of the file went to a variable and every variable got one
        (values waiting for layers to build count as not yet consumed)."""
        unused = sorted(set(self._values) - self._used)
        problems = []
        if unused:
            problems.append(f"values with no variable: {_some(unused)}")
        if self._waiting:
            problems.append(f"values waiting for layers or slots not built yet: "
                            f"{_some(sorted(self._waiting))}")
        if self._unmatched:
            problems.append(f"variables the file has no value for: {_some(self._unmatched)}")
        if problems:
            raise AssertionError(f"restoring {self._path} did not match the objects one to one: "
                                 + "; ".join(problems) + ". Use expect_partial() if that is "
                                 "intended.")
        return self

    def assert_existing_objects_matched(self) -> Restoration:
        """Raises if a variable that exists now got no value from the file."""
        if self._unmatched:
            raise AssertionError(f"{self._path} has no value for the variables "
                                 f"{_some(self._unmatched)}.")
        return self

    def expect_partial(self) -> Restoration:
        """Says that values or variables left unmatched are intended (nothing is checked)."""
        return self


def _some(items) -> str:
    shown = ", ".join(repr(i) for i in items[:8])
    return shown + (f" and {len(items) - 8} more" if len(items) > 8 else "")
