"""f-strings, `"...".format(...)` and `"..." % values` (converters/formatting.py,
operators/formatting.py): the text of a tensor is made from its value, when the graph runs.

Each function runs three ways (three_way.py): plain Python on numpy values, converted on eager
tensors, and as a graph; the returned text and everything printed must be the same (a graph's
string tensor is compared as decoded text)."""
# `%` and `.format` are what these tests convert, so they are written on purpose:
# ruff: noqa: UP031, UP032

import functools

import numpy as np
import pytest
from three_way import as_numpy_args, as_tensor_args

import autograph
import runtime as rt
from autograph.operators.formatting import format_string, percent_format


def as_text(value):
    if isinstance(value, tuple):
        return tuple(as_text(v) for v in value)
    if isinstance(value, rt.Tensor):
        value = value.numpy()
    return value.decode() if isinstance(value, bytes) else value


def runs(capsys, fn, *args):
    """[(result, printed)] of Python on numpy values, converted on eager tensors, and the graph
    (its first call, then its second: a graph prints on every call)."""
    graph = rt.function(fn)
    ways = [(fn, as_numpy_args(args)), (autograph.to_graph(fn), as_tensor_args(args)),
            (graph, as_tensor_args(args)), (graph, as_tensor_args(args))]
    results = []
    for run, call_args in ways:
        capsys.readouterr()
        try:
            result = as_text(run(*call_args))
        except Exception as e:  # noqa: BLE001 - an error is an outcome to compare
            result = e
        results.append((result, capsys.readouterr().out))
    return results


def assert_same_text(capsys, fn, *args):
    """The three ways return the same text and print the same lines (or all raise the same
    kind of error); returns Python's result."""
    (python, printed), *others = runs(capsys, fn, *args)
    for label, (result, out) in zip(("converted", "graph", "graph again"), others):
        if isinstance(python, Exception):
            assert isinstance(result, Exception), f"Python raised {python!r}, {label} {result!r}"
            continue
        if isinstance(result, Exception):
            raise AssertionError(f"Python gave {python!r}, {label} raised") from result
        assert result == python, f"{label} gave {result!r}, Python {python!r}"
        assert out == printed, f"{label} printed {out!r}, Python {printed!r}"
    return python


# ---- the operators on Python values are Python's formatting -----------------------------------

