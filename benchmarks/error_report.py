"""`python -m benchmarks.error_report`: what a user sees for fourteen common mistakes (issue 30).

    python -m benchmarks.error_report                        # this checkout
    python -m benchmarks.error_report --checkout /tmp/old    # another checkout (a git worktree)
    python -m benchmarks.error_report --show 6               # mistake 6's program and stderr

Each mistake is a tiny user program written to a temporary directory (a real .py file, so
tracebacks show a user file and line) and run in a fresh process of this Python with
PYTHONPATH set to the checkout under test; mistake 9 runs the `python -m runtime explain` command
line on its file instead. The table gives, per mistake: the first line of what it prints to
stderr (the exception's `Type: message` line with the type's module left out, else an error line
without a traceback, else a warning's `Category: message`; "no error" when the program succeeds
silently, "timeout" after 60 s), the traceback's length (stderr lines from the first
"Traceback (most recent call last):" to the end; 0 when there is none) and whether stderr names
the line of the mistake in the user's file (the lines marked `# <- mistake`).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
TIMEOUT = 60  # seconds a program may run
WIDTH = 110  # characters of the first line shown in the table
MARK = "# <- mistake"
TRACEBACK = "Traceback (most recent call last):"
WARNING = re.compile(r"^.*:\d+: (\w*Warning: .*)$")


@dataclass(frozen=True)
class Mistake:
    title: str
    source: str
    command: tuple[str, ...] = ("{file}",)  # arguments to Python; {file} is the program's path


MISTAKES = (
    Mistake("a Python list indexed by a graph tensor", """\
import runtime as rt

table = [10.0, 20.0, 30.0]


@rt.function
def lookup(i):
    return table[i] * 2.0  # <- mistake


print(lookup(rt.constant(1)))
"""),
    Mistake("rt.random.normal with a tensor shape", """\
import runtime as rt


@rt.function
def noise(n):
    return rt.random.normal([n])  # <- mistake


print(noise(rt.constant(3)).shape)
"""),
    Mistake("two lambdas on one line, a tensor `if` in one", """\
import runtime as rt

f, g = rt.function(lambda x: x if x > 0 else -x), rt.function(lambda x: x * 2)  # <- mistake
print(f(rt.constant(-3.0)))
"""),
    Mistake("rt.function of a library function (rt.sqrt)", """\
import runtime as rt

root = rt.function(rt.sqrt)  # <- mistake
print(root(rt.constant([4.0, 9.0])))
"""),
    Mistake("an rt.Variable created on every trace", """\
import runtime as rt


@rt.function
def scaled(x):
    w = rt.Variable(2.0)  # <- mistake
    return w * x


print(scaled(rt.constant(1.0)))
print(scaled(rt.constant([1.0, 2.0])))
"""),
    Mistake("a tensor `if` in a do_not_convert helper", """\
import autograph
import runtime as rt


@autograph.do_not_convert
def relu(x):
    if x > 0:  # <- mistake
        return x
    return 0.0 * x


@rt.function
def layer(x):
    return relu(x) + 1.0


print(layer(rt.constant(2.0)))
"""),
    Mistake("a Python `for` over range(5000) (unrolled)", """\
import runtime as rt


@rt.function
def total(x):
    s = rt.zeros_like(x)
    for i in range(5000):  # <- mistake
        s = s + x * i
    return s


print(total(rt.constant(1.0)))
"""),
    Mistake("pickle.dumps of a decorated function", """\
import pickle

import runtime as rt


@rt.function
def square(x):
    return x * x


print(len(pickle.dumps(square)))  # <- mistake
"""),
    Mistake("`python -m runtime explain` missing an argument", """\
def step(x, y):  # <- mistake
    return x * y + 1.0
""", ("-m", "runtime", "explain", "{file}:step", "1.0")),
    Mistake("matmul of mismatched shapes", """\
import numpy as np

import runtime as rt


@rt.function
def project(x, w):
    return rt.matmul(x, w)  # <- mistake


print(project(rt.constant(np.ones((4, 3), np.float32)), rt.constant(np.ones((4, 2), np.float32))))
"""),
    Mistake("a variable assigned in one branch of a tensor `if`", """\
import runtime as rt


@rt.function
def clip(x):
    if x > 0:  # <- mistake
        y = x
    return y * 2.0  # <- mistake


print(clip(rt.constant(-1.0)))
"""),
    Mistake("a tensor in one branch, None in the other", """\
import runtime as rt


