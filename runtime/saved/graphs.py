"""Graphs <-> JSON-able dicts (plus arrays), and the checks that make loading strict.

Saving writes each op as its name, type, input references, attrs (plain data, see `values`),
output specs and user line; sub-graphs nest inside the attrs of the op that owns them.

Loading rebuilds every graph with the public Graph API and guarantees a graph this runtime could
have traced: op types are looked up in the op registry by name (unknown names are rejected;
nothing is imported or evaluated), op names are unique identifiers, every input refers to an
earlier op of the same graph, attrs fit the op (its shape inference accepts them and its kernel
takes exactly them; control-flow sub-graphs match their op), and the saved output specs agree
with inference. List tensors (staged lists) flow only where the runtime puts them: through list
ops (their list operands must be lists) and control flow, never into other kernels or into a
function's inputs. Any violation is a LoadError naming the graph and the op.

Checking allocates nothing that the file's declared sizes decide: shapes hold at most
`values.MAX_RANK` dims, and the attrs and operands from which inference builds Python objects
are bounded before inference runs (the output count of Unpack must be the file's, a shape
operand has at most MAX_RANK items, a StringFormat template pads fields to at most
`MAX_FORMAT_WIDTH` characters). No kernel runs while a file is checked.
"""

from __future__ import annotations

import functools
import inspect
import re
import string

import numpy as np

from autograph.origins import Origin
from runtime.core import dtypes
from runtime.core.graph import Graph, is_valid_op_name, kernel_attrs
from runtime.errors import with_origin
from runtime.ops import array_ops, creation_ops, io_ops, list_ops, random_ops, string_ops
from runtime.ops.fused_ops import FUSED_ELEMENTWISE
from runtime.ops.registry import CONST, CONTROL_FLOW, PLACEHOLDER, REGISTRY
from runtime.saved.errors import LoadError, SaveError
from runtime.saved.values import (
    MAX_RANK,
    ArrayReader,
    ArrayWriter,
    decode,
    decode_dtype,
    decode_shape,
    encode,
)
from runtime.variables import Variable

_GRAPH_KEYS = {"name", "inputs", "outputs", "operations"}
# Ops that only the fusion pass creates. Files hold graphs before fusion (loading fuses), so
# these never appear in them; FusedElementwise generates Python source from its attrs.
BUILT_BY_PASSES = (FUSED_ELEMENTWISE,)
_OP_KEYS = {"name", "op", "inputs", "attrs", "outputs", "origin"}


# ---- saving ------------------------------------------------------------------------------------

class GraphEncoder:
    """Encodes graphs; remembers the variables they use (saved name -> Variable)."""

    def __init__(self, arrays: ArrayWriter):
        self.arrays = arrays
        self.variables: dict[str, Variable] = {}

    def encode(self, graph: Graph) -> dict:
        for variable in graph.variables.values():
            self.variables[variable.name] = variable
        operations = []
        for op in graph.operations:
            try:
                attrs = {k: encode(v, self.arrays, self._special) for k, v in op.attrs.items()}
            except SaveError as e:  # named at the user's line that made the op
                raise SaveError(with_origin(f"the {op.type} op {op.name} cannot be saved: {e}",
                                            op.origin)) from None
            operations.append({
                "name": op.name,
                "op": op.type,
                "inputs": [_ref(t) for t in op.inputs],
                "attrs": attrs,
                "outputs": [encode_spec(t.dtype, t.shape) for t in op.outputs],
                "origin": list(op.origin) if op.origin is not None else None,
            })
        return {
            "name": graph.name,
            "inputs": [_ref(t) for t in graph.inputs],
            "outputs": [_ref(t) for t in graph.outputs],
            "operations": operations,
        }

    def _special(self, value):
        if isinstance(value, Graph):
            return {"graph": self.encode(value)}
        if isinstance(value, Variable):
            self.variables[value.name] = value
            return {"variable": value.name}
        return None


def _ref(tensor) -> list:
    return [tensor.op.name, tensor.index]


