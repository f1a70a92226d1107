"""Seed behaviours S22-S24 and S26 of shared/SEED_EXAMPLES.md: training state and data
(weights saved and loaded, checkpoints, datasets, summaries)."""

import os

import numpy as np
import pytest

import runtime as rt


def _model():
    return rt.Sequential([
        rt.layers.Conv2D(16, [3, 3], activation="relu", input_shape=(None, None, 1)),
        rt.layers.GlobalAveragePooling2D(),
        rt.layers.Dense(10),
    ])


# ---- S23: save_weights / load_weights ------------------------------------------------------------

def test_s23_load_weights_restores_every_variable(tmp_path):
    rt.random.set_seed(1)
    model = _model()
    images = np.random.default_rng(0).random((2, 8, 8, 1)).astype(np.float32)
    expected = model(images).numpy()
    path = str(tmp_path / "weights.safetensors")
    model.save_weights(path)
    rt.random.set_seed(2)
    other = _model()
    assert not np.array_equal(other(images).numpy(), expected)
    other.load_weights(path).assert_consumed()
    for a, b in zip(other.weights, model.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(other(images).numpy(), expected)


# ---- S24: checkpoints ----------------------------------------------------------------------------

def test_s24_a_checkpoint_of_a_variable(tmp_path):
    os.chdir(tmp_path)
    x = rt.Variable(10.0)
    checkpoint = rt.train.Checkpoint(x=x)
    x.assign(2.0)
    checkpoint.save("./ckpt/")
    x.assign(11.0)
    checkpoint.restore(rt.train.latest_checkpoint("./ckpt/"))
    assert float(x.numpy()) == 2.0


def test_s24_a_checkpoint_of_a_model_and_its_optimizer_restores_adams_moments_and_step(tmp_path):
    images = np.random.default_rng(0).random((4, 8, 8, 1)).astype(np.float32)
    labels = np.array([0, 1, 2, 3])
    loss_object = rt.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(model, optimizer):
        with rt.GradientTape() as tape:
            loss = loss_object(labels, model(images))
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                      model.trainable_variables))
        return float(loss)

    rt.random.set_seed(0)
    model, optimizer = _model(), rt.optimizers.Adam()
    for _ in range(3):
        step(model, optimizer)
    checkpoint = rt.train.Checkpoint(optimizer=optimizer, model=model)
    save_path = checkpoint.save(str(tmp_path / "ckpt"))
    then = [step(model, optimizer) for _ in range(3)]

    rt.random.set_seed(5)
    model2, optimizer2 = _model(), rt.optimizers.Adam()
    status = rt.train.Checkpoint(optimizer=optimizer2, model=model2).restore(save_path)
    assert int(optimizer2.iterations.numpy()) == 3
    assert [step(model2, optimizer2) for _ in range(3)] == then
    status.assert_consumed()
    for slot, original in zip(optimizer2.variables, optimizer.variables):
        np.testing.assert_array_equal(slot.numpy(), original.numpy())


# ---- S26: summaries --------------------------------------------------------------------------

def test_s26_scalars_every_100_of_1000_steps_read_back_by_tensorboard(tmp_path):
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    writer = rt.summary.create_file_writer(str(tmp_path))
    loss = rt.Variable(100.0)

    @rt.function
    def step_fn(step):
        loss.assign(loss * 0.99)
        if step % 100 == 0:
            rt.summary.scalar("loss", loss, step=step)

    with writer.as_default():
        for step in range(1000):
            step_fn(rt.constant(step, rt.int64))
    writer.close()
    events = accumulator.EventAccumulator(str(tmp_path))
    events.Reload()
    points = [(e.step, float(np.asarray(e.tensor_proto.float_val)[0]))
              for e in events.Tensors("loss")]
    assert [s for s, _ in points] == list(range(0, 1000, 100))
    np.testing.assert_allclose([v for _, v in points],
                               [100.0 * 0.99 ** (s + 1) for s in range(0, 1000, 100)], rtol=1e-4)


# ---- S22: datasets ------------------------------------------------------------------------------

def test_s22_a_shuffled_batched_dataset_in_python_and_as_one_graph_loop():
    rng = np.random.default_rng(0)
    images = rng.random((100, 8, 8, 1)).astype(np.float32)
    labels = rng.integers(0, 10, 100)
    dataset = rt.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000, seed=3).batch(32)
    (first_images, first_labels), = list(dataset.take(1))
    assert first_images.shape == (32, 8, 8, 1) and first_labels.shape == (32,)
    python_sums = []
    for (batch, (images_batch, labels_batch)) in enumerate(dataset):
        python_sums.append((batch, float(rt.reduce_sum(images_batch)),
                            int(rt.reduce_sum(labels_batch))))
    assert [b for b, _, _ in python_sums] == [0, 1, 2, 3]  # 32 + 32 + 32 + 4

    @rt.function
    def epoch_sums(dataset):
        total = rt.constant(0.0)
        count = rt.constant(0, rt.int64)
        for images_batch, labels_batch in dataset:
            total += rt.reduce_sum(images_batch)
            count += rt.reduce_sum(labels_batch)
        return total, count

    reshuffled = rt.data.Dataset.from_tensor_slices((images, labels)).shuffle(1000, seed=3)
    total, count = epoch_sums(reshuffled.batch(32))
    np.testing.assert_allclose(float(total), sum(s for _, s, _ in python_sums), rtol=1e-5)
    assert int(count) == sum(c for _, _, c in python_sums)
    graph = epoch_sums.get_concrete_function(reshuffled.batch(32)).graph
    assert [op.type for op in graph.operations].count("While") == 1  # a graph loop, not unrolled
