"""`python -m benchmarks.dataset_epoch`: one epoch of training over an `rt.data.Dataset` of
scikit-learn's 1,797 digits (8x8x1; random images of that size when scikit-learn is not
installed), shuffled and batched by 32 (57 steps), three ways:

- "eager": the step as written (GradientTape, apply_gradients), a Python loop over the dataset;
- "Python loop of rt.function steps": the same loop calling a decorated step per batch;
- "one rt.function per epoch": the loop itself inside `rt.function`: one graph call whose
  While op runs the 57 steps (the dataset's shuffle order is an op before the loop).

    python -m benchmarks.dataset_epoch              # both models, about 10 s per column
    python -m benchmarks.dataset_epoch --quick
    python -m benchmarks.dataset_epoch --model dense

Models: "dense", a softmax classifier (Flatten, Dense(10)), where the per-step overhead
dominates; "conv", the digits model of the seed examples (Conv2D(16, 3x3, relu),
GlobalAveragePooling2D, Dense(10)). SGD, sparse softmax cross-entropy from logits. Every column
starts from the same weights and the same shuffle seed, and its first epoch's losses are checked
against eager's before timing. Times are medians of interleaved rounds (benchmarks/harness.py),
one epoch per call; BLAS single-threaded unless OPENBLAS_NUM_THREADS is set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy is imported (see benchmarks/__main__)

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
import runtime.data  # noqa: E402,F401 - rt.data
from benchmarks import harness  # noqa: E402

BATCH = 32
SHUFFLE_SEED = 0
LEARNING_RATE = 0.05
RTOL = 1e-4


def digits():
    """(images float32 (1797, 8, 8, 1) in [0, 1], labels int64), and where they came from."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        rng = np.random.default_rng(0)
        return (rng.random((1797, 8, 8, 1), dtype=np.float32),
                rng.integers(0, 10, 1797).astype(np.int64)), "random images"
    data = load_digits()
    images = (data.images / 16.0).astype(np.float32)[..., None]
    return (images, data.target.astype(np.int64)), "scikit-learn's digits"


def _model(kind):
    rt.random.set_seed(0)
    if kind == "dense":
        return rt.Sequential([rt.layers.Flatten(input_shape=(8, 8, 1)), rt.layers.Dense(10)])
    return rt.Sequential([
        rt.layers.Conv2D(16, [3, 3], activation="relu", input_shape=(8, 8, 1)),
        rt.layers.GlobalAveragePooling2D(),
        rt.layers.Dense(10),
    ])


def column(kind, how, data):
    """epoch() -> the epoch's losses (a list of floats), training a fresh model."""
    model = _model(kind)
    optimizer = rt.optimizers.SGD(LEARNING_RATE)
    loss_object = rt.losses.SparseCategoricalCrossentropy(from_logits=True)
    dataset = rt.data.Dataset.from_tensor_slices(data).shuffle(
        len(data[1]), seed=SHUFFLE_SEED).batch(BATCH)

    def train_step(images, labels):
        with rt.GradientTape() as tape:
            loss = loss_object(labels, model(images, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    if how == "one rt.function per epoch":
        @rt.function
        def graph_epoch():
            losses = []
            for images, labels in dataset:
                losses.append(train_step(images, labels))
            return rt.stack(losses)

        return lambda: graph_epoch().numpy().tolist()
    step = rt.function(train_step) if how == "Python loop of rt.function steps" else train_step
    return lambda: [float(step(images, labels)) for images, labels in dataset]


HOWS = ("eager", "Python loop of rt.function steps", "one rt.function per epoch")


def columns(kind, data):
    """[(name, epoch or an error text)], each epoch function checked on its first epoch."""
    found, expected = [], None
    for how in HOWS:
        try:
            epoch = column(kind, how, data)
            losses = epoch()
            if expected is None:
                expected = losses
            elif not np.allclose(losses, expected, rtol=RTOL):
                found.append((how, f"first epoch's losses differ from eager's by "
                                   f"{np.max(np.abs(np.subtract(losses, expected))):.3g}"))
                continue
            found.append((how, epoch))
        except Exception as e:  # noqa: BLE001 - an error cell; the other columns go on
            found.append((how, f"{type(e).__name__}: {str(e).splitlines()[0]}"))
    return found


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--model", choices=("dense", "conv", "both"), default="both")
    args = parser.parse_args(argv)
    budget = (harness.Budget(1.0, 0.0, 5) if args.quick else harness.Budget(10.0, 0.0, 15))
    data, source = digits()
    print(f"{len(data[1])} images of {source}, batch {BATCH}: "
          f"{-(-len(data[1]) // BATCH)} steps an epoch", file=sys.stderr)
    print("| model | column | ms an epoch | µs a step | / one rt.function |")
    print("|---|---|---:|---:|---:|")
    steps = -(-len(data[1]) // BATCH)
    for kind in (("dense", "conv") if args.model == "both" else (args.model,)):
        found = columns(kind, data)
        timed = [(name, epoch) for name, epoch in found if callable(epoch)]
        print(f"timing {kind}: {', '.join(n for n, _ in timed)}", file=sys.stderr)
        samples = dict(zip((n for n, _ in timed),
                           (s for s, _ in harness.measure([(e, ()) for _, e in timed], budget))))
        base = samples.get(HOWS[-1])
        for name, epoch in found:
            if not callable(epoch):
                print(f"| {kind} | {name} | error: {epoch} | | |")
                continue
            median = statistics.median(samples[name])
            ratio = "-" if base is None else (
                f"{statistics.median(a / b for a, b in zip(samples[name], base)):.2f}x")
            print(f"| {kind} | {name} | {median * 1e3:,.1f} | {median / steps * 1e6:,.0f} | "
                  f"{ratio} |")


if __name__ == "__main__":
    main()
