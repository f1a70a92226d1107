"""Python constants a function reads from outside are part of its signature: when one changes,
the next call traces again instead of silently using the value baked into the graph."""

import logging

import numpy as np

import runtime as rt

SCALE = 3


def scaled(x):
    return x * SCALE


def test_a_changed_global_retraces_and_the_log_says_why(caplog):
    global SCALE
    f = rt.function(scaled)
    try:
        assert f(rt.constant(1.0)).numpy() == 3.0
        SCALE = 4
        with caplog.at_level(logging.INFO, logger="runtime.function"):
            assert f(rt.constant(1.0)).numpy() == 4.0
        assert "the global 'SCALE' changed from 3 to 4" in caplog.text
        SCALE = 3
        assert f(rt.constant(2.0)).numpy() == 6.0  # the first graph again, not a third trace
        assert f.experimental_get_tracing_count() == 2
    finally:
        SCALE = 3


def test_a_changed_closure_variable_or_attribute_retraces():
    offset = 1.0

    @rt.function
    def shifted(x):
        return x + offset

    assert shifted(rt.constant(1.0)).numpy() == 2.0
    offset = 5.0
    assert shifted(rt.constant(1.0)).numpy() == 6.0

    class Model:
        def __init__(self):
            self.gain = 2.0

        @rt.function
        def __call__(self, x):
            return x * self.gain

    model = Model()
    assert model(rt.constant(np.float32(3))).numpy() == 6.0
    model.gain = 10.0
    assert model(rt.constant(np.float32(3))).numpy() == 30.0


def test_guards_can_be_turned_off():
    global SCALE
    f = rt.function(scaled, capture_guards=False)
    try:
        assert f(rt.constant(1.0)).numpy() == 3.0
        SCALE = 4
        assert f(rt.constant(1.0)).numpy() == 3.0  # the value baked in at the first trace
    finally:
        SCALE = 3
