"""The graph IR: a `Graph` owns `Operation`s in creation order (always a topological order).

An Operation has an op type (an `OpDef`), input tensors, attrs (plain data, or sub-graphs for
control flow), symbolic output tensors, and the user's source line that created it.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.core import context
from runtime.core.dtypes import DType
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor, shape_str
from runtime.errors import ForeignTensorError, with_origin
from runtime.ops.registry import CONTROL_FLOW, PLACEHOLDER

# Views of a graph made by the layers above this one, which provide them when they load: the
# picture (runtime/tools/visualize.py) and the generated Python (runtime/executor/codegen.py).
_VIEWS: dict[str, Callable] = {}


def provide_views(**views: Callable) -> None:
    """Registers `to_dot`, `render`, `repr_svg` (Graphviz) or `to_python` (the executor's code)."""
    _VIEWS.update(views)


def is_valid_op_name(name) -> bool:
    """The rule for op names (graphs make them, `lint` and the loader check them): a Python
    identifier that is not a keyword nor starts with `__` (codegen uses names as variables)."""
    return (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)
            and not name.startswith("__"))


class _Names:
    """Op names used in a graph and all its sub-graphs (they share one)."""

    def __init__(self):
        self.used: set[str] = set()
        self._next = 0
        self.constructs = 0  # control-flow ops named so far (their sub-graphs' names)

    def copy(self) -> _Names:
        names = _Names()
        names.used = set(self.used)
        names._next = self._next
        names.constructs = self.constructs
        return names

    def next_id(self) -> int:
        self._next += 1
        return self._next - 1


class Operation:
    """One node of a graph."""

    __slots__ = ("graph", "name", "opdef", "inputs", "attrs", "outputs", "origin", "stateful")

    def __init__(self, graph, name, opdef, inputs, attrs, output_specs, origin):
        self.graph = graph
        self.name = name
        self.opdef = opdef
        self.inputs = list(inputs)
        self.attrs = attrs
        self.origin = origin
        self.outputs = [SymbolicTensor(self, i, d, s) for i, (d, s) in enumerate(output_specs)]
        self.stateful = opdef.stateful or (
            CONTROL_FLOW in opdef.groups and any(g.is_stateful() for g in self.subgraphs())
        )

    @property
    def type(self) -> str:
        """The op's name (`"MatMul"`, `"While"`, ...)."""
        return self.opdef.name

    def kernel_attrs(self) -> dict:
        """The attrs the op's kernel receives (sub-graphs and output specs are the executor's)."""
        return kernel_attrs(self.attrs)

    # ---- changing it (graph rewrites that keep the op: see also Graph's) ------------------------
    def insert_inputs(self, index: int, tensors) -> None:
        """Makes `tensors` inputs of this op, starting at position `index`."""
        self.inputs[index:index] = list(tensors)

    def add_outputs(self, specs) -> list:
        """New outputs after the existing ones, one per (dtype, shape) of `specs`."""
        first = len(self.outputs)
        added = [SymbolicTensor(self, first + i, d, s) for i, (d, s) in enumerate(specs)]
        self.outputs.extend(added)
        return added

    def subgraphs(self):
        """The sub-graphs held in attrs (branches of an If, cond and body of a While); only
        control-flow ops hold any."""
        if CONTROL_FLOW not in self.opdef.groups:
            return []
        return [v for v in self.attrs.values() if isinstance(v, Graph)]

    def __repr__(self) -> str:
        return f"<Operation {self.name} ({self.type})>"


def joined_arguments(a, b):
    """The `argument_inputs` entry of a value that may stand for what `a` or `b` stand for
    (an index, a tuple of several, or None)."""
    if a is None or a == b:
        return b
    if b is None:
        return a
    return tuple(sorted({*_indices(a), *_indices(b)}))


def _indices(argument) -> tuple:
    """The argument indices an `argument_inputs` entry holds (one, or a tuple of several)."""
    return argument if type(argument) is tuple else (argument,)


