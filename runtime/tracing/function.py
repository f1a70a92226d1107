"""`rt.function`: trace a Python function into graphs, one per input signature, and run them.

A `Function` is made of parts, each in its own module:

- runtime/tracing/function_options.py: its options (`FunctionOptions`), checked when it is made;
- runtime/tracing/argument_binding.py: a call's arguments bound to its signature (`ArgumentBinder`);
- runtime/tracing/call_paths.py: the call paths (`CallPaths`: the fast path, the general path, calls
  while a caller is traced), with the notes on threads;
- runtime/tracing/trace_cache.py: its traces by signature key, lookup and relaxation (`TraceCache`);
- runtime/tracing/function_guards.py: the capture guards' bookkeeping (`FunctionGuards`);
- runtime/tracing/function_tracing.py: tracing a new signature (`FunctionTracer`), with the retrace
  policy of runtime/tracing/retrace_policy.py (`RetracePolicy`);
- runtime/tracing/function_view.py: what a notebook shows.

This module keeps what makes it one object: `rt.function`, the options' accessors, binding to
an object (a decorated method), pickling, and the public API (`get_concrete_function`, ...).
"""

from __future__ import annotations

import importlib
import sys
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Literal, overload

from autograph import is_numpy_function
from runtime.numpy import dispatch as numpy_dispatch
from runtime.tracing.argument_binding import ArgumentBinder
from runtime.tracing.call_paths import CallPaths
from runtime.tracing.concrete_function import ConcreteFunction
from runtime.tracing.function_guards import FunctionGuards
from runtime.tracing.function_options import (  # noqa: F401 - JIT_COMPILERS: also read from here
    JIT_COMPILERS,
    RETRACE_WARNING_THRESHOLD,
    FunctionOptions,
    checked_options,
)
from runtime.tracing.function_tracing import FunctionTracer
from runtime.tracing.function_view import function_html
from runtime.tracing.trace_cache import TraceCache


