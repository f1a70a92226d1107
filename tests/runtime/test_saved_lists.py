"""rt.saved with staged lists: graphs holding list ops and list tensors (rt.TensorList) save,
load and run like the original rt.function, and malformed list parts of a file are LoadErrors."""

import json
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from list_programs import (
    append_in_branch,
    concat_after_loop,
    length_and_index,
    list_of_lists,
    pop_in_loop,
    returns_list,
    set_item_and_extend,
    stack_and_list,
    strings,
)

import runtime as rt
from runtime.saved import storage
from runtime.saved.values import MAX_LIST_DEPTH


def _args(*values):
    return [rt.constant(v) for v in values]


VECTOR = np.float32([1.5, -2.0])
CASES = [
    (stack_and_list, [(3, VECTOR), (1, VECTOR)]),
    (returns_list, [(3, VECTOR), (0, VECTOR)]),
    (concat_after_loop, [(2, VECTOR), (0, VECTOR)]),
    (pop_in_loop, [(2,), (0,), (5,)]),
    (length_and_index, [(5,), (1,)]),
    (set_item_and_extend, [(5,), (0,)]),
    (append_in_branch, [(5,), (0,)]),
    (list_of_lists, [(3, 2), (0, 2), (2, 0)]),
    (strings, [(2,), (0,)]),
]


def _assert_same(a, b):
    if isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        assert isinstance(b, rt.Tensor) and a.dtype is b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def _save_traced(fn, inputs, directory):
    f = rt.function(fn)
    expected = [f(*_args(*a)) for a in inputs]
    rt.saved.save(f, directory)
    return expected