def encode_spec(dtype, shape) -> list:
    return [dtype.name, list(shape)]


# ---- loading -----------------------------------------------------------------------------------

class GraphDecoder:
    """Rebuilds graphs from their JSON form; `variables` maps saved names to loaded Variables."""

    def __init__(self, arrays: ArrayReader, variables: dict[str, Variable]):
        self.arrays = arrays
        self.variables = variables
        self._names: set[str] = set()

    def decode(self, data) -> Graph:
        """A top-level graph (with its sub-graphs)."""
        self._names = set()  # op names are unique across a graph and its sub-graphs
        return self._graph(data, None)

    def _graph(self, data, outer: Graph | None) -> Graph:
        expect_keys(data, _GRAPH_KEYS, "a graph")
        name = data["name"]
        if not isinstance(name, str):
            raise LoadError(f"graph name {name!r} is not a string.")
        graph = Graph(name, outer)
        ops: dict = {}
        for op_data in expect_list(data["operations"], f"operations of graph {name!r}"):
            label = op_data.get("name") if isinstance(op_data, dict) else None
            try:
                op = self._op(graph, op_data, ops)
            except LoadError as e:
                raise LoadError(f"graph {name!r}, op {label!r}: {e}") from None
            ops[op.name] = op
        try:
            graph.inputs = [_resolve(r, ops) for r in expect_list(data["inputs"], "inputs")]
            graph.outputs = [_resolve(r, ops) for r in expect_list(data["outputs"], "outputs")]
        except LoadError as e:
            raise LoadError(f"graph {name!r}: {e}") from None
        placeholders = [op.outputs[0] for op in ops.values() if op.opdef is PLACEHOLDER]
        if {id(t) for t in graph.inputs} != {id(t) for t in placeholders} or (
            len(graph.inputs) != len(placeholders)
        ):
            raise LoadError(f"graph {name!r}: its inputs must be exactly its placeholders.")
        return graph

    def _op(self, graph: Graph, data, ops: dict):
        expect_keys(data, _OP_KEYS, "an operation")
        name, type_name = data["name"], data["op"]
        self._check_name(name)
        opdef = REGISTRY.get(type_name) if isinstance(type_name, str) else None
        if opdef is None:
            raise LoadError(f"unknown op type {type_name!r} (not in this runtime's op registry).")
        if opdef in BUILT_BY_PASSES:
            raise LoadError(f"{type_name} ops are made by the optimizing passes when a graph is "
                            "loaded; a saved graph cannot contain them.")
        inputs = [_resolve(r, ops) for r in expect_list(data["inputs"], "inputs")]
        attrs_data = data["attrs"]
        if not isinstance(attrs_data, dict):
            raise LoadError("attrs must be a JSON object.")
        attrs = {}
        for key, value in attrs_data.items():
            try:
                attrs[key] = decode(value, self.arrays, lambda tag, p: self._special(tag, p, graph))
            except LoadError as e:
                raise LoadError(f"attr {key!r}: {e}") from None
        specs = [decode_spec(s) for s in expect_list(data["outputs"], "outputs")]
        check_op(opdef, inputs, attrs, specs)
        op = graph.create_op(opdef, inputs, attrs, specs, _decode_origin(data["origin"]), name=name)
        variable = attrs.get("variable")
        if isinstance(variable, Variable):
            graph.variables[variable.name] = variable
        return op

    def _check_name(self, name) -> None:
        if not is_valid_op_name(name):
            raise LoadError(f"op name {name!r} is not a valid identifier.")
        if name in self._names:
            raise LoadError(f"op name {name!r} is used twice.")
        self._names.add(name)

    def _special(self, tag, payload, graph: Graph):
        if tag == "graph":
            return self._graph(payload, graph)
        if tag == "variable":
            if not isinstance(payload, str) or payload not in self.variables:
                raise LoadError(f"unknown variable {payload!r}.")
            return self.variables[payload]
        return None


