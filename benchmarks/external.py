"""TensorFlow-graph, JAX-jit and numba-njit columns, when those packages are importable (never
required).

The TensorFlow versions are the workloads' own code with `tf` in place of `rt` (tf.function's
AutoGraph converts the same `if` / `while` / `for`). JAX has no converter, so its versions use
`lax.cond` / `lax.while_loop` / `lax.fori_loop`, the way a JAX user writes them. JAX results are
waited for (`block_until_ready`) inside the timed call. The njit versions are the scalar-loop
workloads (W4-W7) as a numba user writes them, on numpy scalars: what `jit_compile="numba"`
is measured against.
"""

from __future__ import annotations

import importlib
import importlib.util

import numpy as np

from benchmarks import workloads


def available() -> dict[str, str]:
    """{column name: package version} for the external frameworks that can be imported."""
    found = {}
    for column, package in (("TF graph", "tensorflow"), ("JAX jit", "jax"),
                            ("numba njit", "numba")):
        if importlib.util.find_spec(package) is not None:
            found[column] = importlib.import_module(package).__version__
    return found


def columns(key: str, args: tuple) -> list[tuple]:
    """[(column name, function, converted args), ...] for workload `key`."""
    found = available()
    out = []
    if "TF graph" in found:
        fn = _tensorflow_functions().get(key)
        if fn is not None:
            tf = importlib.import_module("tensorflow")
            out.append(("TF graph", fn, _convert(args, tf.constant)))
    if "JAX jit" in found:
        fn = _jax_functions().get(key)
        if fn is not None:
            jnp = importlib.import_module("jax.numpy")
            out.append(("JAX jit", fn, _convert(args, jnp.asarray)))
    if "numba njit" in found:
        fn = _numba_functions().get(key)
        if fn is not None:
            out.append(("numba njit", fn, args))
    return out


def _convert(args, to_tensor):
    return tuple(to_tensor(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in args)


_TF_CACHE: dict = {}
_JAX_CACHE: dict = {}
_NUMBA_CACHE: dict = {}


def _tensorflow_functions() -> dict:
    if _TF_CACHE:
        return _TF_CACHE
    import tensorflow as tf

    def power(x, y):
        result = tf.eye(10, dtype=tf.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result

    def lstm_cell(x, h, c, kernel, recurrent_kernel, bias):
        z = tf.matmul(x, kernel) + tf.matmul(h, recurrent_kernel) + bias
        i, f, g, o = tf.split(z, 4, axis=1)
        c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
        return tf.sigmoid(o) * tf.tanh(c), c

    def mse(y_true, y_pred):
        return tf.reduce_mean((y_true - y_pred) ** 2)

    def simple_relu(x):
        if x > 0:
            return x
        else:
            return 0

    def newton_sqrt(a):
        y = a
        while abs(y * y - a) >= 1e-6:
            y = (y + a / y) / 2
        return y

    def sum_squares(n):
        s = 0
        for i in tf.range(n):
            s += i * i
        return s

    def gated_activation(x):
        return tf.tanh(1.5 * x + 0.25) * tf.sigmoid(x) - 0.5 * x

    def mlp(x, w1, b1, w2, b2):
        return tf.nn.softmax(tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2)

    def rnn(xs, w, u, b):
        h = tf.zeros((xs.shape[1], u.shape[0]))
        for t in tf.range(tf.shape(xs)[0]):
            h = tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, u) + b)
        return h

    # W7 and W11 use only Python operators: TensorFlow runs the workloads' own functions.
    fns = {"W1": power, "W2": lstm_cell, "W3a": mse, "W3b": mse, "W4": simple_relu,
           "W5": newton_sqrt, "W6": sum_squares, "W7": workloads.collatz, "W8": gated_activation,
           "W9": mlp, "W10": rnn, "W11": workloads.add_one}
    _TF_CACHE.update({k: tf.function(f) for k, f in fns.items()})
    return _TF_CACHE


