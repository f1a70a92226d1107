"""The library logs under one namespace, `runtime` (README, "Logging")."""

import ast
import pathlib

import numpy as np

import runtime as rt

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_logger_is_under_the_runtime_namespace():
    names = []
    paths = [*ROOT.joinpath("runtime").rglob("*.py"), *ROOT.joinpath("autograph").rglob("*.py")]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "getLogger":
                names.append(ast.literal_eval(node.args[0]))
    assert names and all(name == "runtime" or name.startswith("runtime.") for name in names)


def test_a_retrace_is_logged_at_info_under_runtime(caplog):
    f = rt.function(lambda x: x + 1, autograph=False)
    with caplog.at_level("INFO", logger="runtime"):
        f(rt.constant(np.float32(1.0)))
        f(rt.constant(np.int32(1)))
    assert any(record.name == "runtime.function" and "traces graph 2" in record.getMessage()
               for record in caplog.records)
