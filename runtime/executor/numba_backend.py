"""`rt.function(f, jit_compile="numba")`: graphs compiled to machine code by numba.

The graph is written as Python the way the default executor writes it (`If` as `if`/`else`,
`While` as `while`), but each op becomes an expression that numba's `njit` compiles: its NUMBA
rule (runtime/executor/numba_rules.py; numba_exactness.py says where results may differ from
the default executor's). The function is compiled for the argument types of its signature on the
first call, and its machine code kept in the cache directory for the next process. Where
numba's code raises for values the kernel fails on (an index past the end, a max of nothing, a
negative dim, a failed assertion), the error names the op that can fail so, at the user's line
(`_failing_ops`). An op without a NUMBA rule is a located NoLoweringError naming it; the extra
`numba` must be installed.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
import re

import numpy as np

from runtime import config
from runtime.core import dtypes
from runtime.core.generated_code import InlineCall
from runtime.core.graph import Operation
from runtime.errors import NoLoweringError, located_kind, with_origin
from runtime.executor import (
    codegen,
    interpreter,
    numba_exactness,
    numba_helpers,
    numba_lists,
    numba_reductions,
    numba_rules,
)
from runtime.ops import (
    array_ops,
    basic_ops,
    io_ops,
    random_ops,
    reduction_ops,
)
from runtime.ops.registry import ELEMENTWISE, NUMBA

# The helpers written once (numba_rules.HELPERS): name -> (source, njit's fastmath or None); the
# rules write others as they lower an op (numba_helpers.GENERATED, the same form)
_WRITTEN_HELPERS = {name: ("{'reassoc'}" if name in numba_helpers.REASSOCIATING else None)
                    for name in numba_rules.HELPERS}


def _helper(name: str) -> tuple:
    """(source, njit's fastmath or None) of the helper `name`."""
    if name in _WRITTEN_HELPERS:
        return numba_rules.HELPERS[name], _WRITTEN_HELPERS[name]
    return numba_helpers.GENERATED[name]


class NumbaEmitter(codegen.Emitter):
    """Writes a graph as Python that numba compiles: NUMBA rules instead of kernel calls."""

    free_temporaries = False  # numba manages its own memory
    negated_predicates = False  # (LLVM tests `x ^ True` as cheaply as `not x`)
    counted_loops = False  # a numpy range of int32 would be typed int64 by numba
    python_history = False  # a gradient history is a list of lists: not lowered
    origin_comments = False  # (the source names its file in the disk cache: the same graph
    # traced from another line is the same file; numba's code warns of nothing)

    def __init__(self, graph):
        for t in graph.outputs:
            if t.dtype.is_list:
                raise NoLoweringError(with_origin(
                    "jit_compile='numba' does not return a staged list (numba's list is "
                    "not the runtime's list value); return np.stack(xs) or use the default "
                    "executor.", t.op.origin))
        super().__init__(graph)
        self.globals["np"] = np
        self._taken.update(("np", "numba_", *numba_rules.HELPERS))
        self.helpers: list[str] = []  # the helpers (numba_rules.HELPERS) the code calls
        self._reads: dict[int, int] = {}  # id(tensor) -> how many reads (ops, outputs) it has
        # The expression of an elementwise array op whose one reader may be the next op:
        # (its tensor, expression, op, indent, the variables it reads), written into that
        # reader's expression (numba fuses the elementwise operations of one expression into
        # one loop, making no array between them) or, if the next line is anything else, as
        # its own line first.
        self._pending: tuple | None = None
        self._reader: dict[int, Operation] = {}  # id(tensor) -> an op that reads it
        self._filled: dict[str, str] = {}  # a list held as an array the loop fills -> its count

    def returns(self, indent: str, params: list[str]) -> None:
        """One output is returned as it is, not in a tuple (numba boxes a tuple for each call:
        30 ns of a 120 ns call); `_caller` reads it so."""
        outputs = self.graph.outputs
        if len(outputs) != 1:
            return super().returns(indent, params)
        self.emit(indent, f"return {self.name_of(outputs[0])}")

    def body(self, graph, indent: str, skip=()) -> None:
        for op in graph.operations:
            for t in op.inputs:
                self._reads[id(t)] = self._reads.get(id(t), 0) + 1
                self._reader[id(t)] = op
        for t in graph.outputs:
            self._reads[id(t)] = self._reads.get(id(t), 0) + 1
        super().body(graph, indent, skip)
        self._flush()

    def emit(self, indent: str, text: str, op=None) -> None:
        self._flush()
        super().emit(indent, text, op)

    def _flush(self) -> None:
        """Writes the pending expression as its own line."""
        if self._pending is not None:
            tensor, expr, op, indent, reads = self._pending
            self._pending = None
            self.emit(indent, f"{self.name_of(tensor)} = {expr}", op)

    def _outlined(self, expr: str, reads: list, op) -> str:
        """`expr`, `op`'s statement (a reduction of all of an elementwise chain written into
        it), as a call of a helper of its own when its arrays are long (OUTLINED_SIZE): LLVM
        vectorizes the loops of a small function, where in a function of more than a few such
        loops it left them scalar (16 counts of a 10,000-value histogram: 70 us, in helpers
        29). Helpers are named by their source, so statements alike (the variables they read
        are its parameters) share one compile. Elementwise statements stay in the function:
        as helpers, LLVM took four times as long to compile Mandelbrot's loop."""
        if not any(len(t.shape) and (not t.shape.is_fully_defined() or math.prod(t.shape)
                                     >= OUTLINED_SIZE) for t in (*op.inputs, *op.outputs)):
            return expr
        params = [f"p{i}_" for i in range(len(reads))]
        body = expr
        for name, param in zip(reads, params):
            body = re.sub(rf"(?<![\w.]){re.escape(name)}\b(?!\s*=(?!=))", param, body)
        digest = hashlib.sha256(f"{params}{body}".encode()).hexdigest()[:12]
        helper = f"elementwise_{digest}_"
        numba_helpers.generate(helper, f"def {helper}({', '.join(params)}):\n"
                                       f"    return {body}\n")
        call = f"{helper}({', '.join(reads)})"
        self._add_helpers(call)
        return call

    def _emit_kernel(self, op, indent: str, dying=()) -> None:
        rule = op.opdef.rule(NUMBA)
        half = any(t.dtype is dtypes.float16 for t in (*op.inputs, *op.outputs))
        if rule is None or half:
            reason = numba_exactness.FLOAT16 if half else op.opdef.lacking.get(
                NUMBA, "it has no numba lowering")
            raise NoLoweringError(with_origin(
                f"jit_compile='numba' cannot compile the {op.type} op ({reason}). Use the default "
                "executor (jit_compile=None) for this function.", op.origin))
        names = [self.name_of(t) for t in op.inputs]
        pending = self._pending
        token = "pending_value_"
        if pending is not None and any(t is pending[0] for t in op.inputs):
            names = [token if t is pending[0] else name for t, name in zip(op.inputs, names)]
        if op.opdef in numba_rules.DRAWS:  # (its input: the generator it draws from)
            names = [self._generator(op.attrs["seed"])]
        expr = names[0] if self._counted_bools(op) else rule(op, names, self.typed)
        self._add_helpers(expr)
        reads = list(dict.fromkeys(n for n in names if n != token))
        merged = False
        if pending is not None and token in names:
            if len(re.findall(rf"\b{token}\b", expr)) == 1:  # (read once: computed once)
                self._pending, merged = None, True
                expr = re.sub(rf"\b{token}\b", lambda _: _grouped(pending[1]), expr)
                reads = list(dict.fromkeys(reads + pending[4]))
            else:
                expr = re.sub(rf"\b{token}\b", self.name_of(pending[0]), expr)
                reads = list(dict.fromkeys(reads + [self.name_of(pending[0])]))
        outs = [self._define(t) for t in op.outputs]
        if self._inlined(op):
            self._flush()
            self._pending = (op.outputs[0], expr, op, indent, reads)
            return
        if merged and op.opdef in numba_reductions.REDUCERS and op.attrs.get("axis") is None:
            expr = self._outlined(expr, reads, op)
        self.emit(indent, f"{', '.join(outs)} = {expr}" if outs else expr, op)

    def _counted_bools(self, op) -> bool:
        """Whether `op` casts bools to int64 that only a sum of all of them reads (numpy's sum
        of bools, `np.sum(x == b)`): numba's np.sum of the bools counts them in int64 as well,
        without the cast's array (16 counts over 10,000 values: 19 us, with the casts 30)."""
        if op.opdef is not basic_ops.CAST:
            return False
        out = op.outputs[0]
        if not (op.inputs[0].dtype.is_bool and out.dtype is dtypes.int64 and len(out.shape)
                and self._reads.get(id(out)) == 1):
            return False
        reader = self._reader.get(id(out))
        return (reader is not None and reader.opdef is reduction_ops.SUM
                and reader.attrs.get("axis") is None and reader.outputs[0].dtype is dtypes.int64)

    def _inlined(self, op) -> bool:
        """Whether the op's value may go into its reader's expression: an elementwise array
        op read once (in this graph, not returned), of dtypes numba computes one element in
        as the array holds it (inside one expression numba computes narrower integers in
        int64: uint8 `(a + b) // 2` would not wrap at 256). Its reader takes it if it is the
        next op the code computes; numba reports no error at a line (a failing call reruns on
        the default executor, which names the user's line)."""
        return (ELEMENTWISE in op.opdef.groups and len(op.outputs) == 1
                and len(op.outputs[0].shape) > 0 and self._reads.get(id(op.outputs[0])) == 1
                and all(t.dtype in _FUSED_DTYPES for t in (*op.inputs, *op.outputs)))

    # a list a loop only appends to: numba's list, or an array the loop fills where it is only
    # stacked or counted after the loop and the loop counts its appends
    # (runtime/executor/numba_lists.py)
    def list_buffer(self, buffer, lst, result, appends):
        if appends is None or not numba_lists.fillable(result):
            return [f"{buffer} = {lst}.copy()"]
        self._filled[buffer] = filled = self._fresh(f"{buffer}_n")
        self._add_helpers("fill_from_(")
        empty = numba_lists.empty_items(result, f"len({lst}) + {appends}")
        return [f"{buffer} = fill_from_({empty}, {lst})", f"{filled} = len({lst})"]

    def list_append(self, buffer, item, value):
        filled = self._filled.get(buffer)
        if filled is None:
            return [f"{buffer}.append({f'{value}.copy()' if len(item.shape) else value})"]
        return [f"if {filled} == len({buffer}):",
                "    raise IndexError('a loop ran past its count (its counter wrapped around)')",
                f"{buffer}[{filled}] = {value}", f"{filled} += 1"]

    def list_value(self, buffer):
        filled = self._filled.get(buffer)
        return buffer if filled is None else f"{buffer}[:{filled}]"

    def _generator(self, seed) -> str:
        """The parameter holding the numpy Generator that ops with `seed` draw from (the caller
        passes random_ops.generator(seed) at each call: set_seed replaces it)."""
        for name, known in self.extra_parameters.items():
            if known == seed:
                return name
        name = self._fresh(f"rng_{len(self.extra_parameters)}")
        self._taken.add(name)
        self.extra_parameters[name] = seed
        return name

    def _add_helpers(self, code: str) -> None:
        """The helpers `code` calls, and those they call."""
        for name in itertools.chain(_WRITTEN_HELPERS, numba_helpers.GENERATED):
            if name not in self.helpers and re.search(rf"\b{name}\(", code):
                self.helpers.append(name)
                self._add_helpers(_helper(name)[0])

    def epilogue(self) -> str:
        """The helpers the code calls, compiled by numba as the function is (kept on disk with
        it when its module is a file of the cache directory)."""
        if not self.helpers:
            return ""
        parts = ["\n\nimport numba as numba_\n"]
        for name in self.helpers:
            source, fastmath = _helper(name)
            options = "" if fastmath is None else f", fastmath={fastmath}"
            parts.append(f'\n\n@numba_.njit(cache="__file__" in globals(), error_model='
                         f'{_ERROR_MODEL!r}{options})\n{source}')
        return "".join(parts)

    def typed(self, number, dtype) -> str:
        """A global holding `number` as a numpy scalar of `dtype`."""
        value = dtype.np_dtype.type(number)
        return self._global(f"c_{dtype.name}_{len(self.globals)}", value)


def _grouped(expr: str) -> str:
    """`expr` as an operand: in parentheses unless it is one group or call already."""
    opening = re.match(r"[\w.]*\(", expr)
    if opening is not None and expr.endswith(")"):
        depth = 0
        for i in range(opening.end() - 1, len(expr)):
            depth += {"(": 1, ")": -1}.get(expr[i], 0)
            if depth == 0:
                if i == len(expr) - 1:
                    return expr
                break
    return f"({expr})"


def compile_graph(graph, example_values=None, fallback=None):
    """(a function of the input values -> tuple of outputs, Generated), compiled by numba: on
    the first call, or now for the types of `example_values` (and then for no other types: a
    call with others raises TypeError, or runs `fallback`, the default executor's function,
    when given; a call that fails on numba runs `fallback` too, whose result or error is the
    default executor's, at the user's line). The machine code is kept in the cache directory
    (`rt.config.set_cache_dir`): the same graph in another process loads it instead of
    compiling again."""
    try:
        import numba
    except ImportError:
        raise ImportError("jit_compile='numba' needs the numba package: pip install "
                          "'tracegraph[numba]'.") from None
    generated = codegen.generate(graph, emitter_class=NumbaEmitter)
    run = _from_disk(generated)
    on_disk = run is not None
    if not on_disk:  # no cache directory: compiled in memory, for this process only
        run = codegen.load(generated)
    ops = sum(1 for _ in graph.walk())
    if example_values is None and ops >= SLOW_COMPILE_OPS and not compiled_on_disk(graph):
        logger.warning(
            "jit_compile='numba': graph '%s' has %d ops, which numba compiles at its first "
            "call in about %d s or more (2 ms an op on scalars, more on arrays; once per "
            "process, or once at all with a cache directory). A Python loop unrolled by tracing "
            "makes graphs this big: iterate over a tensor range (rt.range(n), or range(n) of "
            "a tensor n) to make it one graph loop; jit_compile='auto' compiles in the "
            "background while the default executor runs.", graph.name, ops, ops // 500)
    # An index held in a tensor may be past the end: numba checks it, as numpy does (a fancy
    # index, rt.gather's, is read unchecked otherwise: garbage, or a crash).
    checked = any(op.opdef in (array_ops.GETITEM, array_ops.GATHER) for op in graph.walk())
    # numpy's error model: a float divided by zero is inf or nan and an integer one 0, as numpy
    # gives (numba's default, Python's, raises ZeroDivisionError)
    compiled = numba.njit(run, cache=on_disk, boundscheck=checked, error_model=_ERROR_MODEL)
    scalars = _scalar_types(graph) if not generated.extra_arguments else None
    if example_values is not None:
        example_values = (*example_values,
                          *(random_ops.generator(seed) for seed in generated.extra_arguments))
        signature = tuple(numba.typeof(v) for v in example_values)
        compiled.compile(signature)
        compiled.disable_compile()
        if scalars is not None and tuple(map(type, example_values)) != scalars:
            scalars = None
    elif scalars is not None:  # (the types every call of numpy scalars passes)
        signature = tuple(numba.typeof(kind(0)) for kind in scalars)
        compiled.compile(signature)
    entry = compiled.overloads[signature].entry_point if scalars is not None else None
    return _caller(compiled, graph, generated.extra_arguments, fallback, (entry, scalars)), (
        generated)


def _scalar_types(graph):
    """The numpy scalar type of each input of `graph` when all are numeric scalars (a call
    with numpy scalars of those types then needs none of numba's type dispatch), else None."""
    kinds = tuple(t.dtype.np_dtype.type for t in graph.inputs)
    if all(len(t.shape) == 0 and t.dtype.np_dtype.kind in "biufc" for t in graph.inputs):
        return kinds
    return None


_CACHED = "tracegraph_numba_"  # the module name prefix of graphs kept on disk
# Graphs of this many ops take numba seconds to compile (measured: 2.4 ms an op on a chain of
# scalar ops, 1.3 s at 400 ops, 5.8 s at 2,400): a warning says so before it starts.
SLOW_COMPILE_OPS = 1000
OUTLINED_SIZE = 1024  # values of an array whose reductions of a chain become helpers
_FUSED_DTYPES = frozenset({dtypes.float32, dtypes.float64, dtypes.int64, dtypes.bool_})
logger = logging.getLogger("runtime.executor")
_ERROR_MODEL = "numpy"  # see compile_graph


def _disk_path(generated):
    """The file of the cache directory that holds `generated` (named by a digest of its source
    and constants: numba bakes the constants into its machine code), or None when there is no
    cache directory or a global has no digest."""
    import hashlib
    import importlib.metadata
    import os

    root = config.cache_dir()
    if root is None:
        return None
    digest = hashlib.sha256(generated.source.encode())
    versions = f"numba {importlib.metadata.version('numba')} numpy {np.__version__}"
    digest.update(versions.encode())  # (without importing numba: tiering asks at trace time)
    digest.update(_ERROR_MODEL.encode())  # (machine code compiled with another one differs)
    for name in sorted(generated.globals):
        value = generated.globals[name]
        if value is np:
            digest.update(f"{name}=numpy".encode())
        elif isinstance(value, (np.ndarray, np.generic)):
            array = np.asarray(value)
            digest.update(f"{name}={type(value).__name__}:{array.dtype.str}{array.shape}".encode())
            digest.update(array.tobytes())
        else:
            return None  # a global numba would bake in that the digest cannot see
    return os.path.join(root, "numba", f"g_{digest.hexdigest()[:40]}.py")


def _from_disk(generated):
    """`run` of `generated` imported from its file in the cache directory (`_disk_path`), so
    that numba's on-disk cache (`cache=True`) keeps its machine code for the next process; None
    when there is no usable cache directory. The file is written once and checked before each
    import."""
    import importlib.util
    import os
    import sys
    import tempfile

    path = _disk_path(generated)
    if path is None:
        return None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            with open(path, encoding="utf-8") as file:
                current = file.read()
        except FileNotFoundError:
            current = None
        if current != generated.source:  # missing, or changed by someone: write it again
            handle, scratch = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(generated.source)
            os.replace(scratch, path)
    except OSError:
        return None
    # Named by the digest alone: numba's cache finds the module again by this name when it
    # loads the machine code (in this process or the next). Modules of one name are the same
    # graph, so one in another cache directory is simply replaced.
    name = _CACHED + os.path.basename(path)[2:-3]
    module = sys.modules.get(name)
    if module is None or getattr(module, "__file__", None) != path:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        module.__dict__.update(generated.globals)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    generated.filename = path
    return module.run


def compiled_on_disk(graph) -> bool:
    """Whether an earlier process left numba's machine code for `graph` in the cache
    directory (for some argument types)."""
    import glob
    import os
    import sys

    try:
        path = _disk_path(codegen.generate(graph, emitter_class=NumbaEmitter))
    except NoLoweringError:
        return False
    if path is None:
        return False
    folder, file = os.path.split(path)
    python = f"py{sys.version_info.major}{sys.version_info.minor}"  # numba's index names it
    return bool(glob.glob(os.path.join(folder, "__pycache__",
                                       f"{glob.escape(file[:-3])}.*.{python}.nbi")))


def _caller(compiled, graph, seeds=(), fallback=None, direct=(None, None)):
    """`compiled` (which numba types on the first call) with its scalar results as numpy scalars
    of their dtypes (numba returns Python numbers): one generated function, as lean as the
    call can be, which a concrete function's caller takes in (`.inline`). A number becomes a
    numpy scalar by adding it to a numpy zero of the dtype (numpy keeps the scalar's dtype next
    to a Python number, and the number fits it): 5x faster than calling the type; the zero is
    -0.0 for floats, so a -0.0 stays -0.0. `seeds`: of the generators `compiled` takes after
    the inputs (the current ones, at each call). `direct`: (the machine code's entry point, the
    numpy scalar type of each argument it was compiled for): arguments of exactly those types
    go straight to it (numba's dispatch, which types them first, costs as much again as the
    call itself)."""
    scope = {"native": compiled, "native_generator": random_ops.generator}
    args = ", ".join(f"a{i}" for i in range(len(graph.inputs)))
    passed = ", ".join([*(f"a{i}" for i in range(len(graph.inputs))),
                        *(f"native_generator({seed!r})" for seed in seeds)])
    results = []
    single = len(graph.outputs) == 1  # (returned as it is: NumbaEmitter.returns)
    for i, t in enumerate(graph.outputs):
        out = "outs" if single else f"outs[{i}]"
        if len(t.shape) == 0 and t.dtype.is_bool:
            scope[f"native_z{i}"] = np.False_
            results.append(f"(native_z{i} | {out})")
        elif len(t.shape) == 0 and not t.dtype.is_string:
            scope[f"native_z{i}"] = t.dtype.np_dtype.type(-0.0 if t.dtype.is_floating else 0)
            if t.dtype.is_complex:
                scope[f"native_z{i}"] = t.dtype.np_dtype.type(complex(-0.0, -0.0))
            results.append(f"(native_z{i} + {out})")
        else:
            results.append(out)
    handlers = []
    if fallback is not None:  # argument types numba did not compile for, or any failure: the
        scope["native_fallback"] = fallback  # default executor's own result or located error
        handlers += ["except Exception:",
                     f"    outs = native_fallback({args}){'[0]' if single else ''}"]
    # numba's errors name no op: the op that can fail so did it (see _failing_ops)
    for i, (error, ops) in enumerate(_failing_ops(graph).items() if fallback is None else ()):
        scope[f"native_failed{i}"] = _failed(ops, error)
        handlers += [f"except {error.__name__} as e:", f"    raise native_failed{i}(e) from None"]
    lines = [f"outs = native({passed})"]
    entry, kinds = direct
    if entry is not None:
        scope["native_entry"] = entry
        scope.update((f"native_t{i}", kind) for i, kind in enumerate(kinds))
        exact = " and ".join(f"type(a{i}) is native_t{i}" for i in range(len(kinds)))
        lines = [f"if {exact}:", f"    outs = native_entry({passed})", "else:",
                 f"    {lines[0]}"] if kinds else [f"outs = native_entry({passed})"]
    if handlers:
        lines = ["try:", *(f"    {line}" for line in lines), *handlers]
    return InlineCall(args, tuple(lines), tuple(results), scope).function(
        f"<rt-numba-call {next(_caller_ids)}>")


_caller_ids = itertools.count()


def _failing_ops(graph) -> dict:
    """{exception class: the ops of `graph` whose numba code raises it where the default
    executor's kernel fails}: an assertion (AssertionError, see _assert), an index held in a
    tensor past the end (IndexError: numba's bounds check), a max, min, argmax or argmin of
    nothing, a negative dim or shapes that do not broadcast (ValueError)."""
    failing: dict[type, list] = {}
    for op in graph.walk():
        if op.opdef is io_ops.ASSERT:
            failing.setdefault(AssertionError, []).append(op)
        elif op.opdef is array_ops.GETITEM and len(op.inputs) > 1 or op.opdef is array_ops.GATHER:
            failing.setdefault(IndexError, []).append(op)
        elif numba_rules.MAY_RAISE_VALUE_ERROR.get(op.opdef, lambda op: False)(op):
            failing.setdefault(ValueError, []).append(op)
    return failing


def _failed(ops, error):
    """The error for an exception of numba's code (`error`: one that the ops `ops` may raise),
    at the user's line of the first of them that may have raised it: a helper's error names its
    op kind (numba_rules.HELPER_ERRORS), numba's own errors come from the other ops (or from an
    op not listed: then the error is numba's, as it was raised)."""
    if error is AssertionError:  # raised with the name of the op that failed
        by_name = {op.name: op for op in ops}
        return lambda exc: interpreter.locate_error(
            io_ops.assertion_failed(by_name[exc.args[0]].attrs["message"],
                                    by_name[exc.args[0]].attrs.get("raises", "")),
            by_name[exc.args[0]])

    def located(exc):
        what = f"index out of bounds ({exc})" if error is IndexError else str(exc)
        prefixes = numba_rules.HELPER_ERRORS
        suspects = [op for op in ops if what.startswith(prefixes.get(op.opdef, "\0"))] or [
            op for op in ops if op.opdef not in prefixes]
        if not suspects:  # numba's own error, from an op not listed: as numba raised it
            return exc
        others = sorted({f"line {op.origin.lineno}" for op in suspects[1:]
                         if op.origin is not None})
        also = f" (or the one at {', '.join(others)})" if others else ""
        failure = located_kind(exc)(with_origin(
            f"{suspects[0].type} op '{suspects[0].name}'{also} failed while running the graph: "
            f"{what}", suspects[0].origin))
        failure._rt_located = True
        return failure

    return located
