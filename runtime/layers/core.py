"""Keras' core layers: Dense, Flatten, Dropout, Activation."""

from __future__ import annotations

import math

from runtime.core import dtypes
from runtime.core.tensor import Tensor, TensorShape
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.layers import activations
from runtime.layers.base import Layer, described
from runtime.ops import array_ops, contraction_ops, math_ops, random_ops
from runtime.ops.op_support import refuse


class Dense(Layer):
    """`activation(inputs @ kernel + bias)` over the last axis of the inputs."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Dense needs a positive int of units, got {units!r}.")
        self.units, self.use_bias = units, use_bias
        self.activation = activations.get(activation)
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer

    def build(self, input_shape):
        if not isinstance(input_shape, TensorShape) or not input_shape or (
                input_shape[-1] is None):
            raise refuse(ValueError, f"Dense '{self.name}' needs a tensor whose last dim is "
                                     f"known, got {described(input_shape)}.")
        self.kernel = self.add_weight("kernel", (input_shape[-1], self.units),
                                      self.kernel_initializer)
        self.bias = (self.add_weight("bias", (self.units,), self.bias_initializer)
                     if self.use_bias else None)

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if not inputs.dtype.is_floating:
            raise refuse(TypeError, f"Dense '{self.name}' needs float inputs, got "
                                    f"{inputs.dtype.name}: cast them first, e.g. "
                                    f"rt.cast(x, rt.{self.dtype.name}).")
        width = self.kernel.shape[0]
        if not inputs.shape or inputs.shape[-1] not in (width, None):
            raise refuse(ValueError, f"Dense '{self.name}' was built for inputs of {width} "
                                     f"features (the last dim), got inputs of shape "
                                     f"{list(inputs.shape)}.")
        if len(inputs.shape) == 2:
            outputs = math_ops.matmul(inputs, self.kernel)
        else:
            outputs = contraction_ops.tensordot(inputs, self.kernel, 1)
        if self.bias is not None:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        return (*input_shape[:-1], self.units)


class Flatten(Layer):
    """The inputs as [batch, everything else]."""

    def call(self, inputs):
        rest = inputs.shape[1:]
        if all(d is not None for d in rest):
            return array_ops.reshape(inputs, [-1, math.prod(rest)])
        return array_ops.reshape(inputs, [array_ops.shape(inputs)[0], -1])

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        return (input_shape[0], math.prod(rest) if all(d is not None for d in rest) else None)


class Dropout(Layer):
    """In training (`training=True`), zeroes each input with probability `rate` and scales the
    rest by 1 / (1 - rate); otherwise the inputs unchanged."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise ValueError(f"Dropout's rate is in [0, 1), got {rate!r}.")
        self.rate, self.seed = float(rate), seed

    def call(self, inputs, training=None):
        if self.rate == 0 or (not isinstance(training, Tensor) and not training):
            return inputs
        keep = math_ops.greater_equal(
            random_ops.uniform(array_ops.shape(inputs), dtype=inputs.dtype, seed=self.seed),
            self.rate)
        dropped = math_ops.where(keep, inputs / (1.0 - self.rate), 0.0)
        if isinstance(training, Tensor):  # decided when the graph runs
            return math_ops.where(math_ops.cast(training, dtypes.bool_), dropped, inputs)
        return dropped

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class Activation(Layer):
    """`activation(inputs)`: a name (`"relu"`) or a function."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)
