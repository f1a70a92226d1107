"""`rt.Variable`: mutable state that graphs read and write when they run (never baked in).

A graph refers to a variable by its unique name; the graph's `variables` table maps the name to
the object, which the executor binds when it compiles the graph.

Updates of one variable are atomic: assign, assign_add and assign_sub (eager, or ops of graphs
running on other threads) hold the variable's lock while they read and write its value.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from runtime.core import context, dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, TensorShape
from runtime.core.tensor_conversion import convert_to_tensor, register_conversion
from runtime.errors import InvalidArgumentError, with_origin
from runtime.executor.interpreter import evaluate_outside
from runtime.ops.registry import GRADIENT, READS_STATE, apply, define_op, lacks

_ids = itertools.count()
_scopes = threading.local()  # .names: the name scopes open on this thread, outermost first


@contextlib.contextmanager
def name_scope(name: str):
    """Variables created inside the block have names starting `name/` (scopes nest)."""
    if not isinstance(name, str) or not name or "/" in name:
        raise ValueError(f"a name scope is a non-empty name without '/', got {name!r}.")
    names = _scopes.__dict__.setdefault("names", [])
    names.append(name)
    try:
        yield name
    finally:
        names.pop()


def current_name_scope() -> str:
    """The open name scopes, outermost first, joined by '/' ('' outside any)."""
    return "/".join(getattr(_scopes, "names", ()))


def _scoped(name: str) -> str:
    return "/".join([*getattr(_scopes, "names", ()), name])


def _read_kernel(*, variable):
    return variable.value_


def _checked(variable, value):
    """`value` if it fits `variable`'s shape (in a graph its shape may have been unknown)."""
    if not variable.shape.is_compatible_with(np.shape(value)):
        raise InvalidArgumentError(
            f"cannot assign a value of shape {list(np.shape(value))} to variable "
            f"{variable.name} of shape {list(variable.shape)}"
        )
    return value


def _assign_kernel(value, *, variable):
    value = _checked(variable, value)
    with variable._lock:
        variable.value_ = value
        variable.version += 1
    return ()


def _assign_add_kernel(value, *, variable):
    with variable._lock:
        variable.value_ = _checked(variable, variable.value_ + value)
        variable.version += 1
    return ()


def _assign_sub_kernel(value, *, variable):
    with variable._lock:
        variable.value_ = _checked(variable, variable.value_ - value)
        variable.version += 1
    return ()


READ = define_op(
    "ReadVariableOp",
    infer=lambda inputs, *, variable: [(variable.dtype, variable.shape)],
    kernel=_read_kernel,
    groups=[READS_STATE],
)
ASSIGN = define_op(
    "AssignVariableOp", infer=lambda i, **a: [], kernel=_assign_kernel, stateful=True
)
ASSIGN_ADD = define_op(
    "AssignAddVariableOp", infer=lambda i, **a: [], kernel=_assign_add_kernel, stateful=True
)
ASSIGN_SUB = define_op(
    "AssignSubVariableOp", infer=lambda i, **a: [], kernel=_assign_sub_kernel, stateful=True
)
lacks(GRADIENT, "a tape maps each read to its variable (GradientTape.record_read)", READ)
lacks(GRADIENT, "no outputs: assignments are not differentiated", ASSIGN, ASSIGN_ADD,
      ASSIGN_SUB)


