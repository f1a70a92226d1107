"""The runtime as an autograph backend: staged control flow on symbolic tensors.

Registers `RuntimeBackend` with autograph on import. Symbolic tensors (graph values while
tracing) are *staged*: `if`/`while`/`for` on them become `If`/`While` ops; eager tensors run as
plain Python. `for` over a `Range` op loops over the index without materialising the range;
over any other tensor it loops over dim 0. A list appended to in a graph loop becomes a
stacked tensor that grows along dim 0. A `for` over an `rt.data.Dataset` while a graph is
built is one graph loop too: the dataset gives its count and items (runtime/data/).
"""

from __future__ import annotations

import numpy as np

import autograph
from autograph import frames
from runtime import config, nest
from runtime.core import context, dtypes, source_info
from runtime.core.graph import Graph
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.core.tensor_conversion import (
    convert_to_tensor,
    is_python_scalar,
    is_weak,
    python_scalar_fits,
    weak_dtype,
    weak_fits,
)
from runtime.data import graph_iteration
from runtime.data.dataset import Dataset
from runtime.errors import (
    ArgumentError,
    Error,
    GraphLimitError,
    NumpyUnsupportedError,
    OperatorNotAllowedInGraphError,
    with_origin,
)
from runtime.numpy import dispatch as numpy_dispatch
from runtime.ops import array_ops, creation_ops, io_ops, math_ops, reduction_ops, string_ops
from runtime.ops.registry import constant_in_graph
from runtime.tensor_list import TensorList, item_spec, present, widened
from runtime.tracing import call_paths, outside_state, python_builtins
from runtime.tracing.call_paths import CallPaths
from runtime.tracing.function import Function
from runtime.tracing.python_builtins import one_element, to_float, to_int, truth
from runtime.tracing.staged_control_flow import cond, while_loop

_PYTHON_DTYPES = {int: dtypes.int32, float: dtypes.float32, bool: dtypes.bool_}


def _zeros(shape, dtype):
    """A zeros tensor in the graph being built (a Const op, so it is a staged value)."""
    return constant_in_graph(context.current_graph(), creation_ops.zeros(shape, dtype))


def _item_spec(items):
    """(dtype, shape, weak) of the items of a list after a construct appended to it."""
    if isinstance(items, TensorList):
        return items.dtype, items.element_shape, items.weak
    return item_spec(items[-1])


source_info.use_rule(frames.user_origin_of, frames.user_stacklevel,
                     autograph.not_converted_reason)  # which code is the user's: autograph's rule


def _error_state(fn, args, kwargs):
    """`np.errstate(...)` / `np.seterr(...)` called while a graph is built: the graph's ops run
    after tracing, outside it, so numpy's errors would not be raised (nor its warnings silenced)
    there. Modes that raise or call are refused at the user's line (a silent inf or nan instead
    of Python's FloatingPointError); "ignore" and "warn" run as numpy's (the graph may warn)."""
    modes = [*args, *kwargs.values()]
    if any(mode in ("raise", "call", "print", "log") for mode in modes):
        written = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
        raise OperatorNotAllowedInGraphError(with_origin(
            f"np.{fn.__name__}({written}) in a function traced into a graph: the graph's ops "
            "run after tracing, outside it, so numpy would not raise where Python does. Check "
            "the values instead "
            "(`assert np.all(np.isfinite(y))`, which the graph checks when it runs), or run "
            "this part eagerly.", user_origin()))
    return fn(*args, **kwargs)


def _raised_in_op_code(exc) -> bool:
    """Whether the innermost Python frame of `exc` is the op library's (runtime.ops, runtime.
    numpy): a builtin or numpy function it called raised it (`int(axis)` of a bad axis), as the
    same call does eagerly. (What the library raises itself is marked: ArgumentError.)"""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    module = tb.tb_frame.f_globals.get("__name__", "") if tb is not None else ""
    return module.startswith(("runtime.ops.", "runtime.numpy."))


# numpy's functions that give Python numbers (a shape's dims, a count): their results stay the
# stand-ins of Python numbers.
_PYTHON_NUMBER_RESULTS = (np.shape, np.ndim, np.size)


