"""Building ONNX graphs: the element and value types of runtime dtypes, model-wide unique value
names, and the Builder that collects one ONNX graph's nodes (the model's, or a branch or loop
body) by asking each op's ONNX rule (runtime/onnx/rules.py) for its nodes.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from runtime.core.generated_code import fresh_name
from runtime.core.graph import Operation
from runtime.errors import with_origin
from runtime.onnx import ExportError
from runtime.ops.registry import ONNX, PLACEHOLDER


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


class Names:
    """Model-wide unique value names."""

    def __init__(self):
        self.used: set[str] = set()

    def fresh(self, hint: str) -> str:
        return fresh_name(hint, self.used)


class Builder:
    """Collects the nodes of one ONNX graph (the model's, or a branch or loop body)."""

    def __init__(self, names: Names, drop_prints: bool):
        self.names = names
        self.drop_prints = drop_prints
        self.nodes: list[onnx.NodeProto] = []
        self.op: Operation | None = None  # the op being exported, for node names and errors

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
