"""Source written to a file and imported as a module (autograph reads a function's source from
its file, so generated programs must live in one)."""

import importlib.util
from pathlib import Path


def import_source(path, source: str):
    """The module of `source`, written to `path` (named after the file)."""
    path = Path(path)
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
