"""`python -m benchmarks.conv2d`: conv2d (runtime/ops/convolution_ops.py) forward, and forward
plus backward (the input's and the filters' gradients), eagerly and in a graph, against
`jax.jit` of `jax.lax.conv_general_dilated` (and of its `jax.vjp`) when jax is installed.

    python -m benchmarks.conv2d            # about 10 s per column
    python -m benchmarks.conv2d --quick    # a few seconds

Two Keras-like layers, 3x3 filters, stride 1, padding "SAME", float32, batch 32:
28x28x1 -> 16 channels (a first layer on MNIST-sized images) and 8x8x16 -> 16 (a deeper one).
Forward + backward returns the output and both gradients, for an output gradient `dy` given
as an argument (no loss is computed). Every column's results are checked against the float64
result of the eager op first (a column that disagrees or raises shows `error`). Times are
medians of interleaved rounds (benchmarks/harness.py). BLAS runs single-threaded unless
OPENBLAS_NUM_THREADS is set, as in `python -m benchmarks`; XLA uses its own thread pool (all
cores) unless XLA_FLAGS says otherwise, so the JAX column may use more cores than ours.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy is imported (see benchmarks/__main__)

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from benchmarks import harness  # noqa: E402
from runtime.ops.convolution_ops import conv2d  # noqa: E402

CASES = [  # name, input shape, filter shape
    ("32x28x28x1 -> 16", (32, 28, 28, 1), (3, 3, 1, 16)),
    ("32x8x8x16 -> 16", (32, 8, 8, 16), (3, 3, 16, 16)),
]
PADDING = "SAME"
RTOL = 1e-4  # float32 against float64


def forward(x, w):
    return conv2d(x, w, 1, PADDING)


def forward_backward(x, w, dy):
    with rt.GradientTape() as tape:
        tape.watch([x, w])
        y = conv2d(x, w, 1, PADDING)
    dx, dw = tape.gradient(y, [x, w], output_gradients=dy)
    return y, dx, dw


def _jax_columns():
    """(forward, forward_backward) jitted by JAX, waiting for their results; None without jax."""
    if importlib.util.find_spec("jax") is None:
        return None
    import jax

    def conv(x, w):
        return jax.lax.conv_general_dilated(x, w, (1, 1), PADDING,
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def both(x, w, dy):
        y, vjp = jax.vjp(conv, x, w)
        return (y, *vjp(dy))

    fwd, fb = jax.jit(conv), jax.jit(both)
    return (lambda *a: jax.block_until_ready(fwd(*a)),
            lambda *a: jax.block_until_ready(fb(*a)))


def _values(result) -> list:
    items = result if isinstance(result, (tuple, list)) else [result]
    return [np.asarray(v.numpy() if isinstance(v, rt.Tensor) else v) for v in items]


def _check(fn, args, want) -> str | None:
    """None when `fn(*args)` gives `want` (float64 arrays) within RTOL, else the error."""
    try:
        got = _values(fn(*args))
    except Exception as e:  # noqa: BLE001 - shown in the table
        return f"{type(e).__name__}: {e}".splitlines()[0][:80]
    for g, w in zip(got, want):
        scale = np.max(np.abs(w))
        if g.shape != w.shape or not np.allclose(g, w, rtol=RTOL, atol=RTOL * scale):
            return "result differs from the float64 result"
    return None


def _row(case, what, columns, budget) -> str:
    """One table row: the median µs of each column (or its error)."""
    timed, cells = [], {}
    for name, fn, args, want in columns:
        error = _check(fn, args, want)
        if error is None:
            timed.append((name, fn, args))
        else:
            cells[name] = f"error ({error})"
    measured = harness.measure([(fn, args) for _, fn, args in timed], budget)
    medians = {name: statistics.median(samples) * 1e6
               for (name, _, _), (samples, _) in zip(timed, measured)}
    cells.update({name: f"{us:,.0f}" for name, us in medians.items()})
    names = [name for name, *_ in columns]
    ratio = ""
    if "rt graph" in medians and "JAX jit" in medians:
        ratio = f"{medians['rt graph'] / medians['JAX jit']:.2f}x"
    return f"| {case} | {what} | " + " | ".join(cells.get(n, "") for n in names) + \
        f" | {ratio} |"


def table(budget) -> str:
    jax_fns = _jax_columns()
    header = ["rt eager us", "rt graph us"] + (["JAX jit us"] if jax_fns else [])
    lines = ["| conv2d 3x3 SAME, float32 | pass | " + " | ".join(header) + " | graph / JAX |",
             "|---|---|" + "---:|" * (len(header) + 1)]
    rng = np.random.default_rng(0)
    for case, x_shape, w_shape in CASES:
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = (rng.standard_normal(w_shape) / 3).astype(np.float32)
        dy = rng.standard_normal((*x_shape[:3], w_shape[3])).astype(np.float32)
        x64, w64, dy64 = (rt.constant(a.astype(np.float64)) for a in (x, w, dy))
        want_forward = _values(forward(x64, w64))
        want_both = _values(forward_backward(x64, w64, dy64))
        args = (rt.constant(x), rt.constant(w))
        both_args = (*args, rt.constant(dy))
        graph_forward, graph_both = rt.function(forward), rt.function(forward_backward)
        rows = [("forward", [("rt eager", forward, args, want_forward),
                             ("rt graph", graph_forward, args, want_forward)]),
                ("forward + backward", [("rt eager", forward_backward, both_args, want_both),
                                        ("rt graph", graph_both, both_args, want_both)])]
        if jax_fns:
            import jax.numpy as jnp

            rows[0][1].append(("JAX jit", jax_fns[0], (jnp.asarray(x), jnp.asarray(w)),
                               want_forward))
            rows[1][1].append(("JAX jit", jax_fns[1],
                               (jnp.asarray(x), jnp.asarray(w), jnp.asarray(dy)), want_both))
        for what, columns in rows:
            print(f"timing {case}, {what}", file=sys.stderr)
            lines.append(_row(case, what, columns, budget))
    if not jax_fns:
        lines.append("\nNo JAX column: jax is not installed (pip install -e \".[jax]\").")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.conv2d",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timing (a few seconds)")
    options = parser.parse_args(argv)
    budget = harness.QUICK if options.quick else harness.THOROUGH
    print(table(budget))
    print(f"\nBLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS')}; "
          f"XLA_FLAGS: {os.environ.get('XLA_FLAGS', '(default)')}; {os.cpu_count()} cores.")


if __name__ == "__main__":
    main()