@pytest.mark.parametrize("template, args, kwargs", [
    ("x is {:.3f} ({!r}) {{lit}}", (1 / 3, "s"), {}),
    ("{0}{0!s}{k:>{w}}", (2,), {"k": 1.5, "w": 6}),
    ("{:{}.{}f}|{!a}", (3.14159, 9, 2, "é"), {}),
    ("{0[1]} {0.real}", ([1, 2],), {}),
    ("{} {}", (1,), {}),
    ("{0} {}", (1, 2), {}),
    ("{!x}", (1,), {}),
    ("{", (), {}),
])
def test_format_string_is_str_format(template, args, kwargs):
    try:
        expected = template.format(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            format_string(template, *args, **kwargs)
    else:
        assert format_string(template, *args, **kwargs) == expected


@pytest.mark.parametrize("template, values", [
    ("%d items, %s, %r, %5.2f%%", (3, "a", "b", 2.5)),
    ("%(a)s-%(b)x", {"a": 1, "b": 255}),
    ("%s", [1]), ("abc", []), ("%*d|%.*f", (4, 3, 2, 3.14159)),
    ("%s %s", 1), ("%s", (1, 2)), ("%y", 1), ("%", 1),
])
def test_percent_format_is_python_percent(template, values):
    try:
        expected = template % values
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            percent_format(template, values)
    else:
        assert percent_format(template, values) == expected


# ---- f-strings, % and .format three ways ------------------------------------------------------

def fstring_specs(x, n):
    return f"{x} {x!r} {x!s} {x:.3f} {x:>10} {x:e} {n:05d} {n:x} {n!r:>16} {x=}"


def fstring_arrays(v):
    return f"{v} {v!r} {v!s:>12}"


def fstring_nested_specs(x, n):
    width = 9
    return f"[{x:{width}.{n}f}] [{n:{n}}] [{x:{'>'}{n + 6}}]"


def fstring_python_values_keep_their_text(x):
    third, items = 1 / 3, [1, "a"]
    return f"{third} {x} {items!r} {'{braces}'} {None}"


def percent_values(x, n):
    return "%d items, %s, %r, %5.1f%%, %x, %c" % (n, x, x, x, n, n + 65)


def percent_single_and_mapping(x, n):
    return "%.2f" % x, "%(a)s/%(b)05d" % {"a": x, "b": n}, "%*d|" % (4, n)


def str_format_method(x, n):
    return "{} of {}".format(x, n), "{0}{0!r}".format(n), "{k:>8.2f}".format(k=x)


@pytest.mark.parametrize("fn, args", [
    (fstring_specs, (1 / 3, 7)),
    (fstring_specs, (-2.5, -12)),
    (fstring_arrays, (np.array([1, 3], np.int32),)),
    (fstring_arrays, (np.array([[0.5, 1.25]], np.float32),)),
    (fstring_nested_specs, (2.71828, 3)),
    (fstring_python_values_keep_their_text, (0.1,)),
    (percent_values, (1.5, 25)),
    (percent_single_and_mapping, (0.125, 42)),
    (str_format_method, (1 / 3, 5)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_formatted_text_is_pythons_on_the_numpy_values(capsys, fn, args):
    assert_same_text(capsys, fn, *args)


def test_the_text_of_a_staged_value_is_a_string_tensor():
    concrete = rt.function(fstring_specs).get_concrete_function(rt.constant(1.0), rt.constant(2))
    (out,) = concrete.graph.outputs
    assert out.dtype is rt.string and out.shape == ()
    assert [op.type for op in concrete.graph.operations].count("StringFormat") == 1


def formats_strings(s):
    return f"<{s}> <{s!r}> <{s:>6}>", "%s|%r" % (s, s)


def test_string_tensors_format_as_str(capsys):
    assert formats_strings("hé") == ("<hé> <'hé'> <    hé>", "hé|'hé'")
    for run in (autograph.to_graph(formats_strings), rt.function(formats_strings)):
        assert as_text(run(rt.constant("hé"))) == formats_strings("hé")


def bad_spec_for_an_array(v):
    return f"{v:.2f}"


def bad_percent_for_an_array(v):
    return "%d" % v


@pytest.mark.parametrize("fn", [bad_spec_for_an_array, bad_percent_for_an_array])
def test_formatting_errors_are_errors_everywhere(capsys, fn):
    assert isinstance(assert_same_text(capsys, fn, np.array([1.0, 2.0], np.float32)), TypeError)


def bad_spec_unknown_shape(v):
    return f"{v:.2f}"


def test_a_run_time_formatting_error_names_the_user_line():
    f = rt.function(bad_spec_unknown_shape, input_signature=[rt.TensorSpec([None], rt.float32)])
    with pytest.raises(TypeError, match="unsupported format string"):
        bad_spec_unknown_shape(np.array([1.5], np.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="unsupported format string") as e:
        f(rt.constant([1.5]))
    assert 'return f"{v:.2f}"' in str(e.value) and "test_formatting.py" in str(e.value)


def formats_a_list_of_tensors(x):
    return f"{[x, x]}"


def tensor_width_for_a_python_value(n):
    return f"{1.5:{n}}"


def test_a_format_spec_computed_from_a_tensor_raises_while_tracing():
    with pytest.raises(NotImplementedError, match="format spec computed from a tensor"):
        rt.function(tensor_width_for_a_python_value)(rt.constant(6))


# ---- lists and tuples holding tensors: their text is their items' reprs, made at run time ------

def formats_containers(x, n):
    count = 0
    for _ in range(n):
        count += 1  # (a graph counter standing for a Python int: its repr is the int's)
    return (f"{[x, x]}", f"{(x,)}", f"{[x, (count, 'a'), 1.5]!r}", "%s|%r" % ([x], (n, [])),
            "{}".format((x, count)), str([x, count]), repr((count,)))


def prints_containers(x, n):
    count = 0
    for _ in range(n):
        count += 1
    print((x, count), [x, [count, "b"]], sep=" / ")
    return count


def test_lists_and_tuples_of_tensors_format_as_python_formats_them(capsys):
    assert assert_same_text(capsys, formats_containers, np.float64(0.5), 3)[0] == (
        "[np.float64(0.5), np.float64(0.5)]")
    assert_same_text(capsys, formats_containers, np.float32(2.25), 0)


def test_lists_and_tuples_of_tensors_print_as_python_prints_them(capsys):
    assert_same_text(capsys, prints_containers, 0.5, 3)


def pads_a_list(x):
    return f"{[x]:>10}"


def pads_a_list_with_percent(x):
    return "%10s" % ([x],)


def formats_a_dict(x):
    return f"{ {'x': x} }"


def test_containers_of_tensors_python_cannot_or_the_graph_does_not_format():
    with pytest.raises(TypeError, match="unsupported format string passed to list"):
        pads_a_list(np.float64(1.0))
    with pytest.raises(TypeError, match="unsupported format string passed to list"):
        rt.function(pads_a_list)(rt.constant(1.0))
    with pytest.raises(NotImplementedError, match="format its items, or use %s"):
        rt.function(pads_a_list_with_percent)(rt.constant(1.0))
    with pytest.raises(TypeError, match="cannot format a dict that holds graph values"):
        rt.function(formats_a_dict)(rt.constant(1.0))
    assert formats_a_list_of_tensors(1.0) == autograph.to_graph(formats_a_list_of_tensors)(1.0)


def builtins_give_text(x):
    return str(x), repr(x), format(x, ".2f"), str(b"raw", "ascii")


def test_str_repr_and_format_of_tensors(capsys):
    assert_same_text(capsys, builtins_give_text, 1 / 3)


def containers_give_text(x, n):
    pair = (x, n)
    return (format(pair), ascii([x, "é"]), f"{pair!a}", "%a" % ([n, "é"],), ascii(n),
            f"{pair!r:>30}", "{!s:*<25}".format([n]), f"{[x, 'é']!a:^{n + 30}}")


def texts_joined(x, n):
    return ", ".join(map(str, (x, n))) + "|" + "-".join([repr(n), "b", str(x)])


def builtins_called_by_builtins(x, n):
    return "".join(map(str, [n, n + 1])) + functools.reduce(
        lambda a, b: a + b, map(format, (x, n)))


def test_text_builtins_of_containers_and_the_builtins_that_call_them(capsys):
    """format / ascii of a tuple holding tensors, `!a`, `%a`, `sep.join` of their texts, and
    `str` / `format` passed to map and functools.reduce: the builtin's overload,
    as converted code calls it (Python's builtin on a graph tensor would give its repr)."""
    for fn in (containers_give_text, texts_joined, builtins_called_by_builtins):
        assert_same_text(capsys, fn, 0.5, 3)
        assert_same_text(capsys, fn, np.float32(2.25), -1)


def joins_a_number(n):
    return ",".join(["a", n])


def test_joining_a_number_is_pythons_type_error_everywhere(capsys):
    assert isinstance(assert_same_text(capsys, joins_a_number, 3), TypeError)
    with pytest.raises(TypeError, match="sequence item 1: expected str instance, int32 tensor"):
        rt.function(joins_a_number)(rt.constant(3))


# ---- print ------------------------------------------------------------------------------------

def prints_formatted(x, n):
    rt.print("first", x)
    print(f"x is {x:.2f}, n is {n!r}")
    print("%d%%" % n, "{:>6}".format(n), sep="|")
    rt.print("last", n)
    return n


def test_print_of_formatted_text_runs_every_call_in_program_order(capsys):
    assert_same_text(capsys, prints_formatted, 0.5, 3)
    assert capsys.readouterr().out == ""
    graph = rt.function(prints_formatted)
    graph(rt.constant(0.5), rt.constant(3))
    graph(rt.constant(2.0), rt.constant(4))
    assert capsys.readouterr().out == (
        "first 0.5\nx is 0.50, n is np.int32(3)\n3%|     3\nlast 3\n"
        "first 2.0\nx is 2.00, n is np.int32(4)\n4%|     4\nlast 4\n"
    )
    assert graph.experimental_get_tracing_count() == 1


def prints_in_a_staged_loop(n):
    total = 0
    for i in rt.range(n):
        total += i
        print(f"step {i}: total={total}, half={total / 2:.1f}")
    return total


def test_print_in_a_staged_loop_prints_each_iteration_at_run_time(capsys):
    graph = rt.function(prints_in_a_staged_loop)
    graph(rt.constant(3))
    graph(rt.constant(2))
    assert capsys.readouterr().out == (
        "step 0: total=0, half=0.0\nstep 1: total=1, half=0.5\nstep 2: total=3, half=1.5\n"
        "step 0: total=0, half=0.0\nstep 1: total=1, half=0.5\n"
    )
    assert_same_text(capsys, prints_in_a_staged_loop, 3)


def prints_in_staged_branches(x):
    if x > 0:
        print(f"positive: {x:+.1f}")
    else:
        print("not positive: %s" % x)
    return x


def test_print_in_a_staged_branch_prints_when_the_branch_runs(capsys):
    for value in (1.5, -2.0):
        assert_same_text(capsys, prints_in_staged_branches, value)
    graph = rt.function(prints_in_staged_branches)
    capsys.readouterr()
    graph(rt.constant(1.5))
    graph(rt.constant(-2.0))
    assert capsys.readouterr().out == "positive: +1.5\nnot positive: -2.0\n"


SCALE = rt.constant(2.5)


def prints_a_captured_eager_tensor(x):
    print(f"scale={SCALE:.1f}")
    return x * SCALE


def test_an_eager_tensor_formatted_in_a_graph_prints_every_call(capsys):
    """Like `print(SCALE)`: ops on eager tensors while tracing are graph ops."""
    graph = rt.function(prints_a_captured_eager_tensor)
    graph(rt.constant(1.0))
    graph(rt.constant(2.0))
    assert capsys.readouterr().out == "scale=2.5\nscale=2.5\n"
    assert autograph.to_graph(prints_a_captured_eager_tensor)(1.0) == 2.5
    assert capsys.readouterr().out == "scale=2.5\n"


def prints_python_text_once(x):
    print(f"tracing with {2 + 1}")
    return x + 1


def test_text_of_python_values_prints_once_per_trace(capsys):
    graph = rt.function(prints_python_text_once)
    graph(rt.constant(1))
    graph(rt.constant(2))
    assert capsys.readouterr().out == "tracing with 3\n"


# ---- the converted code ----------------------------------------------------------------------

def shows_conversion(x, n):
    print(f"x is {x:.3f} ({n!r}) {{ok}}")
    return "%d items" % n, "{}!".format(x), f"{x:{n}}"


def asserts_with_a_message(x):
    assert x > 0, f"x must be positive, got {x}"
    return x


def test_to_code_shows_the_formatting_operators():
    code = autograph.to_code(shows_conversion)
    assert "ag__.converted_call(print, ag__.format_string('x is {:.3f} ({!r}) {{ok}}', x, n))" \
        in code
    assert "return (ag__.percent_format('%d items', n), ag__.format_string('{}!', x), " \
        "ag__.format_string('{:{}}', x, n))" in code
    # An assertion's message stays Python's: a graph assertion has a fixed message.
    assert "f'x must be positive, got {x}'" in autograph.to_code(asserts_with_a_message)


def without_formatting(x):
    return x % 3, "%" if x else "{}"


def test_functions_without_formatting_are_left_alone():
    code = autograph.to_code(without_formatting)
    assert "format_string" not in code and "percent_format" not in code
