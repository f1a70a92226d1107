"""Activation functions by Keras' names (`activation="relu"` in a layer), or any callable."""

from __future__ import annotations

from runtime.ops import creation_ops, math_ops, nn_ops


def linear(x):
    return x


def relu(x):
    return math_ops.relu(x)


def sigmoid(x):
    return math_ops.sigmoid(x)


def tanh(x):
    return math_ops.tanh(x)


def softmax(x, axis=-1):
    return math_ops.softmax(x, axis)


def softplus(x):
    """log(1 + exp(x)), without overflow for large x."""
    return math_ops.logaddexp(x, creation_ops.zeros_like(x))


def elu(x, alpha=1.0):
    return math_ops.where(math_ops.greater(x, 0), x, math_ops.multiply(math_ops.expm1(x), alpha))


def leaky_relu(x, negative_slope=0.2):
    return math_ops.where(math_ops.greater(x, 0), x, math_ops.multiply(x, negative_slope))


def silu(x):
    """x * sigmoid(x) (also called swish)."""
    return math_ops.multiply(x, math_ops.sigmoid(x))


def exponential(x):
    return math_ops.exp(x)


def relu6(x):
    return math_ops.clip_by_value(x, 0.0, 6.0)


def selu(x):
    """Scaled ELU, with the constants that keep activations normalized (Klambauer et al.)."""
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return math_ops.multiply(elu(x, alpha), scale)


def softsign(x):
    return math_ops.divide(x, math_ops.add(math_ops.abs(x), 1.0))


def log_softmax(x, axis=-1):
    return nn_ops.log_softmax(x, axis)


_BY_NAME = {f.__name__: f for f in (linear, relu, sigmoid, tanh, softmax, softplus, elu,
                                      leaky_relu, silu, exponential, relu6, selu, softsign,
                                      log_softmax)}
_BY_NAME["swish"] = silu


def get(identifier):
    """The activation function of a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"unknown activation {identifier!r}; the known ones are "
                             f"{', '.join(sorted(_BY_NAME))}, or pass a function of a tensor.")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise TypeError(f"an activation is a name, a function or None, got "
                    f"{type(identifier).__name__}.")