def expect_keys(data, keys: set, what: str) -> None:
    if not isinstance(data, dict) or set(data) != keys:
        found = sorted(data) if isinstance(data, dict) else type(data).__name__
        raise LoadError(f"{what} must have the fields {sorted(keys)}, found {found}.")


def expect_list(data, what: str) -> list:
    if not isinstance(data, list):
        raise LoadError(f"{what} must be a list.")
    return data


def _resolve(ref, ops: dict):
    if not (isinstance(ref, list) and len(ref) == 2 and isinstance(ref[0], str)
            and type(ref[1]) is int):
        raise LoadError(f"malformed tensor reference {ref!r}.")
    op = ops.get(ref[0])
    if op is None or not 0 <= ref[1] < len(op.outputs):
        raise LoadError(f"reference to {ref[0]}:{ref[1]}, which is not an earlier op output "
                        "of the same graph.")
    return op.outputs[ref[1]]


def decode_spec(data) -> tuple:
    if not isinstance(data, list) or len(data) != 2:
        raise LoadError(f"malformed output spec {data!r}.")
    return decode_dtype(data[0]), decode_shape(data[1])


def _decode_origin(data):
    """[file, line, column or None, text]; files written before columns were kept have
    [file, line, text]."""
    if data is None:
        return None
    if isinstance(data, list) and len(data) == 3:
        data = [data[0], data[1], None, data[2]]
    if not (isinstance(data, list) and len(data) == 4 and isinstance(data[0], str)
            and type(data[1]) is int and (data[2] is None or type(data[2]) is int)
            and isinstance(data[3], str)):
        raise LoadError(f"malformed origin {data!r}.")
    return Origin(*data)


# ---- checks: does an op make sense? -------------------------------------------------------------

def check_op(opdef, inputs, attrs: dict, specs: list) -> None:
    """Raises LoadError unless `attrs`, `inputs` and output `specs` fit `opdef`."""
    if opdef is PLACEHOLDER:
        if inputs or len(specs) != 1 or set(attrs) - {"name"} or not isinstance(
            attrs.get("name"), (str, type(None))
        ):
            raise LoadError("a Placeholder has no inputs, one output and only a 'name' attr.")
        return
    if opdef is CONST:
        _check_const(inputs, attrs, specs)
        return
    for key, value in attrs.items():
        expected = _ATTR_TYPES.get(key)
        if expected is not None and not expected[0](value):
            raise LoadError(f"attr {key!r} must be {expected[1]}, got {value!r}.")
    if opdef is io_ops.PRINT and sum(p is None for p in attrs.get("parts", ())) != len(inputs):
        raise LoadError("its 'parts' do not have one slot per input tensor.")
    if opdef.verify is not None:
        try:
            opdef.verify(inputs, attrs, specs)
        except ValueError as e:
            raise LoadError(str(e)) from None
    if CONTROL_FLOW not in opdef.groups:
        _check_lists(opdef, inputs, attrs)
    if opdef.kernel is not None:
        _check_kernel_attrs(opdef, inputs, attrs)
    _check_inference_sizes(opdef, inputs, attrs, specs)
    try:
        inferred = opdef.infer(inputs, **attrs)
    except Exception as e:  # noqa: BLE001 - any failure of inference means a bad file
        raise LoadError(f"its attrs or inputs do not fit {opdef.name}: {e}") from None
    if len(inferred) != len(specs):
        raise LoadError(f"{opdef.name} has {len(inferred)} output"
                        f"{'' if len(inferred) == 1 else 's'}, the file says {len(specs)}.")
    for (dtype, shape), (saved_dtype, saved_shape) in zip(inferred, specs):
        if dtype is not saved_dtype or not _compatible(shape, saved_shape):
            raise LoadError(f"{opdef.name} computes {dtype.name}{list(shape)}, but the file "
                            f"says {saved_dtype.name}{list(saved_shape)}.")


def _is_int(v) -> bool:
    return type(v) is int


def _ints(v) -> bool:
    return isinstance(v, tuple) and all(type(d) is int for d in v)


