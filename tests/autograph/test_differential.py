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
module global `G` reset it first, so runs are independent. Programs that write outside state
(program_grammar.OUTSIDE_STATE) define `reset_outside()`, called before each run, and
`outside()`, the state a run left: their outcome is a WithState (result, state), so a graph that
leaves its placeholder in a module's dict or an object's attribute differs from Python. A nan
equals a nan, whatever its sign bit. Flags of program_grammar can be turned on for one run:

    FUZZ_FLAGS=BITWISE,ROUND FUZZ_PROGRAMS=1000 pytest tests/autograph/test_differential.py -q

Boundary mode (boundary_programs.py): the same programs with `rt.function` boundaries: `f`
decorated, the module-level helpers, the nested function `inner` and the lambda `g` wrapped in
`rt.function` (some with an input_signature). The program without those decorators runs the
three ways above (and must keep the rule); the decorated one runs as converted code on eager
tensors (`autograph.to_graph(f)`: the helpers' graphs run eagerly) and as the graph of the
decorated `f` (the helpers' graphs inlined; one `f` for all argument tuples, so its graph is
reused). Each must give plain Python's value exactly where the undecorated run of the same kind
(converted / graph) does, raise where Python raises, and may raise only where the undecorated
run raises too (the graph then with a clear error). The conftest save -> load round trip checks
the decorated `f` too.
FUZZ_BOUNDARY selects it: `mix` (the default: FUZZ_PROGRAMS programs as above, and
BOUNDARY_SHARE of that many in boundary mode, a test of their own), `only` (FUZZ_PROGRAMS in
boundary mode) or `off`:

    FUZZ_BOUNDARY=only FUZZ_PROGRAMS=1200 python -m pytest tests/autograph/test_differential.py -q

FUZZ_REPORT=FILE makes the boundary test run every program (no stop at the first failure),
write the counts and failures to FILE (JSON), and fail at the end if any.
The bugs this mode found and that were fixed are listed in boundary_programs.py.
"""

import ast
import collections
import functools
import importlib.util
import itertools
import json
import os
import re
import tempfile
import traceback
import types
import weakref
from typing import NamedTuple

import numpy as np
import pytest
from boundary_programs import boundary_cases
from hypothesis import HealthCheck, given, settings
from program_grammar import cases
from three_way import as_numpy_args, as_tensor_args, same

import autograph
import runtime as rt
from runtime.tracing.function import Function


@pytest.fixture(autouse=True, scope="module")
def _library_frames_kept():
    """The harness tells a clear error by its innermost frame (a `raise` of the library), so
    tracebacks keep the library's frames here."""
    was = rt.config.traceback_filtering()
    rt.config.set_traceback_filtering(False)
    yield
    rt.config.set_traceback_filtering(was)


FUZZING = "FUZZ_PROGRAMS" in os.environ
PROGRAMS = int(os.environ.get("FUZZ_PROGRAMS", 300))
REPORT = os.environ.get("FUZZ_REPORT")
BOUNDARY = os.environ.get("FUZZ_BOUNDARY", "mix")
if BOUNDARY not in ("mix", "only", "off"):
    raise ValueError(f"FUZZ_BOUNDARY must be mix, only or off, not {BOUNDARY!r}")
BOUNDARY_SHARE = 0.15  # of PROGRAMS, in boundary mode too with FUZZ_BOUNDARY=mix
BOUNDARY_PROGRAMS = {"mix": max(1, round(PROGRAMS * BOUNDARY_SHARE)), "only": PROGRAMS,
                     "off": 0}[BOUNDARY]
# numpy's warnings where a program makes nan or inf on purpose (program_grammar.NAN_VALUES)
pytestmark = pytest.mark.filterwarnings(
    "ignore:(invalid value|divide by zero|overflow) encountered:RuntimeWarning")


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


_ARGUMENT_NAMES = ("p", "pv")  # the vector argument and views of it (program_grammar.VIEWS)


def rebound_source(source):
    """The source with each in-place operator on the argument `p` or a view of it (`p *= 2`,
    `pv += u`: program_grammar.IN_PLACE_ARGUMENT) written as a rebinding (`p = p * 2`), which
    is what it does on a tensor argument (as in Python: a tensor is immutable); None for a
    program without one. The converted and graph runs get tensors (as_tensor_args), so this is
    their oracle; numpy's in-place operator on a numpy argument is run_case's numpy-argument run.
    """
    tree = ast.parse(source)
    found = False

    class Rebind(ast.NodeTransformer):
        def visit_AugAssign(self, node):
            nonlocal found
            if not (isinstance(node.target, ast.Name) and node.target.id in _ARGUMENT_NAMES):
                return node
            found = True
            value = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
            return ast.copy_location(ast.Assign([node.target], value), node)

    tree = ast.fix_missing_locations(Rebind().visit(tree))
    return ast.unparse(tree) + "\n" if found else None


def load(source):
    """(oracle, f, path, modules): the program's `f` as written, and a copy of it (from a second
    module) whose `rt.range` is Python's `range`, to run as plain Python; `modules` is (the
    copy's module, f's). For a program with an in-place operator on its vector argument, the
    copy is of `rebound_source` (the runs to compare get a tensor there)."""
    name = f"differential_program_{next(_COUNTER)}"
    path = os.path.join(_DIRECTORY.name, name + ".py")
    with open(path, "w") as file:
        file.write(source)
    rebound = rebound_source(source)
    plain_path = path
    if rebound is not None:
        plain_path = os.path.join(_DIRECTORY.name, name + "_rebound.py")
        with open(plain_path, "w") as file:
            file.write(rebound)
    plain = _import(name + "_plain", plain_path)
    plain.rt = PLAIN_RUNTIME
    module = _import(name, path)
    return plain.f, module.f, path, (plain, module)


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
        return _same_numbers(actual, expected)
    except Exception:  # noqa: BLE001 - e.g. a symbolic tensor returned by mistake
        return False


_INT64 = np.iinfo(np.int64)


def _same_numbers(actual, expected):
    """three_way.same, where a Python int past int64 (program_grammar.PYTHON_INTS) equals only
    the same Python int (no tensor holds it: a graph returns it only as a Python value it
    computed while tracing)."""
    if isinstance(expected, (tuple, list)):
        return (isinstance(actual, type(expected)) and len(actual) == len(expected)
                and all(map(_same_numbers, actual, expected)))
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and actual.keys() == expected.keys()
                and all(_same_numbers(actual[k], expected[k]) for k in expected))
    if type(expected) is int and not _INT64.min <= expected <= _INT64.max:
        return type(actual) is int and actual == expected
    return same(actual, expected)


