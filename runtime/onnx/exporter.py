"""Walks a graph and builds the ONNX model, asking each op's ONNX rule for its ONNX nodes.

Guarantees: every value gets a model-wide unique name; graph inputs keep the placeholder names;
outputs are `output_0`, `output_1`, ...; sub-graphs (If branches, Loop bodies) read outer
values by name, as ONNX allows, and end in Identity nodes so they never return an outer value
directly. The model is checked with `onnx.checker` before it is returned.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from autograph.namer import fresh_name
from runtime.concrete_function import ConcreteFunction
from runtime.errors import with_origin
from runtime.function import Function
from runtime.onnx import OPSET, ExportError
from runtime.ops.registry import ONNX, PLACEHOLDER

IR_VERSION = 10  # the IR version of opset 21


def elem_type(dtype) -> int:
    """The ONNX element type of a runtime dtype."""
    if dtype.is_string:
        return TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(dtype.np_dtype)


def type_proto(dtype, shape) -> onnx.TypeProto:
    """The ONNX type of a runtime value: a tensor, or for a list dtype a sequence of its items
    (a list tensor's shape is the shape of its items)."""
    if dtype.is_list:
        return helper.make_sequence_type_proto(type_proto(dtype.element, shape))
    return helper.make_tensor_type_proto(elem_type(dtype), list(shape))


def value_info(name: str, dtype, shape) -> onnx.ValueInfoProto:
    return helper.make_value_info(name, type_proto(dtype, shape))


class _Names:
    """Model-wide unique value names."""

    def __init__(self):
        self.used: set[str] = set()

    def fresh(self, hint: str) -> str:
        return fresh_name(hint, self.used)


class Builder:
    """Collects the nodes of one ONNX graph (the model's, or a branch or loop body)."""

    def __init__(self, names: _Names, drop_prints: bool):
        self.names = names
        self.drop_prints = drop_prints
        self.nodes: list[onnx.NodeProto] = []
        self.op = None  # the op being exported, for node names and errors

    def child(self) -> Builder:
        return Builder(self.names, self.drop_prints)

    # ---- nodes --------------------------------------------------------------------------------
    def node(self, op_type: str, inputs, outputs: int = 1, **attrs) -> list[str]:
        """Adds a node; returns the names of its `outputs` new values."""
        hint = self.op.name if self.op is not None else op_type.lower()
        names = [self.names.fresh(hint) for _ in range(outputs)]
        node_name = self.names.fresh(f"{hint}/{op_type}")
        self.nodes.append(helper.make_node(op_type, list(inputs), names, name=node_name, **attrs))
        return names

    def one(self, op_type: str, *inputs, **attrs) -> str:
        return self.node(op_type, inputs, 1, **attrs)[0]

    def const(self, value, dtype=None) -> str:
        array = np.asarray(value, dtype=None if dtype is None else dtype.np_dtype)
        return self.one("Constant", value=numpy_helper.from_array(array))

    def int64s(self, values) -> str:
        return self.const(np.asarray(list(values), dtype=np.int64))

    def cast(self, name: str, from_dtype, to_dtype) -> str:
        if from_dtype is to_dtype:
            return name
        return self.one("Cast", name, to=elem_type(to_dtype))

    # ---- graphs -------------------------------------------------------------------------------
    def inline(self, graph, input_names) -> list[str]:
        """Adds the ops of `graph` with its placeholders bound to `input_names`; returns the
        names of its outputs."""
        from runtime.onnx import rules  # noqa: F401 - registers the ONNX rules of the ops

        env = {id(t): name for t, name in zip(graph.inputs, input_names)}
        outer_op = self.op
        for op in graph.operations:
            if op.opdef is PLACEHOLDER:
                continue
            if any(t.dtype.is_complex for t in (*op.inputs, *op.outputs)):
                raise unsupported(op, "complex tensors are not exported (onnxruntime has no "
                                  "complex arithmetic kernels)")
            rule = op.opdef.rule(ONNX)
            if rule is None:
                raise unsupported(op, op.opdef.lacking.get(
                    ONNX, "there is no ONNX export rule for this op type"))
            self.op = op
            outs = rule(self, op, [env[id(t)] for t in op.inputs])
            for tensor, name in zip(op.outputs, outs):
                env[id(tensor)] = name
        self.op = outer_op
        return [env[id(t)] for t in graph.outputs]

    def finish(self, name: str, inputs, results, specs) -> onnx.GraphProto:
        """This builder's nodes as a graph whose outputs are Identity copies of `results`, of
        the (dtype, shape) `specs`."""
        outputs = []
        for i, (result, (dtype, shape)) in enumerate(zip(results, specs)):
            out = self.names.fresh(f"{name}_output_{i}")
            self.nodes.append(helper.make_node("Identity", [result], [out],
                                               name=self.names.fresh(f"{out}/Identity")))
            outputs.append(value_info(out, dtype, shape))
        return helper.make_graph(self.nodes, name, inputs, outputs)

    def subgraph(self, graph, input_names, name: str, inputs=()) -> onnx.GraphProto:
        """`graph` as an ONNX sub-graph (no inputs of its own: it reads outer values)."""
        child = self.child()
        results = child.inline(graph, input_names)
        specs = [(t.dtype, t.shape) for t in graph.outputs]
        return child.finish(name, list(inputs), results, specs)


def unsupported(op, reason: str) -> ExportError:
    """The error for an op that cannot be exported: names the op and the user's line."""
    return ExportError(with_origin(
        f"Cannot export op {op.name} ({op.type}) to ONNX: {reason}.", op.origin
    ))


def _concrete(function) -> ConcreteFunction:
    if isinstance(function, ConcreteFunction):
        return function
    if isinstance(function, Function):
        traces = function.concrete_functions()
        if len(traces) == 1:
            return traces[0]
        raise ExportError(
            f"rt.function '{function.__name__}' has {len(traces)} traced signatures; export one "
            "of them: rt.onnx.export(f.get_concrete_function(...), path)."
        )
    raise ExportError(f"rt.onnx.export takes a ConcreteFunction, got {type(function).__name__}.")


# ONNX tools parse a model with protobuf, which stops at 100 nested messages; each If or Loop
# nests its sub-graphs three messages deeper (node, attribute, graph).
MAX_NESTING = 31


def _check_nesting(graph, depth: int = 0) -> None:
    for op in graph.operations:
        for sub in op.subgraphs():
            if depth + 1 > MAX_NESTING:
                raise ExportError(with_origin(
                    f"Cannot export to ONNX: control flow nests more than {MAX_NESTING} levels "
                    f"deep here ({op.type} op {op.name}), and ONNX tools cannot parse deeper "
                    "models (protobuf's nesting limit). Flatten inner conditions (e.g. rt.where "
                    "to choose between values) or export a smaller function.", op.origin))
            _check_nesting(sub, depth + 1)


def to_model(concrete: ConcreteFunction, drop_prints: bool = False) -> onnx.ModelProto:
    """The ONNX model of a concrete function's graph as traced (as saved, for a loaded
    function): ONNX runtimes optimize graphs themselves, and our fused kernels have no ONNX
    form."""
    graph = concrete.traced_graph
    _check_nesting(graph)
    names = _Names()
    builder = Builder(names, drop_prints)
    inputs, input_names = [], []
    for t in graph.inputs:
        if any(d is None for d in t.shape):
            shape = [d if d is not None else names.fresh(f"{t.op.name}_dim") for d in t.shape]
        else:
            shape = list(t.shape)
        input_names.append(names.fresh(t.op.name))
        inputs.append(helper.make_tensor_value_info(input_names[-1], elem_type(t.dtype), shape))
    results = builder.inline(graph, input_names)
    outputs = []
    for i, (result, tensor) in enumerate(zip(results, graph.outputs)):
        out = names.fresh(f"output_{i}")
        builder.nodes.append(helper.make_node("Identity", [result], [out], name=f"{out}/Identity"))
        outputs.append(value_info(out, tensor.dtype, tensor.shape))
    onnx_graph = helper.make_graph(builder.nodes, concrete.name, inputs, outputs)
    model = helper.make_model(onnx_graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="runtime", ir_version=IR_VERSION)
    onnx.checker.check_model(model)
    return model


def export(function, path=None, *, drop_prints: bool = False) -> onnx.ModelProto:
    """See `runtime.onnx.export`."""
    model = to_model(_concrete(function), drop_prints)
    if path is not None:
        onnx.save(model, str(path))
    return model


__all__ = ["export", "to_model", "Builder", "unsupported", "elem_type", "value_info"]
