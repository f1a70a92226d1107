"""jit_compile="numba": graphs compiled by numba give the default executor's results, bit for
bit (dtype and Python type of scalars included); ops without a lowering are located errors."""

import numpy as np
import pytest

import runtime as rt
from benchmarks import workloads
from runtime.executor import numba_backend
from runtime.ops.registry import NUMBA, REGISTRY, apply

numba = pytest.importorskip("numba")

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile


def _same(a, b, ulps=0):
    assert a.dtype is b.dtype and type(a.numpy()) is type(b.numpy())
    if ulps:
        spacing = np.spacing(np.abs(a.numpy()).astype(a.dtype.np_dtype))
        both_nan = np.isnan(a.numpy()) & np.isnan(b.numpy())  # arcsin(2) and its kin
        assert np.all((np.abs(a.numpy() - b.numpy()) <= ulps * spacing) | both_nan)
    else:
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def _both(fn, *args):
    default = rt.function(fn)(*args)
    native = rt.function(fn, jit_compile="numba")(*args)
    for a, b in zip(default if isinstance(default, tuple) else (default,),
                    native if isinstance(native, tuple) else (native,)):
        _same(a, b)
    return native


def test_control_flow_workloads():
    assert float(_both(workloads.newton_sqrt, rt.constant(np.float32(1e6)))) == 1000.0
    assert int(_both(workloads.collatz, rt.constant(27))) == 111
    assert int(_both(workloads.sum_squares, rt.constant(1000))) == 332833500
    _both(workloads.sum_squares, rt.constant(0))  # a loop that never runs


def _samples(dtype, shape):
    rng = np.random.default_rng(7)
    if dtype.is_bool:
        return rng.random(shape) > 0.5
    if dtype.is_integer:
        return rng.integers(1, 9, shape).astype(dtype.np_dtype)
    if dtype.is_complex:
        return (rng.random(shape) * 2 + 0.5 - 1j * rng.random(shape)).astype(dtype.np_dtype)
    return (rng.random(shape) * 2 + 0.5).astype(dtype.np_dtype)


# elementwise ops and reductions (array ops: test_array_workloads_agree_within_the_stated_bits)
LOWERED = sorted(name for name, op in REGISTRY.items() if op.rule(NUMBA) is not None and (
    "elementwise" in op.groups or "reduction" in op.groups))


@pytest.mark.parametrize("name", LOWERED)
def test_every_lowered_op_matches_the_default_executor(name):
    opdef = REGISTRY[name]
    cases = 0
    complex_ = [d for d in (rt.complex64, rt.complex128)
                if opdef.elementwise and d in opdef.elementwise.accepts]
    for dtype in (rt.float32, rt.float64, rt.int32, rt.int64, rt.bool, *complex_):
        for shape in ((), (4,)):
            arity = getattr(opdef.kernel, "nin", None) or {"Select": 3, "ClipByValue": 3}.get(
                name, 1)
            if name in ("Add", "Cast", "Sum", "Mean", "Max", "Min", "Any", "All", "Identity",
                        "StopGradient"):
                arity = 1 if name != "Add" else 2
            values = [rt.constant(_samples(dtype, shape)) for _ in range(arity)]
            if name == "Select":
                values[0] = rt.constant(_samples(rt.bool, shape))
            attrs = {"Cast": {"dtype": rt.float64 if dtype is not rt.float64 else rt.int32},
                     "ZerosLike": {"dtype": rt.float32},
                     **{r: {"axis": None, "keepdims": False}
                        for r in ("Sum", "Mean", "Max", "Min", "Any", "All")}}.get(name, {})

            def fn(*xs, attrs=attrs):
                return apply(opdef, list(xs), attrs)

            try:
                with np.errstate(all="ignore"):
                    want = rt.function(fn, autograph=False)(*values)
            except (TypeError, ValueError):
                continue  # a dtype the op does not take
            try:
                with np.errstate(all="ignore"):
                    got = rt.function(fn, autograph=False, jit_compile="numba")(*values)
            except rt.errors.NoLoweringError as e:  # complex * and /: they round otherwise;
                assert (dtype.is_complex and "complex" in str(e)) or (  # numpy refuses what
                    name == "Pow" and "integer Pow" in str(e))  # numba's int power would give
                continue
            inexact = not numba_backend.exact(opdef) or (
                opdef in numba_backend.FLOAT_SUMS and dtype.is_floating)
            _same(want, got, ulps=4 if inexact else 0)
            cases += 1
    assert cases


