"""The examples run end to end (examples/digits_classifier.py: train, evaluate, plot, save)."""

import importlib.util
import pathlib

import pytest

from runtime.train import safetensors_format

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_digits_classifier_trains_evaluates_plots_and_saves(tmp_path, capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    example = _load("digits_classifier")
    plot, weights = tmp_path / "loss.png", tmp_path / "weights.safetensors"
    options = ["--plot", str(plot), "--weights", str(weights), "--checkpoints",
               str(tmp_path / "ckpt"), "--logdir", str(tmp_path / "logs")]
    example.main(["--epochs", "1", *options])
    first = capsys.readouterr().out
    example.main(["--epochs", "2", *options])  # resumes after epoch 1
    out = capsys.readouterr().out
    assert "resumed from" in out and "after 1 epochs" in out and "44 steps" in out
    accuracy = float(out.split("held-out accuracy ")[1].split()[0])
    assert accuracy >= 0.85 and "Total params: 5,050" in first
    assert plot.stat().st_size > 1000
    values, _ = safetensors_format.read(weights)
    assert sorted(v.shape for v in values.values()) == sorted([
        (3, 3, 1, 16), (16,), (3, 3, 16, 16), (16,), (256, 10), (10,)])