@rt.function
def maybe(x):
    if x > 0:  # <- mistake
        out = x * 2.0
    else:
        out = None  # <- mistake
    return out


print(maybe(rt.constant(1.0)))
"""),
    Mistake(".numpy() on a symbolic tensor", """\
import runtime as rt


@rt.function
def describe(x):
    values = x.numpy()  # <- mistake
    return rt.constant(values.mean())


print(describe(rt.constant([1.0, 2.0])))
"""),
    Mistake("a tensor as a dict key (a cache)", """\
import runtime as rt

cache = {}


@rt.function
def expensive(x):
    if x not in cache:  # <- mistake
        cache[x] = rt.exp(x) * 2.0  # <- mistake
    return cache[x]


print(expensive(rt.constant(1.0)))
"""),
)


@dataclass(frozen=True)
class Outcome:
    first_line: str
    traceback_lines: int
    names_line: str  # "yes", "no", or "-" when nothing was reported
    stderr: str


def run(mistake: Mistake, number: int, checkout: Path, directory: Path) -> Outcome:
    program = directory / _file_name(number)
    program.write_text(mistake.source)
    command = [sys.executable, *(a.format(file=program) for a in mistake.command)]
    try:
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(checkout)}, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        stderr = e.stderr.decode(errors="replace") if e.stderr else ""
        return Outcome("timeout", 0, "-", stderr)
    lines = done.stderr.splitlines()
    first = _first_line(lines, done.returncode)
    if first is None:
        return Outcome("no error", 0, "-", done.stderr)
    starts = [i for i, line in enumerate(lines) if line == TRACEBACK]
    marked = [i for i, line in enumerate(mistake.source.splitlines(), 1) if line.endswith(MARK)]
    named = any(f'"{program}", line {n}' in done.stderr or f"{program}:{n}" in done.stderr
                for n in marked)
    return Outcome(first, len(lines) - starts[0] if starts else 0, "yes" if named else "no",
                   done.stderr)


def _file_name(number: int) -> str:
    return f"mistake_{number:02d}.py"


def _first_line(lines, returncode) -> str | None:
    """The exception line after the last traceback, else (on a failure) the first line, else the
    first warning's text; None when nothing was reported."""
    if TRACEBACK in lines:
        start = len(lines) - lines[::-1].index(TRACEBACK)
        for line in lines[start:]:
            if not line[:1].isspace():
                kind, colon, message = line.partition(":")
                return kind.rsplit(".", 1)[-1] + colon + message
    if returncode != 0 and lines:
        return lines[0].removeprefix(f"{sys.executable}: ")
    warnings = [m.group(1) for m in map(WARNING.match, lines) if m]
    return warnings[0] if warnings else None


def table(outcomes) -> str:
    rows = ["| # | mistake | first line of the error (or warning) | traceback lines | "
            "names your line |", "|---:|---|---|---:|---|"]
    for number, (mistake, outcome) in enumerate(zip(MISTAKES, outcomes), 1):
        first = outcome.first_line
        first = first if len(first) <= WIDTH else first[:WIDTH - 1] + "…"
        rows.append(f"| {number} | {mistake.title} | {first.replace('|', '&#124;')} | "
                    f"{outcome.traceback_lines} | {outcome.names_line} |")
    lengths = [o.traceback_lines for o in outcomes if o.traceback_lines]
    if lengths:
        rows.append(f"\n{len(lengths)} tracebacks, {min(lengths)}-{max(lengths)} lines, "
                    f"median {statistics.median(lengths):g}")
    return "\n".join(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.error_report",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--checkout", type=Path, default=REPOSITORY, metavar="PATH",
                        help="the checkout whose runtime/ and autograph/ the programs import "
                             "(default: the one holding this script)")
    parser.add_argument("--show", type=int, metavar="N", choices=range(1, len(MISTAKES) + 1),
                        help="print mistake N's program and its full stderr instead of the table")
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    with tempfile.TemporaryDirectory(prefix="error_report_") as directory:
        if args.show:
            mistake = MISTAKES[args.show - 1]
            outcome = run(mistake, args.show, checkout, Path(directory))
            command = " ".join(a.format(file=_file_name(args.show)) for a in mistake.command)
            print(f"{args.show}. {mistake.title} (python {command}):\n\n{mistake.source}\n"
                  f"stderr:\n{outcome.stderr}", end="")
            return 0
        print(f"checkout: {checkout}\n")
        print(table([run(m, i, checkout, Path(directory)) for i, m in enumerate(MISTAKES, 1)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
