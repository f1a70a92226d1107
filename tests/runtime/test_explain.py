"""rt.explain: the report for two functions, as golden text (times masked)."""

import importlib.util
import re

import explain_examples as examples
import numpy as np
import pytest

import runtime as rt
from benchmarks import workloads

# Both examples' ops are ones numba computes bit for bit
RUNS_ON = "Runs on: the default executor (numpy code)" + (
    "; jit_compile='auto' would move it to numba once hot, if numba computes it faster (numba "
    "computes every op bit for bit)" if importlib.util.find_spec("numba") else "")

COLLATZ = """\
rt.explain: collatz(n: int32 Tensor, shape=())

    9  def collatz(n):
   10      steps = 0
   11      while n != 1:              graph While loop (the condition is a tensor); 2 ops: While, NotEqual
   12          if n % 2 == 0:         graph If (the condition is a tensor); 3 ops: FloorMod, Equal, If
   13              n = n // 2         1 op: FloorDiv
   14          else:
   15              n = SCALE * n + 1  2 ops: Mul, Add
   16          steps += 1             3 ops: Add, GreaterEqual, Assert
   17      return steps

Reads from outside: SCALE (an int: a constant in the graph; the function traces again if it changes)
{runs_on}
First call (ms): convert #, trace #, passes #, compile #, first run #"""  # noqa: E501

MIXED = """\
rt.explain: mixed(x: float32 Tensor, shape=(), k: 3)

   20  def mixed(x, k):
   21      total = x
   22      for i in range(k):           Python loop, unrolled while tracing: 3 iterations
   23          if i % 2 == 0:           Python `if` (a Python condition), decided while tracing 3 times
   24              total = total * 2.0  2 ops: 2 Mul
   25          else:
   26              total = total + 1.0  1 op: Add
   27      for _ in rt.range(3):        graph While loop (it iterates over a tensor); 9 ops: 2 Greater, 2 LogicalAnd, While, Less, LogicalNot, LogicalOr, Add
   28          total = total - 0.5      1 op: Sub
   29      return total

Reads from outside: nothing
{runs_on}
First call (ms): convert #, trace #, passes #, compile #, first run #"""  # noqa: E501


def _masked(report) -> str:
    return re.sub(r"\d+\.\d\d", "#", str(report))


def test_explain_reports_what_each_line_became():
    assert _masked(rt.explain(examples.collatz, rt.constant(27))) == COLLATZ.format(
        runs_on=RUNS_ON)
    assert _masked(rt.explain(rt.function(examples.mixed), rt.constant(1.0), 3)) == MIXED.format(
        runs_on=RUNS_ON)


def smoothed(x):
    for _ in rt.range(3):
        x = 0.5 * x + 0.5 * rt.tanh(x)  # the tanh line
    return x


def test_explain_says_where_the_graph_runs_and_why():
    """The executor of `jit_compile`; for the default executor and "auto", whether numba
    computes the graph bit for bit (the first op it would not, with the reason); for "auto",
    where the graph runs now."""
    pytest.importorskip("numba")
    x = rt.constant(np.float32(0.5))
    kept = rt.explain(smoothed, x).runs_on
    assert "'auto' would keep it there" in kept and "Tanh op" in kept
    assert "numba's Tanh may differ from numpy's in the last bits" in kept
    assert "line " in kept
    assert rt.explain(rt.function(smoothed, jit_compile="numba"), x).runs_on == "numba"
    padded = rt.function(lambda x: rt.pad(x, [[1, 1]]) + 1.0, jit_compile="numba")
    assert rt.explain(padded, rt.constant(np.ones(2, np.float32))).runs_on.startswith(
        "none: jit_compile='numba' cannot compile the Pad op")
    f = rt.function(workloads.collatz, jit_compile="auto")
    n = rt.constant(27)
    assert "until it is hot" in rt.explain(f, n).runs_on
    auto = rt.function(smoothed, jit_compile="auto")
    assert "numba would not compute it bit for bit: Tanh op" in rt.explain(auto, x).runs_on


def test_explain_takes_functions_only():
    with pytest.raises(TypeError, match="takes a Python function"):
        rt.explain(len, 3)


def test_command_line_explains_a_function_of_a_file(tmp_path):
    import subprocess
    import sys

    (tmp_path / "mod.py").write_text(
        "def f(x, k):\n    for i in range(k):\n        x = x + i\n    return x\n")
    run = subprocess.run([sys.executable, "-m", "runtime", "explain", f"{tmp_path}/mod.py:f",
                          "1.5", "py:3"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("rt.explain: f(x: float32 Tensor, shape=(), k: 3)")
    assert "Python loop, unrolled while tracing: 3 iterations" in run.stdout


def test_command_line_errors_are_one_located_message(tmp_path):
    import subprocess
    import sys

    (tmp_path / "mod.py").write_text(
        "import runtime as rt\n\ndef f(x):\n    return rt.reshape(x, [7])\n")
    command = [sys.executable, "-m", "runtime", "explain"]
    run = subprocess.run([*command, f"{tmp_path}/mod.py:f", "1.5"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith("error: InvalidArgumentError: Reshape")
    assert "mod.py\", line 4" in run.stderr and "return rt.reshape(x, [7])" in run.stderr
    run = subprocess.run([*command, f"{tmp_path}/mod.py:f"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1 and "missing a required argument: 'x'" in run.stderr
    assert run.stderr.startswith("error: f(x) (") and "mod.py:3)" in run.stderr  # where f is
    assert f"e.g. python -m runtime explain {tmp_path}/mod.py:f 1.0" in run.stderr  # the fix
    run = subprocess.run([*command, f"{tmp_path}/mod.py:f", "1.5", "--traceback"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "Traceback" in run.stderr
    run = subprocess.run([*command[:-1], "--help"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "examples:" in run.stdout and "py:3" in run.stdout


WEIGHTS = [1.0, 2.0]


def _uses_a_list(x):
    return x * WEIGHTS[0] + WEIGHTS[1]


def test_explain_says_which_outside_values_are_guarded():
    report = str(rt.explain(_uses_a_list, rt.constant(1.0)))
    assert ("WEIGHTS (a list: a constant in the graph; the function traces again if it "
            "changes)") in report
    unguarded = str(rt.explain(rt.function(examples.collatz, capture_guards=False),
                               rt.constant(6)))
    assert "SCALE (an int: a constant in the graph; changing it later" in unguarded
