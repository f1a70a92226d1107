"""Outside lists, dicts and sets a traced function adds graph values to (`LOG.append(y)`), and
the globals it assigns (`calls += 1`).

Plain Python adds `y`'s value at every call. A graph runs no Python, so such a container
changes only while tracing (seed example S12), and what it gets then is the value the tracing
call computed, never the graph's placeholder. After a trace, the containers the function can
reach from outside (the globals, closure variables and `self` attributes it reads, and what
they hold, a few levels deep: `HIST["loss"].append(y)`) are searched for values of its graph;
once the call that traced it has run, each is computed from that call's arguments by the
reference interpreter (only the ops it needs) and put in its place. A value that cannot be
computed so (made in a graph loop's body or branch; depending on a stateful op, such as a
random draw or a variable's update, or on a variable's value; made while a caller is traced)
is refused at the user's call with the fix, and every value the trace added is taken out.
A trace without a call (for specs: `get_concrete_function`) takes them out and says so.
A global the function assigns also changes only while tracing: function_tracing.py says so.
"""

from __future__ import annotations

import collections
import itertools
import logging

from runtime.core.dtypes import python_number
from runtime.core.tensor import SymbolicTensor, Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import OperatorNotAllowedInGraphError, with_origin
from runtime.executor import interpreter
from runtime.ops.registry import READS_STATE
from runtime.tensor_list import TensorList
from runtime.tracing.capture_guards import outside_containers, rebound_globals
from runtime.tracing.concrete_function import eager_output

logger = logging.getLogger("runtime.function")  # (named after the public module)
_UNSET = object()
# How deep and how much of the outside containers is searched (as capture guards budget).
_DEPTH, _ITEMS = 4, 10_000


class Snapshot:
    """The containers a function reaches from outside and the globals it assigns (with their
    values), taken before a trace."""

    __slots__ = ("containers", "globals")

    def __init__(self, fn):
        self.containers = outside_containers(fn)
        self.globals = [(name, namespace, namespace.get(name, _UNSET))
                        for name, namespace in rebound_globals(fn)]

    def rebound(self) -> list:
        """The names of the globals the trace assigned a new value."""
        return [name for name, namespace, before in self.globals
                if namespace.get(name, _UNSET) is not before]

    def added(self, graph) -> list:
        """[(name, holder, key, item)]: where a container holds a value of `graph` (or of a
        graph inside it): `holder[key]` is `item`, which is or holds it."""
        found: list = []
        seen: set = set()
        for name, container in self.containers:
            _search(name, container, graph, found, seen, 0)
        return found

    def check(self, graph, origin) -> None:
        """Refuses (after `take_back`) a trace of `graph` that added a value no call can give
        (see `_check_computable`)."""
        for name, _, _, item in self.added(graph):
            for leaf in _leaves(item, graph):
                try:
                    _check_computable(leaf, graph)
                except _Unavailable as e:
                    self.take_back(graph)
                    raise refusal(name, str(e), e.tensor.op.origin or origin) from None

    def take_back(self, graph) -> None:
        """Takes out every item holding a value of `graph` (a trace dropped, failed or
        refused)."""
        for _, holder, key, item in reversed(self.added(graph)):
            _remove(holder, key, item)


class Pending:
    """What a new trace of the rt.function `name` added to outside containers, settled once
    the call that traced it has run (`settle`), or taken out if that call raises (`abandon`)."""

    __slots__ = ("snapshot", "graph", "name", "numpy_results", "origin")

    def __init__(self, snapshot: Snapshot, graph, name: str, numpy_results: bool, origin):
        self.snapshot, self.graph, self.name = snapshot, graph, name
        self.numpy_results, self.origin = numpy_results, origin

    def settle(self, leaves) -> None:
        """The values of the call whose tensor leaves are `leaves` put in place (logged)."""
        for container in settle(self.snapshot.added(self.graph), self.graph, leaves,
                                self.numpy_results, self.origin):
            logger.warning(
                "rt.function '%s' added a value to '%s' while it was traced: a graph runs no "
                "Python, so '%s' changes only when the function is traced, not at every call "
                "as in plain Python. To collect a value at every call, return it and add it "
                "after the call.", self.name, container, container)

    def abandon(self) -> None:
        self.snapshot.take_back(self.graph)


def settle(added, graph, leaves, numpy_results: bool, origin) -> list:
    """Puts in place of each of `added` (from `Snapshot.added`, after the call that traced
    `graph` ran) its value, computed from `leaves` (that call's tensor leaves, the values of
    `graph.inputs`): numpy values for a function with `numpy_results` called with numpy values,
    else eager tensors. If one cannot be computed, all are taken out and the trace is refused
    (OperatorNotAllowedInGraphError at `origin`, or at the line that made the value). Returns
    the names of the containers that got values."""
    env = {id(p): convert_to_tensor(v).numpy() for p, v in zip(graph.inputs, leaves)}
    as_numpy = numpy_results and not any(isinstance(v, Tensor) for v in leaves)
    values = []
    for name, _, _, item in added:
        try:
            values.append(_computed(item, graph, env, as_numpy))
        except BaseException as e:  # (an op's error, as plain Python's at the append)
            for _, h, k, i in reversed(added):
                _remove(h, k, i)
            if isinstance(e, _Unavailable):
                raise refusal(name, str(e), e.tensor.op.origin or origin) from None
            raise
    for (_, holder, key, item), value in zip(added, values):
        _put(holder, key, item, value)
    return list(dict.fromkeys(name for name, *_ in added))