class Graph:
    """A dataflow graph; `outer` is the enclosing graph for branch and loop bodies."""

    def __init__(self, name: str = "graph", outer: Graph | None = None, scratch: bool = False):
        """`scratch=True` makes a throwaway graph (e.g. to learn types by tracing) whose
        captures never add inputs to the enclosing graphs."""
        self.name = name
        self.outer = outer
        self.scratch = scratch
        self.operations: list[Operation] = []
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        # Captures of outer-graph tensors: id(outer tensor) -> (outer tensor, inner placeholder).
        self.captures: dict[int, tuple[SymbolicTensor, SymbolicTensor]] = {}
        # Variables read or written by this graph and its sub-graphs, by unique name.
        self.variables: dict[str, Any] = outer.variables if outer is not None else {}
        # Functions whose graphs were inlined here: (user line of the call, callee's name,
        # the ops it added), for `rt.explain`.
        self.inlined_calls: list = []
        # Where rt.custom_gradient functions were traced into this graph (their gradient
        # functions are Python closures over its tensors, which no copy of it can carry).
        self.custom_gradients: list = []
        # The placeholders that stand for a function argument (its own, or a loop's stand-in
        # for one): id -> the argument's index among the tensor inputs (a tuple of indices for
        # a value that may stand for several: a list holding views of two); and where the code
        # applied an in-place operator (`x += 1`) to one: (index, Origin) pairs, in the
        # outermost graph. Plain Python changes the caller's numpy array there.
        self.argument_inputs: dict[int, int | tuple] = {}
        self.in_place_arguments: list = []
        self._names: _Names = outer._names if outer is not None else _Names()

    # ---- building ----------------------------------------------------------------------------
    def as_default(self):
        """`with graph.as_default():` sends new ops to this graph."""
        return context.building(self)

    def outermost(self) -> Graph:
        """The graph this one is a branch or loop body of, at any depth (else itself)."""
        graph = self
        while graph.outer is not None:
            graph = graph.outer
        return graph

    def note_in_place(self, tensor, origin=None) -> None:
        """Notes an in-place operator (`x *= 2`) applied to `tensor`, of this graph, at `origin`
        (the user's line unless given), when it stands for a function argument (or for one of
        several: an item of a list that holds views of them)."""
        argument = self.argument_inputs.get(id(tensor))
        if argument is not None:
            origin = user_origin() if origin is None else origin
            self.outermost().in_place_arguments.extend(
                (index, origin) for index in (argument if type(argument) is tuple
                                              else (argument,)))

    def note_view(self, source, view) -> None:
        """Notes that `view`, of this graph, is what numpy gives as a view of `source` (a basic
        slice, a transpose, a reshape), or may be (an item of a list holding views): an in-place
        operator on it changes the function argument `source` stands for, if any, in plain
        Python (the arguments noted for `view` before stay noted: a tuple of them)."""
        argument = source.op.graph.argument_inputs.get(id(source))
        if argument is not None:
            self.argument_inputs[id(view)] = joined_arguments(
                self.argument_inputs.get(id(view)), argument)

    def next_construct_id(self) -> int:
        """A number for naming the sub-graphs of a new control-flow op (per graph family, so
        tracing a function twice names them the same)."""
        self._names.constructs += 1
        return self._names.constructs - 1

    def create_op(self, opdef, inputs, attrs, output_specs, origin=None, name=None) -> Operation:
        """Adds an operation; inputs from an enclosing graph are captured first. `name` is the
        wanted op name (made unique); placeholders default to their `name` attr."""
        inputs = [self.capture(t) if t.op.graph is not self else t for t in inputs]
        if name is None and opdef is PLACEHOLDER:
            name = attrs.get("name")
        name = self._unique_name(name, opdef)
        op = Operation(self, name, opdef, inputs, attrs, output_specs, origin)
        self.operations.append(op)
        return op

    @property
    def ops_named(self) -> int:
        """How many ops this graph, its enclosing graphs and the graphs inside them hold (they
        share one namespace)."""
        return len(self._names.used)

    def _unique_name(self, wanted, opdef) -> str:
        """`wanted` made a valid, graph-wide unique identifier, or `<optype>_<n>`."""
        name = re.sub(r"\W+", "_", wanted).strip("_") if wanted else ""
        used = self._names.used
        if not is_valid_op_name(name) or name in used:
            stem = name or opdef.name.lower()
            name = f"{stem}_{self._names.next_id()}"
            while name in used:  # a loaded graph holds numbered names its counter never gave
                name = f"{stem}_{self._names.next_id()}"
        used.add(name)
        return name

    def add_input(self, dtype, shape, name=None, origin=None) -> SymbolicTensor:
        """A new placeholder (a function argument of this graph)."""
        op = self.create_op(PLACEHOLDER, [], {"name": name}, [(dtype, shape)], origin)
        self.inputs.append(op.outputs[0])
        return op.outputs[0]

    # ---- changing it: rewrites that keep the graph's invariants (placeholders first, every op
    # after the ops it reads) -------------------------------------------------------------------
    def insert_inputs(self, index: int, specs, name: str) -> list:
        """New placeholders, one per (dtype, shape) of `specs`, among the graph's inputs from
        position `index`, their ops before every other op; returns their tensors."""
        made = [self.create_op(PLACEHOLDER, [], {"name": name}, [spec], None).outputs[0]
                for spec in specs]
        if not made:
            return made
        del self.operations[-len(made):]
        self.operations[:0] = [t.op for t in made]
        self.inputs[index:index] = made
        return made

    def remove(self, ops) -> None:
        """Drops `ops` from this graph (no op left may read their outputs)."""
        gone = {id(op) for op in ops}
        self.operations[:] = [op for op in self.operations if id(op) not in gone]

    def move_before(self, ops, anchor: Operation) -> None:
        """Moves `ops` (made after `anchor`, which must come to read them) to just before it."""
        self.remove(ops)
        at = self.operations.index(anchor)
        self.operations[at:at] = list(ops)

    def insert_outputs(self, index: int, tensors) -> None:
        """Makes `tensors` outputs of the graph, starting at position `index`."""
        self.outputs[index:index] = list(tensors)

    def capture(self, tensor: SymbolicTensor) -> SymbolicTensor:
        """The placeholder in this graph that stands for `tensor` of an enclosing graph."""
        found = self.captures.get(id(tensor))
        if found is not None:
            return found[1]
        if self.outer is None or not self._encloses(tensor.op.graph):
            raise ForeignTensorError(with_origin(
                f"Tensor {tensor.name} belongs to another graph ({tensor.op.graph.name}) and "
                f"cannot be used in {self.name}: a symbolic tensor escaped from the function "
                "that created it (e.g. stored in a Python list or attribute during tracing). "
                "Return it from that function instead.", user_origin()), tensor.op.graph)
        direct = tensor.op.graph is self.outer or self.scratch
        outer = tensor if direct else self.outer.capture(tensor)
        inner = self.add_input(tensor.dtype, tensor.shape, name=f"capture_{tensor.op.name}")
        self.captures[id(tensor)] = (outer, inner)
        return inner

    def _encloses(self, graph) -> bool:
        g = self.outer
        while g is not None:
            if g is graph:
                return True
            g = g.outer
        return False

    def copy(self) -> Graph:
        """A structural copy (sub-graphs included) with new ops and tensors, the same op names,
        op definitions, origins, variables and attr values (numpy constants are shared, so
        passes must replace them, never write into them). Passes transform the copy, so the
        traced graph stays inspectable."""
        return _copy_graph(self, self.outer, {})

    def copy_into(self, outer: Graph) -> Graph:
        """A copy of this sub-graph for a new op of `outer`: like `copy`, but its ops get names
        that are new in `outer`'s family (names are unique across a graph and its sub-graphs)."""
        return _copy_graph(self, outer, {}, rename=True)

    # ---- queries -----------------------------------------------------------------------------
    def is_stateful(self) -> bool:
        """Whether any operation has effects (state, printing, random numbers)."""
        return any(op.stateful for op in self.operations)

    def get_operation(self, name: str) -> Operation:
        """The operation named `name`; KeyError if there is none."""
        for op in self.operations:
            if op.name == name:
                return op
        raise KeyError(f"No operation named {name!r} in graph {self.name}.")

    def walk(self):
        """Every operation of this graph and of its sub-graphs, outer ops first (no recursion)."""
        stack = [self]
        while stack:
            graph = stack.pop()
            for op in graph.operations:
                yield op
                stack.extend(reversed(op.subgraphs()))

    # ---- checking ----------------------------------------------------------------------------
    def lint(self) -> None:
        """Checks the invariants: ownership, creation order is topological, unique names, and
        each op's own check (`OpDef.verify`: sub-graphs match their If or While)."""
        names = set()
        stack = [self]
        while stack:
            graph = stack.pop()
            seen = set()
            for op in graph.operations:
                _check(
                    op.graph is graph, f"{op.name} is listed in {graph.name} but owned elsewhere"
                )
                _check(op.name not in names, f"duplicate operation name {op.name}")
                _check(is_valid_op_name(op.name), f"operation name {op.name!r} is not valid")
                names.add(op.name)
                for t in op.inputs:
                    _check(t.op.graph is graph, f"{op.name} reads {t.name} from another graph")
                    _check(id(t.op) in seen, f"{op.name} reads {t.name} before it is computed")
                for i, t in enumerate(op.outputs):
                    _check(t.op is op and t.index == i, f"{op.name} output {i} is inconsistent")
                if op.opdef.verify is not None:
                    specs = [(t.dtype, t.shape) for t in op.outputs]
                    try:
                        op.opdef.verify(op.inputs, op.attrs, specs)
                    except ValueError as e:
                        _check(False, f"{op.name}: {e}")
                seen.add(id(op))
                stack.extend(op.subgraphs())
            for t in graph.outputs:
                _check(id(t.op) in seen, f"output {t.name} of {graph.name} is not in the graph")
            for t in graph.inputs:
                _check(t.op.opdef is PLACEHOLDER, f"input {t.name} is not a placeholder")

    # ---- printing and export -----------------------------------------------------------------
    def __str__(self) -> str:
        return "\n".join(_format_graph(self, ""))

    def to_dot(self) -> str:
        """Graphviz DOT source of this graph (see runtime.tools.visualize)."""
        return _VIEWS["to_dot"](self)

    def render(self, path, format=None) -> str:  # noqa: A002 - Graphviz's word
        """Writes a picture (svg, png, pdf: by the file extension) with Graphviz's `dot`."""
        return _VIEWS["render"](self, path, format)

    def _repr_svg_(self):
        return _VIEWS["repr_svg"](self)

    def to_python(self) -> str:
        """The Python source the executor compiles this graph into."""
        return _VIEWS["to_python"](self)

    def as_graph_def(self) -> dict:
        """A JSON-serializable description, like TensorFlow's GraphDef: nodes and a library of
        sub-graphs (branches and loop bodies)."""
        library: list = []
        graph_def: dict[str, Any] = {"node": _nodes_def(self, library)}
        graph_def["library"] = {"function": library}
        return graph_def


