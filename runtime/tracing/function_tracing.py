"""Tracing an `rt.function` for a new signature key: its Python function (converted by
autograph, once) run on placeholders into a graph that becomes a ConcreteFunction, added to its
trace cache; relaxed and checked against its retrace policy first, and traced a second time
when the first trace created variables (the second must create none)."""

from __future__ import annotations

import logging
import weakref

import autograph
from runtime import nest
from runtime.core import context
from runtime.core.source_info import user_origin
from runtime.core.tensor import SymbolicTensor
from runtime.errors import with_origin
from runtime.tracing import outside_containers
from runtime.tracing.capture_guards import outside_arrays
from runtime.tracing.retrace_policy import RetracePolicy
from runtime.tracing.signature import TensorSpec, is_tensor_leaf
from runtime.tracing.trace import spec_of, trace

logger = logging.getLogger("runtime.function")  # (named after the public module)


class FunctionTracer:
    """Makes the traces of the rt.function `name` of `fn`, with its `options`, `binder`
    (ArgumentBinder), `traces` (TraceCache) and `guards` (FunctionGuards). It keeps no
    reference to the Function: each trace is given it."""

    def __init__(self, fn, name: str, options, binder, traces, guards):
        self._fn, self._name, self._options = fn, name, options
        self._binder, self._traces, self._guards = binder, traces, guards
        self._policy = RetracePolicy(name, options.max_traces, options.on_retrace)
        self._converted = None
        self._variables_created = False

    def python_function(self):
        """The Python function as traced: converted by autograph (unless autograph=False)."""
        if not self._options.autograph:
            return self._fn
        if self._converted is None:
            self._converted = autograph.to_graph(self._fn)
        return self._converted

    def run_python(self, arguments):
        """The Python function (converted) called with bound `arguments`."""
        fn = self.python_function()
        return fn(*self._binder.call_args(arguments), **self._binder.call_kwargs(arguments))

    def trace(self, function, arguments, key, exact=False):
        """Traces a new concrete function of `function` (the Function) for `key` (the caller
        holds its lock); `exact`: for a caller being traced, which takes in the graph (these
        shapes exactly, compiled only when it is called itself).

        A relaxed trace (the dims that changed between calls made unknown) in which the Python
        code reads one of its unknown dims (`x.shape[0]`, `len(x)`) would see None where plain
        Python sees a number: it is dropped, and the function traces each shape exactly from
        then on."""
        call = None if exact else arguments  # (a caller's trace passes its graph's tensors)
        input_signature = self._options.input_signature
        if input_signature is not None:
            # Trace with the signature's specs (unknown dims stay unknown), not the call's shapes.
            arguments = [(name, spec) for (name, _), spec in zip(arguments, input_signature)]
        elif not exact:
            relaxed_key, relaxed_arguments = self._traces.relaxed(key, arguments)
            if relaxed_key != key:
                reads: list = []
                try:
                    concrete = self._trace_key(function, relaxed_arguments, relaxed_key, exact,
                                               reads, call)
                except Exception:
                    if not reads:
                        raise
                if not reads:
                    return concrete
                self._traces.stop_relaxing(reads[0])
        return self._trace_key(function, arguments, key, exact, call=call)

    def _trace_key(self, function, arguments, key, exact, relaxed_reads=None, call=None):
        """The new concrete function for `key`, traced with `arguments` and added to the trace
        cache. For a relaxed `key`, `relaxed_reads` gets where the code read an unknown dim,
        and a trace with such reads is not added. `call`: the call's own arguments (values
        an outside list the function appends to gets: runtime/tracing/outside_containers.py)."""
        if not exact:  # (traces for callers are part of their traces, not retraces)
            self._policy.check(self._traces.traced_keys, key, arguments, self._guards)
        arguments = [(name, nest.map_with_paths(lambda v, _: spec_of(v), value, name))
                     for name, value in arguments]  # (specs: keep no tensor alive)
        reads = [] if relaxed_reads is None else relaxed_reads
        containers = outside_containers.Snapshot(self._fn)
        # (a tape open around the call records the call)
        with context.tapes_paused(), context.watching_dim_reads(reads):
            concrete, created, adopted = self._trace_once(function, arguments, exact, containers)
            if created:
                if self._variables_created or self._traces.traced_keys:
                    self._raise_variable_creation(created)
                self._variables_created = True
                containers.take_back(concrete.traced_graph)  # (the second must create none)
                concrete, created, adopted = self._trace_once(function, arguments, exact,
                                                              containers)
                if created:
                    self._raise_variable_creation(created)
        if reads:
            concrete.unknown_dim_read = reads[0]
            if relaxed_reads is not None:
                containers.take_back(concrete.traced_graph)
                return concrete  # (the caller drops it)
        for name in containers.rebound():
            logger.warning(
                "rt.function '%s' assigned the global '%s' while it was traced: a graph runs no "
                "Python, so '%s' changes only when the function is traced, not at every call as "
                "in plain Python (and the graph keeps the value it read then). Keep a count in "
                "an rt.Variable (`v.assign_add(1)`), or return the value.", self._name, name, name)
        if containers.containers:
            self._values_for_containers(concrete, containers, call)
        key = self._guards.traced_key(key, adopted)
        concrete.retrace = _retracer(function, arguments)
        self._traces.add(key, arguments, concrete)
        return concrete

    def _values_for_containers(self, concrete, containers, call) -> None:
        """The values for the graph values a trace added to outside containers: from the call
        that traced it, once it ran (`concrete.pending_outside`); none while a caller is traced
        (refused) or for specs (taken out, with a warning)."""
        graph = concrete.traced_graph
        leaves = None if call is None else _tensor_leaves(call)
        if leaves is not None and not any(isinstance(v, TensorSpec) for v in leaves):
            containers.check(graph, user_origin())
            concrete.pending_outside = outside_containers.Pending(
                containers, graph, self._name, self._options.numpy_results, user_origin())
            return
        added = containers.added(graph)
        if not added:
            return
        containers.take_back(graph)
        if leaves is None:
            raise outside_containers.refusal(
                added[0][0], "it was made while a caller of the function was traced.",
                added[0][3].op.origin if isinstance(added[0][3], SymbolicTensor)
                else user_origin())
        logger.warning(
            "rt.function '%s' added graph values to %s while it was traced for specs, with no "
            "call to compute them from: they were taken out.", self._name,
            ", ".join(sorted({f"'{name}'" for name, *_ in added})))

    def _trace_once(self, function, arguments, defer=False, containers=None):
        """(concrete function, variables created, guarded values taken from callees); a
        failed trace takes out what it added to the outside `containers`."""
        binder, options = self._binder, self._options
        with context.tracing_function(function) as adopted:
            concrete, created = trace(
                self.python_function(), self._name, arguments,
                lambda traced: (binder.call_args(traced), binder.call_kwargs(traced)),
                options.optimize, options.jit_compile, defer,
                failed=None if containers is None else containers.take_back,
                outside_arrays=lambda: outside_arrays(self._fn))
        return concrete, created, adopted

    def _raise_variable_creation(self, created):
        where = getattr(created[0], "_origin", None)
        raise ValueError(
            with_origin(
                f"rt.function '{self._name}' creates a new rt.Variable every time it is traced. "
                "Run eagerly, this Python code would make a fresh variable on every call, but a "
                "graph can only hold the variable made on its first trace. Create the variable "
                "outside the function, or only once (e.g. `if self.v is None: self.v = "
                "rt.Variable(...)`).",
                where,
            )
        )


def _retracer(function, arguments):
    """A function of the flat tensor inputs of the trace of `arguments` that runs the Python
    function of `function` on them (in the graph being built) and returns what it returns."""
    function = weakref.ref(function)  # (no cycle)

    def retrace(tensors):
        found = iter(tensors)
        traced = [(name, nest.map_with_paths(
            lambda v, _: next(found) if is_tensor_leaf(v) else v, value, name))
            for name, value in arguments]
        this = function()
        with context.tracing_function(this):
            return this._tracer.run_python(traced)

    return retrace


def _tensor_leaves(arguments) -> list:
    """The tensor leaves of a call's bound `arguments` (in the order of a trace's inputs)."""
    return [v for v in nest.flatten([v for _, v in arguments]) if is_tensor_leaf(v)]
