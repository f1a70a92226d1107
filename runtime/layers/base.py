"""`rt.layers.Layer`: a Module with Keras' layer protocol.

A layer makes its variables in `build(input_shape)`, which runs once, on the first call, when the
input's shape is known (a structure of shapes for a structure of inputs), and eagerly, even when
that first call is being traced by `rt.function`: the variables are made once and outlive the
trace. `call(inputs, ...)` computes the output; in a graph it is converted by autograph, so
`if`/`for` on tensors in a layer written by the user become graph control flow, as in any
function `rt.function` traces. Floating inputs are cast to the layer's dtype (float32 by
default), as Keras does. A layer called inside another layer's `call` without `training=` gets
the outer call's.
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
from runtime import nest
from runtime.core import context, dtypes
from runtime.core.tensor import Tensor, TensorShape
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.layers import initializers
from runtime.module import Module, snake_case
from runtime.ops import math_ops
from runtime.variables import Variable, current_name_scope

_name_counts: collections.defaultdict[str, itertools.count] = collections.defaultdict(
    itertools.count)  # base name -> next number
_build_lock = threading.RLock()  # one thread builds a layer; another waits, then finds it built


class Layer(Module):
    """A Keras-style layer (see the module docstring). Subclasses override `build` (optional)
    and `call`."""

    def __init__(self, trainable=True, name=None, dtype=None, input_shape=None):
        if name is None:
            base = snake_case(type(self).__name__)
            number = next(_name_counts[base])
            name = base if number == 0 else f"{base}_{number}"
        super().__init__(name)
        self.trainable = trainable
        self._dtype = dtypes.as_dtype(dtype or dtypes.float32)
        self.built = False
        self._input_shape_hint = None if input_shape is None else (None, *input_shape)
        self._build_input_shape = None

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
        """The layer's weights and its sub-layers': its variables, less the state of the
        optimizers and metrics it may hold."""
        return [v for v, _ in self._walk_variables(weights_only=True)]

    @property
    def trainable_weights(self) -> list:
        """The weights that training updates (none when the layer is frozen)."""
        return [v for v, trainable in self._walk_variables(weights_only=True)
                if trainable and v.trainable]

    @property
    def non_trainable_weights(self) -> list:
        """The weights that training leaves alone."""
        trainable = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in trainable]

    # (the ignores: mypy types a property read from its class as its getter, python/mypy#6185)
    def _set_trainable(self, value: bool) -> None:
        Module.trainable.fset(self, value)  # type: ignore[attr-defined]
        for module in self.submodules:
            if isinstance(module, Layer):
                Module.trainable.fset(module, value)  # type: ignore[attr-defined]

    trainable = property(Module.trainable.fget, _set_trainable, doc=(  # type: ignore[attr-defined]
        "False freezes the layer and its sub-layers (setting it sets theirs, as Keras does)."))

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
        inputs = _map_inputs(self._cast_input, inputs)
        if not getattr(self, "built", False):
            self._build_for(_map_inputs(_shape_of, inputs))
        if _accepts_training(type(self).call):
            if kwargs.get("training") is None:  # an outer layer's `training=` reaches this one
                kwargs["training"] = _training.value
            outer, _training.value = _training.value, kwargs["training"]
        else:  # (the layers it calls get it)
            outer = _training.value
            if kwargs.get("training") is not None:
                _training.value = kwargs["training"]
            kwargs.pop("training", None)
        try:
            if context.current_graph() is not None:  # user layers' tensor `if`s: graph ops
                return autograph.converted_call(self.call, inputs, *args, **kwargs)
            return self.call(inputs, *args, **kwargs)
        finally:
            _training.value = outer

    def _build_for(self, input_shape) -> None:
        if isinstance(input_shape, (tuple, list)) and all(
                d is None or isinstance(d, (int, np.integer)) for d in input_shape):
            input_shape = TensorShape(input_shape)  # (a shape given as a tuple)
        with _build_lock:
            if getattr(self, "built", False):
                return
            with context.eager_scope():
                with self.name_scope:
                    self.build(input_shape)
                self._build_input_shape = input_shape
                self.built = True
                for restoration, path in self.__dict__.pop("_waiting_restorations", ()):
                    restoration.restore_built(self, path)  # values a checkpoint held for it

    def _defer_restore(self, restoration, path: str) -> None:
        """Keeps a checkpoint's values for this layer (at `path`) until it is built."""
        self.__dict__.setdefault("_waiting_restorations", []).append((restoration, path))

    def _cast_input(self, value):
        """A floating input in the layer's dtype (other inputs as they are)."""
        if isinstance(value, (Tensor, Variable, np.ndarray, float)):
            tensor = convert_to_tensor(value)
            if tensor.dtype.is_floating and tensor.dtype != self.dtype:
                return math_ops.cast(tensor, self.dtype)
            return tensor if not isinstance(value, Variable) else value
        return value


def _map_inputs(fn, inputs):
    """`fn` of each tensor of a structure of inputs; a (nested) list of numbers is one tensor."""
    leaves = nest.flatten(inputs)
    if isinstance(inputs, (list, tuple)) and leaves and all(
            type(v) in (int, float, bool) for v in leaves):
        return fn(convert_to_tensor(inputs))
    if len(leaves) == 1 and leaves[0] is inputs:
        return fn(inputs)
    return nest.pack_sequence_as(inputs, [fn(v) for v in leaves])


def _shape_of(value):
    """The shape of a tensor or array (what `build` is given), else None."""
    shape = getattr(value, "shape", None)
    return None if shape is None else TensorShape(shape)


class _Training(threading.local):
    value = None  # the `training=` of the layer calls under way on this thread


_training = _Training()


@functools.cache
def _accepts_training(call) -> bool:
    """Whether a layer's `call` takes `training=` (also when decorated with rt.function)."""
    call = getattr(call, "python_function", call)
    try:
        parameters = inspect.signature(call).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "training" or p.kind is p.VAR_KEYWORD for p in parameters)


def described(input_shape) -> str:
    """An input's shape as an error message shows it (`input_shape` as `build` was given it)."""
    if isinstance(input_shape, TensorShape):
        return f"inputs of shape {list(input_shape)}"
    return f"inputs without one shape ({input_shape!r})"


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
