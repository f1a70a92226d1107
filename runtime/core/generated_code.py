"""Compiling Python source that the runtime generates (graph functions, fused kernels, call
wrappers): its text is registered in `linecache` under its `<rt-...>` file name, so that
tracebacks and `inspect` show it, and removed when the function is collected; and the names
generated code (and a generated ONNX model) gives its values."""

from __future__ import annotations

import linecache
import weakref


def compile_function(source: str, filename: str, scope: dict, name: str):
    """The function `name` that `source` defines, run in `scope` (which it fills)."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), scope)  # noqa: S102
    function = scope[name]
    weakref.finalize(function, linecache.cache.pop, filename, None)
    return function


def fresh_name(base: str, taken: set, suffix: str = "_{}") -> str:
    """`base` if it is not in `taken`, else `base + suffix.format(n)` for the first free
    n = 1, 2, ...; the name returned is added to `taken`."""
    name, n = base, 0
    while name in taken:
        n += 1
        name = base + suffix.format(n)
    taken.add(name)
    return name
