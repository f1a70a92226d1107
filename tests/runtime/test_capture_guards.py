"""Python constants a function reads from outside are part of its signature: when one changes,
the next call traces again instead of silently using the value baked into the graph."""

import functools
import logging
import warnings

import numpy as np
import pytest

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


def applies(x, fn):
    return fn(x)


def test_what_a_function_passed_as_an_argument_reads_is_guarded_too():
    """A callee passed in traces into the caller's graph: a global or an attribute it reads
    that changes must trace again, as plain Python would read the new value."""
    global SCALE

    class Gain:
        def __init__(self):
            self.k = 2.0

        def apply(self, x):
            return x * self.k

    f = rt.function(applies)
    x = rt.constant(1.0)
    gain = Gain()
    try:
        for value in (3, 4, 3):
            SCALE = value
            gain.k = value / 2
            for _ in range(2):
                assert f(x, scaled).numpy() == applies(1.0, scaled)
                assert f(x, gain.apply).numpy() == applies(1.0, gain.apply)
    finally:
        SCALE = 3
    def by_default(x, fn=scaled):
        return fn(x)

    g = rt.function(by_default)
    try:
        for value in (3, 4, 3):
            SCALE = value
            for _ in range(2):  # (the second call: the fast path, which must not learn it)
                assert g(np.float64(1.0)) == by_default(1.0)
    finally:
        SCALE = 3
    unguarded = rt.function(applies, capture_guards=False)
    assert unguarded(x, scaled).numpy() == 3.0
    SCALE = 5
    try:
        assert unguarded(x, scaled).numpy() == 3.0  # (as asked: the first value stays)
    finally:
        SCALE = 3


def test_guards_can_be_turned_off():
    global SCALE
    f = rt.function(scaled, capture_guards=False)
    try:
        assert f(rt.constant(1.0)).numpy() == 3.0
        SCALE = 4
        assert f(rt.constant(1.0)).numpy() == 3.0  # the value baked in at the first trace
    finally:
        SCALE = 3


@pytest.mark.no_round_trip  # its wrapper would be the frame the warning names
def test_guards_can_warn_instead_of_retracing():
    global SCALE
    f = rt.function(scaled, capture_guards="warn")
    try:
        assert f(rt.constant(1.0)).numpy() == 3.0
        SCALE = 4
        with pytest.warns(rt.errors.StaleCaptureWarning,
                          match=r"'SCALE' changed from 3 to 4, but its graph keeps") as caught:
            assert f(rt.constant(1.0)).numpy() == 3.0  # the stale value, as warned
        assert caught[0].filename == __file__  # the warning names the user's call
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert f(rt.constant(2.0)).numpy() == 6.0  # warned once for this value
        assert f.experimental_get_tracing_count() == 1
        SCALE = 3
        assert f(rt.constant(1.0)).numpy() == 3.0
    finally:
        SCALE = 3
    with pytest.raises(ValueError, match="capture_guards must be"):
        rt.function(scaled, capture_guards="retrace")


def test_guard_keys_tell_types_signed_zeros_and_objects_apart():
    global SCALE
    f = rt.function(scaled)
    try:
        SCALE = 1
        assert f(rt.constant(3)).dtype is rt.int32
        SCALE = 1.0  # equal to 1, but a float: a float result, as in Python
        assert f(rt.constant(3.0)).numpy() == 3.0 and f.experimental_get_tracing_count() == 2
        SCALE = np.float32(4.0)  # not a Python constant: keyed by identity
        assert f(rt.constant(3.0)).numpy() == 12.0
        SCALE = np.float32(7.0)
        assert f(rt.constant(3.0)).numpy() == 21.0
    finally:
        SCALE = 3


def test_reads_in_nested_functions_and_class_attributes_are_guarded():
    global SCALE

    def nested(x):
        return (lambda v: v * SCALE)(x)

    f = rt.function(nested)
    try:
        assert f(rt.constant(1.0)).numpy() == 3.0
        SCALE = 5
        assert f(rt.constant(1.0)).numpy() == 5.0
    finally:
        SCALE = 3

    class Model:
        gain = 2.0

        @rt.function
        def __call__(self, x):
            return x * self.gain

    model = Model()
    assert model(rt.constant(1.0)).numpy() == 2.0
    Model.gain = 4.0
    assert model(rt.constant(1.0)).numpy() == 4.0


def test_attribute_names_are_not_mistaken_for_globals():
    f = rt.function(lambda x: x.shape[0] + x)
    for shape in range(3):  # noqa: B007 - a global named like the attribute `x.shape`
        globals()["shape"] = shape
        f(rt.constant([1.0]))
    globals().pop("shape", None)
    assert f.experimental_get_tracing_count() == 1