def disagreement(results, path):
    """How the three outcomes break the rule, or None when they keep it."""
    python, eager, graph = results
    if isinstance(python, Exception):
        for label, value in (("converted", eager), ("graph", graph)):
            if not isinstance(value, Exception):
                return f"Python raised, {label} returned a value"
            if not _same_class(value, python) and not is_clear_error(value, path):
                return f"Python raised {type(python).__name__}, {label} {type(value).__name__}"
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


_USER_CLASSES = ("StepError",)  # program_grammar.USER_EXCEPTIONS (one class per module copy)


def _same_class(error, expected):
    """An error of the program's own class where Python raised one (compared by name: the
    oracle's module and f's define a class each), any error otherwise. (The callers also take
    a clear error of the library: a graph may refuse a program while tracing, before its
    raise.)"""
    name = type(expected).__name__
    return name not in _USER_CLASSES or type(error).__name__ == name


def numpy_argument_disagreement(python, graph, changed, path):
    """How the graph called with numpy arguments breaks the rule for a program with an in-place
    operator on its vector argument (program_grammar.IN_PLACE_ARGUMENT): where plain Python
    changed the caller's array (`changed`), the call must be refused with a clear error; else
    Python's values or a clear error (the refusal is made while tracing, also for an operator on
    a path this call does not take). None when it keeps it."""
    if isinstance(python, Exception):
        if not isinstance(graph, Exception):
            return "Python raised, graph (numpy arguments) returned a value"
        if not _same_class(graph, python) and not is_clear_error(graph, path):
            return f"Python raised {type(python).__name__}, graph (numpy arguments) " \
                f"{type(graph).__name__}"
        return None
    if isinstance(graph, Exception):
        return None if is_clear_error(graph, path) else \
            "graph (numpy arguments) raised an unclear error"
    if changed:
        return "Python changed the caller's array, graph (numpy arguments) returned a value"
    return None if _same(graph, python) else "graph (numpy arguments) differs from Python"


def describe(outcome):
    if isinstance(outcome, Exception):
        notes = "".join("\n    " + note.replace("\n", "\n    ")
                        for note in getattr(outcome, "__notes__", []))
        frames = traceback.extract_tb(outcome.__traceback__)
        raised = f"\n    (raised at {frames[-1].filename}:{frames[-1].lineno}: {frames[-1].line})" \
            if frames else ""
        return f"{type(outcome).__name__}: {outcome}{notes}{raised}"
    if type(outcome) is int and outcome.bit_length() > 14_000:  # (repr holds 4,300 digits)
        return f"<a Python int of {outcome.bit_length():,} bits>"
    return repr(outcome)


