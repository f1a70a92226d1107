"""Fast AST traversal: what `gast.walk`, `gast.NodeVisitor` and `gast.NodeTransformer` do,
at a fraction of the cost.

Conversion walks every function several times, so traversal dominates its cost. The standard
helpers look fields up through generators per node; these use a per-class table of the fields
that can hold child nodes, and of visitor methods. Behaviour is that of the standard ones (a
visitor returning a list splices it into the parent's list, None removes the node), except that
leaves no converter looks at are not visited: expression contexts (`ctx`) and operators (`op`,
`ops`). `StatementTransformer` only descends through blocks of statements, for converters whose
constructs are statements (expressions never contain statements).
"""

from __future__ import annotations

import gast

_AST = gast.AST
_LEAVES = frozenset({"ctx", "op", "ops"})
_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})

# node class -> the fields that may hold child nodes
_CHILD_FIELDS: dict = {}
# node class -> its block fields (lists of statements, handlers or cases)
_BLOCK_FIELDS: dict = {}


def _child_fields(cls) -> tuple:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _LEAVES)
    return fields


def _block_fields(cls) -> tuple:
    fields = _BLOCK_FIELDS.get(cls)
    if fields is None:
        fields = _BLOCK_FIELDS[cls] = tuple(f for f in cls._fields if f in _BLOCKS)
    return fields


def children(node) -> list:
    """The direct child nodes of `node`, in field order (like `gast.iter_child_nodes`)."""
    out = []
    for field in _child_fields(type(node)):
        value = getattr(node, field, None)
        if type(value) is list:
            out.extend([v for v in value if isinstance(v, _AST)])
        elif isinstance(value, _AST):
            out.append(value)
    return out


def walk(node) -> list:
    """Every node under `node` (itself included), parents before children (breadth first,
    like `gast.walk`)."""
    out = [node]
    for n in out:  # `out` grows while it is read
        for field in _child_fields(type(n)):
            value = getattr(n, field, None)
            if type(value) is list:
                out.extend([v for v in value if isinstance(v, _AST)])
            elif isinstance(value, _AST):
                out.append(value)
    return out


def block_children(node) -> list:
    """The statements (and except handlers, match cases) directly in `node`'s blocks."""
    out = []
    for field in _block_fields(type(node)):
        out.extend(getattr(node, field))
    return out


def statements(node) -> list:
    """`node` and every statement under it (and except handlers and match cases, which hold
    statements), parents before children; expressions never contain statements."""
    out = [node]
    for n in out:  # `out` grows while it is read
        for field in _block_fields(type(n)):
            out.extend(getattr(n, field))
    return out


class _Dispatch:
    def visit(self, node):
        dispatch = type(self).__dict__.get("_dispatch")
        if dispatch is None:
            dispatch = type(self)._dispatch = {}
        cls = type(node)
        method = dispatch.get(cls)
        if method is None:
            method = dispatch[cls] = getattr(type(self), "visit_" + cls.__name__,
                                             type(self).generic_visit)
        return method(self, node)


class Visitor(_Dispatch):
    """`gast.NodeVisitor` with cached dispatch and a faster `generic_visit`."""

    def generic_visit(self, node):
        for field in _child_fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        self.visit(item)
            elif isinstance(value, _AST):
                self.visit(value)


class Transformer(_Dispatch):
    """`gast.NodeTransformer` with cached dispatch and a faster `generic_visit`."""

    @staticmethod
    def _fields(cls) -> tuple:
        return _child_fields(cls)

    def generic_visit(self, node):
        for field in self._fields(type(node)):
            value = getattr(node, field, None)
            if type(value) is list:
                if not value:
                    continue
                new_values = []
                for item in value:
                    if isinstance(item, _AST):
                        item = self.visit(item)
                        if item is None:
                            continue
                        if not isinstance(item, _AST):
                            new_values.extend(item)
                            continue
                    new_values.append(item)
                value[:] = new_values
            elif isinstance(value, _AST):
                new_node = self.visit(value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node


    def visit_block(self, stmts: list) -> list:
        """Visits a list of statements; a visit may return one node or a list of them."""
        out = []
        for s in stmts:
            s = self.visit(s)
            out.extend(s if isinstance(s, list) else [s])
        return out


class StatementTransformer(Transformer):
    """A Transformer that visits statements only (and except handlers / match cases)."""

    @staticmethod
    def _fields(cls) -> tuple:
        return _block_fields(cls)
