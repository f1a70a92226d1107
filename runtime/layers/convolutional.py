"""Keras' Conv2D: a 2-D convolution over NHWC images."""

from __future__ import annotations

from runtime.core.tensor import TensorShape
from runtime.layers import activations
from runtime.layers.base import Layer, described, normalize_padding, normalize_pair
from runtime.ops import convolution_ops
from runtime.ops.op_support import refuse


class Conv2D(Layer):
    """`activation(conv2d(inputs, kernel) + bias)`, inputs [batch, height, width, channels],
    kernel [kh, kw, channels, filters]; padding 'valid' (no padding) or 'same' (output size
    ceil(input / strides))."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 dilation_rate=(1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"Conv2D needs a positive int of filters, got {filters!r}.")
        self.filters = filters
        self.kernel_size = normalize_pair(kernel_size, "Conv2D's kernel_size")
        self.strides = normalize_pair(strides, "Conv2D's strides")
        self.dilation_rate = normalize_pair(dilation_rate, "Conv2D's dilation_rate")
        self.padding = normalize_padding(padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer

    def build(self, input_shape):
        if not isinstance(input_shape, TensorShape) or len(input_shape) != 4 or (
                input_shape[-1] is None):
            raise refuse(ValueError, f"Conv2D '{self.name}' needs images [batch, height, width, "
                                     f"channels] with a known number of channels, got "
                                     f"{described(input_shape)}; add a batch or channel axis "
                                     "with rt.expand_dims.")
        self.kernel = self.add_weight(
            "kernel", (*self.kernel_size, input_shape[-1], self.filters), self.kernel_initializer)
        self.bias = (self.add_weight("bias", (self.filters,), self.bias_initializer)
                     if self.use_bias else None)

    def call(self, inputs):
        outputs = convolution_ops.conv2d(inputs, self.kernel, self.strides, self.padding.upper(),
                                         self.dilation_rate)
        if self.bias is not None:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        return convolution_ops.conv2d_output_shape(
            input_shape, (*self.kernel_size, input_shape[-1], self.filters), self.strides,
            self.padding, self.dilation_rate)
