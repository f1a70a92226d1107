"""`rt.function`: trace a Python function into graphs, one per input signature, and run them.

The call path is kept lean: a call whose arguments are all eager tensors builds its key from
(dtype, shape) pairs and looks it up in one dict; on a hit it calls the compiled graph with the
numpy values. Everything else (Python arguments, nested structures, keywords) takes the general
path, which binds the arguments to the signature first.

Threads: one thread traces a Function at a time (under its lock), and the others wait and
reuse what it traced. Lookups take no lock: the dict of traces is replaced, never changed, so
it can be read (and iterated, e.g. by `rt.saved.save`) while a trace is added, and the call
caches are only read with `get`.
"""

from __future__ import annotations

import html
import importlib
import inspect
import logging
import sys
import threading
import warnings
import weakref

import numpy as np

import autograph
from runtime import calls, config, context, nest, tracing
from runtime import capture_guards as guarding
from runtime.concrete_function import ConcreteFunction
from runtime.errors import (
    ForeignTensorError,
    RetraceError,
    RetracingWarning,
    StaleCaptureWarning,
    a_or_an,
    with_origin,
)
from runtime.signature import (
    float_token,
    is_python_key,
    is_spec_key,
    is_tensor_leaf,
    key_phrase,
    key_str,
    matches,
    relax_key,
    relax_value,
    value_key,
)
from runtime.source_info import user_origin, user_stacklevel
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.tensor_list import TensorList

logger = logging.getLogger("runtime.function")

RETRACE_WARNING_THRESHOLD = 5
JIT_COMPILERS = (None, "auto", "numba", "xla")  # the executors a Function can compile with

# Python argument types the fast call path keys by value (as the general path does).
_FAST_PYTHON_TYPES = frozenset({int, float, bool, str})


