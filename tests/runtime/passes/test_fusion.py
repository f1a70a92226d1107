import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pass_testing import apply_pass, op_types, run

import runtime as rt
from runtime.ops import fused_ops
from runtime.passes import fusion


def w8(x):
    return rt.tanh(1.5 * x + 0.25) * rt.sigmoid(x) - 0.5 * x


def fuse_small_arrays(patch):
    """Fusion of small arrays, shared with the helper thread in blocks of 3 elements, so tests
    exercise blocks, tails and threads."""
    patch.setattr(fusion, "MIN_ELEMENTS", 2)
    patch.setattr(fused_ops, "MIN_ELEMENTS", 2)
    patch.setattr(fusion, "BLOCK_ELEMENTS", 3)
    patch.setattr(fused_ops, "PARALLEL_MIN_ELEMENTS", 2)
    patch.setattr(fused_ops, "_idle_core", lambda: True)


@pytest.fixture
def small_fusion(monkeypatch):
    fuse_small_arrays(monkeypatch)


def test_w8_becomes_one_kernel_on_big_arrays():
    x = np.linspace(-4, 4, 1 << 16, dtype=np.float32)
    graph = apply_pass(fusion.transform, w8, x)
    assert op_types(graph) == ["Const", "Const", "Const", "FusedElementwise"]


def test_scalars_and_small_arrays_stay_unfused():
    for x in (np.float32(0.5), np.ones(10, np.float32)):
        assert "FusedElementwise" not in op_types(apply_pass(fusion.transform, w8, x))


@given(st.integers(1, 40), st.integers(0, 2**20))
def test_blocks_and_tails_are_bit_identical(size, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(size) * 10).astype(np.float32)
    with pytest.MonkeyPatch.context() as patch:
        fuse_small_arrays(patch)
        graph = apply_pass(fusion.transform, w8, x)  # compares with the unfused graph
    assert ("FusedElementwise" in op_types(graph)) == (size >= 2)


def test_values_read_elsewhere_become_outputs(small_fusion):
    def f(x, y):
        d = x - y
        e = d * 2.0
        sq = e * e
        return rt.reduce_sum(sq), sq + 1.0, d

    x, y = np.arange(7, dtype=np.float32), np.ones(7, np.float32)
    graph = apply_pass(fusion.transform, f, x, y)
    fused = [op for op in graph.operations if op.type == "FusedElementwise"]
    assert len(fused) == 1  # the reduction reads `sq`: the group closes there
    assert len(fused[0].outputs) == 2  # d (returned) and sq (read by Sum and the Add)
    assert "Add" in op_types(graph)  # alone after the group closed: not worth a kernel


def test_mixed_dtypes_and_comparisons(small_fusion):
    def f(x, n):
        m = rt.cast(n, rt.float32) * x
        return rt.logical_and(m > 1.0, rt.relu(m) < 5.0), (n * 2 + 1) // 3

    x = np.linspace(-2, 3, 11, dtype=np.float32)
    n = np.arange(11, dtype=np.int32)
    graph = apply_pass(fusion.transform, f, x, n)
    assert op_types(graph).count("FusedElementwise") == 2


def test_parallel_blocks_are_bit_identical(small_fusion):
    x = np.linspace(-4, 4, 1001, dtype=np.float32)
    graph = apply_pass(fusion.transform, w8, x)
    assert "FusedElementwise" in op_types(graph)
    for _ in range(20):
        assert run(graph, x)[0].tobytes() == run(graph, x)[0].tobytes()


def test_fused_kernel_source_reuses_buffers_in_place():
    x = np.linspace(-4, 4, 1 << 16, dtype=np.float32)
    graph = apply_pass(fusion.transform, w8, x)
    op = next(op for op in graph.operations if op.type == "FusedElementwise")
    attrs = {k: v for k, v in op.attrs.items() if k != "specs"}
    source = fused_ops.program_source(**attrs)
    assert source.count(" = np.empty(") == 2  # 10 steps: the output and one scratch buffer
    assert "tanh(o0_, out=o0_)" in source  # intermediates live in the output block, in place


def _chain_of_one(x, s):
    d = x - s
    return rt.tanh(d * 1.5) + d, d * d


def _chain_of_two(x, y):
    d = x - y
    return rt.tanh(d * 1.5) + d, d * d


@pytest.mark.parametrize("small", [False, True])
def test_a_graph_of_unknown_length_keeps_its_fusion(small, monkeypatch):
    # A graph relaxed to any length (an input_signature of None dims, or the third shape it
    # was called with) fuses a chain that reads one array (and scalars) as a static one does;
    # the kernel reads the length when it runs and runs the steps unfused for small arrays:
    # the same bits as the unfused ops.
    if small:
        fuse_small_arrays(monkeypatch)
    spec, scalar = rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.float32)
    f = rt.function(_chain_of_one, input_signature=[spec, scalar])
    plain = rt.function(_chain_of_one, input_signature=[spec, scalar], optimize=False)
    rng = np.random.default_rng(3)
    for n in (0, 1, 5, 1 << 15, 40_001):
        x = (rng.standard_normal(n) * 4).astype(np.float32)
        for got, want in zip(f(x, np.float32(0.5)), plain(x, np.float32(0.5))):
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert "FusedElementwise" in [op.type for op in f.get_concrete_function().graph.operations]


