"""Emitting converted code: the gast module as a stdlib AST that compiles as it is, numbered
line by line exactly as `ast.unparse` prints it.

So the generated source text is only produced when someone reads it (`to_code`, a traceback,
`inspect`), yet matches the line numbers of the compiled code. Guarantees: every statement gets
the line `ast.unparse(module)` puts it on, every expression its statement's (first) line and
unknown columns (-1); the origin map pairs each generated line with the user origin of the
first node printed on it, as a parallel walk of the generated source would.
"""

from __future__ import annotations

import ast

import gast

from autograph.anno import Anno, getanno

_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases", "decorator_list"})
_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
_LOOPS = (gast.For, gast.AsyncFor, gast.While)
_TRIES = tuple(getattr(gast, name) for name in ("Try", "TryStar") if hasattr(gast, name))
_CONTEXTS = {gast.Load: ast.Load(), gast.Store: ast.Store(), gast.Del: ast.Del()}

# gast class -> (ast class, its fields, whether it has a position)
_SPECS: dict = {}


def emit(module) -> tuple[ast.Module, dict]:
    """(stdlib Module ready for `compile`, generated line -> user Origin) for a gast Module."""
    emitter = _Emitter()
    body = emitter.block(module.body, docstring=True)
    return ast.Module(body=body, type_ignores=[]), emitter.lines


def _spec(cls):
    spec = _SPECS.get(cls)
    if spec is None:
        ast_cls = getattr(ast, cls.__name__)
        spec = _SPECS[cls] = (ast_cls, ast_cls._fields, "lineno" in ast_cls._attributes)
    return spec


