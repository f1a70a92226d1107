"""The default executor's float64 scalar code on Python floats.

A numpy scalar's arithmetic costs three times a Python float's (35 ns against 11 for a
multiply), and a scalar loop (Newton's steps, a bisection) is all such arithmetic. A graph whose
every value is a scalar, whose float values are float64, and whose ops are arithmetic,
comparisons, logic, `if` and `while` runs its float64 values as Python floats: the same IEEE
operations, so the same bits, where Python and numpy agree. Where they do not, the numpy code
runs instead (the default executor's code, `codegen`), from the start (the ops are pure):
- Python raises where numpy warns and gives inf or nan (`x / 0.0`, `x % 0.0`, `0.0 ** -1`, a
  `**` that overflows or has no real result, the square root of a negative number): any
  exception.
- A float result that is inf or nan (numpy warned on the way there, or the input was one).
- numpy's errors would not only warn: its error handling is not its default (`np.errstate`,
  `np.seterr`), or a warning filter makes a RuntimeWarning an error (`-W error`).
Left out: an intermediate value that overflows or is nan while every result is finite (say
`1 / (x * x)` at `x = 1e200`) gives numpy's value without numpy's RuntimeWarning; and where the
numpy code runs after an integer op (numpy's, in both) warned, its warning comes twice.

Which ops: +, -, *, /, //, % (Python's float floor division and remainder are numpy's
algorithm: equal on 38,640 pairs of edge and random values), unary -, abs, ** (the C library's
pow, as numpy scalars' `**`), sign, sqrt (correctly rounded in both) and comparisons of float64
scalars; int-to-float casts; the
logical ops; and any elementwise op of integer scalars (which stay numpy's). Anything else
(arrays, float32, lists, calls, printing) keeps the whole graph on numpy values.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from runtime.core import dtypes
from runtime.executor import codegen
from runtime.ops import basic_ops, math_ops
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.registry import CONST, PLACEHOLDER

# float64 ops written as Python expressions over floats (their own expressions, but these).
_FLOAT_OPS = frozenset({
    math_ops.ADD, math_ops.SUB, math_ops.MUL, math_ops.DIV, math_ops.FLOORDIV, math_ops.MOD,
    math_ops.NEG, math_ops.ABS, math_ops.POW, math_ops.SIGN, math_ops.SQRT, math_ops.EQUAL,
    math_ops.NOT_EQUAL, math_ops.LESS, math_ops.LESS_EQUAL, math_ops.GREATER,
    math_ops.GREATER_EQUAL})
_LOGIC = frozenset({math_ops.LOGICAL_AND, math_ops.LOGICAL_OR, math_ops.LOGICAL_XOR,
                    math_ops.LOGICAL_NOT})
# Fewer float ops than this (and no loop) gain less than the conversions in and out cost.
MIN_FLOAT_OPS = 8

# numpy's error handling (np.errstate, np.seterr): numpy 2 keeps it in a context variable, one
# object while it is unchanged (numpy 1: a fresh reading each time, checked in full).
try:
    from numpy._core import _ufunc_config

    _error_state = _ufunc_config._extobj_contextvar.get  # type: ignore[attr-defined]
except (ImportError, AttributeError):
    _error_state = np.geterr
# numpy's default: warn of a division by zero, an overflow and an invalid value
_WARNS = {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}
# (numpy's error state, the warning filters' list, its length, its first filter) when last
# found to only warn
_found_usual: tuple = (None, None, -1, None)


def only_warns() -> bool:
    """Whether numpy's floating-point errors would only warn: its default error handling, and
    no warning filter that makes a RuntimeWarning an error (then a warning the Python-float
    code does not give changes nothing else). Checked in full when the error state or the
    filters changed since they last passed."""
    global _found_usual
    state, filters = _error_state(), warnings.filters
    seen = _found_usual
    if state is seen[0] and filters is seen[1] and len(filters) == seen[2] and (
            not filters or filters[0] is seen[3]):
        return True
    if np.geterr() != _WARNS or any(action == "error" and issubclass(RuntimeWarning, category)
                                    for action, _, category, _, _ in filters):
        return False
    _found_usual = (state, filters, len(filters), filters[0] if filters else None)
    return True


def applies(graph) -> bool:
    """Whether `graph` runs its float64 values as Python floats (see the module's note)."""
    float_ops, loops = 0, False
    for op in graph.walk():
        if any(len(t.shape) for t in (*op.inputs, *op.outputs)):
            return False
        opdef = op.opdef
        kinds = {t.dtype for t in op.inputs}
        if opdef in (PLACEHOLDER, CONST, IF, WHILE):
            loops = loops or opdef is WHILE
            if any(t.dtype not in _SCALARS for t in op.outputs):
                return False
        elif opdef in _FLOAT_OPS and kinds == {dtypes.float64}:
            float_ops += 1
        elif opdef is basic_ops.CAST and op.outputs[0].dtype is dtypes.float64 and all(
                k.is_integer or k.is_bool for k in kinds):
            float_ops += 1
        elif opdef in _LOGIC:
            continue
        elif not (opdef.elementwise is not None and opdef.kernel is not None and all(
                t.dtype.is_integer for t in op.inputs) and all(
                t.dtype.is_integer or t.dtype.is_bool for t in op.outputs)):
            return False
    return float_ops >= MIN_FLOAT_OPS or (loops and float_ops > 0)


_SCALARS = frozenset(d for d in dtypes.ALL if d is dtypes.float64 or d.is_integer or d.is_bool)


def compile_graph(graph):
    """(run, Generated) of the default executor for `graph`: its numpy code, which `run` is
    unless `graph` runs on Python floats (then `run` is that code, falling back to the numpy
    code; the Generated is the numpy code's, whose lines errors are located at)."""
    run, generated = codegen.compile_graph(graph)
    if not applies(graph):
        return run, generated
    floats = codegen.generate(graph, emitter_class=functools.partial(FloatEmitter, fallback=run))
    try:
        faster = codegen.load(floats)
    except (SyntaxError, RecursionError):  # no room for the `try` (in loops nested 20 deep,
        return run, generated  # or branches 99: Python's limits)
    generated.python_floats = floats.source
    return faster, generated


class FloatEmitter(codegen.Emitter):
    """The default executor's code with float64 values as Python floats: they are made from
    the arguments first and numpy scalars again at the end, and the numpy code (`fallback`)
    runs instead where the two may differ (see the module's note)."""

    def __init__(self, graph, fallback):
        super().__init__(graph)
        self._fallback = fallback
        self._params: dict[str, str] = {}  # the name of an argument made a float -> its own

    def _emit_const(self, op, indent: str) -> None:
        if op.outputs[0].dtype is dtypes.float64:
            self.globals[self._define(op.outputs[0])] = float(op.attrs["value"])
        else:
            super()._emit_const(op, indent)

    def _expression(self, op, args, attrs):
        opdef = op.opdef
        if opdef is basic_ops.CAST:  # (to float64: applies)
            return f"float({args[0]})"
        if op.inputs[0].dtype is not dtypes.float64:  # (integer ops: numpy's, as they are)
            return super()._expression(op, args, attrs)
        if opdef is math_ops.POW:
            exponent = op.inputs[1].op
            if exponent.opdef is CONST and float(exponent.attrs["value"]).is_integer():
                return f"({args[0]} ** {args[1]})"  # (an integer power of a float is real)
            return f"{self._global('pow_', math.pow)}({args[0]}, {args[1]})"
        if opdef is math_ops.SIGN:  # np.sign: +0.0 for either zero, nan for nan
            a = args[0]
            return f"(1.0 if {a} > 0.0 else -1.0 if {a} < 0.0 else {a} - {a})"
        if opdef is math_ops.SQRT:
            return f"{self._global('sqrt_', math.sqrt)}({args[0]})"
        expr = super()._expression(op, args, attrs)
        if expr is None:
            raise AssertionError(f"{op.type} has no expression over Python floats")
        return expr

    def prologue(self, params):
        self.emit("    ", f"if not {self._global('only_warns_', only_warns)}():")
        self.emit("        ", f"return {self._call_fallback(params)}")
        self.emit("    ", "try:")
        self._loops += 1  # (a `try` counts towards Python's limit on nested blocks)
        for placeholder, name in zip(self.graph.inputs, params):
            if placeholder.dtype is dtypes.float64:
                own = self._define(placeholder)
                self._params[own] = name
                self.emit("        ", f"{own} = float({name})")
        return "        "

    def returns(self, indent, params):
        outputs, finite = [], []
        for t in self.graph.outputs:
            name = self.name_of(t)
            if name in self._params:  # (an argument returned as it came)
                outputs.append(self._params[name])
            elif t.dtype is dtypes.float64:
                finite.append(f"{name} - {name} == 0.0")
                outputs.append(f"{self._global('float64_', np.float64)}({name})")
            elif t.dtype.is_bool:
                outputs.append(f"{self._global('bool_', np.bool_)}({name})")
            else:
                outputs.append(name)
        returned = codegen.return_statement(outputs)
        if finite:  # (inf - inf and nan - nan are nan)
            self.emit(indent, f"if {' and '.join(finite)}:")
            self.emit(indent + "    ", returned)
        else:
            self.emit(indent, returned)
        self.emit("    ", "except Exception:  # Python raised where numpy may warn")
        self.emit("        ", "pass")
        self.emit("    ", f"return {self._call_fallback(params)}  # (numpy's code, once)")

    def _call_fallback(self, params) -> str:
        return f"{self._global('numpy_run_', self._fallback)}({', '.join(params)})"