def _jax_functions() -> dict:
    if _JAX_CACHE:
        return _JAX_CACHE
    import jax
    import jax.numpy as jnp
    from jax import lax

    def power(x, y):
        result = jnp.eye(10, dtype=jnp.int32)
        for _ in range(y):
            result = x @ result
        return result

    def lstm_cell(x, h, c, kernel, recurrent_kernel, bias):
        z = x @ kernel + h @ recurrent_kernel + bias
        i, f, g, o = jnp.split(z, 4, axis=1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        return jax.nn.sigmoid(o) * jnp.tanh(c), c

    def mse(y_true, y_pred):
        return jnp.mean((y_true - y_pred) ** 2).astype(y_true.dtype)

    def simple_relu(x):
        return lax.cond(x > 0, lambda: x, lambda: jnp.zeros_like(x))

    def newton_sqrt(a):
        return lax.while_loop(lambda y: abs(y * y - a) >= 1e-6, lambda y: (y + a / y) / 2, a)

    def sum_squares(n):
        return lax.fori_loop(0, n, lambda i, s: s + i * i, jnp.int32(0))

    def collatz(n):
        def body(state):
            n, steps = state
            n = lax.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
            return n, steps + 1

        return lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int32(0)))[1]

    def gated_activation(x):
        return jnp.tanh(1.5 * x + 0.25) * jax.nn.sigmoid(x) - 0.5 * x

    def mlp(x, w1, b1, w2, b2):
        return jax.nn.softmax(jax.nn.relu(x @ w1 + b1) @ w2 + b2)

    def rnn(xs, w, u, b):
        h0 = jnp.zeros((xs.shape[1], u.shape[0]), jnp.float32)
        return lax.fori_loop(0, xs.shape[0], lambda t, h: jnp.tanh(xs[t] @ w + h @ u + b), h0)

    def lstm_loss(kernel, recurrent_kernel, bias, x, h, c):
        h2, c2 = lstm_cell(x, h, c, kernel, recurrent_kernel, bias)
        return jnp.sum(h2 * h2) + jnp.sum(c2)

    lstm_grad = jax.value_and_grad(lstm_loss, argnums=(0, 1, 2))

    def lstm_value_and_grad(x, h, c, kernel, recurrent_kernel, bias):
        value, grads = lstm_grad(kernel, recurrent_kernel, bias, x, h, c)
        return (value, *grads)

    mlp_grad = jax.value_and_grad(
        lambda w1, b1, w2, b2, x, y: jnp.sum(mlp(x, w1, b1, w2, b2) * y), argnums=(0, 1, 2, 3))

    def mlp_value_and_grad(x, w1, b1, w2, b2, y):
        value, grads = mlp_grad(w1, b1, w2, b2, x, y)
        return (value, *grads)

    # G5 (reverse mode through lax.while_loop) has no JAX column: JAX cannot differentiate it.
    fns = {"W1": power, "W2": lstm_cell, "W3a": mse, "W3b": mse, "W4": simple_relu,
           "W5": newton_sqrt, "W6": sum_squares, "W7": collatz, "W8": gated_activation,
           "W9": mlp, "W10": rnn, "W11": workloads.add_one, "G2": lstm_value_and_grad,
           "G9": mlp_value_and_grad}
    for key, fn in fns.items():
        jitted = jax.jit(fn, static_argnums=(1,)) if key == "W1" else jax.jit(fn)
        _JAX_CACHE[key] = _blocking(jitted)
    return _JAX_CACHE


def _blocking(jitted):
    import jax

    return lambda *args: jax.block_until_ready(jitted(*args))


def _numba_functions() -> dict:
    if _NUMBA_CACHE:
        return _NUMBA_CACHE
    import numba

    def simple_relu(x):
        return x if x > 0 else np.int32(0)

    def newton_sqrt(a):
        y = a
        while abs(y * y - a) >= np.float32(1e-6):
            y = (y + a / y) / np.float32(2)
        return y

    def sum_squares(n):
        s = np.int32(0)
        for i in range(n):
            s += np.int32(i) * np.int32(i)
        return s

    def collatz(n):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        return steps

    fns = {"W4": simple_relu, "W5": newton_sqrt, "W6": sum_squares, "W7": collatz}
    _NUMBA_CACHE.update({k: numba.njit(f) for k, f in fns.items()})
    return _NUMBA_CACHE
