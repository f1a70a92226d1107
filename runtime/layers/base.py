"""`rt.layers.Layer`: a Module with Keras' layer protocol.

A layer makes its variables in `build(input_shape)`, which runs once, on the first call, when the
input's shape is known (and eagerly, even when that first call is being traced by `rt.function`:
the variables are made once and outlive the trace). `call(inputs, ...)` computes the output; in a
graph it is converted by autograph, so `if`/`for` on tensors in a layer written by the user become
graph control flow, as in any function `rt.function` traces. Floating inputs are cast to the
layer's dtype (float32 by default), as Keras does.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import inspect
import itertools
import math
import threading

import numpy as np

import autograph
from runtime import context, dtypes
from runtime.conversion import convert_to_tensor
from runtime.layers import initializers
from runtime.module import Module, _snake_case
from runtime.ops import math_ops
from runtime.tensor import Tensor, TensorShape
from runtime.variables import Variable, current_name_scope

_name_counts = collections.defaultdict(itertools.count)  # base name -> next number
_build_lock = threading.RLock()  # one thread builds a layer; another waits, then finds it built


class Layer(Module):
    """A Keras-style layer (see the module docstring). Subclasses override `build` (optional)
    and `call`."""

    def __init__(self, trainable=True, name=None, dtype=None, input_shape=None):
        if name is None:
            base = _snake_case(type(self).__name__)
            number = next(_name_counts[base])
            name = base if number == 0 else f"{base}_{number}"
        super().__init__(name)
        self.trainable = trainable
        self._dtype = dtypes.as_dtype(dtype or dtypes.float32)
        self.built = False
        self._input_shape_hint = None if input_shape is None else (None, *input_shape)

    @property
    def dtype(self):
        """The dtype of the layer's variables and of its floating inputs."""
        return self.__dict__.get("_dtype", dtypes.float32)

    # ---- variables ----
    def add_weight(self, name, shape, initializer="glorot_uniform", dtype=None, trainable=True):
        """A new Variable of this layer, initialised by `initializer` (a name or a callable)."""
        dtype = dtypes.as_dtype(dtype or self.dtype)
        shape = tuple(int(d) for d in shape)
        scope = (contextlib.nullcontext() if current_name_scope().rpartition("/")[2] == self.name
                 else self.name_scope)
        with context.eager_scope(), scope:
            variable = Variable(initializers.get(initializer)(shape, dtype), trainable,
                                name=name, dtype=dtype)
        self.__dict__.setdefault("_weights", []).append(variable)
        return variable

    @property
    def weights(self) -> list:
        return self.variables

    @property
    def trainable_weights(self) -> list:
        return self.trainable_variables

    def get_weights(self) -> list:
        """The values of `weights`, as numpy arrays."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, values) -> None:
        """Assigns `values` (numpy arrays, in the order of `weights`)."""
        weights = self.weights
        values = list(values)
        if len(values) != len(weights):
            raise ValueError(f"{self.name} has {len(weights)} weights, got {len(values)} values.")
        for variable, value in zip(weights, values):
            if tuple(np.shape(value)) != tuple(variable.shape):
                raise ValueError(f"cannot set {variable.name} of shape {list(variable.shape)} to "
                                 f"a value of shape {list(np.shape(value))}.")
            variable.assign(value)

    def count_params(self) -> int:
        """How many numbers the layer's variables hold."""
        return sum(math.prod(v.shape) for v in self.weights)

    # ---- the protocol ----
    def build(self, input_shape) -> None:
        """Makes the layer's variables for inputs of `input_shape` (its batch dim may be None)."""

    def call(self, inputs, *args, **kwargs):
        """The layer's output for `inputs`."""
        raise NotImplementedError(f"{type(self).__name__} must define call(self, inputs).")

    def compute_output_shape(self, input_shape):
        """The output's shape for inputs of `input_shape` (what a Sequential builds with)."""
        raise NotImplementedError(f"{type(self).__name__} does not define compute_output_shape.")

    def __call__(self, inputs, *args, **kwargs):
        inputs = self._cast_input(inputs)
        if not getattr(self, "built", False):
            self._build_for(_shape_of(inputs))
        if "training" in kwargs and not _accepts_training(type(self).call):
            del kwargs["training"]
        if context.current_graph() is not None:  # user layers' tensor `if`s become graph ops
            return autograph.converted_call(self.call, inputs, *args, **kwargs)
        return self.call(inputs, *args, **kwargs)

    def _build_for(self, input_shape) -> None:
        with _build_lock:
            if getattr(self, "built", False):
                return
            with context.eager_scope(), self.name_scope:
                self.build(TensorShape(input_shape))
            self.built = True

    def _cast_input(self, inputs):
        """Floating inputs in the layer's dtype (other inputs as they are)."""
        if isinstance(inputs, (Tensor, Variable, np.ndarray, list, float)):
            tensor = convert_to_tensor(inputs)
            if tensor.dtype.is_floating and tensor.dtype != self.dtype:
                return math_ops.cast(tensor, self.dtype)
            return tensor if not isinstance(inputs, Variable) else inputs
        return inputs

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"


def _shape_of(inputs) -> tuple:
    shape = getattr(inputs, "shape", None)
    if shape is None:
        raise TypeError(f"a layer's first call needs a tensor or array input (its shape builds "
                        f"the layer's variables), got {type(inputs).__name__}.")
    return tuple(shape)


@functools.cache
def _accepts_training(call) -> bool:
    parameters = inspect.signature(call).parameters.values()
    return any(p.name == "training" or p.kind is p.VAR_KEYWORD for p in parameters)


def normalize_pair(value, what: str) -> tuple:
    """An int or a pair of ints as a pair (Keras' kernel sizes, strides and pool sizes)."""
    pair = (value, value) if isinstance(value, (int, np.integer)) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, (int, np.integer)) and v > 0 for v in pair):
        raise ValueError(f"{what} is a positive int or a pair of them, got {value!r}.")
    return tuple(int(v) for v in pair)


def normalize_padding(padding) -> str:
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(f"padding is 'valid' or 'same', got {padding!r}.")
    return padding.lower()