def refusal(name: str, reason: str, origin) -> OperatorNotAllowedInGraphError:
    """The error of a graph value in the outside container `name` that has no value."""
    return OperatorNotAllowedInGraphError(with_origin(
        f"'{name}' got a graph value while the function was traced (e.g. `{name}.append(y)` "
        f"of a tensor), and its value cannot be computed for it: {reason} A graph adds to an "
        "outside list only while it is traced, once, not at every call. Return the value from "
        "the function and add it after the call (what the trace added was taken out).", origin))


class _Unavailable(Exception):
    """Why the graph value `tensor` cannot be computed from the tracing call's arguments."""

    def __init__(self, reason: str, tensor):
        super().__init__(reason)
        self.tensor = tensor


def _ours(value, graph) -> bool:
    """Whether `value` (a leaf) is a value of `graph` or of a graph inside it."""
    if isinstance(value, TensorList):
        value = value.handle
    if not isinstance(value, SymbolicTensor):
        return False
    g = value.op.graph
    while g is not None and g is not graph:
        g = g.outer
    return g is graph


def _items(container) -> list:
    """(key, item) pairs of a list, tuple, dict or deque, the first _ITEMS of them."""
    pairs = container.items() if isinstance(container, dict) else enumerate(container)
    return list(itertools.islice(pairs, _ITEMS))


def _holds(value, graph, depth: int) -> bool:
    if _ours(value, graph):
        return True
    if depth < _DEPTH and isinstance(value, (list, tuple, dict)):
        return any(_holds(v, graph, depth + 1) for _, v in _items(value))
    return False


def _search(name, container, graph, found, seen, depth) -> None:
    """Adds to `found` the items of `container` (a list, dict, set or deque reached from
    outside) that hold a value of `graph`; containers inside it are searched in turn (a tuple
    item is replaced whole)."""
    if id(container) in seen or depth > _DEPTH:
        return
    seen.add(id(container))
    if isinstance(container, set):
        found.extend((name, container, None, v) for v in list(container) if _ours(v, graph))
        return
    for key, value in _items(container):
        if isinstance(value, (list, dict, set, collections.deque)) and not _ours(value, graph):
            _search(name, value, graph, found, seen, depth + 1)
        elif _holds(value, graph, depth + 1):
            found.append((name, container, key, value))


def _remove(holder, key, item) -> None:
    if isinstance(holder, set):
        holder.discard(item)
    elif isinstance(holder, dict):
        if holder.get(key, _UNSET) is item:
            del holder[key]
    else:
        index = next((i for i, v in enumerate(holder) if v is item), None)
        if index is not None:
            del holder[index]


def _put(holder, key, item, value) -> None:
    if isinstance(holder, set):
        holder.discard(item)
        holder.add(value)  # (a set's items must hash: a tensor's value does not)
    elif isinstance(holder, dict):
        holder[key] = value
    else:
        index = next((i for i, v in enumerate(holder) if v is item), None)
        if index is not None:
            holder[index] = value


def _leaves(item, graph) -> list:
    """The values of `graph` in `item` (as tensors: a staged list's handle)."""
    if _ours(item, graph):
        return [item.handle if isinstance(item, TensorList) else item]
    if isinstance(item, (list, tuple, dict)):
        return [leaf for _, v in _items(item) for leaf in _leaves(v, graph)]
    return []


def _computed(item, graph, env, as_numpy):
    """`item` with its values of `graph` replaced by what they computed."""
    if isinstance(item, (list, tuple, dict)) and not _ours(item, graph):
        if isinstance(item, dict):
            return type(item)((k, _computed(v, graph, env, as_numpy)) for k, v in item.items())
        values = [_computed(v, graph, env, as_numpy) for v in item]
        if isinstance(item, tuple) and hasattr(item, "_fields"):  # a namedtuple
            return type(item)(*values)
        return type(item)(values)
    if not _ours(item, graph):
        return item
    tensor = item.handle if isinstance(item, TensorList) else item
    _check_computable(tensor, graph)
    try:
        value, = interpreter.evaluate([tensor], env)
    except interpreter.MissingInput:
        raise _Unavailable("it reads a value of an enclosing graph `if` or loop.",
                           tensor) from None
    result = eager_output(value, tensor.dtype)
    return _as_numpy(result, tensor.weak) if as_numpy else result


def _as_numpy(value, weak):
    if type(value) is list:
        return [_as_numpy(v, False) for v in value]
    return python_number(value._value) if weak else value.numpy()


def _check_computable(tensor, graph) -> None:
    """Raises _Unavailable unless `tensor` is computed in `graph` by ops that give the same
    values when run again after the call: no effect, no variable read (also inside the graph
    `if`s and loops it depends on)."""
    seen, stack = set(), [tensor.op]
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.graph is not graph:
            raise _Unavailable("it was made inside a graph `if` or loop (a value of one "
                               "iteration or branch).", tensor)
        inner = [o for g in op.subgraphs() for o in g.walk()]
        for o in (op, *inner):
            if o.opdef.stateful or READS_STATE in o.opdef.groups:
                raise _Unavailable(
                    f"it depends on the {'stateful' if o.opdef.stateful else 'variable-reading'}"
                    f" op {o.type} ({o.name}), which would not give the call's value again.",
                    tensor)
        stack.extend(t.op for t in op.inputs)
