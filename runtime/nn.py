"""`rt.nn`: the neural-network ops, by TensorFlow's names (tf.nn)."""

from runtime.ops.convolution_ops import (
    avg_pool2d,
    conv2d,
    conv2d_backprop_filter,
    conv2d_backprop_input,
    max_pool2d,
)
from runtime.ops.math_ops import relu, sigmoid, softmax, tanh
from runtime.ops.nn_ops import (
    log_softmax,
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)

__all__ = ["avg_pool2d", "conv2d", "conv2d_backprop_filter", "conv2d_backprop_input",
           "log_softmax", "max_pool2d", "relu", "sigmoid", "sigmoid_cross_entropy_with_logits",
           "softmax", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "tanh"]
