"""How a call of an `rt.function` runs (the `Function` class takes these methods from
`CallPaths`).

A call goes first to the function's entry (`__call__`, a slot: generated code that tests the
arguments against the last signature the fast path learned, runtime/tracing/call_entry.py),
then to the fast path (`_call_fast`), then to the general path.

The fast path is kept lean: a call whose arguments are all positional eager
tensors, numeric numpy arrays and scalars, or Python scalars builds its key from (dtype, shape)
pairs and (type, value) pairs and looks it up in one dict (`_fast`; numpy scalars alone, by
their types in `_fast_scalar`); on a hit it calls the compiled graph with the numpy values.
Everything else (nested structures, keywords, a miss) takes the general path
(`_call_general`), which binds the arguments to the signature first, finds or traces the
concrete function, and fills the fast path's dict. A call while a caller is traced takes in
its graph (or runs its Python there); one under a gradient tape is recorded.

Threads: one thread traces a Function at a time (under its lock), and the others wait and
reuse what it traced. Lookups take no lock: the trace cache's dict is replaced, never changed,
and the fast path's dict is only read with `get`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from runtime import config, nest, traceback_filtering
from runtime.core import context
from runtime.core.dtypes import python_number
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.core.tensor_shape import TensorShape
from runtime.errors import ForeignTensorError, OperatorNotAllowedInGraphError, with_origin
from runtime.tensor_list import TensorList
from runtime.tools import checking
from runtime.tracing import calls
from runtime.tracing.call_entry import install_entry
from runtime.tracing.signature import float_token, is_tensor_leaf

# Python argument types the fast call path keys by value (as the general path does).
_FAST_PYTHON_TYPES = frozenset({int, float, bool, str})
# numpy scalar types the fast call path passes as they are (keyed by type, as a tensor holding
# one is): those the general path takes as graph inputs (signature.is_tensor_leaf: a complex
# scalar is a constant of the graph, keyed by its value).
_FAST_NUMPY_SCALARS = frozenset(
    np.dtype(code).type for code in "?bBhHiIlLqQefdg" if np.dtype(code).kind in "biuf")
# A key token after the arguments of a call with a numpy argument (its results may be numpy's).
_NUMPY_ARGUMENTS = "numpy arguments"


class CallPaths:
    """The call paths of `Function`, over its parts: `_fast` (fast-path key ->
    ConcreteFunction), `_fast_scalar` (the same for a call of numpy scalars alone, by their
    types: one type for one scalar, else a tuple; unless results are numpy's: the commonest
    call of a scalar program), `_check`, `_binder`
    (ArgumentBinder), `_guards` (FunctionGuards), `_traces` (TraceCache), `_tracer`
    (FunctionTracer), `_lock`, and `_inside_caller` (it reads a caller's tensors: traced as part
    of callers)."""

    # The entry every call runs first: per function, so it is a slot (Python looks a call up
    # on the type): the fast path until the fast path learns a signature, then the entry for
    # the last one (runtime/tracing/call_entry.py).
    __slots__ = ("__call__",)
    if TYPE_CHECKING:  # (what the slot holds, as type checkers see it)
        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    python_function: Callable[..., Any]  # (Function's)

    def _entry(self):
        """The entry calls run first (the slot's value, even where the class's `__call__` was
        replaced, as a test harness that counts calls does)."""
        return _ENTRY_SLOT.__get__(self, CallPaths)

    def _set_entry(self, entry) -> None:
        _ENTRY_SLOT.__set__(self, entry)

    def _call_fast(self, *args, **kwargs):
        try:
            if config._any_call_switch:
                if config._run_functions_eagerly:
                    return self.python_function(*args, **kwargs)
                return self._call_general(args, kwargs)
            if kwargs or self._check:
                return self._call_general(args, kwargs)
            # The fast path: positional eager tensors and Python scalars, keyed by what the
            # general path keys them by (dtype and shape; type and value) as a flat tuple of
            # tokens: the value's type (a 0-d tensor: a numpy scalar or bytes), numpy's dtype
            # and the shape (an array), a Python type and a value; numpy's dtypes and types
            # hash in C. One eager tensor, the commonest call, has a key of its own.
            if len(args) == 1 and not self._guards.found:
                v = args[0]
                kind = type(v)
                if kind is EagerTensor:
                    v = v._value
                    key = type(v) if type(v) is not np.ndarray else (v.dtype, v.shape)
                    concrete = self._fast.get(key)
                    if concrete is not None:
                        if context.busy:  # a graph is built or a tape records, on some thread
                            return self._call_busy(concrete, args)
                        return concrete.call(v)
                    return self._call_general(args, kwargs, (key, [v]))
                concrete = self._fast_scalar.get(kind)  # (one numpy scalar: its own dict)
                if concrete is not None and not context.busy:
                    return concrete.call(v)
            elif self._fast_scalar and not self._guards.found:  # numpy scalars, by their types
                if len(args) == 2:  # (a tuple written out: twice as fast as of a map)
                    a, b = args
                    kinds = (type(a), type(b))
                elif len(args) == 3:
                    a, b, c = args
                    kinds = (type(a), type(b), type(c))
                else:
                    kinds = tuple(map(type, args))
                concrete = self._fast_scalar.get(kinds)
                if concrete is not None and not context.busy:
                    return concrete.call(*args)
            key, values, arrays = [], [], 0
            for a in args:
                kind = type(a)
                if kind is EagerTensor:
                    v = a._value
                    if type(v) is np.ndarray:
                        key.append(v.dtype)
                        key.append(v.shape)
                    else:
                        key.append(type(v))
                    values.append(v)
                elif kind in _FAST_PYTHON_TYPES:
                    key.append(kind)
                    key.append(a if kind is not float else float_token(a))
                elif kind is np.ndarray:  # (a dtype numpy has but we do not: no entry, below)
                    key.append(a.dtype)
                    key.append(a.shape)
                    values.append(a)
                    arrays += 1
                elif kind in _FAST_NUMPY_SCALARS:
                    key.append(kind)
                    values.append(a)
                    arrays += 1
                else:
                    return self._call_general(args, kwargs)
            if arrays:
                key.append(_NUMPY_ARGUMENTS)
            guards = self._guards
            now = guards.values() if guards.found else None  # read once: threads change them
            key = tuple(key) if now is None else (tuple(key), now)
            concrete = self._fast.get(key)
            if concrete is not None:
                if context.busy:
                    return self._call_busy(concrete, args)
                if arrays == len(values) and self._options.numpy_results:
                    numpy_call = concrete.numpy_call()
                    if numpy_call is not None:
                        return numpy_call(*values)
                    return _numpy_results(concrete, concrete.call(*values))
                return concrete.call(*values)
            return self._call_general(args, kwargs, (key, values), now)
        except Exception as e:  # noqa: BLE001 - re-raised, showing the user's frames
            raise traceback_filtering.filtered(e)

    def _call_busy(self, concrete, args):
        """A fast-path call while a graph is built or a tape records on some thread: on this
        one, it is inlined or recorded (numpy arguments, which a tape would not see as the
        tensors the general path makes of them, take the general path)."""
        if context.current_graph() is not None or any(
                type(a) is np.ndarray or type(a) in _FAST_NUMPY_SCALARS for a in args):
            return self._call_general(args, {})
        tensors = [a for a in args if type(a) is EagerTensor]
        if context.recording_tapes():
            return calls.call_concrete(concrete, tensors)
        return concrete.call(*[t._value for t in tensors])

    def _call_general(self, args, kwargs, fast=None, guard_values=None):
        """Any call; `fast`: (its fast-path key, the numpy values of its tensors) when the fast
        path missed, `guard_values`: the guarded values it read."""
        arguments = self._binder.bind(args, kwargs)
        if context.busy and context.current_graph() is not None:  # a caller is being traced
            if any(isinstance(v, TensorList) for _, value in arguments
                   for v in nest.flatten(value)):
                return self._tracer.run_python(arguments)  # its staged list: traced as its part
            return self._call_while_tracing(arguments, self._key(arguments, guard_values))
        callees = self._guards.of_callees(arguments)
        if callees:  # (what a function argument reads is not in the fast path's key)
            fast = None
        key = self._key(arguments, guard_values, callees)
        concrete = self._concrete_for(arguments, key)
        leaves = _tensor_leaves(arguments)
        pending = concrete.pending_outside  # (a new trace's values for outside containers)
        if pending is not None:
            concrete.pending_outside = None
            try:
                result = self._call_concrete(concrete, leaves, args, kwargs, fast)
            except BaseException:
                pending.abandon()
                raise
            pending.settle(leaves)
            return result
        return self._call_concrete(concrete, leaves, args, kwargs, fast)

    def _call_concrete(self, concrete, leaves, args, kwargs, fast):
        """Calls `concrete` with the tensor `leaves` of the bound arguments of the call of
        `args`, `kwargs` (`fast` as for _call_general)."""
        if concrete.in_place_arguments:  # (an input_signature converts them: the call's own)
            _refuse_arrays_changed_in_place(concrete, leaves if self._binder.input_signature
                                            is None else nest.flatten(list(args)))
            fast = None  # (its key does not tell a numpy array from a tensor)
        if context.busy and context.recording_tapes():
            return calls.call_concrete(concrete, leaves)  # recorded by a tape
        values = [_as_value(v) for v in leaves]
        if fast is not None and _same_values(values, fast[1]):  # none came from a default, and
            self._fast[fast[0]] = concrete  # the fast path would pass what this call passes
            key = fast[0]
            if (type(key) is tuple and len(key) >= 2 and key[-1] is _NUMPY_ARGUMENTS
                    and all(k in _FAST_NUMPY_SCALARS for k in key[:-1])
                    and not self._options.numpy_results):  # (numpy scalars alone)
                self._fast_scalar[key[0] if len(key) == 2 else key[:-1]] = concrete
            if not self._guards.found:  # (keys with guarded values are the fast path's)
                install_entry(self, concrete, args, _FAST_NUMPY_SCALARS,
                              self._options.numpy_results)
        result = concrete.call(*values)
        if self._check or config.checking_functions():
            checking.check_call(self, concrete, args, kwargs, values, result)
        # (by the call's own arguments: an input_signature made tensors of its numpy ones)
        if self._options.numpy_results and not any(
                isinstance(v, Tensor) for v in nest.flatten((args, kwargs))):
            return _numpy_results(concrete, result)
        return result

    def _key(self, arguments, guard_values=None, callees=None):
        """The signature key of `arguments`, with the guarded values (`guard_values`: as the
        caller read them, else read now) and those of the functions among them (`callees`,
        FunctionGuards.of_callees, else read now), before them."""
        guards = self._guards
        guards.find()
        guarded = (guards.key(guard_values),) if guards.found else ()
        if callees is None:
            callees = guards.of_callees(arguments)
        return self._traces.key(arguments, callees + guarded)

    def _concrete_for(self, arguments, key):
        """The concrete function for `key`: cached, or traced now (once: threads asking for it
        meanwhile wait for the trace and use it)."""
        concrete = self._traces.lookup(key)
        if concrete is None:
            with self._lock:
                concrete = self._traces.lookup(key) or self._tracer.trace(self, arguments, key)
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
                    trace[0]._guards.adopt(self._guards, trace[1])
                leaves = _tensor_leaves(arguments)
                _note_in_place_arguments(concrete, leaves)
                return calls.call_concrete(concrete, leaves)
        return self._tracer.run_python(arguments)

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
        concrete = self._traces.exact(key)
        if concrete is None:
            with self._lock:
                concrete = self._traces.exact(key) or self._tracer.trace(
                    self, arguments, key, exact=True)
        elif concrete.unknown_dim_read is not None:  # (as tracing it now would report)
            context.note_dim_read(concrete.unknown_dim_read)
        return concrete


_ENTRY_SLOT = CallPaths.__dict__["__call__"]


def _refuse_arrays_changed_in_place(concrete, leaves) -> None:
    """Refuses a call that passes a numpy array where the function applies an in-place operator
    (`x *= 2`) to the argument: plain Python changes the caller's array, a graph cannot."""
    for index, origin in concrete.in_place_arguments:
        if type(leaves[index]) is np.ndarray:
            raise OperatorNotAllowedInGraphError(with_origin(
                "An in-place operator (`x += y`, `x *= y`, ...) on an argument that is a numpy "
                "array (or on a view of it: a slice `x[1:]`, `x.T`, `x.reshape(...)`) changes "
                "the caller's array in plain Python, and a graph never writes "
                "into its arguments. Make a new value and return it (`x = x * y` ... "
                "`return x`; the caller writes `a = f(a)`), copy first (`x = x.copy()`), or "
                "pass a tensor (rt.constant(a)), which `x *= y` rebinds.", origin))


