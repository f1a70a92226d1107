"""The first code a call of an `rt.function` runs: a generated function that tests the call's
arguments against one signature, the last the fast path learned, and runs its concrete
function's caller in its own body (an inline cache, as a JIT keeps at a call site).

A call that passes the test (the same number of positional arguments; each of the same type
as then, arrays of the same dtype and shape, Python ints, bools and strings equal to the
values then; no switch, trace or tape busy; while the function has no capture guards: an
entry is made only then, and guards taken from a callee later reset it) costs one Python
frame before the graph's own code; every other call goes on to the fast path
(runtime/tracing/call_paths.py), which knows every signature. On a call of a few scalars that
is about half of the fast path's cost, which is what a small function's call is made of.

When a concrete function's caller is replaced (tiering moved its graph to numba), its
`on_new_call` makes the entry again, around the new caller.
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
_ABSENT = object()  # (an argument the call did not pass)


def install_entry(function, concrete, args, numpy_scalars, numpy_results: bool) -> None:
    """Makes the entry of `function` (its `__call__`) the one for calls like `args` (the
    positional arguments of a call the fast path just learned, whose concrete function is
    `concrete`), unless one of them is not a kind it tests, or the call's numpy results are of
    a structure the fast path converts. `function._call_fast` is where every other call goes;
    `numpy_scalars`: the numpy scalar types the fast path passes as they are; `numpy_results`:
    the function's option."""
    tested = _argument_tests(args, numpy_scalars)
    if tested is None:
        return
    numpy = numpy_results and tested[2] == len(tested[1])  # (as the fast path decides)
    if numpy and concrete.numpy_call() is None:
        return
    entry = None

    def follow(concrete):  # the concrete function's caller was replaced (by another thread)
        nonlocal entry
        if entry is not None and function._entry() is entry:  # (no later signature's entry)
            entry = _entry(function, concrete, tested, numpy)
            function._set_entry(entry)

    concrete.on_new_call = follow  # (first: a caller replaced from now on is followed)
    caller = concrete.call
    entry = _entry(function, concrete, tested, numpy)
    function._set_entry(entry)
    if concrete.call is not caller:  # replaced while the entry was made: make it again
        follow(concrete)
    if function._guards.found:  # guards added while it was made (their keys: the fast path's)
        function._set_entry(function._call_fast)


def _argument_tests(args, numpy_scalars):
    """(the test of each argument, the value passed for each tensor argument, how many of
    those are numpy values, the test's globals), or None."""
    tests, passed, from_numpy, scope = [], [], 0, {}
    for i, a in enumerate(args):
        kind = type(a)
        if kind is EagerTensor:
            value = a._value
            if type(value) is np.ndarray:
                scope[f"entry_dtype{i}"], scope[f"entry_shape{i}"] = value.dtype, value.shape
                tests.append(f"type(arg{i}) is EagerTensor and type(val{i} := arg{i}._value) is "
                             f"entry_ndarray and val{i}.dtype is entry_dtype{i} and "
                             f"val{i}.shape == entry_shape{i}")
            else:
                scope[f"entry_type{i}"] = type(value)
                tests.append(f"type(arg{i}) is EagerTensor and "
                             f"type(val{i} := arg{i}._value) is entry_type{i}")
            passed.append(f"val{i}")
        elif kind is np.ndarray:
            scope[f"entry_dtype{i}"], scope[f"entry_shape{i}"] = a.dtype, a.shape
            tests.append(f"type(arg{i}) is entry_ndarray and arg{i}.dtype is entry_dtype{i} and "
                         f"arg{i}.shape == entry_shape{i}")
            passed.append(f"arg{i}")
            from_numpy += 1
        elif kind in numpy_scalars:
            scope[f"entry_type{i}"] = kind
            tests.append(f"type(arg{i}) is entry_type{i}")
            passed.append(f"arg{i}")
            from_numpy += 1
        elif kind in _VALUE_TYPES:
            scope[f"entry_type{i}"], scope[f"entry_value{i}"] = kind, a
            tests.append(f"type(arg{i}) is entry_type{i} and arg{i} == entry_value{i}")
        else:
            return None
    return tests, passed, from_numpy, scope


def _entry(function, concrete, tested, numpy: bool):
    """The generated entry: `tested` from _argument_tests; `numpy` when the call's results are
    numpy's."""
    tests, passed, _, test_scope = tested
    caller = concrete.numpy_call() if numpy else concrete.call
    scope = {"EagerTensor": EagerTensor, "entry_ndarray": np.ndarray, "entry_absent": _ABSENT,
             "entry_config": config, "entry_context": context,
             "entry_fast_path": function._call_fast,
             "entry_filtered": traceback_filtering.filtered, **test_scope, **caller.body.scope}
    # the caller's statements, after its parameters are bound
    params = caller.body.params
    bind = (f"values = ({''.join(p + ', ' for p in passed)})" if params == "*values"
            else f"{params} = {', '.join(passed)}" if passed else "")
    body = [*([bind] if bind else []), *caller.body.lines]
    # The parameters: one for each argument of the signature, positional-only (a keyword goes
    # to `kwargs`), absent by default; then whatever else the call passed (a Python function
    # binds parameters at two thirds of the cost of `*args, **kwargs`).
    n = len(tests)
    named = [f"arg{i}" for i in range(n)]
    params = "".join(f"{name}=entry_absent, " for name in named) + ("/, " if n else "")
    test = " and ".join(["not more", "not kwargs", *tests,  # (absent: fails its type test)
                         "not entry_config._any_call_switch", "not entry_context.busy"])
    lines = [f"def __call__({params}*more, **kwargs):",
             f"    if {test}:",
             "        try:",
             *(f"            {line}" for line in body),
             "        except Exception as e:  # (shown from the user's frames, as the fast"
             " path does)",
             "            raise entry_filtered(e)",
             *([f"    more = (*(a for a in ({', '.join(named)},) if a is not entry_absent),"
                " *more)"] if n else []),
             "    try:",
             "        return entry_fast_path(*more, **kwargs)",
             "    except Exception as e:  # (one library frame shown: this one)",
             "        raise entry_filtered(e)"]
    return compile_function("\n".join(lines) + "\n", f"<rt-entry {next(_entry_ids)}>", scope,
                            "__call__")
