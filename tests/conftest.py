"""Shared test settings: hypothesis profiles ("ci": the default, bounded; "dev": more examples),
the save -> load round trip of every traced function (tests/saved_round_trip.py), this
checkout first on the path of every Python process a test starts (so a subprocess never imports
another installed copy), and a cache directory of the session's own for native code (never the
user's)."""

import os
import tempfile

import pytest
import saved_round_trip
from hypothesis import HealthCheck, settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)

# (removed at exit; a compile that tiering's thread left running may still be writing there)
_CACHE = tempfile.TemporaryDirectory(prefix="tracegraph-test-cache-", ignore_cleanup_errors=True)
os.environ["TRACEGRAPH_CACHE_DIR"] = _CACHE.name  # subprocesses share it

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _saved_round_trip(monkeypatch, request):
    if os.environ.get("SAVED_ROUND_TRIP", "1") != "0" and "no_round_trip" not in request.keywords:
        saved_round_trip.install(monkeypatch)


def pytest_sessionfinish(session):
    """Waits for tiering's background compiles (they write into the cache directory); a worker
    of pytest-xdist (`-n`) sends its round-trip counts to the controller."""
    from runtime.executor import tiering

    tiering.wait_for_compiles()
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["round_trips"] = dict(saved_round_trip.counts)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller of pytest-xdist adds up its workers' round-trip counts."""
    for key, n in getattr(node, "workeroutput", {}).get("round_trips", {}).items():
        saved_round_trip.counts[key] += n


def pytest_terminal_summary(terminalreporter):
    c = saved_round_trip.counts
    if c["returned"] or c["raised"]:
        terminalreporter.write_line(
            f"save -> load round trips: {c['returned']} calls gave the same values and "
            f"{c['raised']} raised in both; left out: {c['stateful']} stateful, "
            f"{c['not plain data']} with arguments that are not plain data, "
            f"{c['native']} compiled by numba or XLA")
