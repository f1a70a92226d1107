"""The first code a call of an `rt.function` runs: a generated function that tests the call's
arguments against one signature, the last the fast path learned, and calls its concrete
function directly (an inline cache, as a JIT keeps at a call site).

A call that passes the test (the same number of positional arguments; each of the same type
as then, arrays of the same dtype and shape, Python ints, bools and strings equal to the
values then; no capture guards; no switch, trace or tape busy) runs the concrete function's
caller in one step; every other call goes on to the fast path (runtime/tracing/call_paths.py),
which knows every signature. The test is written out for the signature, so a call costs one
Python frame before the graph's own code: about half of the fast path's cost on a call of a few
scalars, which is what a small function's call is made of.

When a concrete function's caller is replaced (tiering moved its graph to numba), the entry
calls the new one: `ConcreteFunction.on_new_call`.
"""

from __future__ import annotations

import itertools

import numpy as np

from runtime import config, traceback_filtering
from runtime.core import context
from runtime.core.generated_code import compile_function
from runtime.core.tensor import EagerTensor

# Python argument types an entry tests by value (a float's key is its token: -0.0, nan).
_VALUE_TYPES = (int, bool, str)

_entry_ids = itertools.count()


def make_entry(fast_path, guards, concrete, args, numpy_scalars, numpy_results):
    """The entry for calls like `args` (the positional arguments of a call the fast path just
    learned, whose concrete function is `concrete`), or None when one of them is not a kind it
    tests. `fast_path`: where every other call goes; `guards`: the function's FunctionGuards
    (a call while it has any takes the fast path); `numpy_scalars`: the numpy scalar types the
    fast path passes as they are; `numpy_results`: what makes a call's results numpy's (None
    when the function's option is off)."""
    scope = {"config": config, "context": context, "guards": guards, "fast_path": fast_path,
             "filtered": traceback_filtering.filtered, "EagerTensor": EagerTensor,
             "ndarray": np.ndarray, "concrete": concrete, "call": concrete.call,
             "numpy_call": concrete.numpy_call() if numpy_results is not None else None,
             "numpy_results": numpy_results}
    tests, passed, from_numpy = [], [], 0  # (the fast path's `arrays`)
    for i, a in enumerate(args):
        kind = type(a)
        if kind is EagerTensor:
            value = a._value
            if type(value) is np.ndarray:
                scope[f"dtype{i}"], scope[f"shape{i}"] = value.dtype, value.shape
                tests.append(f"type(a{i}) is EagerTensor and type(v{i} := a{i}._value) is ndarray"
                             f" and v{i}.dtype is dtype{i} and v{i}.shape == shape{i}")
            else:
                scope[f"type{i}"] = type(value)
                tests.append(f"type(a{i}) is EagerTensor and type(v{i} := a{i}._value) is type{i}")
            passed.append(f"v{i}")
        elif kind is np.ndarray:
            scope[f"dtype{i}"], scope[f"shape{i}"] = a.dtype, a.shape
            tests.append(f"type(a{i}) is ndarray and a{i}.dtype is dtype{i}"
                         f" and a{i}.shape == shape{i}")
            passed.append(f"a{i}")
            from_numpy += 1
        elif kind in numpy_scalars:
            scope[f"type{i}"] = kind
            tests.append(f"type(a{i}) is type{i}")
            passed.append(f"a{i}")
            from_numpy += 1
        elif kind in _VALUE_TYPES:
            scope[f"type{i}"], scope[f"value{i}"] = kind, a
            tests.append(f"type(a{i}) is type{i} and a{i} == value{i}")
        else:
            return None
    run = f"call({', '.join(passed)})"
    if numpy_results is not None and from_numpy == len(passed):  # (as the fast path decides)
        run = f"numpy_results(concrete, {run})"
        if concrete.numpy_call() is not None:  # (one caller making the numpy results)
            run = f"numpy_call({', '.join(passed)})"
    n = len(args)
    unpack = "a0 = args[0]" if n == 1 else f"{', '.join(f'a{i}' for i in range(n))} = args"
    lines = ["def __call__(*args, **kwargs):",
             f"    if len(args) == {n} and not kwargs:",
             *([f"        {unpack}"] if n else []),
             f"        if ({' and '.join(['not guards.found', *tests])}"
             " and not config._any_call_switch and not context.busy):",
             "            try:",
             f"                return {run}",
             "            except Exception as e:  # (shown from the user's frames, as the fast"
             " path does)",
             "                raise filtered(e)",
             "    return fast_path(*args, **kwargs)"]
    entry = compile_function("\n".join(lines) + "\n", f"<rt-entry {next(_entry_ids)}>", scope,
                             "__call__")
    concrete.on_new_call = lambda concrete: scope.update(
        call=concrete.call, numpy_call=concrete.numpy_call() if "numpy_call(" in run else None)
    return entry