def report(problem, source, args, results):
    names = ("x", "y", "u", "p", "n")
    shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, args))
    lines = [problem, "program:", source, f"args: {shown}"]
    labels = ("python:", "converted:", "graph:", "python (numpy arguments):",
              "graph (numpy arguments):")
    lines += [f"{label:10} {describe(r)}" for label, r in zip(labels, results)]
    return "\n".join(lines)


def _run(call):
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - an error is an outcome to compare
        return error


class WithState(NamedTuple):
    """A run's result and the outside state it left (programs that write it: see
    program_grammar.OUTSIDE_STATE)."""

    result: object
    outside: dict


def _with_state(module, call):
    """`call()`'s outcome; for a program with outside state (`module` defines `outside`), the
    state is reset first and the outcome is a WithState."""
    if not hasattr(module, "outside"):
        return _run(call)
    module.reset_outside()
    result = _run(call)
    return result if isinstance(result, Exception) else WithState(result, module.outside())


def state_outcomes(fn, args, python, modules):
    """three_way.outcomes (python, converted, graph), with the outside state each run left
    (`modules`: python's module and fn's)."""
    tensors = as_tensor_args(args)
    return (_with_state(modules[0], lambda: python(*as_numpy_args(args))),
            _with_state(modules[1], lambda: autograph.to_graph(fn)(*tensors)),
            _with_state(modules[1], lambda: rt.function(fn)(*tensors)))


def run_case(case):
    """[(args, results, problem)] for each argument tuple of `case`. A program with an in-place
    operator on its vector argument (`rebound_source`) also runs as plain Python and as a graph
    on numpy arguments (results: python, converted, graph, python on numpy arguments, graph on
    numpy arguments; see numpy_argument_disagreement)."""
    oracle, fn, path, modules = load(case.source)
    numpy_oracle = None
    if rebound_source(case.source) is not None:
        numpy_oracle = _import(os.path.basename(path)[:-3] + "_numpy", path)
        numpy_oracle.rt = PLAIN_RUNTIME
    runs = []
    for number, args in enumerate(case.arg_sets):
        results = state_outcomes(fn, args, oracle, modules)
        problem = disagreement(results, path)
        if numpy_oracle is not None and problem is None and (FUZZING or number == 0):
            # (in CI on the first argument tuple only: a graph traced again, for time)
            python_args, graph_args = as_numpy_args(args), as_numpy_args(args)
            before = python_args[3].copy()
            python = _with_state(numpy_oracle, functools.partial(numpy_oracle.f, *python_args))
            changed = not same(python_args[3], before)
            graph = _with_state(modules[1], functools.partial(rt.function(fn), *graph_args))
            problem = numpy_argument_disagreement(python, graph, changed, path)
            if problem is None and not same(graph_args[3], before):
                problem = "the graph changed its numpy argument"
            results = (*results, python, graph)
        runs.append((args, results, problem))
    return runs


