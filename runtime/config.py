"""Process-wide switches (TensorFlow's `tf.config` names)."""

from __future__ import annotations

_run_functions_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, `rt.function`-decorated functions run their Python body on every call
    instead of a traced graph (for debugging). Set it back to False afterwards."""
    global _run_functions_eagerly
    _run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_functions_eagerly
