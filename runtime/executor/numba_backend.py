"""`rt.function(f, jit_compile="numba")`: graphs compiled to machine code by numba.

The graph is written as Python the way the default executor writes it (`If` as `if`/`else`,
`While` as `while`), but each op becomes an expression that numba's `njit` compiles: its NUMBA
rule. An op declared as a numpy ufunc (`Elementwise.ufunc`, see ops/math_ops.py) is that
ufunc, `np.<ufunc>(...)`; the table at the end registers the rules of the other ops (and of
the ufuncs written otherwise) against the op objects. The function is compiled for the argument
types of its signature on the first call. Results equal the default executor's bit for bit,
except for the ops that `exact` says no to and FLOAT_SUMS, which may differ in the last bits:
the math functions declared not exact (exp, log, sin, cos, tanh, sigmoid: numba takes them from
LLVM's math library, numpy from its own: a few ulp), matmul (numba's BLAS comes through SciPy)
and float sums and means (numba adds in another order than numpy's pairwise sums). For the
rest, scalar results are converted to the op's dtype (numba computes integer scalars in int64)
and numbers in expressions are typed constants of the op's dtype. Reductions run over all axes
only. An op without a NUMBA rule is a located NoLoweringError naming it; the extra `numba` must
be installed.
"""

from __future__ import annotations

import numpy as np

from runtime import variables
from runtime.errors import InvalidArgumentError, NoLoweringError, with_origin
from runtime.executor import codegen
from runtime.ops import (
    array_ops,
    creation_ops,
    io_ops,
    list_ops,
    math_ops,
    random_ops,
    reduction_ops,
    string_ops,
)
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.fused_ops import FUSED_ELEMENTWISE
from runtime.ops.registry import CONST, NUMBA, PLACEHOLDER, derive_rules, lacks, register_rules


class NumbaEmitter(codegen.Emitter):
    """Writes a graph as Python that numba compiles: NUMBA rules instead of kernel calls."""

    free_temporaries = False  # numba manages its own memory
    counted_loops = False  # a numpy range of int32 would be typed int64 by numba
    python_history = False  # lists are not lowered

    def __init__(self, graph):
        super().__init__(graph)
        self.globals["np"] = np
        self._taken.add("np")

    def _emit_kernel(self, op, indent: str, dying=()) -> None:
        rule = op.opdef.rule(NUMBA)
        if rule is None:
            reason = op.opdef.lacking.get(NUMBA, "it has no numba lowering")
            raise NoLoweringError(with_origin(
                f"jit_compile='numba' cannot compile the {op.type} op ({reason}). Use the default "
                "executor (jit_compile=None) for this function.", op.origin))
        expr = rule(op, [self.name_of(t) for t in op.inputs], self.typed)
        outs = [self._define(t) for t in op.outputs]
        self.emit(indent, f"{', '.join(outs)} = {expr}", op)

    def typed(self, number, dtype) -> str:
        """A global holding `number` as a numpy scalar of `dtype`."""
        value = dtype.np_dtype.type(number)
        return self._global(f"c_{dtype.name}_{len(self.globals)}", value)