@pytest.mark.parametrize("fn, inputs", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_functions_with_staged_lists_round_trip(fn, inputs, tmp_path):
    expected = _save_traced(fn, inputs, tmp_path)
    loaded = rt.saved.load(tmp_path)
    for args, want in zip(inputs, expected):
        _assert_same(want, loaded(*_args(*args)))


def test_a_returned_list_loads_as_a_python_list_of_tensors(tmp_path):
    _save_traced(returns_list, [(2, VECTOR)], tmp_path)
    out = rt.saved.load(tmp_path)(*_args(3, VECTOR))
    assert type(out) is list and len(out) == 3
    assert all(isinstance(t, rt.Tensor) and t.dtype is rt.float32 for t in out)
    np.testing.assert_array_equal(out[2].numpy(), VECTOR + 2)
    assert rt.saved.load(tmp_path)(*_args(0, VECTOR)) == []
    _save_traced(list_of_lists, [(2, 3)], tmp_path / "nested")
    rows, count = rt.saved.load(tmp_path / "nested")(*_args(2, 3))
    assert [[int(v.numpy()) for v in row] for row in rows] == [[0, 1, 2], [10, 11, 12]]
    assert int(count.numpy()) == 2


def test_errors_of_the_list_ops_stay_errors_after_loading(tmp_path):
    f = rt.function(stack_and_list)
    f(*_args(2, VECTOR))
    rt.saved.save(f, tmp_path)
    loaded = rt.saved.load(tmp_path)
    for function in (f, loaded):  # an empty list cannot be stacked
        with pytest.raises(Exception, match="stack needs at least one tensor"):
            function(*_args(0, VECTOR))
    g = rt.function(pop_in_loop)
    g(*_args(1))
    rt.saved.save(g, tmp_path / "pop")
    with pytest.raises(Exception, match="pop from empty list"):
        rt.saved.load(tmp_path / "pop")(*_args(6))


def test_list_dtypes_and_unknown_item_dims_are_saved_by_name(tmp_path):
    f = rt.function(concat_after_loop,
                    input_signature=[rt.TensorSpec([], rt.int32), rt.TensorSpec([None])])
    f.get_concrete_function()
    rt.saved.save(f, tmp_path)
    text = (tmp_path / storage.JSON_FILE).read_text()
    assert '"list<float32>"' in text
    shapes = [op["attrs"]["element_shape"] for op in _ops(_document(tmp_path), "ListFromItems")]
    assert {"tuple": [None]} in shapes
    loaded = rt.saved.load(tmp_path)
    for n, x in [(2, [1.0, 2.0, 3.0]), (0, [4.0])]:
        _assert_same(f(n, np.float32(x)), loaded(n, np.float32(x)))
    _save_traced(list_of_lists, [(1, 1)], tmp_path / "nested")
    assert '"list<list<int32>>"' in (tmp_path / "nested" / storage.JSON_FILE).read_text()


def test_ops_that_passes_add_to_a_loaded_graph_never_take_a_loaded_name(tmp_path):
    # Folding the list before the loop (and the cast below) adds Const ops to the loaded graph;
    # named from a fresh counter, they took the names of loaded Consts and ran with their values.
    f = rt.function(lambda x: (x + 1.0) * rt.cast(rt.constant(2), rt.float32), autograph=False)
    x = rt.constant([1.5, 2.0])
    expected = f(x)
    rt.saved.save(f, tmp_path)
    loaded = rt.saved.load(tmp_path)
    _assert_same(expected, loaded(x))
    loaded.concrete_functions[0].graph.lint()  # unique op names
    _save_traced(stack_and_list, [(2, VECTOR)], tmp_path / "lists")
    loaded = rt.saved.load(tmp_path / "lists")
    loaded.concrete_functions[0].graph.lint()


# ---- load in a fresh process without the source ----------------------------------------------

_MODULE = """
import runtime as rt

@rt.function
def model(n, x):
    out = []
    for i in rt.range(n):
        out.append(x * rt.cast(i, rt.float32))
    rows = []
    for i in rt.range(n):
        row = []
        for j in rt.range(2):
            row.append(i + j)
        rows.append(row)
    return out, rows, len(out)
"""

_LOADER = """
import sys, json
try:
    import list_model
    sys.exit("the original module must not be importable here")
except ImportError:
    pass
import runtime as rt
loaded = rt.saved.load(sys.argv[1])
result = []
for n in (3, 0):
    out, rows, size = loaded(rt.constant(n), rt.constant([1.0, 2.0]))
    result.append([type(out).__name__, [t.numpy().tolist() for t in out],
                   [[int(v.numpy()) for v in row] for row in rows], int(size.numpy())])
print(json.dumps(result))
"""


def test_load_lists_in_a_fresh_process_without_the_module(tmp_path):
    source_dir, saved_dir = tmp_path / "src", tmp_path / "saved"
    source_dir.mkdir()
    (source_dir / "list_model.py").write_text(textwrap.dedent(_MODULE))
    sys.path.insert(0, str(source_dir))
    try:
        import list_model
    finally:
        sys.path.remove(str(source_dir))
    list_model.model(rt.constant(2), rt.constant([1.0, 2.0]))
    rt.saved.save(list_model.model, saved_dir)
    del sys.modules["list_model"]
    result = subprocess.run([sys.executable, "-c", _LOADER, str(saved_dir)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        ["list", [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]], [[0, 1], [1, 2], [2, 3]], 3],
        ["list", [], [], 0],
    ]


# ---- bad files ----------------------------------------------------------------------------------

@pytest.fixture
def saved_dir(tmp_path):
    _save_traced(stack_and_list, [(2, VECTOR)], tmp_path)
    return tmp_path


def _document(directory):
    return json.loads((directory / storage.JSON_FILE).read_text())


def _edit_json(directory, edit):
    document = _document(directory)
    edit(document)
    (directory / storage.JSON_FILE).write_text(json.dumps(document))


def _ops(document, op_type):
    found, stack = [], [f["graph"] for f in document["functions"]]
    while stack:
        graph = stack.pop()
        for op in graph["operations"]:
            if op["op"] == op_type:
                found.append(op)
            stack.extend(v["graph"] for v in op["attrs"].values()
                         if isinstance(v, dict) and "graph" in v)
    assert found, op_type
    return found


def _first(op_type):
    return lambda d: _ops(d, op_type)[0]


def _set_list_dtype(name):
    return lambda d: _first("ListFromItems")(d)["outputs"][0].__setitem__(0, name)


def _deep(depth):
    return "list<" * depth + "float32" + ">" * depth


@pytest.mark.parametrize("edit, message", [
    (_set_list_dtype("list<float32"), "unknown dtype 'list<float32'"),
    (_set_list_dtype("list<>"), "unknown dtype 'list<>'"),
    (_set_list_dtype("list<int>"), "unknown dtype 'list<int>'"),
    (_set_list_dtype("list<float32>>"), "unknown dtype"),
    (_set_list_dtype("list<os.system>"), "unknown dtype"),
    (_set_list_dtype("List<float32>"), "unknown dtype"),
    (_set_list_dtype(_deep(MAX_LIST_DEPTH + 1)), "unknown dtype"),
    (_set_list_dtype(_deep(10**5)), "unknown dtype"),
    (_set_list_dtype("list<int32>"), "the file says list<int32>"),
    (lambda d: _first("ListFromItems")(d)["attrs"].update(dtype={"dtype": "list<float3>"}),
     "attr 'dtype': unknown dtype"),
    (lambda d: _first("ListFromItems")(d)["attrs"].update(element_shape={"tuple": [-1]}),
     "attr 'element_shape' must be a tuple of ints >= 0 and None"),
    (lambda d: _first("ListFromItems")(d)["attrs"].update(element_shape={"tuple": ["2"]}),
     "attr 'element_shape' must be"),
    (lambda d: _first("ListFromItems")(d)["attrs"].update(element_shape=[2]),
     "attr 'element_shape' must be"),
    (lambda d: _first("ListFromItems")(d)["attrs"].update(element_shape={"tuple": [2, 2]}),
     "the file says"),
    (lambda d: _first("ListFromItems")(d)["attrs"].pop("element_shape"), "do not fit"),
    # list tensors only go into list ops, and list ops get lists where they want them
    (lambda d: _first("ListStack")(d).update(op="Neg"), "Neg does not take list tensors"),
    (lambda d: _first("Cast")(d)["attrs"].update(dtype={"dtype": "list<float32>"}),
     "Cast does not take list tensors or list dtypes"),
    (lambda d: _first("ListStack")(d)["inputs"].__setitem__(0, ["x", 0]),
     "input 0 of ListStack must be a list tensor"),
    (lambda d: _first("ListPushBack")(d)["inputs"].reverse(),
     "input 0 of ListPushBack must be a list tensor"),
])
def test_malformed_list_parts_give_a_clear_load_error(saved_dir, edit, message):
    _edit_json(saved_dir, edit)
    with pytest.raises(rt.saved.LoadError, match=message):
        rt.saved.load(saved_dir)


def test_functions_and_variables_cannot_take_list_dtypes(tmp_path):
    f = rt.function(lambda n, unused: n * 2, autograph=False)
    f(*_args(1, 2.0))
    rt.saved.save(f, tmp_path / "input")

    def list_input(document):
        document["functions"][0]["inputs"][1]["tensor_spec"][0] = "list<float32>"
        _ops(document, "Placeholder")[1]["outputs"][0][0] = "list<float32>"

    _edit_json(tmp_path / "input", list_input)
    with pytest.raises(rt.saved.LoadError, match="cannot be an input of a function"):
        rt.saved.load(tmp_path / "input")

    # a string variable's value is an object array, like a list's: the dtype decides
    v = rt.Variable([b"a"], name="words")
    g = rt.function(lambda: v.read_value(), autograph=False)
    g()
    rt.saved.save(g, tmp_path / "variable")
    rt.saved.load(tmp_path / "variable")
    _edit_json(tmp_path / "variable", lambda d: d["variables"][0].update(dtype="list<string>"))
    with pytest.raises(rt.saved.LoadError, match="is not list<string>"):
        rt.saved.load(tmp_path / "variable")


def test_fuzzed_list_graphs_only_ever_raise_load_error(saved_dir):
    rng = random.Random(4321)
    path = saved_dir / storage.JSON_FILE
    good = json.loads(path.read_text())
    junk = ["list<float32>", "list<list<float32>>", "list<int32>", "list<>", "list<float32",
            "ListStack", "ListPushBack", "ListFromItems", {"tuple": [None]}, {"tuple": [-1]},
            {"dtype": "list<float32>"}, None, 0, [], {}, ["x", 0]]
    outcomes = {"loaded": 0, "rejected": 0}
    for _ in range(300):
        document = json.loads(json.dumps(good))
        nodes, stack = [], [(None, None, document)]
        while stack:
            parent, key, value = stack.pop()
            nodes.append((parent, key))
            items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
                value, list) else ()
            stack.extend((value, k, v) for k, v in items)
        for _ in range(rng.randint(1, 3)):
            parent, key = rng.choice(nodes[1:])
            parent[key] = rng.choice(junk)
        path.write_text(json.dumps(document))
        try:
            rt.saved.load(saved_dir)
            outcomes["loaded"] += 1
        except rt.saved.LoadError:
            outcomes["rejected"] += 1
    assert outcomes["rejected"] > 250, outcomes