def kernel_attrs(attrs: dict) -> dict:
    """The attrs an op's kernel receives: all but sub-graphs and output specs."""
    return {k: v for k, v in attrs.items() if k != "specs" and not isinstance(v, Graph)}


def copy_sub_graph(sub: Graph, outer: Graph, tensor_map: dict) -> Graph:
    """A copy of the sub-graph `sub` (a branch or loop body) for a new op of `outer`, whose
    captured tensors are `tensor_map[id(captured)]` where mapped; its ops get names that are
    new in `outer`'s family, and its tensors are added to `tensor_map`."""
    return _copy_graph(sub, outer, tensor_map, rename=True)


def _copy_graph(graph: Graph, outer: Graph | None, tensor_map: dict, rename=False) -> Graph:
    new = Graph(graph.name, outer=outer)
    if outer is None:
        new._names = graph._names.copy()
        new.variables = dict(graph.variables)
    for op in graph.operations:
        attrs = {
            k: _copy_graph(v, new, tensor_map, rename) if isinstance(v, Graph) else v
            for k, v in op.attrs.items()
        }
        inputs = [tensor_map.get(id(t), t) for t in op.inputs]
        specs = [(t.dtype, t.shape) for t in op.outputs]
        name = new._unique_name(op.name, op.opdef) if rename else op.name
        copied = Operation(new, name, op.opdef, inputs, attrs, specs, op.origin)
        for old, out in zip(op.outputs, copied.outputs):
            tensor_map[id(old)] = out
            out.weak = old.weak  # (a copy is the same graph: what its tensors stand for too)
        new.operations.append(copied)
    new.inputs = [tensor_map[id(t)] for t in graph.inputs]
    new.outputs = [tensor_map[id(t)] for t in graph.outputs]
    for outer_tensor, inner in graph.captures.values():
        mapped = tensor_map.get(id(outer_tensor), outer_tensor)
        new.captures[id(mapped)] = (mapped, tensor_map[id(inner)])
    return new


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise AssertionError(f"Graph lint failed: {message}")


