"""`rt.layers`: Keras-style layers (variables made on the first call, from the input's shape)."""

from runtime.layers import activations, initializers
from runtime.layers.base import Layer
from runtime.layers.convolutional import Conv2D
from runtime.layers.core import Activation, Dense, Dropout, Flatten
from runtime.layers.pooling import (
    AveragePooling2D,
    AvgPool2D,
    GlobalAveragePooling2D,
    GlobalMaxPooling2D,
    MaxPool2D,
    MaxPooling2D,
)

__all__ = ["Activation", "AveragePooling2D", "AvgPool2D", "Conv2D", "Dense", "Dropout", "Flatten",
           "GlobalAveragePooling2D", "GlobalMaxPooling2D", "Layer", "MaxPool2D", "MaxPooling2D",
           "activations", "initializers"]
