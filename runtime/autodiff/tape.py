"""`rt.GradientTape`: records the ops that depend on watched values, then differentiates them.

    with rt.GradientTape() as tape:
        tape.watch(x)                 # variables are watched when read (watch_accessed_variables)
        y = f(x, w)
    dx, dw = tape.gradient(y, [x, w])

Eagerly the tape keeps the tensors it recorded; inside `rt.function` it records the graph's
ops while tracing, and `gradient` adds the gradient's ops to the graph. A tape records only
the ops of the graph (or the eager context) it was opened in: ops inside the branches and
bodies of `If`/`While` are differentiated by those ops' own rules. Memory: eagerly, every
recorded op's inputs and outputs stay alive until the tape is released (after `gradient`,
unless `persistent=True`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Literal

import numpy as np

from runtime import nest, traceback_filtering
from runtime.autodiff.backprop import Entry, accumulate, backprop, differentiable
from runtime.autodiff.control_flow_gradients import variables_read
from runtime.core import context
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, normalize
from runtime.errors import a_or_an
from runtime.ops import creation_ops
from runtime.ops.control_flow_ops import IF, WHILE, keep_branch_values, keep_history
from runtime.ops.registry import CONTROL_FLOW
from runtime.variables import READ, Variable


class GradientTape:
    """Records operations for reverse-mode differentiation (see the module docstring).

    A tape answers one `gradient` call unless `persistent=True`. With
    `watch_accessed_variables=False` only what `watch` names is watched.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._recording = False
        self._used = False
        self._graph = None
        self._scope: contextlib.AbstractContextManager | None = None
        self._entries: list[Entry] = []
        self._connected: dict[int, Tensor] = {}  # id -> tensors that depend on watched values
        self._watched: dict[int, Tensor] = {}  # id -> tensors named by `watch`
        self._variables: dict[int, Variable] = {}  # id -> watched variables
        self._reads: dict[int, list] = {}  # id(variable) -> tensors holding its reads

    # ---- recording ---------------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        self._graph = context.current_graph()
        self._scope = context.recording(self)
        self._scope.__enter__()
        self._recording = True
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        self._recording = False
        assert self._scope is not None  # (entered)
        self._scope.__exit__(*exc)
        return False

    def watch(self, value: Any) -> None:
        """Watches tensors and variables (a nested structure of them is fine): gradients with
        respect to them can be asked for, and the ops that use them are recorded."""
        for leaf in nest.flatten(value):
            if isinstance(leaf, Variable):
                self._variables[id(leaf)] = leaf
            elif isinstance(leaf, Tensor):
                self._watched[id(leaf)] = leaf
                if differentiable(leaf):
                    self._connected[id(leaf)] = leaf
            else:
                raise TypeError(f"tape.watch takes tensors and rt.Variables, not "
                                f"{type(leaf).__name__}.")

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops run inside the block are not recorded by this tape."""
        was, self._recording = self._recording, False
        try:
            yield
        finally:
            self._recording = was

    def reset(self) -> None:
        """Forgets everything recorded so far (what is watched stays watched)."""
        self._entries.clear()
        self._reads.clear()
        self._connected = {k: t for k, t in self._watched.items() if differentiable(t)}

    def watched_variables(self) -> tuple:
        """The variables this tape watches, in the order it first saw them."""
        return tuple(self._variables.values())

    def _watches(self, variable) -> bool:
        if id(variable) in self._variables:
            return True
        if self._watch_accessed and variable.trainable and variable.dtype.is_floating:
            self._variables[id(variable)] = variable
            return True
        return False

    def record(self, opdef, given, inputs, attrs, outputs, origin) -> None:
        """Called for every op that runs while the tape is open (see registry.apply); `given`
        are the inputs as passed: a watched eager tensor used while tracing became a Const."""
        if not self._recording or not outputs or _graph_of(outputs[0]) is not self._graph:
            return
        for passed, used in zip(given, inputs):
            if passed is not used and id(passed) in self._connected:
                self._add(Entry(None, [passed], {}, [used], origin, rule=_same_value))
        if opdef is READ:
            self.record_read(attrs["variable"], outputs[0])
            return
        connected = any(id(t) in self._connected for t in inputs)
        if CONTROL_FLOW in opdef.groups:  # its reads of variables watch them, as eager reads do
            for variable in variables_read(*outputs[0].op.subgraphs()):
                if self._watches(variable):  # (watches it, when it watches what is read)
                    connected = True
        if connected:
            if opdef is WHILE:  # what the loop's gradient needs, kept as it runs: new outputs,
                loop = outputs[0].op  # whose gradients (from a tape around this one) count too
                keep_history(loop)
                inputs, outputs = loop.inputs, loop.outputs
            elif opdef is IF:  # random numbers its branches draw, for its gradient
                keep_branch_values(outputs[0].op)
            self._add(Entry(opdef, list(inputs), attrs, list(outputs), origin))

    def record_read(self, variable, tensor) -> None:
        """`tensor` holds a read of `variable` (an eager read, or a graph's read op)."""
        if self._recording and _graph_of(tensor) is self._graph and self._watches(variable):
            self._reads.setdefault(id(variable), []).append(tensor)
            self._connected[id(tensor)] = tensor

    def record_custom(self, inputs, outputs, rule, origin, variables=()) -> None:
        """Records a function with a custom gradient as one entry (see rt.custom_gradient);
        `variables` are those it read, whose gradients its rule gives too."""
        if not self._recording:
            return
        watched = [self._watches(v) for v in variables]  # (watching each one it read)
        if any(id(t) in self._connected for t in inputs) or any(watched):
            self._add(Entry(None, list(inputs), {}, list(outputs), origin, rule=rule))

    def _add(self, entry: Entry) -> None:
        self._entries.append(entry)
        for t in entry.outputs:
            if differentiable(t):
                self._connected[id(t)] = t

    # ---- differentiating ---------------------------------------------------------------------
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Literal["none", "zero"] = "none") -> Any:
        """The gradients of `target` (a tensor, or a structure of tensors whose gradients add
        up) with respect to each of `sources` (tensors or variables, in any structure: the
        result has the same). `output_gradients` weights each target (default: ones). A source
        that nothing recorded connects to gets None, or zeros with
        `unconnected_gradients="zero"`."""
        try:
            return self._gradient(target, sources, output_gradients, unconnected_gradients)
        except Exception as e:  # noqa: BLE001 - re-raised, showing the user's frames
            raise traceback_filtering.filtered(e)

    def _gradient(self, target, sources, output_gradients, unconnected_gradients):
        if unconnected_gradients not in ("none", "zero"):
            raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got "
                             f"{unconnected_gradients!r}.")
        if self._used and not self._persistent:
            raise RuntimeError(
                "This GradientTape has already computed its gradients and released what it "
                "recorded: a tape answers one gradient call. Use rt.GradientTape(persistent=True)"
                " to call tape.gradient several times.")
        self._used = True
        targets = [_as_tensor(t, "target") for t in nest.flatten(target)]
        weights = nest.flatten(output_gradients) if output_gradients is not None else (
            [None] * len(targets))
        if len(weights) != len(targets):
            raise ValueError(f"output_gradients has {len(weights)} tensor"
                             f"{'' if len(weights) == 1 else 's'} for {len(targets)} "
                             f"target{'' if len(targets) == 1 else 's'}.")
        leaves = nest.flatten(sources)
        for i, source in enumerate(leaves):
            self._check_source(source, i)
        with self.stop_recording():
            results = self._gradients(targets, weights, leaves, unconnected_gradients)
        if not self._persistent:
            self.reset()
        return nest.pack_sequence_as(sources, results)

    def _gradients(self, targets, weights, sources, unconnected) -> list:
        seeds: dict = {}
        for t, w in zip(targets, weights):
            if id(t) in self._connected:
                accumulate(seeds, t, _ones(t) if w is None else w)
        variable_grads: dict = {}
        grads = backprop(self._entries, seeds, variable_grads)
        for key, reads in self._reads.items():
            for read in reads:
                found = grads.get(id(read))
                if found is not None:
                    accumulate(variable_grads, self._variables[key], found[1])
        results = []
        for source in sources:
            found = (variable_grads if isinstance(source, Variable) else grads).get(id(source))
            if found is not None:
                results.append(found[1])
            elif unconnected == "zero" and differentiable(source):
                results.append(creation_ops.zeros_like(
                    source.read_value() if isinstance(source, Variable) else source))
            else:
                results.append(None)
        return results

    def _check_source(self, source, index) -> None:
        if isinstance(source, Variable):
            return
        if not isinstance(source, Tensor):
            raise TypeError(f"tape.gradient: source #{index} is a {type(source).__name__}; "
                            "sources are tensors and rt.Variables.")
        if differentiable(source) and id(source) not in self._connected:
            raise ValueError(
                f"tape.gradient: source #{index} ({a_or_an(source.dtype.name)}"
                f"{list(source.shape)} "
                "tensor) is not watched by this tape, so nothing computed from it was recorded. "
                "Call tape.watch(x) inside the `with` block before computing with it "
                "(rt.Variables are watched automatically).")


