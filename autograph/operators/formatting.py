"""`format_string` and `percent_format`: Python's string formatting, staged on tensors.

Converted code (see converters/formatting.py) calls them for f-strings, `"...".format(...)` and
`"..." % values`:

    f"x is {x:.3f} ({n!r})"   ->   ag__.format_string('x is {:.3f} ({!r})', x, n)
    "%d items" % n            ->   ag__.percent_format('%d items', n)

Without tensors among the values they are `template.format(...)` and `template % values`
themselves. With tensors, the plain values are formatted into the template now, exactly as
Python formats them, and the backend fills the remaining fields from the tensors' values: in a
graph the text is computed (and printed, by `print`) every time the graph runs.
"""

from __future__ import annotations

import _string
import re
from string import Formatter

from autograph import backends

_FORMATTER = Formatter()  # for `get_field` (`{0.attr}`, `{name[1]}`) and `convert_field`


def format_string(template: str, /, *args, **kwargs):
    """`template.format(*args, **kwargs)`."""
    if not any(needs_backend(v) for v in (*args, *kwargs.values())):
        return template.format(*args, **kwargs)
    fields = _BraceFields(args, kwargs)
    return _fill(fields.template(template, depth=2), fields.tensors, "{}")


def percent_format(template: str, values):
    """`template % values`."""
    items = values.values() if type(values) is dict else (
        values if isinstance(values, tuple) else (values,))
    if not any(needs_backend(v) for v in items):
        return template % values
    template % _probes(values)  # Python's own error when the template does not fit the values
    return _fill(*_percent_fields(template, values), "%")


def mod(a, b):
    """`a % b`; a string `a` is a template (in a variable) that formats `b`."""
    return percent_format(a, b) if isinstance(a, str) else a % b


def join_strings(separator: str, iterable):
    """`separator.join(iterable)`; where an item is a string tensor, the text is computed when
    the graph runs."""
    items = list(iterable)
    for item in items:
        backend = backends.tensor_backend(item)
        if backend is not None:
            return backend.join_strings(separator, items)
    return separator.join(items)


def _fill(template: str, tensors: list, style: str):
    """The text of `template` (its plain values formatted in already) with `tensors` in its
    fields: a backend's string, or a `str` when nothing is left to fill."""
    if not tensors:
        return template.format() if style == "{}" else template % ()
    backend = backends.staging_any(tensors) or backends.tensor_backend(tensors[0])
    assert backend is not None  # (`tensors` are values a backend claims)
    return backend.format(template, style, tuple(tensors))


_CONTAINERS = (list, tuple, set, frozenset, dict)


def needs_backend(value) -> bool:
    """`value` is a tensor, or a list or tuple holding tensors (its text is filled in when the
    graph runs: `_container_template`). Raises TypeError for another container holding a
    staged value: Python would format the graph value itself (its repr, once, while tracing)."""
    if backends.tensor_backend(value) is not None:
        return True
    if not isinstance(value, _CONTAINERS):  # (and their subclasses: a shape is a tuple)
        return False
    items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
    held: bool | None = False
    for item in items:
        if backends.tensor_backend(item) is not None or (
                isinstance(item, _CONTAINERS) and needs_backend(item)):
            held = True
        elif backends.staging(item) is not None:
            held = None  # (a staged list or dataset: no text of its values)
    if held is None or (held and not _is_sequence(value)):
        raise TypeError(
            f"autograph cannot format a {type(value).__name__} that holds graph values: the "
            "text would show the graph values, not their values when the graph runs. Format "
            "the tensors themselves (f\"{a} {b}\"), or a list or tuple of them.")
    return held


def holds_tensors(value) -> bool:
    """`value` is a list or tuple holding tensors (not a tensor itself): see needs_backend."""
    return backends.tensor_backend(value) is None and needs_backend(value)


def _is_sequence(value) -> bool:
    """A list or tuple that prints as its items' reprs (not a namedtuple)."""
    return isinstance(value, (list, tuple)) and not hasattr(type(value), "_fields")


def _container_template(value, tensors: list, style: str, conversion: str = "r") -> str:
    """The text of the list or tuple `value` as Python prints it (its items' reprs, or their
    `ascii` with conversion "a"), with its tensors as fields of `style` (appended to
    `tensors`)."""
    parts = []
    for item in value:
        if backends.tensor_backend(item) is not None:
            tensors.append(item)
            parts.append(f"{{!{conversion}}}" if style == "{}" else f"%{conversion}")
        elif holds_tensors(item):
            parts.append(_container_template(item, tensors, style, conversion))
        else:
            parts.append(_escape((ascii if conversion == "a" else repr)(item), style))
    if isinstance(value, list):
        return "[" + ", ".join(parts) + "]"
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def container_text(value):
    """`str(value)` of a list or tuple holding tensors: a backend's string (filled in when the
    graph runs)."""
    tensors: list = []
    return _fill(_container_template(value, tensors, "{}"), tensors, "{}")


def _escape(text: str, style: str) -> str:
    """`text` as literal text of a template of `style`."""
    if style == "{}":
        return text.replace("{", "{{").replace("}", "}}")
    return text.replace("%", "%%")


