"""What `rt.saved.load` returns: a callable that dispatches on its inputs like the original.

A call binds its arguments to the saved parameters (names, kinds, and defaults that are plain
data or tensors), then picks the first concrete function whose signature matches: tensor
arguments by dtype and shape, Python arguments by type and value, nested lists/tuples/dicts by
structure.
"""

from __future__ import annotations

import inspect

from runtime import nest
from runtime.core.tensor import SymbolicTensor
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.tracing import calls
from runtime.tracing.signature import TensorSpec, is_tensor_leaf, same_python_value

_NO_MATCH = object()


class LoadedFunction:
    """A saved function, loaded: call it like the original `rt.function`.

    `concrete_functions` are the saved traces (each a ConcreteFunction with its `.graph`);
    `variables` are the loaded variables (they keep their saved values and can be assigned).
    """

    def __init__(self, name, signature: inspect.Signature, concrete_functions, variables,
                 converts_python_values: bool):
        self.__name__ = name
        self._signature = signature
        self.concrete_functions = tuple(concrete_functions)
        self.variables = tuple(variables)
        self._converts = converts_python_values

    def __call__(self, *args, **kwargs):
        concrete, tensors = self._find(args, kwargs)
        return calls.call_concrete(concrete, tensors)

    def get_concrete_function(self, *args, **kwargs):
        """The saved concrete function these arguments (tensors or rt.TensorSpec) would run."""
        return self._find(args, kwargs)[0]

    def _find(self, args, kwargs):
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        arguments = bound.arguments
        for concrete in self.concrete_functions:
            values = []
            for name, spec in zip(concrete.arg_names, concrete.structured_input_signature):
                if name not in arguments or _match(spec, arguments[name], values,
                                                   self._converts) is _NO_MATCH:
                    break
            else:
                return concrete, values
        raise TypeError(
            f"{self.__name__}(): no saved signature matches these arguments. A loaded function "
            "can only run the signatures that were traced before it was saved:\n"
            + self.pretty_printed_concrete_signatures()
        )

    def pretty_printed_concrete_signatures(self) -> str:
        """The signature of every saved trace, as text."""
        return "\n\n".join(c.pretty_printed_signature() for c in self.concrete_functions)

    def __repr__(self) -> str:
        return f"<loaded rt.function {self.__name__} ({len(self.concrete_functions)} signatures)>"


def _match(spec, value, values: list, converts: bool):
    """Appends `value`'s tensors (in `nest.flatten` order) to `values` when
    `value` fits `spec`; returns _NO_MATCH otherwise."""
    if isinstance(spec, TensorSpec):
        if not is_tensor_leaf(value) and not converts:
            return _NO_MATCH
        try:  # tensors and numpy values keep their dtype; Python values take the spec's
            tensor = convert_to_tensor(value, None if is_tensor_leaf(value) else spec.dtype)
        except (TypeError, ValueError):
            return _NO_MATCH
        if not spec.is_compatible_with(tensor):
            return _NO_MATCH
        values.append(tensor)
        return None
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            return _NO_MATCH
    elif isinstance(spec, (list, tuple)):
        if type(value) is not type(spec) and not (
            isinstance(spec, tuple) and isinstance(value, tuple)  # namedtuples load as tuples
        ) or len(value) != len(spec):
            return _NO_MATCH
    else:
        return None if same_python_value(value, spec) else _NO_MATCH
    for key, s in nest.items(spec):  # (the order of the saved function's tensor inputs)
        if _match(s, value[key], values, converts) is _NO_MATCH:
            return _NO_MATCH
    return None


class OutputMarker:
    """Stands for the graph output `index` in a saved output structure."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


def mark_outputs(structure):
    """`structure` with its k-th symbolic tensor (in `nest.flatten` order) replaced by
    OutputMarker(k): the graph's k-th output."""
    leaves = nest.flatten(structure)
    count = iter(range(len(leaves)))
    marked = [OutputMarker(next(count)) if isinstance(v, SymbolicTensor) else v for v in leaves]
    return nest.pack_sequence_as(structure, marked)


def outputs_match(structure, outputs: list) -> bool:
    """Whether the OutputMarkers of `structure` are exactly the graph's outputs, in order."""
    markers = [v.index for v in nest.flatten(structure) if isinstance(v, OutputMarker)]
    return markers == list(range(len(outputs)))


def unmark_outputs(structure, outputs: list):
    """`structure` (one that `outputs_match`) with its OutputMarkers replaced by the graph's
    output tensors."""
    leaves = nest.flatten(structure)
    return nest.pack_sequence_as(
        structure, [outputs[v.index] if isinstance(v, OutputMarker) else v for v in leaves]
    )