def _ones(tensor):
    """The default weight of a target: ones (a constant when the shape is known, so the passes
    can fold the multiplications by it away)."""
    if type(tensor) is EagerTensor and not tensor.dtype.is_list:  # (no op to record: faster)
        return EagerTensor(normalize(np.ones_like(tensor._value)), tensor.dtype)
    if tensor.shape.is_fully_defined():
        return creation_ops.ones(tuple(tensor.shape), tensor.dtype)
    return creation_ops.ones_like(tensor)


def _same_value(entry, grads):
    return grads


def _graph_of(tensor):
    return tensor.op.graph if isinstance(tensor, SymbolicTensor) else None


def _as_tensor(value, what):
    if isinstance(value, Variable):
        return value.read_value()
    if isinstance(value, (EagerTensor, SymbolicTensor)):
        return value
    hint = ""
    if isinstance(value, (np.ndarray, np.generic)):
        hint = (" It is a numpy value: numpy's functions called outside rt.function compute on "
                "the tensors' values, which the tape does not see. Use runtime.numpy's functions "
                "(`import runtime.numpy as rnp`; rnp.sin(x)) or rt ops, or compute it inside an "
                "rt.function, where numpy's functions of tensors are recorded.")
    raise TypeError(f"tape.gradient: the {what} must be a tensor, got {type(value).__name__}."
                    + hint)
