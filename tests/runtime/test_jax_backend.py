"""jit_compile="xla": graphs compiled by XLA through JAX give the default executor's results
(integers and bools bit for bit, floats within a few ulp per op, as the module docstring of
runtime/executor/jax_backend.py states), raise where it raises, and refuse what XLA cannot run
with located errors; rt.to_jax runs a graph sharded across two devices."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import runtime as rt
from benchmarks import workloads

jax = pytest.importorskip("jax")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "passes"))
from test_optimized_programs import build, instruction, random_inputs  # noqa: E402

sys.path.pop(0)

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile

FLOAT_RTOL = {np.float32: 2e-5, np.float64: 1e-12}


def _same(native, default):
    assert native.dtype is default.dtype and type(native.numpy()) is type(default.numpy())
    got, want = native.numpy(), default.numpy()
    if native.dtype.is_floating:
        rtol = FLOAT_RTOL[native.dtype.np_dtype.type]
        scale = np.max(np.abs(want[np.isfinite(want)]), initial=1.0)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _flat(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _both(fn, *args):
    default = rt.function(fn)(*args)
    native = rt.function(fn, jit_compile="xla")(*args)
    for a, b in zip(_flat(native), _flat(default)):
        _same(a, b)
    return native


XLA_WORKLOADS = [w for w in workloads.WORKLOADS if w.key not in ("W13", "G5")]  # staged lists


@pytest.mark.parametrize("workload", XLA_WORKLOADS, ids=lambda w: w.key)
def test_benchmark_workloads_agree_with_the_default_executor(workload):
    args = [rt.constant(a) if isinstance(a, (np.ndarray, np.generic)) else a
            for a in workload.make_args(True)]
    _both(workload.fn, *args)


def test_control_flow_gives_the_exact_answers():
    assert float(_both(workloads.newton_sqrt, rt.constant(np.float32(1e6)))) == 1000.0
    assert int(_both(workloads.collatz, rt.constant(27))) == 111
    assert int(_both(workloads.sum_squares, rt.constant(1000))) == 332833500
    _both(workloads.sum_squares, rt.constant(0))  # a loop that never runs


def test_integer_division_by_zero_gives_numpys_zero():
    def fn(a, b):
        return a // b, a % b, a // rt.constant(3)

    with np.errstate(all="ignore"):
        _both(fn, rt.constant(np.int32([7, -7, 5, 0])), rt.constant(np.int32([0, 2, 0, -3])))


def test_an_index_out_of_range_raises_at_the_users_line():
    def fn(x, i):
        return x[i] * 2.0  # the indexing line

    x = rt.constant(np.float32([1.0, 2.0, 3.0]))
    f = rt.function(fn, jit_compile="xla")
    assert float(f(x, rt.constant(2))) == 6.0
    assert float(f(x, rt.constant(-1))) == 6.0  # negative indices as in Python
    for run in (rt.function(fn), f):
        with pytest.raises(rt.errors.InvalidArgumentError, match=r"(.|\n)*the indexing line"):
            run(x, rt.constant(3))


def test_a_failing_assert_raises():
    def fn(x):
        assert x > 0.0, "x must be positive"  # the assert line
        return x * 2.0

    f = rt.function(fn, jit_compile="xla")
    assert float(f(rt.constant(1.5))) == 3.0
    for run in (rt.function(fn), f):
        with pytest.raises(rt.errors.InvalidArgumentError, match=r"(.|\n)*the assert line"):
            run(rt.constant(-1.0))


def test_ops_without_a_lowering_are_located_errors():
    def fn(x):
        return rt.strings.join(["a", rt.strings.format("{}", x)])  # the strings line

    with pytest.raises(rt.errors.NoLoweringError, match=r"no strings(.|\n)*the strings line"):
        rt.function(fn, jit_compile="xla")(rt.constant(1.0))


def test_a_loop_whose_variable_changes_shape_is_a_located_error():
    def fn(x, n):
        for _ in rt.range(n):
            x = rt.concat([x, x], 0)  # the growing line
        return x

    f = rt.function(fn, jit_compile="xla")
    with pytest.raises(rt.errors.NoLoweringError, match=r"keep its shape(.|\n)*for _ in"):
        f(rt.constant([1.0]), rt.constant(2))


def _run_python(tmp_path, code: str, env=None):
    """Runs `code` as a script file (autograph reads its source) in a fresh process."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, **(env or {})})


