"""Python's numbers and builtins over tensors, three ways (plain Python on numpy values, the
converted function on eager tensors, the graph): integers wider than 32 bits, conversions,
bool/int mixes, bitwise operators, the builtins and `math` functions over scalars; and the
refusals by design, each with its message. The folds (`max`, `min`, `sum`, `all`, `any`) over
lists and vectors: test_python_folds.py."""

import math
import operator

import numpy as np
import pytest
from three_way import assert_agree, outcomes

import autograph
import runtime as rt

I64, F32, F64 = np.int64, np.float32, np.float64


# ---- integers wider than 32 bits -------------------------------------------------------------
def last_of_range(x):
    s = 0
    for i in range(x - 3, x):
        s = i
    return s


def count_wide_steps(a):
    s = 0
    for _ in range(0, a, 2**31):
        s += 1
    return s


def to_int(x):
    return int(x)


def to_float(x):
    return float(x)


def range_with_step(a, b, step):
    s = 0
    for i in range(a, b, step):
        s += i
    return s


@pytest.mark.parametrize("x", [I64(2**31 + 3), I64(-(2**40)), I64(5)])
def test_a_loop_counter_takes_the_widest_bound(x):
    assert_agree(last_of_range, x)


def test_steps_beyond_int32():
    assert_agree(count_wide_steps, I64(2**33))
    assert rt.range(0, I64(2**33), I64(2**31)).numpy().tolist() == [0, 2**31, 2**32, 3 * 2**31]
    assert rt.range(2**40, 2**40 + 2).dtype == rt.int64


@pytest.mark.parametrize("x", [I64(2**40), F64(1e10), F64(-2.7), F32(3.9), np.True_, np.int8(-3),
                               F64(np.nan), F64(np.inf), F64(-np.inf), F64(-2.0**63)])
def test_int_gives_pythons_value_or_raises(x):
    python, _, graph = assert_agree(to_int, x)
    if not isinstance(python, Exception):
        assert graph.numpy() == python


