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

import types

from runtime import nest
from runtime.core import context
from runtime.core.graph import Graph, copy_sub_graph
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, TensorShape
from runtime.errors import ForeignTensorError, NoGradientError, a_or_an, with_origin
from runtime.ops.registry import CONTROL_FLOW, PLACEHOLDER, constant_in_graph, record_on_tapes
from runtime.tensor_list import TensorList


def take_in(concrete, inputs) -> list:
    """The outputs of `concrete` (one tensor per output of its graph) computed in the graph
    being built from `inputs`: its graph inlined, or, while a tape records and its graph holds
    rt.custom_gradient functions, its Python function traced again (their gradient functions
    are closures over the tensors of its own graph, which no copy of it can carry)."""
    source = concrete.traced_graph
    if not (source.custom_gradients and context.recording_tapes()):
        return inline_graph(source, inputs, prefix=concrete.name)
    if concrete.retrace is None:
        raise NoGradientError(with_origin(
            f"'{concrete.name}' holds rt.custom_gradient functions "
            f"({', '.join(source.custom_gradients)}) and has no Python function to trace again "
            "(it was loaded from a file, or it is the gradient graph of a call differentiated "
            "again): a copy of a graph keeps their ops but not their gradient functions, so "
            "a gradient tape cannot differentiate through them. Differentiate the original "
            "rt.function, to first order, or take the gradients inside it.", user_origin()))
    graph = context.current_graph()
    inputs = [t if t.op.graph is graph else graph.capture(t) for t in inputs]
    result = nest.map_with_paths(lambda v, p: graph_output(graph, v, p),
                                 concrete.retrace(inputs), "output")
    outputs = [t for t in nest.flatten(result) if isinstance(t, SymbolicTensor)]
    if len(outputs) != len(source.outputs):
        raise ValueError(f"'{concrete.name}' returned {len(outputs)} tensors when traced again, "
                         f"{len(source.outputs)} the first time.")
    return outputs


def graph_output(graph, value, path):
    """What stands in the outputs of `graph` for a value its function returns (at `path`):
    a tensor of the graph (a constant for an eager tensor, a read for a variable, the list
    tensor of a staged list), or a Python value as it is."""
    if isinstance(value, (types.GeneratorType, map, filter, zip, enumerate)):
        raise TypeError(with_origin(
            f"The function returns {a_or_an(type(value).__name__)} ({path}): it would run "
            "after the function returned, outside the graph. Return a list or tuple instead, "
            "e.g. `return list(...)`.", user_origin()))
    if isinstance(value, TensorList):
        value = value.handle
    if isinstance(value, SymbolicTensor):
        if value.op.graph is not graph:
            raise ForeignTensorError(with_origin(
                f"The function returns {value.name} ({path}), a symbolic tensor of another "
                "graph: it escaped from the function or graph `if`/loop that made it (kept in a "
                "Python object during tracing). Return it from there instead.", user_origin()),
                value.op.graph)
        return value
    if isinstance(value, EagerTensor):
        return constant_in_graph(graph, value)
    if hasattr(value, "read_value") and hasattr(value, "assign"):
        return value.read_value()
    return value


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
    root = graph.outermost()
    root.custom_gradients.extend(  # (lost by a copy: see take_in)
        c for c in source.custom_gradients if c not in root.custom_gradients)
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
        specs = _specs(op, inputs, attrs)
        name = f"{prefix}_{op.name}" if prefix else op.name
        new = graph.create_op(op.opdef, inputs, attrs, specs, op.origin, name=name)
        for old, out in zip(op.outputs, new.outputs):
            tensor_map[id(old)] = out
            out.weak = old.weak  # (a Python number's stand-in stays one across the boundary)
        if record and context.recording_tapes():
            record_on_tapes(op.opdef, inputs, inputs, attrs, list(new.outputs), op.origin)


def _specs(op, inputs, attrs) -> list:
    """The output (dtype, shape)s of the copy of `op`: inferred again from its new inputs (a
    graph traced for unknown dims, taken in by a caller that knows them, knows them too), or
    the original's (control flow, whose sub-graphs keep the shapes they were traced with)."""
    original = [(t.dtype, t.shape) for t in op.outputs]
    if op.opdef.infer is None or CONTROL_FLOW in op.opdef.groups:
        return original
    try:
        inferred = op.opdef.infer(inputs, **attrs)
    except Exception:  # noqa: BLE001 - what inference refuses here, it accepted when traced
        return original
    if len(inferred) != len(original) or any(
            d is not d0 or not TensorShape(s).is_compatible_with(s0)
            for (d, s), (d0, s0) in zip(inferred, original)):
        return original
    return inferred