def test_64_bit_dtypes_run_in_jaxs_64_bit_mode_for_the_call_alone(tmp_path):
    # with JAX's 64-bit mode off, a float64 graph (and a Python int a loop carries: an int64)
    # keeps its dtypes, and the user's own JAX code still computes in 32 bits
    result = _run_python(tmp_path, """
        import numpy as np, runtime as rt, jax, jax.numpy as jnp

        def steps(n):
            count = 0
            while n > 1:
                n = n // 2
                count += 1
            return count

        f = rt.function(lambda x: x * 2.0, jit_compile="xla")
        out = f(rt.constant(np.float64(1.5)))
        print("f:", out.dtype.name, float(out))
        out = rt.function(steps, jit_compile="xla")(rt.constant(np.int32(1024)))
        print("steps:", out.dtype.name, int(out))
        print("jax:", jax.config.jax_enable_x64, jnp.array(1.5).dtype)
        print("to_jax:", end=" ")
        try:
            rt.to_jax(f.get_concrete_function(rt.constant(np.float64(1.5))))
        except rt.errors.NoLoweringError as e:
            print("refused,", "jax_enable_x64" in str(e))
    """)
    assert result.returncode == 0, result.stderr
    assert "f: float64 3.0" in result.stdout and "steps: int64 10" in result.stdout
    assert "jax: False float32" in result.stdout and "to_jax: refused, True" in result.stdout


def test_a_batch_split_across_two_devices_gives_the_one_device_results(tmp_path):
    result = _run_python(tmp_path, """
        import numpy as np, jax, runtime as rt
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

        @rt.function
        def step(x, w):
            h = rt.tanh(rt.matmul(x, w))
            y = h * 0.5 + 1.0
            while rt.reduce_max(rt.abs(y * y - h - 2.0)) > 1e-4:  # Newton, over the batch
                y = (y + (h + 2.0) / y) / 2.0
            return rt.reduce_sum(y, axis=1)

        rng = np.random.default_rng(0)
        x = rng.standard_normal((8, 4)).astype(np.float32)
        w = rng.standard_normal((4, 3)).astype(np.float32)
        want = step(rt.constant(x), rt.constant(w)).numpy()
        fn = rt.to_jax(step.get_concrete_function(rt.constant(x), rt.constant(w)))
        assert len(jax.devices()) == 2, jax.devices()
        mesh = Mesh(np.array(jax.devices()), ("batch",))
        xs = jax.device_put(x, NamedSharding(mesh, P("batch", None)))
        ws = jax.device_put(w, NamedSharding(mesh, P()))
        (out,) = jax.jit(fn)(xs, ws)
        shards = {s.device for s in out.addressable_shards}
        print("devices", len(shards), "shard rows", out.addressable_shards[0].data.shape[0])
        one = jax.jit(fn)(jax.device_put(x, jax.devices()[0]), jax.device_put(w, jax.devices()[0]))
        np.testing.assert_allclose(np.asarray(out), np.asarray(one[0]), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(out), want, rtol=1e-5)
        print("same results")
    """, env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"})
    assert result.returncode == 0, result.stderr
    assert "devices 2 shard rows 4" in result.stdout and "same results" in result.stdout


# ---- random programs (the optimizing passes' property test, run on XLA) -------------------------

@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_programs_agree_with_the_default_executor(data):
    program = data.draw(st.lists(instruction, min_size=1, max_size=12))
    pick, size = data.draw(st.integers(0, 100)), data.draw(st.integers(1, 7))
    inputs = random_inputs(np.random.default_rng(data.draw(st.integers(0, 2**31 - 1))), size)
    fn = build(program, pick)
    with np.errstate(all="ignore"):
        want = rt.function(fn, autograph=False)(*inputs)
        got = rt.function(fn, autograph=False, jit_compile="xla")(*inputs)
    for a, b in zip(got, want):
        _same(a, b)


def test_without_jax_the_error_names_the_extra(monkeypatch):
    from runtime.executor import jax_backend

    monkeypatch.setattr(jax_backend, "_jax", None)
    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` raises ImportError
    with pytest.raises(ImportError, match=r"tracegraph\[jax\]"):
        rt.function(workloads.newton_sqrt, jit_compile="xla")(rt.constant(np.float32(4.0)))


def test_variables_are_read_on_every_call_and_updates_are_refused():
    v = rt.Variable(np.ones(3, np.float32))
    f = rt.function(lambda x: x * v + rt.reduce_sum(v), jit_compile="xla")
    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(f(x).numpy(), x + 3)
    v.assign([2.0, 2.0, 2.0])
    np.testing.assert_array_equal(f(x).numpy(), 2 * x + 6)  # not the value of the first call
    with pytest.raises(rt.errors.NoLoweringError, match="cannot update a variable") as e:
        rt.function(lambda x: v.assign_add(x), jit_compile="xla")(x)
    assert "test_jax_backend.py" in str(e.value)
    concrete = rt.function(lambda x: x * v).get_concrete_function(x)
    with pytest.raises(rt.errors.NoLoweringError, match="pass its value as an argument"):
        rt.to_jax(concrete)(x)
