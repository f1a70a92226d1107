"""Process-wide switches (TensorFlow's `tf.config` names)."""

from __future__ import annotations

import os

_run_functions_eagerly = False
_optimize_graphs = True
_check_functions = False
_any_call_switch = False  # either switch above that changes how calls run: one test per call


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, `rt.function`-decorated functions run their Python body on every call
    instead of a traced graph (for debugging). Set it back to False afterwards."""
    global _run_functions_eagerly, _any_call_switch
    _run_functions_eagerly = bool(run_eagerly)
    _any_call_switch = _run_functions_eagerly or _check_functions


def functions_run_eagerly() -> bool:
    """Whether `rt.function`s run their Python code eagerly (`run_functions_eagerly`)."""
    return _run_functions_eagerly


def optimize_graphs(enabled: bool) -> None:
    """Turns the optimizing graph passes on (the default) or off for functions traced from now
    on (already traced graphs are kept). Like `rt.function(..., optimize=False)`, for all."""
    global _optimize_graphs
    _optimize_graphs = bool(enabled)


def graphs_optimized() -> bool:
    """Whether traced graphs go through the optimizing passes (`optimize_graphs`)."""
    return _optimize_graphs


def check_functions(enabled: bool) -> None:
    """When True, every `rt.function` call checks its graph against plain Python, as
    `rt.function(..., check=True)` does (for debugging: slow, and effects run twice)."""
    global _check_functions, _any_call_switch
    _check_functions = bool(enabled)
    _any_call_switch = _run_functions_eagerly or _check_functions


def checking_functions() -> bool:
    """Whether every `rt.function` is checked as with `check=True` (`check_functions`)."""
    return _check_functions


_traceback_filtering = os.environ.get("TRACEGRAPH_TRACEBACK_FILTERING", "1") != "0"


def set_traceback_filtering(enabled: bool) -> None:
    """When True (the default; TRACEGRAPH_TRACEBACK_FILTERING=0 in the environment makes it
    False), an error raised through an rt.function call, tape.gradient or rt.grad shows only
    the user's frames in its traceback (runtime/traceback_filtering.py); False shows every
    frame of the library too."""
    global _traceback_filtering
    _traceback_filtering = bool(enabled)


def traceback_filtering() -> bool:
    """Whether errors leaving the library show only the user's frames."""
    return _traceback_filtering


_dtype_promotion = "strict"


def set_dtype_promotion(rule: str) -> None:
    """How operands of two dtypes combine, in functions traced from now on (and eagerly):
    "strict" (the default, TensorFlow's rule: an error that says to cast; a Python float next
    to an integer tensor gives float32) or "numpy" (numpy's promotion: int32 with float32 gives
    float64, a Python float next to an integer tensor float64). `runtime.numpy`'s functions
    follow numpy's rule whatever this says."""
    global _dtype_promotion
    if rule not in ("strict", "numpy"):
        raise ValueError(f"set_dtype_promotion: rule must be 'strict' or 'numpy', not {rule!r}.")
    _dtype_promotion = rule


def dtype_promotion() -> str:
    """The rule `set_dtype_promotion` chose: "strict" or "numpy"."""
    return _dtype_promotion


_cache_dir: str | None = None  # None: not chosen yet (the environment decides on first use)
_cache_dir_chosen = False


def set_cache_dir(path) -> None:
    """Where compiled native code is kept between processes (numba's, for
    `jit_compile="numba"` and `"auto"`); None keeps nothing on disk. The default is
    $TRACEGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/tracegraph, else ~/.cache/tracegraph
    (TRACEGRAPH_CACHE_DIR="" keeps nothing)."""
    global _cache_dir, _cache_dir_chosen
    _cache_dir, _cache_dir_chosen = (None if path is None else str(path)), True


def cache_dir() -> str | None:
    """The directory `set_cache_dir` chose (or the environment's default); None for none."""
    if _cache_dir_chosen:
        return _cache_dir
    chosen = os.environ.get("TRACEGRAPH_CACHE_DIR")
    if chosen is not None:
        return chosen or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tracegraph")
