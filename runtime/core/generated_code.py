"""Compiling Python source that the runtime generates (graph functions, fused kernels, call
wrappers): its text is registered in `linecache` under its `<rt-...>` file name, so that
tracebacks and `inspect` show it, and removed when the function is collected; and the names
generated code (and a generated ONNX model) gives its values."""

from __future__ import annotations

import linecache
import weakref
from typing import NamedTuple


def compile_function(source: str, filename: str, scope: dict, name: str):
    """The function `name` that `source` defines, run in `scope` (which it fills)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), scope)  # noqa: S102
    function = scope[name]
    weakref.finalize(function, linecache.cache.pop, filename, None)
    return function


class InlineCall(NamedTuple):
    """A call of compiled code that a caller's generated code can take in, instead of calling a
    function that makes it (one Python call fewer): `lines`, statements that set `outs` from
    the parameters `params` ("a0, a1, ..."); `results`, each output's value as an expression
    over `outs`; `scope`, the globals they read (names starting with "native")."""

    params: str
    lines: tuple
    results: tuple
    scope: dict

    def function(self, filename: str):
        """The call as a function of its own: the parameters -> the tuple of results."""
        source = (f"def call({self.params}):\n" + "".join(f"    {line}\n" for line in self.lines)
                  + f"    return ({''.join(r + ', ' for r in self.results)})\n")
        call = compile_function(source, filename, dict(self.scope), "call")
        call.inline = self
        return call


class FunctionBody(NamedTuple):
    """A generated function as other generated code can take it in (one Python call fewer):
    its parameters `params` ("a0, a1" or "*values"), its statements `lines` (which end by
    returning), and `scope`, the globals they read."""

    params: str
    lines: tuple
    scope: dict


def fresh_name(base: str, taken: set, suffix: str = "_{}") -> str:
    """`base` if it is not in `taken`, else `base + suffix.format(n)` for the first free
    n = 1, 2, ...; the name returned is added to `taken`."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = base + suffix.format(n)
    taken.add(name)
    return name
