"""`python -m benchmarks.training_step`: one training step of the seed's image model (S21: two
Conv2D(16, 3x3, relu), GlobalAveragePooling2D, Dense(10); Adam; sparse softmax cross-entropy
from logits), batch 32, on 8x8x1 images (scikit-learn's digits' size) and on 28x28x1 images.

    python -m benchmarks.training_step            # about 10 s per column
    python -m benchmarks.training_step --quick

Columns: ours eagerly (the step as written, under a GradientTape), ours as `rt.function`, the
same model and Adam hand-written in JAX as one `jax.jit` of `value_and_grad` plus the update
(when jax is installed), and TensorFlow's Keras model eagerly and as `tf.function` (when
tensorflow is installed). Every column starts from the same weights, and its first step's loss
is checked against ours eagerly before timing (a column that disagrees or raises shows
`error`). Times are medians of interleaved rounds (benchmarks/harness.py); BLAS runs
single-threaded unless OPENBLAS_NUM_THREADS is set, XLA uses its own thread pool.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy is imported (see benchmarks/__main__)

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from benchmarks import harness  # noqa: E402

SIZES = (8, 28)
BATCH = 32
LEARNING_RATE = 1e-3
RTOL = 1e-4


def _data(size):
    rng = np.random.default_rng(size)
    images = rng.random((BATCH, size, size, 1), dtype=np.float32)
    labels = rng.integers(0, 10, BATCH).astype(np.int64)
    return images, labels


def _model():
    rt.random.set_seed(0)
    return rt.Sequential([
        rt.layers.Conv2D(16, [3, 3], activation="relu", input_shape=(None, None, 1)),
        rt.layers.Conv2D(16, [3, 3], activation="relu"),
        rt.layers.GlobalAveragePooling2D(),
        rt.layers.Dense(10),
    ])


def ours(decorate):
    """(step(images, labels) -> loss as a float, initial weights)."""
    model = _model()
    optimizer = rt.optimizers.Adam(LEARNING_RATE)
    loss_object = rt.losses.SparseCategoricalCrossentropy(from_logits=True)
    weights = model.get_weights()

    def train_step(images, labels):
        with rt.GradientTape() as tape:
            logits = model(images, training=True)
            loss_value = loss_object(labels, logits)
        grads = tape.gradient(loss_value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss_value

    step = decorate(train_step)
    return (lambda images, labels: float(step(images, labels))), weights


def jax_step(weights):
    """The same model and Adam (Keras' formulas) in JAX: one jitted function per step."""
    import jax
    import jax.numpy as jnp

    def forward(params, x):
        k1, b1, k2, b2, w, b = params
        dims = ("NHWC", "HWIO", "NHWC")
        h = jax.nn.relu(jax.lax.conv_general_dilated(x, k1, (1, 1), "VALID",
                                                     dimension_numbers=dims) + b1)
        h = jax.nn.relu(jax.lax.conv_general_dilated(h, k2, (1, 1), "VALID",
                                                     dimension_numbers=dims) + b2)
        return jnp.mean(h, axis=(1, 2)) @ w + b

    def loss(params, x, y):
        log_p = jax.nn.log_softmax(forward(params, x))
        return -jnp.mean(jnp.take_along_axis(log_p, y[:, None], axis=1))

    @jax.jit
    def step(params, m, v, t, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        t = t + 1
        alpha = LEARNING_RATE * jnp.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        m = [mi + (g - mi) * 0.1 for mi, g in zip(m, grads)]
        v = [vi + (g * g - vi) * 0.001 for vi, g in zip(v, grads)]
        params = [p - alpha * mi / (jnp.sqrt(vi) + 1e-7) for p, mi, vi in zip(params, m, v)]
        return params, m, v, t, value

    state = {"params": [jnp.asarray(w) for w in weights],
             "m": [jnp.zeros_like(jnp.asarray(w)) for w in weights],
             "v": [jnp.zeros_like(jnp.asarray(w)) for w in weights], "t": jnp.float32(0)}

    def run(images, labels):
        state["params"], state["m"], state["v"], state["t"], value = step(
            state["params"], state["m"], state["v"], state["t"], images, labels.astype(np.int32))
        return float(value.block_until_ready())

    return run


def tensorflow_steps(weights):
    """(eager step, tf.function step) of the same Keras model, each with its own copy."""
    import tensorflow as tf

    def make():
        model = tf.keras.Sequential([
            tf.keras.Input((None, None, 1)),
            tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
            tf.keras.layers.Conv2D(16, [3, 3], activation="relu"),
            tf.keras.layers.GlobalAveragePooling2D(),
            tf.keras.layers.Dense(10),
        ])
        model.set_weights(weights)
        optimizer = tf.keras.optimizers.Adam(LEARNING_RATE)
        loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        def train_step(images, labels):
            with tf.GradientTape() as tape:
                loss_value = loss_object(labels, model(images, training=True))
            grads = tape.gradient(loss_value, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss_value

        return train_step

    eager, graph = make(), tf.function(make())
    return (lambda x, y: float(eager(x, y))), (lambda x, y: float(graph(x, y)))


def columns(size):
    """[(name, step or an error text)], each step checked on its first call."""
    images, labels = _data(size)
    eager, weights = ours(lambda f: f)
    expected = eager(images, labels)
    found = [("ours eager", eager)]
    candidates = [("ours graph", lambda: ours(rt.function)[0])]
    if importlib.util.find_spec("jax") is not None:
        candidates.append(("JAX jit", lambda: jax_step(weights)))
    if importlib.util.find_spec("tensorflow") is not None:
        candidates += [("TF eager", lambda: tensorflow_steps(weights)[0]),
                       ("TF graph", lambda: tensorflow_steps(weights)[1])]
    for name, make in candidates:
        try:
            step = make()
            first = step(images, labels)
            if not np.isclose(first, expected, rtol=RTOL):
                found.append((name, f"first loss {first} != ours {expected}"))
                continue
            found.append((name, step))
        except Exception as e:  # noqa: BLE001 - an error cell; the other columns go on
            found.append((name, f"{type(e).__name__}: {str(e).splitlines()[0]}"))
    return found, (images, labels)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    budget = harness.QUICK if args.quick else harness.Budget(10.0, 0.05, 15)
    print("| images (batch 32) | column | µs a step | / JAX jit |")
    print("|---|---|---:|---:|")
    for size in SIZES:
        found, data = columns(size)
        timed = [(name, step) for name, step in found if callable(step)]
        print(f"timing {size}x{size}: {', '.join(n for n, _ in timed)}", file=sys.stderr)
        samples = dict(zip((n for n, _ in timed),
                           (s for s, _ in harness.measure([(s, data) for _, s in timed], budget))))
        for name, step in found:
            if not callable(step):
                print(f"| {size}x{size}x1 | {name} | error: {step} | |")
                continue
            median = statistics.median(samples[name]) * 1e6
            ratio = "-"
            if "JAX jit" in samples:
                pairs = zip(samples[name], samples["JAX jit"])
                ratio = f"{statistics.median(a / b for a, b in pairs):.2f}x"
            print(f"| {size}x{size}x1 | {name} | {median:,.0f} | {ratio} |")


if __name__ == "__main__":
    main()