def compile_graph(graph, example_values=None):
    """(a function of the input values -> tuple of outputs, Generated), compiled by numba: on
    the first call, or now for the types of `example_values` (and then for no other types: a
    call with others raises TypeError). The machine code is kept in the cache directory
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
    # An index held in a tensor may be past the end: numba checks it, as numpy does.
    checked = any(op.opdef is array_ops.GETITEM for op in graph.walk())
    compiled = numba.njit(run, cache=on_disk, boundscheck=checked)
    if example_values is not None:
        compiled.compile(tuple(numba.typeof(v) for v in example_values))
        compiled.disable_compile()
    return _caller(compiled, graph), generated


_CACHED = "tracegraph_numba_"  # the module name prefix of graphs kept on disk


def _disk_path(generated):
    """The file of the cache directory that holds `generated` (named by a digest of its source
    and constants: numba bakes the constants into its machine code), or None when there is no
    cache directory or a global has no digest."""
    import hashlib
    import importlib.metadata
    import os

    from runtime import config

    root = config.cache_dir()
    if root is None:
        return None
    digest = hashlib.sha256(generated.source.encode())
    versions = f"numba {importlib.metadata.version('numba')} numpy {np.__version__}"
    digest.update(versions.encode())  # (without importing numba: tiering asks at trace time)
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


def _caller(compiled, graph):
    """`compiled` (which numba types on the first call) with its scalar results as numpy scalars
    of their dtypes (numba returns Python numbers): one generated function, as lean as the
    call can be."""
    scope = {"compiled": compiled}
    args = ", ".join(f"a{i}" for i in range(len(graph.inputs)))
    results = []
    for i, t in enumerate(graph.outputs):
        if len(t.shape) == 0 and not t.dtype.is_string:
            scope[f"k{i}"] = t.dtype.np_dtype.type
            results.append(f"k{i}(outs[{i}])")
        else:
            results.append(f"outs[{i}]")
    indexing = [op for op in graph.walk() if op.opdef is array_ops.GETITEM and len(op.inputs) > 1]
    if indexing:  # numba's bounds check names no op: the index held in a tensor did it
        scope["out_of_bounds"] = _out_of_bounds(indexing)
        source = (f"def call({args}):\n"
                  f"    try:\n"
                  f"        outs = compiled({args})\n"
                  f"    except IndexError as e:\n"
                  f"        raise out_of_bounds(e) from None\n"
                  f"    return ({''.join(r + ', ' for r in results)})\n")
    else:
        source = (f"def call({args}):\n"
                  f"    outs = compiled({args})\n"
                  f"    return ({''.join(r + ', ' for r in results)})\n")
    exec(compile(source, "<rt-numba-call>", "exec"), scope)  # noqa: S102
    return scope["call"]


def _out_of_bounds(ops):
    """The error for an index past the end that numba's bounds check found, at the user's line
    of the (first) indexing by a tensor."""
    others = sorted({f"line {op.origin.lineno}" for op in ops[1:] if op.origin is not None})
    also = f" (or the one at {', '.join(others)})" if others else ""

    def error(exc):
        located = InvalidArgumentError(with_origin(
            f"StridedSlice op '{ops[0].name}'{also} failed while running the graph: index out "
            f"of bounds ({exc})", ops[0].origin))
        located._rt_located = True
        return located

    return error


# ---- the NUMBA rules ---------------------------------------------------------------------------

def _numpy_name(dtype) -> str:
    return "np.bool_" if dtype.is_bool else f"np.{dtype.np_dtype.name}"


def _as_dtype(op, expr: str) -> str:
    """`expr` as the op's output dtype when the output is a scalar (numba computes integer
    scalars in int64; arrays keep numpy's dtype rules)."""
    out = op.outputs[0]
    return f"{_numpy_name(out.dtype)}({expr})" if len(out.shape) == 0 else expr


def _operator(template):
    return lambda op, a, typed: _as_dtype(op, template.format(*a))


def _real_operator(template):
    """An operator numba computes as numpy does on real numbers only: its complex products and
    quotients round otherwise (a few ulp)."""
    def rule(op, a, typed):
        if op.outputs[0].dtype.is_complex:
            raise NoLoweringError(with_origin(
                f"jit_compile='numba' does not lower a complex {op.type}: numba's complex "
                "products and quotients differ from numpy's in the last bits.", op.origin))
        return _operator(template)(op, a, typed)
    return rule


def _function(name):
    return lambda op, a, typed: _as_dtype(op, f"{name}({', '.join(a)})")


def _ufunc(opdef):
    """The NUMBA rule of an op declared as a numpy ufunc: `np.<ufunc>(...)`, which numba
    compiles as numpy computes it."""
    ufunc = opdef.elementwise and opdef.elementwise.ufunc
    return _function(f"np.{ufunc}") if ufunc else None


def _sigmoid(op, a, typed):
    one = typed(1, op.outputs[0].dtype)
    return _as_dtype(op, f"({one} / ({one} + np.exp(-{a[0]})))")


def _fmod(op, a, typed):
    """numba's np.fmod of integers reads their bits as unsigned (numba 0.68: fmod(-5, 3) is 2):
    integers take the remainder of their magnitudes (right, INT_MIN's too) with x1's sign."""
    if op.outputs[0].dtype.is_floating:
        return _as_dtype(op, f"np.fmod({a[0]}, {a[1]})")
    return _as_dtype(op, f"(np.sign({a[0]}) * np.fmod(np.abs({a[0]}), np.abs({a[1]})))")


def _power(op, a, typed):
    """Floats only: numpy refuses an integer to a negative integer power, numba's np.power
    would give a number."""
    if not op.outputs[0].dtype.is_floating:
        raise NoLoweringError(with_origin(
            f"jit_compile='numba' does not lower an integer {op.type}: numpy refuses negative "
            "exponents of integers, numba's power would give a number. Use floats, or the "
            "default executor.", op.origin))
    return _as_dtype(op, f"np.power({a[0]}, {a[1]})")