def _plain_index(item) -> bool:
    """An item of a StridedSlice spec: ("int", i), ("slice", start, stop, step) whose bounds are
    None, ints or ("tensor", k), ("tensor", k), ("newaxis",) or ("ellipsis",)."""
    def bound(d):
        return d is None or type(d) is int or (
            isinstance(d, tuple) and len(d) == 2 and d[0] == "tensor" and type(d[1]) is int)

    return isinstance(item, tuple) and bool(item) and item[0] in (
        "newaxis", "ellipsis", "slice", "int", "tensor"
    ) and all(bound(d) for d in item[1:])


# The types of the attrs that ops use today, by attr name (an attr schema on OpDef would be the
# better home). Attrs not listed are checked only by the op's inference and kernel signature.
_ATTR_TYPES = {
    "axis": (lambda v: v is None or _is_int(v) or _ints(v), "None, an int or a tuple of ints"),
    "keepdims": (lambda v: type(v) is bool, "a bool"),
    "shape": (_ints, "a tuple of ints"),
    "perm": (lambda v: v is None or _ints(v), "None or a tuple of ints"),
    "multiples": (_ints, "a tuple of ints"),
    "sizes": (_ints, "a tuple of ints"),
    "num": (_is_int, "an int"),
    "dtype": (lambda v: isinstance(v, dtypes.DType), "a dtype"),
    "output_type": (lambda v: isinstance(v, dtypes.DType), "a dtype"),
    "seed": (lambda v: v is None or _is_int(v), "None or an int"),
    "parts": (lambda v: isinstance(v, tuple) and all(p is None or isinstance(p, str) for p in v),
              "a tuple of strings and None"),
    "sep": (lambda v: isinstance(v, str), "a string"),
    "end": (lambda v: isinstance(v, str), "a string"),
    "message": (lambda v: isinstance(v, str), "a string"),
    "separator": (lambda v: isinstance(v, bytes), "bytes"),
    "template": (lambda v: isinstance(v, str), "a string"),
    "style": (lambda v: isinstance(v, str) and v in ("{}", "%"), "'{}' or '%'"),
    "spec": (lambda v: isinstance(v, tuple) and all(_plain_index(i) for i in v),
             "a tuple of index items"),
    "variable": (lambda v: isinstance(v, Variable), "a variable"),
    "element_shape": (lambda v: isinstance(v, tuple) and all(
        d is None or type(d) is int and d >= 0 for d in v), "a tuple of ints >= 0 and None"),
}

# How many leading inputs of each list op (runtime/ops/list_ops.py) are lists; its other inputs
# are items and indices, which its inference checks.
_LIST_OPERANDS = {list_ops.LIST_FROM_ITEMS: 0, list_ops.LIST_PUSH_BACK: 1,
                  list_ops.LIST_POP_BACK: 1, list_ops.LIST_LENGTH: 1, list_ops.LIST_GET_ITEM: 1,
                  list_ops.LIST_SET_ITEM: 1, list_ops.LIST_CONCAT_LISTS: 2,
                  list_ops.LIST_STACK: 1, list_ops.LIST_CONCAT: 1,
                  list_ops.LIST_ZEROS_LIKE: 1, list_ops.LIST_ADD: 2, list_ops.LIST_UNSTACK: 0,
                  list_ops.LIST_SPLIT_AT: 1, list_ops.LIST_SPLIT_LIKE: 1,
                  list_ops.LIST_CAST: 1}


def _check_lists(opdef, inputs, attrs) -> None:
    """List tensors go only into list ops (whose list operands must be lists) and control
    flow: no other kernel can take a ListValue or make one."""
    count = _LIST_OPERANDS.get(opdef)
    if count is None:
        if any(t.dtype.is_list for t in inputs) or any(
            isinstance(v, dtypes.DType) and v.is_list for v in attrs.values()
        ):
            raise LoadError(f"{opdef.name} does not take list tensors or list dtypes.")
        return
    for i in range(count):
        if i >= len(inputs) or not inputs[i].dtype.is_list:
            raise LoadError(f"input {i} of {opdef.name} must be a list tensor.")