def _note_in_place_arguments(concrete, leaves) -> None:
    """A callee taken into a caller's graph that applies an in-place operator to an argument:
    where the caller passed its own argument there, the caller's trace notes it too."""
    for index, origin in concrete.in_place_arguments:
        leaf = leaves[index]
        if isinstance(leaf, SymbolicTensor):
            leaf.op.graph.note_in_place(leaf, origin)


def _tensor_leaves(arguments) -> list:
    """The tensor leaves of bound arguments, in the order of a trace's inputs."""
    return [v for v in nest.flatten([v for _, v in arguments]) if is_tensor_leaf(v)]


def _as_tensor(value):
    if isinstance(value, Tensor):
        return value

    return convert_to_tensor(value)


def _numpy_results(concrete, result):
    """A call's results as numpy values (`numpy_results=True`, numpy arguments); those that
    stand for Python numbers (see ConcreteFunction.python_number_outputs) as Python numbers,
    strings as `str`, a list a graph loop built as a list of numpy values, a shape as a
    tuple."""
    kind = type(result)
    numbers = concrete.python_number_outputs
    if kind is EagerTensor:
        return _numpy_leaf(result, numbers[0])
    if concrete.flat_number_outputs:  # (the common case)
        return kind([python_number(v._value) if number else v._value
                     for v, number in zip(result, numbers)])
    return _numpy_structure(concrete.structured_outputs, result, iter(numbers))


