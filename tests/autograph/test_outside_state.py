"""State outside the function, written while it is traced, three ways: a global, a variable of
an enclosing function, an attribute or item of an object that outlives the call, assigned a
graph value under a tensor `if`/loop or by a plain assignment, is refused at its line and put
back as it was before the call; the function's own objects are carried."""

import numpy as np
import pytest
from three_way import assert_agree

import autograph
import runtime as rt

F32 = np.float32

# ---- state outside the function, written under tensor control flow ----------------------------
COUNTER = 0
TABLE = {"k": 0.0}


def global_in_staged_loop(n):
    global COUNTER
    COUNTER = 0
    for i in rt.range(n):
        COUNTER = COUNTER + i
    return COUNTER * 1


def item_of_a_module_dict(x):
    if x > 0:
        TABLE["k"] = x
    return x


class Counter:
    def __init__(self):
        self.count = 0
        self.state = {"total": 0.0}

    @rt.function
    def step(self, x):
        if x > 0:
            self.count = 1
        return x

    @rt.function
    def accumulate(self, x):
        for _ in rt.range(3):
            self.state["total"] = self.state["total"] + x
        return x


PLACEHOLDER = "so after tracing it would hold the graph's placeholder"


def test_a_global_written_in_a_graph_loop_is_refused_and_left_as_it_was():
    global COUNTER
    COUNTER = 7
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=f"COUNTER is assigned in a graph `if`/loop here, {PLACEHOLDER}.*"
                       "a global variable.*rt.Variable") as caught:
        rt.function(global_in_staged_loop)(rt.constant(4))
    assert COUNTER == 7  # as it was before the call (its plain `COUNTER = 0` is undone too)
    assert "test_outside_state.py\", line" in str(caught.value)
    assert global_in_staged_loop(4) == 6 and COUNTER == 6  # Python


def test_an_item_of_a_module_dict_is_refused_and_left_as_it_was():
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=r"TABLE\['k'\] is "):
        rt.function(item_of_a_module_dict)(rt.constant(2.0))
    assert TABLE == {"k": 0.0}


def test_attributes_of_self_are_refused_and_left_as_they_were():
    counter = Counter()
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="self.count is "):
        counter.step(rt.constant(1.0))
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"self.state\['total'\] is "):
        counter.accumulate(rt.constant(1.0))
    assert counter.count == 0 and counter.state == {"total": 0.0}


def test_a_variable_of_an_enclosing_function_is_refused():
    total = 0.0

    @rt.function
    def add(x):
        nonlocal total
        if x > 0:
            total = x
        return x

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="a variable of an "
                       "enclosing function"):
        add(rt.constant(1.0))
    assert total == 0.0


class Box:
    pass


def own_objects(x):
    box, table = Box(), {"a": 0.0}
    box.v = 0.0
    for _ in rt.range(3):
        box.v = box.v + x
        table["a"] = table["a"] + 1.0
    return box.v + table["a"]


def test_the_functions_own_objects_are_carried():
    assert_agree(own_objects, F32(2.0))


def closure_of_an_unused_nested_function(x, n):
    acc = 0.0

    @rt.function
    def inner():  # closes over acc; never called, never stored
        return acc

    for _ in rt.range(n):
        acc = acc + x
    return acc


def closure_of_an_unused_nested_class(x, n):
    acc = 0.0

    class Reader:  # a class holds itself in a cycle (its __dict__, its __mro__)
        def read(self):
            return acc

    for _ in rt.range(n):
        acc = acc + x
    return acc


@pytest.mark.parametrize("fn", [closure_of_an_unused_nested_function,
                                closure_of_an_unused_nested_class], ids=lambda f: f.__name__)
def test_a_cell_only_the_functions_own_garbage_holds_is_carried(fn):
    """The cell of `acc` is held by what the call made and dropped (a nested rt.function or
    class, kept alive by its own reference cycle while the collector is off): it was refused
    as state outside the function, where Python returns the sum."""
    assert_agree(fn, F32(2.0), np.int32(3))


def test_no_placeholder_is_left_when_the_trace_fails_later():
    counter = Counter()

    @rt.function
    def step_then_fail(obj, x):
        if x > 0:
            obj.count = 1
        return rt.reshape(x, [3])

    with pytest.raises(rt.errors.InvalidArgumentError):
        step_then_fail(counter, rt.constant(1.0))
    assert counter.count == 0


class Holder:
    attr = 0


HELD = Holder()


def put_if_positive(obj, v):
    if v > 0:
        obj.attr = v


def read_back_after_a_helpers_write(x):
    if x < 0:
        HELD.attr = 1
    else:
        put_if_positive(HELD, x)
    return HELD.attr


def test_outside_state_read_back_in_the_same_call_is_refused_at_the_write():
    HELD.attr = 0
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=f"obj.attr is assigned in a graph `if`/loop here, {PLACEHOLDER}"
                       r"(.|\n)*test_outside_state.py\", line \d+\n +if v > 0:"):
        rt.function(read_back_after_a_helpers_write)(rt.constant(1))
    assert HELD.attr == 0
    assert read_back_after_a_helpers_write(1) == 1  # Python


LAST = {"y": None}
TOTAL = 0.0


class Recorder:
    def __init__(self):
        self.last = None

    def remember(self, x):
        y = x * 2.0
        self.last = y
        return y


def item_of_a_module_dict_assigned(x):
    LAST["y"] = x + 1.0
    return x


def global_assigned(x):
    global TOTAL
    TOTAL = x + 1.0
    return x


def own_objects_assigned(x):
    box, table = Box(), {}
    box.v = x * 2.0
    table["a"] = box.v
    return table["a"]