class Function(CallPaths):
    """A Python function that runs as traced graphs (see `rt.function`)."""

    __ag_traced_function__ = True  # autograph converts its `python_function` (api._unwrap)

    def __init__(
        self, fn, input_signature=None, autograph=True, reduce_retracing=None, optimize=True,
        max_traces=RETRACE_WARNING_THRESHOLD, on_retrace="warn", capture_guards=True,
        check=False, jit_compile=None, numpy_results=False,
    ):
        options = checked_options(fn, input_signature, autograph, reduce_retracing, optimize,
                                  max_traces, on_retrace, capture_guards, check, jit_compile,
                                  numpy_results)
        if is_numpy_function(fn):  # rt.function(np.negative): runtime.numpy's
            found = numpy_dispatch.lookup(fn)
            if found is None:
                raise numpy_dispatch.unsupported(fn)
            fn = found
        self._options = options
        self.python_function = fn
        self.__name__ = name = getattr(fn, "__name__", "function")
        self.__doc__ = getattr(fn, "__doc__", None)
        self._lock = threading.RLock()  # held while tracing (re-entered by recursive calls)
        # The parts (see the module doc); the call paths read them as attributes of this one.
        self._check = options.check
        self._fast: dict = {}  # fast-path key -> ConcreteFunction
        self._fast_scalar: dict = {}  # numpy scalar type(s) -> ConcreteFunction (see CallPaths)
        self._binder = ArgumentBinder(fn, name, options.input_signature)
        self._guards = FunctionGuards(fn, name, capture_guards, self._lock)
        self._traces = TraceCache(name, reduce_retracing, options.input_signature is not None)
        self._tracer = FunctionTracer(fn, name, options, self._binder, self._traces,
                                      self._guards)
        self._inside_caller = False  # it reads a caller's tensors: traced as part of callers
        self._bound_instances = weakref.WeakKeyDictionary()
        self._set_entry(self._call_fast)  # (the entry: see CallPaths)
        # guards taken from a callee later: calls take the fast path, whose keys hold them
        self._guards.on_change = lambda: self._set_entry(self._call_fast)

    # ---- options and what it traced ----------------------------------------------------------
    @property
    def options(self) -> FunctionOptions:
        """The options it was made with (`rt.function`'s keyword arguments)."""
        return self._options

    @property
    def input_signature(self) -> tuple | None:
        """Its input_signature (a tuple of specs), or None."""
        return self._options.input_signature

    @property
    def python_signature(self):
        """The `inspect.Signature` of its Python function (None when Python cannot tell it)."""
        return self._binder.signature

    @property
    def guarded_reads(self) -> list | None:
        """The outside Python values its graphs bake in, which are part of the signature
        (capture guards): their descriptions ("the global 'scale'", ...); None until the
        first call looks for them; [] with capture_guards=False."""
        found = self._guards.found
        return None if found is None else [what for what, _ in found]

    def concrete_functions(self) -> list:
        """Every concrete function it traced (once each, in the order traced), also those
        traced with earlier values of the guarded outside constants (see `current_traces`)."""
        return self._traces.concrete_functions()

    def current_traces(self) -> list:
        """The concrete functions that calls run now: those traced with the current values of
        the guarded outside constants (earlier values' graphs are kept, but not current)."""
        return self._traces.current(self._guards.key() if self._guards.found else None)

    def guarded_python_function(self):
        """The Python function whose outside reads a caller's capture guards follow (a caller
        bakes this function's graph into its own): None with capture_guards=False."""
        return self.python_function if self._options.capture_guards else None

    # ---- methods -----------------------------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._bound_instances.get(instance)
        except TypeError:  # not weak-referenceable: a new Function per access (still correct)
            return self._bound_to(instance, owner)
        if bound is None:
            with self._lock:  # one Function per instance, even when threads ask at once
                bound = self._bound_instances.get(instance)
                if bound is None:
                    bound = self._bound_instances[instance] = self._bound_to(instance, owner)
        return bound

    def _bound_to(self, instance, owner):
        """A Function of the method bound to `instance`."""
        return Function(self.python_function.__get__(instance, owner), *self._options)

    # ---- pickling (multiprocessing, joblib) --------------------------------------------------
    def __reduce__(self):
        """Pickled by reference: a module-level function by its module and name, a method of an
        object as that object's attribute, any other as the function it wraps and its options.
        Where it is loaded it traces again (graphs and caches are not pickled)."""
        fn = self.python_function
        owner = getattr(fn, "__self__", None)
        if owner is not None and not isinstance(owner, type(sys)):  # a bound method
            return getattr, (owner, fn.__name__)
        module = sys.modules.get(getattr(fn, "__module__", None) or "")
        qualname = getattr(fn, "__qualname__", "")
        if _attribute_path(module, qualname) is self:
            return _global, (module.__name__, qualname)
        return Function, (fn, *self._options)

    # ---- public API --------------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The concrete function for these arguments (tensors or rt.TensorSpec), traced if new."""
        if self._options.input_signature is not None and not args and not kwargs:
            arguments = self._binder.input_signature_arguments()
        else:
            arguments = self._binder.bind(args, kwargs)
        return self._concrete_for(arguments, self._key(arguments))  # (guarded values too)

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced (TensorFlow's name)."""
        return len(self._traces.traced_keys)

    def pretty_printed_concrete_signatures(self) -> str:
        """The signature of every trace so far, as text."""
        return "\n\n".join(concrete.pretty_printed_signature()
                           for concrete in self._traces.concrete_functions())

    def __repr__(self) -> str:
        return f"<rt.function {self.__name__}>"

    def _repr_html_(self) -> str:
        """Notebooks: its traced signatures, each with its graph, and the converted code
        (folded sections; runtime/tracing/function_view.py)."""
        return function_html(self)


@overload
def function(
    fn: Callable[..., Any], *, input_signature: Sequence[Any] | None = None,
    autograph: bool = True, reduce_retracing: bool | None = None, optimize: bool = True,
    max_traces: int = ..., on_retrace: Literal["warn", "error"] = "warn",
    capture_guards: bool | Literal["warn"] = True, check: bool = False,
    jit_compile: Literal["numba", "xla", "auto"] | None = None, numpy_results: bool = False,
) -> Function: ...


@overload
def function(
    fn: None = None, *, input_signature: Sequence[Any] | None = None,
    autograph: bool = True, reduce_retracing: bool | None = None, optimize: bool = True,
    max_traces: int = ..., on_retrace: Literal["warn", "error"] = "warn",
    capture_guards: bool | Literal["warn"] = True, check: bool = False,
    jit_compile: Literal["numba", "xla", "auto"] | None = None, numpy_results: bool = False,
) -> Callable[[Callable[..., Any]], Function]: ...


def function(
    fn: Callable[..., Any] | None = None, *, input_signature: Sequence[Any] | None = None,
    autograph: bool = True, reduce_retracing: bool | None = None, optimize: bool = True,
    max_traces: int = RETRACE_WARNING_THRESHOLD, on_retrace: Literal["warn", "error"] = "warn",
    capture_guards: bool | Literal["warn"] = True, check: bool = False,
    jit_compile: Literal["numba", "xla", "auto"] | None = None, numpy_results: bool = False,
) -> Function | Callable[[Callable[..., Any]], Function]:
    """Makes `fn` run as a graph: traced once per input signature, then compiled and cached.

    Use as `@rt.function` or `rt.function(fn, input_signature=[rt.TensorSpec(...)])`.
    `autograph=False` traces the Python code as is (no control-flow conversion);
    `reduce_retracing=True` relaxes changing shapes to unknown dims instead of retracing;
    the default (None) does so at the second retrace that only shapes caused (a third shape of
    the same arguments: the dims that changed become unknown, and the log says so); `False`
    traces every shape exactly. `optimize=False` skips the optimizing graph passes (for
    debugging). Every retrace is logged at INFO with its reason; past `max_traces` graphs a
    retrace warns (`rt.errors.RetracingWarning`, so warning filters apply) or, with
    `on_retrace="error"`, raises `rt.errors.RetraceError`. The Python constants `fn` reads
    from outside (globals, closure variables, `self` attributes holding numbers, strings,
    tuples of them) are baked into the graph, so they are part of the signature: when one
    changes, the next call traces again (`capture_guards=False` keeps the first value;
    `capture_guards="warn"` keeps it too, with an `rt.errors.StaleCaptureWarning` when it
    changes).
    `check=True` (or `rt.config.check_functions(True)` for all) runs `fn` as plain Python
    beside the graph on every call and raises `rt.errors.CheckError` at a difference, naming
    where the values part (see runtime/tools/checking.py); for debugging: effects run twice.
    `jit_compile="numba"` compiles each graph with numba (the `numba` extra; see
    runtime/executor/numba_backend.py) instead of running it as Python over numpy;
    `jit_compile="xla"` with XLA through JAX (the `jax` extra; runtime/executor/jax_backend.py);
    `jit_compile="auto"` starts on the default executor and moves a graph that is called often
    to numba, compiled in the background, when numba gives the same bits
    (runtime/executor/tiering.py).
    `numpy_results=True`: a call whose array arguments are all numpy values (no rt tensor
    among them) returns numpy values (arrays, numpy scalars) where it would return tensors, as
    torch.compile does for numpy code, so a numpy user's call site does not change; a call with
    rt tensors still returns tensors (and so does the function rt.saved.load gives).
    """
    options = (input_signature, autograph, reduce_retracing, optimize, max_traces, on_retrace,
               capture_guards, check, jit_compile, numpy_results)
    if fn is None:
        return lambda f: Function(f, *options)
    return Function(fn, *options)


def _global(module: str, qualname: str):
    """The object named `qualname` in module `module` (importing it): how a decorated
    module-level function is unpickled."""
    return _attribute_path(importlib.import_module(module), qualname)


def _attribute_path(obj, qualname: str):
    """`obj.a.b` for qualname "a.b", or None where an attribute is missing."""
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj
