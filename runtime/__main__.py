"""`python -m runtime explain FILE.py:NAME [ARG ...]`: prints `rt.explain` of a function for
arguments given as Python literals (numbers and nested lists become tensors; a literal prefixed
with `py:` stays a Python value, e.g. `py:3`).

It lives here rather than in `python -m autograph` because explaining needs the tensor library,
which autograph does not import.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import os
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


def _arguments_problem(fn, values, target: str) -> str | None:
    """Why `fn` cannot take `values` (its name, file and line, its parameters and an example
    command), or None."""
    try:
        signature = getattr(fn, "python_signature", None) or inspect.signature(fn)
    except (TypeError, ValueError):  # not a function, or no signature: let rt.explain say
        return None
    try:
        signature.bind(*values)
    except TypeError as e:
        code = getattr(getattr(fn, "python_function", fn), "__code__", None)
        where = f" ({code.co_filename}:{code.co_firstlineno})" if code else ""
        names = [name for name, p in signature.parameters.items()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        example = " ".join([target, *(["1.0"] * len(names))])
        return (f"{fn.__name__}{signature}{where}: {e}. Give one Python literal per parameter, "
                f"e.g. python -m runtime explain {example}")
    return None


_EXAMPLES = """examples:
  python -m runtime explain model.py:step 1.5 "[1.0, 2.0]"   tensors from Python literals
  python -m runtime explain model.py:step 1.5 py:3           py:3 stays the Python int 3
  python -m runtime explain model.py:Model.__call__ ...      a method (its class's function)
  python -m runtime explain model.py:step 1.5 --traceback    the full traceback of an error

An error (a failed trace, a missing argument) prints one line, the located message, and exits
with status 1; --traceback shows the whole traceback."""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m runtime",
                                     description="Explains what rt.function does with a function.",
                                     epilog=_EXAMPLES,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"tracegraph {rt.__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    explain = commands.add_parser("explain", help="print rt.explain of a function",
                                  epilog=_EXAMPLES,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    explain.add_argument("target", metavar="FILE.py:NAME")
    explain.add_argument("args", nargs="*", metavar="ARG",
                         help="arguments as Python literals (tensors; `py:` keeps a Python value)")
    explain.add_argument("--traceback", action="store_true",
                         help="on an error, print the whole traceback instead of one line")
    args = parser.parse_args(argv)
    fn = load_target(args.target)
    values = [_argument(a) for a in args.args]
    problem = _arguments_problem(fn, values, args.target)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    try:
        report = rt.explain(fn, *values)
    except Exception as e:  # noqa: BLE001 - a command line shows the located message
        if args.traceback:
            raise
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    try:
        print(report)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