class RuntimeBackend(autograph.Backend):
    """Stages control flow on `SymbolicTensor`s with `rt.cond` / `rt.while_loop`."""

    modules = ("runtime",)
    limit_errors = (OperatorNotAllowedInGraphError, GraphLimitError)

    def raises_as_python(self, exc) -> bool:
        # An op's refusal of its arguments: the same call raises it eagerly. Control flow,
        # conversion and tracing are graph limits.
        if isinstance(exc, self.limit_errors):
            return False
        return isinstance(exc, ArgumentError) or (
            isinstance(exc, (TypeError, ValueError)) and _raised_in_op_code(exc))

    def is_tensor(self, value) -> bool:
        return isinstance(value, (Tensor, TensorList))

    def writes_items(self, value) -> bool:
        return not isinstance(value, Tensor)

    def is_staged(self, value) -> bool:
        return isinstance(value, (SymbolicTensor, TensorList)) or (
            isinstance(value, Dataset) and self.building_graph())

    def converts(self, value) -> bool:
        return isinstance(value, np.ndarray) and value.dtype.kind in "biufc"

    def building_graph(self) -> bool:
        return context.busy != 0 and context.current_graph() is not None

    def ops_built(self) -> int:
        graph = context.current_graph()
        return 0 if graph is None else graph.ops_named

    def cond(self, pred, true_fn, false_fn, names):
        return cond(truth(pred), true_fn, false_fn, names=names)

    def while_loop(self, test, body, loop_vars, names):
        return while_loop(lambda *v: truth(test(*v)), body, loop_vars, names=names)

    def for_loop(self, iterated, extra_test, body, loop_vars, names):
        if isinstance(iterated, TensorList):
            start, delta, count = 0, 1, iterated.size()

            def in_range(i):
                return math_ops.less(i, count)

            def item(i):
                return iterated[i]
        elif isinstance(iterated, Dataset) or (isinstance(iterated, tuple) and any(
                isinstance(part, Dataset) for part in iterated)):  # its count and items
            start, delta = 0, 1
            count, item, body = graph_iteration.loop(iterated, body)

            def in_range(i):
                return math_ops.less(i, count)
        elif not isinstance(iterated, tuple) and iterated.op.opdef is creation_ops.RANGE:
            start, limit, delta = iterated.op.inputs
            upward = math_ops.greater(delta, 0)

            def in_range(i):
                return math_ops.logical_or(
                    math_ops.logical_and(upward, math_ops.less(i, limit)),
                    math_ops.logical_and(math_ops.logical_not(upward), math_ops.greater(i, limit)),
                )

            def item(i):
                return python_builtins.weak(i) if iterated.weak else i
        else:  # dim 0 of a tensor, or of several in lockstep (zip: the shortest ends the loop;
            # a staged list among them: its items, `enumerate(lst)`)
            tensors = iterated if isinstance(iterated, tuple) else (iterated,)
            if any(not isinstance(t, TensorList) and len(t.shape) == 0 for t in tensors):
                raise TypeError(with_origin("Cannot iterate over a 0-d tensor (a scalar).",
                                            user_origin()))  # (as eagerly: numpy's 0-d array)
            start, delta = 0, 1
            counts = [t.size() if isinstance(t, TensorList) else array_ops.shape(t)[0]
                      for t in tensors]
            count = counts[0]
            for other in counts[1:]:
                count = math_ops.minimum(count, other)

            def in_range(i):
                return math_ops.less(i, count)

            def item(i):
                items = tuple(t[i] if isinstance(t, TensorList)
                              else python_builtins.weak(array_ops.getitem(t, i))  # x[i]
                              if getattr(t, "weak", False) else array_ops.getitem(t, i)
                              for t in tensors)  # (enumerate's count: Python ints)
                return items if isinstance(iterated, tuple) else items[0]

        def loop_test(i, *current):
            ok = in_range(i)
            if extra_test is None:
                return ok
            more = extra_test(*current)
            if not isinstance(more, Tensor):
                return ok if more else False
            return math_ops.logical_and(ok, truth(more))

        def loop_body(i, *current):
            return (i + delta, *body(item(i), *current))

        init = (convert_to_tensor(start, dtypes.int32) if not isinstance(start, Tensor) else start,)
        init += tuple(loop_vars)
        names = ("<iteration>", *(names or ()))
        return tuple(while_loop(loop_test, loop_body, init, names=names))[1:]

    def dry_run(self, fn):
        scratch = Graph("autograph_dry_run", outer=context.current_graph(), scratch=True)
        with scratch.as_default():
            return fn()

    def placeholder(self, value):
        """A stand-in for `value`; weak for a Python scalar or weak tensor (it takes the dtype
        of the tensors it meets, like the value it stands for)."""
        if isinstance(value, TensorList):
            handle = context.current_graph().add_input(value.handle.dtype, value.element_shape)
            handle.weak = value.weak
            handle.op.graph.note_view(value.handle, handle)  # (its items' views of an argument)
            return TensorList(handle)
        if isinstance(value, Tensor) or type(value) in _PYTHON_DTYPES or self.converts(value):
            tensor = convert_to_tensor(value, weak_dtype(value) if is_python_scalar(value)
                                       else None)
            graph = context.current_graph()
            placeholder = graph.add_input(tensor.dtype, tensor.shape)
            placeholder.weak = is_weak(value)
            if isinstance(value, SymbolicTensor):  # (`x += dx` in a loop: the same argument)
                argument = value.op.graph.argument_inputs.get(id(value))
                if argument is not None:
                    graph.argument_inputs[id(placeholder)] = argument
            return placeholder
        return value

    def item_placeholder(self, iterated):
        if isinstance(iterated, Dataset):
            return graph_iteration.placeholder(iterated)
        if isinstance(iterated, tuple):
            return tuple(self.item_placeholder(t) for t in iterated)
        if isinstance(iterated, TensorList):
            iterated.check_items_readable()
            item = context.current_graph().add_input(iterated.dtype, iterated.element_shape)
            if item.shape:  # (an array item may be a view of an argument)
                item.op.graph.note_view(iterated.handle, item)
        else:  # (a `range` stands for Python ints: weak)
            item = context.current_graph().add_input(iterated.dtype, iterated.shape[1:])
        item.weak = iterated.weak
        return present(item)

    def zeros_like(self, value):
        if isinstance(value, TensorList):
            return TensorList.from_items([], value.dtype, value.element_shape, value.weak)
        shape = tuple(0 if d is None else d for d in value.shape)
        zeros = _zeros(shape, value.dtype)
        zeros.weak = value.weak  # a fill for a Python number is one too: its dtype may change
        return zeros

    def empty_list_like(self, items):
        if isinstance(items, list) and not items:
            raise ValueError(
                "autograph: cannot infer the item type of a list that the loop never appends "
                "to; give the list an initial item, or create it as a tensor.")
        return TensorList.from_items([], *_item_spec(items))

    def to_list(self, value, like):
        if isinstance(value, TensorList):
            return value
        dtype, _, weak = _item_spec(like)
        dtype = widened(dtype, value)
        # Python numbers (and their stand-ins) take the dtype of the items appended later, if
        # they keep their value; so do float tensors that Python floats join later (numpy's
        # array of them is float64)
        joins_later = weak and dtype is dtypes.float64
        if all(is_python_scalar(v) and python_scalar_fits(v, dtype)
               or isinstance(v, Tensor) and (v.weak and weak_fits(v.dtype, dtype)
                                             or joins_later and v.dtype.is_floating)
               for v in value):
            return TensorList.from_items(value, dtype)
        return TensorList.from_items(value)

    def list_append(self, lst, value):
        lst.append(value)
        return lst

    def logical_not(self, x):
        result = math_ops.logical_not(truth(x))
        result.weak = True  # `not x` is a Python bool: `(not x) + 1` is a Python int
        return result

    def print(self, values, sep, end):
        return io_ops.print(*values, sep=sep, end=end)

    def assert_(self, cond, message, raises=None, origin=None):
        if isinstance(raises, (ArgumentError, Error)):
            raises = None  # (an op's refusal: the graph's own InvalidArgumentError says it)
        return io_ops.assert_true(truth(cond), message, raises, origin)

    def range(self, start, limit, delta):
        start, limit, delta = (one_element(v, "range()") if isinstance(v, Tensor) and v.shape
                               else v for v in (start, limit, delta))
        if isinstance(delta, SymbolicTensor):
            io_ops.assert_true(math_ops.not_equal(delta, 0), "range() arg 3 must not be zero")
        elif delta == 0:
            raise ValueError(with_origin("range() arg 3 must not be zero", user_origin()))
        for value in (start, limit, delta):
            kind = value.dtype if isinstance(value, Tensor) else None
            if (kind is not None and not (kind.is_integer or kind.is_bool)) or isinstance(
                    value, float):
                shown = f"numpy.{kind.np_dtype.name}" if kind is not None else "float"
                raise TypeError(with_origin(
                    f"'{shown}' object cannot be interpreted as an integer (range() takes "
                    "integers; rt.range takes floats too)", user_origin()))
        # Python's range gives Python ints: weak, at least int32 (int64 for int64 bounds)
        dtype = creation_ops.range_dtype([start, limit, delta])
        if dtype.is_bool or dtype.np_dtype.itemsize < 4:
            dtype = dtypes.int32
        for value in (start, limit, delta):  # (a Python int's stand-in keeps its width)
            if isinstance(value, Tensor) and value.weak and dtype.is_integer and (
                    value.dtype.np_dtype.itemsize > dtype.np_dtype.itemsize):
                dtype = value.dtype
        result = creation_ops.range(start, limit, delta, dtype=dtype)
        graph = context.current_graph()
        if graph is not None and not isinstance(result, SymbolicTensor):
            result = constant_in_graph(graph, result)  # (enumerate's count of a known length)
        if isinstance(result, SymbolicTensor):
            result.weak = True
        return result

    def len(self, x):
        if isinstance(x, Dataset):
            return graph_iteration.length(x)
        if isinstance(x, TensorList):
            length = math_ops.cast(x.size(), dtypes.int64)
        elif x.shape and x.shape[0] is not None:
            return x.shape[0]
        else:
            length = array_ops.shape(x, out_type=dtypes.int64)[0]
        length.weak = True  # (a new graph tensor: the stand-in of the Python int len() gives)
        return length

    def cast(self, x, python_type):
        if python_type is bool:  # (a Python bool: weak, `bool(x) + 1` is an int)
            return python_builtins.weak(truth(x))
        return to_int(x) if python_type is int else to_float(x)

    def builtin(self, fn, args, kwargs):
        return python_builtins.call(fn, args, kwargs)

    def calls(self, fn) -> bool:
        return isinstance(fn, CallPaths)

    def call_from_converted_code(self, fn, args, kwargs):
        """A compiled function called by converted code: while a graph is built, taken into it
        (its Python numbers' stand-ins stay weak); eagerly, its results that stand for Python
        numbers as Python numbers, as the code without the boundary gives them."""
        result = fn(*args, **kwargs)
        if (context.current_graph() is not None or not isinstance(fn, Function)
                or config.functions_run_eagerly()  # (ran as Python: no trace to ask)
                or not any(type(v) is EagerTensor for v in nest.flatten(result))):
            return result
        return call_paths.python_number_results(fn.get_concrete_function(*args, **kwargs),
                                                result)

    def numpy_call(self, fn, args, kwargs):
        if fn is np.errstate or fn is np.seterr:
            return _error_state(fn, args, kwargs)
        implementation = numpy_dispatch.lookup(fn)
        if self.building_graph():
            if implementation is None:
                raise numpy_dispatch.unsupported(fn)
            result = implementation(*args, **kwargs)
            if fn in _PYTHON_NUMBER_RESULTS:
                return result
            # (numpy's functions of Python numbers give numpy scalars: np.abs(n) is np.int64)
            if type(result) is tuple:
                return tuple(python_builtins.strong(r) for r in result)
            return python_builtins.strong(result)
        if implementation is not None:  # eager values only: what runtime.numpy does not
            try:  # compute, numpy computes on the values, as in plain Python
                return implementation(*args, **kwargs)
            except NumpyUnsupportedError:
                pass
        return fn(*args, **kwargs)

    def staged_write(self, slot, saved, origin, construct=True):
        context.note_staged_write(outside_state.Write(slot, saved, origin, construct))

    # Formatting, `bool(x)` and `x in t`.
    def format(self, template, style, values):
        text = string_ops.format(template, *values, style=style)
        return text if isinstance(text, SymbolicTensor) else string_ops.decoded(text.numpy())

    def join_strings(self, separator, items):
        for index, item in enumerate(items):
            if not (isinstance(item, str) or isinstance(item, Tensor) and item.dtype.is_string
                    and not item.shape):
                what = (f"{item.dtype.name} tensor of shape {list(item.shape)}"
                        if isinstance(item, Tensor) else type(item).__name__)
                raise TypeError(with_origin(
                    f"sequence item {index}: expected str instance, {what} found",
                    user_origin()))
        text = string_ops.join(items, separator)
        return text if isinstance(text, SymbolicTensor) else string_ops.decoded(text.numpy())

    def contains(self, container, item):
        if not container.shape:  # a 0-d value is a numpy scalar, which is not a container
            raise TypeError(with_origin(
                f"argument of type 'rt.Tensor' (0-d, {container.dtype.name}) is not iterable",
                user_origin()))
        return reduction_ops.reduce_any(container == item)


autograph.register_backend(RuntimeBackend())
