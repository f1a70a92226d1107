"""`ConcreteFunction`: one traced graph for one input signature, compiled to Python over numpy,
and how a call's outputs are packed into the structure the Python function returned."""

from __future__ import annotations

import inspect
import itertools
import threading

import numpy as np

from runtime import nest
from runtime.core.dtypes import PYTHON_NUMBER_TYPES
from runtime.core.generated_code import FunctionBody, compile_function
from runtime.core.graph import Graph
from runtime.core.tensor import EagerTensor, SymbolicTensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import Error, NoLoweringError, with_origin
from runtime.executor import registry as executors
from runtime.executor.interpreter import locate_error
from runtime.ops.registry import FRESH_OUTPUT
from runtime.passes import optimize_graph, run_passes
from runtime.tensor_list import MIXED
from runtime.tracing import calls
from runtime.tracing.signature import TensorSpec, is_tensor_leaf, leaf_str


class ConcreteFunction:
    """One traced graph for one input signature, compiled to Python over numpy.

    `graph` is what runs (after the optimizing passes); `traced_graph` is the graph as traced
    (only pruned), kept for inspection (for a loaded function: the graph as saved);
    `optimized` says whether the optimizing passes ran.
    """

    def __init__(
        self,
        graph: Graph,
        name: str,
        arg_names,
        arg_specs,
        structured_outputs,
        traced_graph: Graph | None = None,
        optimized: bool | None = None,
        jit_compile=None,
        deferred: bool = False,
        python_numbers: tuple | None = None,
        shared_arrays: frozenset = frozenset(),
    ):
        """With `deferred`, `graph` is the traced graph, optimized (when `optimized`) and
        compiled at the first use of `graph`, `generated` or `call`: a trace that callers only
        inline (runtime/tracing/inline.py) never is. `shared_arrays`: the ids of the numpy
        arrays among the outputs that are the outside arrays the function returned as they are
        (every other one is copied at each call)."""
        self.traced_graph = traced_graph if traced_graph is not None else graph
        self.optimized = graph is not self.traced_graph if optimized is None else optimized
        self.saved_graph: Graph | None = None  # the graph it was loaded from (rt.saved)
        # For an rt.function's trace: runs its Python function on new input tensors, in the
        # graph being built (for a callee whose custom gradients only a new trace can give).
        self.retrace = None
        # Where the traced Python code read a dim the trace did not know (an Origin), or None:
        # such a trace serves only the shapes it was traced with.
        self.unknown_dim_read = None
        # (tensor input index, Origin) of each in-place operator (`x *= 2`) the code applied to
        # an argument: a call with a numpy array there is refused (runtime/ops/overloads.py).
        self.in_place_arguments: tuple = ()
        # What its trace added to outside containers, given values by the first call
        # (runtime/tracing/outside_containers.py: Pending), or None.
        self.pending_outside = None
        # Called with this concrete function when `call` is replaced (an rt.function's entry
        # calls it directly: runtime/tracing/call_entry.py), or None.
        self.on_new_call = None
        self._numpy_call = None  # (see numpy_call)
        self.name = name
        self.arg_names = arg_names  # the parameter names, in order
        self.structured_input_signature = arg_specs
        self.structured_outputs = structured_outputs
        # Which flat outputs stand for Python numbers (weak: a counter a loop carries from
        # `n = 0`; `python_numbers`, else read from the outputs): numpy_results gives them as
        # Python numbers, as plain Python would.
        self.python_number_outputs = python_numbers if python_numbers is not None else tuple(
            isinstance(leaf, SymbolicTensor) and leaf.weak
            for leaf in nest.flatten(structured_outputs))
        # Whether the outputs are a tuple or list of number tensors (numpy_results packs those
        # directly: runtime/tracing/call_paths.py)
        self.flat_number_outputs = type(structured_outputs) in (tuple, list) and all(
            isinstance(leaf, SymbolicTensor) and not leaf.dtype.is_list
            and not leaf.dtype.is_string for leaf in structured_outputs)
        self.jit_compile = jit_compile
        self._copy_read_only = jit_compile != "xla"  # XLA's results are read-only by design
        self._pack = _make_packer(structured_outputs, self._copy_read_only, shared_arrays)
        self._tensor_specs = [s for s in nest.flatten(arg_specs) if isinstance(s, TensorSpec)]
        if deferred:
            self._deferred = threading.Lock()
        else:
            self._compile(graph)

    def __getattr__(self, name):
        """Compiles a deferred trace at the first use of what compiling makes."""
        lock = self.__dict__.get("_deferred")
        if lock is None or name not in ("graph", "generated", "call", "_run"):
            raise AttributeError(f"'ConcreteFunction' object has no attribute '{name}'")
        with lock:
            if "graph" not in self.__dict__:
                traced = self.traced_graph
                graph = traced.copy() if self.optimized else traced
                if self.optimized:
                    optimize_graph(graph, fuse=executors.fusion(self.jit_compile))
                self._compile(graph)
                self.structured_outputs = translate_outputs(self.structured_outputs, traced,
                                                            graph)
        return self.__dict__[name]

    def _compile(self, graph) -> None:
        run, self.generated = executors.compile_graph(self.jit_compile, graph, self._set_run)
        self._set_run(run)
        self.graph = graph

    @property
    def executor(self) -> str:
        """Where the graph runs: the executor of `jit_compile`, and for "auto" which one now
        and why (it stays on the default executor until numba computes it faster and bit for
        bit)."""
        return executors.place(self.jit_compile, self.graph)

    def _set_run(self, run) -> None:
        """Runs the graph with `run` (a function of the input values -> tuple of outputs) from
        now on; `call` runs it and packs its outputs."""
        self._run = run
        self.call = _make_caller(run, self.structured_outputs, self._pack, self._locate,
                                 self._copy_read_only)
        if self.on_new_call is not None:
            self.on_new_call(self)

    def numpy_call(self):
        """A caller like `call` whose results are numpy values as numpy_results gives them (those
        that stand for Python numbers as Python numbers), or None where the outputs are not one
        number tensor or a tuple or list of them."""
        run, made = self._run, self._numpy_call  # (made: (the run it calls, the caller))
        if made is None or made[0] is not run:  # (none yet, or tiering swapped `run` since)
            made = self._numpy_call = (run, _make_caller(
                run, self.structured_outputs, self._pack, self._locate, self._copy_read_only,
                self.python_number_outputs))
        return made[1]

    def derived(self, traced: Graph) -> ConcreteFunction:
        """A concrete function of `traced` (a graph of flat inputs and outputs made from this
        one's: the halves of its gradient), optimized like this one and compiled for the same
        executor, or for the default one where that executor cannot compile it."""
        traced.custom_gradients = list(self.traced_graph.custom_gradients)  # (see take_in)
        optimized = run_passes(traced, self.optimized, fuse=executors.fusion(self.jit_compile))
        specs = [TensorSpec(t.shape, t.dtype) for t in traced.inputs]
        names = [t.op.name for t in traced.inputs]

        def compiled(jit_compile):
            return ConcreteFunction(optimized, traced.name, names, specs,
                                    list(optimized.outputs), traced_graph=traced,
                                    optimized=self.optimized, jit_compile=jit_compile)

        if self.jit_compile in (None, "auto"):
            return compiled(self.jit_compile)
        try:
            return compiled(self.jit_compile)
        except NoLoweringError:  # an op that executor lacks (staged lists: a loop's history)
            return compiled(None)

    def run_values(self, values) -> list:
        """The graph's output values (numpy values; list values as they are) for the input
        values, with errors located at the user's line."""
        try:
            return self._run(*values)
        except Exception as e:  # every failure is raised again at the user's line
            raise self._locate(e) from None

    def _locate(self, error: Exception) -> Exception:
        if getattr(error, "_rt_located", False):
            return error
        tb, op = error.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.generated.filename:
                op = self.generated.line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        if op is None:
            return error
        if not isinstance(error, (Error, IndexError, ValueError, TypeError, ArithmeticError)):
            return error
        return locate_error(error, op)

    def __call__(self, *args, **kwargs):
        specs = self._tensor_specs
        tensors = [a for a in nest.flatten((args, kwargs)) if is_tensor_leaf(a)]
        if len(tensors) != len(specs):
            raise TypeError(
                f"{self.name}: expected {len(specs)} tensor argument"
                f"{'' if len(specs) == 1 else 's'}, got {len(tensors)}."
            )
        checked = []
        for i, (t, spec) in enumerate(zip(tensors, specs)):
            t = convert_to_tensor(t)
            if not spec.is_compatible_with(t):
                raise TypeError(
                    f"{self.name}: tensor argument #{i} is {t.dtype.name}{list(t.shape)}, but "
                    f"this concrete function takes {spec}."
                )
            checked.append(t)
        return calls.call_concrete(self, checked)

    def pretty_printed_signature(self) -> str:
        """The arguments and results of this trace, one per line, as text."""
        lines = [f"{self.name}({', '.join(self.arg_names)})", "  Args:"]
        for name, value in zip(self.arg_names, self.structured_input_signature):
            lines.append(f"    {name}: {_structure_str(value)}")
        lines.append("  Returns:")
        lines.append(f"    {_structure_str(self.structured_outputs)}")
        return "\n".join(lines)

    def _repr_svg_(self):
        """Notebooks show the graph that runs as a picture (needs Graphviz's `dot`)."""
        return self.graph._repr_svg_()

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.pretty_printed_signature().splitlines()[0]}>"


