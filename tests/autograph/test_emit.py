"""Emitting: converted code is compiled from its AST, with the line numbers `ast.unparse`
would print; the source text is only printed when someone reads it."""

import ast
import contextlib
import functools
import inspect
import linecache

import golden_functions
import pytest
import table_functions

import autograph
from autograph import conversion


def _decorate(f):
    return f


def layout_cases(x, n):
    """A docstring

    on several lines.
    """
    @_decorate
    @functools.cache
    def helper(a, *args, k=1, **kw):
        '''Helper doc
        two'''
        return a + k

    class Local:
        """Class doc
        with lines"""

        def method(self):
            return 1

    try:
        y = helper(x)
    except (ValueError, TypeError) as e:
        y = str(e)
    else:
        y = y + 1
    finally:
        z = 1
    with contextlib.nullcontext() as c:
        y = y + (c or 0)
    if x > 0:
        y = 1
    elif x < -5:
        y = 2
    elif x < -3:
        y = 3
    else:
        if n:
            y = 4
        y = 5
    match n:
        case 1 | 2:
            y = 6
        case [a, *rest] if a and rest:
            y = 7
        case _:
            pass
    s = f"value\n{x!r:>10}" + """multi
line"""
    g = lambda q: q + 1  # noqa: E731
    ys = [v * 2 for v in range(3) if v]
    while n > 0:
        n -= 1
    else:
        y = 9
    for i in range(3):
        y += i
    return y, z, s, g, ys, Local


def _located(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.stmt, ast.expr, ast.arg))]


@pytest.mark.parametrize(
    "fn", [layout_cases, golden_functions.collatz] + [case[0] for case in table_functions.CASES],
    ids=lambda fn: fn.__name__)
def test_line_numbers_match_the_printed_source(fn):
    converted = conversion.convert_function(fn)
    printed = ast.parse(ast.unparse(converted.tree))
    compiled, reparsed = _located(converted.tree), _located(printed)
    assert [type(n) for n in compiled] == [type(n) for n in reparsed]
    assert [n.lineno for n in compiled] == [n.lineno for n in reparsed]


def test_origin_map_points_at_the_user_lines():
    converted = conversion.convert_function(layout_cases)
    lines = linecache.getlines(converted.filename)
    first = layout_cases.__code__.co_firstlineno
    for generated, origin in autograph.origins.REGISTRY._maps[converted.filename].lines.items():
        assert origin.filename == __file__
        assert first <= origin.lineno < first + 60
        assert lines[generated - 1].strip()  # never a blank line


def add_then_scale_unique_to_this_test(x, k=17):
    total = x + k
    if total > 3:
        total = total * 2
    return total


def test_conversion_prints_no_source_until_asked(monkeypatch):
    def fail(*_):
        raise AssertionError("ast.unparse called during conversion")

    fn = add_then_scale_unique_to_this_test
    with monkeypatch.context() as patch:
        patch.setattr(ast, "unparse", fail)
        converted = autograph.to_graph(fn)
        assert converted(1) == fn(1)
    code_text = autograph.to_code(fn)
    assert "ag__.if_stmt(" in code_text
    # The lazily registered lines serve tracebacks and inspect.
    inner = converted.__ag_converted__
    assert "def add_then_scale_unique_to_this_test" in inspect.getsource(inner)
    assert any("ag__.if_stmt(" in line for line in linecache.getlines(inner.__code__.co_filename))


def test_identical_functions_in_two_files_point_at_their_own_file(tmp_path):
    functions = []
    for name in ("first", "second"):
        path = tmp_path / f"{name}.py"
        path.write_text("def twin_unique_to_this_test(x):\n    y = x\n    return undefined_twin\n")
        namespace = {}
        exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102
        functions.append((namespace["twin_unique_to_this_test"], str(path)))
    for fn, path in functions:
        with pytest.raises(NameError) as info:
            autograph.to_graph(fn)(1)
        assert f'File "{path}", line 3' in "\n".join(info.value.__notes__)
