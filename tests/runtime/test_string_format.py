"""`rt.strings.format` (the StringFormat op): Python's `str.format` / `%` on the values of
tensors, eagerly, compiled, interpreted, saved and loaded; and `format()` of eager tensors."""

import numpy as np
import pytest
from op_testing import check_op

import runtime as rt
from runtime.executor.codegen import generate
from runtime.executor.interpreter import run_graph

try:
    import onnx  # noqa: F401

    HAVE_ONNX = True
except ImportError:
    HAVE_ONNX = False


@pytest.mark.parametrize("template, values", [
    ("x={} {!r} {:.3f} {:>8}", (np.float32(1 / 3), np.float32(2.5), np.float32(1 / 3),
                                np.int32(-7))),
    ("{0}|{0!r}|{1:{2}}", (np.array([1, 3], np.int32), np.int64(5), np.int32(4))),
    ("{} and {!s}", (np.array([[0.5, 1.25]], np.float32), np.True_)),
    ("text {!r} {}", (b"h\xc3\xa9", b"b")),
])
def test_format_is_python_format_of_the_numpy_values(template, values):
    def expected(*vs):
        shown = [v.decode() if isinstance(v, bytes) else v for v in vs]
        return template.format(*shown).encode()

    check_op(lambda *ts: rt.strings.format(template, *ts), expected, *values)


def test_percent_style():
    check_op(lambda a, b: rt.strings.format("%d items, %5.2f%%, %r", a, b, b, style="%"),
             lambda a, b: ("%d items, %5.2f%%, %r" % (a, b, b)).encode(),  # noqa: UP031
             np.int32(3), np.float32(0.125))


def test_python_values_become_tensors():
    assert rt.strings.format("{}", 1 / 3).numpy() == b"0.3333333432674408"  # float32
    assert rt.strings.format("{}", "hé").numpy() == "hé".encode()


@pytest.mark.parametrize("template, count, style, match", [
    ("{} {}", 1, "{}", "does not fit 1 value:"),
    ("{}", 2, "{}", r"leaves the values at \[1\] unused"),
    ("{name}", 1, "{}", "does not fit"),
    ("%d %d", 1, "%", "not enough arguments"),
    ("%(a)s", 1, "%", "format requires a mapping"),
    ("{}", 1, "$", "style must be"),
])
def test_templates_that_do_not_fit_the_values_are_errors(template, count, style, match):
    values = [rt.constant(1)] * count
    with pytest.raises(ValueError, match=match):
        rt.strings.format(template, *values, style=style)
    graph_fn = rt.function(lambda *v: rt.strings.format(template, *v, style=style),
                           autograph=False)
    with pytest.raises(ValueError, match=match):
        graph_fn(*values)


def _report(x, n):
    text = rt.strings.format("x={:.2f} n={!r}", x, n)
    rt.print(text)
    return text


def test_compiled_interpreted_saved_and_loaded_agree(tmp_path, capsys):
    f = rt.function(_report, autograph=False)
    args = (rt.constant([0.5, 1.5])[1], rt.constant(7))
    expected = f(*args)
    assert expected.numpy() == b"x=1.50 n=np.int32(7)"
    concrete = f.get_concrete_function(*args)
    assert "StringFormat" in str(concrete.graph)
    assert run_graph(concrete.graph, [a.numpy() for a in args]) == [expected.numpy()]
    assert "k_stringformat" in generate(concrete.graph).source
    rt.saved.save(f, tmp_path)
    loaded = rt.saved.load(tmp_path)
    capsys.readouterr()
    assert loaded(*args).numpy() == expected.numpy()
    assert capsys.readouterr().out == "x=1.50 n=np.int32(7)\n"  # printed without b''


def test_eager_tensors_format_like_their_numpy_values():
    x, v, s = rt.constant(1 / 3), rt.constant([1, 3]), rt.constant("hé")
    assert f"{x} {x:.2f} {v} {s} {s:>4}" == (
        f"{np.float32(1 / 3)} {np.float32(1 / 3):.2f} {np.array([1, 3])}" + " hé   hé")
    with pytest.raises(TypeError, match="unsupported format string"):
        format(v, ".2f")


def test_print_of_string_arrays_decodes_utf8(capsys):
    rt.print(rt.constant(["a", "bé"]))
    assert capsys.readouterr().out == "['a' 'bé']\n"


@pytest.mark.skipif(not HAVE_ONNX, reason="needs onnx")
def test_onnx_cannot_export_formatting_unless_it_is_only_printed():
    def printed(x):
        rt.print(rt.strings.format("x={}", x))
        return x * 2.0

    def returned(x):
        return rt.strings.format("x={}", x)

    concrete = rt.function(printed, autograph=False).get_concrete_function(rt.constant(1.0))
    with pytest.raises(rt.onnx.ExportError, match=r"(?s)StringFormat.*drop_prints=True.*"
                       r"test_string_format.py"):
        rt.onnx.export(concrete)
    rt.onnx.export(concrete, drop_prints=True)
    concrete = rt.function(returned, autograph=False).get_concrete_function(rt.constant(1.0))
    with pytest.raises(rt.onnx.ExportError, match="cannot format values as text"):
        rt.onnx.export(concrete, drop_prints=True)


@pytest.mark.parametrize("attrs, message", [
    ({"template": "{} {} {}"}, "does not fit 2 values"),
    ({"template": "{}"}, r"leaves the values at \[1\] unused"),
    ({"template": 3}, "'template' must be a string"),
    ({"style": "$"}, "'style' must be"),
])
def test_a_saved_template_that_does_not_fit_is_a_load_error(tmp_path, attrs, message):
    import json

    from runtime.saved import storage

    f = rt.function(_report, autograph=False)
    f(rt.constant(1.0), rt.constant(2))
    rt.saved.save(f, tmp_path)
    path = tmp_path / storage.JSON_FILE
    document = json.loads(path.read_text())
    (op,) = [op for op in document["functions"][0]["graph"]["operations"]
             if op["op"] == "StringFormat"]
    op["attrs"].update(attrs)
    path.write_text(json.dumps(document))
    with pytest.raises(rt.saved.LoadError, match=message):
        rt.saved.load(tmp_path)
