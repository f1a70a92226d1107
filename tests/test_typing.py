"""The type check (issue 30): mypy, configured in pyproject.toml ([tool.mypy]), finds no error
in the packages, and code written against the public API type-checks with their hints (which
the packages ship: runtime/py.typed, autograph/py.typed).

From a cold cache the check of the packages takes 4-7 s (two cores); the second test reuses its
cache (a fraction of a second)."""

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    """Runs mypy (its API) from the checkout with the project's configuration and a fresh cache
    shared by this module's tests: returns (exit status, report)."""
    api = pytest.importorskip("mypy.api")
    cache = tmp_path_factory.mktemp("mypy_cache")

    def run(*targets):
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(ROOT)  # where `-p runtime` finds the package
            stdout, stderr, status = api.run([
                "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache),
                "--no-error-summary", "--hide-error-context", *targets])
        return status, stdout + stderr

    return run


def _errors(report: str) -> list:
    return [line for line in report.splitlines() if ": error:" in line]


def test_the_packages_type_check(mypy_run):
    status, report = mypy_run("-p", "runtime", "-p", "autograph")
    assert status == 0 and not _errors(report), f"mypy found errors:\n{report}"


# Typical use of the public API; the lines marked `# error` must be (the only) errors: the hints
# are seen (not Any).
USAGE = '''
import numpy as np

import autograph
import runtime as rt


@rt.function
def f(x: rt.Tensor) -> rt.Tensor:
    return x * 2 + 1


@rt.function(jit_compile="numba", reduce_retracing=True, input_signature=[rt.TensorSpec([None])])
def g(x: rt.Tensor) -> rt.Tensor:
    return -x[0] @ x


def use(t: rt.Tensor) -> None:
    x = rt.constant([1.0, 2.0], dtype=rt.float32)
    y = rt.convert_to_tensor(np.ones(2), dtype="float32")
    v = rt.Variable(np.zeros(2), name="v", dtype=np.float32, shape=[None])
    with rt.GradientTape() as tape:
        z = f(x) * y + v
    grads = tape.gradient(z, [x, v])
    d = rt.grad(lambda a: a * a)(x)
    value, dx = rt.value_and_grad(lambda a: a * a, argnums=(0,))(x)
    report = rt.explain(f, x)
    timing = rt.profile(f, x, min_time=0.1)
    rt.saved.save(f, "saved")
    loaded = rt.saved.load("saved")
    print(grads, d, value, dx, report, timing, loaded(x), autograph.to_code(f))
    print(autograph.to_graph(use), t.numpy(), len(t), int(t), float(t), [1, 2][t], round(t))
    for item in t:
        print(item + 1, abs(item), item == 1, item < 2, t.dtype.name, t.shape.rank, t.ndim)
    rank: str = t.ndim  # error
    rt.function(f, on_retrace="never")  # error
'''


def test_code_using_the_public_api_type_checks(mypy_run, tmp_path):
    source = tmp_path / "usage.py"
    source.write_text(USAGE)
    status, report = mypy_run(str(source))
    expected = [n for n, line in enumerate(USAGE.splitlines(), 1) if line.endswith("# error")]
    found = sorted({int(line.split(":")[1]) for line in _errors(report)})
    assert found == expected, f"mypy's errors are not on the lines marked `# error`:\n{report}"