def _compatible(a, b) -> bool:
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def _check_const(inputs, attrs, specs) -> None:
    value = attrs.get("value")
    if inputs or set(attrs) != {"value"} or not isinstance(value, np.ndarray):
        raise LoadError("a Const has no inputs and one array attr 'value'.")
    dtype = dtypes.string if value.dtype == object else dtypes.from_numpy(value.dtype)
    if specs != [(dtype, value.shape)]:
        raise LoadError(f"its value is {dtype.name}{list(value.shape)} but its output spec "
                        f"says {specs}.")


# The operand of each op whose inference reads its value as a shape (a 1-D int tensor).
_SHAPE_OPERANDS = {creation_ops.FILL: 0, array_ops.DYNAMIC_RESHAPE: 1,
                   array_ops.DYNAMIC_TILE: 1, array_ops.DYNAMIC_BROADCAST_TO: 1,
                   random_ops.DYNAMIC_UNIFORM: 0, random_ops.DYNAMIC_NORMAL: 0}
MAX_FORMAT_WIDTH = 10_000  # the widest field (or precision) of a StringFormat template
_PERCENT_FIELD = re.compile(r"%%|%(?:\([^)]*\))?[-#0 +]*(\d*)(?:\.(\d*))?")


def _check_inference_sizes(opdef, inputs, attrs, specs) -> None:
    """Bounds what the op's inference builds from values in the file, before it runs: it makes
    a list of Unpack's `num` outputs, a tuple of a shape operand's items, and formats a
    StringFormat template (field widths pad empty values)."""
    if opdef is array_ops.UNSTACK and attrs.get("num") != len(specs):
        raise LoadError(f"Unpack with num={attrs.get('num')!r} has {len(specs)} output"
                        f"{'' if len(specs) == 1 else 's'}.")
    position = _SHAPE_OPERANDS.get(opdef)
    if position is not None and position < len(inputs):
        shape = inputs[position].shape
        if len(shape) != 1 or shape[0] is not None and shape[0] > MAX_RANK:
            raise LoadError(f"the shape operand of {opdef.name} must be a 1-D tensor of at most "
                            f"{MAX_RANK} dims, got one of shape {list(shape)}.")
    if opdef is string_ops.STRING_FORMAT and isinstance(attrs.get("template"), str):
        for width in _template_widths(attrs["template"], attrs.get("style")):
            if len(width) > 6 or int(width) > MAX_FORMAT_WIDTH:
                raise LoadError(f"its template has a field of width {width[:20]}, more than "
                                f"{MAX_FORMAT_WIDTH}.")


def _template_widths(template: str, style) -> list[str]:
    """The digit runs of the format specs of `template` (widths, precisions, nested fields)."""
    if style == "%":
        return [w for m in _PERCENT_FIELD.finditer(template) for w in m.groups() if w]
    widths, pending = [], [template]
    while pending:
        try:
            fields = list(string.Formatter().parse(pending.pop()))
        except ValueError:
            continue  # a malformed template: inference rejects it
        for _, _, spec, _ in fields:
            if spec:
                widths += re.findall(r"\d+", spec)
                pending.append(spec)
    return widths


@functools.cache
def _kernel_signature(kernel):
    """The signature of an op's kernel (None for ufuncs and builtins that have none)."""
    try:
        return inspect.signature(kernel)
    except (TypeError, ValueError):
        return None


def _check_kernel_attrs(opdef, inputs, attrs) -> None:
    """The kernel must accept the inputs and exactly these attrs (as the executor passes them)."""
    signature = _kernel_signature(opdef.kernel)
    try:
        if signature is not None:
            signature.bind(*inputs, **kernel_attrs(attrs))
    except TypeError as e:
        raise LoadError(f"attrs {sorted(attrs)} do not fit {opdef.name}: {e}.") from None
