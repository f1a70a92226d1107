"""`python -m autograph code FILE.py:NAME`: prints the code autograph makes of a function.

NAME is a function defined at the top level of FILE.py, or `Class.method`. The file is run as
a module named after it (its top-level code runs), as `import` would.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import autograph


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograph",
                                     description="Shows what autograph makes of your code.")
    parser.add_argument("--version", action="version", version=f"autograph {autograph.__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    code = commands.add_parser("code", help="print the converted code of a function")
    code.add_argument("target", metavar="FILE.py:NAME",
                      help="a Python file and a function in it (or Class.method)")
    return parser


def load_target(target: str):
    """The function (or `Class.method`) NAME of the file FILE.py, from "FILE.py:NAME"."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise SystemExit(f"error: expected FILE.py:NAME, got {target!r}")
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"error: no file {path!r}")
    spec = importlib.util.spec_from_file_location(file.stem, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[file.stem] = module  # so that the source of its functions can be found
    sys.path.insert(0, str(file.resolve().parent))
    spec.loader.exec_module(module)
    value = module
    for part in name.split("."):
        if not hasattr(value, part):
            raise SystemExit(f"error: {path} has no {name!r}")
        value = getattr(value, part)
    return value


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    fn = load_target(args.target)
    try:
        print(autograph.to_code(fn), end="")
    except (TypeError, autograph.ConversionError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