class Variable:
    """A named, mutable tensor. Functions read its value on every call."""

    __array_priority__ = 100  # `array * variable` is the variable's operator (a tape sees it)
    # (installed below the class)
    __array__: ClassVar[Callable[..., np.ndarray]]
    __eq__: ClassVar[Callable[[Variable, Any], Any]]
    __ne__: ClassVar[Callable[[Variable, Any], Any]]
    __hash__: ClassVar[Callable[[Variable], int]]

    def __init__(self, initial_value: Any, trainable: bool = True, *, name: str | None = None,
                 dtype: dtypes.DTypeLike | None = None,
                 shape: Sequence[int | None] | None = None) -> None:
        """`shape` may have None dims: assignments may then change those dims."""
        if callable(initial_value):
            with context.eager_scope():
                initial_value = initial_value()
        value = _lift(convert_to_tensor(initial_value, dtype))
        self.dtype = value.dtype
        self.shape = TensorShape(value.shape if shape is None else shape)
        if not self.shape.is_compatible_with(value.shape):
            raise ValueError(
                f"The initial value of shape {list(value.shape)} does not fit the variable's "
                f"shape {list(self.shape)}."
            )
        # A copy: the caller's array must not alias the variable's state.
        self.value_ = value._value.copy() if isinstance(value._value, np.ndarray) else value._value
        self.name = f"{_scoped(name or 'Variable')}_{next(_ids)}"
        self.trainable = trainable
        self._lock = threading.Lock()  # held by updates (see the kernels above)
        self.version = 0  # how many assignments it has had (a gradient checks it is unchanged)
        # the user's line that made it while a function was traced (named if that is refused)
        self._origin = user_origin() if context.current_graph() is not None else None
        context.note_variable_created(self)

    # ---- pickling (by value; the copy is a new variable, with a name of its own) ----
    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.name = f"{self.name.rpartition('_')[0] or 'Variable'}_{next(_ids)}"
        self._lock = threading.Lock()

    # ---- reading ----
    def read_value(self):
        """The current value (a graph read op when tracing)."""
        graph = context.current_graph()
        if graph is None:
            tensor = EagerTensor(self.value_, self.dtype)
            for tape in context.recording_tapes():
                tape.record_read(self, tensor)
            return tensor
        graph.variables[self.name] = self
        return apply(READ, [], {"variable": self})

    def value(self):
        """The current value as a tensor (`read_value()`)."""
        return self.read_value()

    def numpy(self):
        """The current value as a numpy array."""
        return self.value_

    # ---- writing ----
    def _update(self, opdef, value):
        value = convert_to_tensor(value, self.dtype, name=f"the new value of {self.name}")
        if not value.shape.is_compatible_with(self.shape):
            raise InvalidArgumentError(with_origin(
                f"Cannot assign a value of shape {list(value.shape)} to variable {self.name} of "
                f"shape {list(self.shape)}.",
                user_origin(3),
            ))
        graph = context.current_graph()
        if graph is not None:
            graph.variables[self.name] = self
        elif isinstance(value, SymbolicTensor):
            raise ValueError(
                f"The symbolic tensor {value.name} cannot be assigned to {self.name} outside of "
                "the function that computed it; return it from the function instead."
            )
        apply(opdef, [value], {"variable": self})
        return self

    def assign(self, value):
        """Sets the value (when the graph runs, inside a function); returns the variable."""
        return self._update(ASSIGN, value)

    def assign_add(self, delta):
        """Adds `delta` to the value; returns the variable."""
        return self._update(ASSIGN_ADD, delta)

    def assign_sub(self, delta):
        """Subtracts `delta` from the value; returns the variable."""
        return self._update(ASSIGN_SUB, delta)

    def __repr__(self) -> str:
        shown = repr(EagerTensor(self.value_, self.dtype)).split("numpy=", 1)[1]
        return (f"<rt.Variable '{self.name}' shape={tuple(self.shape)} dtype={self.dtype.name}, "
                f"numpy={shown}")


def _lift(value):
    """An eager tensor for an initial value built while tracing (it must not use inputs)."""
    if isinstance(value, EagerTensor):
        return value

    return evaluate_outside(value)


register_conversion(Variable, Variable.read_value)


def _delegate(method):
    """`variable.method(...)` is `variable.read_value().method(...)`."""

    def operator(self, *args):
        return getattr(self.read_value(), method)(*args)

    operator.__name__ = method
    return operator


# Python operators read the value, like TensorFlow's variables (== and hash stay by identity).
for _method in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
                "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__and__",
                "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__invert__", "__neg__",
                "__pos__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__",
                "__bool__", "__int__", "__float__", "__index__", "__len__", "__iter__"):
    setattr(Variable, _method, _delegate(_method))

Variable.__array__ = lambda self, dtype=None, copy=None: np.asarray(self.value_, dtype=dtype)


def _compare_with_arrays(method):
    """`==` / `!=`: by identity (variables are dict keys), but elementwise against a numpy array
    (which defers to the variable's operator since the variable's array priority is higher)."""
    def operator(self, other):
        if isinstance(other, np.ndarray):
            return getattr(self.read_value(), method)(other)
        return (self is other) if method == "__eq__" else (self is not other)

    operator.__name__ = method
    return operator


Variable.__eq__ = _compare_with_arrays("__eq__")
Variable.__ne__ = _compare_with_arrays("__ne__")
Variable.__hash__ = object.__hash__
