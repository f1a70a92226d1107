"""Bad input gets a clear error at the user's line (issue 10, "Bad input still obscure"), and
valid code that only looks unusual (`match` on Python values) works."""

import sys

import numpy as np
import pytest

import autograph
import runtime as rt

sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/autograph")
from three_way import assert_agree, outcomes  # noqa: E402


def loop_over(x):
    s = 0
    for e in x:
        s = s + e
    return s


def test_iterating_a_0d_tensor_says_so_at_the_loop():
    with pytest.raises(TypeError, match="Cannot iterate over a 0-d tensor") as info:
        rt.function(loop_over)(rt.constant(3))
    assert "for e in x:" in str(info.value)


def by_mode(mode, x):
    total = x
    for i in rt.range(3):
        match mode[0]:
            case "double":
                total = total * 2
            case "stop":
                return total
            case _:
                total = total + i
    return total


def match_on_a_tensor(x):
    match x:
        case 1:
            return 10
    return 0


def test_match_on_python_values_works_also_with_jumps_in_its_cases():
    for mode in ("double", "stop", "other"):
        assert_agree(by_mode, (mode,), 1)


def test_match_on_a_tensor_says_to_write_if_elif():
    python, eager, graph = outcomes(match_on_a_tensor, 1)
    assert python == 10 and eager == 10
    assert isinstance(graph, autograph.AutoGraphError)
    assert "Write it as `if`/`elif`" in str(graph) and "match x:" in str(graph)


def test_a_filtering_comprehension_over_a_tensor_says_how_to_stage_it():
    def f(x):
        return rt.stack([v for v in x if v > 0])

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match="assigned to a name") as info:
        rt.function(f)(rt.constant([1.0, -1.0]))
    assert "return rt.stack([v for v in x if v > 0])" in str(info.value)

    def g(x):
        ys = [v for v in x if v > 0]
        return rt.stack(ys)

    np.testing.assert_array_equal(
        rt.function(g, input_signature=[rt.TensorSpec([None])])(rt.constant([1.0, -1.0, 2.0]))
        .numpy(), [1.0, 2.0])


def test_an_int_beyond_int64_names_the_problem():
    with pytest.raises(TypeError, match="outside the range of int64"):
        rt.constant(2**70)


def count_down(x, d):
    if x > 0:
        x = x + 1
    if d == 0:
        return x
    return count_down(x, d - 1)


def test_recursion_past_pythons_limit_is_one_located_error():
    assert rt.function(count_down)(rt.constant(1), 30).numpy() == 32
    with pytest.raises(autograph.AutoGraphError, match="deeper than Python's limit") as info:
        rt.function(count_down)(rt.constant(1), 2000)
    assert "Write the recursion as a loop" in str(info.value)
    assert len(str(info.value).splitlines()) < 6  # not a note per frame


def test_a_ragged_list_gets_its_own_message():
    with pytest.raises(ValueError, match="different lengths \\(a ragged list\\)"):
        rt.constant([[1, 2], [3]])


def test_rt_function_of_a_non_callable_fails_at_once():
    with pytest.raises(TypeError, match="takes a Python function .* not int 3"):
        rt.function(3)


def test_a_returned_generator_is_refused_while_tracing():
    def f(x):
        return (x * i for i in range(3))

    with pytest.raises(TypeError, match="returns a generator .*return list"):
        rt.function(f)(rt.constant(1.0))


@pytest.mark.no_round_trip
def test_a_function_without_source_warns_at_the_call_and_its_error_says_why():
    namespace = {}
    exec("def f(x):\n    if x > 0:\n        return x\n    return -x\n", namespace)  # noqa: S102
    f = rt.function(namespace["f"])
    with pytest.warns(UserWarning, match="could not convert f") as warned, pytest.raises(
            rt.errors.OperatorNotAllowedInGraphError, match=r"\(Here: autograph could not "
            r"convert f: its source code is not available \(could not get source code: defined "
            r"in a REPL, by exec, or the file changed\); define it in a file"):
        f(rt.constant(1.0))
    assert warned[0].filename == __file__


def test_zip_over_tensors_iterated_in_python_is_a_located_error():
    def indices(a):
        return [i for i, _ in enumerate(a)]

    f = rt.function(indices, input_signature=[rt.TensorSpec([None])])
    with pytest.raises(TypeError, match="can only be the iterable of a `for`"):
        f(rt.constant([1.0, 2.0]))


def test_a_graph_limit_on_a_staged_path_is_raised_while_tracing():
    # unstack needs the size of the axis: a limit of graphs, not an error Python raises, so it
    # is not deferred to when the graph takes the path (Python would never raise it).
    def f(x):
        total = x[0]
        if total > 0:
            total = rt.reduce_sum(rt.stack(rt.unstack(x)))
        return total

    g = rt.function(f, input_signature=[rt.TensorSpec([None])])
    with pytest.raises(rt.errors.GraphLimitError, match="unknown while tracing"):
        g.get_concrete_function()