class _BraceFields:
    """Rewrites a `str.format` template so that only tensors remain as (automatically numbered)
    fields, collected in `tensors`; plain values are formatted into its text. Field lookup,
    numbering and errors are Python's."""

    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs
        self.auto = 0  # the next automatic field number; None once a field is numbered
        self.tensors = []

    def template(self, template: str, depth: int) -> str:
        if depth < 1:
            raise ValueError("Max string recursion exceeded")
        out = []
        for literal, field, spec, conversion in _string.formatter_parser(template):
            out.append(_escape(literal, "{}"))
            if field is None:
                continue
            value = self._value(field)
            first = len(self.tensors)
            spec = self.template(spec, depth - 1) if spec else ""
            if holds_tensors(value):
                style = "a" if conversion == "a" else "r"
                if spec and not conversion:  # (Python's error: a list's text takes no spec)
                    raise TypeError(
                        f"unsupported format string passed to {type(value).__name__}.__format__")
                if spec:  # (`!r:>20`: the spec formats the container's text)
                    inner: list = []
                    text = _fill(_container_template(value, inner, "{}", style), inner, "{}")
                    if not isinstance(text, str):  # (a staged string)
                        self.tensors.insert(first, text)
                        out.append(f"{{:{spec}}}")
                        continue
                    spec = _fill(spec, self.tensors[first:], "{}")  # (eager: its text now)
                    del self.tensors[first:]
                    out.append(_escape(format(text, spec), "{}"))
                    continue
                else:
                    out.append(_container_template(value, self.tensors, "{}", style))
                    continue
            if needs_backend(value):
                self.tensors.insert(first, value)  # before the tensors of its spec, like Python
                conv = f"!{conversion}" if conversion else ""
                out.append(f"{{{conv}{':' + spec if spec else ''}}}")
            elif len(self.tensors) > first:
                raise NotImplementedError(
                    "autograph cannot format a Python value with a format spec computed from a "
                    "tensor; compute the spec in Python, or format a tensor."
                )
            else:
                value = _FORMATTER.convert_field(value, conversion)
                out.append(_escape(format(value, spec.format()), "{}"))
        return "".join(out)

    def _value(self, field: str):
        first = _string.formatter_field_name_split(field)[0]
        if first == "":
            if self.auto is None:
                raise ValueError(
                    "cannot switch from manual field specification to automatic field numbering")
            field, self.auto = f"{self.auto}{field}", self.auto + 1
        elif isinstance(first, int):
            if self.auto:
                raise ValueError(
                    "cannot switch from automatic field numbering to manual field specification")
            self.auto = None
        return _FORMATTER.get_field(field, self.args, self.kwargs)[0]


# One `%` conversion: %[(key)][flags][width][.precision][length modifier]type
_PERCENT = re.compile(
    r"%(?:\((?P<key>[^()]*)\))?(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?"
    r"(?:\.(?P<precision>\*|\d*))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])",
)


def _percent_fields(template: str, values) -> tuple[str, list]:
    """(template, tensors): `template % values` (a template that fits the values) with its plain
    values formatted into the text and its tensors left as positional conversions, in order."""
    mapping = not isinstance(values, (tuple, str)) and hasattr(type(values), "__getitem__")
    args = iter(values if isinstance(values, tuple) else (values,))
    out: list = []
    tensors: list = []
    end = 0
    for match in [*_PERCENT.finditer(template), None]:
        literal = template[end:None if match is None else match.start()]
        if "%" in literal:  # Python took it (e.g. `%(a(b))s`), this parser does not
            raise NotImplementedError(
                f"autograph cannot format tensors with the template {template!r}; use an f-string.")
        out.append(_escape(literal, "%"))
        if match is None:
            break
        end = match.end()
        key, flags, width, precision, kind = match.group(
            "key", "flags", "width", "precision", "type")
        if match.group() == "%%":
            out.append("%%")
            continue
        stars = [next(args) for part in (width, precision) if part == "*"]
        if any(needs_backend(star) for star in stars):
            raise NotImplementedError(
                "autograph cannot format with a `*` width or precision from a tensor; compute it "
                "in Python.")
        value = values[key] if key is not None and mapping else next(args)
        spec = "%" + flags + (width or "") + ("" if precision is None else f".{precision}")
        spec = spec.replace("*", "{}").format(*stars) + kind
        if holds_tensors(value):
            if spec not in ("%s", "%r", "%a"):
                raise NotImplementedError(
                    f"autograph cannot format a {type(value).__name__} holding tensors with "
                    f"{spec!r}; format its items, or use %s.")
            out.append(_container_template(value, tensors, "%", "a" if kind == "a" else "r"))
        elif needs_backend(value):
            out.append(spec)
            tensors.append(value)
        else:
            out.append(_escape(spec % (value,), "%"))
    return "".join(out), tensors


class _Probe:
    """Stands for a tensor while Python checks that a template fits its values."""

    def __format__(self, spec):
        return ""

    def __str__(self):
        return ""

    __repr__ = __str__

    def __index__(self):
        return 0

    __int__ = __index__

    def __float__(self):
        return 0.0

    def __getitem__(self, key):
        raise TypeError(f"a tensor is not a mapping (key {key!r})")


def _probes(values):
    """`values` with each tensor replaced by a `_Probe` (in a tuple or dict, or itself)."""
    def probe(v):
        return _Probe() if needs_backend(v) else v

    if isinstance(values, tuple):  # (and a shape: Python's `%` takes a tuple's subclass too)
        return tuple(map(probe, values))
    if type(values) is dict:
        return {k: probe(v) for k, v in values.items()}
    return probe(values)
