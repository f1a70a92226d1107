"""Op definitions and how an op call runs: eagerly on numpy, or as a new node of a graph.

Each op type is defined once, by `define_op`: its name, shape/dtype inference, numpy kernel,
whether it is stateful, the groups that passes test (elementwise, reduction, ...), optionally a
Python expression the executor writes instead of a kernel call, a `verify` check of attrs
that inference does not look at (sub-graphs), and for an elementwise op its `Elementwise`
declaration (the numpy ufunc it is, its ONNX op). Everything else the project knows about an op
is a rule of one of the `RULE_KINDS`, registered against the OpDef object (next to the op, or in
the module of that rule kind, which imports the op objects): `register_rule(kind, OP)(rule)`,
or `lacks(kind, reason, OP, ...)` for an op that has no such rule. A rule kind may also derive
the rule of an op that registers none from its declaration (`derive_rules`): e.g. every op
declared as a ufunc runs as `np.<ufunc>` in numba, so only the exceptions are written out.
tests/runtime/test_op_rules.py checks that every op has every rule kind or says why not.
runtime/README.md shows how to add an op and a rule kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from runtime.core import context, dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, normalize
from runtime.errors import InvalidArgumentError, argument_error, located_kind, with_origin

# Named groups that graph passes test membership in.
ELEMENTWISE = "elementwise"
REDUCTION = "reduction"
CONTROL_FLOW = "control_flow"
READS_STATE = "reads_state"  # may be pruned, never merged, folded or moved
FRESH_OUTPUT = "fresh_output"  # the result is a new array, never a view of an input

# Rule kinds: what else is known per op, and where the rules of each kind are registered.
FUSED = "fused"  # ufunc steps that run the op inside a FusedElementwise kernel (ops/fused_ops.py)
KNOWN_VALUE = "known_value"  # the op's value while tracing, from what is static (ops/shapes.py)
ONNX = "onnx"  # the ONNX nodes of the op (onnx/rules.py)
GRADIENT = "gradient"  # reverse-mode rule (autodiff/, and next to each op)
NUMBA = "numba"  # the op as an expression numba compiles (executor/numba_rules.py)
JAX = "jax"  # the op in jax.numpy / jax.lax for XLA (executor/jax_backend.py)
RULE_KINDS = {
    FUSED: "ELEMENTWISE ops: steps (ufunc name, operands) with the kernel's exact ufuncs",
    KNOWN_VALUE: "optional: rule(op) -> what tracing knows of the op's integer value: a tuple "
                 "(None items unknown) for a vector, an int for a scalar, or None",
    ONNX: "rule(builder, op, input_names) -> output names",
    GRADIENT: "rule(op, output_grads) -> input grads (None where there is none)",
    NUMBA: "rule(op, input_names, typed) -> a Python expression numba compiles",
    JAX: "rule(op, *input_values) -> output value(s), in jax.numpy / jax.lax (numpy for values "
         "known while tracing)",
}


@dataclass(frozen=True)
class Elementwise:
    """What an elementwise op computes, as data that rule kinds derive their rules from.

    `accepts`: the operand dtypes (the operands of one op have one dtype). `ufunc`: numpy's name
    of the ufunc the op is (None when it is no single ufunc): its kernel `np.<ufunc>` and its
    one FUSED step, `np.<ufunc>` in numba, `jnp.<ufunc>` in JAX. `onnx`: the ONNX op that
    computes the same on every dtype of `accepts` (None when none does: its ONNX rule is written
    out). `exact`: False for a math function that is not correctly rounded, whose last bits
    differ between math libraries (numpy's, LLVM's in numba, XLA's).
    """

    accepts: frozenset
    ufunc: str | None = None
    onnx: str | None = None
    exact: bool = True


@dataclass(eq=False)
class OpDef:
    """Everything about one op type.

    infer(inputs, **attrs) -> [(dtype, shape), ...] for the outputs (inputs are tensors, shapes
    may hold None); kernel(*numpy_values, **attrs) -> value (or a tuple for several outputs);
    expression(input_names, attrs) -> a Python expression string, when the op has one that is
    faster than calling the kernel (e.g. `a + b` on numpy scalars), which may use the names of
    `expression_globals` (bound as globals of the generated code); `typed_expression(input_names,
    attrs, inputs)`, one for these input tensors (their static dtypes and shapes), or None (not
    for them); verify(inputs, attrs, specs)
    raises ValueError when attrs that inference does not read (sub-graphs) do not fit the op.
    `elementwise` declares what an elementwise op computes (or is None). `rules` maps a rule
    kind to the op's rule; `lacking` maps a kind to why the op has none.
    """

    name: str
    infer: Callable
    kernel: Callable | None
    stateful: bool = False
    groups: frozenset = field(default_factory=frozenset)
    expression: Callable | None = None
    expression_globals: dict = field(default_factory=dict)
    typed_expression: Callable | None = None
    tuple_outputs: bool = False  # the kernel returns a tuple (ops with a variable output count)
    verify: Callable | None = None
    elementwise: Elementwise | None = None
    rules: dict = field(default_factory=dict)
    lacking: dict = field(default_factory=dict)

    def rule(self, kind: str):
        """The op's rule of `kind`: the one registered, else the one the kind derives from the
        op's declaration (`derive_rules`), or None."""
        rule = self.rules.get(kind)
        if rule is None and kind in DERIVED_RULES and kind not in self.lacking:
            rule = DERIVED_RULES[kind](self)
        return rule

    def __repr__(self) -> str:
        return f"OpDef({self.name})"


REGISTRY: dict[str, OpDef] = {}
# kind -> derive(opdef) -> the rule of `kind` that the op's declaration gives, or None.
DERIVED_RULES: dict[str, Callable] = {}


def define_op(
    name, *, infer, kernel, stateful=False, groups=(), expression=None, expression_globals=None,
    tuple_outputs=False, verify=None, elementwise=None, rules=None, typed_expression=None,
) -> OpDef:
    """Defines and registers an op type; `rules` maps rule kinds to the op's rules."""
    if name in REGISTRY:
        raise argument_error(ValueError, f"Op {name!r} is defined twice.")
    opdef = OpDef(name, infer, kernel, stateful, frozenset(groups), expression,
                  dict(expression_globals or {}), typed_expression, tuple_outputs, verify,
                  elementwise)
    for kind, rule in (rules or {}).items():
        register_rule(kind, opdef)(rule)
    REGISTRY[name] = opdef
    return opdef


def register_rule(kind: str, *opdefs: OpDef):
    """Decorator: the decorated function (or value) is the `kind` rule of each of `opdefs`."""
    if kind not in RULE_KINDS:
        raise argument_error(
            ValueError, f"unknown rule kind {kind!r}; the kinds are {sorted(RULE_KINDS)}."
        )

    def register(rule):
        for opdef in opdefs:
            if kind in opdef.rules or kind in opdef.lacking:
                raise argument_error(
                    ValueError, f"{opdef.name} already has a {kind} rule (or says it lacks one)."
                )
            opdef.rules[kind] = rule
        return rule

    return register


def register_rules(kind: str, table: dict) -> None:
    """Registers `table[opdef]` as the `kind` rule of each `opdef` of the table."""
    for opdef, rule in table.items():
        register_rule(kind, opdef)(rule)


def derive_rules(kind: str, derive: Callable) -> None:
    """`derive(opdef)` gives the `kind` rule of every op (defined now or later) that registers
    none and does not lack one: the kind's generic rule, built from the op's declaration
    (`opdef.elementwise`), or None when the declaration does not give one. Called once per kind,
    by the module of the kind."""
    if kind not in RULE_KINDS:
        raise argument_error(
            ValueError, f"unknown rule kind {kind!r}; the kinds are {sorted(RULE_KINDS)}."
        )
    if kind in DERIVED_RULES:
        raise argument_error(ValueError, f"the {kind} rules are derived twice.")
    DERIVED_RULES[kind] = derive


def lacks(kind: str, reason: str, *opdefs: OpDef) -> None:
    """Records that each of `opdefs` has no `kind` rule, and why."""
    if kind not in RULE_KINDS:
        raise argument_error(
            ValueError, f"unknown rule kind {kind!r}; the kinds are {sorted(RULE_KINDS)}."
        )
    for opdef in opdefs:
        if kind in opdef.rules or kind in opdef.lacking:
            raise argument_error(
                ValueError, f"{opdef.name} already has a {kind} rule (or says it lacks one)."
            )
        opdef.lacking[kind] = reason


def _no_kernel(*_, **__):
    raise RuntimeError("This op has no kernel; the executor handles it.")


PLACEHOLDER = define_op("Placeholder", infer=lambda inputs, **a: [], kernel=_no_kernel)
CONST = define_op(
    "Const",
    infer=None,  # set when the op is created: the value decides
    kernel=lambda *, value: value,
)


lacks(GRADIENT, "no inputs: nothing to differentiate", PLACEHOLDER, CONST)


MAX_KNOWN_ITEMS = 64  # a shape has at most 64 dims (numpy's limit)


@register_rule(KNOWN_VALUE, CONST)
def _known_constant(op):
    value = op.attrs["value"]
    if value.dtype.kind not in "biu" or value.size > MAX_KNOWN_ITEMS:
        return None  # not a shape: nothing is read from it
    return int(value) if value.ndim == 0 else tuple(int(v) for v in np.ravel(value))


def constant_in_graph(graph, tensor: EagerTensor) -> SymbolicTensor:
    """A Const op in `graph` holding the value of an eager tensor."""
    value = tensor._value
    array = (
        value if isinstance(value, np.ndarray) else np.asarray(value, dtype=tensor.dtype.np_dtype)
    )
    op = graph.create_op(CONST, [], {"value": array}, [(tensor.dtype, array.shape)], user_origin(2))
    return op.outputs[0]


def _graph_input(graph, t: EagerTensor | SymbolicTensor) -> SymbolicTensor:
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
                raise argument_error(
                    ValueError,
                    f"{opdef.name} got the symbolic tensor {t.name} outside of the function that "
                    "created it; return it from the function instead of storing it.",
                )
        kernel = opdef.kernel
        if kernel is None:  # (If, While: they exist in graphs only)
            raise argument_error(InvalidArgumentError, with_origin(
                f"{opdef.name} runs only in a graph; use rt.cond / rt.while_loop eagerly.",
                user_origin(2)))
        try:
            result = kernel(*[t._value for t in inputs], **attrs)
        except (IndexError, ValueError, TypeError) as e:  # (also the kind Python raised)
            raise argument_error(
                located_kind(e), with_origin(f"{opdef.name} failed: {e}", user_origin(2))
            ) from None
        outputs = [_wrap(r) for r in result] if isinstance(result, tuple) else [_wrap(result)]
        if context.recording_tapes():
            record_on_tapes(opdef, inputs, inputs, attrs, outputs, user_origin(2))
        return outputs if isinstance(result, tuple) else outputs[0]
    given, inputs = inputs, [_graph_input(graph, t) for t in inputs]
    origin = user_origin(2)
    try:
        specs = opdef.infer(inputs, **attrs)
    except (InvalidArgumentError, TypeError, ValueError) as e:
        raise argument_error(type(e), with_origin(f"{opdef.name}: {e}", origin)) from None
    op = graph.create_op(opdef, inputs, attrs, specs, origin)
    result = list(op.outputs) if len(op.outputs) != 1 else op.outputs[0]
    if context.recording_tapes():  # a tape may add outputs (a While's history)
        record_on_tapes(opdef, given, inputs, attrs, list(op.outputs), origin)
    return result


def record_on_tapes(opdef, given, inputs, attrs, outputs, origin) -> None:
    """Tells the open gradient tapes about an op; `given` are its inputs as passed (an eager
    tensor among them became the Const input in `inputs` while tracing)."""
    for tape in list(context.recording_tapes()):
        tape.record(opdef, given, inputs, attrs, outputs, origin)


def _wrap(value) -> EagerTensor:
    if isinstance(value, bytes):
        return EagerTensor(value, dtypes.string)
    value = normalize(value)
    return EagerTensor(value, dtypes.from_numpy(value.dtype))
