"""Walks a graph and builds the ONNX model, asking each op's ONNX rule for its ONNX nodes.

Guarantees: every value gets a model-wide unique name; graph inputs keep the placeholder names;
outputs are `output_0`, `output_1`, ...; sub-graphs (If branches, Loop bodies) read outer
values by name, as ONNX allows, and end in Identity nodes so they never return an outer value
directly. The model is checked with `onnx.checker` before it is returned.
"""

from __future__ import annotations

import onnx
from onnx import helper

from runtime.errors import with_origin
from runtime.onnx import OPSET, ExportError
from runtime.onnx import rules as _rules  # noqa: F401 - registers the ONNX rules of the ops
from runtime.onnx.builder import Builder, Names, elem_type, value_info
from runtime.ops.io_ops import ASSERT
from runtime.passes import prune
from runtime.tracing.concrete_function import ConcreteFunction
from runtime.tracing.function import Function

IR_VERSION = 10  # the IR version of opset 21


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


def _is_python_number_check(op) -> bool:
    return op.opdef is ASSERT and op.attrs.get("python_numbers", False)


def _without_python_number_checks(graph):
    """`graph`, or a copy without the assertions that stand-ins of Python numbers computed what
    Python would (ONNX has no assertion; its ints wrap) and the ops only they read."""
    if not any(_is_python_number_check(op) for op in graph.walk()):
        return graph
    graph = graph.copy()
    for g in [graph, *(sub for op in graph.walk() for sub in op.subgraphs())]:
        g.remove([op for op in g.operations if _is_python_number_check(op)])
    prune.transform(graph)
    return graph


def to_model(concrete: ConcreteFunction, drop_prints: bool = False) -> onnx.ModelProto:
    """The ONNX model of a concrete function's graph as traced (as saved, for a loaded
    function): ONNX runtimes optimize graphs themselves, and our fused kernels have no ONNX
    form."""
    graph = _without_python_number_checks(concrete.traced_graph)
    _check_nesting(graph)
    names = Names()
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


__all__ = ["export", "to_model"]
