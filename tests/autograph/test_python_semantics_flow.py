"""False refusals and misleading errors of control flow, one section each: what plain Python
gives, the converted function gives eagerly and the graph gives (or all three raise the same
kind of error, at the user's line)."""

import collections
import inspect

import numpy as np
from three_way import assert_agree, outcomes

import autograph
import runtime as rt


def located(error, fn, text):
    """Whether `error` (its message and notes) names the line of `fn` that holds `text`."""
    lines, start = inspect.getsourcelines(fn)
    line = start + next(i for i, source in enumerate(lines) if text in source)
    return f"line {line}" in "\n".join([str(error), *getattr(error, "__notes__", ())])


# ---- a loop test used only for its truth -------------------------------------------------------
def break_in_while_on_one_element(x):
    i = 0
    while x > i:
        i += 1
        if i > 3:
            break
    return i


def return_in_while_on_one_element(x):
    i = 0
    while x > i:
        i += 1
        if i > 3:
            return i * 10
    return i


def return_in_for_under_while_constant(n):
    while 7:
        for i in rt.range(n):
            if i > 2:
                return i
    return -1


def test_a_loop_test_with_a_jump_is_used_only_for_its_truth():
    # `not break_ and x > i` (the lowered break) is a condition: a tensor of one element is
    # reduced to a scalar bool, and a Python constant is true, as in Python.
    for x in (np.array([10.0], np.float32), np.array([[2.0]], np.float32)):
        assert_agree(break_in_while_on_one_element, x)
        assert_agree(return_in_while_on_one_element, x)
    assert_agree(return_in_for_under_while_constant, 5)


# ---- a list that starts empty, indexed by the loop's tensor index ------------------------------
def set_item_at_loop_index(n):
    out = []
    for i in range(n):
        out.append(i)
        out[i] = out[i] * 3 + 1
    return out


def set_item_in_while(n):
    out = []
    i = 0
    while i < n:
        out.append(i * 2.0)
        out[i] += out[-1]
        i += 1
    return out


def test_an_empty_list_indexed_by_a_tensor_in_a_loop_is_staged():
    # The items the first (Python-list) iteration appended before it met the tensor index
    # give the staged list its item type.
    for n in (4, 1, 0):
        assert_agree(set_item_at_loop_index, n)
        assert_agree(set_item_in_while, n)


# ---- an error a traced path raised, and the variable it left unassigned ------------------------
def reshape_in_loop(x, n):
    for _ in range(n):
        v = rt.reshape(x, [3, 5])
    return v


def index_in_loop(x, n):
    d = {"items": []}
    for _ in range(n):
        v = d["items"][-1]
        d["items"].append(x)
    return v


def reshape_in_branch(x):
    if rt.reduce_sum(x) > 0:
        v = rt.reshape(x, [3, 5])
    return v


def test_a_variable_left_unassigned_by_a_path_that_raised_raises_that_error():
    # Where plain Python raises in the loop body, the graph raises that error (its type and
    # message, at its line), not the UnboundLocalError of reading `v` after the loop.
    x = np.array([1.0, 2.0], np.float32)
    for fn, args, text in ((reshape_in_loop, (x, 3), "v = rt.reshape"),
                           (index_in_loop, (x, 3), 'v = d["items"][-1]'),
                           (reshape_in_branch, (x,), "v = rt.reshape")):
        python, eager, graph = assert_agree(fn, *args)
        assert type(eager) is type(python) and type(graph) is type(python), (python, graph)
        assert located(graph, fn, text) and located(graph, fn, "return v")
        assert any("where it does not" in note for note in graph.__notes__)
    # Where the path does not run, Python's UnboundLocalError is an error in the graph too.
    assert_agree(reshape_in_loop, x, 0)
    assert_agree(reshape_in_branch, -x)


# ---- recursion inside graph `if`s ----------------------------------------------------------------
def count_up(x, n):
    if x > 1e9:
        return x
    if n == 0:
        return x
    return count_up(x + 1.0, n - 1)


def count_up_forever(x):
    if x > 1e9:
        return x
    return count_up_forever(x + 1.0)


def count_up_40_times(x):
    return count_up(x, 40)


def test_recursion_that_a_python_value_ends_is_not_refused():
    # 40 levels of graph `if`s: more than the 16 allowed to a recursion whose Python arguments
    # repeat (only a tensor could end that one); this one ends on the Python int `n`.
    assert_agree(count_up_40_times, 1.0)


def test_recursion_that_only_a_tensor_could_end_is_a_recursion_error():
    python, _, graph = outcomes(count_up_forever, 1.0)
    assert isinstance(python, RecursionError)
    assert isinstance(graph, RecursionError) and isinstance(graph, autograph.AutoGraphError)
    assert "count_up_forever calls itself inside graph `if`s or loops" in str(graph)
    assert located(graph, count_up_forever, "return count_up_forever(x + 1.0)")
    try:
        rt.function(count_up_forever)(rt.constant(1.0))
    except RecursionError:  # what users catch
        pass


