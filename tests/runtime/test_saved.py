"""rt.saved: save traced functions, load them without the source, reject bad files."""

import hashlib
import json
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as rt
from runtime.passes import constant_folding, cse, dead_branch, licm, power, simplify
from runtime.saved import storage

# ---- functions to save (built with rt.cond / rt.while_loop: no converter needed) -------------


def _affine(x, w, b):
    return rt.matmul(x, w) + b


def _relu_sum(x, scale=2.0):
    y = rt.maximum(x, 0.0) * scale
    return {"y": y, "total": rt.reduce_sum(y, axis=(0, 1)), "scale": scale}


def _cond(x):
    return rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)


def _collatz(n):
    def body(n, steps):
        return rt.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), steps + 1

    return rt.while_loop(lambda n, steps: n != 1, body, (n, rt.constant(0)))


def _strings(x, name):
    greeting = rt.strings.join([rt.constant(b"hi "), name])
    rt.print("x is", x, "and name is", name)
    return greeting, x[1:, ::-1][0], rt.cast(x, rt.int32)


def _function(fn):
    return rt.function(fn, autograph=False)


def _round_trip(function, tmp_path):
    rt.saved.save(function, tmp_path)
    return rt.saved.load(tmp_path)


def _assert_same(a, b):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, rt.Tensor):
        assert a.dtype is b.dtype
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    else:
        assert a == b and type(a) is type(b)


# ---- round trips -------------------------------------------------------------------------------

def test_round_trip_keeps_outputs_and_graph(tmp_path):
    f = _function(_affine)
    x, w, b = rt.constant([[1.0, 2.0]]), rt.constant([[2.0], [3.0]]), rt.constant([4.0])
    expected = f(x, w, b)
    loaded = _round_trip(f, tmp_path)
    _assert_same(expected, loaded(x, w, b))
    original = f.get_concrete_function(x, w, b)
    restored = loaded.concrete_functions[0]
    restored.graph.lint()
    assert str(restored.traced_graph) == str(original.graph)  # saved as it ran (nothing fused)
    assert [op.type for op in restored.graph.walk()] == [op.type for op in original.graph.walk()]


def test_every_signature_is_saved_and_dispatched(tmp_path):
    f = _function(_relu_sum)
    small = rt.constant([[1.0, -2.0]])
    big = rt.constant(np.arange(-4.0, 5.0).reshape(3, 3), rt.float32)
    calls = [((small,), {}), ((big,), {}), ((small,), {"scale": 3.0}), ((big, 0.5), {})]
    expected = [f(*a, **k) for a, k in calls]
    loaded = _round_trip(f, tmp_path)
    assert len(loaded.concrete_functions) == 4
    for (args, kwargs), want in zip(calls, expected):
        _assert_same(want, loaded(*args, **kwargs))
    with pytest.raises(TypeError, match="no saved signature matches"):
        loaded(rt.constant([1.0, 2.0, 3.0]))  # a shape never traced
    with pytest.raises(TypeError, match="no saved signature matches"):
        loaded(small, scale=4.0)  # a Python value never traced


def test_cond_while_strings_and_print_round_trip(tmp_path, capsys):
    for i, (fn, args) in enumerate([
        (_cond, [rt.constant([1.0, -3.0])]),
        (_cond, [rt.constant([1.0, 3.0])]),
        (_collatz, [rt.constant(27)]),
        (_strings, [rt.constant([[1.5, 2.5], [3.5, 4.5]]), rt.constant(b"bob")]),
    ]):
        f = _function(fn)
        expected = f(*args)
        loaded = _round_trip(f, tmp_path / str(i))
        capsys.readouterr()
        _assert_same(expected, loaded(*args))
    assert capsys.readouterr().out == "x is [[1.5 2.5]\n [3.5 4.5]] and name is bob\n"