@pytest.mark.skipif(BOUNDARY == "only", reason="FUZZ_BOUNDARY=only")
@settings(max_examples=PROGRAMS, deadline=None, database=None, derandomize=not FUZZING,
          report_multiple_bugs=False, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_generated_programs_agree_three_ways(case):
    for args, results, problem in run_case(case):
        assert problem is None, report(problem, case.source, args, results)


# ---- boundary mode ------------------------------------------------------------------------------

def load_boundary(case):
    """(oracle, plain f, plain path, their modules, decorated module, decorated path)."""
    oracle, plain, plain_path, modules = load(case.plain_source)
    name = f"differential_boundary_{next(_COUNTER)}"
    path = os.path.join(_DIRECTORY.name, name + ".py")
    with open(path, "w") as file:
        file.write(case.source)
    return oracle, plain, plain_path, modules, _import(name, path), path


def boundary_outcomes(module):
    """(converted eager, graph) results of the decorated `f` on one argument tuple: `f` as
    `module` defines it (an rt.function, or a Python decorator's wrapper of one)."""
    fn = module.f
    graph_fn = fn if isinstance(fn, Function) else rt.function(fn)

    def run(args):
        tensors = as_tensor_args(args)
        converted = autograph.to_graph(fn)
        return (_reused(lambda: _with_state(module, lambda: converted(*tensors))),
                _reused(lambda: _with_state(module, lambda: graph_fn(*tensors))))
    return run


class Reused(NamedTuple):
    """A decorated run in which an rt.function traced before did not trace again (it reused
    a graph, maybe inside a caller's new trace): the Python side effects of tracing it
    (outside state written with Python values) did not run again, as documented (README: they
    happen once, while tracing)."""

    result: object
    outside: dict


def _reused(call):
    """`call()`'s outcome, as a Reused one when some rt.function (the program's, or one it
    defines while it runs) was called more often than it traced during it: a call that
    reuses a graph (traced before, or earlier in the same run) does not run the Python side
    effects of tracing again."""
    # [traces before, calls, traces after] of each function called; no strong reference to
    # it is kept (which would keep its closure's cells alive: outside state to the runtime)
    counts, live = [], {}

    @autograph.do_not_convert  # (the harness's, not the program's: its list is its own)
    def counting(self, *args, **kwargs):
        known = live.get(id(self))
        if known is None or known[0]() is not self:
            known = live[id(self)] = (weakref.ref(self),
                                      [self.experimental_get_tracing_count(), 0, 0])
            counts.append(known[1])
        known[1][1] += 1
        try:
            return self._entry()(*args, **kwargs)  # (runtime/tracing/call_paths.py)
        finally:
            known[1][2] = self.experimental_get_tracing_count()

    Function.__call__ = counting
    try:
        outcome = call()
    finally:
        del Function.__call__  # (back to the inherited slot)
    reused = any(after - before < calls for before, calls, after in counts)
    return Reused(*outcome) if isinstance(outcome, WithState) and reused else outcome


# Documented limits of the decorated program run as converted code on eager tensors, where the
# undecorated one returns: (exception class, message pattern). README (Composition): a callee's
# result is a tensor when it is called eagerly, so a Python number it computes in a graph loop
# comes back as an int32 or float32 tensor and meeting a tensor of another dtype raises (also
# where a graph `if` in a callee picks one of two such values, at its line) (or,
# passed to a callee with an input_signature of another dtype, does not match it). And a
# decorated helper traced from eager code sees the caller's lists as Python lists (a loop over
# an eager count runs in Python), where the undecorated graph stages them; indexing one by a
# tensor the helper computes (from a captured eager value) is the graphs' limit on Python
# lists, refused at the user's line (found by a 1,000-program run). And `f` decorated under a
# Python decorator is an rt.function the converted wrapper calls: the graph limits below hold
# in it too (assigning a callee's number to outside state; found by an 800-program run).
# The third field: the error must name the program's line (the first two are raised where a
# decorated function is called, which the harness's save-and-load wrapper of every call hides).
# (A documented refusal's message is the library's own: naming the line is enough. Its innermost
# frame may be the program's decorator that called the rt.function, whose traceback the
# runtime filtered.)
DOCUMENTED_CONVERTED_LIMITS = ((TypeError, r"operands have different dtypes", False),
                               (TypeError, r"^cond: output .* is \w+ in the true branch but \w+ "
                                r"in the false branch", True),
                               (TypeError, r"which does not match its input_signature", False),
                               (rt.errors.OperatorNotAllowedInGraphError,
                                r"^Indexing a Python sequence \(a list, tuple or range\) by a "
                                r"symbolic tensor", True),
                               (rt.errors.OperatorNotAllowedInGraphError,
                                r"is assigned a graph value here", True))
# ... and of the decorated graph: a Python number a callee returns is a graph value (its
# stand-in) in the caller's graph, so assigning it to outside state is refused (README,
# Composition), where without the boundary a number is assigned while tracing. And a helper's
# input_signature makes a Python number argument a tensor (as TensorFlow's does), so its
# index of a Python list is the graphs' refusal at the user's line, where without the
# boundary it indexes with the number (found by a 1,500-program run).
DOCUMENTED_GRAPH_LIMITS = ((rt.errors.OperatorNotAllowedInGraphError,
                            r"is assigned a graph value here"),
                           (rt.errors.OperatorNotAllowedInGraphError,
                            r"^Indexing a Python sequence \(a list, tuple or range\) by a "
                            r"symbolic tensor"))


def boundary_disagreement(plain_results, boundary_results, path, counts=None):
    """How the decorated program's outcomes (converted, graph) break the rule, given the
    undecorated program's (python, converted, graph); None when they keep it. The decorated
    converted run runs the helpers' graphs: it may raise a clear error where the undecorated
    graph raises (e.g. a Python list indexed by a tensor in a helper), or a documented limit
    (counted in `counts`)."""
    python, _, plain_graph = plain_results
    for label, plain, value in zip(("converted", "graph"), plain_results[1:], boundary_results):
        if isinstance(python, Exception):
            if not isinstance(value, Exception):
                return f"Python raised, decorated {label} returned a value"
            if not _same_class(value, python) and not is_clear_error(value, path):
                return f"Python raised {type(python).__name__}, decorated {label} " \
                    f"{type(value).__name__}"
            continue
        if isinstance(value, Exception):
            if label == "converted" and isinstance(plain_graph, Exception) and is_clear_error(
                    value, path):
                continue
            if label == "converted" and any(
                    isinstance(value, kind) and re.search(pattern, str(value)) and (
                        not located or path in str(value))
                    for kind, pattern, located in DOCUMENTED_CONVERTED_LIMITS):
                if counts is not None:
                    counts["decorated converted: a documented limit (DOCUMENTED_CONVERTED_"
                           "LIMITS)"] += 1
                continue
            if label == "graph" and path in str(value) and any(
                    isinstance(value, kind) and re.search(pattern, str(value))
                    for kind, pattern in DOCUMENTED_GRAPH_LIMITS):
                if counts is not None:
                    counts["decorated graph: a documented limit (DOCUMENTED_GRAPH_LIMITS)"] += 1
                continue
            if not isinstance(plain, Exception):
                return f"decorated {label} raised, undecorated {label} returned a value"
            if label == "graph" and not is_clear_error(value, path):
                return "decorated graph raised an unclear error (undecorated graph raised too)"
            continue
        if isinstance(value, Reused):  # (its outside state is that of an earlier trace)
            if not _same(value.result, python.result):
                return f"decorated {label} differs from Python"
            if counts is not None and not _same(value.outside, python.outside):
                counts[f"decorated {label}: outside state written while tracing only"] += 1
            continue
        if not _same(value, python):
            return f"decorated {label} differs from Python"
    return None


def run_boundary_case(case, counts=None):
    """[(args, results, problem)] for each argument tuple: the results of the undecorated
    program (python, converted, graph), then of the decorated one (converted, graph) unless
    the undecorated program already broke the rule (a problem not about the boundary)."""
    oracle, plain, plain_path, modules, decorated, path = load_boundary(case)
    run = boundary_outcomes(decorated)
    runs = []
    for args in case.arg_sets:
        plain_results = state_outcomes(plain, args, oracle, modules)
        problem = disagreement(plain_results, plain_path)
        if problem is not None:
            problem = f"undecorated program: {problem} (not about the boundary)"
        else:
            boundary_results = run(args)
            problem = boundary_disagreement(plain_results, boundary_results, path, counts)
            plain_results = (*plain_results, *boundary_results)
        runs.append((args, plain_results, problem))
    return runs


def boundary_report(problem, case, args, results):
    names = ("x", "y", "u", "p", "n")
    shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, args))
    labels = ("python:", "converted:", "graph:", "decorated converted:", "decorated graph:")
    lines = [problem, f"boundaries: {', '.join(case.boundaries)}", "program:", case.source,
             f"args: {shown}"]
    return "\n".join(lines + [f"{label:21} {describe(r)}" for label, r in zip(labels, results)])