# ---- dict subclasses and namedtuples as structures -------------------------------------------
class Record(dict):
    """A user's dict subclass."""


Pair = collections.namedtuple("Pair", "first second")


def ordered_dict_in_if(x):
    d = collections.OrderedDict(a=x)
    if x > 0:
        d = collections.OrderedDict(a=x + 1)
    return d["a"]


def default_dict_in_if(x):
    d = collections.defaultdict(list)
    d["a"] = x
    if x > 0:
        d["a"] = x * 2.0
    d["b"].append(1)
    return d


def record_in_loop(x, n):
    r = Record(total=x)
    for _ in range(n):
        r = Record(total=r["total"] + 1.0)
    return r


def ordered_dict_of_list_in_loop(n):
    d = collections.OrderedDict(items=[])
    for i in range(n):
        d["items"].append(i)
    return d


def namedtuple_in_if(x):
    p = Pair(x, "label")
    if x > 0:
        p = Pair(x + 1, "label")
    return p


def keys_in_another_order(x):
    if x > 0:
        d = {"a": x, "b": x * 2.0}
    else:
        d = {"b": x * 3.0, "a": x + 1}
    return d


def test_dict_subclasses_and_namedtuples_are_structures_of_their_own_type():
    for fn, args in ((ordered_dict_in_if, (1.0,)), (ordered_dict_in_if, (-1.0,)),
                     (default_dict_in_if, (1.0,)), (record_in_loop, (1.0, 3)),
                     (record_in_loop, (1.0, 0)), (ordered_dict_of_list_in_loop, (3,)),
                     (namedtuple_in_if, (2.0,))):
        python, eager, graph = assert_agree(fn, *args)
        if isinstance(python, (dict, tuple)):
            assert type(eager) is type(python) and type(graph) is type(python), (python, graph)
    assert assert_agree(default_dict_in_if, 1.0)[2].default_factory is list


def test_keys_in_another_order_on_two_paths_are_a_located_error():
    # Python code sees a dict's order (iteration), so it is part of the structure; the leaves
    # once followed each path's order, and the graph swapped the values of 'a' and 'b'.
    _, _, graph = outcomes(keys_in_another_order, -1.0)
    assert isinstance(graph, autograph.AutoGraphError)
    assert "a dict with keys 'b', 'a' in the false branch" in str(graph)
    assert located(graph, keys_in_another_order, "if x > 0")


# ---- locals() ------------------------------------------------------------------------------------
def read_from_locals(x):
    y = x + 1
    return locals()["y"]


def locals_after_if(x):
    y = x + 1
    if x > 0:
        z = y * 2
    else:
        z = y * 3
    return locals()


def locals_in_loop(x):
    total = x
    for i in range(3):
        total = total + i
        names = sorted(vars())
    return total, names


def locals_before_assignments(x):
    early = locals()
    late = x * 2
    return sorted(early), late


def locals_of_closure(x):
    scale = 3.0

    def inner(v):
        return locals(), v * scale

    found, value = inner(x)
    return sorted(found), value


def locals_under_another_name(x):
    get = locals
    return get()


def locals_maybe_assigned(x):
    if x > 0:
        z = x
    return locals()


def test_locals_gives_the_users_variables():
    assert_agree(read_from_locals, 1.5)
    for x in (2.0, -2.0):
        assert_agree(locals_after_if, x)
    assert_agree(locals_in_loop, 1.0)
    assert_agree(locals_before_assignments, 1.0)
    assert_agree(locals_of_closure, 2.0)


def test_locals_that_cannot_be_the_users_variables_is_a_located_error():
    _, eager, graph = outcomes(locals_under_another_name, 1.0)
    for error in (eager, graph):
        assert isinstance(error, autograph.AutoGraphError) and "locals()" in str(error)
        assert located(error, locals_under_another_name, "return get()")
    _, _, graph = outcomes(locals_maybe_assigned, 1.0)
    assert isinstance(graph, autograph.AutoGraphError)
    assert "locals() cannot tell whether 'z' is assigned" in str(graph)
    assert located(graph, locals_maybe_assigned, "return locals()")


def extreme_of_nothing_on_one_path(x):
    found = []
    if x > 0:
        return x * 1.0
    return x * max(found)  # Python's ValueError, on this path only


def test_a_builtins_python_error_on_a_path_not_taken_is_raised_only_there():
    # (it was raised while tracing, for every input: found by the random programs)
    assert_agree(extreme_of_nothing_on_one_path, np.float64(1.0))
    assert_agree(extreme_of_nothing_on_one_path, np.float64(-1.0))
