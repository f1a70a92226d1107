"""Ordinary numpy programs (tests/numpy_programs.py: RK4, EMA, Kalman, Mandelbrot, histograms,
a moving window, bisection, Newton, k-means) timed as plain numpy, as a graph
(`rt.function`, unchanged source) on the default executor (called with tensors, and called as
the numpy program is: numpy values in, numpy values out with `numpy_results=True`), with
`jit_compile="numba"`, and
with `jit_compile="auto"` after its warm-up (the hot graph moved to numba when numba computes
it bit for bit), with numpy's promotion for operators
(`rt.config.set_dtype_promotion("numpy")`); and, when installed, the peers on the same source:
`numba.njit` (the program's own functions compiled, numpy kept; and for programs with `**`,
also with `a ** b` written `np.power(a, b)`: njit's own `x ** 3` multiplies, which rounds
differently from numpy's pow in about a quarter of cases) and `jax.jit` (with
`jax.numpy` in place of numpy, float64 enabled). Each column's result is checked against
numpy's first: ours must be equal (values, shapes, dtypes), a peer's close (its own BLAS and
math library may round differently); a column that fails or differs is an error cell. Medians
of interleaved rounds, ratios to plain numpy as medians of per-round ratios.

    python -m benchmarks.numpy_programs [--quick] [--only rk4,ema]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import inspect
import statistics
import sys
import types

import numpy as np

import runtime as rt
from benchmarks import harness
from runtime.executor import tiering
from tests import numpy_programs
from tests.autograph.three_way import same

OURS = ("numpy", "graph", "graph np", "numba", "auto")
PEERS = ("njit", "jax.jit")
COLUMNS = OURS + PEERS
SAME_POWER = "njit np.power"  # timed for the note under the table
JAX_UNROLLED_LIMIT = 2_000  # operations; XLA compiles EMA's 4,000 in minutes


def _prepare(name: str):
    """{column: (callable, args) or an error text}, and where "auto" runs after warm-up."""
    fn, args = numpy_programs.PROGRAMS[name][0], numpy_programs.make_args(name)
    rt_args = tuple(harness.to_rt(a) for a in args)
    expected = fn(*args)
    columns = {"numpy": (fn, args)}
    where, ops = "-", 0
    for column, jit in (("graph", None), ("graph np", None), ("numba", "numba"),
                        ("auto", "auto")):
        if jit == "numba" and importlib.util.find_spec("numba") is None:
            columns[column] = "numba is not installed"
            continue
        if jit == "numba" and ops > tiering.MAX_OPS:
            columns[column] = (f"its graph has {ops:,} ops (Python loops unrolled), which numba "
                               "would take minutes to compile; auto keeps it off numba too")
            continue
        f = rt.function(harness.fresh_function(fn), jit_compile=jit,
                        numpy_results=column == "graph np")
        call_args = args if column == "graph np" else rt_args
        try:
            if jit is None:
                ops = sum(1 for _ in f.get_concrete_function(*rt_args).graph.walk())
            if jit == "auto":
                concrete = f.get_concrete_function(*rt_args)
                for _ in range(tiering.HOT_CALLS + 1):
                    f(*rt_args)
                tiering.wait_for_compiles()
                for _ in range(tiering.TRIAL_CALLS):  # (they time both executors)
                    f(*rt_args)
                where = _where_auto_runs(concrete)
            if not same(f(*call_args), expected):
                columns[column] = "result differs from numpy"
                continue
        except Exception as e:  # noqa: BLE001 - an error cell; the other rows go on
            columns[column] = _error_cell(e)
            continue
        columns[column] = (f, call_args)
    for column, make in (("njit", _njit), ("jax.jit", _jax_jit)):
        columns[column] = _peer(make, fn, args, expected)
    if "**" in inspect.getsource(fn) and isinstance(columns["njit"], tuple):
        columns[SAME_POWER] = _peer(_njit_numpy_power, fn, args, expected)
    return columns, where


def _error_cell(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def _peer(make, fn, args, expected):
    """(compiled fn, args) of a peer when it compiles `fn` and agrees with numpy's `expected`
    to rounding, else an error text."""
    try:
        compiled, peer_args = make(fn, args)
        if compiled is None:
            return peer_args  # why the peer is missing
        result = compiled(*peer_args)
        if not _close(result, expected):
            return "result differs from numpy beyond rounding"
    except Exception as e:  # noqa: BLE001 - an error cell; the other columns go on
        return _error_cell(e)
    return compiled, peer_args


def _close(actual, expected) -> bool:
    if isinstance(expected, (tuple, list)):
        return (isinstance(actual, (tuple, list)) and len(actual) == len(expected)
                and all(_close(a, e) for a, e in zip(actual, expected)))
    a, e = np.asarray(actual), np.asarray(expected)
    return a.shape == e.shape and bool(np.allclose(a, e, rtol=1e-9, atol=1e-12, equal_nan=True))


def _same_source(fn, replace: dict, wrap):
    """`fn` with the program module's functions rebuilt in a copy of its globals (updated by
    `replace`), each passed through `wrap`: the same source, compiled by a peer."""
    scope = dict(fn.__globals__, **replace)
    for key, value in list(scope.items()):
        if (isinstance(value, types.FunctionType) and value.__module__ == fn.__module__
                and value.__closure__ is None):
            scope[key] = wrap(types.FunctionType(value.__code__, scope, value.__name__,
                                                 value.__defaults__))
    return scope[fn.__name__]


def _njit(fn, args):
    if importlib.util.find_spec("numba") is None:
        return None, "numba is not installed"
    import numba

    return _same_source(fn, {}, numba.njit), args


class _NumpyPower(ast.NodeTransformer):
    """`a ** b` -> `numpy_power_(a, b)`."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Pow):
            return node
        call = ast.Call(ast.Name("numpy_power_", ast.Load()), [node.left, node.right], [])
        return ast.copy_location(call, node)