def test_int_of_a_float_beyond_int64_is_refused_when_the_graph_runs():
    assert int(F64(1e30)) == 10**30 - 10**30 % 2**50 + int(F64(1e30)) % 2**50  # Python: exact
    with pytest.raises(rt.errors.InvalidArgumentError, match="int.. of a float beyond int64"):
        rt.function(to_int)(rt.constant(F64(1e30)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="cannot convert float NaN"):
        rt.function(to_int)(rt.constant(F64(np.nan)))


@pytest.mark.parametrize("x", [I64(2**53 + 1), np.int32(7), F32(0.1), np.True_])
def test_float_gives_pythons_value(x):
    python, _, graph = assert_agree(to_float, x)
    assert graph.numpy() == python


@pytest.mark.parametrize("step", [0, 2, -1])
def test_range_with_a_zero_step_raises_as_python(step):
    assert_agree(range_with_step, np.int32(1), np.int32(6), np.int32(step))
    assert_agree(range_with_step, np.int32(6), np.int32(1), np.int32(step))


def test_a_zero_step_message():
    with pytest.raises(rt.errors.InvalidArgumentError, match="range.. arg 3 must not be zero"):
        rt.function(range_with_step)(rt.constant(1), rt.constant(6), rt.constant(0))


# ---- conversions of one-element tensors: one rule -------------------------------------------
def conversions(x):
    return int(x), float(x), bool(x), operator.index(x), len(range(x))


def test_one_element_of_any_rank_converts_like_bool():
    """numpy 2.4 refuses int() of a one-element 1-D array while bool() takes it; tensors take
    one rule for all of them, whatever numpy's version."""
    for value in (np.int32(3), np.array([3], np.int32), np.array([[3]], np.int32)):
        eager = conversions(rt.constant(value))
        graph = rt.function(conversions)(rt.constant(value))
        assert eager == (3, 3.0, True, 3, 3)
        assert [t.numpy().item() for t in graph] == [3, 3.0, True, 3, 3]


def test_other_sizes_do_not_convert():
    for fn in (int, float):
        with pytest.raises(TypeError, match=r"shape \[2\]: only a tensor with exactly one"):
            fn(rt.constant([1, 2]))
    with pytest.raises(TypeError, match=r"int\(\) of a tensor of shape \[2\]"):
        rt.function(to_int)(rt.constant([1, 2]))


# ---- bool and int -----------------------------------------------------------------------------
def bool_and_ints(b):
    return b == -1, b == 1, b + 1, b * 3, b == True  # noqa: E712 - what is tested


@pytest.mark.parametrize("b", [np.True_, np.False_])
def test_a_bool_next_to_a_python_int_is_an_int(b):
    assert_agree(bool_and_ints, b)


# ---- hashing -------------------------------------------------------------------------------
def lookup(t):
    return {1.5: 10.0, 3: 20.0}.get(t, 0.0)


def test_a_scalar_finds_its_key_eagerly_and_a_graph_tensor_is_unhashable():
    python, eager, graph = outcomes(lookup, F32(1.5))
    assert python == 10.0 and eager == 10.0
    assert isinstance(graph, TypeError) and "unhashable type: 'SymbolicTensor'" in str(graph)


# ---- formatting ----------------------------------------------------------------------------
def format_by_variable(t):
    template = "v={}"
    return template.format(t)


def percent_by_variable(t):
    template = "v=%s"
    return template % t


def str_of_a_list(a, b):
    return str([a, b])


def test_a_template_in_a_variable_formats_the_value():
    assert rt.function(format_by_variable)(rt.constant(1.5)).numpy() == b"v=1.5"
    assert rt.function(percent_by_variable)(rt.constant(1.5)).numpy() == b"v=1.5"


def test_the_text_of_a_list_holding_graph_tensors_is_made_when_the_graph_runs():
    python, converted, graph = outcomes(str_of_a_list, F32(1.5), F32(2.0))
    assert python == "[np.float32(1.5), np.float32(2.0)]"
    assert converted == graph == python.encode()


@autograph.do_not_convert
def unconverted_format(t):
    return f"{t}"


def test_formatting_a_placeholder_in_unconverted_code_is_refused():
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"Formatting a symbolic tensor \(t:0, float32\[\]\) as text"):
        rt.function(unconverted_format)(rt.constant(1.5))


# ---- bitwise ---------------------------------------------------------------------------------
def bitwise(a, b):
    c = a
    c &= b
    c |= 1
    c <<= 2
    c >>= 1
    c ^= a
    return a & b, a | b, a ^ b, ~a, a << 3, a >> 2, c, a & 5, 6 ^ b


@pytest.mark.parametrize("a, b", [(np.int32(12), np.int32(10)), (np.int32(-7), np.int32(3)),
                                  (I64(2**40 + 5), I64(2**33 + 1)), (np.uint8(200), np.uint8(7))])
def test_bitwise_operators_on_integers(a, b):
    assert_agree(bitwise, a, b)


# ---- abs, round, divmod, pow, math -----------------------------------------------------------
def arithmetic(a, b):
    return abs(a), round(a), round(a, 1), divmod(a, b), pow(a, 2), round(b)


@pytest.mark.parametrize("a, b", [(F32(-2.56), F32(2.0)), (F32(2.5), F32(-0.5)),
                                  (F64(7.25), F64(3.0)), (np.int32(-7), np.int32(2))])
def test_abs_round_divmod_pow(a, b):
    assert_agree(arithmetic, a, b)


def maths(a):
    return (math.sqrt(a), math.floor(a), math.ceil(a), math.trunc(a), math.fabs(a),
            math.exp(a), math.log(a), math.log(a, 2), math.sin(a), math.cos(a), math.tanh(a),
            math.isnan(a), math.isinf(a), math.isfinite(a))


@pytest.mark.parametrize("a", [F64(2.5), F32(0.75), np.int32(3), F64(np.inf), F64(np.nan),
                               F64(-1.0), F64(0.0), F64(800.0)])
def test_math_functions_of_scalars(a):
    assert_agree(maths, a)


def periodic_maths(a):
    return math.tan(a), math.atan(a), math.atan2(a, -2.0), math.hypot(a, 3.0), math.copysign(2, a)


