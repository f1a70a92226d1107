"""The options an `rt.function` is made with (see `rt.function` for what each does), checked
once, when it is made."""

from __future__ import annotations

from typing import NamedTuple

from runtime.executor.registry import EXECUTORS

RETRACE_WARNING_THRESHOLD = 5
JIT_COMPILERS = tuple(EXECUTORS)  # the executors a Function can compile with


class FunctionOptions(NamedTuple):
    """In the order `Function(fn, *options)` takes them (a Function bound to an object, or
    unpickled, is made again from them)."""

    input_signature: tuple | None = None
    autograph: bool = True
    reduce_retracing: bool | None = None
    optimize: bool = True
    max_traces: int = RETRACE_WARNING_THRESHOLD
    on_retrace: str = "warn"
    capture_guards: bool | str = True
    check: bool = False
    jit_compile: str | None = None
    numpy_results: bool = False


def checked_options(fn, input_signature, autograph, reduce_retracing, optimize, max_traces,
                    on_retrace, capture_guards, check, jit_compile,
                    numpy_results=False) -> FunctionOptions:
    """The options of an rt.function of `fn`; a bad option (or `fn` not callable) raises."""
    if jit_compile not in JIT_COMPILERS:
        raise ValueError(f"jit_compile must be one of {JIT_COMPILERS}, not {jit_compile!r}.")
    if capture_guards not in (True, False, "warn"):
        raise ValueError(f'capture_guards must be True, False or "warn", not '
                         f"{capture_guards!r}.")
    if on_retrace not in ("warn", "error"):
        raise ValueError(f'on_retrace must be "warn" or "error", not {on_retrace!r}.')
    if numpy_results not in (True, False):
        raise ValueError(f"numpy_results must be True or False, not {numpy_results!r}.")
    if not callable(fn):
        raise TypeError(f"rt.function takes a Python function (or another callable), not "
                        f"{type(fn).__name__} {fn!r}.")
    return FunctionOptions(None if input_signature is None else tuple(input_signature),
                           autograph, reduce_retracing, optimize, max_traces, on_retrace,
                           capture_guards, check, jit_compile, bool(numpy_results))