def translate_outputs(structure, traced: Graph, optimized: Graph):
    """`structure` (of outputs of `traced`) with each tensor replaced by the output of
    `optimized` that stands where it stood."""
    if optimized is traced:
        return structure
    positions = {id(t): i for i, t in enumerate(traced.outputs)}
    return nest.pack_sequence_as(structure, [
        optimized.outputs[positions[id(v)]] if isinstance(v, SymbolicTensor) else v
        for v in nest.flatten(structure)])


def _structure_str(value) -> str:
    if isinstance(value, (list, tuple)) and any(is_tensor_leaf(v) for v in nest.flatten(value)):
        inner = ", ".join(_structure_str(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict) and any(is_tensor_leaf(v) for v in nest.flatten(value)):
        return "{" + ", ".join(f"{k!r}: {_structure_str(v)}" for k, v in value.items()) + "}"
    return leaf_str(value)


def eager_output(value, dtype, copy_read_only=True):
    """A graph's output value as the caller sees it: an eager tensor, or for a list tensor a
    Python list (of eager tensors, or of lists). A read-only array (a constant of the graph) is
    copied unless `copy_read_only` is False (see `_make_caller`)."""
    if dtype.is_list:
        return [eager_output(item, dtype.element, copy_read_only) for item in value.items()]
    if copy_read_only and type(value) is np.ndarray and not value.flags.writeable:
        value = value.copy()
    return EagerTensor(value, dtype)


def _make_caller(run, structure, pack, locate, copy_read_only=True, numbers=None):
    """`call(*input values)`: runs the graph and returns the outputs as the user's structure,
    with errors located at the user's line. One generated function (its `body`, a FunctionBody,
    for code that takes it in), so that a call costs as few Python calls as possible: for
    outputs that are one tensor, or a tuple or list of tensors, it makes the eager tensors
    itself. A read-only array result (a constant of the graph, which
    every call shares) is copied, unless `copy_read_only` is False (XLA's results are read-only
    views of its buffers). With `numbers` (python_number_outputs), the outputs are numpy values,
    those that stand for Python numbers Python numbers, as numpy_results gives them; None for
    outputs that are not one number tensor or a tuple or list of them."""
    leaves = structure if type(structure) in (tuple, list) else [structure]
    plain = all(isinstance(v, SymbolicTensor) and not v.dtype.is_list for v in leaves)
    if numbers is not None and (not plain or not leaves
                                or any(v.dtype.is_string for v in leaves)):
        return None
    scope = {"run": run, "locate": locate, "pack": pack, "EagerTensor": EagerTensor,
             "new": object.__new__, "raise_located": _raise_located}
    # A native executor's call (numba's) is taken in: its statements run here (InlineCall)
    inline = getattr(run, "inline", None)
    params, values = ("*values", None) if inline is None else (inline.params, inline.results)
    if inline is not None:
        scope.update(inline.scope)
        call = inline.lines
    else:
        params = _parameters(run) or params
        call = [f"outs = run({params})"]
    lines = ["try:",
             *(f"    {line}" for line in call),
             "except Exception as e:  # every failure is raised again at the user's line",
             "    raise_located(e, locate)"]
    if not plain or (type(structure) in (tuple, list) and not structure):
        if inline is not None:
            lines.append(f"outs = ({''.join(r + ', ' for r in inline.results)})")
        lines.append("return pack(outs)")
    else:
        for i, leaf in enumerate(leaves):  # (EagerTensor(v, dtype), without its __init__ call)
            scope[f"d{i}"] = leaf.dtype
            value = f"outs[{i}]" if values is None else values[i]
            if len(leaf.shape) and copy_read_only and FRESH_OUTPUT not in leaf.op.opdef.groups:
                lines.append(f"v{i} = {value}")  # a constant of the graph (read-only: the
                # same array every call) is copied; an op's fresh array cannot be one
                lines.append(f"if not v{i}.flags.writeable:")
                lines.append(f"    v{i} = v{i}.copy()")
                value = f"v{i}"
            if numbers is None:
                lines.append(f"t{i} = new(EagerTensor); t{i}._value = {value}; t{i}.dtype = d{i}")
            else:
                if numbers[i]:  # (as numpy's `.item()` gives it, without its cost)
                    scope[f"p{i}"] = PYTHON_NUMBER_TYPES[leaf.dtype.np_dtype.kind]
                    value = f"p{i}({value})"
                lines.append(f"t{i} = {value}")
        names = ", ".join(f"t{i}" for i in range(len(leaves)))
        if type(structure) is tuple:
            names = f"({names},)"
        elif type(structure) is list:
            names = f"[{names}]"
        lines.append(f"return {names}")
    body = FunctionBody(params, tuple(lines), dict(scope))
    source = f"def call({params}):\n" + "".join(f"    {line}\n" for line in lines)
    call = compile_function(source, f"<rt-call {next(_caller_ids)}>", scope, "call")
    call.body = body  # (an rt.function's entry takes it in: runtime/tracing/call_entry.py)
    return call


_caller_ids = itertools.count()


def _parameters(run) -> str | None:
    """"a0, a1, ..." for the positional parameters of `run` when they are all it has (the
    generated code's `run`): a call passing them by name costs 40 ns less than `run(*values)`;
    else None."""
    code = getattr(run, "__code__", None)
    if code is None or code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or (
            code.co_kwonlyargcount or code.co_posonlyargcount or not code.co_argcount):
        return None
    return ", ".join(f"a{i}" for i in range(code.co_argcount))


def _raise_located(error, locate):
    raise locate(error) from None


def _make_packer(structure, copy_read_only=True, shared_arrays=frozenset()):
    """A function from the compiled graph's output tuple to the user's output structure;
    `shared_arrays` as for ConcreteFunction."""
    mixed = next((leaf for leaf in nest.flatten(structure) if isinstance(leaf, SymbolicTensor)
                  and leaf.dtype.is_list and leaf.weak == MIXED), None)
    if mixed is not None:  # (refused when called: a caller's graph may take the list in)
        def refuse(outs):
            raise TypeError(with_origin(
                "The function returns a list built by graph code that holds Python numbers "
                "and narrower numpy values (float32, int32...), held together as "
                f"{mixed.dtype.element.name}: returned, every item would be "
                f"{mixed.dtype.element.name}, where Python's list holds each as it was. Return "
                "np.array(lst) (numpy's array of the list), or make the items one type "
                "(float(v), or np.float32(0.5)).", mixed.op.origin))
        return refuse
    if isinstance(structure, SymbolicTensor):
        dtype = structure.dtype
        return lambda outs: eager_output(outs[0], dtype, copy_read_only)
    leaves = nest.flatten(structure)
    slots = [(i, leaf.dtype) for i, leaf in enumerate(leaves) if isinstance(leaf, SymbolicTensor)]
    if type(structure) in (tuple, list) and all(isinstance(v, SymbolicTensor) for v in structure):
        kind, out_dtypes = type(structure), [dtype for _, dtype in slots]
        return lambda outs: kind(eager_output(v, d, copy_read_only)
                                 for v, d in zip(outs, out_dtypes))

    # A numpy array the Python code made while tracing (`return np.array(5.0)`) is returned as
    # a new copy by every call, as plain Python makes a new one (a caller may write into it);
    # an outside one it returned as it is (a global) is that array, as in plain Python.
    arrays = [i for i, leaf in enumerate(leaves)
              if type(leaf) is np.ndarray and id(leaf) not in shared_arrays]

    def pack(outs):
        flat = list(leaves)
        for (i, dtype), value in zip(slots, outs):
            flat[i] = eager_output(value, dtype, copy_read_only)
        for i in arrays:
            flat[i] = flat[i].copy()
        return nest.pack_sequence_as(structure, flat)

    if not nest.is_nested(structure):
        return (lambda outs: structure.copy()) if arrays else (lambda outs: structure)
    return pack
