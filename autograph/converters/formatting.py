"""f-strings, `"...".format(...)` and `"..." % values` become formatting operators, so that a
tensor's text is made from its value (when the graph runs), not from the graph value.

    f"x is {x:.3f} ({n!r})"   ->   ag__.format_string('x is {:.3f} ({!r})', x, n)
    "{} of {}".format(a, b)   ->   ag__.format_string('{} of {}', a, b)
    "%d items" % n            ->   ag__.percent_format('%d items', n)
    template % n              ->   ag__.mod(template, n)   (a str formats; else `%` itself)
The template of an f-string is its `str.format` equivalent: literal text with braces doubled,
one automatically numbered field per expression (nested fields of a format spec after it), in
the order Python evaluates them. `template.format(...)` with the template in a variable is
routed by converted_call; `a % b` with a constant on either side is left alone (no tensor to
format, or a number on the left). Assertion messages are left to Python: a graph assertion's
message is text fixed while tracing.
"""

from __future__ import annotations

import gast

from autograph import templates, traversal

_CONVERSIONS = {-1: "", ord("s"): "!s", ord("r"): "!r", ord("a"): "!a"}


def transform(node, ctx):
    """Converts every f-string and literal `%` / `.format` formatting under `node`."""
    return _Formatting().visit(node)


def _ag_call(name, args, keywords=()):
    func = gast.Attribute(value=templates.name("ag__"), attr=name, ctx=gast.Load())
    return gast.Call(func=func, args=args, keywords=list(keywords))


def _template(values, args) -> str:
    """The `str.format` template of the parts of an f-string (or of a format spec); appends
    the expressions of its fields to `args`."""
    text = []
    for part in values:
        if isinstance(part, gast.Constant):
            text.append(part.value.replace("{", "{{").replace("}", "}}"))
            continue
        args.append(part.value)
        spec = "" if part.format_spec is None else ":" + _template(part.format_spec.values, args)
        text.append("{" + _CONVERSIONS[part.conversion] + spec + "}")
    return "".join(text)


def _is_str(node) -> bool:
    return isinstance(node, gast.Constant) and type(node.value) is str


class _Formatting(traversal.Transformer):
    def visit_Assert(self, node):
        node.test = self.visit(node.test)
        return node

    def _visit_fields(self, parts):
        """Converts the expressions of the fields (a format spec is part of its f-string)."""
        for part in parts:
            if isinstance(part, gast.FormattedValue):
                part.value = self.visit(part.value)
                if part.format_spec is not None:
                    self._visit_fields(part.format_spec.values)

    def visit_JoinedStr(self, node):
        self._visit_fields(node.values)
        if not any(isinstance(part, gast.FormattedValue) for part in node.values):
            return node
        args = []
        template = _template(node.values, args)
        call = _ag_call("format_string", [gast.Constant(value=template, kind=None), *args])
        return gast.copy_location(call, node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, gast.Mod):
            return node
        if _is_str(node.left):
            return gast.copy_location(_ag_call("percent_format", [node.left, node.right]), node)
        if isinstance(node.right, gast.Constant) or isinstance(node.left, gast.Constant):
            return node  # (`n % 2`: no tensor to format on the right; a number on the left)
        # `a % b`: `a` may be a template in a variable (formatted as a literal one is).
        return gast.copy_location(_ag_call("mod", [node.left, node.right]), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if not (isinstance(func, gast.Attribute) and func.attr == "format" and _is_str(func.value)):
            return node
        call = _ag_call("format_string", [func.value, *node.args], node.keywords)
        return gast.copy_location(call, node)