def test_a_plain_assignment_of_a_graph_value_to_outside_state_is_refused_at_its_line():
    recorder = Recorder()
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                       match=r"self.last is assigned a graph value here(.|\n)*"
                       r"test_outside_state.py\", line \d+\n +self.last = y"):
        rt.function(recorder.remember)(rt.constant(1.0))
    assert recorder.last is None
    assert autograph.to_graph(recorder.remember)(rt.constant(1.0)).numpy() == 2.0  # eager
    assert recorder.last.numpy() == 2.0
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=r"LAST\['y'\] is "):
        rt.function(item_of_a_module_dict_assigned)(rt.constant(1.0))
    assert LAST == {"y": None}
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match="TOTAL is .*a global"):
        rt.function(global_assigned)(rt.constant(1.0))
    assert TOTAL == 0.0
    assert "ag__.writing(ag__.Global('TOTAL', globals()))" in autograph.to_code(global_assigned)


def test_plain_assignments_to_the_functions_own_objects_are_fine():
    assert_agree(own_objects_assigned, F32(2.0))


BIG_TABLE = [float(i) for i in range(30_000)]  # (a big module does not hide what is below)
NESTED = {"a": {"b": {"c": {"d": {"e": Box()}}}}}


class Settings:
    state = {"v": 0.0}


def deep_item(x):
    if x > 0:
        NESTED["a"]["b"]["c"]["d"]["e"].v = x
    return x


def class_attribute_item(x):
    if x > 0:
        Settings.state["v"] = x
    return x


def returned_object(x):
    box = Box()
    box.v = 0.0
    if x > 0:
        box.v = x
    return box


@pytest.mark.parametrize("fn, name", [(deep_item, r"NESTED\['a'\]\['b'\]\['c'\]\['d'\]\['e'\].v"),
                                      (class_attribute_item, r"Settings.state\['v'\]"),
                                      (returned_object, "box.v")])
def test_whatever_holds_the_object_it_is_refused(fn, name):
    NESTED["a"]["b"]["c"]["d"]["e"].v = 0.0
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=f"{name} is assigned"):
        rt.function(fn)(rt.constant(1.0))
    assert NESTED["a"]["b"]["c"]["d"]["e"].v == 0.0 and Settings.state == {"v": 0.0}


class WriteOnlyUntilSet:
    """A property that raises when read before it is first set."""

    def __init__(self):
        self._value = None

    @property
    def value(self):
        if self._value is None:
            raise RuntimeError("not set yet")
        return self._value

    @value.setter
    def value(self, v):
        self._value = v


def test_an_attribute_whose_getter_raises_can_still_be_set_while_tracing():
    holder = WriteOnlyUntilSet()

    @rt.function
    def set_then_add(x):
        holder.value = 3
        return x + 1.0

    assert set_then_add(rt.constant(1.0)).numpy() == 2.0 and holder.value == 3


def _registered(fn):
    return fn


def writer_never_called(x, n):
    count = x * 0.0

    def bump():
        nonlocal count
        count = count + 1.0

    k = 0
    while k < n:  # no call here can reach `bump` (nothing loads its name): count is not loop state
        x = abs(x) * 0.5
        k += 1
    return x, count


def writer_called_in_the_loop(x, n):
    count = x * 0.0

    def bump():
        nonlocal count
        count = count + 1.0

    for _ in rt.range(n):
        bump()
        x = x * 0.5
    return x, count


def writer_reachable_through_a_decorator(x, n):
    count = x * 0.0

    @_registered
    def bump():
        nonlocal count
        count = count + 1.0

    steps = [bump]
    for _ in rt.range(n):
        steps[0]()
    return count


class _Hooked:
    def __init_subclass__(cls, hook=None, **kwargs):
        cls.hook = staticmethod(hook)


def writer_reachable_through_a_class_keyword(x, n):
    count = x * 0.0

    def bump():
        nonlocal count
        count = count + 1.0

    class Holder(_Hooked, hook=bump):
        pass

    for _ in rt.range(n):
        Holder.hook()
    return count


def writer_called_as_a_metaclass(x, n):
    count = x * 0.0

    def bump(name, bases, namespace):
        nonlocal count
        count = count + 1.0
        return type(name, bases, namespace)

    for _ in rt.range(n):
        class Made(metaclass=bump):  # (a class statement calls its metaclass: no call written)
            pass
    return count


def writer_in_a_generator_expression(x, n):
    count = x * 0.0
    counting = ((count := count + 1.0) for _ in range(100))  # (assigns the function's count)
    for _ in rt.range(n):
        next(counting)
    return count


@pytest.mark.parametrize("fn", [writer_never_called, writer_called_in_the_loop,
                                writer_reachable_through_a_decorator,
                                writer_reachable_through_a_class_keyword,
                                writer_called_as_a_metaclass, writer_in_a_generator_expression])
def test_a_nested_function_writing_a_variable_makes_it_loop_state_where_a_call_can_reach_it(fn):
    # A nested function that writes a variable of its function (nonlocal) makes every loop
    # that calls anything carry it, unless nothing can call the nested function (a plain def
    # whose name nothing loads): then a loop does not carry it (and a decorated callee's
    # closure no longer made the loop's write of it look like outside state). The class
    # holding `bump` is in a reference cycle until collected: it was refused as holding the
    # cell outside the call (test_a_cell_only_the_functions_own_garbage_holds_is_carried).
    assert_agree(fn, F32(3.0), np.int32(4))
    assert ("Nonlocal('count')" in autograph.to_code(fn)) is (fn is not writer_never_called)