def _njit_numpy_power(fn, args):
    """njit of `fn` with `a ** b` as `np.power(a, b)` (numpy's bits: the C library's pow) in its
    module's functions."""
    import numba

    module = sys.modules[fn.__module__]
    tree = ast.fix_missing_locations(_NumpyPower().visit(ast.parse(inspect.getsource(module))))
    scope = {"__name__": fn.__module__,
             "numpy_power_": numba.njit(lambda a, b: np.power(a, b))}
    exec(compile(tree, module.__file__, "exec"), scope)  # noqa: S102 - the program's own source
    return _same_source(scope[fn.__name__], {}, numba.njit), args


def _jax_jit(fn, args):
    """jax.jit of `fn` with jax.numpy as np; Python numbers are static arguments (a JAX user's
    way to use them in `range`), arrays go in as device arrays."""
    if importlib.util.find_spec("jax") is None:
        return None, "jax is not installed"
    import jax
    import jax.numpy as jnp

    static = tuple(i for i, a in enumerate(args) if not isinstance(a, (np.ndarray, np.generic)))
    plain = _same_source(fn, {"np": jnp}, lambda f: f)
    jax_args = tuple(a if i in static else jnp.asarray(a) for i, a in enumerate(args))
    size = len(jax.make_jaxpr(plain, static_argnums=static)(*jax_args).eqns)
    if size > JAX_UNROLLED_LIMIT:
        return None, (f"its Python loops unroll into {size:,} JAX operations; XLA takes "
                      "minutes to compile that (rewrite them with lax.scan / fori_loop)")
    jitted = jax.jit(plain, static_argnums=static)

    def call(*call_args):
        return jax.block_until_ready(jitted(*call_args))

    return call, jax_args


