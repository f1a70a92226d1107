"""What a notebook shows of an `rt.function`: its traced signatures, each with its graph, and the
converted code (folded sections)."""

from __future__ import annotations

import html

import autograph


def function_html(function) -> str:
    """The HTML of `function` (a Function)."""
    def section(title, text):
        return (f"<details><summary>{html.escape(title)}</summary>"
                f"<pre>{html.escape(text)}</pre></details>")

    traces = function.current_traces()
    parts = [f"<b>rt.function {html.escape(function.__name__)}</b>: "
             f"{len(traces) or 'no'} traced signature{'' if len(traces) == 1 else 's'}"]
    for concrete in traces:
        parts.append(section(concrete.pretty_printed_signature().replace("\n", " "),
                             str(concrete.graph)))
    if function.options.autograph:
        try:
            parts.append(section("converted code", autograph.to_code(function.python_function)))
        except Exception as e:  # noqa: BLE001 - no source: say so instead of the code
            parts.append(f"<p>converted code: not available ({html.escape(str(e))})</p>")
    return "\n".join(parts)
