"""`rt.numpy_function`: an op that calls a Python function on numpy values when it runs.

Eagerly the function runs at once; in a graph the op's kernel calls it each time the graph runs.
What it returns is checked against the declared dtypes `Tout` (and shapes, `shape=`) on every
call: as in TensorFlow, nothing is cast, so a float64 result for a float32 output is an error
that names the function and the user's line (`np.asarray` turns Python lists and scalars into
arrays first, so a Python float is float64). A graph's tensors have a known rank, so in a graph
each output's shape must be declared with `shape=` (`None` for a dim known only when it runs).

The function's arguments are the numpy values of the tensors of `inp` (read-only: the graph may
read them again), and the other items of `inp` as they are. An exception it raises propagates
with its own type, with a note that names the user's line that called `rt.numpy_function`.

The op is opaque: no gradient (wrap the call in `rt.custom_gradient` to give one), no ONNX,
numba or XLA form, and it cannot be saved (a saved graph holds data, never Python code).
`stateful=True` (the default) keeps every call, in program order with the other effects
(printing, variable assignments, other calls); `stateful=False` lets the graph drop a call
whose results are unused, but a call is never merged with another, folded or moved, since
what the function computes is unknown. Nothing here is global state: the function may run on
several threads at once when they call one `rt.function`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from runtime.core import context, dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor, TensorShape, eager, normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import GraphLimitError, InvalidArgumentError, argument_error, with_origin
from runtime.ops.registry import (
    GRADIENT,
    JAX,
    NUMBA,
    ONNX,
    READS_STATE,
    constant_in_graph,
    define_op,
    lacks,
    record_on_tapes,
)
from runtime.variables import Variable


@dataclass(frozen=True, eq=False)
class PythonCall:
    """The op's one attr: the function, how its arguments are made from the op's inputs
    (`template`: `(True, None)` for the next input tensor, `(False, value)` for a Python value
    passed as it is), the declared output dtypes and shapes (`shapes` None: not declared), and
    the user's line that called `rt.numpy_function`. Calling it runs the function on the input
    values and returns the checked outputs as a tuple."""

    func: Callable[..., Any]
    template: tuple
    tout: tuple
    shapes: tuple | None
    single: bool  # Tout was one dtype: one output, not a list
    origin: object

    @property
    def name(self) -> str:
        return getattr(self.func, "__qualname__", repr(self.func))

    @property
    def label(self) -> str:
        return f"numpy_function({self.name})"

    def __repr__(self) -> str:
        return self.label

    def __call__(self, *values) -> tuple:
        inputs = iter(values)
        args = [_read_only(next(inputs)) if is_tensor else value
                for is_tensor, value in self.template]
        try:
            result = self.func(*args)
        except Exception as e:
            note = with_origin(f"raised by {self.name}, which rt.numpy_function called; the "
                               "call was made here:", self.origin)
            if note not in getattr(e, "__notes__", ()):
                if sys.version_info >= (3, 11):
                    e.add_note(note)
                else:  # (Python 3.10 has no add_note: the note is kept where 3.11 puts it)
                    e.__notes__ = [*getattr(e, "__notes__", []), note]  # type: ignore[attr-defined]
            # its own type and message: the note names the user's line
            e._rt_located = True  # type: ignore[attr-defined]  # (a flag on the user's exception)
            raise
        return self._checked(result)

    def _checked(self, result) -> tuple:
        results: tuple | list
        if self.single:
            results = (result,)
        elif not self.tout and result is None:
            results = ()
        elif isinstance(result, (list, tuple)) and len(result) == len(self.tout):
            results = result
        else:
            found = (f"{len(result)} values" if isinstance(result, (list, tuple))
                     else f"one {type(result).__name__}")
            count = len(self.tout)
            raise self._error(f"returned {found}, but Tout lists {count} dtype"
                              f"{'' if count == 1 else 's'}: return a tuple or list of one "
                              "value per dtype")
        return tuple(self._output(i, r) for i, r in enumerate(results))

    def _output(self, index, result):
        dtype = self.tout[index]
        which = "" if self.single else f" as output {index}"
        if dtype.is_string:
            array = _as_strings(result)
            if array is None:
                raise self._error(f"returned {type(result).__name__}{which}, but Tout says "
                                  "string: return str or bytes values")
        else:
            try:
                array = np.asarray(result)
            except ValueError as e:
                raise self._error(f"returned {type(result).__name__}{which}, which is not an "
                                  f"array: {e}") from None
            if array.dtype != dtype.np_dtype:
                raise self._error(
                    f"returned {array.dtype.name}{which}, Tout says {dtype.name}: return values "
                    f"of that dtype (e.g. result.astype(np.{dtype.np_dtype.name})); results "
                    "are not cast, as in TensorFlow")
        shape = None if self.shapes is None else self.shapes[index]
        if shape is not None and not shape.is_compatible_with(np.shape(array)):
            raise self._error(f"returned the shape {list(np.shape(array))}{which}, but shape= says "
                              f"{_shape_text(shape)}")
        return normalize(array)

    def _error(self, message: str) -> InvalidArgumentError:
        error = argument_error(InvalidArgumentError, with_origin(f"{self.label} {message}.",
                                                                 self.origin))
        error._rt_located = True
        return error


def _read_only(value):
    """The function's view of an input value: arrays read-only (the graph may read the value
    again; numpy scalars and bytes are immutable)."""
    if isinstance(value, np.ndarray):
        value = value.view()
        value.flags.writeable = False
    return value


def _as_strings(result):
    """A string result as the runtime holds strings (bytes, or an object array of bytes), or
    None when it is not strings."""
    if not isinstance(result, (str, bytes)):
        try:
            array = np.asarray(result)
        except ValueError:
            return None
        if array.dtype.kind not in "SU" and not (
                array.dtype.kind == "O" and all(isinstance(v, (str, bytes)) for v in array.flat)):
            return None
    return eager(result, dtypes.string).numpy()


def _shape_text(shape) -> str:
    return "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]"


def _call_kernel(*values, call):
    return call(*values)


def _infer(inputs, *, call):
    if not isinstance(call, PythonCall):
        raise argument_error(
            TypeError,
            "the attr 'call' must be the Python function call that "
            "rt.numpy_function makes (no file can hold one)",
        )
    if sum(is_tensor for is_tensor, _ in call.template) != len(inputs):
        raise argument_error(
            ValueError,
            f"{call.label} has {len(inputs)} inputs, its arguments take "
            f"{sum(t for t, _ in call.template)} tensors",
        )
    if call.shapes is None and call.tout:
        raise GraphLimitError(
            f"{call.label} in a graph needs the shape of each output, as a graph's tensors have "
            "a known number of dims: pass shape= (e.g. shape=[None] for a vector whose length "
            "is known only when it runs, shape=[] for a scalar; with a list Tout, a list of "
            "shapes)")
    return [(dtype, shape) for dtype, shape in zip(call.tout, call.shapes or ())]


NUMPY_FUNCTION = define_op("NumpyFunction", infer=_infer, kernel=_call_kernel, stateful=True,
                           tuple_outputs=True)
NUMPY_FUNCTION_STATELESS = define_op("NumpyFunctionStateless", infer=_infer, kernel=_call_kernel,
                                     groups=[READS_STATE], tuple_outputs=True)
_CALLS = (NUMPY_FUNCTION, NUMPY_FUNCTION_STATELESS)
lacks(GRADIENT, "rt.numpy_function calls an opaque Python function; wrap the call in "
      "rt.custom_gradient to give one", *_CALLS)
lacks(ONNX, "rt.numpy_function calls a Python function, and an ONNX model holds no Python code "
      "(ONNX runtimes cannot call back into Python)", *_CALLS)
lacks(NUMBA, "rt.numpy_function calls a Python function, which code that numba compiles "
      "cannot call", *_CALLS)
lacks(JAX, "rt.numpy_function calls a Python function, which XLA cannot compile", *_CALLS)


def numpy_function(func, inp, Tout, stateful=True, name=None, *, shape=None):  # noqa: N803
    """Calls `func` on the numpy values of the tensors in `inp` (other items of `inp` are passed
    as they are) and returns its results as tensors of the dtypes `Tout`: one tensor for one
    dtype, a list of tensors for a list of dtypes. In a graph it is an op that calls `func`
    every time the graph runs; `shape` declares each output's shape there (None for a dim
    known only at run time). See runtime/ops/python_call_ops.py for what is checked, and what
    `stateful` changes."""
    origin = user_origin()
    if not callable(func):
        raise argument_error(
            TypeError,
            with_origin(f"rt.numpy_function takes a callable, got {type(func).__name__}.", origin),
        )
    if not isinstance(inp, (list, tuple)):
        raise argument_error(TypeError, with_origin(
            f"rt.numpy_function takes `inp` as a list of arguments, got {type(inp).__name__}; "
            "write [x] for one argument.", origin))
    if name is not None and not isinstance(name, str):
        raise argument_error(
            TypeError, with_origin(f"name must be a string, got {type(name).__name__}.", origin)
        )
    single = not isinstance(Tout, (list, tuple))
    tout = tuple(_dtype(d, origin) for d in ([Tout] if single else Tout))
    shapes = _shapes(shape, tout, single, origin)
    tensors, template = [], []
    for item in inp:
        if isinstance(item, (Tensor, Variable)):
            tensor = convert_to_tensor(item)
            if tensor.dtype.is_list:
                raise argument_error(TypeError, with_origin(
                    "rt.numpy_function passes tensors to the function as numpy arrays; a "
                    "staged list is not one: stack it first (rt.stack).", origin))
            tensors.append(tensor)
            template.append((True, None))
        else:
            template.append((False, item))
    call = PythonCall(func, tuple(template), tout, shapes, single, origin)
    opdef = NUMPY_FUNCTION if stateful else NUMPY_FUNCTION_STATELESS
    graph = context.current_graph()
    if graph is None:
        for t in tensors:
            if not isinstance(t, EagerTensor):
                raise argument_error(ValueError, with_origin(
                    f"rt.numpy_function got the symbolic tensor {t.name} outside of the "
                    "function that created it; return it from the function instead of storing "
                    "it.", origin))
        inputs = tensors
        outputs = [EagerTensor(v, d) for v, d in zip(call(*[t._value for t in tensors]), tout)]
    else:
        inputs = [t if isinstance(t, SymbolicTensor) else constant_in_graph(graph, t)
                  for t in tensors]
        try:
            specs = _infer(inputs, call=call)
        except GraphLimitError as e:
            raise GraphLimitError(with_origin(str(e) + ".", origin)) from None
        op = graph.create_op(opdef, inputs, {"call": call}, specs, origin, name=name)
        outputs = list(op.outputs)
    if context.recording_tapes():
        record_on_tapes(opdef, tensors, inputs, {"call": call}, outputs, origin)
    return outputs[0] if single else outputs


def _dtype(value, origin):
    try:
        dtype = dtypes.as_dtype(value)
    except TypeError as e:
        raise argument_error(
            TypeError, with_origin(f"rt.numpy_function: Tout: {e}", origin)
        ) from None
    if dtype.is_list:
        raise argument_error(
            TypeError,
            with_origin(
                f"rt.numpy_function returns tensors; Tout cannot be a list dtype ({dtype.name}).",
                origin,
            ),
        )
    return dtype


def _shapes(shape, tout, single, origin):
    """The declared output shapes (TensorShapes), or None when `shape` is None."""
    if shape is None:
        return None
    given = [shape] if single else shape
    if not isinstance(given, (list, tuple)) or len(given) != len(tout):
        raise argument_error(ValueError, with_origin(
            f"rt.numpy_function: Tout lists {len(tout)} dtypes, so shape= must be a list of "
            f"{len(tout)} shapes, got {shape!r}.", origin))
    found = []
    for s in given:
        if not isinstance(s, (list, tuple)) or not all(
                d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                              and d >= 0) for d in s):
            raise argument_error(ValueError, with_origin(
                f"rt.numpy_function: a shape is a list of dims (ints >= 0, or None for a dim "
                f"known only when it runs), got {s!r}.", origin))
        found.append(TensorShape(None if d is None else int(d) for d in s))
    return tuple(found)
