"""Loading generated source as a real module: compiled under its own filename, which is
registered in `linecache` (so tracebacks and `inspect` show the generated code) and in the
origin registry (so errors and graph ops can point back at the user's lines)."""

from __future__ import annotations

import hashlib
import linecache
import os
import tempfile

from autograph import origins

_DIRECTORY = os.path.join(tempfile.gettempdir(), "autograph_generated")


def load(source: str, name: str, origin_map: origins.OriginMap):
    """Compiles the module `source`; returns (code object of the module, filename)."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    filename = os.path.join(_DIRECTORY, f"{name}_{digest}.py")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    origins.REGISTRY.add(filename, origin_map)
    return compile(source, filename, "exec"), filename


def find_code(module_code, *path: str):
    """The code object reached by following function names `path` through nested constants."""
    code = module_code
    for name in path:
        code = next(c for c in code.co_consts if getattr(c, "co_name", None) == name)
    return code