@pytest.mark.parametrize("name", ["power", "lstm_cell", "mse", "gated_activation", "mlp"])
def test_benchmark_workloads_round_trip(name, tmp_path):
    from benchmarks import workloads

    workload = next(w for w in workloads.WORKLOADS if w.fn.__name__ == name)
    args = [rt.constant(a) if isinstance(a, np.ndarray | np.generic) else a
            for a in workload.make_args(True)]
    f = _function(workload.fn)
    expected = f(*args)
    _assert_same(expected, _round_trip(f, tmp_path)(*args))


def test_input_signature_function_converts_python_values(tmp_path):
    f = rt.function(lambda x: x * 2.0, input_signature=[rt.TensorSpec([None], rt.float32)],
                    autograph=False)
    f.get_concrete_function()
    loaded = _round_trip(f, tmp_path)
    np.testing.assert_array_equal(loaded([1.0, 2.0]).numpy(), [2.0, 4.0])


_STEPS = rt.constant(4)
_LABELS = rt.constant(["a", "b"])


def _with_tensor_defaults(x, n=_STEPS, labels=_LABELS, k=2):
    return x * rt.cast(n, rt.float32) + k, rt.strings.join([labels[0], labels[1]])


def test_tensor_defaults_are_saved_with_the_signature(tmp_path):
    f = _function(_with_tensor_defaults)
    x = rt.constant([1.0, 2.0])
    want = f(x)
    loaded = _round_trip(f, tmp_path)
    got = loaded(x)  # the defaults, loaded
    np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
    assert got[1].numpy() == want[1].numpy() == b"ab"


def test_a_concrete_function_can_be_saved(tmp_path):
    concrete = _function(_affine).get_concrete_function(
        rt.TensorSpec([None, 2]), rt.TensorSpec([2, 1]), rt.TensorSpec([1])
    )
    loaded = _round_trip(concrete, tmp_path)
    out = loaded(np.ones((3, 2), np.float32), np.ones((2, 1), np.float32), np.zeros(1, np.float32))
    np.testing.assert_array_equal(out.numpy(), np.full((3, 1), 2.0))


def test_variables_keep_their_values_and_can_be_updated(tmp_path):
    v = rt.Variable([1.0, 2.0], name="weights")

    def step(x):
        v.assign_add(x)
        return v.read_value() * 10.0

    f = _function(step)
    f(rt.constant([0.5, 0.5]))
    loaded = _round_trip(f, tmp_path)
    (restored,) = loaded.variables
    np.testing.assert_array_equal(restored.numpy(), [1.5, 2.5])
    np.testing.assert_array_equal(loaded(rt.constant([1.0, 1.0])).numpy(), [25.0, 35.0])
    restored.assign([0.0, 0.0])
    np.testing.assert_array_equal(loaded(rt.constant([1.0, 2.0])).numpy(), [10.0, 20.0])
    np.testing.assert_array_equal(v.numpy(), [1.5, 2.5])  # the original is a different variable


def test_graphs_are_saved_optimized_and_loading_runs_no_pass_but_fusion(tmp_path, monkeypatch):
    f = _function(lambda x: rt.tanh(x * 2.0 + 1.0) - x * (3.0 - 2.0))  # big enough to be fused
    x = rt.constant(np.linspace(-1, 1, 1 << 16, dtype=np.float32))
    expected = f(x)
    assert "FusedElementwise" in [op.type for op in f.get_concrete_function(x).graph.operations]
    rt.saved.save(f, tmp_path)
    text = (tmp_path / storage.JSON_FILE).read_text()
    assert "FusedElementwise" not in text
    # saved optimized: (3.0 - 2.0) folded, x * 1.0 simplified: one Sub and one Mul are left
    assert text.count('"op": "Sub"') == 1 and text.count('"op": "Mul"') == 1

    def refuse(graph):
        raise AssertionError("an optimizing pass ran while loading")

    for module in (constant_folding, dead_branch, simplify, power, licm, cse):
        monkeypatch.setattr(module, "transform", refuse)
    loaded = rt.saved.load(tmp_path)
    _assert_same(expected, loaded(x))
    assert "FusedElementwise" in [op.type for op in loaded.concrete_functions[0].graph.operations]


