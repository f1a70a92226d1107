"""rt.train checkpoints and Module.save_weights: the safetensors format (ours and the
safetensors package read each other's files), hostile files, atomic saves under SIGKILL, and
round trips of every optimizer's state, lazy layers, nested modules and metrics."""

import json
import os
import random
import signal
import struct
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import runtime as rt
from runtime.train import safetensors_format
from runtime.train.safetensors_format import CheckpointError


def _mlp(seed=0, input_shape=None):
    rt.random.set_seed(seed)
    first = (rt.layers.Dense(4, activation="tanh") if input_shape is None else
             rt.layers.Dense(4, activation="tanh", input_shape=input_shape))
    return rt.Sequential([first, rt.layers.Dense(1)])


_X = np.random.default_rng(0).random((8, 3)).astype(np.float32)


def _step(model, optimizer):
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(rt.square(model(_X) - 1.0))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables))
    return float(loss)


# ---- the format ----------------------------------------------------------------------------------

def test_the_format_round_trips_every_dtype_and_the_metadata():
    arrays = {f"a/{d}": np.arange(6).reshape(2, 3).astype(d) for d in
              ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8",
               "bool")}
    arrays["scalar"] = np.float32(2.5)
    arrays["empty"] = np.zeros((0, 3), np.float32)
    data = safetensors_format.encode(arrays, {"k": "v"})
    (size,) = struct.unpack("<Q", data[:8])
    assert (8 + size) % 8 == 0
    values, metadata = safetensors_format.decode(data)
    assert metadata == {"k": "v"} and set(values) == set(arrays)
    for name, array in arrays.items():
        assert values[name].dtype == np.asarray(array).dtype
        np.testing.assert_array_equal(values[name], array)
    with pytest.raises(TypeError, match="complex"):
        safetensors_format.encode({"c": np.zeros(2, np.complex64)})


def test_files_are_read_by_the_safetensors_package_and_theirs_by_us(tmp_path):
    safetensors = pytest.importorskip("safetensors.numpy")
    model = _mlp(input_shape=(3,))
    model.save_weights(tmp_path / "w.safetensors")
    theirs = safetensors.load_file(str(tmp_path / "w.safetensors"))
    assert all(name.startswith("module/") for name in theirs)
    assert {k: v.shape for k, v in theirs.items()} == {
        "module/_layers/0/kernel": (3, 4), "module/_layers/0/bias": (4,),
        "module/_layers/1/kernel": (4, 1), "module/_layers/1/bias": (1,)}
    theirs = {k: v + 1 for k, v in theirs.items()}
    safetensors.save_file(theirs, str(tmp_path / "theirs.safetensors"))
    model.load_weights(tmp_path / "theirs.safetensors").assert_consumed()
    np.testing.assert_array_equal(model.layers[1].bias.numpy(), theirs["module/_layers/1/bias"])


def _header(entries, metadata=None):
    header = dict(entries)
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text


@pytest.mark.parametrize("data, why", [
    (b"", "fewer than the 8"),
    (struct.pack("<Q", 1 << 40) + b"{}", "runs past"),
    (struct.pack("<Q", 4) + b"[1] ", "not a JSON object"),
    (struct.pack("<Q", 3) + b"\xff{}", "not JSON"),
    (_header({"a": {"dtype": "F99", "shape": [1], "data_offsets": [0, 4]}}) + b"\0" * 4,
     "unknown dtype"),
    (_header({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}) + b"\0" * 4,
     "not a list of dims"),
    (_header({"a": {"dtype": "F32", "shape": [1 << 40, 1 << 40], "data_offsets": [0, 4]}})
     + b"\0" * 4, "take"),
    (_header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}) + b"\0" * 4,
     "outside"),
    (_header({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
              "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}) + b"\0" * 4,
     "overlap"),
    (_header({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}) + b"\0" * 8,
     "after the header"),
    (_header({"a": {"dtype": "F32", "shape": [1]}}) + b"\0" * 4, "data_offsets"),
    (_header({}, {"k": 1}), "__metadata__"),
])
def test_hostile_or_truncated_files_are_clean_errors(tmp_path, data, why):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(data)
    with pytest.raises(CheckpointError, match=why):
        safetensors_format.read(path)
    with pytest.raises(CheckpointError):
        _mlp(input_shape=(3,)).load_weights(path)


