"""Every call of an `rt.function` in the test session that traced a new graph also runs that
function saved and loaded again (`rt.saved.save` / `rt.saved.load`) with the same arguments,
and must give the same result, or raise when the original raised. Installed for the whole
session by conftest.py (SAVED_ROUND_TRIP=0 turns it off). Calls made while another function is
traced (inlined) or under a gradient tape (recorded) are left to the caller's check.

Graphs with stateful ops (variables, printing, random numbers) are left out: calling them twice
is not the same as calling them once (assertions are kept: they fail the same way every time).
So are functions whose Python arguments or results are not plain data (saving refuses them, by
design), and functions
compiled natively by numba or XLA (a loaded function runs on the default executor, whose exp,
sin... may differ from theirs in the last bits: tests/runtime/test_numba_backend.py and
test_jax_backend.py compare them).
"""

from __future__ import annotations

import math
import tempfile

import numpy as np

import runtime as rt
from runtime import nest
from runtime.core import context
from runtime.tracing import call_paths
from runtime.tracing.function import Function
from runtime.tracing.function_tracing import FunctionTracer


class RoundTripMismatch(AssertionError):
    pass


# How many calls were checked (by what their originals did), and how many were left out.
counts = {"returned": 0, "raised": 0, "stateful": 0, "not plain data": 0, "native": 0}


def install(monkeypatch) -> None:
    original_trace, original_call = FunctionTracer.trace, Function._call_general
    traced: list = []

    def trace(self, function, arguments, key, **options):
        concrete = original_trace(self, function, arguments, key, **options)
        traced.append(concrete)
        return concrete

    def call(self, args, kwargs, fast=None, guard_values=None):
        start = len(traced)
        if context.current_graph() is not None or context.recording_tapes():
            try:  # inlined into a caller's graph, or recorded by a tape: no second call
                return original_call(self, args, kwargs, fast, guard_values)
            finally:
                del traced[start:]
        try:
            result = original_call(self, args, kwargs, fast, guard_values)
        except Exception as error:  # noqa: BLE001 - the loaded copy must raise as well
            result = error
        new = traced[start:]
        del traced[start:]
        ran = not isinstance(result, _NOT_RUN) or isinstance(result, rt.errors.InvalidArgumentError)
        if new and ran:
            if self.options.jit_compile is not None:
                counts["native"] += 1
            elif all(_pure(c.graph) for c in new):
                _check(self, args, kwargs, result)
            else:
                counts["stateful"] += 1
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr(FunctionTracer, "trace", trace)
    monkeypatch.setattr(Function, "_call_general", call)


# Errors raised before the graph ran (tracing, conversion, binding): nothing to compare. A graph
# that failed while running raises InvalidArgumentError (a ValueError), which is compared.
_NOT_RUN = (TypeError, ValueError, NotImplementedError, RecursionError, AttributeError,
            KeyError, IndexError, NameError, AssertionError)


def _pure(graph) -> bool:
    for op in graph.operations:
        if op.type != "Assert" and (op.opdef.stateful or op.type in (
                "Print", "ReadVariable", "AssignVariable")):
            return False
        for value in op.attrs.values():
            if isinstance(value, rt.Graph) and not _pure(value):
                return False
    return True


def _check(function, args, kwargs, expected) -> None:
    with tempfile.TemporaryDirectory() as directory:
        try:
            rt.saved.save(function, directory)
        except rt.saved.SaveError as error:
            if "is not plain data" in str(error):
                counts["not plain data"] += 1  # a Python value a file cannot hold: by design
                return
            raise
        loaded = rt.saved.load(directory)
    counts["raised" if isinstance(expected, Exception) else "returned"] += 1
    try:
        actual = loaded(*args, **kwargs)
    except Exception as error:  # noqa: BLE001
        if isinstance(expected, Exception):
            return
        raise RoundTripMismatch(
            f"{function.__name__}: the loaded copy raised {error!r}, the function returned "
            f"{expected!r}") from error
    if isinstance(expected, Exception):
        raise RoundTripMismatch(
            f"{function.__name__}: the function raised {expected!r}, the loaded copy returned "
            f"{actual!r}")
    if function._options.numpy_results and not any(
            isinstance(v, rt.Tensor) for v in nest.flatten((args, kwargs))):
        # a loaded function returns tensors (no options): its results as numpy_results gives
        # them (to a call without tensors), from the loaded graph's outputs
        actual = call_paths._numpy_results(loaded.get_concrete_function(*args, **kwargs), actual)
    if not _same(actual, expected):
        raise RoundTripMismatch(
            f"{function.__name__}: the loaded copy returned {actual!r}, the function returned "
            f"{expected!r}")


def _same(a, b) -> bool:
    if isinstance(b, (list, tuple, dict)) or nest.is_nested(b):
        flat_a, flat_b = nest.flatten(a), nest.flatten(b)
        return len(flat_a) == len(flat_b) and all(map(_same, flat_a, flat_b))
    if isinstance(b, rt.Tensor):
        if not isinstance(a, rt.Tensor) or a.dtype is not b.dtype:
            return False
        x, y = np.asarray(a.numpy()), np.asarray(b.numpy())
        return x.shape == y.shape and (np.array_equal(x, y) or (
            x.dtype.kind in "fc" and np.array_equal(x, y, equal_nan=True)))
    if isinstance(b, (np.ndarray, np.generic)):  # a numpy value the function returned as is
        return (type(a) is type(b) and a.dtype == b.dtype and np.shape(a) == np.shape(b)
                and np.array_equal(a, b, equal_nan=b.dtype.kind in "fc"))
    if isinstance(b, float) and math.isnan(b):
        return isinstance(a, float) and math.isnan(a)
    return type(a) is type(b) and a == b
