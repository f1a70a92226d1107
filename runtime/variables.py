"""`rt.Variable`: mutable state that graphs read and write when they run (never baked in).

A graph refers to a variable by its unique name; the graph's `variables` table maps the name to
the object, which the executor binds when it compiles the graph.
"""

from __future__ import annotations

import itertools

import numpy as np

from runtime import context, dtypes
from runtime.conversion import convert_to_tensor, register_conversion
from runtime.ops.registry import READS_STATE, apply, define_op
from runtime.tensor import EagerTensor, SymbolicTensor, TensorShape

_ids = itertools.count()


def _read_kernel(*, variable):
    return variable.value_


def _assign_kernel(value, *, variable):
    variable.value_ = value
    return ()


def _assign_add_kernel(value, *, variable):
    variable.value_ = variable.value_ + value
    return ()


def _assign_sub_kernel(value, *, variable):
    variable.value_ = variable.value_ - value
    return ()


READ = define_op(
    "ReadVariableOp",
    infer=lambda inputs, *, variable: [(variable.dtype, variable.shape)],
    kernel=_read_kernel,
    groups=[READS_STATE],
)
ASSIGN = define_op("AssignVariableOp", infer=lambda i, **a: [], kernel=_assign_kernel, stateful=True)
ASSIGN_ADD = define_op(
    "AssignAddVariableOp", infer=lambda i, **a: [], kernel=_assign_add_kernel, stateful=True
)
ASSIGN_SUB = define_op(
    "AssignSubVariableOp", infer=lambda i, **a: [], kernel=_assign_sub_kernel, stateful=True
)


class Variable:
    """A named, mutable tensor. Functions read its value on every call."""

    def __init__(self, initial_value, dtype=None, name=None, trainable=True):
        if callable(initial_value):
            with context.eager_scope():
                initial_value = initial_value()
        value = _lift(convert_to_tensor(initial_value, dtype))
        self.dtype = value.dtype
        self.shape = TensorShape(getattr(value._value, "shape", ()))
        self.value_ = value._value
        self.name = f"{name or 'Variable'}_{next(_ids)}"
        self.trainable = trainable
        context.note_variable_created(self)

    # ---- reading ----
    def read_value(self):
        """The current value (a graph read op when tracing)."""
        graph = context.current_graph()
        if graph is None:
            return EagerTensor(self.value_, self.dtype)
        graph.variables[self.name] = self
        return apply(READ, [], {"variable": self})

    def value(self):
        return self.read_value()

    def numpy(self):
        return self.value_

    # ---- writing ----
    def _update(self, opdef, value, eager_update):
        value = convert_to_tensor(value, self.dtype, name=f"the new value of {self.name}")
        if not value.shape.is_compatible_with(self.shape):
            raise ValueError(
                f"Cannot assign a value of shape {list(value.shape)} to variable {self.name} of "
                f"shape {list(self.shape)}."
            )
        graph = context.current_graph()
        if graph is None:
            if isinstance(value, SymbolicTensor):
                raise ValueError("A symbolic tensor cannot be assigned outside its function.")
            self.value_ = eager_update(value._value)
            return self
        graph.variables[self.name] = self
        apply(opdef, [value], {"variable": self})
        return self

    def assign(self, value):
        return self._update(ASSIGN, value, lambda v: v)

    def assign_add(self, delta):
        return self._update(ASSIGN_ADD, delta, lambda v: self.value_ + v)

    def assign_sub(self, delta):
        return self._update(ASSIGN_SUB, delta, lambda v: self.value_ - v)

    def __repr__(self) -> str:
        return f"<rt.Variable '{self.name}' shape={tuple(self.shape)} dtype={self.dtype.name}, numpy={self.value_!r}>"


def _lift(value):
    """An eager tensor for an initial value built while tracing (it must not use inputs)."""
    if isinstance(value, EagerTensor):
        return value
    from runtime.executor.interpreter import evaluate_outside

    return evaluate_outside(value)


register_conversion(Variable, Variable.read_value)


def _binary(method):
    def operator(self, other):
        return getattr(self.read_value(), method)(other)

    operator.__name__ = method
    return operator


for _method in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
                "__truediv__", "__rtruediv__", "__floordiv__", "__mod__", "__pow__", "__matmul__",
                "__neg__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__getitem__"):
    setattr(Variable, _method, _binary(_method) if _method not in ("__neg__", "__abs__") else (
        lambda m: lambda self: getattr(self.read_value(), m)())(_method))

Variable.__array__ = lambda self, dtype=None, copy=None: np.asarray(self.value_, dtype=dtype)
