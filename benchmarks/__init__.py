"""Benchmarks: our eager vs our graph (`rt.function`) vs hand-written numpy, plus TensorFlow /
JAX when installed. Run `python -m benchmarks` (see `benchmarks/__main__.py`)."""