def test_a_truncated_checkpoint_and_things_that_are_not_files(tmp_path):
    model = _mlp(input_shape=(3,))
    model.save_weights(tmp_path / "w.safetensors")
    data = (tmp_path / "w.safetensors").read_bytes()
    for cut in (5, 40, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.safetensors").write_bytes(data[:cut])
        with pytest.raises(CheckpointError):
            model.load_weights(tmp_path / "cut.safetensors")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(CheckpointError, match="fifo|FIFO|regular"):
        model.load_weights(tmp_path / "fifo")  # refused without blocking
    with pytest.raises(CheckpointError, match="directory|regular"):
        model.load_weights(tmp_path)
    with pytest.raises(CheckpointError, match="No such file|cannot read"):
        model.load_weights(tmp_path / "missing")
    (tmp_path / "checkpoint").write_text('{"format": "tracegraph.checkpoint", "latest": '
                                         '"../../etc/passwd", "all": []}')
    with pytest.raises(CheckpointError, match="not a checkpoint state file"):
        rt.train.latest_checkpoint(tmp_path)


def test_a_value_that_does_not_fit_its_variable_is_an_error(tmp_path):
    rt.train.Checkpoint(v=rt.Variable(np.zeros(3, np.float32))).write(tmp_path / "a")
    with pytest.raises(CheckpointError, match="shape"):
        rt.train.Checkpoint(v=rt.Variable(np.zeros(4, np.float32))).restore(tmp_path / "a")
    with pytest.raises(CheckpointError, match="float32"):
        rt.train.Checkpoint(v=rt.Variable(np.zeros(3, np.float64))).restore(tmp_path / "a")


# ---- checkpoints ---------------------------------------------------------------------------------

def test_numbered_saves_latest_and_a_manager_keeping_the_last_n(tmp_path):
    v = rt.Variable(0.0)
    checkpoint = rt.train.Checkpoint(v=v)
    assert rt.train.latest_checkpoint(tmp_path) is None
    manager = rt.train.CheckpointManager(checkpoint, tmp_path, max_to_keep=2)
    for value in (1.0, 2.0, 3.0):
        v.assign(value)
        path = manager.save()
    assert path == str(tmp_path / "ckpt-3") == manager.latest_checkpoint
    assert manager.checkpoints == [str(tmp_path / "ckpt-2"), str(tmp_path / "ckpt-3")]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2.safetensors",
                                            "ckpt-3.safetensors"]
    v.assign(0.0)
    checkpoint.restore(str(tmp_path / "ckpt-2")).assert_consumed()
    assert float(v.numpy()) == 2.0 and int(checkpoint.save_counter.numpy()) == 2
    fresh = rt.train.Checkpoint(v=rt.Variable(0.0))
    assert manager.restore_or_initialize() == str(tmp_path / "ckpt-3")
    assert fresh.restore(None).assert_consumed() is not None  # nothing to restore


def test_status_reports_what_did_not_match(tmp_path):
    a, b = rt.Variable(1.0), rt.Variable(2.0)
    path = rt.train.Checkpoint(a=a, b=b).save(tmp_path / "c")
    status = rt.train.Checkpoint(a=a).restore(path)
    with pytest.raises(AssertionError, match="values with no variable: 'b'"):
        status.assert_consumed()
    status.assert_existing_objects_matched()
    status.expect_partial()
    status = rt.train.Checkpoint(a=a, b=b, c=rt.Variable(3.0)).restore(path)
    with pytest.raises(AssertionError, match="no value for the variables 'c'"):
        status.assert_existing_objects_matched()


@pytest.mark.parametrize("make", [
    lambda: rt.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    lambda: rt.optimizers.Adam(0.05, amsgrad=True),
    lambda: rt.optimizers.AdamW(0.05),
    lambda: rt.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
])
def test_every_optimizers_state_round_trips_into_a_lazy_model(tmp_path, make):
    model, optimizer = _mlp(), make()
    for _ in range(3):
        _step(model, optimizer)
    path = rt.train.Checkpoint(model=model, optimizer=optimizer).save(tmp_path / "ckpt")
    expected = [_step(model, optimizer) for _ in range(4)]
    fresh_model, fresh_optimizer = _mlp(seed=9), make()  # other weights, not built, no slots
    status = rt.train.Checkpoint(model=fresh_model, optimizer=fresh_optimizer).restore(path)
    got = [_step(fresh_model, fresh_optimizer) for _ in range(4)]
    assert got == expected
    status.assert_consumed()  # (the layers built and took their values)
    assert int(fresh_optimizer.iterations.numpy()) == 7


def test_nested_modules_and_metrics_round_trip(tmp_path):
    class Block(rt.Module):
        def __init__(self):
            super().__init__()
            self.scale = rt.Variable(np.ones(2, np.float32))
            self.parts = {"shift": rt.Variable(0.5), "more": [rt.Variable(1), rt.Variable(2)]}

    class Net(rt.Module):
        def __init__(self):
            super().__init__()
            self.blocks = [Block(), Block()]
            self.loss = rt.metrics.Mean()

    net = Net()
    net.blocks[1].parts["more"][0].assign(7)
    net.loss.update_state([1.0, 3.0])
    path = rt.train.Checkpoint(net=net).save(tmp_path / "n")
    other = Net()
    rt.train.Checkpoint(net=other).restore(path).assert_consumed()
    assert int(other.blocks[1].parts["more"][0].numpy()) == 7
    assert float(other.loss.result()) == 2.0


