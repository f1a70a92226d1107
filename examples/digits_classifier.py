"""A small image classifier, end to end: `python examples/digits_classifier.py [--epochs 3]`.

scikit-learn's 8x8 digits (1,797 images, bundled with the package: no download) shuffled and
batched by `rt.data.Dataset`, a Sequential model of two Conv2D layers and a Dense head, Adam,
sparse categorical cross-entropy, a training step compiled by `rt.function`, accuracy on a
held-out 20%, the loss history plotted to
`digits_loss.png` and the weights saved to `digits_weights.safetensors`. Each epoch ends with a
checkpoint in `digits_ckpt/` (model, optimizer, epoch): run it again and it resumes from the
latest one (`--fresh` starts over). With tensorboard installed, the losses also go to
`digits_logs/` (`tensorboard --logdir digits_logs`).

    pip install -e ".[examples,summary]"
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


def summary_writer(logdir):
    """A TensorBoard writer for `logdir`, or None when tensorboard is not installed."""
    try:
        return rt.summary.create_file_writer(logdir)
    except ImportError:
        return None


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
    parser.add_argument("--weights", default="digits_weights.safetensors")
    parser.add_argument("--checkpoints", default="digits_ckpt")
    parser.add_argument("--logdir", default="digits_logs")
    parser.add_argument("--fresh", action="store_true", help="ignore earlier checkpoints")
    args = parser.parse_args(argv)

    rt.random.set_seed(0)
    (train_images, train_labels), (test_images, test_labels) = load_digits()
    model = make_model()
    model.summary()
    optimizer = rt.optimizers.Adam(learning_rate=3e-3)
    loss_object = rt.losses.SparseCategoricalCrossentropy(from_logits=True)
    epoch_loss = rt.metrics.Mean("loss")
    epochs_done = rt.Variable(0, name="epochs_done")
    checkpoint = rt.train.Checkpoint(model=model, optimizer=optimizer, epochs_done=epochs_done)
    manager = rt.train.CheckpointManager(checkpoint, args.checkpoints, max_to_keep=3)
    if not args.fresh and manager.restore_or_initialize():
        print(f"resumed from {manager.latest_checkpoint} after {int(epochs_done.numpy())} epochs")
    writer = summary_writer(args.logdir)

    @rt.function
    def train_step(images, labels):
        with rt.GradientTape() as tape:
            logits = model(images, training=True)
            loss_value = loss_object(labels, logits)
        grads = tape.gradient(loss_value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        epoch_loss.update_state(loss_value)
        return loss_value

    dataset = (rt.data.Dataset.from_tensor_slices((train_images, train_labels))
               .shuffle(len(train_images), seed=0).batch(args.batch_size, drop_remainder=True))
    loss_history = []
    batches = len(dataset)
    start = time.perf_counter()
    for epoch in range(int(epochs_done.numpy()), args.epochs):
        epoch_loss.reset_state()
        for batch, (images, labels) in enumerate(dataset):
            loss_history.append(float(train_step(images, labels)))
            progress(batch + 1, batches, f"epoch {epoch + 1} loss {epoch_loss.result():.3f}")
            if writer is not None:
                with writer.as_default():
                    rt.summary.scalar("loss", loss_history[-1], step=optimizer.iterations)
        epochs_done.assign(epoch + 1)
        manager.save()
    seconds = time.perf_counter() - start
    if not loss_history:
        print(f"nothing to train: {int(epochs_done.numpy())} epochs done (--fresh starts over)")
        return

    accuracy = rt.metrics.SparseCategoricalAccuracy()
    accuracy.update_state(test_labels, model(test_images))
    print(f"{len(loss_history)} steps in {seconds:.2f} s ({seconds / len(loss_history) * 1e3:.2f}"
          f" ms a step); held-out accuracy {float(accuracy.result()):.3f}")

    model.save_weights(args.weights)
    print(f"weights saved to {args.weights}; checkpoints in {args.checkpoints}/")
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
