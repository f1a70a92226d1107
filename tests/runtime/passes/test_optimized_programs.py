"""Property: random programs give the same bits with and without the optimizing passes.

Programs are random DAGs of elementwise ops over float32 and int32 inputs (scalars and arrays),
with constants (including neutral ones, so the algebraic rewrites fire), `x ** 2` / `** 0.5`,
rt.cond on constant and data-dependent predicates, and rt.while_loop with loop-invariant work.
Each runs compiled with optimize=True and optimize=False, and the optimized and traced graphs
run through the reference interpreter: all four must agree bit for bit. No pass reorders float
math, so no tolerance is needed. Fusion is made to fire on these small arrays (blocks of 3,
shared with the helper thread).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pass_testing import assert_same_bits

import runtime as rt
from runtime.executor.interpreter import run_graph
from runtime.ops import fused_ops
from runtime.passes import fusion

UNARY = {
    "float": {
        "neg": rt.negative, "abs": rt.abs, "tanh": rt.tanh, "sigmoid": rt.sigmoid,
        "exp": rt.exp, "square": rt.square, "relu": rt.relu, "identity": rt.identity,
        "same_cast": lambda v: rt.cast(v, rt.float32), "neg_neg": lambda v: rt.negative(-v),
        "pow2": lambda v: v ** 2, "sqrt_pow": lambda v: rt.abs(v) ** 0.5,
        "pow1": lambda v: v ** 1, "times_one": lambda v: v * 1.0, "minus_zero": lambda v: v - 0.0,
    },
    "int": {
        "neg": rt.negative, "abs": rt.abs, "square": rt.square, "pow2": lambda v: v ** 2,
        "plus_zero": lambda v: 0 + v, "times_one": lambda v: v * 1,
        "neg_neg": lambda v: rt.negative(-v),
    },
}
BINARY = {
    "add": rt.add, "sub": rt.subtract, "mul": rt.multiply, "max": rt.maximum, "min": rt.minimum,
}
FLOAT_BINARY = {**BINARY, "div": rt.divide}
CONSTANTS = {"float": [0.0, -0.0, 1.0, 2.0, 0.5, -1.5, 3.25], "int": [0, 1, 2, -3, 7]}
DTYPES = {"float": rt.float32, "int": rt.int32}

index = st.integers(0, 1 << 10)
family = st.sampled_from(["float", "int"])
instruction = st.one_of(
    st.tuples(st.just("unary"), family, st.integers(0, 20), index),
    st.tuples(st.just("binary"), family, st.integers(0, 20), index, index),
    st.tuples(st.just("const"), family, st.integers(0, 6)),
    st.tuples(st.just("cond"), family, st.booleans(), index, index, st.integers(0, 20),
              st.integers(0, 20)),
    st.tuples(st.just("while"), family, index, index, st.integers(0, 3)),
    st.tuples(st.just("view"), family, st.integers(0, 20), index),
)

# Values that share their input's array (a view, an identity): a later op may not overwrite the
# input's buffer while they live (buffer donation must see them).
VIEWS = {
    "all": lambda v: v[...], "slice": lambda v: v[:] if len(v.shape) else v[...],
    "identity": rt.identity, "reshape": lambda v: rt.reshape(v, list(v.shape)),
    "expand_index": lambda v: rt.expand_dims(v, 0)[0],
}


def _pick(table, i):
    return list(table.values())[i % len(table)]


def _binary(kind, i):
    return _pick(FLOAT_BINARY if kind == "float" else BINARY, i)


def build(program, n_outputs_pick):
    """A function of (float array, float scalar, int array, int scalar) running `program`."""

    def f(xf, sf, xi, si):
        pools = {"float": [xf, sf], "int": [xi, si]}
        for step in program:
            kind, fam = step[0], step[1]
            pool = pools[fam]
            if kind == "unary":
                value = _pick(UNARY[fam], step[2])(pool[step[3] % len(pool)])
            elif kind == "binary":
                a, b = pool[step[3] % len(pool)], pool[step[4] % len(pool)]
                value = _binary(fam, step[2])(a, b)
            elif kind == "const":
                value = rt.constant(CONSTANTS[fam][step[2] % len(CONSTANTS[fam])], DTYPES[fam])
            elif kind == "view":
                value = _pick(VIEWS, step[2])(pool[step[3] % len(pool)])
            elif kind == "cond":
                value = _cond(pools, fam, *step[2:])
            else:
                value = _while(pools, fam, *step[2:])
            pool.append(value)
        picked = pools["float"][n_outputs_pick % len(pools["float"])]
        return pools["float"][-1], pools["int"][-1], picked

    return f


def _cond(pools, fam, constant_pred, i, j, first, second):
    pool = pools[fam]
    a, b = pool[i % len(pool)], pool[j % len(pool)]
    if constant_pred:  # folds to a Const predicate: the dead-branch pass inlines a branch
        pred = rt.greater(rt.constant(float(i % 3)), 1.0)
    else:
        pred = rt.reduce_sum(pools["float"][j % len(pools["float"])]) > 0.0
    return rt.cond(pred, lambda: _binary(fam, first)(a, b), lambda: _binary(fam, second)(b, a))


def _while(pools, fam, i, j, iterations):
    pool = pools[fam]
    start, other = pool[i % len(pool)], pool[j % len(pool)]

    def body(k, v):
        invariant = rt.reduce_max(other)  # the same on every iteration: hoisted
        if fam == "float":
            return k + 1, v * 0.5 + rt.tanh(invariant) * 2.0
        return k + 1, v * 3 + invariant * 2 - 1

    return rt.while_loop(lambda k, v: k < iterations, body, [rt.constant(0), start])[1]


def random_inputs(rng, size) -> list:
    """The arguments of a `build` function: float and int arrays of `size`, and scalars."""
    return [
        rt.constant((rng.standard_normal(size) * 3).astype(np.float32)),
        rt.constant(np.float32(rng.standard_normal() * 3)),
        rt.constant(rng.integers(-50, 50, size).astype(np.int32)),
        rt.constant(np.int32(rng.integers(-50, 50))),
    ]


@pytest.fixture(autouse=True)
def small_fusion(monkeypatch):
    """Fused kernels on these small arrays, in blocks of 3 shared with the helper thread."""
    monkeypatch.setattr(fusion, "MIN_ELEMENTS", 2)
    monkeypatch.setattr(fusion, "BLOCK_ELEMENTS", 3)
    monkeypatch.setattr(fused_ops, "PARALLEL_MIN_ELEMENTS", 2)
    monkeypatch.setattr(fused_ops, "_idle_core", lambda: True)


@given(
    st.lists(instruction, min_size=1, max_size=12),
    st.integers(0, 100),
    st.integers(1, 7),
    st.integers(0, 2**31 - 1),
)
def test_optimized_and_unoptimized_graphs_agree_bit_for_bit(program, pick, size, seed):
    inputs = random_inputs(np.random.default_rng(seed), size)
    fn = build(program, pick)
    optimized = rt.function(fn, autograph=False)
    plain = rt.function(fn, autograph=False, optimize=False)
    values = [t.numpy() for t in inputs]
    with np.errstate(all="ignore"):
        eager = [t.numpy() for t in fn(*inputs)]  # the oracle: the ops run one by one
        want = [t.numpy() for t in plain(*inputs)]
        got = [t.numpy() for t in optimized(*inputs)]
        concrete = optimized.get_concrete_function(*inputs)
        concrete.graph.lint()
        interpreted = run_graph(concrete.graph, values)
        traced = run_graph(concrete.traced_graph, values)
    assert_same_bits(want, eager)
    assert_same_bits(got, want)
    assert_same_bits(interpreted, want)
    assert_same_bits(traced, want)