def _relu(op, a, typed):
    return _as_dtype(op, f"np.maximum({a[0]}, {typed(0, op.outputs[0].dtype)})")


def _select(op, a, typed):
    if len(op.outputs[0].shape) == 0 and all(len(t.shape) == 0 for t in op.inputs):
        return f"({a[1]} if {a[0]} else {a[2]})"
    return f"np.where({a[0]}, {a[1]}, {a[2]})"


def _cast(op, a, typed):
    target = _numpy_name(op.attrs["dtype"])
    if len(op.outputs[0].shape) == 0:
        return f"{target}({a[0]})"
    return f"{a[0]}.astype({target})"


def _whole_reduction(name, exact_for_floats: bool):
    """A reduction over all axes (numba's take no axis); sums of floats add in another order
    than numpy's pairwise sums, so only integer sums are lowered."""
    def rule(op, a, typed):
        x = op.inputs[0]
        if op.attrs["axis"] is not None and not (len(x.shape) == 1 and op.attrs["axis"] in (
                0, -1, (0,), (-1,))):
            raise NoLoweringError(with_origin(
                f"jit_compile='numba' lowers {op.type} over all axes only.", op.origin))
        if x.dtype.is_floating and not exact_for_floats:
            raise NoLoweringError(with_origin(
                f"jit_compile='numba' does not lower a float {op.type}: numba adds in a different "
                "order than numpy, so results would differ in the last bits.", op.origin))
        expr = _as_dtype(op, f"{name}({a[0]})")
        return f"np.full((1,) * {len(x.shape)}, {expr})" if op.attrs["keepdims"] else expr
    return rule


def _float_whole_reduction(name):
    """Sum / Mean of floats over all axes: numba adds in order where numpy adds pairwise, so
    float32 and float16 values add up in float64 (then round), and the result may differ from
    numpy's in the last bits (FLOAT_SUMS)."""
    def rule(op, a, typed):
        x = op.inputs[0]
        if not x.dtype.is_floating:
            return _whole_reduction(name, exact_for_floats=False)(op, a, typed)
        if op.attrs["axis"] is not None and not (len(x.shape) == 1 and op.attrs["axis"] in (
                0, -1, (0,), (-1,))):
            raise NoLoweringError(with_origin(
                f"jit_compile='numba' lowers {op.type} over all axes only.", op.origin))
        operand = a[0] if x.dtype.np_dtype.itemsize >= 8 else (
            f"np.float64({a[0]})" if len(x.shape) == 0 else f"{a[0]}.astype(np.float64)")
        expr = _as_dtype(op, f"{name}({operand})")  # narrow floats add up in float64
        return f"np.full((1,) * {len(x.shape)}, {expr})" if op.attrs["keepdims"] else expr
    return rule


def _matmul(op, a, typed):
    if any(len(t.shape) != 2 for t in op.inputs) or not op.outputs[0].dtype.is_floating:
        raise NoLoweringError(with_origin(
            "jit_compile='numba' lowers matmul of two float matrices only.", op.origin))
    return f"np.dot(np.ascontiguousarray({a[0]}), np.ascontiguousarray({a[1]}))"


def _split(op, a, typed):
    rank, axis, start, pieces = len(op.inputs[0].shape), op.attrs["axis"], 0, []
    for size in op.attrs["sizes"]:
        index = [":"] * rank
        index[axis] = f"{start}:{start + size}"
        pieces.append(f"{a[0]}[{', '.join(index)}]")
        start += size
    return ", ".join(pieces)


def _zeros_like(op, a, typed):
    out = op.outputs[0]
    if len(out.shape) == 0:
        return typed(0, out.dtype)
    return f"np.zeros_like({a[0]}, {_numpy_name(out.dtype)})"


def _concat(op, a, typed):
    return f"np.concatenate(({', '.join(a)},), {op.attrs['axis']})"


def _pack(op, a, typed):
    """rt.stack: numbers into a new array of the op's dtype (numba would type Python-like
    scalars its own way), arrays by np.stack."""
    if op.outputs[0].dtype.is_string:
        raise NoLoweringError(with_origin(
            "jit_compile='numba' does not lower a stack of strings (numba has no numpy "
            "strings).", op.origin))
    if all(len(t.shape) == 0 for t in op.inputs):
        return f"np.array([{', '.join(a)}], dtype={_numpy_name(op.outputs[0].dtype)})"
    return f"np.stack(({', '.join(a)},), {op.attrs['axis']})"


