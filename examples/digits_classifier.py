"""A small image classifier, end to end: `python examples/digits_classifier.py [--epochs 3]`.

scikit-learn's 8x8 digits (1,797 images, bundled with the package: no download), a Sequential
model of two Conv2D layers and a Dense head, Adam, sparse categorical cross-entropy, a training
step compiled by `rt.function`, accuracy on a held-out 20%, the loss history plotted to
`digits_loss.png` and the weights saved to `digits_weights.npz`.

    pip install -e ".[examples]"
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import runtime as rt


def load_digits():
    """((train images, labels), (test images, labels)): images [n, 8, 8, 1] in [0, 1]."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[..., None]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(images))
    images, labels = images[order], labels[order]
    n_test = len(images) // 5
    return (images[n_test:], labels[n_test:]), (images[:n_test], labels[:n_test])


def make_model():
    return rt.Sequential([
        rt.layers.Conv2D(16, [3, 3], activation="relu", input_shape=(8, 8, 1)),
        rt.layers.Conv2D(16, [3, 3], activation="relu"),
        rt.layers.Flatten(),
        rt.layers.Dense(10),
    ])


def progress(done: int, total: int, message: str) -> None:
    """A one-line progress bar on stderr, rewritten in place."""
    filled = 30 * done // total
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} {message}")
    if done == total:
        sys.stderr.write("\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--plot", default="digits_loss.png")
    parser.add_argument("--weights", default="digits_weights.npz")
    args = parser.parse_args(argv)

    rt.random.set_seed(0)
    (train_images, train_labels), (test_images, test_labels) = load_digits()
    model = make_model()
    model.summary()
    optimizer = rt.optimizers.Adam(learning_rate=3e-3)
    loss_object = rt.losses.SparseCategoricalCrossentropy(from_logits=True)
    epoch_loss = rt.metrics.Mean("loss")

    @rt.function
    def train_step(images, labels):
        with rt.GradientTape() as tape:
            logits = model(images, training=True)
            loss_value = loss_object(labels, logits)
        grads = tape.gradient(loss_value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        epoch_loss.update_state(loss_value)
        return loss_value

    loss_history = []
    batches = len(train_images) // args.batch_size
    start = time.perf_counter()
    for epoch in range(args.epochs):
        epoch_loss.reset_state()
        order = np.random.default_rng(epoch).permutation(len(train_images))
        for batch in range(batches):
            chosen = order[batch * args.batch_size:(batch + 1) * args.batch_size]
            loss_history.append(float(train_step(train_images[chosen], train_labels[chosen])))
            progress(batch + 1, batches, f"epoch {epoch + 1} loss {epoch_loss.result():.3f}")
    seconds = time.perf_counter() - start

    accuracy = rt.metrics.SparseCategoricalAccuracy()
    accuracy.update_state(test_labels, model(test_images))
    print(f"{len(loss_history)} steps in {seconds:.2f} s ({seconds / len(loss_history) * 1e3:.2f}"
          f" ms a step); held-out accuracy {float(accuracy.result()):.3f}")

    np.savez(args.weights, *model.get_weights())
    print(f"weights saved to {args.weights}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install -e '.[examples]')")
        return
    plt.figure(figsize=(6, 3.5))
    plt.plot(loss_history)
    plt.xlabel("Batch #")
    plt.ylabel("Loss [entropy]")
    plt.title("Digits classifier: training loss")
    plt.tight_layout()
    plt.savefig(args.plot, dpi=100)
    print(f"loss history plotted to {args.plot}")


if __name__ == "__main__":
    main()
