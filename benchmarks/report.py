"""Turns measured results into the table (markdown, readable in a terminal too), the pass/miss
list of the issue's targets, a JSON record and, when matplotlib is installed, a bar chart.

When TensorFlow is not importable, the TF column shows the TF-graph timing from ANCHORS.md,
marked with `*`; ratios against it compare times from different runs, so read them as rough.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from benchmarks.workloads import FIRST_CALL_TARGET_MS

ANCHOR_NOTE = ("`*` TF graph time measured earlier (TensorFlow 2.21, same machine type, not "
               "measured in this run)")


def format_us(value: float | None) -> str:
    """Microseconds with about three significant digits ("-" when missing)."""
    if value is None:
        return "-"
    if value < 10:
        return f"{value:.2f}"
    if value < 100:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _x(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}x" if value < 10 else f"{value:,.0f}x"


def tf_graph_us(result) -> tuple[float | None, bool]:
    """(TF graph µs, whether it is the ANCHORS.md value rather than measured now)."""
    measured = result.median("TF graph")
    if measured is not None:
        return measured, False
    anchor = result.workload.anchor
    return (anchor.tf_graph, True) if anchor is not None else (None, False)


def evaluate_targets(result) -> list[dict]:
    """Each target of the workload, plus the first-call one: label, measured, passed (None when
    it cannot be measured because a column failed)."""
    checks = [(t.label, *_check(result, t)) for t in result.workload.targets]
    first = result.first_call_ms
    checks.append((f"first call <= {FIRST_CALL_TARGET_MS:g} ms",
                   "-" if first is None else f"{first:.1f} ms",
                   None if first is None else first <= FIRST_CALL_TARGET_MS))
    return [{"target": label, "measured": measured, "passed": passed}
            for label, measured, passed in checks]


def _check(result, target) -> tuple[str, bool | None]:
    """(measured value as text, passed) for one target."""
    graph = result.median("graph")
    if target.kind == "max_us":
        return f"{format_us(graph)} us", None if graph is None else graph <= target.value
    if target.kind == "vs_numpy":
        value = result.ratio("graph", "numpy")
        passed = None if value is None else value <= target.value
    elif target.kind == "vs_variant":
        value = result.ratio("graph", target.value)
        passed = None if value is None else value < 1
    else:  # speedup over eager
        value = result.ratio("eager", "graph")
        passed = None if value is None else value >= target.value
    return ("-" if value is None else f"{value:.3f}x"), passed


def _verdict(passed) -> str:
    return {True: "pass", False: "MISS", None: "n/a"}[passed]


def table(results) -> str:
    """The main table as markdown: medians, ratios, first call, targets missed."""
    header = ["workload", "eager us", "graph us", "numpy us", "TF graph us", "graph/numpy",
              "eager/graph", "graph/TF", "1st call ms", "targets"]
    rows = []
    any_anchor = False
    for r in results:
        tf_us, from_anchor = tf_graph_us(r)
        any_anchor |= from_anchor
        graph = r.median("graph")
        verdicts = evaluate_targets(r)
        missed = [v["target"] for v in verdicts if v["passed"] is False]
        if r.columns["graph"].error:
            summary = "graph failed"
        elif missed:
            summary = "MISS: " + "; ".join(missed)
        else:
            summary = "all pass"
        rows.append([
            r.workload.key,
            _cell(r, "eager"), _cell(r, "graph"), _cell(r, "numpy"),
            format_us(tf_us) + ("*" if from_anchor else ""),
            _x(r.ratio("graph", "numpy")), _x(r.ratio("eager", "graph")),
            _x(_ratio(graph, tf_us) if from_anchor else r.ratio("graph", "TF graph")),
            "-" if r.first_call_ms is None else f"{r.first_call_ms:.1f}",
            summary,
        ])
    text = _markdown(header, rows)
    if any_anchor:
        text += "\n\n" + ANCHOR_NOTE
    return text


def _cell(result, column: str) -> str:
    col = result.columns.get(column)
    if col is None:
        return "-"
    return "error" if col.error else format_us(col.median_us)


def _markdown(header, rows) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    numeric = range(1, len(header) - 1)  # right-aligned: all but the key and the targets

    def line(cells):
        parts = [str(c).rjust(w) if i in numeric else str(c).ljust(w)
                 for i, (c, w) in enumerate(zip(cells, widths))]
        return "| " + " | ".join(parts) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in numeric else "-" * (w + 2)
                          for i, w in enumerate(widths)) + "|"
    return "\n".join([line(header), rule, *[line(r) for r in rows]])


def details(results, notes: str = "") -> str:
    """Variant columns, `notes` (other measurements), every target with its verdict, the
    TF/JAX columns, and errors."""
    lines = []
    standard = {"eager", "graph", "numpy"}
    extra = [(r.workload.key, name, col) for r in results for name, col in r.columns.items()
             if name not in standard]
    if extra:
        lines.append("Other columns measured in the same run:")
        for key, name, col in extra:
            first_line = col.error.splitlines()[0] if col.error else ""
            shown = f"error ({first_line})" if col.error else f"{format_us(col.median_us)} us"
            lines.append(f"  {key} {name}: {shown}")
    for column, called in (("graph numba", "tensors in and out"),
                           ("graph numba numpy", "numpy scalars in, numpy values out "
                            "(numpy_results=True), as njit is called")):
        native = [(r.workload.key, r.ratio(column, "numba njit")) for r in results]
        native = [(key, ratio) for key, ratio in native if ratio is not None]
        if native:  # issue 29's target: <= 2x
            lines.append(f"jit_compile='numba', {called}, against the same loop hand-written "
                         "for numba.njit (whole calls, same rounds): " + ", ".join(
                             f"{key} {ratio:.2f}x" for key, ratio in native))
    if notes:
        lines.append(notes)
    lines.append("Targets:")
    for r in results:
        for v in evaluate_targets(r):
            lines.append(f"  {_verdict(v['passed']):4} {r.workload.key:4} {v['target']:26} "
                         f"measured {v['measured']}")
    errors = [(r.workload.key, name, col.error) for r in results
              for name, col in r.columns.items() if col.error]
    if errors:
        lines.append("Errors:")
        for key, name, error in errors:
            lines.append(f"  {key} {name}: {_first_lines(error, 4)}")
    return "\n".join(lines)


def _first_lines(text: str, n: int) -> str:
    lines = text.splitlines()
    shown = "\n      ".join(lines[:n])
    return shown + (" [...]" if len(lines) > n else "")


def to_json(results, meta: dict) -> dict:
    """A JSON-serializable record of the run."""
    workloads = []
    for r in results:
        w = r.workload
        tf_us, from_anchor = tf_graph_us(r)
        graph = r.median("graph")
        workloads.append({
            "key": w.key,
            "title": w.title,
            "columns": {name: col.as_dict() for name, col in r.columns.items()},
            "first_call_ms": r.first_call_ms,
            "ratios": {
                "graph/numpy": r.ratio("graph", "numpy"),
                "eager/graph": r.ratio("eager", "graph"),
                "graph/TF graph": _ratio(graph, tf_us) if from_anchor else r.ratio(
                    "graph", "TF graph"),
                "TF graph source": "ANCHORS.md" if from_anchor else "measured",
            },
            "targets": evaluate_targets(r),
            "anchors_us": None if w.anchor is None else vars(w.anchor),
        })
    return {"meta": meta, "workloads": workloads}


def run_meta(mode: str, frameworks: dict) -> dict:
    return {
        "time_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "mode": mode,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "frameworks": frameworks,
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "argv": sys.argv[1:],
    }


def write(results, meta: dict, out_dir: Path, stamp: str, notes: str = "") -> list[Path]:
    """Writes bench-<stamp>.json, latest.json, latest.md and (with matplotlib) latest.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    record = json.dumps(to_json(results, meta), indent=1)
    paths = [out_dir / f"bench-{stamp}.json", out_dir / "latest.json"]
    for path in paths:
        path.write_text(record + "\n")
    markdown = out_dir / "latest.md"
    markdown.write_text(f"Measured {meta['time_utc']} ({meta['mode']} run, 1-minute load average "
                        f"{meta['load_average_1min']} when it started), median us per call.\n\n"
                        f"{table(results)}\n\n```\n{details(results, notes)}\n```\n")
    paths.append(markdown)
    chart = plot(results, out_dir / "latest.png")
    if chart is not None:
        paths.append(chart)
    return paths


