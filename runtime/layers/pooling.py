"""Keras' pooling layers over NHWC images: MaxPool2D, AveragePooling2D and the global ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from runtime.layers.base import Layer, normalize_padding, normalize_pair
from runtime.ops import convolution_ops, reduction_ops


class _Pooling2D(Layer):
    _pool: Callable[..., Any] | None = None  # the op: convolution_ops.max_pool2d or avg_pool2d

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", **kwargs):
        super().__init__(**kwargs)
        what = type(self).__name__
        self.pool_size = normalize_pair(pool_size, f"{what}'s pool_size")
        self.strides = normalize_pair(self.pool_size if strides is None else strides,
                                      f"{what}'s strides")
        self.padding = normalize_padding(padding)

    def call(self, inputs):
        return type(self)._pool(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape):
        return convolution_ops.pool2d_output_shape(input_shape, self.pool_size, self.strides,
                                                   self.padding)


class MaxPool2D(_Pooling2D):
    """The largest value of each pool_size window, moved by `strides` (default: pool_size)."""

    _pool = staticmethod(convolution_ops.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """The mean of each window ('same' padding: of the window's values inside the image)."""

    _pool = staticmethod(convolution_ops.avg_pool2d)


class _GlobalPooling2D(Layer):
    _reduce: Callable[..., Any] | None = None

    def __init__(self, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.keepdims = keepdims

    def call(self, inputs):
        return type(self)._reduce(inputs, [1, 2], keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        if self.keepdims:
            return (input_shape[0], 1, 1, input_shape[3])
        return (input_shape[0], input_shape[3])


class GlobalAveragePooling2D(_GlobalPooling2D):
    """The mean over height and width: [batch, channels]."""

    _reduce = staticmethod(reduction_ops.reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling2D):
    """The largest value over height and width: [batch, channels]."""

    _reduce = staticmethod(reduction_ops.reduce_max)


MaxPooling2D = MaxPool2D
AvgPool2D = AveragePooling2D