@pytest.mark.skipif(BOUNDARY == "off", reason="FUZZ_BOUNDARY=off")
def test_programs_agree_across_function_boundaries():
    """Boundary mode (see the module's docstring). With FUZZ_REPORT=FILE, every program runs
    (no stop, no shrinking at the first failure): the counts and the failures go to FILE
    (JSON), and the test fails at the end if any."""
    counts, failures = collections.Counter(), []

    @settings(max_examples=BOUNDARY_PROGRAMS or 1, deadline=None, database=None,
              derandomize=not FUZZING, report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck))
    @given(case=boundary_cases())
    def run(case):
        counts["programs"] += 1
        counts["programs calling a helper in rt.function"] += bool(case.called)
        counts["... with an input_signature"] += any(
            b.split("@")[0] in case.called and b.endswith("signature") for b in case.boundaries)
        for args, results, problem in run_boundary_case(case, counts):
            counts["argument tuples"] += 1
            if problem is None:
                continue
            text = boundary_report(problem, case, args, results)
            if not REPORT:
                raise AssertionError(text)
            counts[f"failed: {problem}"] += 1
            failures.append(text)
            break  # one failure per program

    run()
    if REPORT:
        with open(REPORT, "w") as file:
            json.dump({"counts": dict(counts), "failures": failures}, file, indent=1)
    assert not failures, f"{len(failures)} failures, see {REPORT}"
