"""The benchmark workloads: W1-W8 of `../shared/ANCHORS.md` (same math, same sizes) plus W9-W12.

Each workload is one ordinary Python function over `rt` tensors, written the way a user would
(`if` / `while` / `for` over tensors included): run as is it is "our eager"; wrapped in
`rt.function` it is "our graph" (autograph converts its control flow). Next to it sits the same
math written by hand in numpy, and sometimes numpy variants (W8 with in-place `out=` buffers;
W6 / W7 on Python ints), which are the limits a numpy-backed executor can reach.

`make_args(small)` builds the inputs as numpy values (Python values stay Python); `small=True`
gives tiny sizes for the smoke test. Notes on matching TensorFlow's semantics:

- W3a: `reduce_mean` of int32 stays int32 (like TensorFlow), so the numpy version casts back.
- W5: with float32 and a = 1e6, Newton's iteration reaches exactly 1000.0 (1000**2 = 1e6 is
  representable), so `abs(y*y - a) >= 1e-6` does terminate, after 14 iterations from y = a,
  the count ANCHORS.md gives for TensorFlow.
- W6 / W7: loops run over tensors (`for i in rt.range(n)`, `while n != 1` with an int32 `n`),
  as a TensorFlow user writes them; their Python-int variants are the pure-Python floor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import runtime as rt

_SEED = 20261121


@dataclass(frozen=True)
class Target:
    """A goal from the issue. `kind` is one of: "vs_numpy" (graph <= value x numpy), "max_us"
    (graph <= value µs), "vs_variant" (graph below the named numpy variant), "speedup" (eager /
    graph >= value)."""

    kind: str
    value: float | str

    @property
    def label(self) -> str:
        if self.kind == "vs_numpy":
            return f"graph <= {self.value}x numpy"
        if self.kind == "max_us":
            return f"graph <= {self.value} us"
        if self.kind == "vs_variant":
            return f"graph < {self.value}"
        return f"graph >= {self.value}x eager"


@dataclass(frozen=True)
class Anchor:
    """Reference timings (µs) from ANCHORS.md, measured with TensorFlow 2.21 / JAX 0.10.2."""

    numpy: float
    tf_eager: float
    tf_graph: float
    jax_jit: float


@dataclass(frozen=True)
class Workload:
    """One benchmark: the user's function over rt tensors and its hand-written numpy twin.

    `variants` maps a column name to a factory: given the numpy arguments it returns a function
    taking the same arguments (so it can allocate buffers once, outside the timed calls).
    """

    key: str
    short: str
    title: str
    fn: Callable
    numpy_fn: Callable
    make_args: Callable[[bool], tuple]
    variants: dict = field(default_factory=dict)
    targets: tuple = ()
    anchor: Anchor | None = None


def _rng():
    return np.random.default_rng(_SEED)


# ---- W1 power: 100 matmuls of a 10x10 int32, the Python-int loop unrolled by tracing ----------

def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


def power_numpy(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = x @ result
    return result


def _power_args(small):
    x = _rng().integers(-1, 2, size=(10, 10), dtype=np.int32)
    return x, 5 if small else 100


# ---- W2 LSTM cell step, hand-written ---------------------------------------------------------

def lstm_cell(x, h, c, kernel, recurrent_kernel, bias):
    z = rt.matmul(x, kernel) + rt.matmul(h, recurrent_kernel) + bias
    i, f, g, o = rt.split(z, 4, axis=1)
    c = rt.sigmoid(f) * c + rt.sigmoid(i) * rt.tanh(g)
    h = rt.sigmoid(o) * rt.tanh(c)
    return h, c


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_cell_numpy(x, h, c, kernel, recurrent_kernel, bias):
    z = x @ kernel + h @ recurrent_kernel + bias
    i, f, g, o = np.split(z, 4, axis=1)
    c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    h = _sigmoid(o) * np.tanh(c)
    return h, c


def _lstm_args(small):
    rng = _rng()
    batch, units = (2, 3) if small else (10, 10)

    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    return (normal(batch, 10), normal(batch, units), normal(batch, units),
            normal(10, 4 * units), normal(units, 4 * units), normal(4 * units))


# ---- W3 mean squared error -------------------------------------------------------------------

def mse(y_true, y_pred):
    return rt.reduce_mean((y_true - y_pred) ** 2)


def mse_numpy(y_true, y_pred):
    return np.mean((y_true - y_pred) ** 2).astype(y_true.dtype)


def _mse_int_args(small):
    rng = _rng()
    return (rng.integers(0, 10, size=5, dtype=np.int32),
            rng.integers(0, 10, size=5, dtype=np.int32))


def _mse_float_args(small):
    rng = _rng()
    n = 1000 if small else 1_000_000
    return rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)


# ---- W4 simple_relu --------------------------------------------------------------------------

def simple_relu(x):
    if x > 0:
        return x
    else:
        return 0


def simple_relu_numpy(x):
    return x if x > 0 else 0


def _relu_args(small):
    return (np.int32(3),)


# ---- W5 Newton's square root -----------------------------------------------------------------

def newton_sqrt(a):
    y = a
    while abs(y * y - a) >= 1e-6:
        y = (y + a / y) / 2
    return y


def _newton_args(small):
    return (np.float32(1e6),)


# ---- W6 sum of squares over a tensor range ---------------------------------------------------

def sum_squares(n):
    s = 0
    for i in rt.range(n):
        s += i * i
    return s


def sum_squares_numpy(n):
    s = np.int32(0)
    for i in np.arange(n, dtype=np.int32):
        s += i * i
    return s


def sum_squares_python(n):
    s = 0
    for i in range(int(n)):
        s += i * i
    return s


def _sum_squares_args(small):
    return (np.int32(10 if small else 1000),)


# ---- W7 Collatz steps ------------------------------------------------------------------------

def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_python(n):
    return collatz(int(n))


def _collatz_args(small):
    return (np.int32(6 if small else 27),)


# ---- W8 an elementwise chain on a big array --------------------------------------------------

def gated_activation(x):
    return rt.tanh(1.5 * x + 0.25) * rt.sigmoid(x) - 0.5 * x


def gated_activation_numpy(x):
    return np.tanh(1.5 * x + 0.25) * _sigmoid(x) - 0.5 * x


def gated_activation_numpy_out(x):
    """The same chain with two preallocated buffers and in-place `out=` ufuncs."""
    a, b = np.empty_like(x), np.empty_like(x)
    one = x.dtype.type(1)

    def run(x):
        np.multiply(x, x.dtype.type(1.5), out=a)
        np.add(a, x.dtype.type(0.25), out=a)
        np.tanh(a, out=a)
        np.negative(x, out=b)
        np.exp(b, out=b)
        np.add(b, one, out=b)
        np.divide(one, b, out=b)
        np.multiply(a, b, out=a)
        np.multiply(x, x.dtype.type(0.5), out=b)
        return np.subtract(a, b, out=a)

    return run


def _gated_args(small):
    return (_rng().standard_normal(1000 if small else 1_000_000).astype(np.float32),)


# ---- W9 (ours) a two-layer MLP with softmax --------------------------------------------------

def mlp(x, w1, b1, w2, b2):
    hidden = rt.relu(rt.matmul(x, w1) + b1)
    return rt.softmax(rt.matmul(hidden, w2) + b2)


def mlp_numpy(x, w1, b1, w2, b2):
    hidden = np.maximum(x @ w1 + b1, 0)
    logits = hidden @ w2 + b2
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _mlp_args(small):
    rng = _rng()
    batch, n_in, n_hidden = (4, 8, 6) if small else (64, 256, 128)

    def normal(*shape):
        return (rng.standard_normal(shape) * 0.1).astype(np.float32)

    return normal(batch, n_in), normal(n_in, n_hidden), normal(n_hidden), normal(n_hidden, 10), \
        normal(10)


# ---- W10 (ours) an RNN unrolled by a loop over a tensor range --------------------------------

def rnn(xs, w, u, b):
    h = rt.zeros((xs.shape[1], u.shape[0]))
    for t in rt.range(rt.shape(xs)[0]):
        h = rt.tanh(rt.matmul(xs[t], w) + rt.matmul(h, u) + b)
    return h


def rnn_numpy(xs, w, u, b):
    h = np.zeros((xs.shape[1], u.shape[0]), np.float32)
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ w + h @ u + b)
    return h


def _rnn_args(small):
    rng = _rng()
    steps, batch, n_in, units = (3, 2, 4, 5) if small else (50, 16, 32, 32)

    def normal(*shape):
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    return normal(steps, batch, n_in), normal(n_in, units), normal(units, units), normal(units)


# ---- W11 (ours) call overhead: x + 1 on a scalar ---------------------------------------------

def add_one(x):
    return x + 1


def _add_one_args(small):
    return (np.float32(2.5),)


_MATCH_NUMPY = Target("vs_numpy", 1.1)
_BEAT_EAGER = Target("speedup", 3)

# ---- W12 the converter's reference function (issue 3: first call <= 5 ms) --------------------

def two_loops_and_an_if(x, n):
    """About 20 lines with two loops and an `if`: the function issue 3 times the first call of."""
    total = rt.zeros_like(x)
    count = 0
    for i in rt.range(n):
        if i % 2 == 0:
            total = total + x * rt.cast(i, rt.float32)
        else:
            total = total - x
        count += 1
    j = 0
    while j < n:
        total = total * 0.5
        if rt.reduce_sum(total) > 100.0:
            break
        j += 1
    return total, count, j


def two_loops_and_an_if_numpy(x, n):
    total = np.zeros_like(x)
    count = np.int64(0)  # a Python int's stand-in in the graph
    for i in np.arange(n, dtype=np.int32):
        if i % 2 == 0:
            total = total + x * np.float32(i)
        else:
            total = total - x
        count += 1
    j = np.int64(0)
    while j < n:
        total = total * np.float32(0.5)
        if np.sum(total) > 100.0:
            break
        j += 1
    return total, count, j


def _two_loops_args(small):
    return np.array([1.0, 2.0, 3.0], np.float32), np.int32(20)


def appends(n, x):
    out = []
    for i in rt.range(n):
        out.append(x * rt.cast(i, rt.float32))
    return rt.stack(out)


def appends_numpy(n, x):
    out = []
    for i in range(int(n)):
        out.append(x * np.float32(i))
    return np.stack(out)


APPENDS = 10_000


def _appends_args(small):
    return np.int32(10 if small else APPENDS), np.float32([0.5, 2.0])


# ---- G2 / G5 / G9: value and gradient (a tape; the numpy twins are gradients by hand) ----------

def lstm_value_and_grad(x, h, c, kernel, recurrent_kernel, bias):
    with rt.GradientTape() as tape:
        tape.watch([kernel, recurrent_kernel, bias])
        h2, c2 = lstm_cell(x, h, c, kernel, recurrent_kernel, bias)
        loss = rt.reduce_sum(h2 * h2) + rt.reduce_sum(c2)
    return (loss, *tape.gradient(loss, [kernel, recurrent_kernel, bias]))


def lstm_value_and_grad_numpy(x, h, c, kernel, recurrent_kernel, bias):
    z = x @ kernel + h @ recurrent_kernel + bias
    i, f, g, o = np.split(z, 4, axis=1)
    si, sf, tg, so = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
    c2 = sf * c + si * tg
    tc = np.tanh(c2)
    h2 = so * tc
    loss = np.sum(h2 * h2) + np.sum(c2)
    dh2 = 2 * h2
    dc2 = 1 + dh2 * so * (1 - tc * tc)
    dz = np.concatenate([dc2 * tg * si * (1 - si), dc2 * c * sf * (1 - sf),
                         dc2 * si * (1 - tg * tg), dh2 * tc * so * (1 - so)], axis=1)
    return loss, x.T @ dz, h.T @ dz, dz.sum(axis=0)


def newton_sqrt_and_grad(a):
    with rt.GradientTape() as tape:
        tape.watch(a)
        y = newton_sqrt(a)
    return y, tape.gradient(y, a)


def newton_sqrt_and_grad_numpy(a):
    y = newton_sqrt(a)
    return y, np.float32(0.5) / y  # d sqrt(a) / da, the limit of the loop's derivative


def mlp_value_and_grad(x, w1, b1, w2, b2, y):
    with rt.GradientTape() as tape:
        tape.watch([w1, b1, w2, b2])
        loss = rt.reduce_sum(mlp(x, w1, b1, w2, b2) * y)
    return (loss, *tape.gradient(loss, [w1, b1, w2, b2]))


def mlp_value_and_grad_numpy(x, w1, b1, w2, b2, y):
    pre = x @ w1 + b1
    hidden = np.maximum(pre, 0)
    logits = hidden @ w2 + b2
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    dlogits = p * (y - np.sum(y * p, axis=-1, keepdims=True))
    dpre = (dlogits @ w2.T) * (pre > 0)
    return (np.sum(p * y), x.T @ dpre, dpre.sum(axis=0), hidden.T @ dlogits,
            dlogits.sum(axis=0))


def _mlp_grad_args(small):
    args = _mlp_args(small)
    return (*args, _rng().uniform(0, 1, (args[0].shape[0], 10)).astype(np.float32))


WORKLOADS = (
    Workload("W1", "power",
             "power: 100 matmuls of a 10x10 int32 (Python-int loop, unrolled)",
             power, power_numpy, _power_args,
             targets=(_MATCH_NUMPY, _BEAT_EAGER), anchor=Anchor(184, 2847, 509, 139)),
    Workload("W2", "LSTM cell",
             "LSTM cell step, hand-written (10x10 input, 10x40 weights)",
             lstm_cell, lstm_cell_numpy, _lstm_args,
             targets=(_MATCH_NUMPY,), anchor=Anchor(28.7, 293, 449, 42.5)),
    Workload("W3a", "MSE int32[5]",
             "mean squared error, int32[5]", mse, mse_numpy, _mse_int_args,
             targets=(Target("max_us", 10),), anchor=Anchor(5.6, 71, 309, 8.9)),
    Workload("W3b", "MSE float32[1e6]",
             "mean squared error, float32[1e6]", mse, mse_numpy, _mse_float_args,
             targets=(Target("vs_numpy", 1.0),), anchor=Anchor(489, 9036, 964, 176)),
    Workload("W4", "simple_relu",
             "scalar `if x > 0: return x else: return 0`",
             simple_relu, simple_relu_numpy, _relu_args,
             targets=(Target("max_us", 3),), anchor=Anchor(0.91, 8.2, 181, 8.3)),
    Workload("W5", "Newton sqrt",
             "Newton sqrt `while abs(y*y-a) >= 1e-6`, a = 1e6 float32 (14 iterations)",
             newton_sqrt, newton_sqrt, _newton_args,
             targets=(_MATCH_NUMPY, _BEAT_EAGER), anchor=Anchor(25.6, 2200, 369, 8.7)),
    Workload("W6", "sum of squares",
             "`for i in range(n): s += i*i`, n = 1000 as an int32 tensor",
             sum_squares, sum_squares_numpy, _sum_squares_args,
             variants={"python ints": lambda args: sum_squares_python},
             targets=(_MATCH_NUMPY, _BEAT_EAGER), anchor=Anchor(96.7, 145_274, 6360, 10.1)),
    Workload("W7", "Collatz",
             "Collatz steps of 27 (`while` + `if`, 111 iterations)",
             collatz, collatz, _collatz_args,
             variants={"python ints": lambda args: collatz_python},
             targets=(_MATCH_NUMPY, _BEAT_EAGER), anchor=Anchor(25.4, 6963, 1000, 9.2)),
    Workload("W8", "gated activation",
             "`tanh(1.5x+0.25)*sigmoid(x)-0.5x`, float32[1e6]",
             gated_activation, gated_activation_numpy, _gated_args,
             variants={"numpy out=": lambda args: gated_activation_numpy_out(*args)},
             targets=(Target("vs_variant", "numpy out="),), anchor=Anchor(2042, 2183, 2340, 506)),
    Workload("W9", "MLP",
             "(ours) MLP 64x256 -> relu 128 -> softmax 10, float32", mlp, mlp_numpy,
             _mlp_args),
    Workload("W10", "RNN loop",
             "(ours) RNN, 50 steps of tanh(x@W + h@U + b) in a tensor `for` loop",
             rnn, rnn_numpy, _rnn_args),
    Workload("W11", "x + 1",
             "(ours) call overhead: `x + 1` on a float32 scalar", add_one, add_one,
             _add_one_args),
    Workload("W12", "2 loops + if",
             "(ours) issue 3's first-call reference: ~20 lines, two loops and an `if`",
             two_loops_and_an_if, two_loops_and_an_if_numpy, _two_loops_args),
    Workload("W13", "10k appends",
             "(ours) a list appended to in a tensor `for` loop (10,000 items), then rt.stack",
             appends, appends_numpy, _appends_args),
    Workload("G2", "LSTM grad",
             "(ours) W2's LSTM cell: loss and its gradient for the 3 weights (a tape)",
             lstm_value_and_grad, lstm_value_and_grad_numpy, _lstm_args),
    Workload("G5", "Newton grad",
             "(ours) W5's Newton `while`: sqrt(a) and d/da through the loop (a tape)",
             newton_sqrt_and_grad, newton_sqrt_and_grad_numpy, _newton_args),
    Workload("G9", "MLP grad",
             "(ours) W9's MLP: a loss and its gradient for the 4 weights (a tape)",
             mlp_value_and_grad, mlp_value_and_grad_numpy, _mlp_grad_args),
)
# Each gradient workload and the forward workload it differentiates.
GRADIENT_OF = {"G2": "W2", "G5": "W5", "G9": "W9"}

FIRST_CALL_TARGET_MS = 5.0


def by_key(keys) -> list[Workload]:
    """The workloads named in `keys` (case-insensitive), in table order; all when empty."""
    if not keys:
        return list(WORKLOADS)
    wanted = {k.strip().upper() for k in keys}
    unknown = wanted - {w.key.upper() for w in WORKLOADS}
    if unknown:
        known = ", ".join(w.key for w in WORKLOADS)
        raise ValueError(f"Unknown workload(s) {sorted(unknown)}; choose from {known}.")
    return [w for w in WORKLOADS if w.key.upper() in wanted]
