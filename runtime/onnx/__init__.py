"""`rt.onnx`: export a traced graph as an ONNX model (needs the `onnx` extra).

    rt.onnx.export(f.get_concrete_function(x), "model.onnx")

`cond` becomes ONNX `If`, `while_loop` becomes `Loop`, and staged lists (rt.TensorList) become
ONNX sequences (a list of lists has no export); each op's export rule is one small function
in `runtime.onnx.rules`, registered as the op's ONNX rule. Variables are exported with their
current values (ONNX models have no mutable state), so assignments cannot be exported; neither
can prints, unless `drop_prints=True`, or assertions (ONNX has none), except the checks that
stand-ins of Python numbers compute what Python would (runtime/ops/python_arithmetic.py: a loop
counter past int64, a division by zero): those are left out, so the model computes as ONNX
defines (its ints wrap). Ops without a rule raise ExportError naming the op and the user's line.

Importing this module needs neither onnx nor onnxruntime; `export` imports onnx when called.
"""

from __future__ import annotations

from runtime.errors import ExportError  # noqa: F401 - rt.onnx.ExportError
from runtime.ops.registry import ONNX, REGISTRY

OPSET = 21  # StringConcat needs 20; onnxruntime >= 1.20 runs 21




def export(function, path=None, *, drop_prints: bool = False):
    """Writes `function` (a ConcreteFunction, or an rt.function traced exactly once) to `path`
    as an ONNX model and returns the `onnx.ModelProto`. With `path=None` nothing is written."""
    try:
        from runtime.onnx import exporter
    except ImportError as e:
        raise ImportError(
            f"rt.onnx.export needs the `onnx` package ({e}); install the onnx extra: "
            "pip install 'tracegraph[onnx]'."
        ) from None
    return exporter.export(function, path, drop_prints=drop_prints)


def supported_ops() -> list[str]:
    """The op types that have an ONNX export rule (needs onnx installed)."""
    from runtime.onnx import rules  # noqa: F401 - registers the rules

    return sorted(name for name, opdef in REGISTRY.items() if opdef.rule(ONNX) is not None)


__all__ = ["export", "ExportError", "supported_ops", "OPSET"]