def unit_maths(a):
    return math.asin(a), math.acos(a)


def log_maths(a):
    return math.log10(a), math.log2(a)


def log1p_of(a):
    return (math.log1p(a),)


def overflowing_maths(a):
    return math.expm1(a), math.sinh(a), math.cosh(a)


def fmod_of(a):
    return math.fmod(a, 0.75), math.fmod(2.5, a)


@pytest.mark.parametrize("fn", [periodic_maths, unit_maths, log_maths, log1p_of,
                                overflowing_maths, fmod_of])
@pytest.mark.parametrize("a", [F64(0.5), F32(-0.25), np.int32(3), F64(-1.0), F64(0.0),
                               F64(np.inf), F64(np.nan), F64(800.0), F64(-2.0)])
def test_more_math_functions_of_scalars(fn, a):
    """tan, atan, atan2, asin, acos, log10, log2, log1p, expm1, sinh, cosh, hypot, copysign and
    fmod: Python's value, or an error where Python raises one (domain and range errors). The
    graph runs numpy's float64 ufuncs, which may differ from the C library's in the last bit
    (README, deliberate differences): values agree to 2 ulps."""
    python, *others = outcomes(fn, a)
    for other in others:
        if isinstance(python, Exception):
            assert isinstance(other, Exception), (python, other)
            continue
        assert not isinstance(other, Exception), (python, other)
        for got, want in zip(other, python):
            got = float(np.asarray(got))
            assert (math.isnan(got) and math.isnan(want)) or got == want or (
                abs(got - want) <= 2 * math.ulp(want)), (fn.__name__, got, want)


def truths(a, v):
    return operator.truth(a), operator.not_(a), operator.contains(v, a), operator.index(3)


@pytest.mark.parametrize("a", [F32(2.0), F32(0.0)])
def test_operator_functions(a):
    assert_agree(truths, a, np.float32([1.0, 2.0]))


def hex_of(a):
    return hex(a)


def test_builtins_that_cannot_take_a_graph_value_say_so():
    assert rt.function(hex_of)(5) == "0x5"  # a Python value stays Python
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"hex\(\) of a graph tensor is not supported"):
        rt.function(hex_of)(rt.constant(5))


# ---- a Python number carried by a graph loop, passed to an rt.function ----------------------
add_doubled_sum = rt.function(lambda s, v: s + rt.reduce_sum(v * 2.0))
add_doubled_sum_f64 = rt.function(lambda s, v: s + rt.reduce_sum(v * 2.0),
                                  input_signature=[rt.TensorSpec([], rt.float64),
                                                   rt.TensorSpec([2], rt.float64)])


def carry_through_a_callee(v, n):
    s1, s2 = 0.0, 0
    for _ in rt.range(n):
        s1 = add_doubled_sum(s1, v)
        s2 = add_doubled_sum_f64(s2, v)
    return s1, s2


def test_a_python_numbers_stand_in_stays_one_across_a_call():
    """`s1 = 0.0` carried by the loop stands for a Python number: in the callee it takes the
    float64 of `v`, as the undecorated callee's arithmetic gives."""
    v = np.array([1.0, 2.0])
    graph = rt.function(carry_through_a_callee)(rt.constant(v), rt.constant(3))
    assert [t.dtype for t in graph] == [rt.float64, rt.float64]
    assert [t.numpy() for t in graph] == [18.0, 18.0]


# ---- found by a second reading -----------------------------------------------------------------
def wide_after_int(x, f):
    return int(x) * 100000, int(x) << 40, float(f) / 3


def test_int_and_float_results_are_as_wide_as_python_numbers_in_a_graph():
    assert_agree(wide_after_int, np.int32(100000), F32(1.0))


def narrow_counter(n):
    s = 0
    for i in range(n):
        s = i * 2
    return s


def test_a_range_counter_is_a_python_int():
    assert_agree(narrow_counter, np.int8(100))
    assert_agree(range_with_step, F32(1.0), F32(3.0), F32(1.0))  # floats: a TypeError


def log_base_one(x):
    return math.log(x, 1)


def test_math_log_to_base_one_raises():
    assert_agree(log_base_one, F64(2.0))


