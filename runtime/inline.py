"""Inlining: the ops of a traced graph put into the graph being built, as if the function it
came from had been traced there.

This is what calling an `rt.function` (or a loaded or concrete function) means while another
function is traced: its graph for the call's signature joins the caller's graph. One graph
then runs on one executor, the passes optimize across the boundary, and save/load, ONNX
export and `explain` see ordinary ops (each keeping the user line that made it). The open
gradient tapes are told about every inlined op, as about any op made while tracing, so a
tape in the caller differentiates through the callee (its `If`s and `While`s included).
"""

from __future__ import annotations

from runtime import context
from runtime.graph import Graph, copy_sub_graph
from runtime.ops.registry import PLACEHOLDER, record_on_tapes
from runtime.source_info import user_origin


def inline_graph(source: Graph, inputs, prefix: str = "") -> list:
    """The outputs of `source` computed in the graph being built from `inputs` (one symbolic
    tensor of that graph, or of a graph enclosing it, per input of `source`). The new ops are
    named `<prefix>_<name>`."""
    graph = context.current_graph()
    if len(inputs) != len(source.inputs):
        raise ValueError(f"{source.name} takes {len(source.inputs)} inputs, got {len(inputs)}.")
    tensor_map = {}
    for placeholder, value in zip(source.inputs, inputs):
        tensor_map[id(placeholder)] = value if value.op.graph is graph else graph.capture(value)
    first = len(graph.operations)
    copy_ops(graph, source.operations, tensor_map, prefix, record=True)
    graph.variables.update(source.variables)
    graph.inlined_calls.append((user_origin(), source.name, graph.operations[first:]))
    return [tensor_map[id(t)] for t in source.outputs]


def copy_ops(graph: Graph, operations, tensor_map: dict, prefix: str = "",
             record: bool = False) -> None:
    """Adds a copy of each of `operations` (in order; placeholders are skipped: `tensor_map`
    must map them) to `graph`, whose inputs are `tensor_map[id(input)]`; each copied output is
    added to `tensor_map`. Sub-graphs are copied too, so the originals never change. With
    `record`, the open gradient tapes are told of each new op."""
    for op in operations:
        if op.opdef is PLACEHOLDER:
            if id(op.outputs[0]) not in tensor_map:
                raise ValueError(f"copy_ops: the placeholder {op.name} has no value.")
            continue
        inputs = [tensor_map[id(t)] for t in op.inputs]
        attrs = {k: copy_sub_graph(v, graph, tensor_map) if isinstance(v, Graph) else v
                 for k, v in op.attrs.items()}
        specs = [(t.dtype, t.shape) for t in op.outputs]
        name = f"{prefix}_{op.name}" if prefix else op.name
        new = graph.create_op(op.opdef, inputs, attrs, specs, op.origin, name=name)
        for old, out in zip(op.outputs, new.outputs):
            tensor_map[id(old)] = out
        if record and context.recording_tapes():
            record_on_tapes(op.opdef, inputs, inputs, attrs, list(new.outputs), op.origin)
