"""How an `rt.function`'s call arguments become (parameter name, value) pairs (`bind`), in the
order of its Python signature with defaults applied, or matched to its input_signature; and how
traced pairs are passed back to the Python function as positional and keyword arguments."""

from __future__ import annotations

import inspect

import numpy as np

from runtime.core.source_info import user_origin
from runtime.core.tensor import Tensor
from runtime.core.tensor_conversion import convert_to_tensor, weak_fits
from runtime.errors import a_or_an, with_origin


class ArgumentBinder:
    """The argument binding of the rt.function `name` of `fn`; `input_signature`: its specs,
    or None."""

    def __init__(self, fn, name: str, input_signature):
        self.name = name
        self.input_signature = input_signature
        self.signature: inspect.Signature | None
        try:
            self.signature = inspect.signature(fn)  # (None when Python cannot tell it)
        except (TypeError, ValueError):
            self.signature = None

    def bind(self, args, kwargs) -> list:
        """[(parameter name, value), ...] in signature order, defaults applied."""
        if self.input_signature is not None:
            return self._bind_to_input_signature(args, kwargs)
        if self.signature is None:
            return [(f"arg{i}", a) for i, a in enumerate(args)] + sorted(kwargs.items())
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.name}(): {e}") from None
        bound.apply_defaults()
        return list(bound.arguments.items())

    def input_signature_arguments(self) -> list:
        """[(parameter name, spec), ...] of the input_signature."""
        specs = self.input_signature
        return list(zip(self.param_names(len(specs)), specs))

    def _bind_to_input_signature(self, args, kwargs):
        if kwargs:
            raise TypeError(f"{self.name} has an input_signature; pass arguments positionally.")
        specs = self.input_signature
        if len(args) != len(specs):
            raise TypeError(
                f"{self.name} takes {len(specs)} argument{'' if len(specs) == 1 else 's'} (its "
                f"input_signature is {list(specs)}), got {len(args)}."
            )
        names = self.param_names(len(args))
        return [(n, self._match_spec(s, a, n)) for n, s, a in zip(names, specs, args)]

    def _match_spec(self, spec, value, path):
        if isinstance(spec, (list, tuple)):
            if not isinstance(value, (list, tuple)) or len(value) != len(spec):
                raise TypeError(
                    f"{self.name}: argument {path} must be a sequence of {len(spec)} "
                    f"value{'' if len(spec) == 1 else 's'} to match its input_signature {spec!r}."
                )
            return type(spec)(
                self._match_spec(s, v, f"{path}[{i}]") for i, (s, v) in enumerate(zip(spec, value))
            )
        # (a Python number, or a weak tensor standing for one, takes the signature's dtype; a
        # numpy value keeps its own, as a tensor does and as a loaded function matches it)
        if isinstance(value, (np.ndarray, np.generic)):
            cast = None
        else:
            cast = spec.dtype if not isinstance(value, Tensor) or (
                value.weak and weak_fits(value.dtype, spec.dtype)) else None
        tensor = convert_to_tensor(value, cast)
        if not spec.is_compatible_with(tensor):
            kind = ("numpy array" if isinstance(value, (np.ndarray, np.generic)) else "tensor")
            raise TypeError(with_origin(
                f"{self.name}: argument {path} is {a_or_an(tensor.dtype.name)} {kind} of shape "
                f"{list(tensor.shape)}, which does not match its input_signature {spec!r}"
                + (f" (pass x.astype(np.{spec.dtype.name}) to cast it)."
                   if kind == "numpy array" and tensor.dtype != spec.dtype else "."),
                user_origin()))
        return tensor

    def param_names(self, n):
        if self.signature is None:
            return [f"arg{i}" for i in range(n)]
        names = list(self.signature.parameters)
        return (names + [f"arg{i}" for i in range(len(names), n)])[:n]

    def call_args(self, traced_args) -> list:
        """The positional arguments the Python function is called with, of bound pairs."""
        if self.signature is None or self.input_signature is not None:
            return [v for _, v in traced_args]
        args = []
        for name, value in traced_args:
            param = self.signature.parameters.get(name)
            if param is None or param.kind == param.KEYWORD_ONLY:
                continue
            if param.kind == param.VAR_POSITIONAL:
                args.extend(value)
            elif param.kind != param.VAR_KEYWORD:
                args.append(value)
        return args

    def call_kwargs(self, traced_args) -> dict:
        """The keyword arguments the Python function is called with, of bound pairs."""
        if self.signature is None or self.input_signature is not None:
            return {}
        kwargs = {}
        for name, value in traced_args:
            param = self.signature.parameters.get(name)
            if param is not None and param.kind == param.KEYWORD_ONLY:
                kwargs[name] = value
            elif param is not None and param.kind == param.VAR_KEYWORD:
                kwargs.update(value)
        return kwargs