@contextlib.contextmanager
def _jax_float64():
    """JAX computing in float64 as numpy does (restored after)."""
    if importlib.util.find_spec("jax") is None:
        yield
        return
    import jax

    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


def _where_auto_runs(concrete) -> str:
    """concrete.executor, in a few words."""
    where = concrete.executor
    for words, short in (("numba (", "numba"), ("not installed", "default (no numba)"),
                         ("not faster", "default (numba not faster)"),
                         ("bit for bit", "default (not exactly lowered)"),
                         ("too big to compile", "default (too big for numba)")):
        if words in where:
            return short
    return where


def _row(name: str, budget: harness.Budget) -> tuple[list, list]:
    """(table cells, error lines) of one program."""
    columns, where = _prepare(name)
    timed = [c for c in (*COLUMNS, SAME_POWER) if isinstance(columns.get(c), tuple)]
    samples = dict(zip(timed, (s for s, _ in harness.measure([columns[c] for c in timed],
                                                             budget))))
    medians = {c: statistics.median(samples[c]) * 1e6 if c in samples else None
               for c in (*COLUMNS, SAME_POWER)}

    def ratio(column, to="numpy"):
        if column not in samples or to not in samples:
            return "-"
        return f"{statistics.median(a / b for a, b in zip(samples[column], samples[to])):.2f}x"

    cells = [name, *(_us(medians[c]) for c in COLUMNS), ratio("graph"), ratio("graph np"),
             ratio("numba"), ratio("auto"), ratio("numba", "njit"), where]
    errors = [f"{name} {c}: {columns[c]}" for c in (*COLUMNS, SAME_POWER)
              if isinstance(columns.get(c), str)]
    if SAME_POWER in samples:
        errors.append(f"{name} {SAME_POWER}: {_us(medians[SAME_POWER])} us; numba/that "
                      f"{ratio('numba', SAME_POWER)} (njit computing `**` as numpy does)")
    return cells, errors


def _us(value) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def numpy_programs_table(budget: harness.Budget, names=None) -> str:
    """A markdown table: program, median us of each column (numpy, our graph on the default
    executor with tensors and with numpy values in and out, on numba, with "auto" after its
    warm-up, the peers), our ratios to numpy and numba's to njit, and where "auto" ended up
    (numba or the default executor); then the cells that failed, each with its reason ("-" in
    the table), and njit with numpy's power where it was timed."""
    before = rt.config.dtype_promotion()
    rt.config.set_dtype_promotion("numpy")
    try:
        with _jax_float64():
            rows = [_row(name, budget) for name in (names or numpy_programs.PROGRAMS)]
    finally:
        rt.config.set_dtype_promotion(before)
    lines = ["| program | numpy us | graph us | graph np us | numba us | auto us | njit us | "
             "jax.jit us | graph/numpy | graph np/numpy | numba/numpy | auto/numpy | "
             "numba/njit | auto runs on |",
             "|---|" + "---:|" * 12 + "---|"]
    lines += ["| " + " | ".join(cells) + " |" for cells, _ in rows]
    errors = [e for _, row_errors in rows for e in row_errors if SAME_POWER not in e]
    powers = [e for _, row_errors in rows for e in row_errors if SAME_POWER in e]
    return "\n".join(lines + (["", "Not timed (\"-\" above):", *errors] if errors else [])
                     + (["", "njit with `a ** b` written np.power(a, b) (numpy's bits; njit's "
                         "`x ** 3` is x*x*x):", *powers] if powers else []))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.numpy_programs",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short timing")
    parser.add_argument("--only", default="", help="comma-separated program names, e.g. rk4,ema")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()] or None
    unknown = sorted(set(names or ()) - set(numpy_programs.PROGRAMS))
    if unknown:
        print(f"unknown programs {unknown}; known: {', '.join(numpy_programs.PROGRAMS)}",
              file=sys.stderr)
        return 2
    print(numpy_programs_table(harness.QUICK if args.quick else harness.THOROUGH, names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
