"""Differential fuzzing of the converter: random programs (`program_grammar`) run three ways,
plain Python on numpy values, `autograph.to_graph` on eager tensors and `rt.function`, and must
agree: equal results, or an error in all three, or a clear error from the graph (or from the
conversion): one that the library raises on purpose, with a message that names the user's file.

CI runs 300 programs, the same ones every time (derandomized). To fuzz, set FUZZ_PROGRAMS to a
number of programs; they are then drawn at random on each run:

    FUZZ_PROGRAMS=5000 python -m pytest tests/autograph/test_differential.py -q

A failure shows the (shrunk) program, the arguments and the three outcomes. Each program is
written to a file of its own (conversion needs real source) and imported twice: once as is, and
once with `rt` bound to `PLAIN_RUNTIME` for the plain-Python run: Python's `range` for
`rt.range`, and numpy for `rt.stack`, `rt.concat` and `rt.reduce_sum`. Programs that use the
module global `G` reset it first, so runs are independent.
"""

import functools
import importlib.util
import itertools
import os
import tempfile
import traceback
import types

import numpy as np
from hypothesis import HealthCheck, given, settings
from program_grammar import cases
from three_way import outcomes, same

import autograph
import runtime as rt

FUZZING = "FUZZ_PROGRAMS" in os.environ
PROGRAMS = int(os.environ.get("FUZZ_PROGRAMS", 300))


def _leaves(value):
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def _dtype(values):
    """The dtype the runtime gives a tensor packed from `values` (nested lists of numbers and
    arrays): Python numbers are weak, they take the dtype of the arrays they meet, else int32
    or float32 (float32 for no numbers at all, as `rt.constant([])`)."""
    leaves = list(_leaves(values))
    strong = [np.asarray(v).dtype for v in leaves if type(v) not in (bool, int, float)]
    if strong:
        return functools.reduce(np.promote_types, strong)
    if leaves and not any(type(v) is float for v in leaves):
        return np.int32
    return np.float32


def _stack(values):
    if not len(values):
        raise ValueError("stack needs at least one tensor")
    return np.asarray(values, _dtype(values))  # a ragged list raises


def _concat(values, axis):
    if not len(values):
        raise ValueError("concat needs at least one tensor")
    dtype = _dtype(values)
    return np.concatenate([np.asarray(v, dtype) for v in values], axis)


def _reduce_sum(value):
    value = np.asarray(value, _dtype(value))
    return value.sum(dtype=value.dtype)


# The oracle's `rt`: plain Python, and numpy where the program packs or stacks lists.
PLAIN_RUNTIME = types.SimpleNamespace(range=range, stack=_stack, concat=_concat,
                                      reduce_sum=_reduce_sum)
# Messages about the library's own objects: a tensor that escaped its graph ("Tensor t belongs
# to another graph ..."), a symbolic tensor used as a Python object ("'SymbolicTensor' object
# does not support item assignment"), also when relayed by an error the library raises.
_INTERNAL = ("another graph", "'SymbolicTensor' object")
_LIBRARY = tuple(os.path.dirname(m.__file__) + os.sep for m in (autograph, rt))
_DIRECTORY = tempfile.TemporaryDirectory(prefix="autograph_differential_")
_COUNTER = itertools.count()


def _import(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load(source):
    """(oracle, f, path): the program's `f` as written, and a copy of it (from a second module)
    whose `rt.range` is Python's `range`, to run as plain Python."""
    name = f"differential_program_{next(_COUNTER)}"
    path = os.path.join(_DIRECTORY.name, name + ".py")
    with open(path, "w") as file:
        file.write(source)
    plain = _import(name + "_plain", path)
    plain.rt = PLAIN_RUNTIME
    return plain.f, _import(name, path).f, path


def is_clear_error(error, path):
    """Raised on purpose by the library (its innermost frame is a `raise` statement in
    autograph/ or runtime/) with a message that names the user's file (a note added on the way
    out does not count: every error gets one), and not about the library's own objects."""
    frames = traceback.extract_tb(error.__traceback__)
    message = str(error)
    return (bool(frames) and frames[-1].filename.startswith(_LIBRARY)
            and (frames[-1].line or "").startswith("raise")
            and path in message and not any(text in message for text in _INTERNAL))


def _same(actual, expected):
    try:
        return same(actual, expected)
    except Exception:  # noqa: BLE001 - e.g. a symbolic tensor returned by mistake
        return False


def disagreement(results, path):
    """How the three outcomes break the rule, or None when they keep it."""
    python, eager, graph = results
    if isinstance(python, Exception):
        for label, value in (("converted", eager), ("graph", graph)):
            if not isinstance(value, Exception):
                return f"Python raised, {label} returned a value"
        return None
    if isinstance(eager, autograph.ConversionError) and is_clear_error(eager, path):
        return None
    if isinstance(eager, Exception):
        return "converted raised, Python returned a value"
    if not _same(eager, python):
        return "converted differs from Python"
    if isinstance(graph, Exception):
        return None if is_clear_error(graph, path) else "graph raised an unclear error"
    return None if _same(graph, python) else "graph differs from Python"


def describe(outcome):
    if isinstance(outcome, Exception):
        notes = "".join("\n    " + note.replace("\n", "\n    ")
                        for note in getattr(outcome, "__notes__", []))
        return f"{type(outcome).__name__}: {outcome}{notes}"
    return repr(outcome)


def report(problem, source, args, results):
    names = ("x", "y", "u", "p", "n")
    shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, args))
    lines = [problem, "program:", source, f"args: {shown}"]
    lines += [f"{label:10} {describe(r)}" for label, r in zip(("python:", "converted:", "graph:"),
                                                              results)]
    return "\n".join(lines)


def run_case(case):
    """[(args, results, problem)] for each argument tuple of `case`."""
    oracle, fn, path = load(case.source)
    runs = []
    for args in case.arg_sets:
        results = outcomes(fn, *args, python=oracle)
        runs.append((args, results, disagreement(results, path)))
    return runs


@settings(max_examples=PROGRAMS, deadline=None, database=None, derandomize=not FUZZING,
          report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_generated_programs_agree_three_ways(case):
    for args, results, problem in run_case(case):
        assert problem is None, report(problem, case.source, args, results)
