"""The API reference: built from the docstrings by pdoc (docs/build_api.py) without a warning,
and complete: every public name of `runtime`, its public modules and `autograph` (and each
public method of their classes) has a docstring."""

import inspect
import pathlib
import runpy
import types

import pytest

import autograph
import runtime as rt

ROOT = pathlib.Path(__file__).resolve().parent.parent
OURS = ("runtime", "autograph")


def _public_namespaces():
    yield rt
    yield autograph
    for name in rt._PUBLIC_MODULES:
        yield getattr(rt, name)


def _public_names(module):
    return getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]


def _undocumented():
    missing = set()
    for module in _public_namespaces():
        for name in _public_names(module):
            value = getattr(module, name)
            if (isinstance(value, types.ModuleType) or not callable(value)
                    or not str(getattr(value, "__module__", "")).startswith(OURS)):
                continue
            if not (inspect.getdoc(value) or "").strip():
                missing.add(f"{module.__name__}.{name}")
            if inspect.isclass(value):
                missing |= _undocumented_members(value)
    return sorted(missing)


def _undocumented_members(cls):
    missing = set()
    for name in dir(cls):
        member = inspect.getattr_static(cls, name)
        if name.startswith("_") or not (callable(member) or isinstance(
                member, (property, staticmethod, classmethod))):
            continue
        owner = next(c for c in cls.__mro__ if name in vars(c))
        if owner.__module__.startswith(OURS) and not (inspect.getdoc(getattr(cls, name)) or ""):
            missing.add(f"{owner.__module__}.{owner.__qualname__}.{name}")
    return missing


def test_every_public_name_and_method_has_a_docstring():
    assert _undocumented() == []


def test_the_public_api_lists_public_modules_only():
    modules = {n for n in rt.__all__ if isinstance(getattr(rt, n), types.ModuleType)}
    assert modules == set(rt._PUBLIC_MODULES)
    assert {"function", "constant", "Variable", "GradientTape", "explain", "nn"} <= set(rt.__all__)
    assert "tensor" not in rt.__all__ and "autograph_backend" not in rt.__all__


def test_the_api_reference_builds_without_warnings(tmp_path):
    pytest.importorskip("pdoc")
    build = runpy.run_path(str(ROOT / "docs" / "build_api.py"))["build"]
    assert build(tmp_path) == []
    pages = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")}
    assert {"runtime.html", "autograph.html", "runtime/nn.html", "runtime/layers.html"} <= pages
    internal = ("runtime/core", "runtime/tracing", "runtime/tools", "runtime/ops",
                "runtime/executor")
    assert not [page for page in pages if page.startswith(internal)]  # the layers are not API
    assert 'id="function"' in (tmp_path / "runtime.html").read_text()