def _spec_str(t: SymbolicTensor) -> str:
    return f"{t.dtype.name}{shape_str(t.shape)}"


def _format_graph(graph: Graph, indent: str):
    ins = ", ".join(f"{t.op.name}: {_spec_str(t)}" for t in graph.inputs)
    yield f"{indent}graph {graph.name}({ins}):"
    for op in graph.operations:
        if op.opdef is PLACEHOLDER:
            continue
        outs = ", ".join(op.name if len(op.outputs) == 1 else t.name for t in op.outputs)
        specs = ", ".join(_spec_str(t) for t in op.outputs)
        args = [t.name if t.index else t.op.name for t in op.inputs]
        attrs = [
            f"{k}={_attr_str(v)}"
            for k, v in op.attrs.items()
            if not isinstance(v, Graph) and k != "specs"  # specs repeat the output types
        ]
        where = f"  # {op.origin}" if op.origin else ""
        call = f"{op.type}({', '.join(args + attrs)})"
        yield f"{indent}  {outs or op.name} = {call} -> {specs or '()'}{where}"
        for sub in op.subgraphs():
            yield from _format_graph(sub, indent + "    ")
    outs = ", ".join(t.name if t.index else t.op.name for t in graph.outputs)
    yield f"{indent}  return ({outs})"


