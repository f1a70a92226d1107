"""Saved modules: `rt.saved.save(module, directory)` and what `rt.saved.load` gives back.

A saved module is a directory:
  * `saved_module.json`: the format, the names of the module's traced `rt.function` methods,
    and for each variable reachable from the module its object path (`dense/kernel`, as in a
    checkpoint), its name in the saved graphs and whether it is trainable;
  * `variables.safetensors`: the variables' values by object path (runtime/train);
  * `functions/<method>/`: each method saved as a function (runtime/saved), every signature
    it was traced for.
Loading makes each variable once and gives it to every method's graphs, so a loaded
`train_step` updates the variables a loaded `__call__` reads: training goes on after loading,
in a process that has none of the module's source. The loaded object has the methods as
attributes, the variables at their paths (`loaded.dense.kernel`), and `variables` /
`trainable_variables`.
"""

from __future__ import annotations

import json
import os
import re

from runtime.core.file_io import write_atomically
from runtime.saved.errors import LoadError, SaveError
from runtime.saved.storage import MAX_JSON_BYTES, read_regular_file
from runtime.tracing.function import Function
from runtime.train import object_graph, safetensors_format
from runtime.variables import Variable

MODULE_FILE = "saved_module.json"
VALUES_FILE = "variables.safetensors"
FUNCTIONS_DIR = "functions"
_FORMAT, _VERSION = "runtime.saved_module", 1


def is_module(value) -> bool:
    """Whether `value` is saved as a module (an object with a checkpoint object graph)."""
    return hasattr(type(value), "_checkpoint_children") and not isinstance(value, Function)


def traced_methods(module) -> dict:
    """{name: the module's rt.function method bound to it} for the methods traced so far."""
    found = {}
    for cls in type(module).__mro__:
        for name, value in vars(cls).items():
            if isinstance(value, Function) and name not in found:
                bound = value.__get__(module, type(module))
                if bound.current_traces():
                    found[name] = bound
    return found


def save_module(module, directory, save_function) -> None:
    """Writes `module` (see the module docstring); `save_function` saves one method."""
    methods = traced_methods(module)
    variables, _ = object_graph.walk({"": module})
    trainable = {id(v) for v in module.trainable_variables}  # (not under a frozen module)
    os.makedirs(directory, exist_ok=True)
    for name, method in methods.items():
        save_function(method, os.path.join(directory, FUNCTIONS_DIR, name))
    document = {
        "format": _FORMAT, "version": _VERSION, "class": type(module).__name__,
        "methods": sorted(methods),
        "variables": {path.lstrip("/"): {"name": v.name, "trainable": id(v) in trainable}
                      for path, v in variables.items()},
    }
    try:
        values = safetensors_format.encode({path.lstrip("/"): v.numpy()
                                            for path, v in variables.items()})
    except TypeError as e:
        raise SaveError(str(e)) from None
    write_atomically(os.path.join(directory, VALUES_FILE), values)
    write_atomically(os.path.join(directory, MODULE_FILE),
                     json.dumps(document, indent=1).encode("utf-8"))


def load_module(directory, load_function):
    """The module saved in `directory`; `load_function(path, variables)` loads one method with
    the shared variables ({saved name: Variable})."""
    document = _read_document(directory)
    values, _ = safetensors_format.read(os.path.join(directory, VALUES_FILE))
    shared, by_path = {}, {}
    for path, entry in document["variables"].items():
        if path not in values:
            raise LoadError(f"{VALUES_FILE} has no value for the variable {path!r}.")
        base = re.sub(r"_\d+$", "", entry["name"]).rpartition("/")[2] or "Variable"
        variable = Variable(values[path], entry["trainable"], name=base)
        shared[entry["name"]] = by_path[path] = variable
    loaded = LoadedModule(document["class"])
    for path, variable in by_path.items():
        _attach(loaded, path.split("/"), variable)
    for name in document["methods"]:
        function = load_function(os.path.join(directory, FUNCTIONS_DIR, name), shared)
        object.__setattr__(loaded, name, function)
    object.__setattr__(loaded, "_variables", list(by_path.values()))
    return loaded


def _read_document(directory) -> dict:
    path = os.path.join(directory, MODULE_FILE)
    try:
        document = json.loads(read_regular_file(path, MAX_JSON_BYTES, "MAX_JSON_BYTES"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise LoadError(f"{MODULE_FILE} is not valid JSON ({e}).") from None
    if not isinstance(document, dict) or document.get("format") != _FORMAT:
        raise LoadError(f"{MODULE_FILE} is not a saved module of this library.")
    if document.get("version") != _VERSION:
        raise LoadError(f"{MODULE_FILE} has format version {document.get('version')!r}; this "
                        f"runtime reads version {_VERSION}.")
    methods, variables = document.get("methods"), document.get("variables")
    if not (isinstance(document.get("class"), str) and isinstance(methods, list) and all(
            isinstance(m, str) and m.isidentifier() for m in methods)):
        raise LoadError(f"{MODULE_FILE} has a malformed class name or method list.")
    if not isinstance(variables, dict) or not all(
            isinstance(path, str) and path and isinstance(entry, dict)
            and set(entry) == {"name", "trainable"} and isinstance(entry["name"], str)
            and type(entry["trainable"]) is bool for path, entry in variables.items()):
        raise LoadError(f"{MODULE_FILE} has a malformed variable table.")
    return document


def _attach(node, parts, variable) -> None:
    """Sets `variable` at the path `parts` under `node`, making the objects on the way."""
    *parents, last = [p.replace("%2F", "/").replace("%25", "%") for p in parts]
    for part in parents:
        child = node._children.get(part)
        if not isinstance(child, LoadedModule):
            child = node._children[part] = LoadedModule(part)
        node = child
    node._children[last] = variable


class LoadedModule:
    """A module loaded from a directory: its traced methods, its variables at their paths
    (attributes: `loaded.dense.kernel`; an index or key that is not a name: `loaded["0"]`)."""

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_children", {})

    def __getattr__(self, name):
        children = self.__dict__.get("_children", {})
        if name in children:
            return children[name]
        raise AttributeError(f"the loaded module {self._name!r} has no attribute {name!r} "
                             f"(it has: {', '.join(sorted(children)) or 'nothing'}).")

    def __getitem__(self, key):
        return self._children[str(key)]

    def __call__(self, *args, **kwargs):
        call = self.__dict__.get("__call__")
        if call is None:
            raise TypeError(f"the loaded module {self._name!r} is not callable: its __call__ "
                            "was not an rt.function traced before saving.")
        return call(*args, **kwargs)

    @property
    def variables(self) -> list:
        """Every variable of the saved module (each once)."""
        if "_variables" in self.__dict__:
            return list(self._variables)
        found: list = []
        for child in self._children.values():
            found.extend([child] if isinstance(child, Variable) else child.variables)
        return found

    @property
    def trainable_variables(self) -> list:
        """The loaded variables marked trainable."""
        return [v for v in self.variables if v.trainable]

    def __repr__(self) -> str:
        return f"<loaded module {self._name!r}>"
