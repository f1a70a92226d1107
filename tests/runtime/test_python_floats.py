"""The default executor runs graphs of float64 scalars on Python floats
(runtime/executor/python_floats.py): bit for bit what plain Python on numpy scalars gives,
numpy's warnings where a result is inf or nan, numpy's errors under np.errstate, and numpy's
code wherever Python would raise."""

import math
import random
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime.executor import python_floats
from tests import numpy_programs
from tests.runtime.module_files import import_source


def _function(f, **options):
    """`rt.function(f)` giving numpy values for numpy arguments (as `f` does)."""
    return rt.function(f, numpy_results=True, **options)


def _graph(f, *args):
    return _function(f).get_concrete_function(*args).graph


def _bits(value):
    """A result's dtype and bits (nan equal to nan, -0.0 not to 0.0; a Python float is a
    float64: a value the plain run's branch made a Python number is a numpy one in the
    graph's)."""
    if isinstance(value, tuple):
        return tuple(_bits(v) for v in value)
    if isinstance(value, rt.Tensor):
        value = value.numpy()
    value = np.asarray(value)
    return value.dtype, value.tobytes()


def _run(f, *args):
    """(result bits or the error's class, the RuntimeWarnings' messages) of `f(*args)`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = _bits(f(*args))
        except Exception as e:  # noqa: BLE001 - compared with the other run's
            result = type(e)
    return result, sorted({str(w.message) for w in caught if w.category is RuntimeWarning})


def _same(got, expected) -> bool:
    """Whether two `_run` results agree: equal bits, or the graph's error (located at the
    user's line) is also the plain run's kind."""
    if isinstance(got, type) and isinstance(expected, type):
        return issubclass(got, expected)
    return got == expected


def _agree(plain, graph_fn, *args, warnings_too=True):
    expected, expected_warnings = _run(plain, *args)
    got, got_warnings = _run(graph_fn, *args)
    assert _same(got, expected), args
    if warnings_too:
        assert got_warnings == expected_warnings, args


def test_newton_and_bisection_run_on_python_floats_and_agree_bit_for_bit():
    for name in ("newton", "bisection"):
        program, make = numpy_programs.PROGRAMS[name]
        args = make()
        f = _function(program)
        concrete = f.get_concrete_function(*args)
        assert python_floats.applies(concrete.graph)
        assert "float(" in concrete.generated.python_floats
        assert _bits(f(*args)) == _bits(program(*args))
        assert "float64 scalars as Python floats" in concrete.executor


def test_arrays_float32_and_calls_keep_numpy_values():
    def loop(x, n):
        i = 0
        while i < n:
            x = x * 1.5 - 0.25
            i += 1
        return x

    n = np.int64(3)
    assert python_floats.applies(_graph(loop, np.float64(2.0), n))
    assert not python_floats.applies(_graph(loop, np.array([2.0]), n))
    assert not python_floats.applies(_graph(loop, np.float32(2.0), n))

    def printing(x, n):
        i = 0
        while i < n:
            x = x * 1.5
            rt.print(x)
            i += 1
        return x

    assert not python_floats.applies(_graph(printing, np.float64(2.0), n))


# The programs loop `while i < n` with n a numpy integer argument: a loop of the graph (a
# Python int's loop is unrolled while tracing).
N = np.int64(2)


def _division(x, y, n):
    i = 0
    while i < n:
        x = x / y + 1.0
        i += 1
    return x


def _powers(x, y, n):
    i = 0
    while i < n:
        x = abs(x) ** 0.5 + x ** 3 - x ** y
        i += 1
    return x


def _signs_and_roots(x, y, n):
    i = 0
    s = 0.0
    while i < n:
        s = s + np.sign(x) * np.sqrt(y) - np.sign(-x * 0.0)
        i += 1
    return s, np.sign(x) == np.sign(y)


def _counted(x, y, n):
    steps = 0
    while abs(x) > y and steps < 40:
        x = x / 2
        steps += 1
    return x, steps, steps * 0.5


_EDGES = [0.0, -0.0, 1.0, -1.5, 2.5, 1e200, -1e-300, 5e-324, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("program", [_division, _powers, _signs_and_roots, _counted])
def test_edge_values_agree_with_numpy_scalars_with_their_warnings(program):
    f = _function(program)
    x0, y0 = np.float64(1.0), np.float64(2.0)
    assert python_floats.applies(f.get_concrete_function(x0, y0, N).graph)
    for x in _EDGES:
        for y in _EDGES:
            _agree(program, f, np.float64(x), np.float64(y), N)


def test_errstate_raise_is_numpy_s_even_where_no_result_is_inf():
    def shrink(x, n):
        i = 0
        r = 0.0
        while i < n:
            r = r + 1.0 / (x * x)  # x * x overflows to inf, 1 / inf is 0: a finite result
            i += 1
        return r

    f = _function(shrink)
    x = np.float64(1e200)
    assert python_floats.applies(f.get_concrete_function(x, N).graph)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            shrink(x, N)
        with pytest.raises(FloatingPointError):  # (at the user's line)
            f(x, N)
    assert f(x, N) == shrink(x, N) == 0.0  # (the warning numpy gives here is left out)
    with np.errstate(divide="ignore"):
        _agree(_division, _function(_division), np.float64(1.0), np.float64(0.0), N)


def test_seterr_and_warnings_made_errors_give_numpy_s_errors():
    def shrink(x, n):
        i = 0
        r = 0.0
        while i < n:
            r = r + 1.0 / (x * x)  # (finite, through an overflow)
            i += 1
        return r

    f, x = _function(shrink), np.float64(1e200)
    f(x, N)
    old = np.seterr(over="raise")  # (a state the runtime may have seen before, as default)
    try:
        with pytest.raises(FloatingPointError):
            f(x, N)
    finally:
        np.seterr(**old)
    assert f(x, N) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (pytest -W error): numpy's warning is an error
        with pytest.raises(RuntimeWarning):
            shrink(x, N)
        with pytest.raises(RuntimeWarning):
            f(x, N)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=RuntimeWarning)
        with pytest.raises(RuntimeWarning):
            f(x, N)
        warnings.simplefilter("ignore")  # (in place: the first filter changed)
        assert f(x, N) == 0.0
    assert python_floats.only_warns()


@pytest.mark.parametrize("limit", [IndentationError, RecursionError])
def test_code_past_python_s_limits_keeps_numpy_code(monkeypatch, limit):
    # The `try` of the Python-float code is one block and one indent more: loops nested 20 deep
    # (test_break_chains) or 98 nested branches pass Python's limits, and compiling raises
    load = python_floats.codegen.load

    def failing(generated):
        if generated.python_floats is None and "float(" in generated.source:
            raise limit("too many levels of indentation")
        return load(generated)

    monkeypatch.setattr(python_floats.codegen, "load", failing)
    f = _function(_powers)
    x, y = np.float64(1.5), np.float64(2.0)
    assert _bits(f(x, y, N)) == _bits(_powers(x, y, N))
    assert f.get_concrete_function(x, y, N).generated.python_floats is None


def test_floor_division_and_remainder_agree_with_numpy_scalars():
    def ratio(x, y, n):
        i = 0
        while i < n:
            x = x // y + x % y - 1.5  # (Python's float // and % are numpy's algorithm)
            i += 1
        return x

    f = _function(ratio)
    assert python_floats.applies(_graph(ratio, np.float64(1.0), np.float64(2.0), N))
    for x in _EDGES:
        for y in _EDGES:
            _agree(ratio, f, np.float64(x), np.float64(y), N)


_OPS = ["+", "-", "*", "/", "//", "%"]


def _random_program(rng):
    """Source of `def f(x, y, z, steps)`: a loop over float64 scalars with + - * / // % ** abs
    sign sqrt and comparisons, and a counter. Every expression but a lone constant reads a variable
    (an expression of constants is folded while tracing: its warnings come once, then)."""
    def leaf(constants=True):
        if constants and rng.random() < 0.4:
            return rng.choice(["1.5", "-0.5", "2.0", "1e300", "0.0"])
        return rng.choice(["x", "y", "z"])

    def expr(depth):
        if depth == 0 or rng.random() < 0.3:
            return leaf(constants=False)
        kind = rng.random()
        a = expr(depth - 1)
        b = expr(depth - 1) if rng.random() < 0.5 else leaf()
        if rng.random() < 0.5:
            a, b = b, a
        if kind < 0.55:
            return f"({a} {rng.choice(_OPS)} {b})"
        a = a if a[0] not in "-0123456789" else b  # (the one that reads a variable)
        if kind < 0.65:
            return f"({a} ** {rng.choice(['2', '3', '-1', '0.5', b])})"
        if kind < 0.75:
            return f"abs({a})"
        if kind < 0.85:
            return f"np.sign({a})"
        if kind < 0.92:
            return f"np.sqrt({a})"
        return f"(-{a})"

    cond = f"{expr(1)} {rng.choice(['<', '>', '<=', '>=', '==', '!='])} {leaf()}"
    return "\n".join([
        "def f(x, y, z, steps):",
        "    n = 0",
        "    while n < steps:",
        f"        x = {expr(3)}",
        f"        if {cond}:",
        f"            y = {expr(2)}",
        "        else:",
        f"            z = {expr(2)} - y",
        "        n += 1",
        "    return x, y, z, n, x < y",
    ])


def test_random_scalar_programs_agree_with_numpy_scalars(tmp_path):
    rng = random.Random(29)
    checked = 0
    for i in range(60):
        path = tmp_path / f"python_floats_{i}.py"  # (autograph reads the source from a file)
        module = import_source(path, f"import numpy as np\n\n{_random_program(rng)}\n")
        plain, source = module.f, path.read_text()
        f = _function(plain)
        values = [np.float64(rng.choice(_EDGES + [0.75, -3.0, 1e-5])) for _ in range(3)]
        if not python_floats.applies(f.get_concrete_function(*values, N).graph):
            continue
        for _ in range(6):
            args = [np.float64(rng.choice(_EDGES + [0.75, -3.0, 1e-5])) for _ in range(3)]
            args.append(np.int64(rng.randint(0, 4)))
            expected, expected_warnings = _run(plain, *args)
            got, got_warnings = _run(f, *args)
            assert _same(got, expected), (source, args)
            finite = isinstance(expected, tuple) and all(
                np.isfinite(np.frombuffer(b, dtype=t)).all() for t, b in expected[:3])
            if not finite:  # (numpy's warnings where a result is inf or nan)
                assert got_warnings == expected_warnings, (source, args)
            with np.errstate(all="raise"):
                assert _same(_run(f, *args)[0], _run(plain, *args)[0]), (source, args)
            checked += 1
    assert checked >= 200


def test_the_loop_composes_with_auto_saving_and_gradients(tmp_path):
    def decay(x, rate):
        i = 0
        while i < 5:
            x = x - rate * x * x
            i += 1
        return x

    x, rate = np.float64(0.8), np.float64(0.1)
    expected = decay(x, rate)
    for jit in (None, "auto"):
        assert _bits(_function(decay, jit_compile=jit)(x, rate)) == _bits(expected)
    f = _function(decay)
    f(x, rate)
    rt.saved.save(f, tmp_path / "decay")
    loaded = rt.saved.load(tmp_path / "decay")
    assert _bits(loaded(x, rate)) == _bits(expected)
    xt = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(xt)
        y = rt.function(decay)(xt, rt.constant(rate))
    g = float(tape.gradient(y, xt))
    h = 1e-6
    assert math.isclose(g, (decay(x + h, rate) - decay(x - h, rate)) / (2 * h), rel_tol=1e-5)
