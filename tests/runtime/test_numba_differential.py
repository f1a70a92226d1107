"""Random elementwise programs on numba against the default executor and plain numpy.

numba writes an elementwise op read once into its reader's expression, outlines long
reductions into helpers and lowers integer sums over an axis (runtime/executor/numba_backend.py,
numba_reductions.py): each is a place where numba's arithmetic could differ from numpy's
(inside one expression numba computes integers narrower than int64 in int64, so a uint8 chain
written into its reader did not wrap until 5ad7503). These programs chain such ops over arrays
of every integer and float dtype (int8 ... int64, uint8, float32, float64), with narrow
integers fed to `//`, `%`, bitwise ops, comparisons, `np.maximum` / `np.minimum`, `np.where` and
reductions, over lengths on both sides of numba_backend.OUTLINED_SIZE. Each program runs as plain
numpy (the oracle), as a graph on the default executor and on `jit_compile="numba"`; the
graphs must give numpy's dtype, and numba numpy's bits wherever
`numba_exactness.why_not_lowered_exactly` finds nothing (else numpy's values to float
tolerance). NUMBA_FUZZ_PROGRAMS=N runs N programs (the suite runs 32); NUMBA_FUZZ_SEED picks
the first seed.
"""

import os
import random
import tempfile

import numpy as np
import pytest

import runtime as rt
from runtime.executor import numba_exactness
from tests.runtime.module_files import import_source

numba = pytest.importorskip("numba")

pytestmark = pytest.mark.no_round_trip  # saving is the same with or without jit_compile

PROGRAMS = int(os.environ.get("NUMBA_FUZZ_PROGRAMS", 32))
FIRST_SEED = int(os.environ.get("NUMBA_FUZZ_SEED", 0))
# (narrow integers twice as often: where numba's arithmetic and numpy's part most)
DTYPES = ("int8", "uint8", "int16", "int32") * 2 + ("int64", "float32", "float64")
LENGTHS = (1, 3, 17, 1023, 1024, 2000)  # (numba_backend.OUTLINED_SIZE is 1,024)
_DIRECTORY = tempfile.TemporaryDirectory(prefix="numba_differential_")


class _Writer:
    """Writes one program: straight-line numpy code over `a` and `b` (one dtype), each line an
    elementwise op of earlier names, the last a reduction or the array itself."""

    def __init__(self, rng: random.Random, dtype: str):
        self.rng, self.dtype = rng, dtype
        self.integer = not dtype.startswith("float")
        self.arrays = ["a", "b"]  # names of arrays of `dtype`
        self.masks = []  # names of bool arrays
        self.lines = []

    def operand(self) -> str:
        if self.rng.random() < 0.35:
            return str(self.rng.randint(0, 5))  # a Python int: it takes the array's dtype
        return self.rng.choice(self.arrays)

    def array_op(self) -> str:
        # (mostly a chain: the last value read once by the next op, which numba inlines)
        x, y = self.arrays[-1] if self.rng.random() < 0.7 else self.operand(), self.operand()
        if self.rng.random() < 0.5:
            x, y = y, x
        if x.isdigit() and y.isdigit():
            x = self.rng.choice(self.arrays)
        kinds = ["+", "-", "*", "max", "min", "where", "abs", "neg", "//", "%"]
        if self.integer:
            kinds += ["&", "|", "^"]  # (numba refuses shifts: numpy's past the width differ)
        kind = self.rng.choice(kinds)
        if kind in ("+", "-", "*", "&", "|", "^"):
            return f"{x} {kind} {y}"
        if kind in ("max", "min"):
            return f"np.{'maximum' if kind == 'max' else 'minimum'}({x}, {y})"
        if kind == "where" and self.masks:
            return f"np.where({self.rng.choice(self.masks)}, {x}, {y})"
        if kind in ("abs", "where"):
            return f"np.abs({self.arrays[-1]})"
        if kind == "neg":
            return f"-{self.arrays[-1]}"
        # (`//` and `%`: a divisor of at least 1, no division by zero)
        return f"{self.arrays[-1]} {kind} np.maximum({self.rng.choice(self.arrays)}, 1)"

    def mask_op(self) -> str:
        x, y = self.arrays[-1], self.operand()
        if self.masks and self.rng.random() < 0.3:
            return f"{self.rng.choice(self.masks)} {self.rng.choice('&|')} ({x} > {y})"
        return f"{x} {self.rng.choice(['<', '<=', '>', '>=', '==', '!='])} {y}"

    def write(self) -> str:
        for i in range(self.rng.randint(2, 6)):
            if self.rng.random() < 0.25:
                name = f"m{i}"
                self.lines.append(f"{name} = {self.mask_op()}")
                self.masks.append(name)
            else:
                name = f"t{i}"
                self.lines.append(f"{name} = {self.array_op()}")
                self.arrays.append(name)
        last = self.arrays[-1]
        ending = self.rng.choice(["array", "sum", "max", "min", "count", "axis"])
        wide = ", dtype=np.int64" if self.dtype.startswith("u") else ""  # (rt has no uint64)
        result = {"array": last, "sum": f"np.sum({last}{wide})", "max": f"np.max({last})",
                  "min": f"np.min({last})", "count": f"np.sum({last} > 2)",
                  "axis": f"np.sum({last}.reshape(-1, 1), axis=0{wide})"}[ending]
        body = "".join(f"    {line}\n" for line in self.lines)
        return ("import numpy as np\n\n\n"
                f"def program(a, b):\n{body}    return {result}\n")


def _arguments(rng: np.random.Generator, dtype: str, length: int):
    if dtype.startswith("float"):
        return [rng.uniform(-50, 50, length).astype(dtype) for _ in range(2)]
    info = np.iinfo(dtype)
    low, high = (info.min, info.max) if info.bits < 64 else (-2**40, 2**40)
    return [rng.integers(low, high, length, dtype=dtype, endpoint=True) for _ in range(2)]


def _program(seed: int):
    rng = random.Random(seed)
    dtype = rng.choice(DTYPES)
    source = _Writer(rng, dtype).write()
    module = import_source(os.path.join(_DIRECTORY.name, f"numba_program_{seed}.py"), source)
    length = rng.choice(LENGTHS)
    return source, module.program, _arguments(np.random.default_rng(seed), dtype, length)


def _value(result):
    return np.asarray(result.numpy() if hasattr(result, "numpy") else result)


@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + PROGRAMS))
def test_numba_computes_random_elementwise_programs_as_numpy(seed):
    source, program, args = _program(seed)
    with np.errstate(all="ignore"):
        expected = np.asarray(program(*args))
    default = rt.function(program)
    native = rt.function(program, jit_compile="numba")
    tensors = [rt.constant(a) for a in args]
    got, on_numba = _value(default(*tensors)), _value(native(*tensors))
    where = f"seed {seed}, {args[0].dtype}[{args[0].size}]:\n{source}"
    assert got.dtype == expected.dtype and np.array_equal(got, expected), where
    assert on_numba.dtype == expected.dtype, where
    graph = default.get_concrete_function(*tensors).graph
    if numba_exactness.why_not_lowered_exactly(graph) is None:
        assert np.array_equal(on_numba, expected), where
    else:  # (a float sum adds in another order)
        np.testing.assert_allclose(on_numba, expected, rtol=1e-5,
                                   atol=1e-5 * float(np.max(np.abs(args[0]))), err_msg=where)