def _attr_str(value) -> str:
    if hasattr(value, "read_value") and hasattr(value, "assign"):  # a variable: its name
        return value.name
    if isinstance(value, np.ndarray):
        return (
            np.array2string(value, threshold=6, separator=",")
            if value.size <= 6
            else (f"<{value.dtype}{list(value.shape)}>")
        )
    return repr(value)


def attr_to_json(value):
    """Plain-data form of an attr value (sub-graphs are referred to by name)."""
    if isinstance(value, Graph):
        return {"graph": value.name}
    if isinstance(value, DType):
        return {"dtype": value.name}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return {
                "strings": [v.decode("utf-8", "replace") for v in value.flat],
                "shape": list(value.shape),
            }
        return {"tensor": value.tolist(), "dtype": str(value.dtype), "shape": list(value.shape)}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, (list, tuple)):
        return [attr_to_json(v) for v in value]
    return value


def _nodes_def(graph: Graph, library: list) -> list:
    nodes = []
    for op in graph.operations:
        attrs = {k: attr_to_json(v) for k, v in op.attrs.items()}
        attrs["_output_types"] = [t.dtype.name for t in op.outputs]
        node = {"name": op.name, "op": op.type, "input": [t.name for t in op.inputs], "attr": attrs}
        if op.origin is not None:
            node["origin"] = {"file": op.origin.filename, "line": op.origin.lineno}
        nodes.append(node)
        for sub in op.subgraphs():
            library.append(
                {
                    "name": sub.name,
                    "input": [t.name for t in sub.inputs],
                    "output": [t.name for t in sub.outputs],
                    "node": _nodes_def(sub, library),
                }
            )
    return nodes
