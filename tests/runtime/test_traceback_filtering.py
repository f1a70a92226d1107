"""Errors leaving an rt.function call, tape.gradient or rt.grad show the user's frames, not the
library's (issue 30); the type, message, notes and chained causes stay; the switch shows all."""

import os
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import runtime as rt

LIBRARY = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), package, "") for package in ("runtime", "autograph"))


def _library_frames(error) -> list:
    return [frame for frame in traceback.extract_tb(error.__traceback__)
            if frame.filename.startswith(LIBRARY)]


def helper(y):
    return rt.reshape(y, [7])


@rt.function
def reshapes_wrongly(x):
    y = x * 2
    return helper(y)


class Custom(Exception):
    pass


@rt.function
def raises_custom(x):
    try:
        {}["missing"]
    except KeyError as e:
        raise Custom("from the user's code") from e
    return x


def test_an_error_shows_one_library_frame_and_names_the_users_lines():
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        reshapes_wrongly(rt.constant(np.arange(6.0)))
    library = _library_frames(info.value)
    # the frame that re-raises it: the fast path's at a first call (the entry's later)
    assert [frame.name for frame in library] == ["_call_fast"]
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "return rt.reshape(y, [7])" in text and "return helper(y)" in text


def test_type_and_chained_cause_are_kept():
    with pytest.raises(Custom) as info:
        raises_custom(rt.constant(1.0))
    assert isinstance(info.value.__cause__, KeyError)
    assert len(_library_frames(info.value)) == 1


def test_the_switch_shows_every_frame():
    rt.config.set_traceback_filtering(False)
    try:
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            reshapes_wrongly(rt.constant(np.arange(6.0)))
    finally:
        rt.config.set_traceback_filtering(True)
    assert len(_library_frames(info.value)) > 5


def test_tape_gradient_and_grad_filter_too():
    x = rt.constant(np.array([1.0, 2.0]))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(x * x)
    with pytest.raises(TypeError) as info:
        tape.gradient(y.numpy(), x)
    assert len(_library_frames(info.value)) <= 1
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        rt.grad(lambda v: rt.reduce_sum(rt.reshape(v, [3])))(x)
    assert len(_library_frames(info.value)) <= 2  # rt.grad's wrapper and tape's re-raise


def test_the_environment_variable_turns_it_off(tmp_path):
    script = tmp_path / "unfiltered.py"
    script.write_text(textwrap.dedent("""
        import runtime as rt
        f = rt.function(lambda x: rt.reshape(x, [7]), autograph=False)
        f(rt.constant([1.0, 2.0]))
    """))
    env = {**os.environ, "TRACEGRAPH_TRACEBACK_FILTERING": "0"}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert "runtime/tracing/trace.py" in result.stderr.replace(os.sep, "/")
    env["TRACEGRAPH_TRACEBACK_FILTERING"] = "1"
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert "runtime/tracing/trace.py" not in result.stderr.replace(os.sep, "/")
    assert "InvalidArgumentError" in result.stderr
