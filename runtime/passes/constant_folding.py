"""Constant folding.

Guarantees after this pass: every pure op (not stateful, not reading variables, not control flow)
whose inputs are all Const ops is replaced by Const ops holding the values its kernel computes,
in the graph and in every sub-graph. Inside If branches and While bodies/conditions, a captured
input that is a Const outside counts as a Const (a copy is made in the sub-graph); loop
variables never do. The folded value is exactly the kernel's value (same numpy call, same dtype),
so results are bit-identical.

Not folded, so behaviour at run time is unchanged: ops whose kernel raises or emits a numpy
floating-point warning (the error or warning stays where the user sees it on every call), string
results, results larger than `MAX_FOLDED_ELEMENTS` (the graph would hold a big array), and
non-scalar results that are outputs of their graph (each call must return a fresh array).
"""

from __future__ import annotations

import numpy as np

from runtime.executor.codegen import resolve_attrs
from runtime.graph import Graph
from runtime.passes.rewrite import add_const, graphs_outer_first, invariant_inputs, is_pure, rewrite
from runtime.tensor import SymbolicTensor

MAX_FOLDED_ELEMENTS = 1 << 16


def transform(graph: Graph) -> None:
    """Folds constants in `graph` and its sub-graphs, in place."""
    for g, owner in graphs_outer_first(graph):
        _fold_graph(g, owner)


def _fold_graph(graph: Graph, owner) -> None:
    outer_consts = {}
    if owner is not None:
        outer_consts = {
            id(inner): outer for inner, outer in invariant_inputs(owner, graph)
            if outer.op.type == "Const"
        }
    graph_outputs = {id(t) for t in graph.outputs}

    def visit(op):
        if op.type == "Placeholder":
            outer = outer_consts.get(id(op.outputs[0]))
            if outer is None:
                return None
            graph.operations.append(op)  # keep the placeholder: it is the graph's signature
            value = outer.op.attrs["value"]
            return [add_const(graph, value, outer.dtype, outer.op.origin)]
        if not _foldable(op, graph_outputs):
            return None
        values = _evaluate(op)
        if values is None:
            return None
        return [add_const(graph, v, t.dtype, op.origin) for t, v in zip(op.outputs, values)]

    rewrite(graph, visit)


def _foldable(op, graph_outputs) -> bool:
    if op.type == "Const" or not is_pure(op) or op.opdef.kernel is None or not op.outputs:
        return False
    if not all(t.op.type == "Const" for t in op.inputs):
        return False
    for t in op.outputs:
        if t.dtype.is_string or t.dtype.is_list or id(t) in graph_outputs and len(t.shape) > 0:
            return False
    return True


def _evaluate(op) -> list[np.ndarray] | None:
    """The op's output values as arrays, or None when folding must not happen."""
    args = [_runtime_value(t) for t in op.inputs]
    try:
        with np.errstate(all="raise"):
            result = op.opdef.kernel(*args, **resolve_attrs(op))
    except Exception:  # noqa: BLE001 - any failure is left to happen at run time, as traced
        return None
    results = list(result) if isinstance(result, tuple) else [result]
    arrays = []
    for value, t in zip(results, op.outputs):
        array = np.asarray(value)
        if array.dtype != t.dtype.np_dtype or array.size > MAX_FOLDED_ELEMENTS:
            return None
        arrays.append(array)
    return arrays


def _runtime_value(t: SymbolicTensor):
    """The value the executor passes for a Const (0-d values as numpy scalars)."""
    value = t.op.attrs["value"]
    return value[()] if value.ndim == 0 else value