def test_an_op_without_a_lowering_is_a_located_error():
    def f(x):
        return rt.softmax(x)  # the softmax line

    with pytest.raises(rt.errors.NoLoweringError, match=r"Softmax(.|\n)*the softmax line"):
        rt.function(f, jit_compile="numba")(rt.constant([[1.0]]))


@pytest.mark.parametrize("key", ["W2", "W3a", "W3b", "W12"])
def test_array_workloads_agree_within_the_stated_bits(key):
    """Matmul (numba's BLAS) and float means (added in float64) may differ in the last bits;
    splits, concatenation, reshapes, transposes and zeros are exact."""
    workload = workloads.by_key([key])[0]
    args = [rt.constant(a) if isinstance(a, (np.ndarray, np.generic)) else a
            for a in workload.make_args(True)]
    default = rt.function(workload.fn)(*args)
    native = rt.function(workload.fn, jit_compile="numba")(*args)
    for a, b in zip(default if isinstance(default, tuple) else (default,),
                    native if isinstance(native, tuple) else (native,)):
        assert a.dtype is b.dtype and type(a.numpy()) is type(b.numpy())
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-6)


def test_shapes_and_layout_ops_are_exact():
    def fn(x, y):
        parts = rt.split(x, [1, 2], axis=1)
        joined = rt.concat([parts[1], parts[0] * 2.0], 1)
        flipped = rt.transpose(rt.reshape(joined, [3, 2]))
        return flipped + y, rt.zeros_like(y) + 1.0

    x = rt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = rt.constant(np.float32([[0.5], [1.5]]))
    for a, b in zip(rt.function(fn)(x, y), rt.function(fn, jit_compile="numba")(x, y)):
        _same(a, b)


def test_stacks_are_exact():
    def fn(x, y, a, b, n):
        return rt.stack([x, y], 1), rt.stack([a, b * 2.0, a]), rt.stack([n, n + 1]), rt.stack(
            [a > b, a < b])

    x, y = (rt.constant(np.arange(3, dtype=np.float32) + k) for k in (0, 5))
    a, b = rt.constant(np.float32(1.5)), rt.constant(np.float32(-2.0))
    n = rt.constant(np.int32(7))
    for want, got in zip(rt.function(fn)(x, y, a, b, n),
                         rt.function(fn, jit_compile="numba")(x, y, a, b, n)):
        _same(want, got)


def test_jit_compile_names_a_known_executor():
    with pytest.raises(ValueError, match="jit_compile must be one of"):
        rt.function(workloads.newton_sqrt, jit_compile="llvm")


def test_without_numba_the_error_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    with pytest.raises(ImportError, match=r"tracegraph\[numba\]"):
        rt.function(workloads.newton_sqrt, jit_compile="numba")(rt.constant(np.float32(4.0)))


def test_basic_indexing_is_exact_and_bounds_checked():
    def fn(x, i, j):
        return (x[1], x[-1, 1:], x[:, ::-1], x[i], x[i, j], x[0:i], x[..., None], x[None, 1],
                x[1, 2] * 2.0)

    x = rt.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    i, j = rt.constant(np.int32(2)), rt.constant(np.int64(-1))
    native = rt.function(fn, jit_compile="numba")
    for want, got in zip(rt.function(fn)(x, i, j), native(x, i, j)):
        _same(want, got)
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds") as info:
        native(x, rt.constant(np.int32(3)), j)  # past the end: an error, as numpy's
    assert "test_numba_backend.py" in str(info.value)
    with pytest.raises(rt.errors.NoLoweringError, match="integer array"):
        rt.function(lambda x, k: x[k], jit_compile="numba")(x, rt.constant([0, 2]))
