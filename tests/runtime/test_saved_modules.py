"""rt.saved.save / load of an rt.Module: its traced methods and its variables, shared by the
loaded methods, so training goes on after loading, also in a fresh process without the source."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Regressor(rt.Module):
    def __init__(self):
        super().__init__()
        rt.random.set_seed(0)
        self.body = rt.Sequential([rt.layers.Dense(4, activation="tanh", input_shape=(3,)),
                                   rt.layers.Dense(1)])
        self.optimizer = rt.optimizers.Adam(0.05)

    @rt.function
    def __call__(self, x):
        return self.body(x)

    @rt.function
    def train_step(self, x, y):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.square(self(x) - y))
        variables = self.body.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss


_X = np.random.default_rng(0).random((16, 3)).astype(np.float32)
_Y = (_X.sum(axis=1, keepdims=True) * 0.5).astype(np.float32)


def _trained(steps=5):
    model = Regressor()
    for _ in range(steps):
        model.train_step(_X, _Y)
    model(_X)
    return model


def test_a_loaded_module_runs_its_methods_and_trains_on_like_the_original(tmp_path):
    model = _trained()
    rt.saved.save(model, tmp_path / "m")
    loaded = rt.saved.load(tmp_path / "m")
    np.testing.assert_array_equal(loaded(_X).numpy(), model(_X).numpy())
    for _ in range(10):
        ours, theirs = model.train_step(_X, _Y), loaded.train_step(_X, _Y)
        assert float(ours) == float(theirs)
    np.testing.assert_array_equal(loaded(_X).numpy(), model(_X).numpy())
    assert len(loaded.trainable_variables) == 4
    assert int(loaded.optimizer.iterations.numpy()) == 15
    kernel = loaded.body._layers["0"].kernel
    kernel.assign(np.zeros((3, 4), np.float32))  # its variables are Variables
    assert not np.array_equal(loaded(_X).numpy(), model(_X).numpy())


def test_a_module_loads_and_trains_in_a_fresh_process_without_its_source(tmp_path):
    model = _trained()
    rt.saved.save(model, tmp_path / "m")
    np.save(tmp_path / "x.npy", _X)
    np.save(tmp_path / "y.npy", _Y)
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import runtime as rt
        loaded = rt.saved.load(sys.argv[1] + "/m")
        x, y = np.load(sys.argv[1] + "/x.npy"), np.load(sys.argv[1] + "/y.npy")
        print(" ".join(repr(float(loaded.train_step(x, y))) for _ in range(10)))
    """)
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                         text=True, cwd=ROOT, timeout=120, check=True)
    expected = [float(model.train_step(_X, _Y)) for _ in range(10)]
    assert [float(v) for v in out.stdout.split()] == expected


def test_saved_module_files_that_are_wrong_are_load_errors(tmp_path):
    rt.saved.save(_trained(1), tmp_path / "m")
    document = tmp_path / "m" / "saved_module.json"
    text = document.read_text()
    document.write_text(text.replace('"trainable": true', '"trainable": "yes"', 1))
    with pytest.raises(rt.saved.LoadError, match="malformed variable table"):
        rt.saved.load(tmp_path / "m")
    document.write_text(text)
    (tmp_path / "m" / "variables.safetensors").write_bytes(b"\0" * 3)
    with pytest.raises(ValueError, match="not a valid checkpoint file"):
        rt.saved.load(tmp_path / "m")


def test_a_module_with_no_traced_method_saves_its_variables(tmp_path):
    model = Regressor()
    rt.saved.save(model, tmp_path / "m")
    loaded = rt.saved.load(tmp_path / "m")
    assert len(loaded.variables) == len(model.variables)
    with pytest.raises(AttributeError, match="has no attribute 'train_step'"):
        loaded.train_step()