def with_default(v):
    return max(v, default=0), min([], default=-1), max([v[0], v[1]], default=5)


def with_key(a, b):
    return max(a, b, key=abs)


def python_scalars_first(x):
    return min(1, 2, x), max([0, 0.5, x])


def generators(v):
    return any(e > 2 for e in v), all(e > 0 for e in v), sum(e * 2 for e in v), max(e for e in v)


def test_max_min_keywords_python_scalars_and_generators():
    python, _, graph = outcomes(with_default, np.float32([1.0, 3.0]))
    assert isinstance(graph, TypeError) and "default=" in str(graph)  # emptiness: run time
    assert_agree(python_scalars_first, I64(-3))
    assert_agree(python_scalars_first, F64(0.25))
    assert_agree(generators, np.float32([1.0, 3.0, 0.5]))
    python, _, graph = outcomes(with_key, F32(-3.0), F32(2.0))
    assert python == -3.0 and "key=" in str(graph)


def weak_int_narrowed(x, t):
    return int(x) + t


def test_a_python_int_that_an_int32_cannot_hold_raises_instead_of_wrapping():
    assert_agree(weak_int_narrowed, F64(3.0), np.int32(1))
    with pytest.raises(rt.errors.InvalidArgumentError, match="Python integer out of bounds"):
        rt.function(weak_int_narrowed)(rt.constant(F64(3e9)), rt.constant(1))


def not_plus_one(x):
    return x < (operator.not_(x) + 1), (not x) + 1, bool(x) + x


@pytest.mark.parametrize("x", [np.int32(0), np.int32(5)])
def test_not_and_bool_give_python_bools(x):
    assert_agree(not_plus_one, x)


def bool_tensor_arithmetic(x, y):
    return (x < y) + x, (x > y) & x, (x < y) * y


def test_a_bool_tensor_takes_the_other_operands_dtype():
    assert_agree(bool_tensor_arithmetic, np.int32(3), np.int32(4))
    assert_agree(bool_tensor_arithmetic, I64(2**40), I64(1))


# ---- Python numbers made from tensors, packed; builtins of captured tensors -----------------
def pack_python_numbers(x, u):
    return rt.stack([int(u), 2]), rt.reduce_sum([float(u), 1.0]), rt.stack([math.floor(x)]), (
        rt.stack([round(u), x * 0]))


def test_python_numbers_made_from_tensors_pack_as_python_numbers():
    python, _, graph = assert_agree(pack_python_numbers, np.int32(3), F32(0.5))
    assert [t.dtype for t in graph] == [rt.int32, rt.float32, rt.int32, rt.int32]


