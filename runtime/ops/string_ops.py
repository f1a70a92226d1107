"""String ops (strings are object arrays of `bytes`, or `bytes` when 0-d)."""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor import decoded, normalize
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import argument_error, with_origin
from runtime.ops import shapes
from runtime.ops.registry import GRADIENT, apply, define_op, lacks


def _join_kernel(*inputs, separator):
    if all(isinstance(v, bytes) for v in inputs):
        return separator.join(inputs)
    arrays = np.broadcast_arrays(*[np.asarray(v, dtype=object) for v in inputs])
    out = np.empty(arrays[0].shape, dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = separator.join(a[index] for a in arrays)
    return normalize(out)


STRING_JOIN = define_op(
    "StringJoin",
    infer=lambda inputs, *, separator: [
        (dtypes.string, shapes.broadcast(*(t.shape for t in inputs)))
    ],
    kernel=_join_kernel,
)


def join(inputs, separator=""):
    """Elementwise concatenation of string tensors, with `separator` between them."""
    tensors = [convert_to_tensor(t) for t in inputs]
    for t in tensors:
        if not t.dtype.is_string:
            raise argument_error(
                TypeError, f"strings.join needs string tensors, got {t.dtype.name}."
            )
    sep = separator.encode() if isinstance(separator, str) else bytes(separator)
    return apply(STRING_JOIN, tensors, {"separator": sep})


# ---- formatting: Python's `str.format` / `%` on the values of tensors ---------------------------

STYLES = ("{}", "%")  # `template.format(*values)`, `template % tuple(values)`


def format_values(template: str, style: str, values) -> str:
    """The text of `template` filled with tensor values (numpy values or `bytes`), exactly as
    Python formats those values: `format(value, spec)` for each `{}` field, `%` for `%`."""
    values = tuple(decoded(v) for v in values)
    return template.format(*values) if style == "{}" else template % values


def _format_kernel(*values, template, style, python_numbers=()):
    if python_numbers:  # (a value standing for a Python number formats as that number)
        values = tuple(v.item() if python else v for v, python in zip(values, python_numbers))
    return format_values(template, style, values).encode()


class _Field:
    """Stands for one input while a template is checked: formats as '', counts its uses."""

    def __init__(self):
        self.used = False

    def __format__(self, spec):
        self.used = True
        return ""

    def __str__(self):
        self.used = True
        return ""

    __repr__ = __str__

    def __index__(self):
        self.used = True
        return 0

    __int__ = __index__

    def __float__(self):
        self.used = True
        return 0.0


def _check_template(template, style, count: int) -> None:
    """Raises ValueError unless `template` is a `style` template with fields for exactly
    `count` positional values."""
    if style not in STYLES:
        raise argument_error(ValueError, f"style must be '{{}}' or '%', got {style!r}")
    if not isinstance(template, str):
        raise argument_error(
            ValueError, f"the template must be a str, got {type(template).__name__}"
        )
    fields = [_Field() for _ in range(count)]
    try:
        format_values(template, style, fields)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as e:
        raise argument_error(
            ValueError,
            f"the template {template!r} does not fit {count} value{'' if count == 1 else 's'}: {e}",
        ) from None
    unused = [i for i, f in enumerate(fields) if not f.used]
    if unused:
        raise argument_error(
            ValueError, f"the template {template!r} leaves the values at {unused} unused"
        )


def _format_infer(inputs, *, template, style, python_numbers=()):
    _check_template(template, style, len(inputs))
    return [(dtypes.string, ())]


STRING_FORMAT = define_op("StringFormat", infer=_format_infer, kernel=_format_kernel)


def format(template: str, *values, style: str = "{}"):  # noqa: A001 - like str.format
    """A scalar string tensor: `template.format(*values)` (style "{}") or `template % values`
    (style "%") computed on the values of the tensors, every time the op runs. The text is what
    Python gives for the numpy values (0-d values as numpy scalars: `{:.2f}`, `{!r}` and `%d`
    work as in Python); string tensors format as `str`. Fields are positional (`{}`, `{0}`,
    nested specs like `{:{}}`); Python values become tensors (floats become float32), and a
    weak graph tensor (the stand-in of a Python number: a counter from `n = 0`, `x.shape[0]`
    of an unknown dim) formats as that Python number (`{!r}` of 4 is `4`)."""
    if not isinstance(template, str):
        raise argument_error(
            TypeError, f"strings.format needs a str template, got {type(template).__name__}."
        )
    try:
        _check_template(template, style, len(values))
    except ValueError as e:
        raise argument_error(
            ValueError, with_origin(f"strings.format: {e}", user_origin(2))
        ) from None
    tensors = [convert_to_tensor(v) for v in values]
    attrs: dict = {"template": template, "style": style}
    python_numbers = tuple(bool(t.weak) and not t.shape and not t.dtype.is_string
                           for t in tensors)
    if any(python_numbers):
        attrs["python_numbers"] = python_numbers
    return apply(STRING_FORMAT, tensors, attrs)


lacks(GRADIENT, "string results: nothing to differentiate", STRING_JOIN, STRING_FORMAT)