CFG = __import__("types").SimpleNamespace(scale=2.0, inner=__import__("types").SimpleNamespace(
    shift=1.0))


def _helper(x):
    return x * SCALE


def read_through_attributes_and_helpers(x):
    return _helper(x) * CFG.scale + CFG.inner.shift


def test_attributes_of_outside_objects_and_reads_of_called_functions_are_guarded(caplog):
    global SCALE
    f = rt.function(read_through_attributes_and_helpers)
    x = rt.constant(np.float32(2.0))

    def check():  # the graph against plain Python on numpy values
        assert f(x).numpy() == read_through_attributes_and_helpers(np.float32(2.0))

    try:
        check()
        CFG.scale = 5.0
        check()
        CFG.inner.shift = -1.0
        check()
        with caplog.at_level(logging.INFO, logger="runtime.function"):
            SCALE = 7
            check()
        assert "the global 'SCALE' (read by _helper) changed from 3 to 7" in caplog.text
        assert f.experimental_get_tracing_count() == 4
    finally:
        SCALE, CFG.scale, CFG.inner.shift = 3, 2.0, 1.0


def test_a_user_module_and_self_attribute_chains_and_methods_are_guarded(tmp_path, monkeypatch):
    (tmp_path / "settings_for_guards.py").write_text("GAIN = 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import settings_for_guards as settings

    class Model:
        def __init__(self):
            self.config = __import__("types").SimpleNamespace(bias=1.0)
            self.power = 2

        def _scaled(self, x):
            return x ** self.power

        @rt.function
        def __call__(self, x):
            return self._scaled(x) * settings.GAIN + self.config.bias

    model = Model()
    x = rt.constant(np.float32(3.0))
    for change in (lambda: None, lambda: setattr(settings, "GAIN", 4.0),
                   lambda: setattr(model.config, "bias", -2.0),
                   lambda: setattr(model, "power", 3)):
        change()
        want = np.float32(3.0) ** model.power * np.float32(settings.GAIN) + np.float32(
            model.config.bias)
        assert model(x).numpy() == want


def test_library_objects_are_not_followed():
    from runtime.tracing import capture_guards

    def uses_numpy(x):
        return x * np.pi + rt.constant(np.e)

    assert capture_guards.guards_of(uses_numpy) == []


class _Settings:
    FACTOR = 2.0

    @staticmethod
    def scale(x):
        return x * SCALE

    @classmethod
    def factor(cls, x):
        return x * cls.FACTOR


_Point = __import__("collections").namedtuple("_Point", "x y")


class _Slotted:
    __slots__ = ("gain",)

    def __init__(self):
        self.gain = 2.0


class _Noisy:
    """Attribute access runs code: not followed (a guard must not run user code per call)."""

    reads = 0

    def __getattribute__(self, name):
        type(self).reads += 1
        return 1.0


def test_static_and_class_methods_slots_namedtuples_and_namespaces_are_guarded():
    import argparse

    global SCALE
    point, slotted, args = _Point(1.0, 2.0), _Slotted(), argparse.Namespace(shift=0.5)
    state = {"point": point}

    def fn(x):
        return (_Settings.scale(x) + _Settings.factor(x) + state_point().y * slotted.gain
                + args.shift)

    def state_point():
        return state["point"]

    f = rt.function(fn)
    x = rt.constant(np.float32(1.0))
    try:
        for change in (lambda: None, lambda: globals().__setitem__("SCALE", 5),
                       lambda: setattr(_Settings, "FACTOR", 7.0),
                       lambda: setattr(slotted, "gain", 3.0),
                       lambda: setattr(args, "shift", -1.0)):
            change()
            assert f(x).numpy() == fn(np.float32(1.0))
    finally:
        SCALE, _Settings.FACTOR = 3, 2.0
    noisy = _Noisy()
    from runtime.tracing import capture_guards

    _Noisy.reads = 0
    guards = capture_guards.guards_of(lambda x: x * noisy.value)
    assert guards == [] and _Noisy.reads == 0


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2
    return wrapper


def test_a_decorated_function_defined_in_the_traced_one_reads_its_locals_unguarded():
    """The locals of a call's own frame are not outside values: guarding them made every
    call of `outer` trace again (and left no current trace to save)."""

    @rt.function(input_signature=[rt.TensorSpec([], rt.int32)])
    def outer(x):
        b = 0

        @rt.function(input_signature=[rt.TensorSpec([], rt.int32)])
        @doubled
        def inner(v):
            return v + b

        b = inner(x) - 1
        return b

    assert outer(rt.constant(1)).numpy() == 1
    assert outer(rt.constant(2)).numpy() == 3
    assert outer.experimental_get_tracing_count() == 1
    assert len(outer.current_traces()) == 1


OFFSET = 2.0


def test_get_concrete_function_of_an_input_signature_keys_the_guarded_values_too():
    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def shifted(x):
        return x + OFFSET

    concrete = shifted.get_concrete_function()
    assert shifted(rt.constant(1.0)).numpy() == 3.0
    assert shifted.experimental_get_tracing_count() == 1  # (the call used the same trace)
    assert shifted.get_concrete_function() is concrete


# ---- containers and arrays, by content -------------------------------------------------------

CONFIG = {"max_iter": 3, "scale": 2.0, "sub": {"shift": 1.0}}
COEFFS = [1.0, 2.0]
TABLE = np.array([1.0, 2.0, 3.0])


def iterate(x):
    for _ in range(CONFIG["max_iter"]):
        x = x * CONFIG["scale"]
    return x + CONFIG["sub"]["shift"] + COEFFS[0] * len(COEFFS) + TABLE[0] + (x * TABLE).sum()


@pytest.mark.parametrize("jit_compile", [None, "numba"])
def test_lists_dicts_and_arrays_changed_in_place_are_followed(jit_compile, caplog):
    if jit_compile == "numba":
        pytest.importorskip("numba")
    f = rt.function(iterate, jit_compile=jit_compile)
    saved = (dict(CONFIG, sub=dict(CONFIG["sub"])), list(COEFFS), TABLE.copy())
    changes = [lambda: None, lambda: CONFIG.__setitem__("max_iter", 5),
               lambda: CONFIG["sub"].__setitem__("shift", -0.0),
               lambda: COEFFS.__setitem__(0, 10.0), lambda: COEFFS.append(1.0),
               lambda: TABLE.__setitem__(0, 100.0), lambda: CONFIG.__setitem__("scale", 1.5)]
    try:
        with caplog.at_level(logging.INFO, logger="runtime.function"):
            for change in changes:
                change()
                x = np.float64(1.0)
                assert f(x).numpy() == iterate(x)
                assert f(x).numpy() == iterate(x)  # (the new graph, or the old one: no retrace)
        assert f.experimental_get_tracing_count() == len(changes)
        assert ("the global 'CONFIG' changed from {'max_iter': 3, 'scale': 2.0, 'sub': "
                "{'shift': 1.0}} to {'max_iter': 5, ") in caplog.text
        assert "the global 'COEFFS' changed from [1.0, 2.0] to [10.0, 2.0]" in caplog.text
        assert ("the global 'TABLE' (a float64[3] array) was written into (the graph used its "
                "contents as constants; pass an array that changes as an argument)") in caplog.text
    finally:
        CONFIG.clear()
        CONFIG.update(saved[0])
        COEFFS[:] = saved[1]
        TABLE[:] = saved[2]


def test_a_list_put_back_as_it_was_reuses_the_first_graph():
    values = [0.5, -0.0, float("nan")]

    @rt.function
    def total(x):
        return x + sum(values[:2]) + (1.0 if values[2] != values[2] else 0.0)

    expected = []
    for change in (lambda: None, lambda: values.__setitem__(1, 0.0),
                   lambda: values.__setitem__(1, -0.0)):
        change()
        expected.append(float(1.0 + sum(values[:2]) + 1.0))
        assert total(rt.constant(1.0)).numpy() == expected[-1]
    # -0.0 and 0.0 are told apart; nan equals itself by its bits: two graphs, not three
    assert total.experimental_get_tracing_count() == 2


def test_closure_attribute_set_and_tensor_containers_are_followed():
    weights = {"w": rt.constant(2.0)}
    names = {"a"}

    class Model:
        def __init__(self):
            self.sizes = [1, 2]

        @rt.function
        def __call__(self, x):
            return x * weights["w"] * len(self.sizes) + (1.0 if "b" in names else 0.0)

    model = Model()
    x = rt.constant(1.0)
    assert model(x).numpy() == 4.0
    model.sizes.append(3)
    assert model(x).numpy() == 6.0
    weights["w"] = rt.constant(3.0)  # a tensor replaced: guarded by identity
    assert model(x).numpy() == 9.0
    names.add("b")
    assert model(x).numpy() == 10.0


def test_a_list_the_function_itself_appends_to_is_its_state_not_a_guard():
    log = []

    @rt.function
    def f(x):
        log.append(len(log))  # a Python side effect while tracing
        return x * (len(log) + 1.0)

    for _ in range(4):
        assert f(rt.constant(1.0)).numpy() == 2.0  # the value it was traced with
    assert f.experimental_get_tracing_count() == 1 and log == [0]
    log.append(5)  # not guarded any more: the function changes it itself
    assert f(rt.constant(1.0)).numpy() == 2.0 and f.experimental_get_tracing_count() == 1


def test_a_changed_list_warns_with_capture_guards_warn():
    steps = [1.0]
    f = rt.function(lambda x: x * steps[0], capture_guards="warn")
    assert f(rt.constant(1.0)).numpy() == 1.0
    steps[0] = 2.0
    with pytest.warns(rt.errors.StaleCaptureWarning, match=r"'steps' changed from \[1.0\]"):
        assert f(rt.constant(1.0)).numpy() == 1.0


def test_state_a_graph_changes_when_it_runs_is_not_guarded():
    stats = {"calls": 0}
    seen = []

    def count(a):
        stats["calls"] += 1  # run by the graph, at every call
        seen.append(float(a))
        return a

    @rt.function
    def f(x):
        return rt.numpy_function(count, [x], rt.float32, stateful=True, shape=[]) + 1.0

    for i in range(4):
        assert float(f(rt.constant(float(i)))) == i + 1.0
    assert stats == {"calls": 4} and seen == [0.0, 1.0, 2.0, 3.0]
    assert f.experimental_get_tracing_count() == 1


STATE = np.zeros(3)


def _advance(dt):
    return STATE * dt


def test_an_array_written_into_between_calls_traces_again_and_says_to_pass_it():
    """An array read from outside is a constant of the graph (as any outside value): written
    into between calls, each call traces again, with the right values, and past max_traces the
    warning says which array and what to do."""
    f = rt.function(_advance)
    try:
        with pytest.warns(rt.errors.RetracingWarning,
                          match=r"the global 'STATE' \(a float64\[3\] array\) was written into"):
            for i in range(7):
                STATE[:] = i
                assert np.array_equal(f(np.float64(0.5)).numpy(), STATE * 0.5)
    finally:
        STATE[:] = 0.0


class _Scaler:
    def __init__(self):
        self.gain, self.out = 1.0, {}

    def add(self, a, b):
        return a + b

    @rt.function
    def __call__(self, x):
        self.out["y"] = 0.0  # an item written: only `self.out` is state
        return self.add(x * self.gain, 1.0)  # a method named like a list's: `self` stays read


def test_only_what_the_function_changes_in_place_is_left_unguarded():
    """A guard is dropped only for the container written into (`out[k] = ...`, `log.append`),
    never for what the same line reads (`x * SCALE`), nor for an object whose method has a
    mutating name (`self.add(...)`, `module.update(...)`): those were silently stale."""
    global SCALE
    out = {}

    def h(x):
        out["y"] = 2 * SCALE  # (a Python value, written while tracing)
        return x * SCALE

    f = rt.function(h)
    try:
        assert f(rt.constant(1.0)).numpy() == 3.0
        SCALE = 5
        assert f(rt.constant(1.0)).numpy() == 5.0 and f.experimental_get_tracing_count() == 2
    finally:
        SCALE = 3
    scaler = _Scaler()
    assert scaler(rt.constant(2.0)).numpy() == 3.0
    scaler.gain = 10.0
    assert scaler(rt.constant(2.0)).numpy() == 21.0
    counts = {"n": 0}

    def bump(x):
        counts["n"] += 1  # augmented: counts is state
        return x

    g = rt.function(lambda x: rt.numpy_function(bump, [x], rt.float32, stateful=True, shape=[]))
    for _ in range(3):
        g(rt.constant(1.0))
    assert counts["n"] == 3 and g.experimental_get_tracing_count() == 1


CYCLE: dict = {"scale": 2.0}
CYCLE["self"] = CYCLE
BIG = np.ones(1 << 18)  # 2 MB: past the content budget


def test_cyclic_and_big_outside_values_are_guarded_by_identity():
    f = rt.function(lambda x: x * CYCLE["scale"] + float(BIG[0]))
    assert f(rt.constant(1.0)).numpy() == 3.0
    from runtime.tracing import capture_guards

    assert type(capture_guards.guard_key(BIG)).__name__ == "_Identity"
    assert type(capture_guards.guard_key(CYCLE)).__name__ == "_Identity"
    assert type(capture_guards.guard_key(list(range(20_000)))).__name__ == "_Identity"
    assert capture_guards.guard_key(np.ones(4)) == capture_guards.guard_key(np.ones(4))