def _getitem(op, a, typed):
    """Basic indexing: ints, slices and 0-d integer tensors (numba compiles the graph with
    bounds checks then: an index past the end is an IndexError, as numpy's), `None`, `...`.
    Indexing by integer arrays is not lowered."""
    def part(value):
        if value is None:
            return ""
        return a[1 + value[1]] if isinstance(value, tuple) else str(value)

    index = []
    for item in op.attrs["spec"]:
        kind = item[0]
        if kind == "int":
            index.append(str(item[1]))
        elif kind == "slice":
            index.append(":".join(part(v) for v in item[1:]))
        elif kind == "newaxis":
            index.append("None")
        elif kind == "ellipsis":
            index.append("...")
        elif op.inputs[1 + item[1]].shape:  # an integer array: numpy's advanced indexing
            raise NoLoweringError(with_origin(
                "jit_compile='numba' does not lower indexing by an integer array (numba "
                "takes one such index only, and places its axes otherwise); use rt.gather.",
                op.origin))
        else:
            index.append(a[1 + item[1]])
    return _as_dtype(op, f"{a[0]}[{', '.join(index)},]" if len(index) == 1 else
                     f"{a[0]}[{', '.join(index)}]")


def _reshape(op, a, typed):
    shape = tuple(op.attrs["shape"])
    return f"np.ascontiguousarray({a[0]}).reshape({shape!r})"


def _transpose(op, a, typed):
    return f"np.ascontiguousarray(np.transpose({a[0]}, {tuple(op.attrs['perm'])!r}))"


def exact(opdef) -> bool:
    """Whether numba computes `opdef` bit for bit as numpy does: not a math function declared
    not exact (LLVM's math library, not numpy's: a few ulp) and not matmul (numba's BLAS).
    Float sums and means are not exact either (FLOAT_SUMS)."""
    return opdef is not math_ops.MATMUL and (opdef.elementwise is None or opdef.elementwise.exact)


def lowers_exactly(graph) -> bool:
    """Whether numba computes every op of `graph` bit for bit as the default executor does
    (each op `exact`, no float sum, and a NUMBA rule for each op)."""
    return all(op.opdef in (PLACEHOLDER, CONST, IF, WHILE) or (
        op.opdef.rule(NUMBA) is not None and exact(op.opdef) and not (
            op.opdef in FLOAT_SUMS and op.inputs[0].dtype.is_floating))
        for op in graph.walk())


# Sums and means of floats: numba adds in another order than numpy's pairwise sums.
FLOAT_SUMS = frozenset({reduction_ops.SUM, reduction_ops.MEAN})
derive_rules(NUMBA, _ufunc)  # the rule of every op declared as a ufunc, unless written here
register_rules(NUMBA, {
    # Python operators (as the default executor writes them); on scalars numba computes them
    # as Python does (a division by zero raises ZeroDivisionError)
    math_ops.ADD: _operator("({} + {})"),
    math_ops.SUB: _operator("({} - {})"),
    math_ops.MUL: _real_operator("({} * {})"),
    math_ops.DIV: _real_operator("({} / {})"),
    math_ops.FLOORDIV: _operator("({} // {})"),
    math_ops.MOD: _operator("({} % {})"),
    math_ops.EQUAL: _operator("({} == {})"),
    math_ops.NOT_EQUAL: _operator("({} != {})"),
    math_ops.LESS: _operator("({} < {})"),
    math_ops.LESS_EQUAL: _operator("({} <= {})"),
    math_ops.GREATER: _operator("({} > {})"),
    math_ops.GREATER_EQUAL: _operator("({} >= {})"),
    math_ops.NEG: _operator("(-{})"),
    math_ops.SQUARE: _operator("({0} * {0})"),
    math_ops.FMOD: _fmod,  # a ufunc that numba computes otherwise than numpy for integers
    math_ops.POW: _power,
    # not ufuncs
    math_ops.SIGMOID: _sigmoid,
    math_ops.RELU: _relu,
    math_ops.ROUND: _function("np.round"),  # halves to even, as numpy's
    math_ops.CLIP: lambda op, a, typed: _as_dtype(
        op, f"np.minimum(np.maximum({a[0]}, {a[1]}), {a[2]})"),  # as its kernel
    math_ops.WHERE: _select,
    math_ops.CAST: _cast,
    array_ops.IDENTITY: lambda op, a, typed: a[0],
    array_ops.STOP_GRADIENT: lambda op, a, typed: a[0],
    reduction_ops.SUM: _float_whole_reduction("np.sum"),
    reduction_ops.MEAN: _float_whole_reduction("np.mean"),
    math_ops.MATMUL: _matmul,
    array_ops.SPLIT: _split,
    array_ops.CONCAT: _concat,
    array_ops.STACK: _pack,
    array_ops.GETITEM: _getitem,
    array_ops.RESHAPE: _reshape,
    array_ops.TRANSPOSE: _transpose,
    creation_ops.ZEROS_LIKE: _zeros_like,
    reduction_ops.MAX: _whole_reduction("np.max", exact_for_floats=True),
    reduction_ops.MIN: _whole_reduction("np.min", exact_for_floats=True),
    reduction_ops.ANY: _whole_reduction("np.any", exact_for_floats=True),
    reduction_ops.ALL: _whole_reduction("np.all", exact_for_floats=True),
})
# The ops numba does not compile: a graph holding one is a located NoLoweringError (and
# jit_compile="auto" keeps it on the default executor).
lacks(NUMBA, "the emitter writes it: an argument, a constant, an `if`, a `while`",
      PLACEHOLDER, CONST, IF, WHILE)