class Function:
    """A Python function that runs as traced graphs (see `rt.function`)."""

    __ag_traced_function__ = True  # autograph converts its `python_function` (api._unwrap)

    def __init__(
        self, fn, input_signature=None, autograph=True, reduce_retracing=None, optimize=True,
        max_traces=RETRACE_WARNING_THRESHOLD, on_retrace="warn", capture_guards=True,
        check=False, jit_compile=None,
    ):
        self._check = check
        if jit_compile not in JIT_COMPILERS:
            raise ValueError(f"jit_compile must be one of {JIT_COMPILERS}, not {jit_compile!r}.")
        if capture_guards not in (True, False, "warn"):
            raise ValueError(f'capture_guards must be True, False or "warn", not '
                             f"{capture_guards!r}.")
        self._jit_compile = jit_compile
        if on_retrace not in ("warn", "error"):
            raise ValueError(f'on_retrace must be "warn" or "error", not {on_retrace!r}.')
        self._max_traces, self._on_retrace = max_traces, on_retrace
        if not callable(fn):
            raise TypeError(f"rt.function takes a Python function (or another callable), not "
                            f"{type(fn).__name__} {fn!r}.")
        self.python_function = fn
        self.__name__ = getattr(fn, "__name__", "function")
        self.__doc__ = getattr(fn, "__doc__", None)
        self._autograph = autograph
        self._reduce_retracing = reduce_retracing
        self._optimize = optimize
        self._input_signature = None if input_signature is None else tuple(input_signature)
        try:
            self._signature = inspect.signature(fn)
        except (TypeError, ValueError):
            self._signature = None
        self._fast: dict = {}  # fast-path key -> ConcreteFunction
        self._concrete: dict = {}  # key of each trace -> ConcreteFunction (replaced when added)
        self._relaxed: dict = {}  # key -> the ConcreteFunction of a more general key
        self._traced_keys: list = []
        # (description, getter) of the globals, closure values and `self` attributes holding
        # Python constants that `fn` reads: part of the signature (found at the first call).
        self._capture_guards = capture_guards
        self._guards = None if capture_guards else []
        self._warn_stale = capture_guards == "warn"  # keep the first values, and warn
        self._first_guard_values = None
        self._converted = None
        self._bound_instances = weakref.WeakKeyDictionary()
        self._variables_created = False
        self._lock = threading.RLock()  # held while tracing (re-entered by recursive calls)
        self._inside_caller = False  # it reads a caller's tensors: traced as part of callers

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
        return Function(
            self.python_function.__get__(instance, owner),
            self._input_signature,
            self._autograph,
            self._reduce_retracing,
            self._optimize,
            self._max_traces,
            self._on_retrace,
            self._capture_guards,
            self._check,
            self._jit_compile,
        )

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
        found = module
        for part in qualname.split("."):
            found = getattr(found, part, None)
        if found is self:
            return _global, (module.__name__, qualname)
        return Function, (fn, self._input_signature, self._autograph, self._reduce_retracing,
                          self._optimize, self._max_traces, self._on_retrace,
                          self._capture_guards, self._check, self._jit_compile)

    def guarded_python_function(self):
        """The Python function whose outside reads a caller's capture guards follow (a caller
        bakes this function's graph into its own): None with capture_guards=False."""
        return self.python_function if self._capture_guards else None

    # ---- calling -----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if config._any_call_switch:
            if config._run_functions_eagerly:
                return self.python_function(*args, **kwargs)
            return self._call_general(args, kwargs)
        if kwargs or self._check:
            return self._call_general(args, kwargs)
        # The fast path: positional eager tensors and Python scalars, keyed by what the general
        # path keys them by (dtype and shape; type and value) as a flat tuple of tokens: a
        # dtype (a 0-d tensor: numpy scalar or bytes), a dtype and a shape (an array), a Python
        # type and a value. One eager tensor, the commonest call, has a key of its own.
        if len(args) == 1 and type(args[0]) is EagerTensor and not self._guards:
            v = args[0]._value
            key = args[0].dtype if type(v) is not np.ndarray else (args[0].dtype, v.shape)
            concrete = self._fast.get(key)
            if concrete is not None:
                if context.busy:  # a graph is built or a tape records, on some thread
                    return self._call_busy(concrete, args)
                return concrete.call(v)
            return self._call_general(args, kwargs, (key, [v]))
        key, values = [], []
        for a in args:
            kind = type(a)
            if kind is EagerTensor:
                v = a._value
                key.append(a.dtype)
                if type(v) is np.ndarray:
                    key.append(v.shape)
                values.append(v)
            elif kind in _FAST_PYTHON_TYPES:
                key.append(kind)
                key.append(a if kind is not float else float_token(a))
            else:
                return self._call_general(args, kwargs)
        now = self._guard_values() if self._guards else None  # read once: threads may change them
        key = tuple(key) if now is None else (tuple(key), now)
        concrete = self._fast.get(key)
        if concrete is not None:
            if context.busy:
                return self._call_busy(concrete, args)
            return concrete.call(*values)
        return self._call_general(args, kwargs, (key, values), now)

    def _call_busy(self, concrete, args):
        """A fast-path call (positional eager tensors and Python scalars) while a graph is
        built or a tape records on some thread: on this one, it is inlined or recorded."""
        if context.current_graph() is not None:
            return self._call_general(args, {})
        tensors = [a for a in args if type(a) is EagerTensor]
        if context.recording_tapes():
            return calls.call_concrete(concrete, tensors)
        return concrete.call(*[t._value for t in tensors])

    def _call_general(self, args, kwargs, fast=None, guard_values=None):
        arguments = self._bind(args, kwargs)
        if context.busy and context.current_graph() is not None and any(
                isinstance(v, TensorList) for _, value in arguments for v in nest.flatten(value)):
            return self._run_python(arguments)  # a caller's staged list: traced as its part
        key = self._key(arguments, guard_values)
        if context.busy and context.current_graph() is not None:
            return self._call_while_tracing(arguments, key)
        concrete = self._concrete_for(arguments, key)
        leaves = _tensor_leaves(arguments)
        if fast is not None and len(leaves) == len(fast[1]):  # no tensor came from a default
            self._fast[fast[0]] = concrete
        if context.busy and context.recording_tapes():
            return calls.call_concrete(concrete, leaves)  # recorded by a tape
        values = [_as_value(v) for v in leaves]
        result = concrete.call(*values)
        if self._check or config.checking_functions():
            from runtime import checking

            checking.check_call(self, concrete, args, kwargs, values, result)
        return result

    def _bind(self, args, kwargs) -> list:
        """[(parameter name, value), ...] in signature order, defaults applied."""
        if self._input_signature is not None:
            return self._bind_to_input_signature(args, kwargs)
        if self._signature is None:
            return [(f"arg{i}", a) for i, a in enumerate(args)] + sorted(kwargs.items())
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        return list(bound.arguments.items())

    def _bind_to_input_signature(self, args, kwargs):
        if kwargs:
            raise TypeError(f"{self.__name__} has an input_signature; pass arguments positionally.")
        specs = self._input_signature
        if len(args) != len(specs):
            raise TypeError(
                f"{self.__name__} takes {len(specs)} argument{'' if len(specs) == 1 else 's'} (its "
                f"input_signature is {list(specs)}), got {len(args)}."
            )
        names = self._param_names(len(args))
        return [(n, self._match_spec(s, a, n)) for n, s, a in zip(names, specs, args)]

    def _match_spec(self, spec, value, path):
        from runtime.conversion import convert_to_tensor, weak_fits

        if isinstance(spec, (list, tuple)):
            if not isinstance(value, (list, tuple)) or len(value) != len(spec):
                raise TypeError(
                    f"{self.__name__}: argument {path} must be a sequence of {len(spec)} "
                    f"value{'' if len(spec) == 1 else 's'} to match its input_signature {spec!r}."
                )
            return type(spec)(
                self._match_spec(s, v, f"{path}[{i}]") for i, (s, v) in enumerate(zip(spec, value))
            )
        # (a Python number, or a weak tensor standing for one, takes the signature's dtype)
        tensor = convert_to_tensor(value, spec.dtype if not isinstance(value, Tensor) or (
            value.weak and weak_fits(value.dtype, spec.dtype)) else None)
        if not spec.is_compatible_with(tensor):
            raise TypeError(with_origin(
                f"{self.__name__}: argument {path} is {a_or_an(tensor.dtype.name)} tensor of shape "
                f"{list(tensor.shape)}, which does not match its input_signature {spec!r}.",
                user_origin()))
        return tensor

    def _param_names(self, n):
        if self._signature is None:
            return [f"arg{i}" for i in range(n)]
        names = list(self._signature.parameters)
        return (names + [f"arg{i}" for i in range(len(names), n)])[:n]

    def _key(self, arguments, guard_values=None):
        """The signature key of `arguments`, with the guarded values (`guard_values`: as the
        caller read them, else read now)."""
        if self._guards is None:
            self._guards = guarding.guards_of(self.python_function)
        guarded = (self._guard_key(guard_values),) if self._guards else ()
        if self._input_signature is not None:
            return ("input_signature", *guarded)
        return tuple(nest.structure_key(v, value_key, name) for name, v in arguments) + guarded

    def current_traces(self) -> list:
        """The concrete functions that calls run now: those traced with the current values of
        the guarded outside constants (earlier values' graphs are kept, but not current)."""
        if not self._guards:
            return list(self._concrete.values())
        now = self._guard_key()
        return [c for key, c in self._concrete.items() if key[-1] == now]

    def _adopt_guards(self, callee, adopted: list) -> None:
        """`callee`'s graph joins the graph this function is tracing: the outside values it
        bakes in are guarded here too (a callee reached through an argument, a dict or a list
        is one the static scan of `guards_of` cannot see); their values now go to `adopted`,
        the trace's list."""
        if self._capture_guards is not True or not callee._guards or _in_converted_code(
                callee.python_function):
            return  # (a function defined inside converted code reads the caller's locals)
        with self._lock:  # (held by this thread's trace already; other threads wait)
            if self._guards is None:
                self._guards = guarding.guards_of(self.python_function)
            known = {what for what, _ in self._guards}
            via = f" (read by {getattr(callee.python_function, '__qualname__', callee.__name__)})"
            new = [(what + via, get) for what, get in callee._guards if what + via not in known]
            if new:
                self._guards = self._guards + new  # (replaced: other threads may read it)
                adopted.extend(get() for _, get in new)

    def _guard_values(self) -> tuple:
        """The current values of the outside Python values the graph bakes in."""
        return tuple(get() for _, get in self._guards)

    def _guard_key(self, values=None) -> tuple:
        """The signature part of the guarded outside values: their current values (`values`, or
        read now), or with capture_guards="warn" their first values (a change warns once per
        value)."""
        values = self._guard_values() if values is None else values
        if self._warn_stale:
            if self._first_guard_values is None:
                self._first_guard_values = values
            elif values != self._first_guard_values:
                self._warn_of_stale_values(values)
                values = self._first_guard_values
        return ("captured", values)

    def _warn_of_stale_values(self, values) -> None:
        changed = [f"{what} changed from {guarding.shown(before)} to {guarding.shown(now)}"
                   for (what, _), before, now in zip(self._guards, self._first_guard_values,
                                                     values) if before != now]
        warnings.warn(
            f"rt.function '{self.__name__}': {'; '.join(changed)}, but its graph keeps using the "
            "value it was traced with (capture_guards=\"warn\"). Pass the value as an "
            "argument, or use capture_guards=True to trace again when it changes.",
            StaleCaptureWarning, stacklevel=user_stacklevel())

    def _concrete_for(self, arguments, key):
        """The concrete function for `key`: cached, or traced now (once: threads asking for it
        meanwhile wait for the trace and use it)."""
        concrete = self._cached(key)
        if concrete is None:
            with self._lock:
                concrete = self._cached(key) or self._trace(arguments, key)
        return concrete

    def _call_while_tracing(self, arguments, key):
        """A call while a caller is traced on this thread: this function's graph joins the
        caller's; a function that reads the caller's tensors (defined inside it) runs its
        Python there instead, as a plain helper would."""
        if not (self._inside_caller or self._reads_tensors_being_traced()):
            try:
                concrete = self._traced_for_caller(arguments, key)
            except ForeignTensorError as e:  # it reads the caller's tensors some other way
                if not context.building_graph(e.graph):
                    raise
                self._inside_caller = True
            else:
                trace = context.current_trace()
                if trace is not None and trace[0] is not self:
                    trace[0]._adopt_guards(self, trace[1])
                return calls.call_concrete(concrete, _tensor_leaves(arguments))
        return self._run_python(arguments)

    def _run_python(self, arguments):
        """The Python function (converted) called with bound `arguments`."""
        fn = self._python_fn_for_tracing()
        return fn(*self._call_args(arguments), **self._call_kwargs(arguments))

    def _reads_tensors_being_traced(self) -> bool:
        """Whether the Python function closes over symbolic tensors (it is defined inside a
        function being traced): a graph of its own could not read them, so it is traced as
        part of its caller, as a plain helper is."""
        fn = getattr(self.python_function, "__func__", self.python_function)
        for cell in getattr(fn, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # not set yet
                continue
            if any(isinstance(v, (SymbolicTensor, TensorList)) for v in nest.flatten(value)):
                return True
        return False

    def _traced_for_caller(self, arguments, key):
        """The concrete function a caller being traced takes in: traced for these shapes exactly
        (never a relaxed graph, whose unknown dims the caller would then see), as plain Python
        would run the function on them."""
        concrete = self._concrete.get(key)
        if concrete is None:
            with self._lock:
                concrete = self._concrete.get(key) or self._trace(arguments, key, exact=True)
        return concrete

    def _cached(self, key):
        return self._concrete.get(key) or self._relaxed.get(key) or self._find_relaxed(key)

    def _find_relaxed(self, key):
        for general, concrete in self._concrete.items():
            if matches(general, key):
                self._relaxed[key] = concrete
                return concrete
        return None

    # ---- tracing -----------------------------------------------------------------------------
    def _python_fn_for_tracing(self):
        if not self._autograph:
            return self.python_function
        if self._converted is None:
            self._converted = autograph.to_graph(self.python_function)
        return self._converted

    def _trace(self, arguments, key, exact=False):
        """Traces a new concrete function for `key` (the caller holds the lock); `exact`: for a
        caller being traced, which takes in the graph (these shapes exactly, compiled only when
        it is called itself)."""
        if self._input_signature is not None:
            # Trace with the signature's specs (unknown dims stay unknown), not the call's shapes.
            arguments = [(name, spec) for (name, _), spec in zip(arguments, self._input_signature)]
        elif not exact and (self._reduce_retracing or (self._reduce_retracing is None
                                                   and self._shape_only_retraces(key) >= 2)):
            relaxed, arguments = self._relax(key, arguments)
            if self._reduce_retracing is None and relaxed != key:
                changed = ", ".join(f"'{name}' as {key_str(part)}" for (name, _), part, old
                                    in zip(arguments, relaxed, key) if part != old)
                logger.info(
                    "rt.function '%s': a third shape of the same arguments; tracing one graph "
                    "with unknown dims (%s) that serves every later shape like it "
                    "(reduce_retracing=False traces each shape exactly).",
                    self.__name__, changed)
            key = relaxed
        if not exact:  # (traces for callers are part of their traces, not retraces)
            self._check_retrace(key, arguments)
        arguments = [(name, nest.map_with_paths(lambda v, _: tracing.spec_of(v), value, name))
                     for name, value in arguments]  # (specs: keep no tensor alive)
        with context.tapes_paused():  # (a tape open around the call records the call)
            concrete, created, adopted = self._trace_once(arguments, exact)
        if created:
            if self._variables_created or self._traced_keys:
                self._raise_variable_creation(created)
            self._variables_created = True
            with context.tapes_paused():  # (the second must create none)
                concrete, created, adopted = self._trace_once(arguments, exact)
            if created:
                self._raise_variable_creation(created)
        if adopted:  # the key holds the values the callees were traced with
            key = _with_captured(key, tuple(adopted))
        concrete.retrace = self._retracer(arguments)
        self._traced_keys.append((key, arguments))
        self._concrete = {**self._concrete, key: concrete}
        return concrete

    def _retracer(self, arguments):
        """A function of the flat tensor inputs of the trace of `arguments` that runs the
        Python function on them (in the graph being built) and returns what it returns."""
        function = weakref.ref(self)  # (no cycle)

        def retrace(tensors):
            found = iter(tensors)
            traced = [(name, nest.map_with_paths(
                lambda v, _: next(found) if is_tensor_leaf(v) else v, value, name))
                for name, value in arguments]
            this = function()
            with context.tracing_function(this):
                return this._run_python(traced)

        return retrace

    def _raise_variable_creation(self, created):
        where = getattr(created[0], "_origin", None)
        raise ValueError(
            with_origin(
                f"rt.function '{self.__name__}' creates a new rt.Variable every time it is traced. "
                "Run eagerly, this Python code would make a fresh variable on every call, but a "
                "graph can only hold the variable made on its first trace. Create the variable "
                "outside the function, or only once (e.g. `if self.v is None: self.v = "
                "rt.Variable(...)`).",
                where,
            )
        )

    def _trace_once(self, arguments, defer=False):
        """(concrete function, variables created, guarded values taken from callees)."""
        with context.tracing_function(self) as adopted:
            concrete, created = tracing.trace(
                self._python_fn_for_tracing(), self.__name__, arguments,
                lambda traced: (self._call_args(traced), self._call_kwargs(traced)),
                self._optimize, self._jit_compile, defer)
        return concrete, created, adopted

    def _call_args(self, traced_args):
        if self._signature is None or self._input_signature is not None:
            return [v for _, v in traced_args]
        args = []
        for name, value in traced_args:
            param = self._signature.parameters.get(name)
            if param is None or param.kind == param.KEYWORD_ONLY:
                continue
            if param.kind == param.VAR_POSITIONAL:
                args.extend(value)
            elif param.kind != param.VAR_KEYWORD:
                args.append(value)
        return args

    def _call_kwargs(self, traced_args):
        if self._signature is None or self._input_signature is not None:
            return {}
        kwargs = {}
        for name, value in traced_args:
            param = self._signature.parameters.get(name)
            if param is not None and param.kind == param.KEYWORD_ONLY:
                kwargs[name] = value
            elif param is not None and param.kind == param.VAR_KEYWORD:
                kwargs.update(value)
        return kwargs

    def _shape_only_retraces(self, key) -> int:
        """How many earlier traces differ from `key` only in the dims of tensors."""
        return sum(1 for old, _ in self._traced_keys
                   if old != key and relax_key(old, key) is not None)

    def _relax(self, key, arguments):
        """With reduce_retracing: dims that differ from an earlier trace become None."""
        for old_key, _ in reversed(self._traced_keys):
            relaxed = relax_key(old_key, key)
            if relaxed is not None and relaxed != key:
                relaxed_args = [
                    (name, relax_value(v, rk)) for (name, v), rk in zip(arguments, relaxed)
                ]
                return relaxed, relaxed_args
        return key, arguments

    def _check_retrace(self, key, arguments):
        """Every retrace logs why (INFO); past `max_traces` it warns (a RetracingWarning at
        the user's call) or raises, as `on_retrace` says."""
        if not self._traced_keys:
            return
        count = len(self._traced_keys) + 1
        reason = self._retrace_reason(key, arguments)
        logger.info("rt.function '%s' traces graph %d: %s", self.__name__, count, reason)
        if count <= self._max_traces:
            return
        message = (f"rt.function '{self.__name__}' traces graph {count} (more than max_traces="
                   f"{self._max_traces}): {reason}. Tracing is slow; pass tensors instead of "
                   "Python values, use input_signature, or reduce_retracing=True for shapes.")
        if self._on_retrace == "error":
            raise RetraceError(with_origin(message, user_origin()))
        origin = user_origin()
        if origin is None:
            warnings.warn(message, RetracingWarning, stacklevel=user_stacklevel())
        else:
            warnings.warn_explicit(message, RetracingWarning, origin.filename, origin.lineno,
                                   module=self.__name__)

    def _retrace_reason(self, key, arguments) -> str:
        """What changed, against the closest earlier signature (fewest arguments changed; the
        latest of those)."""
        def changed(old_key):
            return [(name, old, new) for (name, _), old, new in zip(arguments, old_key, key)
                    if old != new]

        closest = min((changed(old) for old, _ in reversed(self._traced_keys)), key=len)
        if not closest and self._guards and key[-1][0] == "captured":
            old = self._traced_keys[-1][0][-1][1]
            for (what, _), before, now in zip(self._guards, old, key[-1][1]):
                if before != now:
                    return (f"{what} changed from {guarding.shown(before)} to "
                            f"{guarding.shown(now)} (the graph used its value as a constant)")
        if not closest:
            return "the arguments changed"
        name, old, new = closest[0]
        if is_python_key(old) or is_python_key(new):
            what = (f"argument '{name}' was {key_phrase(old)}, now {key_phrase(new)}: Python "
                    "values are part of the signature; pass a tensor")
        elif is_spec_key(old) and is_spec_key(new) and old[0] is new[0]:
            what = (f"argument '{name}' changed shape from {key_str(old)} to {key_str(new)}: "
                    "shapes are part of the signature")
        else:
            what = f"argument '{name}' changed from {key_phrase(old)} to {key_phrase(new)}"
        more = len(closest) - 1
        return what + (f" (and {more} more argument{'s' if more > 1 else ''})" if more else "")

    # ---- public API --------------------------------------------------------------------------
    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The concrete function for these arguments (tensors or rt.TensorSpec), traced if new."""
        if self._input_signature is not None and not args and not kwargs:
            args = self._input_signature
            arguments = list(zip(self._param_names(len(args)), args))
            key = ("input_signature",)
        else:
            arguments = self._bind(args, kwargs)
            key = self._key(arguments)
        return self._concrete_for(arguments, key)

    def experimental_get_tracing_count(self) -> int:
        return len(self._traced_keys)

    def pretty_printed_concrete_signatures(self) -> str:
        seen, texts = set(), []
        for concrete in self._concrete.values():
            if id(concrete) not in seen:
                seen.add(id(concrete))
                texts.append(concrete.pretty_printed_signature())
        return "\n\n".join(texts)

    def __repr__(self) -> str:
        return f"<rt.function {self.__name__}>"

    def _repr_html_(self) -> str:
        """Notebooks: its traced signatures, each with its graph, and the converted code
        (folded sections)."""
        def section(title, text):
            return (f"<details><summary>{html.escape(title)}</summary>"
                    f"<pre>{html.escape(text)}</pre></details>")

        traces = self.current_traces()
        parts = [f"<b>rt.function {html.escape(self.__name__)}</b>: "
                 f"{len(traces) or 'no'} traced signature{'' if len(traces) == 1 else 's'}"]
        for concrete in traces:
            parts.append(section(concrete.pretty_printed_signature().replace("\n", " "),
                                 str(concrete.graph)))
        if self._autograph:
            try:
                parts.append(section("converted code", autograph.to_code(self.python_function)))
            except Exception as e:  # noqa: BLE001 - no source: say so instead of the code
                parts.append(f"<p>converted code: not available ({html.escape(str(e))})</p>")
        return "\n".join(parts)


def function(
    fn=None, *, input_signature=None, autograph=True, reduce_retracing=None, optimize=True,
    max_traces=RETRACE_WARNING_THRESHOLD, on_retrace="warn", capture_guards=True, check=False,
    jit_compile=None,
):
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
    where the values part (see runtime/checking.py); for debugging: effects run twice.
    `jit_compile="numba"` compiles each graph with numba (the `numba` extra; see
    runtime/executor/numba_backend.py) instead of running it as Python over numpy;
    `jit_compile="xla"` with XLA through JAX (the `jax` extra; runtime/executor/jax_backend.py);
    `jit_compile="auto"` starts on the default executor and moves a graph that is called often
    to numba, compiled in the background, when numba gives the same bits
    (runtime/executor/tiering.py).
    """
    options = (input_signature, autograph, reduce_retracing, optimize, max_traces, on_retrace,
               capture_guards, check, jit_compile)
    if fn is None:
        return lambda f: Function(f, *options)
    return Function(fn, *options)


# ---- helpers -------------------------------------------------------------------------------------


def _tensor_leaves(arguments) -> list:
    """The tensor leaves of bound arguments, in the order of a trace's inputs."""
    return [v for v in nest.flatten([v for _, v in arguments]) if is_tensor_leaf(v)]


def _global(module: str, qualname: str):
    """The object named `qualname` in module `module` (importing it): how a decorated
    module-level function is unpickled."""
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def _in_converted_code(fn) -> bool:
    """Whether `fn`, or a function it wraps (`functools.wraps`), was defined inside code
    autograph converted (a nested function)."""
    seen = set()
    while fn is not None and id(fn) not in seen:
        seen.add(id(fn))
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        if code is not None and autograph.is_generated_file(code.co_filename):
            return True
        fn = getattr(fn, "__wrapped__", None)
    return False


def _with_captured(key, values: tuple):
    """`key` with `values` added to its guarded values (its last part, `("captured", ...)`,
    added when it has none)."""
    last = key[-1] if key else None
    if type(last) is tuple and len(last) == 2 and last[0] == "captured":
        return key[:-1] + (("captured", last[1] + values),)
    return key + (("captured", values),)


def _as_tensor(value):
    if isinstance(value, Tensor):
        return value
    from runtime.conversion import convert_to_tensor

    return convert_to_tensor(value)


def _as_value(value):
    if isinstance(value, EagerTensor):
        return value._value
    return _as_tensor(value)._value
