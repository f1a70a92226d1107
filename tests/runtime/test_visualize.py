"""Looking at graphs: str(graph), DOT export, rendering with Graphviz, notebook SVG."""

import re
import shutil

import pytest

import runtime as rt
from runtime.tools import visualize

needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz `dot` is not installed (see the viz extra)")


def _model(x):
    y = rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
    rt.print('say "hi"', y)
    steps, z = rt.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + 1.0), (0, y))
    return z


@pytest.fixture
def graph():
    f = rt.function(_model, autograph=False)
    return f.get_concrete_function(rt.constant([1.0, 2.0])).graph


def test_str_has_one_line_per_op_with_spec_and_user_line(graph):
    text = str(graph)
    lines = text.splitlines()
    assert lines[0] == "graph _model(x: float32[2]):"
    ops = [op for op in graph.walk() if op.type != "Placeholder"]
    for op in ops:
        (line,) = [ln for ln in lines if re.match(rf"\s+{op.name}\b.*= {op.type}\(", ln)]
        assert line.rstrip().endswith(f"test_visualize.py:{op.origin.lineno}")
    if_line = next(ln for ln in lines if "= If(" in ln)
    branch = lines[lines.index(if_line) + 1]
    assert branch.startswith("    graph cond_") and "true" in branch  # sub-graphs indented
    assert "-> float32[2]" in if_line


def test_dot_has_clusters_for_branches_and_bodies(graph):
    dot = graph.to_dot()
    assert dot.startswith('digraph "_model" {') and dot.rstrip().endswith("}")
    if_op, while_op = [op for op in graph.operations if op.type in ("If", "While")]
    labels = re.findall(r'subgraph "cluster_\w+" \{\n\s+label="([\w.]+)"', dot)
    assert labels == [f"{if_op.name}.then_branch", f"{if_op.name}.else_branch",
                      f"{while_op.name}.cond", f"{while_op.name}.body"]
    assert f'"{while_op.name}" [label="While\\n{while_op.name}\\nint64[], float32[2]"' in dot
    # the op passing the loop variables feeds the body's placeholders (dashed)
    body = while_op.attrs["body"]
    assert f'-> "{body.inputs[1].op.name}" [label="float32[2]", style=dashed]' in dot
    assert 'rt.print(\'say \\"hi\\"\', y)' in dot  # the user line, escaped, in a tooltip


@needs_dot
def test_render_writes_svg_and_png(graph, tmp_path):
    svg_path = graph.render(tmp_path / "g.svg")
    assert open(svg_path).read().lstrip().startswith("<?xml")
    png_path = graph.render(tmp_path / "g.png")
    assert open(png_path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    svg = graph._repr_svg_()
    assert "<svg" in svg and "while_" in svg


def test_render_without_graphviz_names_the_fix(graph, tmp_path, monkeypatch):
    monkeypatch.setattr(visualize.shutil, "which", lambda name: None)
    with pytest.raises(visualize.GraphvizNotFoundError, match=r"viz.*extra.*graphviz"):
        graph.render(tmp_path / "g.svg")
    assert graph._repr_svg_() is None  # notebooks fall back to the text form


@needs_dot
def test_concrete_function_shows_as_a_picture_in_notebooks():
    f = rt.function(lambda x: rt.cond(x > 0, lambda: x * 2.0, lambda: -x), autograph=False)
    svg = f.get_concrete_function(rt.constant(1.0))._repr_svg_()
    assert "<svg" in svg and "If" in svg