def plot(results, path: Path) -> Path | None:
    """A horizontal bar chart (log scale) of eager, graph, numpy and TF graph per workload;
    None when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    series = [("our eager", "#d62728", lambda r: r.median("eager"), ""),
              ("our graph", "#1f77b4", lambda r: r.median("graph"), ""),
              ("hand-written numpy", "#2ca02c", lambda r: r.median("numpy"), ""),
              ("TF graph (* = measured earlier)", "#ff7f0e", lambda r: tf_graph_us(r)[0], "//")]
    height = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(10, 0.75 * len(results) + 1.5))
    for s, (label, color, value, hatch) in enumerate(series):
        ys = [i + (s - (len(series) - 1) / 2) * height for i in range(len(results))]
        xs = [value(r) or 0 for r in results]
        ax.barh(ys, xs, height=height, color=color, label=label, hatch=hatch,
                edgecolor="white" if hatch else None)
    ax.set_yticks(range(len(results)))
    ax.set_yticklabels([f"{r.workload.key} {r.workload.short}" + ("*" if tf_graph_us(r)[1] else "")
                        for r in results])
    left = min((v for r in results for v in (r.median("eager"), r.median("numpy")) if v), default=1)
    for i, r in enumerate(results):
        graph, vs_numpy = r.median("graph"), r.ratio("graph", "numpy")
        y = i + (1 - (len(series) - 1) / 2) * height
        if graph is None:
            ax.text(left, y, " graph: error", va="center", fontsize="small", color="#1f77b4")
        elif vs_numpy is not None:
            ax.text(graph, y, f" {_x(vs_numpy)} numpy", va="center", fontsize="x-small")
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(right=ax.get_xlim()[1] * 4)  # room for the "x numpy" labels
    ax.set_xlabel("median time per call (µs, log scale; shorter is faster)")
    ax.set_title("our eager vs our graph vs hand-written numpy, median per call")
    ax.grid(axis="x", which="major", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
