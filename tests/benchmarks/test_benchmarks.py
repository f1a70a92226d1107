"""Smoke tests of the benchmark suite: every workload's columns agree on small inputs, failures
become error cells instead of stopping the run, targets evaluate, and the CLI writes its files."""

import json
from dataclasses import replace

import numpy as np
import pytest

from benchmarks import harness, report, workloads
from benchmarks.__main__ import main

TINY = harness.Budget(seconds=0.005, round_seconds=0.0005, min_rounds=3)


@pytest.mark.parametrize("workload", workloads.WORKLOADS, ids=lambda w: w.key)
def test_columns_compute_the_same_result_on_small_inputs(workload):
    result = harness.check_workload(workload, small=True, with_external=False)
    errors = {name: col.error for name, col in result.columns.items() if col.error and not (
        name in ("graph numba", "graph numba numpy", "graph xla")
        and col.error.startswith("NoLoweringError"))}
    assert not errors
    assert result.first_call_ms > 0


def test_a_column_that_disagrees_is_reported_and_not_timed():
    wrong = replace(workloads.by_key(["W11"])[0], numpy_fn=lambda x: x + 2)
    result = harness.run_workload(wrong, TINY, small=True, with_external=False)
    for name in ("eager", "graph"):
        assert result.columns[name].error.startswith("result differs from numpy")
        assert result.columns[name].median_us is None
    assert result.median("numpy") > 0


def _reads_value_while_tracing(x):
    return x.numpy() + 1


def test_a_graph_that_fails_to_trace_becomes_an_error_row():
    failing = workloads.Workload("T1", "numpy()", "calls .numpy() on a tensor",
                                 _reads_value_while_tracing,
                                 lambda x: x + 1, lambda small: (np.float32(1.0),))
    result = harness.run_workload(failing, TINY, small=True, with_external=False)
    assert result.columns["graph"].error.startswith("OperatorNotAllowedInGraphError")
    assert result.first_call_ms is None
    assert result.median("eager") > 0 and result.median("numpy") > 0
    row = next(line for line in report.table([result]).splitlines() if line.startswith("| T1"))
    assert "error" in row and "graph failed" in row
    assert "OperatorNotAllowedInGraphError" in report.details([result])


def test_measure_loops_tiny_calls_many_times_per_round(monkeypatch):
    clock = [0.0]  # a fake clock: each call below takes exactly the time it adds
    monkeypatch.setattr(harness.time, "perf_counter", lambda: clock[0])

    def takes(seconds):
        def call():
            clock[0] += seconds
        return call

    (fast, calls), (slow, slow_calls) = harness.measure(
        [(takes(1e-7), ()), (takes(1e-3), ())], TINY)
    assert calls >= 100 and slow_calls == 1
    assert len(fast) == len(slow) >= TINY.min_rounds
    assert all(abs(t - 1e-7) < 1e-12 for t in fast) and all(abs(t - 1e-3) < 1e-9 for t in slow)


def test_ratios_pair_interleaved_rounds():
    result = _fake_result("W11", graph=2.0, numpy=1.0)
    assert result.ratio("graph", "numpy") == 2.0  # no samples: ratio of medians
    result.columns["graph"].samples_us = [2.0, 40.0, 2.2]  # a burst of load in round 2 ...
    result.columns["numpy"].samples_us = [1.0, 20.0, 1.0]  # ... slowed both columns
    assert result.ratio("graph", "numpy") == 2.0


def _fake_result(key, **medians):
    workload = workloads.by_key([key])[0]
    result = harness.Result(workload, first_call_ms=medians.pop("first_call_ms", 1.0))
    for name, value in medians.items():
        result.columns[name] = harness.Column(name, None, (), median_us=value)
    return result


def test_targets_pass_and_miss_by_their_thresholds():
    met = _fake_result("W1", eager=900.0, graph=150.0, numpy=140.0)
    assert [v["passed"] for v in report.evaluate_targets(met)] == [True, True, True]
    missed = _fake_result("W1", eager=300.0, graph=200.0, numpy=140.0, first_call_ms=9.0)
    assert [v["passed"] for v in report.evaluate_targets(missed)] == [False, False, False]
    w8 = _fake_result("W8", eager=1.0, graph=1500.0, numpy=2000.0, **{"numpy out=": 1400.0})
    assert report.evaluate_targets(w8)[0] == {
        "target": "graph < numpy out=", "measured": "1.071x", "passed": False}


def test_tf_column_falls_back_to_the_anchor_and_says_so():
    result = _fake_result("W4", eager=8.0, graph=2.0, numpy=1.0)
    assert report.tf_graph_us(result) == (181, True)
    assert "181*" in report.table([result]) and report.ANCHOR_NOTE in report.table([result])


def test_cli_runs_every_workload_and_writes_json(tmp_path, capsys):
    status = main(["--quick", "--small", "--budget", "0.005", "--no-external",
                   "--output-dir", str(tmp_path)])
    assert status == 0
    record = json.loads((tmp_path / "latest.json").read_text())
    assert [w["key"] for w in record["workloads"]] == [w.key for w in workloads.WORKLOADS]
    assert all(w["columns"]["numpy"]["median_us"] > 0 for w in record["workloads"])
    assert len(list(tmp_path.glob("bench-*.json"))) == 1
    captured = capsys.readouterr()
    assert "| W1 " in captured.out and "Targets:" in captured.out
    assert "[1/" in captured.err  # progress goes to stderr


def test_unknown_workload_key_is_a_usage_error(capsys):
    assert main(["--only", "W99"]) == 2
    assert "W99" in capsys.readouterr().err


def test_the_executor_table_says_when_numba_is_missing(monkeypatch):
    import importlib.util

    from benchmarks import backends

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "numba" else real(name, *a))
    assert "auto" not in backends._backends() and "numba" not in backends._backends()
    assert "numba is not installed" in backends._missing()[0]