def test_untraced_function_and_non_plain_arguments_cannot_be_saved(tmp_path):
    with pytest.raises(rt.saved.SaveError, match="has not been traced"):
        rt.saved.save(_function(_affine), tmp_path)
    f = _function(lambda x, fn: fn(x))
    f(rt.constant(1.0), abs)
    with pytest.raises(rt.saved.SaveError, match="argument 'fn'"):
        rt.saved.save(f, tmp_path)


# ---- load in a fresh process without the source ----------------------------------------------

_MODULE = """
import runtime as rt

counter = rt.Variable(100, name="counter")

@rt.function(autograph=False)
def model(x, n):
    counter.assign_add(n)
    y = rt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * 2.0), (0, x))[1]
    return rt.cond(rt.reduce_max(y) > 20.0, lambda: y, lambda: -y), counter.read_value()
"""

_LOADER = """
import sys, json
import numpy as np
try:
    import secret_model
    sys.exit("the original module must not be importable here")
except ImportError:
    pass
import runtime as rt
loaded = rt.saved.load(sys.argv[1])
x = rt.constant([1.0, 3.0])
out = [loaded(x, 2), loaded(x, n=3)]
loaded.variables[0].assign(0)
out.append(loaded(x, 3))
print(json.dumps([[y.numpy().tolist(), int(c.numpy())] for y, c in out]))
"""


def test_load_and_call_in_a_fresh_process_without_the_module(tmp_path):
    source_dir, saved_dir = tmp_path / "src", tmp_path / "saved"
    source_dir.mkdir()
    (source_dir / "secret_model.py").write_text(textwrap.dedent(_MODULE))
    sys.path.insert(0, str(source_dir))
    try:
        import secret_model
    finally:
        sys.path.remove(str(source_dir))
    x = rt.constant([1.0, 3.0])
    secret_model.model(x, 2)
    secret_model.model(x, 3)
    secret_model.counter.assign(105)
    rt.saved.save(secret_model.model, saved_dir)
    del sys.modules["secret_model"]
    result = subprocess.run([sys.executable, "-c", _LOADER, str(saved_dir)], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        [[-4.0, -12.0], 107], [[8.0, 24.0], 110], [[8.0, 24.0], 3],
    ]


# ---- bad files ----------------------------------------------------------------------------------

@pytest.fixture
def saved_dir(tmp_path):
    v = rt.Variable([1.0, 2.0])

    def model(x, name):
        y = rt.cond(x[0] > 0, lambda: x + v, lambda: x * 2.0)
        z = rt.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), (0, y))[1]
        return rt.strings.join([name, rt.constant(b"!")]), z[::-1], rt.reduce_mean(z ** 2)

    f = _function(model)
    f(rt.constant([1.0, 2.0]), rt.constant(b"n"))
    rt.saved.save(f, tmp_path)
    return tmp_path


def _edit_json(directory, edit):
    path = directory / storage.JSON_FILE
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))


def _first_op(document, op_type):
    stack = [document["functions"][0]["graph"]]
    while stack:
        graph = stack.pop()
        for op in graph["operations"]:
            if op["op"] == op_type:
                return op
            stack.extend(v["graph"] for v in op["attrs"].values()
                         if isinstance(v, dict) and "graph" in v)
    raise AssertionError(op_type)


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.update(version=99), "format version 99"),
    (lambda d: _first_op(d, "Add").update(op="os.system"), "unknown op type 'os.system'"),
    (lambda d: _first_op(d, "Add").update(op="FusedElementwise"), "made by the optimizing"),
    (lambda d: _first_op(d, "Add").update(name="x = __import__('os')"), "not a valid identifier"),
    (lambda d: _first_op(d, "Add")["attrs"].update(axis=1), "do not fit Add"),
    (lambda d: _first_op(d, "Mul")["inputs"].append(["nowhere", 0]), "not an earlier op output"),
    (lambda d: _first_op(d, "If")["outputs"][0].__setitem__(0, "int32"), "the file says int32"),
    (lambda d: _first_op(d, "Const")["attrs"].update(value={"pickle": "x"}), "unexpected JSON"),
    (lambda d: d["functions"][0]["graph"]["outputs"].pop(), "output structure does not match"),
])
def test_tampered_json_gives_a_clear_load_error(saved_dir, edit, message):
    _edit_json(saved_dir, edit)
    with pytest.raises(rt.saved.LoadError, match=message):
        rt.saved.load(saved_dir)


