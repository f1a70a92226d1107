"""Op definitions and how an op call runs: eagerly on numpy, or as a new node of a graph.

Each op type is defined once, by `define_op`: its name, shape/dtype inference, numpy kernel,
whether it is stateful, the groups that passes test (elementwise, reduction, ...), and optionally
a Python expression the executor emits instead of a kernel call. Later layers attach gradients
and export rules to the same `OpDef`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from runtime import context, dtypes
from runtime.errors import InvalidArgumentError, with_origin
from runtime.source_info import user_origin
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, normalize

# Named groups that graph passes test membership in.
ELEMENTWISE = "elementwise"
REDUCTION = "reduction"
CONTROL_FLOW = "control_flow"
READS_STATE = "reads_state"  # may be pruned, never merged, folded or moved
FRESH_OUTPUT = "fresh_output"  # the result is a new array, never a view of an input


@dataclass(eq=False)
class OpDef:
    """Everything about one op type.

    infer(inputs, **attrs) -> [(dtype, shape), ...] for the outputs (inputs are tensors, shapes
    may hold None); kernel(*numpy_values, **attrs) -> value (or a tuple for several outputs);
    emit(input_names, attrs) -> a Python expression string, when the op has one that is faster
    than calling the kernel (e.g. `a + b` on numpy scalars).
    """

    name: str
    infer: Callable
    kernel: Callable | None
    stateful: bool = False
    groups: frozenset = field(default_factory=frozenset)
    emit: Callable | None = None
    tuple_outputs: bool = False  # the kernel returns a tuple (ops with a variable output count)
    gradient: Callable | None = None  # filled by the autodiff layer

    def __repr__(self) -> str:
        return f"OpDef({self.name})"


REGISTRY: dict[str, OpDef] = {}


def define_op(
    name, *, infer, kernel, stateful=False, groups=(), emit=None, tuple_outputs=False
) -> OpDef:
    """Defines and registers an op type."""
    if name in REGISTRY:
        raise ValueError(f"Op {name!r} is defined twice.")
    opdef = OpDef(name, infer, kernel, stateful, frozenset(groups), emit, tuple_outputs)
    REGISTRY[name] = opdef
    return opdef


def _no_kernel(*_, **__):
    raise RuntimeError("This op has no kernel; the executor handles it.")


PLACEHOLDER = define_op("Placeholder", infer=lambda inputs, **a: [], kernel=_no_kernel)
CONST = define_op(
    "Const",
    infer=None,  # set when the op is created: the value decides
    kernel=lambda *, value: value,
)


def constant_in_graph(graph, tensor: EagerTensor) -> SymbolicTensor:
    """A Const op in `graph` holding the value of an eager tensor."""
    value = tensor._value
    array = (
        value if isinstance(value, np.ndarray) else np.asarray(value, dtype=tensor.dtype.np_dtype)
    )
    op = graph.create_op(CONST, [], {"value": array}, [(tensor.dtype, array.shape)], user_origin(2))
    return op.outputs[0]


def _graph_input(graph, t: Tensor) -> SymbolicTensor:
    if isinstance(t, SymbolicTensor):
        return t
    return constant_in_graph(graph, t)


def apply(opdef: OpDef, inputs, attrs=None):
    """Runs `opdef` on tensors: eagerly, or by adding an op to the graph being built.

    Returns one tensor, or a list when the op has several outputs.
    """
    attrs = attrs or {}
    graph = context.current_graph()
    if graph is None:
        for t in inputs:
            if not isinstance(t, EagerTensor):
                raise ValueError(
                    f"{opdef.name} got the symbolic tensor {t.name} outside of the function that "
                    "created it; return it from the function instead of storing it."
                )
        try:
            result = opdef.kernel(*[t._value for t in inputs], **attrs)
        except (IndexError, ValueError, TypeError) as e:
            raise InvalidArgumentError(
                with_origin(f"{opdef.name} failed: {e}", user_origin(2))
            ) from None
        if isinstance(result, tuple):
            return [_wrap(r) for r in result]
        return _wrap(result)
    inputs = [_graph_input(graph, t) for t in inputs]
    origin = user_origin(2)
    try:
        specs = opdef.infer(inputs, **attrs)
    except (InvalidArgumentError, TypeError, ValueError) as e:
        raise type(e)(with_origin(f"{opdef.name}: {e}", origin)) from None
    op = graph.create_op(opdef, inputs, attrs, specs, origin)
    return op.outputs if len(op.outputs) != 1 else op.outputs[0]


def _wrap(value) -> EagerTensor:
    if isinstance(value, bytes):
        return EagerTensor(value, dtypes.string)
    value = normalize(value)
    return EagerTensor(value, dtypes.from_numpy(value.dtype))
