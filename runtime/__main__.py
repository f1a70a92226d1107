"""`python -m runtime explain FILE.py:NAME [ARG ...]`: prints `rt.explain` of a function for
arguments given as Python literals (numbers and nested lists become tensors; a literal prefixed
with `py:` stays a Python value, e.g. `py:3`).

It lives here rather than in `python -m autograph` because explaining needs the tensor library,
which autograph does not import.
"""

from __future__ import annotations

import argparse
import ast
import sys

import runtime as rt
from autograph.__main__ import load_target


def _argument(text: str):
    python = text.startswith("py:")
    try:
        value = ast.literal_eval(text[3:] if python else text)
    except (ValueError, SyntaxError):
        raise SystemExit(f"error: {text!r} is not a Python literal") from None
    return value if python or isinstance(value, str) else rt.constant(value)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m runtime",
                                     description="Explains what rt.function does with a function.")
    parser.add_argument("--version", action="version", version=f"tracegraph {rt.__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    explain = commands.add_parser("explain", help="print rt.explain of a function")
    explain.add_argument("target", metavar="FILE.py:NAME")
    explain.add_argument("args", nargs="*", metavar="ARG",
                         help="arguments as Python literals (tensors; `py:` keeps a Python value)")
    args = parser.parse_args(argv)
    fn = load_target(args.target)
    print(rt.explain(fn, *[_argument(a) for a in args.args]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