def python_number_results(concrete, result):
    """A call's results with those that stand for Python numbers (ConcreteFunction.
    python_number_outputs) as Python numbers, the others as they are: what the function gives
    called from converted code running eagerly, as the same code without the compiled boundary
    would (a counter, `r = 1.5 - 26`)."""
    if not any(concrete.python_number_outputs):
        return result
    return _numpy_structure(concrete.structured_outputs, result,
                            iter(concrete.python_number_outputs), _python_number_leaf)


def _python_number_leaf(value, number: bool):
    return python_number(value._value) if number and type(value) is EagerTensor else value


def _numpy_structure(structure, value, numbers, leaf=None):
    """`value` (results packed as `structure`, the traced outputs) with its leaves as numpy
    values (or as `leaf(value, number)` makes them); `numbers` yields the python_number_outputs
    flag of each leaf of `structure`."""
    if not nest.is_nested(structure) or isinstance(structure, TensorShape):
        return (leaf or _numpy_leaf)(value, next(numbers))
    children = {key: _numpy_structure(child, value[key], numbers, leaf)
                for key, child in nest.items(structure)}
    if isinstance(value, dict):
        return type(value)((key, children[key]) for key in value)
    items = [children[i] for i in range(len(value))]
    return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)


def _numpy_leaf(value, number: bool):
    if type(value) is EagerTensor:
        v = value._value
        if type(v) is bytes:
            return v.decode("utf-8", "replace")  # (a string: Python's str)
        return python_number(v) if number else v
    if isinstance(value, TensorShape):
        return tuple(value)
    if type(value) is list:  # a list a graph loop built (of Python numbers: `number`)
        return [_numpy_leaf(item, number) for item in value]
    return value


def _same_values(values, fast_values) -> bool:
    """Whether the fast path's values of a call (its arguments as they are) are the values the
    general path passes: the same arrays, numpy scalars of the same type (a converted scalar is
    an equal copy). An array the conversion changes (a dtype numpy has and tensors do not) or a
    tensor from a default keeps the call off the fast path."""
    return len(values) == len(fast_values) and all(
        v is f or (type(v) is type(f) and type(v) is not np.ndarray)
        for v, f in zip(values, fast_values))


def _as_value(value):
    if isinstance(value, EagerTensor):
        return value._value
    return _as_tensor(value)._value