class _Emitter:
    def __init__(self):
        self.line = 0  # the last line printed so far
        self.lines: dict = {}
        self.extra = 0  # lines that multi-line f-strings add to the current statement
        self.in_fstring = False

    # ---- layout (mirrors ast._Unparser.fill / maybe_newline) ---------------------------------
    def _fill(self, root) -> int:
        """Starts a new line for `root` (a statement, handler, case or decorator)."""
        self.line += 1
        origin = _first_origin(root)
        if origin is not None:
            self.lines.setdefault(self.line, origin)
        return self.line

    def _maybe_newline(self):
        if self.line:
            self.line += 1

    def block(self, stmts, docstring=False) -> list:
        out = []
        for i, stmt in enumerate(stmts):
            if i == 0 and docstring and _is_docstring(stmt):
                out.append(self._docstring(stmt))
            else:
                out.append(self.stmt(stmt))
        return out

    def _docstring(self, stmt):
        new = self._simple(stmt)
        # Printed between triple quotes, so it may span lines: count them the way unparse does.
        if "\n" in stmt.value.value:
            text = ast.unparse(ast.Module(body=[new], type_ignores=[]))
            self.line += text.count("\n")
        return new

    def stmt(self, node):
        if isinstance(node, _DEFS):
            self._maybe_newline()
            decorators = []
            for decorator in node.decorator_list:
                decorators.append(self.expr(decorator, self._fill(decorator)))
                self.line, self.extra = self.line + self.extra, 0
            new = self._header(node, self._fill(node))
            new.decorator_list = decorators
            new.body = self.block(node.body, docstring=True)
            return new
        if isinstance(node, gast.If):
            return self._if(node)
        if isinstance(node, _LOOPS):
            new = self._header(node, self._fill(node))
            new.body = self.block(node.body)
            new.orelse = self._else(node.orelse)
            return new
        if isinstance(node, _TRIES):
            new = self._header(node, self._fill(node))
            new.body = self.block(node.body)
            new.handlers = [self._handler(h) for h in node.handlers]
            new.orelse = self._else(node.orelse)
            new.finalbody = self._else(node.finalbody)
            return new
        if isinstance(node, gast.Match):
            new = self._header(node, self._fill(node))
            new.cases = []
            for case in node.cases:
                new_case = self._header(case, self._fill(case))
                new_case.body = self.block(case.body)
                new.cases.append(new_case)
            return new
        if isinstance(node, (gast.With, gast.AsyncWith)):
            new = self._header(node, self._fill(node))
            new.body = self.block(node.body)
            return new
        return self._simple(node)

    def _simple(self, node):
        return self._header(node, self._fill(node))

    def _if(self, node):
        new = outermost = self._header(node, self._fill(node))
        new.body = self.block(node.body)
        # `else: if` with nothing else in the `else` prints as `elif`, one line shorter.
        while len(node.orelse) == 1 and isinstance(node.orelse[0], gast.If):
            node = node.orelse[0]
            inner = self._header(node, self._fill(node))
            inner.body = self.block(node.body)
            new.orelse = [inner]
            new = inner
        new.orelse = self._else(node.orelse)
        return outermost

    def _else(self, stmts) -> list:
        if not stmts:
            return []
        self.line += 1  # `else:` / `finally:`
        return self.block(stmts)

    def _handler(self, handler):
        new = self._header(handler, self._fill(handler))
        new.body = self.block(handler.body)
        return new

    def _header(self, node, line):
        """`node` converted without its blocks (the caller fills those), all on `line`."""
        ast_cls, fields, located = _SPECS.get(type(node)) or _spec(type(node))
        values = {}
        for field in fields:
            if field in _BLOCKS:
                values[field] = []
                continue
            value = getattr(node, field, None)
            if isinstance(value, gast.AST):
                value = self.expr(value, line) if type(value) is not gast.Name or \
                    field != "name" else value.id  # ExceptHandler's name is a str in ast
            elif type(value) is list:
                value = [self.expr(v, line) if isinstance(v, gast.AST) else v for v in value]
            values[field] = value
        if self.extra:
            self.line += self.extra
            self.extra = 0
        if not located:
            return ast_cls(**values)
        return ast_cls(**values, lineno=line, end_lineno=line, col_offset=-1, end_col_offset=-1)

    # ---- expressions ---------------------------------------------------------------------------
    def _value(self, value, line):
        if isinstance(value, gast.AST):
            return self.expr(value, line)
        if type(value) is list:
            return [self.expr(v, line) if isinstance(v, gast.AST) else v for v in value]
        return value

    def expr(self, node, line):
        cls = type(node)
        if cls is gast.Name:
            return ast.Name(id=node.id, ctx=_CONTEXTS[type(node.ctx)], lineno=line,
                            end_lineno=line, col_offset=-1, end_col_offset=-1)
        context = _CONTEXTS.get(cls)
        if context is not None:
            return context
        if cls is gast.arguments:
            return self._arguments(node, line)
        ast_cls, fields, located = _SPECS.get(cls) or _spec(cls)
        outer_fstring = cls is gast.JoinedStr and not self.in_fstring
        self.in_fstring = self.in_fstring or outer_fstring
        values = {}
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(value, gast.AST):
                value = self.expr(value, line)
            elif type(value) is list:
                value = [self.expr(v, line) if isinstance(v, gast.AST) else v for v in value]
            values[field] = value
        if not located:
            return ast_cls(**values)
        new = ast_cls(**values, lineno=line, end_lineno=line, col_offset=-1, end_col_offset=-1)
        if outer_fstring:
            self.in_fstring = False
            self.extra += ast.unparse(new).count("\n")
        return new

    def _arguments(self, node, line):
        return ast.arguments(
            posonlyargs=[self._arg(a, line) for a in node.posonlyargs],
            args=[self._arg(a, line) for a in node.args],
            vararg=self._arg(node.vararg, line),
            kwonlyargs=[self._arg(a, line) for a in node.kwonlyargs],
            kw_defaults=self._value(node.kw_defaults, line),
            kwarg=self._arg(node.kwarg, line),
            defaults=self._value(node.defaults, line),
        )

    def _arg(self, node, line):
        if node is None:
            return None
        annotation = None if node.annotation is None else self.expr(node.annotation, line)
        new = ast.arg(arg=node.id, annotation=annotation, type_comment=node.type_comment)
        new.lineno = new.end_lineno = line
        new.col_offset = new.end_col_offset = -1
        return new


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) and \
        isinstance(stmt.value.value, str)


def _first_origin(root):
    """The origin of the first node (breadth first) printed on `root`'s line that has one."""
    origin = getanno(root, Anno.ORIGIN)
    if origin is not None and "lineno" in root._attributes:
        return origin
    queue = [root]
    for node in queue:
        if node is not root and "lineno" in node._attributes:
            origin = getanno(node, Anno.ORIGIN)
            if origin is not None:
                return origin
        for field in node._fields:
            if node is root and field in _BLOCKS:
                continue
            value = getattr(node, field, None)
            if isinstance(value, gast.AST):
                queue.append(value)
            elif type(value) is list:
                queue.extend(v for v in value if isinstance(v, gast.AST))
    return None