def test_a_python_int_made_from_a_tensor_that_needs_int64_is_refused_when_packed():
    pack = rt.function(lambda big: rt.stack([int(big)]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds for int32"):
        pack(rt.constant(I64(2**40)))


def min_in_an_inner_function(n):
    inner = rt.function(lambda: min(n, 1) + max([n, 0]))
    return inner()


def test_min_of_an_eager_tensor_captured_by_an_inner_trace():
    assert_agree(min_in_an_inner_function, np.int32(2))


def max_on_an_untaken_path(x, u):
    if x > 5:
        return max(I64(2**33), x, u)
    return x


def test_max_of_tensors_of_two_dtypes_is_a_located_error_in_a_graph():
    with pytest.raises(TypeError, match=r"max: operands have different dtypes(.|\n)*"
                       r"test_python_numbers.py\", line \d+\n +return max"):
        rt.function(max_on_an_untaken_path)(rt.constant(1), rt.constant(F32(0.5)))
    assert max_on_an_untaken_path(np.int32(1), F32(0.5)) == 1  # Python: not taken


def round_of_a_python_float_to_digits(u, p):
    return round(math.sqrt(abs(u * u)), 1) < (p[-1] and 1)


def test_round_to_digits_of_a_python_float_stays_a_python_float():
    assert_agree(round_of_a_python_float_to_digits, F32(-1.25), np.array([0.0, 0.5], F32))


def signed_zero_branches(x):
    if x > 0:
        y = 0.0
    else:
        y = -0.0
    return math.copysign(1.0, y), y


def signed_zero_expression(x):
    y = 0.0 if x > 0 else -0.0
    return math.copysign(1.0, y), y


@pytest.mark.parametrize("fn", [signed_zero_branches, signed_zero_expression])
@pytest.mark.parametrize("x", [1.0, -1.0])
def test_zeros_of_other_signs_on_two_paths_keep_their_signs(fn, x):
    # 0.0 == -0.0, but they are two values: the graph kept the true branch's 0.0 for both paths
    assert_agree(fn, np.float32(x))
    sign, y = rt.function(fn)(rt.constant(np.float32(x)))
    assert float(sign) == fn(np.float32(x))[0] == math.copysign(1.0, float(y))


def divide_python_numbers(x):
    y = 0.0 if x > 0 else 2.0  # a Python float on both paths: a weak graph tensor
    k = 0 if x > 0 else 3
    return 1.0 / y, 7 // k, 7 % k


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_dividing_python_numbers_by_zero_raises_as_python(x):
    # Python raises ZeroDivisionError; numpy (and the graph, before) gave inf and 0 silently
    python, eager, graph = assert_agree(divide_python_numbers, np.float32(x))
    assert isinstance(graph, Exception) is (x > 0)
    if x > 0:
        assert "division by zero" in str(graph)


# Python ints are int64 in a graph (as Python floats are float64), so they hold Python's values
# past int32 (they wrapped at int32 before: 6000000000 gave 1705032704); past int64, where
# Python's ints keep growing, the graph raises at the user's line instead of wrapping.

def python_ints_past_int32_in_a_loop(x):
    s = 0
    for _ in rt.range(3):
        s = s + 2_000_000_000
    return s


def python_ints_past_int32_in_a_branch(x):
    s = 2_000_000_000 if x > 0 else 5
    return s + s


@pytest.mark.parametrize("fn", [python_ints_past_int32_in_a_loop,
                                python_ints_past_int32_in_a_branch])
def test_python_ints_past_int32_in_a_graph(fn):
    assert_agree(fn, np.float32(1.0))


def fibonacci(n):
    a, b = 0, 1
    for _ in rt.range(n):
        a, b = b, a + b
    return a


def factorial(n):
    k, product = 0, 1
    for _ in rt.range(n):
        k = k + 1
        product = product * k
    return product


def powers_of_two(n):
    k = 0
    for _ in rt.range(n):
        k = k + 1
    return 2 ** k, -(k - 2 ** 62) * 2 - 2 ** 62


def falling(n):
    s = 0
    for _ in rt.range(n):
        s = s - 4_000_000_000_000_000_000
    return s


@pytest.mark.parametrize("fn, fits, overflows, symbol", [
    (fibonacci, 91, 92, "`+`"), (factorial, 20, 21, "`*`"), (powers_of_two, 62, 63, "`**`"),
    (falling, 2, 3, "`-`")])
def test_python_ints_past_int64_raise_at_the_users_line(fn, fits, overflows, symbol):
    assert_agree(fn, np.int32(fits))  # Python's value, up to int64's largest
    python, eager, graph = outcomes(fn, np.int32(overflows))
    assert isinstance(python, (int, tuple)) and not isinstance(eager, Exception)
    assert isinstance(graph, rt.errors.InvalidArgumentError)
    assert f"{symbol} overflowed int64" in str(graph) and "test_python_numbers.py" in str(graph)


def test_python_int_checks_cost_one_comparison_for_a_counter():
    # `k = k + 1` needs only `k + 1 >= k`; the general check (both operands tensors) needs more
    graph = rt.function(python_ints_past_int32_in_a_loop).get_concrete_function(
        rt.constant(1.0)).graph
    types = [op.type for op in graph.walk()]
    assert types.count("Assert") == 1 and types.count("GreaterEqual") == 1


def negative_float_to_a_fraction(x):
    b = -8.0 if x > 0 else -27.0
    return b ** (1.0 / 3.0)  # Python: a complex number


def zero_to_a_negative_power(x):
    b = 0.0 if x > 0 else 1.0
    return b ** -1  # Python: ZeroDivisionError


def whole_powers(x):
    b = -2.0 if x > 0 else 0.0
    e = 3.0 if x > 0 else 2.0
    return b ** e, b ** 2, (b - 1.0) ** -1  # real, no check needed for the constant powers


def test_powers_of_python_floats_in_a_graph():
    assert_agree(zero_to_a_negative_power, np.float32(1.0))
    assert_agree(zero_to_a_negative_power, np.float32(-1.0))
    assert_agree(whole_powers, np.float32(1.0))
    assert_agree(whole_powers, np.float32(-1.0))
    # Python gives a complex number, a graph computes real ones: refused at the user's line
    python, eager, graph = outcomes(negative_float_to_a_fraction, np.float32(1.0))
    assert isinstance(python, complex) and isinstance(eager, complex)
    assert isinstance(graph, rt.errors.InvalidArgumentError)
    assert "complex" in str(graph) and "return b ** (1.0 / 3.0)" in str(graph)
    assert_agree(positive_float_to_a_fraction, np.float32(1.0))


def positive_float_to_a_fraction(x):
    b = 8.0 if x > 0 else 27.0
    return b ** (1.0 / 3.0)


def float_powers_python_allows(x):
    nan, inf = float("nan"), float("inf")
    b = nan if x > 0 else 2.0
    z = 0.0 if x > 0 else 1.0
    return b ** 0.5, z ** -inf, z ** nan, (-b) ** 2.0


def float_power_overflow(x):
    b = 10.0 if x > 0 else 1.0
    return b ** 400.0  # Python: OverflowError


def int_powers_at_the_edges(x):
    b = -2 if x > 0 else 1
    m = 9_223_372_036_854_775_807 if x > 0 else 1
    return b ** 63, m ** 1


def minus_inf_to_a_fraction(x):
    b = float("-inf") if x > 0 else 4.0
    return b ** 0.5  # Python: inf; numpy: nan


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_powers_follow_cpythons_order_of_cases():
    # a NaN base or an infinite exponent gives Python's number; -2**63 and x ** 1 fit int64
    assert_agree(float_powers_python_allows, np.float32(1.0))
    assert_agree(float_power_overflow, np.float32(1.0))  # raises in all three
    assert_agree(int_powers_at_the_edges, np.float32(1.0))
    python, _, graph = outcomes(minus_inf_to_a_fraction, np.float32(1.0))
    assert python == float("inf") and isinstance(graph, rt.errors.InvalidArgumentError)


def floats_in_a_list(x):
    out = []
    for v in x:
        out.append(float(v))
    return np.array(out)


def test_a_list_of_python_floats_keeps_their_values():
    # the stand-ins of Python floats are float64 in a graph list (float32 lost 1e-300 and 1e300)
    assert_agree(floats_in_a_list, np.array([0.1, 1e-300, 1e300]))


def root_of_negative_zero(x):
    w = -0.0 if x > 0 else 4.0
    e = 0.5 if x > 0 else 2.0
    return w ** 0.5, w ** e  # Python: 0.0 (numpy's power: sqrt's -0.0)


def float_to_an_int_power(x):
    k = 3 if x > 0 else -2
    w = -8.0 if x > 0 else 4.0
    return w ** k  # a Python int exponent is whole: no check of a fraction


@pytest.mark.parametrize("x", [1.0, -1.0])
@pytest.mark.parametrize("fn", [root_of_negative_zero, float_to_an_int_power])
def test_powers_of_python_floats_found_by_the_fuzzer(fn, x):
    assert_agree(fn, np.float32(x))


def carried_exponent_meets_float32(x):
    k = 3 if x > 0 else 1
    return (0.5 ** k) + x  # a Python float: it takes x's float32


def test_a_power_with_a_carried_exponent_stays_a_python_number():
    assert_agree(carried_exponent_meets_float32, np.float32(1.0))
    assert_agree(carried_exponent_meets_float32, np.float32(-1.0))


def largest_counter_plus(x, n):
    m = 0
    for i in range(n):
        m = max(m, i)
    return min(m, 2) + x  # a Python int: it takes x's float32


def smaller_branch_value(x):
    a, b = (3, 1.5) if x > 0 else (4, 2.5)
    return min(a, b) + x, max(a, 7) * x


def bool_powers(b):
    return b ** 2, b ** 3, b ** 1, b ** True


def test_a_bool_array_squared_is_int8_as_numpys():
    """numpy's `**` squares with np.square, whose bool loop gives int8 (np.power: int64)."""
    assert_agree(bool_powers, np.array([True, False]))
    assert_agree(bool_powers, np.array([[False], [True]]))
    assert_agree(bool_powers, np.True_)  # (a numpy bool scalar's `** 2` is int64)


def counters_then_a_tensor(x, n):
    c = 0
    for _ in range(n):
        c += 1
    return min(c, c, x), max(c, 7, x), min(2, c, x)  # the stand-ins' picks meet x's int32


def test_max_and_min_of_python_numbers_stay_python_numbers():
    """Found by the random programs: `max` of two Python numbers' stand-ins was a strong tensor
    (`where` made it one), so adding a float32 value raised a dtype error; so did a third
    argument of another dtype after two stand-ins (`min(c, c, x)`, x int32)."""
    assert_agree(largest_counter_plus, np.float32(1.0), np.int32(3))
    assert_agree(smaller_branch_value, np.float32(1.0))
    assert_agree(smaller_branch_value, np.float32(-1.0))
    assert_agree(counters_then_a_tensor, np.int32(0), np.int32(3))
    assert_agree(counters_then_a_tensor, np.int32(9), np.int32(3))


# ---- Python ints an integer tensor's dtype cannot hold ----------------------------------------
def compared_with_wide_ints(x):
    return (x < 3_000_000_000, 3_000_000_000 > x, x == 2**40, x != -2**40, x >= -2**70,
            x <= -2**70, 2**70 > x, x == 2**70, x > 2**64)


def sum_past_int32_compared(x, n):
    s = 0
    for _ in range(n):
        s = s + 3_000_000_000
    return s > n, s == x


@pytest.mark.parametrize("x", [np.int32(3), np.int8(-3), np.int64(2**62), np.uint8(200)])
def test_comparisons_with_python_ints_past_the_dtype_are_exact(x):
    """numpy compares a Python int with any integer exactly; converting the int to the
    tensor's dtype raised OverflowError (past int64 the answer is one of the int's sign)."""
    assert_agree(compared_with_wide_ints, x)
    assert_agree(compared_with_wide_ints, np.array([x, 0], dtype=x.dtype))


def test_a_python_int_past_int32_compared_with_an_int32_value():
    assert_agree(sum_past_int32_compared, np.int32(3), np.int32(3))
    assert_agree(sum_past_int32_compared, np.int32(9), np.int32(0))


def past_int64_in_a_branch(x, y):
    prod = 2**70 if y < x else 1
    return prod


def test_a_python_int_past_int64_in_a_graph_branch_is_refused_at_the_users_line():
    python, eager, graph = outcomes(past_int64_in_a_branch, np.int32(2), np.int32(1))
    assert python == eager == 2**70
    assert isinstance(graph, TypeError) and "int64 cannot hold" in str(graph)
    assert "prod = 2**70 if y < x else 1" in str(graph)


# ---- `**` of scalars --------------------------------------------------------------------------
def power_of_scalars(u, v):
    return u ** v, u ** 1.5, (u * 0.0) ** 0.5


@pytest.mark.parametrize("dtype", [F32, F64])
def test_powers_of_scalars_round_as_numpy_scalars_do(dtype):
    """numpy scalars' `**` is the C library's pow, np.power's vectorized loop rounds some
    results otherwise (3.0 ** 1.5 in float32, on machines with AVX-512); a tensor of shape ()
    is a scalar, so it computes as plain code on numpy scalars does."""
    for u in (3.0, 0.1, 7.5, -0.0, 2.0):
        assert_agree(power_of_scalars, dtype(u), dtype(1.5))
    assert_agree(power_of_scalars, dtype(-2.0), dtype(0.5))  # nan, in all three


def numpy_comparisons_with_wide_ints(x):
    return (np.less(x, 3_000_000_000), np.greater_equal(x, -2**70), np.equal(2**40, x),
            np.not_equal(x, 2**70))


@pytest.mark.parametrize("x", [np.int32(3), np.uint8(200)])
def test_numpys_comparisons_with_python_ints_past_the_dtype_are_exact(x):
    """Found by a second reading: np.less(t, big) converted the int to t's dtype first."""
    assert_agree(numpy_comparisons_with_wide_ints, x)
    assert_agree(numpy_comparisons_with_wide_ints, np.array([x, 0], dtype=x.dtype))


def big_int_or_float(x):
    p = 2**60 + 1 if x > 0 else 0.5
    return p - 2**60


def small_int_or_float(x):
    p = 3 if x > 0 else 0.5
    return p - 1


def test_a_python_int_a_float64_rounds_next_to_a_float_is_refused_at_the_users_line():
    """Found by a second reading: a graph holds an int on one path and a float on the other as
    float64, which rounded 2**60 + 1 (Python: 1, the graph 0.0); ints a float64 holds exactly
    stay as they were."""
    python, eager, graph = outcomes(big_int_or_float, np.int32(1))
    assert python == eager == 1
    assert isinstance(graph, TypeError) and "float64 cannot hold exactly" in str(graph)
    assert "p = 2**60 + 1 if x > 0 else 0.5" in str(graph)
    assert_agree(small_int_or_float, np.int32(1))
    assert_agree(small_int_or_float, np.int32(-1))


def past_int64_in_a_graph_loop(x, n):
    acc = 0
    for _ in rt.range(n):
        acc = acc + 2_000_000_000
        acc = 2**62 * 1000
    return x


def test_a_python_int_past_int64_a_graph_loop_makes_is_refused_at_the_users_line():
    """Found by the random programs: numpy's OverflowError, without a location."""
    graph = outcomes(past_int64_in_a_graph_loop, np.int32(0), np.int32(2))[2]
    assert isinstance(graph, TypeError) and "int64 cannot hold exactly" in str(graph)
    assert "for _ in rt.range(n):" in str(graph)


def underflowing_power(x):
    base = -4.0 if rt.reduce_sum([1, 1]) < 1 else 4.0  # (a constant once the graph folds it)
    return base ** -600 + x * 0.0


def test_a_power_of_two_constants_that_folding_leaves_runs():
    # `4.0 ** -600` underflows, so constant folding (numpy's errors raised) leaves it: its code
    # was a SyntaxError (the check of a scalar had no operand to check)
    assert_agree(underflowing_power, 1.0)


@rt.function
def offset_of(w):
    r = 1
    for _ in rt.range(w % 3):  # (a graph loop: `r` is a Python number's stand-in)
        r = 1.5 - 26
    return r * 2


def scale_by_offset(u, w):
    items = [0.5, u]
    items[0] = offset_of(w) % 53 - 26
    return rt.reduce_sum(rt.stack(items))


def test_a_python_number_a_compiled_function_returns_to_converted_code_stays_one():
    # called from converted code running eagerly, the compiled function's Python-number
    # result is a Python number, as without the boundary (a float64 tensor there met the
    # float32 one in rt.stack: a dtype error; found by the random programs across boundaries)
    u, w = rt.constant(np.float32(0.0)), rt.constant(np.int32(1))
    eager = autograph.to_graph(scale_by_offset)(u, w)
    graph = rt.function(scale_by_offset)(u, w)
    assert eager.dtype == graph.dtype == rt.float32
    assert float(eager) == float(graph) == 0.5 * 0 + (-49.0 % 53 - 26) + 0.0
    assert isinstance(offset_of(w), rt.Tensor)  # (called from Python, a tensor: the API)


def test_functions_run_eagerly_are_not_traced_to_find_python_numbers():
    calls = []

    @rt.function
    def counted(w):
        calls.append(1)  # (a Python effect: once per run eagerly, once per trace)
        return w * 2

    rt.config.run_functions_eagerly(True)
    try:
        autograph.to_graph(lambda w: counted(w) + 1)(rt.constant(np.int32(1)))
    finally:
        rt.config.run_functions_eagerly(False)
    assert calls == [1]
