"""The public API: golden `to_code`, conversion caching, errors that point at user lines."""

import linecache
import warnings

import golden_functions
import pytest
from golden_code import GOLDEN

import autograph


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_to_code_golden(name):
    code = autograph.to_code(getattr(golden_functions, name))
    assert code == GOLDEN[name]
    compile(code, name, "exec")


def test_simple_relu_is_short():
    code = autograph.to_code(golden_functions.simple_relu)
    assert len([line for line in code.splitlines() if line.strip()]) <= 15


def test_conversion_is_cached_per_code_object():
    first = autograph.to_graph(golden_functions.collatz).__ag_converted__
    second = autograph.to_graph(golden_functions.collatz).__ag_converted__
    assert first is second


def test_generated_module_is_in_linecache():
    converted = autograph.to_graph(golden_functions.collatz).__ag_converted__
    lines = linecache.getlines(converted.__code__.co_filename)
    assert any("ag__.while_stmt(loop_test, loop_body" in line for line in lines)


def test_converted_function_equals_original_on_python_values():
    for n in (1, 6, 27):
        assert autograph.to_graph(golden_functions.collatz)(n) == golden_functions.collatz(n)


def raises_name_error(x):
    if x > 0:
        y = undefined_name + 1  # noqa: F821
    else:
        y = 0
    return y


def test_exception_in_converted_code_shows_user_line():
    with pytest.raises(NameError) as info:
        autograph.to_graph(raises_name_error)(1)
    note = "\n".join(getattr(info.value, "__notes__", []))
    line = raises_name_error.__code__.co_firstlineno + 2
    assert f'File "{__file__}", line {line}' in note
    assert "y = undefined_name + 1" in note
    files = [tb.tb_frame.f_code.co_filename for tb in _frames(info.value.__traceback__)]
    assert not any(autograph.is_generated_file(f) for f in files)


def _frames(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


def generator(x):
    yield x


def test_unsupported_syntax_names_the_line():
    with pytest.raises(autograph.ConversionError, match="`yield` is not supported") as info:
        autograph.to_graph(generator)
    assert f"line {generator.__code__.co_firstlineno + 1}" in str(info.value)


def test_to_graph_rejects_non_functions():
    with pytest.raises(TypeError, match="to_graph expects a Python function"):
        autograph.to_graph(42)


def test_to_code_says_what_it_takes():
    class Doubler:
        def __call__(self, x):
            return x * 2

    with pytest.raises(TypeError, match="got a builtin"):
        autograph.to_code(len)
    with pytest.raises(TypeError, match=r"callable Doubler object \(for its __call__"):
        autograph.to_code(Doubler())
    assert "def __call__" in autograph.to_code(Doubler.__call__)


def test_command_line_prints_converted_code(tmp_path):
    import subprocess
    import sys

    (tmp_path / "mod.py").write_text(
        "def f(x):\n    if x > 0:\n        x = x - 1\n    return x\n")
    run = subprocess.run([sys.executable, "-m", "autograph", "code", f"{tmp_path}/mod.py:f"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "ag__.if_stmt" in run.stdout and run.stdout.startswith("def f(x):")
    missing = subprocess.run([sys.executable, "-m", "autograph", "code", f"{tmp_path}/mod.py:g"],
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "has no 'g'" in missing.stderr
    version = subprocess.run([sys.executable, "-m", "autograph", "--version"],
                             capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == f"autograph {autograph.__version__}"


def test_library_functions_and_builtins_are_returned_as_they_are():
    import math

    import runtime as rt

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "could not convert sqrt (its source ...)" warning
        assert autograph.to_graph(rt.sqrt) is rt.sqrt
        assert autograph.to_graph(math.sqrt) is math.sqrt
        assert rt.function(rt.sqrt)(rt.constant(4.0)).numpy() == 2.0


@autograph.do_not_convert
def _unconverted_abs(x):
    if x > 0:
        return x
    return -x


def test_a_tensor_if_in_a_do_not_convert_helper_names_the_decorator():
    import runtime as rt

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match="_unconverted_abs is marked @autograph.do_not_convert.*Remove the "
                       "decorator"):
        rt.function(lambda x: _unconverted_abs(x) + 1)(rt.constant(1.0))
