"""`rt.Model` and `rt.Sequential`: layers composed into a model, Keras' way.

    model = rt.Sequential([
        rt.layers.Conv2D(16, 3, activation="relu", input_shape=(None, None, 1)),
        rt.layers.GlobalAveragePooling2D(),
        rt.layers.Dense(10),
    ])
    logits = model(images)              # [batch, 10]
    model.trainable_variables           # every layer's, in order

A `Model` subclass sets its layers as attributes in `__init__` and computes in `call`; `layers`
lists them. A Sequential whose first layer has `input_shape` is built at once (its variables
exist before the first call); otherwise on the first call.
"""

from __future__ import annotations

import math

from runtime.layers.base import Layer
from runtime.module import Module


class Model(Layer):
    """A layer made of layers; `layers` lists the ones set as its attributes."""

    @property
    def layers(self) -> list:
        """The layers held by the model's attributes (not their own sub-layers), in order."""
        found, seen = [], set()

        def visit(value):
            if isinstance(value, Layer):
                if id(value) not in seen:
                    seen.add(id(value))
                    found.append(value)
            elif isinstance(value, Module):
                return
            elif isinstance(value, dict):
                for item in value.values():
                    visit(item)
            elif isinstance(value, (list, tuple)):
                for item in value:
                    visit(item)

        for key, value in vars(self).items():
            if key != "_weights":
                visit(value)
        return found

    def summary(self, print_fn=print) -> None:
        """Prints each layer's name, type, output shape (when known) and number of weights."""
        rows = [("Layer (type)", "Output shape", "Params")]
        shape = getattr(self, "_input_shape_hint", None) or getattr(self, "_build_input_shape",
                                                                      None)
        if isinstance(shape, tuple) and shape and not isinstance(shape[0], tuple):
            shape = (None, *shape[1:])  # whatever batch it was built with
        else:
            shape = None  # (a structure of inputs)
        for layer in self.layers:
            try:
                shape = None if shape is None else tuple(layer.compute_output_shape(shape))
            except NotImplementedError:
                shape = None
            shown = "?" if shape is None else str(tuple(shape)).replace("None", "?")
            params = (f"{layer.count_params():,}" if getattr(layer, "built", False)
                      else "(not built)")
            rows.append((f"{layer.name} ({type(layer).__name__})", shown, params))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines = [f'Model "{self.name}"']
        for i, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths)))
            if i == 0:
                lines.append("-" * len(lines[-1]))
        trainable = sum(math.prod(v.shape) for v in self.trainable_weights)
        lines.append(f"Total params: {self.count_params():,} (trainable: {trainable:,})")
        print_fn("\n".join(lines))


class Sequential(Model):
    """Layers applied one after another; `training=` reaches the layers that take it."""

    def __init__(self, layers=None, name=None, trainable=True):
        super().__init__(trainable=trainable, name=name)
        self._layers = []
        for layer in layers or ():
            self.add(layer)

    def add(self, layer: Layer) -> None:
        """Appends `layer` (built at once when the model's input shape is known)."""
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential holds rt.layers.Layer objects, got "
                            f"{type(layer).__name__}; wrap a function in "
                            "rt.layers.Activation(fn).")
        if not self._layers and getattr(layer, "_input_shape_hint", None) is not None:
            self._input_shape_hint = layer._input_shape_hint
        self._layers.append(layer)
        self.built = False  # (an attribute set: functions that read the model retrace)
        if self._input_shape_hint is not None:
            self._build_for(self._input_shape_hint)

    def pop(self) -> Layer:
        """Removes and returns the last layer."""
        if not self._layers:
            raise IndexError("pop from an empty Sequential.")
        layer = self._layers.pop()
        self.built = self.built  # (an attribute set: functions that read the model retrace)
        return layer

    @property
    def layers(self) -> list:
        return list(self._layers)

    def build(self, input_shape):
        """Builds the layers in turn, each with the shape the one before gives (as far as the
        layers can tell their output shapes; the rest build on the first call)."""
        shape = tuple(input_shape)
        for layer in self._layers:
            if not getattr(layer, "built", False):
                layer._build_for(shape)
            try:
                shape = tuple(layer.compute_output_shape(shape))
            except NotImplementedError:
                return

    def call(self, inputs, training=None):
        outputs = inputs
        for layer in self._layers:
            outputs = layer(outputs, training=training)
        return outputs

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        for layer in self._layers:
            shape = tuple(layer.compute_output_shape(shape))
        return shape
