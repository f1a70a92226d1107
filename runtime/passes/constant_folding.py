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

The size of a result is judged before its kernel runs, so folding never allocates more than
`MAX_FOLDED_ELEMENTS` (65536) elements per op, whatever a graph (e.g. one loaded from a file)
says: from the op's own shape inference on its constant inputs (for Range and Where, whose
result size depends on the values, from those values; StridedSlice with constant bounds is
measured on a zero-stride view). An op whose result size is not known in advance is not folded.
"""

from __future__ import annotations

import math

import numpy as np

from runtime.core.graph import Graph
from runtime.core.tensor import SymbolicTensor
from runtime.ops.array_ops import GETITEM, UNSTACK, _index_tuple
from runtime.ops.control_flow_ops import invariant_inputs
from runtime.ops.creation_ops import RANGE
from runtime.ops.math_ops import WHERE_INDICES
from runtime.ops.registry import CONST, PLACEHOLDER
from runtime.passes.rewrite import add_const, graphs_outer_first, is_pure, rewrite

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
            if outer.op.opdef is CONST
        }
    graph_outputs = {id(t) for t in graph.outputs}

    def visit(op):
        if op.opdef is PLACEHOLDER:
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
    if op.opdef is CONST or not is_pure(op) or op.opdef.kernel is None or not op.outputs:
        return False
    if not all(t.op.opdef is CONST for t in op.inputs):
        return False
    for t in op.outputs:
        if t.dtype.is_string or t.dtype.is_list or id(t) in graph_outputs and len(t.shape) > 0:
            return False
    return True


def _evaluate(op) -> list[np.ndarray] | None:
    """The op's output values as arrays, or None when folding must not happen."""
    args = [_runtime_value(t) for t in op.inputs]
    elements = _result_elements(op, args)
    if elements is None or elements > MAX_FOLDED_ELEMENTS:
        return None
    try:
        with np.errstate(all="raise"):
            result = op.opdef.kernel(*args, **op.kernel_attrs())
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


def _result_elements(op, args) -> int | None:
    """How many elements the op's kernel returns (an upper bound), known without running it; None
    when it is not known in advance."""
    if op.opdef is RANGE:  # the kernel ignores the `length` attr: the values decide
        return _range_length(*args)
    if op.opdef is WHERE_INDICES:  # one row of coordinates per true element
        return int(np.count_nonzero(args[0])) * np.ndim(args[0])
    if op.opdef is UNSTACK and _axis_size(args[0], op.attrs["axis"]) != len(op.outputs):
        return None  # the kernel makes one result per item of the axis, whatever `num` says
    try:
        inferred = op.opdef.infer(op.inputs, **op.attrs)
    except Exception:  # noqa: BLE001 - left to fail at run time
        return None
    total = 0
    for _, shape in inferred:
        if any(d is None for d in shape) and op.opdef is GETITEM:
            return _slice_elements(op, args)
        if any(d is None or d < 0 for d in shape):
            return None
        total += math.prod(shape)
    return total


def _axis_size(value, axis) -> int | None:
    shape = np.shape(value)
    return shape[axis] if type(axis) is int and -len(shape) <= axis < len(shape) else None


def _range_length(start, limit, delta) -> int | None:
    if any(np.ndim(v) for v in (start, limit, delta)):
        return None
    try:
        if all(np.asarray(v).dtype.kind in "biu" for v in (start, limit, delta)):
            return len(range(int(start), int(limit), int(delta)))
        return max(math.ceil((float(limit) - float(start)) / float(delta)), 0) + 1
    except (ValueError, OverflowError, ZeroDivisionError):
        return None


def _slice_elements(op, args) -> int | None:
    """The size of a StridedSlice result whose slice bounds are constants, measured on a
    zero-stride view (basic indexing makes views: nothing is allocated)."""
    spec = op.attrs["spec"]
    if any(item[0] == "tensor" for item in spec):
        return None  # integer index arrays: an advanced index would copy
    view = np.broadcast_to(np.zeros((), np.int8), np.shape(args[0]))
    try:
        return view[_index_tuple(spec, args[1:])].size
    except Exception:  # noqa: BLE001 - left to fail at run time
        return None
