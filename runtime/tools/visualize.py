"""Pictures of graphs: Graphviz DOT text, rendered to SVG / PNG / PDF by Graphviz's `dot`.

`to_dot(graph)` needs nothing installed. `render` and `svg` run the `dot` program, a system
package that the `viz` extra documents (`apt-get install graphviz`, `brew install graphviz`,
`conda install graphviz`); without it they raise GraphvizNotFoundError, and a notebook falls back
to the text form of the graph.

Drawing: one box per op labelled with its type, name and output dtype/shape (placeholders as
ellipses, constants grey, stateful ops orange, control flow green); edges carry the tensor's
dtype/shape. Branch and loop bodies are clusters; dashed edges lead from the tensors an If/While
passes in to the sub-graph's placeholders and from the sub-graph's results back to the op.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np

from runtime.core.graph import Graph, provide_views
from runtime.core.tensor import shape_str
from runtime.ops.registry import CONST, PLACEHOLDER

_STYLE = {
    PLACEHOLDER: 'shape=ellipse, fillcolor="#dbeafe"',
    CONST: 'fillcolor="#e5e7eb"',
    "control_flow": 'fillcolor="#dcfce7"',
    "stateful": 'fillcolor="#fed7aa"',
}


class GraphvizNotFoundError(RuntimeError):
    """The Graphviz `dot` program, needed to render a graph, is not installed."""


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _spec(tensor) -> str:
    return f"{tensor.dtype.name}{shape_str(tensor.shape)}"


def _node_id(op) -> str:
    return _quote(op.name)


def _node(op, indent: str) -> str:
    label = f"{op.type}\n{op.name}"
    if op.opdef is CONST:
        value = op.attrs["value"]
        if value.size <= 4 and value.dtype != object:
            label += f"\n{np.array2string(value, separator=', ')}"
    if op.outputs:
        label += "\n" + ", ".join(_spec(t) for t in op.outputs)
    style = _STYLE.get(op.opdef)
    if style is None and op.subgraphs():
        style = _STYLE["control_flow"]
    elif style is None and op.stateful:
        style = _STYLE["stateful"]
    attrs = [f"label={_quote(label)}"]
    if op.origin is not None:
        attrs.append(f"tooltip={_quote(f'{op.origin}: {op.origin.text}')}")
    if style:
        attrs.append(style)
    return f"{indent}{_node_id(op)} [{', '.join(attrs)}];"


def _edge(tensor, target: str, indent: str, extra: str = "") -> str:
    label = _spec(tensor) if len(tensor.op.outputs) == 1 else f"{tensor.index}: {_spec(tensor)}"
    return f"{indent}{_node_id(tensor.op)} -> {target} [label={_quote(label)}{extra}];"


def to_dot(graph) -> str:
    """The graph as Graphviz DOT source (sub-graphs as clusters)."""
    lines = [
        f"digraph {_quote(graph.name)} {{",
        "  compound=true;",
        '  node [shape=box, style="rounded,filled", fillcolor="#f9fafb", fontname="Helvetica",'
        " fontsize=10];",
        '  edge [fontname="Helvetica", fontsize=8, color="#4b5563"];',
    ]
    # An explicit stack instead of recursion: ("graph", g, indent, title) opens a graph,
    # ("close", indent) ends a cluster once everything nested in it is written.
    stack: list[tuple] = [("graph", graph, "  ", None)]
    while stack:
        item = stack.pop()
        if item[0] == "close":
            lines.append(f"{item[1]}}}")
            continue
        _, g, indent, title = item
        inner = indent
        if title is not None:
            lines.append(f"{indent}subgraph {_quote('cluster_' + g.name)} {{")
            lines.append(f'{indent}  label={_quote(title)}; style="dashed,rounded";'
                         ' color="#9ca3af";')
            inner = indent + "  "
            stack.append(("close", indent))
        nested = []
        for op in g.operations:
            lines.append(_node(op, inner))
            lines.extend(_edge(t, _node_id(op), inner) for t in op.inputs)
            for key, sub in ((k, v) for k, v in op.attrs.items() if isinstance(v, Graph)):
                lines.extend(_subgraph_edges(op, sub, inner))
                nested.append(("graph", sub, inner, f"{op.name}.{key}"))
        stack.extend(reversed(nested))
        if title is None:
            lines.append(f'{inner}"__outputs__" [label="outputs", shape=plaintext, style=""];')
            lines.extend(_edge(t, '"__outputs__"', inner) for t in g.outputs)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _subgraph_edges(op, sub, indent: str) -> list:
    """Dashed edges: op inputs -> the sub-graph placeholders standing for them, and the
    sub-graph's results -> the op. Placeholders match the last inputs of the op (an If's
    branches take all inputs but the predicate; a While's cond and body take them all)."""
    passed = op.inputs[len(op.inputs) - len(sub.inputs):]
    edges = [_edge(t, _node_id(p.op), indent, ", style=dashed") for t, p in zip(passed, sub.inputs)]
    edges += [_edge(t, _node_id(op), indent, ', style=dashed, color="#16a34a"')
              for t in sub.outputs]
    return edges


def _dot_program() -> str:
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(
            "Rendering a graph needs the Graphviz `dot` program, which is not on PATH. Install "
            "Graphviz (the `viz` extra of this package documents it: `apt-get install graphviz`, "
            "`brew install graphviz` or `conda install graphviz`), or write graph.to_dot() to a "
            "file and render it elsewhere."
        )
    return program


def _run_dot(graph, fmt: str, output: str | None = None) -> bytes:
    command = [_dot_program(), f"-T{fmt}"] + (["-o", output] if output else [])
    done = subprocess.run(command, input=to_dot(graph).encode(), capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz `dot -T{fmt}` failed: {done.stderr.decode(errors='replace')}")
    return done.stdout


def render(graph, path, format: str | None = None) -> str:  # noqa: A002 - Graphviz's word
    """Writes a picture of `graph` to `path`; the format (svg, png, pdf, ...) defaults to the
    file's extension. Returns the path."""
    path = os.fspath(path)
    fmt = format or os.path.splitext(path)[1].lstrip(".").lower() or "svg"
    _run_dot(graph, fmt, path)
    return path


def svg(graph) -> str:
    """The graph as SVG text."""
    return _run_dot(graph, "svg").decode("utf-8")


def repr_svg(graph) -> str | None:
    """SVG for notebooks, or None (text display) when Graphviz is not installed."""
    try:
        return svg(graph)
    except GraphvizNotFoundError:
        return None


provide_views(to_dot=to_dot, render=render, repr_svg=repr_svg)
