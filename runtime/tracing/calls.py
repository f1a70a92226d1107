"""One meaning for "call a traced function", whatever holds the graph (an `rt.function`'s trace,
a loaded function, a concrete function) and wherever the call happens:

- while another function is traced: the callee's graph (as traced, for this signature) joins
  the caller's graph, inlined (runtime/tracing/inline.py): one graph, optimized across the boundary,
  run by the caller's executor, saved and exported as one;
- eagerly, under a gradient tape that watches what the call reads: one recorded operation
  whose gradient is the gradient of the callee's graph (runtime/autodiff/function_calls.py);
- otherwise: the compiled graph runs.
"""

from __future__ import annotations

import numpy as np

from runtime import nest
from runtime.autodiff import function_calls
from runtime.core import context
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import with_origin
from runtime.ops.array_ops import identity
from runtime.ops.list_ops import ListValue
from runtime.tensor_list import TensorList
from runtime.tracing.inline import take_in


def call_concrete(concrete, leaves):
    """Calls `concrete` on `leaves`, the tensor leaves of its arguments in `nest.flatten` order
    (tensors, numpy values), and returns its outputs in the structure the function returned."""
    if context.current_graph() is not None:
        inputs = [_graph_tensor(v) for v in leaves]
        outputs = take_in(concrete, inputs)
        return _pack(concrete.structured_outputs,
                     [TensorList(t) if t.dtype.is_list else t for t in outputs])
    tensors = [v if type(v) is EagerTensor else convert_to_tensor(v) for v in leaves]
    if context.recording_tapes():
        outputs = function_calls.call_recorded(concrete, tensors, _run)
        if outputs is not None:
            return _pack(concrete.structured_outputs,
                         [_items(concrete, t) if t.dtype.is_list else t for t in outputs])
    return concrete.call(*[t._value for t in tensors])


def _run(concrete, tensors) -> list:
    """The outputs of a call of one of the graphs a gradient runs (eager tensors: list values
    stay list values), recorded by the tapes that watch its inputs."""
    if any(tape._recording for tape in context.recording_tapes()):
        outputs = function_calls.call_recorded(concrete, tensors, _run)
        if outputs is not None:
            return outputs
    values = concrete.run_values([t._value for t in tensors])
    return [_eager(v, t.dtype) for v, t in zip(values, concrete.graph.outputs)]


def _eager(value, dtype) -> EagerTensor:
    if type(value) is np.ndarray and not value.flags.writeable:
        value = value.copy()  # a constant of the graph: the same array on every call
    tensor = EagerTensor.__new__(EagerTensor)
    tensor._value, tensor.dtype = value, dtype
    return tensor


def _graph_tensor(value) -> SymbolicTensor:
    if isinstance(value, SymbolicTensor):
        return value
    return identity(convert_to_tensor(value))  # (a tape watching it sees the link)


def _pack(structure, outputs):
    """`structure` with its symbolic tensors replaced, in order, by `outputs`."""
    if isinstance(structure, SymbolicTensor):
        return outputs[0]
    found = iter(outputs)
    leaves = [next(found) if isinstance(v, SymbolicTensor) else v
              for v in nest.flatten(structure)]
    return nest.pack_sequence_as(structure, leaves)


def _items(concrete, tensor) -> list:
    """A list output of a recorded call as the Python list of its items (eager tensors) that
    the caller gets, with the tapes told that each item is part of the list (an item's
    gradient is the list's gradient at its place; items without one get zeros)."""
    if tensor.dtype.element.is_list:
        raise NotImplementedError(with_origin(
            f"'{concrete.name}' returns a list of lists built by a graph loop, and a gradient "
            "tape records the call: its gradient cannot go through the inner lists. Return "
            "rt.stack(...) of each inner list instead.", user_origin()))
    return _unpacked(tensor)


def _unpacked(tensor) -> list:
    """The items of an eager list tensor, recorded by the tapes as parts of it."""
    items = [_eager(v, tensor.dtype.element) for v in tensor._value.items()]

    def rule(entry, grads):
        return [_packed([g if g is not None else _eager(np.zeros_like(item._value), item.dtype)
                         for g, item in zip(grads, items)], tensor.dtype)]

    _record([tensor], items, rule)
    return items


def _packed(items, dtype) -> EagerTensor:
    """An eager list tensor of `items`, recorded by the tapes as made of them (the gradient of
    a list: its items' gradients, for the tapes around a gradient: higher orders)."""
    packed = EagerTensor.__new__(EagerTensor)
    packed._value, packed.dtype = ListValue([t._value for t in items], len(items)), dtype
    _record(items, [packed], lambda entry, grads: [None] * len(items) if grads[0] is None
            else _unpacked(grads[0]))
    return packed


def _record(inputs, outputs, rule) -> None:
    origin = user_origin()
    for tape in context.recording_tapes():
        tape.record_custom(inputs, outputs, rule, origin)
