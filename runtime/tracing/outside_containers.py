"""Outside lists, dicts and sets a traced function adds graph values to (`LOG.append(y)`), and
the globals it assigns (`calls += 1`).

Plain Python adds `y`'s value at every call. A graph runs no Python, so such a container
changes only while tracing (seed example S12), and what it gets then is the value the tracing
call computed, never the graph's placeholder: after the trace, each new graph value in a
container the function changes in place (found from its bytecode:
capture_guards.changed_containers) is computed from the call's arguments by the reference
interpreter (only the ops it needs) and put in its place. A value that cannot be computed so
(made in a graph loop's body or branch, by a stateful op such as a random draw, which would
draw again, or while a caller is traced) is taken out again, and the trace is refused at the
user's call with the fix. A global the function assigns also changes only while tracing:
runtime/tracing/function_tracing.py says so once per trace (a warning, as for a container).
"""

from __future__ import annotations

from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import OperatorNotAllowedInGraphError, with_origin
from runtime.executor import interpreter
from runtime.tensor_list import TensorList
from runtime.tracing.capture_guards import changed_containers, rebound_globals
from runtime.tracing.concrete_function import eager_output
from runtime.tracing.signature import TensorSpec

# The containers Python values are put in, and looked into (a tuple `(t, y)` appended).
_NESTING = (list, tuple, dict)
_UNSET = object()


class Snapshot:
    """The containers a function changes in place, with the ids of the items each held before
    a trace (`before`), to find what the trace added."""

    __slots__ = ("containers", "globals")

    def __init__(self, fn):
        self.containers = [(name, container, {id(v) for v in _items(container)})
                           for name, container in changed_containers(fn)]
        # (and the globals it assigns, with their values: `calls += 1` runs only while tracing)
        self.globals = [(name, namespace, namespace.get(name, _UNSET))
                        for name, namespace in rebound_globals(fn)]

    def rebound(self) -> list:
        """The names of the globals the trace assigned a new value."""
        return [name for name, namespace, before in self.globals
                if namespace.get(name, _UNSET) is not before]

    def take_back(self) -> None:
        """Takes out the graph values a trace added (one that is dropped or failed)."""
        for _, container, before in self.containers:
            _remove(container, lambda v, before=before: id(v) not in before and _staged(v))

    def settle(self, graph, leaves, numpy_results: bool, origin) -> list:
        """Puts the value of each graph value the trace of `graph` added in its place,
        computed from `leaves` (the call's tensor leaves, the values of `graph.inputs`; None
        while a caller is traced): numpy values for a function with `numpy_results` called with
        numpy values, else eager tensors. Refuses (after `take_back`) what cannot be computed.
        Returns the names of the containers that got values."""
        settled, env, as_numpy = [], None, False
        for name, container, before in self.containers:
            for key, item in _new_items(container, before):
                if env is None:
                    env, as_numpy = _environment(graph, leaves), numpy_results and not any(
                        isinstance(v, Tensor) for v in leaves or ())
                try:
                    value = _computed(item, graph, env, as_numpy)
                except _Unavailable as e:
                    self.take_back()
                    raise OperatorNotAllowedInGraphError(with_origin(
                        f"'{name}' got a graph value while the function was traced (e.g. "
                        f"`{name}.append(y)` of a tensor), and its value cannot be computed "
                        f"for it: {e} A graph adds to an outside list only while it is traced, "
                        "once, not at every call. Return the value from the function and add "
                        "it after the call (it was taken out again).",
                        e.tensor.op.origin or origin)) from None
                _put(container, key, item, value)
                if name not in settled:
                    settled.append(name)
        return settled


def _environment(graph, leaves):
    """{id(input placeholder): value} for the call's tensor `leaves`, or a string that says why
    there are no values."""
    if leaves is None:
        return "it was made while a caller of the function was traced."
    if any(isinstance(v, TensorSpec) for v in leaves):
        return "the function was traced for specs (an input_signature), not for a call's values."
    return {id(p): convert_to_tensor(v)._value for p, v in zip(graph.inputs, leaves)}


class _Unavailable(Exception):
    """Why the graph value `tensor` cannot be computed from the tracing call's arguments."""

    def __init__(self, reason: str, tensor):
        super().__init__(reason)
        self.tensor = tensor


def _items(container):
    return list(container.values()) if type(container) is dict else list(container)


def _staged(value) -> bool:
    if isinstance(value, (SymbolicTensor, TensorList)):
        return True
    if type(value) in _NESTING:
        return any(_staged(v) for v in _items(value))
    return False


def _new_items(container, before) -> list:
    """[(key, item)]: the items added since `before` that hold graph values (key: the dict
    key, else the item itself)."""
    if type(container) is dict:
        return [(k, v) for k, v in container.items() if id(v) not in before and _staged(v)]
    return [(v, v) for v in container if id(v) not in before and _staged(v)]


def _remove(container, drop) -> None:
    if type(container) is dict:
        for key in [k for k, v in container.items() if drop(v)]:
            del container[key]
    elif type(container) is list:
        container[:] = [v for v in container if not drop(v)]
    else:
        container.difference_update([v for v in container if drop(v)])


def _put(container, key, item, value) -> None:
    if type(container) is dict:
        container[key] = value
    elif type(container) is list:
        container[:] = [value if v is item else v for v in container]
    else:
        container.discard(item)
        container.add(value)  # (a set's items must hash: a tensor's value does not)


def _computed(item, graph, env, as_numpy):
    """`item` with its graph values replaced by what they computed."""
    if type(item) in _NESTING:
        if type(item) is dict:
            return {k: _computed(v, graph, env, as_numpy) for k, v in item.items()}
        return type(item)(_computed(v, graph, env, as_numpy) for v in item)
    if not isinstance(item, (SymbolicTensor, TensorList)):
        return item
    tensor = item.handle if isinstance(item, TensorList) else item
    if isinstance(env, str):
        raise _Unavailable(env, tensor)
    _check_computable(tensor, graph)
    try:
        value, = interpreter.evaluate([tensor], env)
    except LookupError:
        raise _Unavailable("it reads a value of an enclosing graph `if` or loop.",
                           tensor) from None
    result = eager_output(value, tensor.dtype)
    if as_numpy:
        return _as_numpy(result, tensor.weak)
    return result


def _as_numpy(value, weak):
    if type(value) is list:
        return [_as_numpy(v, False) for v in value]
    return value._value.item() if weak else value.numpy()


def _check_computable(tensor, graph) -> None:
    """Raises _Unavailable unless `tensor` is computed in `graph` by stateless ops."""
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.graph is not graph:
            raise _Unavailable("it was made inside a graph `if` or loop (a value of one "
                               "iteration or branch).", tensor)
        if op.opdef.stateful:
            raise _Unavailable(f"it comes from the stateful op {op.type} ({op.name}), which "
                               "would run again.", tensor)
        stack.extend(t.op for t in op.inputs)