def test_a_chain_of_unknown_length_reading_two_arrays_stays_unfused():
    # Two arrays of unknown length may not broadcast when the graph runs: the unfused ops
    # raise at their own line (`d = x - y`), before the ops after them run.
    spec = rt.TensorSpec([None], rt.float32)
    f = rt.function(_chain_of_two, input_signature=[spec, spec])
    assert "FusedElementwise" not in [op.type for op in f.get_concrete_function().graph.operations]
    x = np.arange(40_001, dtype=np.float32)
    for got, want in zip(f(x, x[::-1].copy()), _chain_of_two(x, x[::-1])):
        np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(rt.errors.InvalidArgumentError, match="d = x - y"):
        f(np.ones(3, np.float32), np.ones(4, np.float32))


# ---- a chain feeding a sum or mean: FusedReduction ---------------------------------------
def mse(x, y):
    d = x - y  # (`** 2` is a Square after the power pass, which these tests do not run)
    return rt.reduce_mean(d * d)


def norm_and_sum(x):
    return rt.sqrt(rt.reduce_sum(rt.tanh(x) * x)), rt.reduce_sum(x + 1.0)


def leaves_of_128(patch):
    """Small arrays fused, summed in leaves of numpy's smallest part, two threads."""
    fuse_small_arrays(patch)
    patch.setattr(fused_ops, "LEAF_ELEMENTS", 128)


def test_mse_becomes_one_kernel_that_makes_no_array():
    x = np.linspace(-4, 4, 1 << 16, dtype=np.float32)
    graph = apply_pass(fusion.transform, mse, x, x[::-1].copy())  # (the same bits: checked)
    assert op_types(graph) == ["FusedReduction"]


@given(st.integers(1, 3000), st.integers(0, 2**20), st.sampled_from([np.float32, np.float64]))
def test_sums_and_means_are_numpys_bits(size, seed, dtype):
    rng = np.random.default_rng(seed)
    x, y = (rng.standard_normal((2, size)) * 10).astype(dtype)
    with pytest.MonkeyPatch.context() as patch:
        leaves_of_128(patch)
        for fn, args in ((mse, (x, y)), (norm_and_sum, (x,))):
            graph = apply_pass(fusion.transform, fn, *args)  # compares with the unfused graph
            assert ("FusedReduction" in op_types(graph)) == (size >= 2)


def test_the_leaves_follow_numpys_pairwise_split():
    ranges, tree = fused_ops.pairwise_leaves(1000, 128)
    assert ranges[0] == (0, 120) and ranges[-1][1] == 1000  # 1000 -> 496 + 504 -> 248 ...
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    parts = [np.add.reduce(x[lo:hi]) for lo, hi in ranges]
    assert fused_ops.tree_sum(tree, parts).tobytes() == np.sum(x).tobytes()


@pytest.mark.parametrize("shape", [(40, 30), (30, 40)])
def test_matrices_and_views_reduce_as_numpy_does(shape, small_fusion):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    f, plain = rt.function(mse), rt.function(mse, optimize=False)
    for args in ((x, x * 0.5), (x.T, x.T * 0.5), (x[:, ::2], x[:, 1::2])):  # views: numpy sums
        got, want = f(*args).numpy(), plain(*args).numpy()  # in their memory order
        d = args[0] - args[1]
        assert got.tobytes() == want.tobytes() == np.mean(d * d).tobytes()


def test_a_reduction_of_unknown_length_keeps_its_fusion(monkeypatch):
    leaves_of_128(monkeypatch)
    spec = rt.TensorSpec([None], rt.float32)
    f = rt.function(norm_and_sum, input_signature=[spec])
    plain = rt.function(norm_and_sum, input_signature=[spec], optimize=False)
    assert "FusedReduction" in [op.type for op in f.get_concrete_function().graph.operations]
    rng = np.random.default_rng(2)
    for n in (0, 1, 5, 127, 128, 129, 5000):
        x = rng.standard_normal(n).astype(np.float32)
        for got, want in zip(f(x), plain(x)):
            assert got.numpy().tobytes() == want.numpy().tobytes()


def test_a_value_read_elsewhere_keeps_the_reduction_out(small_fusion):
    def f(x):
        sq = x * x + 1.0
        return rt.reduce_mean(sq), sq

    graph = apply_pass(fusion.transform, f, np.arange(9, dtype=np.float32))
    assert "FusedReduction" not in op_types(graph) and "Mean" in op_types(graph)