lacks(NUMBA, "numba's shifts are undefined for counts past the width, numpy's give 0 or -1",
      math_ops.LEFT_SHIFT, math_ops.RIGHT_SHIFT)
lacks(NUMBA, "strings are numpy object arrays, which numba does not compile",
      math_ops.STRING_EQUAL, math_ops.STRING_NOT_EQUAL, string_ops.STRING_JOIN,
      string_ops.STRING_FORMAT)
lacks(NUMBA, "staged lists are not lowered (the emitter writes no Python lists)",
      list_ops.LIST_FROM_ITEMS, list_ops.LIST_PUSH_BACK, list_ops.LIST_POP_BACK,
      list_ops.LIST_LENGTH, list_ops.LIST_GET_ITEM, list_ops.LIST_SET_ITEM,
      list_ops.LIST_CONCAT_LISTS, list_ops.LIST_STACK, list_ops.LIST_CONCAT,
      list_ops.LIST_ZEROS_LIKE, list_ops.LIST_ADD, list_ops.LIST_UNSTACK, list_ops.LIST_SPLIT_AT,
      list_ops.LIST_SPLIT_LIKE)
lacks(NUMBA, "random numbers come from numpy's generator; numba's has a state of its own and "
      "would give other numbers", random_ops.UNIFORM, random_ops.NORMAL,
      random_ops.DYNAMIC_UNIFORM, random_ops.DYNAMIC_NORMAL)
lacks(NUMBA, "variables are Python objects, which numba cannot read or write", variables.READ,
      variables.ASSIGN, variables.ASSIGN_ADD, variables.ASSIGN_SUB)
lacks(NUMBA, "made by the fusion pass, which does not run for numba (jit_compile='auto' keeps a "
      "fused graph on the default executor)", FUSED_ELEMENTWISE)
lacks(NUMBA, "numba does not implement np.heaviside", math_ops.HEAVISIDE)
lacks(NUMBA, "not lowered to numba yet", math_ops.WHERE_INDICES, math_ops.SOFTMAX)
lacks(NUMBA, "not lowered to numba yet", array_ops.DYNAMIC_RESHAPE, array_ops.EXPAND_DIMS,
      array_ops.SQUEEZE, array_ops.UNSTACK, array_ops.TILE,
      array_ops.DYNAMIC_TILE, array_ops.BROADCAST_TO, array_ops.DYNAMIC_BROADCAST_TO,
      array_ops.SHAPE, array_ops.SIZE, array_ops.RANK, array_ops.GATHER,
      array_ops.SLICE_GRADIENT, array_ops.GATHER_GRADIENT)
lacks(NUMBA, "not lowered to numba yet", reduction_ops.PROD, reduction_ops.ARGMAX,
      reduction_ops.ARGMIN, reduction_ops.SUM_TO_SHAPE)
lacks(NUMBA, "not lowered to numba yet", creation_ops.FILL, creation_ops.ONES_LIKE,
      creation_ops.RANGE, creation_ops.LINSPACE)
lacks(NUMBA, "not lowered to numba yet (printing, checks that raise)", io_ops.PRINT,
      io_ops.ASSERT)
lacks(NUMBA, "not lowered to numba yet (numba takes one 1-D boolean index only)",
      array_ops.BOOLEAN_MASK, array_ops.BOOLEAN_MASK_GRADIENT)
