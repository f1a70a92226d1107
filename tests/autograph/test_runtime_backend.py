"""runtime/tracing/autograph_backend.py: staged control flow on the runtime's symbolic tensors, and
errors that name the user's line when tracing with `rt.function`."""

import numpy as np
import pytest

import autograph
import runtime as rt


def ops_of(fn, *args):
    return [op.type for op in fn.get_concrete_function(*args).graph.walk()]


def loop_over_range(n):
    total = 0
    for i in rt.range(n):
        total += i
    return total


def test_for_over_range_is_a_graph_loop_without_materialising():
    f = rt.function(loop_over_range)
    assert f(rt.constant(5)).numpy() == 10
    assert f(rt.constant(0)).numpy() == 0
    types = ops_of(f, rt.constant(5))
    assert "While" in types and "Range" not in types[types.index("While") + 1:]


def loop_over_rows(x):
    total = rt.zeros([2])
    for row in x:
        total = total + row
    return total


def test_for_over_tensor_iterates_dim_0():
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    f = rt.function(loop_over_rows, input_signature=[rt.TensorSpec([None, 2], rt.float32)])
    np.testing.assert_array_equal(f(rt.constant(x)).numpy(), x.sum(0))


def print_loop(n):
    for i in rt.range(n):
        if i % 2 == 0:
            rt.print("even", i)
        else:
            print("odd")  # no tensor argument: a Python print, while tracing
    return n


def test_graph_print_runs_every_call_python_print_once(capsys):
    f = rt.function(print_loop)
    f(rt.constant(3))
    first = capsys.readouterr().out
    assert first.split("\n") == ["odd", "even 0", "even 2", ""]
    f(rt.constant(3))
    assert capsys.readouterr().out.split("\n") == ["even 0", "even 2", ""]


def first_negative(x):
    for v in x:
        if v < 0:
            return v
    return rt.constant(0.0)


def test_return_inside_staged_loop():
    f = rt.function(first_negative, input_signature=[rt.TensorSpec([None], rt.float32)])
    assert f(rt.constant([1.0, -2.0, -3.0])).numpy() == -2.0
    assert f(rt.constant([1.0, 2.0])).numpy() == 0.0


def squares(n):
    out = []
    for i in rt.range(n):
        out.append(i * i)
    return out


def test_list_appended_in_a_staged_loop_is_returned_as_a_python_list():
    f = rt.function(squares)
    assert [t.numpy() for t in f(rt.constant(4))] == [0, 1, 4, 9]
    assert f(rt.constant(0)) == []


def checked(x):
    assert x > 0, "x must be positive"
    return x


def test_assert_becomes_graph_assertion():
    f = rt.function(checked)
    assert f(rt.constant(1)).numpy() == 1
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive"):
        f(rt.constant(-1))


def short_circuit(x, y):
    if y > 0 and x // y > 1:
        return 1
    return 0


def test_and_short_circuits_in_graph():
    f = rt.function(short_circuit)
    assert f(rt.constant(9), rt.constant(0)).numpy() == 0  # x // 0 never runs
    assert f(rt.constant(9), rt.constant(2)).numpy() == 1
    assert "If" in ops_of(f, rt.constant(9), rt.constant(2))


def one_branch(x):
    if x > 0:
        y = x
    return y


def dtype_change(n):
    total = 0.5
    i = 0
    while i < n:
        total = n  # an int32 tensor: the Python float 0.5 cannot become one exactly
        i += 1
    return total


def return_one_branch(x):
    if x > 0:
        return x


def line_of(fn, text):
    lines, start = __import__("inspect").getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_variable_defined_in_one_branch_is_checked_when_the_graph_reads_it():
    fn = rt.function(one_branch)
    assert fn(rt.constant(1)).numpy() == 1
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        fn(rt.constant(-1))  # Python: UnboundLocalError at `return y`
    message = str(info.value)
    assert "'y' is used before it is assigned" in message
    assert f"line {line_of(one_branch, 'return y')}" in message


def test_error_loop_variable_dtype_changes():
    with pytest.raises(TypeError) as info:
        rt.function(dtype_change)(rt.constant(3))
    message = str(info.value)
    assert "'total'" in message and "int32" in message and "0.5" in message
    assert f"line {line_of(dtype_change, 'while i < n')}" in message


def test_error_return_in_one_branch():
    with pytest.raises(autograph.AutoGraphError,
                       match="returned value is None in the false branch") as info:
        rt.function(return_one_branch)(rt.constant(1))
    assert f"line {line_of(return_one_branch, 'if x > 0')}" in str(info.value)


@autograph.do_not_convert
def unconverted(x):
    if x > 0:
        return x
    return -x


def test_error_tensor_as_bool_in_unconverted_code():
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        rt.function(unconverted)(rt.constant(1))
    message = str(info.value)
    assert "Python bool" in message and "autograph" in message
    assert f"line {line_of(unconverted, 'if x > 0')}" in message


def test_graph_ops_record_user_lines():
    f = rt.function(one_branch_ok)
    graph = f.get_concrete_function(rt.constant(1)).graph
    (if_op,) = [op for op in graph.operations if op.type == "If"]
    assert if_op.origin.filename == __file__
    assert if_op.origin.lineno == line_of(one_branch_ok, "if x > 0")


def one_branch_ok(x):
    y = x
    if x > 0:
        y = x * 2
    return y


def test_to_code_of_decorated_function():
    assert autograph.to_code(rt.function(one_branch_ok)) == autograph.to_code(one_branch_ok)


def weighted(x, w):
    total = 0.0
    for i, v in enumerate(x):
        total += v * rt.cast(i, rt.float32)
    for a, b in zip(x, w):
        total += a * b
    return total


def test_enumerate_and_zip_over_tensors_of_unknown_length():
    spec = [rt.TensorSpec([None], rt.float32)] * 2
    f = rt.function(weighted, input_signature=spec)
    x, w = rt.constant([1.0, 2.0, 3.0]), rt.constant([1.0, 1.0, 1.0, 5.0])
    assert f(x, w).numpy() == 14.0
    assert ops_of(f, x, w).count("While") == 2


def doubled_positives(x):
    ys = [v * 2.0 for v in x if v > 0]
    return ys


def test_list_comprehension_over_tensor_of_unknown_length():
    f = rt.function(doubled_positives, input_signature=[rt.TensorSpec([None], rt.float32)])
    assert [t.numpy() for t in f(rt.constant([1.0, -2.0, 3.0]))] == [2.0, 6.0]