def test_save_weights_leaves_out_the_optimizer_a_model_holds(tmp_path):
    class Trainer(rt.Model):
        def __init__(self):
            super().__init__()
            self.body = _mlp(input_shape=(3,))
            self.optimizer = rt.optimizers.Adam()

        def call(self, x):
            return self.body(x)

    model = Trainer()
    _step(model, model.optimizer)
    model.save_weights(tmp_path / "w.safetensors")
    values, _ = safetensors_format.read(tmp_path / "w.safetensors")
    assert len(values) == 4 and not any("optimizer" in k for k in values)
    other = Trainer()
    other.load_weights(tmp_path / "w.safetensors").assert_consumed()
    np.testing.assert_array_equal(other(_X).numpy(), model(_X).numpy())


# ---- crash safety --------------------------------------------------------------------------------

def test_a_save_killed_at_any_point_leaves_the_last_complete_checkpoint(tmp_path):
    """A child saves numbered checkpoints of a variable set to its number (1 MB, so a save takes
    a while) until it is killed with SIGKILL at a random time (after its first save, so every
    life adds one); the latest checkpoint then restores exactly the values saved under its
    number. 50 kills."""
    if not hasattr(os, "fork"):
        pytest.skip("needs os.fork")
    rng = random.Random(0)
    big = rt.Variable(np.zeros(1 << 18, np.float32))
    counter = rt.Variable(0)
    checkpoint = rt.train.Checkpoint(big=big, counter=counter)
    directory = tmp_path / "ckpts"
    restored, kills = set(), 0
    for _ in range(50):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: save forever, saying when each save is done
            try:
                os.close(read_end)
                latest = rt.train.latest_checkpoint(directory)
                if latest is not None:
                    checkpoint.restore(latest)
                while True:
                    n = int(checkpoint.save_counter.numpy()) + 1
                    big.assign(np.full(1 << 18, n, np.float32))
                    counter.assign(n)
                    checkpoint.save(directory / "ckpt")
                    os.write(write_end, b".")
            finally:
                os._exit(0)
        os.close(write_end)
        assert os.read(read_end, 1) == b".", "the child died before its first save"
        time.sleep(rng.uniform(0.0, 0.06))  # somewhere in a later save (each takes ~10-50 ms)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_end)
        kills += 1
        latest = rt.train.latest_checkpoint(directory)
        fresh_big, fresh_counter = rt.Variable(np.zeros(1 << 18, np.float32)), rt.Variable(0)
        rt.train.Checkpoint(big=fresh_big, counter=fresh_counter).restore(
            latest).assert_consumed()
        n = int(latest.rpartition("-")[2])
        assert int(fresh_counter.numpy()) == n
        assert np.all(fresh_big.numpy() == n)
        restored.add(n)
    assert kills == 50 and len(restored) == 50  # (each life saved at least once)
    leftovers = [f for f in os.listdir(directory) if f.startswith(".tmp-")]
    assert 0 < len(leftovers) <= kills, len(leftovers)  # files of saves killed midway: never read


# ---- a fresh process -----------------------------------------------------------------------------

def test_training_resumed_in_a_fresh_process_equals_training_on(tmp_path):
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import runtime as rt
        rt.random.set_seed(0)
        model = rt.Sequential([rt.layers.Dense(4, activation="tanh"), rt.layers.Dense(1)])
        optimizer = rt.optimizers.Adam(0.05)
        checkpoint = rt.train.Checkpoint(model=model, optimizer=optimizer)
        manager = rt.train.CheckpointManager(checkpoint, sys.argv[1], max_to_keep=1)
        manager.restore_or_initialize()
        x = np.random.default_rng(0).random((8, 3)).astype(np.float32)

        @rt.function
        def step():
            with rt.GradientTape() as tape:
                loss = rt.reduce_mean(rt.square(model(x) - 1.0))
            optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                          model.trainable_variables))
            return loss

        print(" ".join(repr(float(step())) for _ in range(int(sys.argv[2]))))
        manager.save()
    """)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def run(directory, steps):
        out = subprocess.run([sys.executable, "-c", script, str(directory), str(steps)],
                             capture_output=True, text=True, cwd=root, timeout=120, check=True)
        return [float(v) for v in out.stdout.split()]

    straight = run(tmp_path / "a", 20)
    first, resumed = run(tmp_path / "b", 10), run(tmp_path / "b", 10)
    assert first + resumed == straight