def test_missing_truncated_and_pickled_files_give_a_load_error(saved_dir, tmp_path_factory):
    with pytest.raises(rt.saved.LoadError, match="cannot read"):
        rt.saved.load(tmp_path_factory.mktemp("empty"))
    npz = saved_dir / storage.ARRAYS_FILE
    data = npz.read_bytes()
    npz.write_bytes(data[: len(data) // 2])
    with pytest.raises(rt.saved.LoadError, match="truncated or modified"):
        rt.saved.load(saved_dir)
    # An object array needs pickle to load: refused even when the checksum is made to match.
    np.savez(npz, a0=np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    _fix_checksum(saved_dir)
    with pytest.raises(rt.saved.LoadError, match="not a valid array file"):
        rt.saved.load(saved_dir)


def _fix_checksum(directory):
    digest = hashlib.sha256((directory / storage.ARRAYS_FILE).read_bytes()).hexdigest()
    _edit_json(directory, lambda d: d.update(arrays_sha256=digest))


def _mutate_json_value(rng, document):
    """Replaces, deletes or retypes one random node of the JSON tree."""
    nodes, stack = [], [(None, None, document)]
    while stack:
        parent, key, value = stack.pop()
        nodes.append((parent, key, value))
        if isinstance(value, dict):
            stack.extend((value, k, v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((value, i, v) for i, v in enumerate(value))
    parent, key, _ = rng.choice(nodes[1:])
    junk = rng.choice([None, -1, 0, 2**40, 1.5, "", "Add", "x_0", [], {}, [0], {"tuple": 1},
                       ["x", 0], {"graph": {}}, True, "float64", [None]])
    if rng.random() < 0.3 and isinstance(parent, dict):
        del parent[key]
    elif rng.random() < 0.3 and isinstance(parent, list):
        parent.pop(key)
    else:
        parent[key] = junk


def test_fuzzed_files_only_ever_raise_load_error(saved_dir):
    rng = random.Random(1234)
    json_path, npz_path = saved_dir / storage.JSON_FILE, saved_dir / storage.ARRAYS_FILE
    good_json, good_npz = json_path.read_bytes(), npz_path.read_bytes()
    outcomes = {"loaded": 0, "rejected": 0}
    for trial in range(400):
        json_bytes, npz_bytes = bytearray(good_json), bytearray(good_npz)
        kind = trial % 4
        if kind == 0:  # bit flips in the JSON
            for _ in range(rng.randint(1, 4)):
                json_bytes[rng.randrange(len(json_bytes))] ^= 1 << rng.randrange(8)
        elif kind == 1:  # truncation of either file
            target = json_bytes if rng.random() < 0.5 else npz_bytes
            del target[rng.randrange(len(target)):]
        elif kind == 2:  # structural JSON edits
            document = json.loads(good_json)
            for _ in range(rng.randint(1, 3)):
                _mutate_json_value(rng, document)
            json_bytes = bytearray(json.dumps(document).encode())
        else:  # bit flips in the arrays, with the checksum made to match
            for _ in range(rng.randint(1, 4)):
                npz_bytes[rng.randrange(len(npz_bytes))] ^= 1 << rng.randrange(8)
            document = json.loads(good_json)
            document["arrays_sha256"] = hashlib.sha256(bytes(npz_bytes)).hexdigest()
            json_bytes = bytearray(json.dumps(document).encode())
        json_path.write_bytes(bytes(json_bytes))
        npz_path.write_bytes(bytes(npz_bytes))
        try:
            rt.saved.load(saved_dir)
            outcomes["loaded"] += 1
        except rt.saved.LoadError:
            outcomes["rejected"] += 1
    assert outcomes["rejected"] > 300, outcomes


def test_loading_never_imports_or_runs_code(saved_dir):
    marker = saved_dir / "pwned"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    _edit_json(saved_dir, lambda d: _first_op(d, "Add").update(name=payload))
    with pytest.raises(rt.saved.LoadError):
        rt.saved.load(saved_dir)
    _edit_json(saved_dir, lambda d: _first_op(d, "Add").update(name="add_ok", op=payload))
    with pytest.raises(rt.saved.LoadError):
        rt.saved.load(saved_dir)
    assert not os.path.exists(marker)


def _sum_below(n):
    s = 0
    for i in rt.range(n):
        s += i
    return s


def test_a_for_over_rt_range_runs_after_loading(tmp_path):
    # Issue 15: after loading, constant folding added a constant named like a loaded one
    # (`const_<k>`); the compiled loop read the folded value (a bool) as its start, and
    # np.arange failed. Names that passes add to a loaded graph are now always new.
    fn = rt.function(_sum_below)
    assert fn(rt.constant(5)).numpy() == 10
    rt.saved.save(fn, tmp_path / "f")
    loaded = rt.saved.load(tmp_path / "f")
    for n in (5, 0, 1, 7):
        assert loaded(rt.constant(n)).numpy() == sum(range(n))


def test_a_constant_only_an_untaken_branch_reads_does_not_stop_loading(tmp_path):
    # folding turns `d` into a Const whose dims Fill would refuse; the branch never runs
    def f(x):
        d = rt.constant([3]) - rt.constant([5])
        return rt.cond(x > 0, lambda: rt.reduce_sum(rt.fill(d, 1.0)), lambda: x)

    traced = rt.function(f, autograph=False)
    assert float(traced(rt.constant(-1.0))) == -1.0
    loaded = _round_trip(traced, tmp_path)
    assert float(loaded(rt.constant(-1.0))) == -1.0


def test_files_of_format_version_1_still_load(tmp_path):
    f = _function(_affine)
    x, w, b = rt.constant([[1.0, 2.0]]), rt.constant([[2.0], [3.0]]), rt.constant([4.0])
    expected = f(x, w, b)
    rt.saved.save(f, tmp_path)
    path = tmp_path / storage.JSON_FILE
    document = json.loads(path.read_text())
    document["version"] = 1
    path.write_text(json.dumps(document))
    _assert_same(expected, rt.saved.load(tmp_path)(x, w, b))
    document["version"] = True
    path.write_text(json.dumps(document))
    with pytest.raises(rt.saved.LoadError, match="format version True"):
        rt.saved.load(tmp_path)


def test_resaving_a_loaded_function_writes_the_graph_it_was_loaded_from(tmp_path, monkeypatch):
    f = _function(lambda x: x * 2.0 + 1.0)
    x = rt.constant([1.0, 2.0])
    f(x)
    loaded = _round_trip(f, tmp_path / "a")

    def refuse(graph, fuse=None):
        raise AssertionError("re-saving ran the optimizing passes")

    monkeypatch.setattr(rt.saved, "optimize_graph", refuse)
    rt.saved.save(loaded.concrete_functions[0], tmp_path / "b")
    first = json.loads((tmp_path / "a" / storage.JSON_FILE).read_text())["functions"][0]["graph"]
    again = json.loads((tmp_path / "b" / storage.JSON_FILE).read_text())["functions"][0]["graph"]
    assert first == again


def returns_a_huge_python_int(x):
    return -2 ** 40 ** 3  # computed while tracing: a Python int of 64,001 bits


def test_a_python_int_json_cannot_hold_is_not_plain_data(tmp_path):
    """Found by the random programs: saving it raised json's ValueError (Python's text of an
    int holds at most 4,300 digits) instead of saying it cannot be saved."""
    f = rt.function(returns_a_huge_python_int)
    assert f(rt.constant(0)) == -2 ** 40 ** 3
    with pytest.raises(rt.saved.SaveError, match="64,001 bits is not plain data"):
        rt.saved.save(f, str(tmp_path))
