"""rt.saved against hostile directories: loading ends, quickly and in bounded memory, with a
LoadError or a working function. Special files (FIFOs, sockets, devices), symlinks (to devices,
directories, nowhere), oversized and forged array files, huge declared shapes and constant-
folding bombs are loaded in a separate process with a per-case time cap (faulthandler ends the
process), an address-space cap (RLIMIT_AS) and a tracemalloc peak cap for each load."""

import hashlib
import io
import json
import os
import random
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.saved import storage
from runtime.saved.values import ArrayWriter, encode

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="FIFOs, device nodes, RLIMIT_AS and /proc as on Linux")

CASE_SECONDS = 10  # each load must end within this
ADDRESS_SPACE = 1 << 30  # RLIMIT_AS of the loading process
PEAK_BYTES = 64 << 20  # what one load may allocate (tracemalloc sees numpy's buffers too)

_WORKER = """
import faulthandler, gc, json, resource, sys, time, tracemalloc

listing, limit, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
import runtime as rt

tracemalloc.start()
for label, directory in json.load(open(listing)):
    print(json.dumps({"start": label}), flush=True)
    faulthandler.dump_traceback_later(seconds, exit=True)
    gc.collect()  # (what earlier loads left in reference cycles is not this load's)
    tracemalloc.reset_peak()
    start = time.perf_counter()
    try:
        rt.saved.load(directory)
        outcome = "loaded"
    except rt.saved.LoadError as e:
        outcome = "rejected: " + str(e)
    except BaseException as e:
        outcome = "crashed: " + type(e).__name__ + ": " + str(e)
    elapsed = time.perf_counter() - start
    faulthandler.cancel_dump_traceback_later()
    print(json.dumps({"label": label, "outcome": outcome[:400], "seconds": elapsed,
                      "peak": tracemalloc.get_traced_memory()[1]}), flush=True)
"""


def _load_all(cases: dict, tmp_path) -> dict:
    """Loads every case directory in one capped worker process; the results by label."""
    listing = tmp_path / "cases.json"
    listing.write_text(json.dumps([[label, str(d)] for label, d in cases.items()]))
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    try:
        result = subprocess.run(
            [sys.executable, "-c", _WORKER, str(listing), str(ADDRESS_SPACE), str(CASE_SECONDS)],
            cwd=tmp_path, env=env, capture_output=True, text=True,
            timeout=CASE_SECONDS + 120)
        stdout, stderr, code = result.stdout, result.stderr, result.returncode
    except subprocess.TimeoutExpired as e:
        stdout, stderr, code = e.stdout or "", e.stderr or "", "timeout"
    if isinstance(stdout, bytes):
        stdout, stderr = stdout.decode(), stderr.decode()
    lines = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    results = {r["label"]: r for r in lines if "label" in r}
    started = [r["start"] for r in lines if "start" in r]
    unfinished = [label for label in started if label not in results]
    assert code == 0 and not unfinished, (
        f"the loader did not end within {CASE_SECONDS} s (or died) on {unfinished}; exit "
        f"{code}:\n{stderr[-3000:]}")
    return results


def _check(results: dict, expected: dict) -> dict:
    """Every load ended in time, under the memory cap, with a LoadError or a function (the one
    `expected` names, "either" for both); returns the outcome counts by kind."""
    counts = {}
    for label, result in results.items():
        outcome = result["outcome"]
        assert outcome == "loaded" or outcome.startswith("rejected: "), (label, outcome)
        assert "allocate" not in outcome and "Memory" not in outcome, (label, outcome)
        assert result["seconds"] < CASE_SECONDS, (label, result)
        assert result["peak"] < PEAK_BYTES, (label, result["peak"], outcome)
        want = expected.get(label, "either")
        if want != "either":
            assert outcome.startswith(want), (label, want, outcome)
        kind = label.split("/")[0]
        tally = counts.setdefault(kind, {"loaded": 0, "rejected": 0})
        tally["loaded" if outcome == "loaded" else "rejected"] += 1
    return counts


# ---- a valid saved function, and hand-made graphs ----------------------------------------------

def _save_valid(directory):
    f = rt.function(lambda x: rt.reduce_sum(x * 2.0) + rt.constant(1.0), autograph=False)
    f(rt.constant([1.0, 2.0]))
    rt.saved.save(f, directory)
    return directory


class _Graph:
    """Builds one saved function op by op, as a hostile file would hold it."""

    def __init__(self):
        self.arrays = ArrayWriter()
        self.ops, self.inputs, self.specs = [], [], []

    def op(self, op_type, inputs=(), attrs=None, outputs=()):
        name = f"{op_type.lower()}_{len(self.ops)}"
        self.ops.append({
            "name": name, "op": op_type, "inputs": [[n, 0] for n in inputs],
            "attrs": {k: encode(v, self.arrays) for k, v in (attrs or {}).items()},
            "outputs": [[d, list(s)] for d, s in outputs], "origin": None})
        return name

    def const(self, value):
        value = np.asarray(value)
        return self.op("Const", (), {"value": value}, [(value.dtype.name, value.shape)])

    def placeholder(self, dtype, shape):
        name = self.op("Placeholder", (), {"name": None}, [(dtype, shape)])
        self.inputs.append(name)
        self.specs.append({"tensor_spec": [dtype, list(shape), None]})
        return name

    def save(self, directory, *outputs):
        arg_names = [f"x{i}" for i in range(len(self.inputs))]
        graph = {"name": "g", "inputs": [[n, 0] for n in self.inputs],
                 "outputs": [[n, 0] for n in outputs], "operations": self.ops}
        document = {
            "name": "g", "converts_python_values": False, "variables": [],
            "parameters": [{"name": a, "kind": "POSITIONAL_OR_KEYWORD"} for a in arg_names],
            "functions": [{"name": "g", "arg_names": arg_names, "inputs": self.specs,
                           "outputs": {"tuple": [{"output": i} for i in range(len(outputs))]},
                           "optimize": True, "graph": graph}]}
        storage.write(directory, document, self.arrays.arrays)
        return directory


def _scalar_sum(g, name, dtype="float32"):
    return g.op("Sum", [name], {"axis": None, "keepdims": False}, [(dtype, ())])


def _folding_bombs(root) -> dict:
    """Ops on constants whose results are huge (each one kept an op: loading must not run
    it), and many ops whose folding together would take long."""
    bombs = {}
    n = 10**5

    def add(label, build):
        g = _Graph()
        bombs[label] = g.save(root / label.replace("/", "_"), build(g))

    def tile(g):  # the file: Tile(ExpandDims(Const)) of 2 GB
        e = g.op("ExpandDims", [g.const(np.float32([1.0]))], {"axis": 0}, [("float32", (1, 1))])
        return _scalar_sum(g, g.op("Tile", [e], {"multiples": (1, 5 * 10**8)},
                                   [("float32", (1, 5 * 10**8))]))

    def broadcast(g):
        return _scalar_sum(g, g.op("BroadcastTo", [g.const(np.float32(1))],
                                   {"shape": (10**9,)}, [("float32", (10**9,))]))

    def fill(g):
        dims, one = g.const(np.int32([n, n])), g.const(np.float32(1))
        return _scalar_sum(g, g.op("Fill", [dims, one], {}, [("float32", (n, n))]))

    def dynamic(op_type):
        def build(g):
            x, shape = g.const(np.float32([[1.0]])), g.const(np.int32([n, n]))
            return _scalar_sum(g, g.op(op_type, [x, shape], {}, [("float32", (n, n))]))
        return build

    def range_(length, bounds, dtype):
        def build(g):
            ins = [g.const(np.asarray(b, dtype)) for b in bounds]
            out = g.op("Range", ins, {"length": length}, [(dtype, (length,))])
            return _scalar_sum(g, out, dtype)
        return build

    def linspace(g):
        ins = [g.const(np.float32(0)), g.const(np.float32(1))]
        out = g.op("LinSpace", ins, {"num": 10**9, "axis": 0}, [("float32", (10**9,))])
        return _scalar_sum(g, out)

    def outer(op_type):
        def build(g):
            a, b = g.const(np.ones((n, 1), np.float32)), g.const(np.ones((1, n), np.float32))
            return _scalar_sum(g, g.op(op_type, [a, b], {}, [("float32", (n, n))]))
        return build

    def gather(g):
        params, indices = g.const(np.ones((1, 10**4), np.float32)), g.const(np.zeros(n, np.int32))
        out = g.op("GatherV2", [params, indices], {"axis": 0}, [("float32", (n, 10**4))])
        return _scalar_sum(g, out)

    def pack(op_type, attrs, shape):
        def build(g):
            c = g.const(np.ones(n, np.float32))
            return _scalar_sum(g, g.op(op_type, [c] * 2000, attrs, [("float32", shape)]))
        return build

    def where(g):  # 2**17 true items of rank 64: 2**23 coordinates
        cond = g.const(np.ones((1,) * 63 + (1 << 17,), bool))
        out = g.op("Where", [cond], {}, [("int64", (None, 64))])
        return _scalar_sum(g, out, "int64")

    def empty_axis(g):  # a 0-byte constant of 10**8 rows: its row sums would take 400 MB
        x = g.const(np.zeros((10**8, 0), np.float32))
        return _scalar_sum(g, g.op("Sum", [x], {"axis": 1, "keepdims": False},
                                   [("float32", (10**8,))]))

    def many(op_type, a_shape, b_shape, count):  # each fold is allowed, all of them are not
        def build(g):
            a, b = g.const(np.ones(a_shape, np.float32)), g.const(np.ones(b_shape, np.float32))
            outs = [g.op(op_type, [a, b], {}, [("float32", (a_shape[0], b_shape[1]))])
                    for _ in range(count)]
            return _scalar_sum(g, g.op("Pack", outs, {"axis": 0},
                                       [("float32", (count, a_shape[0], b_shape[1]))]))
        return build

    def many_sums(g):
        c = g.const(np.ones(1 << 22, np.float32))
        sums = [_scalar_sum(g, c) for _ in range(1000)]
        return _scalar_sum(g, g.op("Pack", sums, {"axis": 0}, [("float32", (1000,))]))

    add("folding/tile", tile)
    add("folding/broadcast_to", broadcast)
    add("folding/fill", fill)
    add("folding/dynamic_tile", dynamic("DynamicTile"))
    add("folding/dynamic_broadcast_to", dynamic("DynamicBroadcastTo"))
    add("folding/range_unknown_length", range_(None, (0, 10**10, 1), "int64"))
    add("folding/range_lying_length", range_(5, (0, 10**10, 1), "int64"))
    add("folding/range_float", range_(None, (0.0, 1e10, 1.0), "float32"))
    add("folding/linspace", linspace)
    add("folding/matmul_outer", outer("MatMul"))
    add("folding/add_broadcast", outer("Add"))
    add("folding/gather", gather)
    add("folding/pack", pack("Pack", {"axis": 0}, (2000, n)))
    add("folding/concat", pack("ConcatV2", {"axis": 0}, (2000 * n,)))
    add("folding/where_rank_64", where)
    add("folding/empty_axis_reduction", empty_axis)
    add("folding/many_matmuls", many("MatMul", (64, 1 << 14), (1 << 14, 64), 300))
    add("folding/big_matmuls", many("MatMul", (256, 1 << 13), (1 << 13, 256), 50))
    add("folding/many_sums", many_sums)
    return bombs


def _huge_shapes(root) -> dict:
    """Declared shapes and sizes far beyond memory: loading must not allocate them."""
    cases, big = {}, 10**12

    def add(label, build):
        g = _Graph()
        cases[label] = g.save(root / label.replace("/", "_"), *build(g))

    def placeholder(shape):
        def build(g):
            x = g.placeholder("float32", shape)
            return [_scalar_sum(g, g.op("Mul", [x, g.const(np.float32(2))], {},
                                        [("float32", shape)]))]
        return build

    def unpack(g):
        x = g.const(np.float32([1.0]))
        return [g.op("Unpack", [x], {"num": 10**9, "axis": 0}, [("float32", ())])]

    def shape_operand(op_type, position):
        def build(g):
            shape = g.const(np.ones(10**6, np.int32))
            ins = [g.const(np.float32(1)), shape] if position else [shape, g.const(np.float32(1))]
            return [g.op(op_type, ins, {}, [("float32", (1,) * 10)])]
        return build

    def template(text, style):
        def build(g):
            x = g.const(np.float32(1))
            return [g.op("StringFormat", [x], {"template": text, "style": style},
                         [("string", ())])]
        return build

    def spec(g):  # an op's output spec with a huge dim where inference knows it
        x = g.placeholder("float32", [None])
        return [g.op("Neg", [x], {}, [("float32", (big,))])]

    add("shapes/placeholder_2**62", placeholder([2**62]))
    add("shapes/placeholder_10**30", placeholder([10**30]))
    add("shapes/placeholder_64_dims", placeholder([10**6] * 64))
    add("shapes/placeholder_65_dims", placeholder([1] * 65))
    add("shapes/output_spec", spec)
    add("shapes/unpack_num", unpack)
    add("shapes/fill_operand", shape_operand("Fill", 0))
    add("shapes/reshape_operand", shape_operand("DynamicReshape", 1))
    add("shapes/format_width", template("{0!s:>1000000000}", "{}"))
    add("shapes/format_nested_width", template("{0:{0!s:>999999999}}", "{}"))
    add("shapes/percent_width", template("%1000000000s", "%"))
    add("shapes/percent_precision", template("%.1000000000f", "%"))

    # in saved files: a variable, a tensor spec and a string constant with huge shapes
    v = rt.Variable([1.0, 2.0])
    f = rt.function(lambda x: x + v, autograph=False)
    f(rt.constant([1.0, 2.0]))
    g = _Graph()
    g.save(root / "strings", g.op("Const", (), {"value": np.array([b"ab", b"c"], dtype=object)},
                                  [("string", (2,))]))
    for label, directory, change in [
        ("shapes/variable", None, lambda d: d["variables"][0].update(shape=[big, big])),
        ("shapes/tensor_spec", None,
         lambda d: d["functions"][0]["inputs"][0]["tensor_spec"].__setitem__(1, [big])),
        ("shapes/string_array", root / "strings",
         lambda d: d["functions"][0]["graph"]["operations"][0]["attrs"]["value"]["strings"]
         .__setitem__(1, [big, big])),
    ]:
        if directory is None:
            directory = root / label.replace("/", "_")
            rt.saved.save(f, directory)
        path = directory / storage.JSON_FILE
        document = json.loads(path.read_text())
        change(document)
        path.write_text(json.dumps(document))
        cases[label] = directory
    return cases


def _repeated_arrays(root) -> tuple[dict, dict]:
    """One stored array referenced many times, where each reference would copy or decode it."""
    cases = {}
    g = _Graph()
    first = g.op("Const", (), {"value": np.array([b"ab"] * 100_000, dtype=object)},
                 [("string", (100_000,))])
    for i in range(2000):  # the same string array, decoded once
        g.ops.append({**g.ops[0], "name": f"copy_{i}"})
    cases["arrays/string_references"] = g.save(root / "string_references", first)
    g = _Graph()
    cases["arrays/string_items"] = g.save(root / "string_items", g.op(
        "Const", (), {"value": np.array([b"a"] * ((1 << 20) + 1), dtype=object)},
        [("string", ((1 << 20) + 1,))]))
    directory = _save_valid(root / "shared_variable")
    v = rt.Variable(np.zeros(1 << 20, np.float32))
    f = rt.function(lambda x: x + v, autograph=False)
    f(rt.constant(np.zeros(1 << 20, np.float32)))
    rt.saved.save(f, directory)
    path = directory / storage.JSON_FILE
    document = json.loads(path.read_text())
    entry = document["variables"][0]
    document["variables"] = [{**entry, "name": f"v_{i}"} for i in range(1000)]  # 4 GB of copies
    path.write_text(json.dumps(document))
    cases["arrays/shared_variable_value"] = directory
    return cases, {"arrays/string_references": "loaded", "arrays/string_items": "rejected",
                   "arrays/shared_variable_value": "rejected"}


# ---- special files and symlinks -----------------------------------------------------------------

def _replace(directory, name, make) -> bool:
    path = directory / name
    path.unlink()
    try:
        make(str(path))
    except OSError:  # e.g. no permission to make a device node
        return False
    return True


def _unix_socket(path):
    short = tempfile.mkdtemp()  # socket paths are limited to about 100 bytes: bind, then move
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(os.path.join(short, "s"))
        os.rename(os.path.join(short, "s"), path)
    finally:
        shutil.rmtree(short)


def _special_files(root, valid) -> tuple[dict, dict]:
    cases, expected = {}, {}
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    os.mkfifo(elsewhere / "fifo")
    shutil.copy(valid / storage.JSON_FILE, elsewhere / storage.JSON_FILE)
    shutil.copy(valid / storage.ARRAYS_FILE, elsewhere / storage.ARRAYS_FILE)
    makers = {
        "special/fifo": os.mkfifo,
        "special/socket": _unix_socket,
        "special/char_device": lambda p: os.mknod(p, stat.S_IFCHR | 0o600, os.makedev(1, 5)),
        "special/directory": os.mkdir,
    }
    links = {
        "symlink/dev_zero": "/dev/zero",
        "symlink/dev_urandom": "/dev/urandom",
        "symlink/dev_null": "/dev/null",
        "symlink/directory": str(elsewhere),
        "symlink/dangling": str(root / "nowhere"),
        "symlink/fifo": str(elsewhere / "fifo"),
        "symlink/proc_self_mem": "/proc/self/mem",
        "symlink/regular_file": None,  # followed: loads
    }
    for name in (storage.JSON_FILE, storage.ARRAYS_FILE):
        short = "json" if name == storage.JSON_FILE else "npz"
        for label, make in makers.items():
            directory = root / f"{label.replace('/', '_')}_{short}"
            shutil.copytree(valid, directory)
            if _replace(directory, name, make):
                cases[f"{label}_{short}"] = directory
                expected[f"{label}_{short}"] = "rejected"
        for label, target in {**links, "symlink/loop": "loop"}.items():
            directory = root / f"{label.replace('/', '_')}_{short}"
            shutil.copytree(valid, directory)
            if label == "symlink/loop":
                target = str(directory / name)
            elif target is None:
                target = str(elsewhere / name)
            if os.path.exists(target) or label in ("symlink/dangling", "symlink/loop"):
                if _replace(directory, name, lambda p, t=target: os.symlink(t, p)):
                    cases[f"{label}_{short}"] = directory
                    expected[f"{label}_{short}"] = (
                        "loaded" if label == "symlink/regular_file" else "rejected")
    return cases, expected


def _oversized_and_forged(root, valid) -> tuple[dict, dict]:
    """Files beyond the size limits (sparse: nothing is written) and forged .npz archives whose
    checksum is made to match."""
    cases = {}

    def copy(label):
        directory = root / label.replace("/", "_")
        shutil.copytree(valid, directory)
        cases[label] = directory
        return directory

    def sparse(label, name, size):
        directory = copy(label)
        try:
            os.truncate(directory / name, size)
        except OSError:
            del cases[label]

    sparse("size/json_over_limit", storage.JSON_FILE, storage.MAX_JSON_BYTES + 1)
    sparse("size/npz_over_limit", storage.ARRAYS_FILE, storage.MAX_ARRAYS_BYTES + 1)
    sparse("size/npz_1_tib", storage.ARRAYS_FILE, 1 << 40)

    def npz(label, data: bytes):
        directory = copy(label)
        (directory / storage.ARRAYS_FILE).write_bytes(data)
        path = directory / storage.JSON_FILE
        document = json.loads(path.read_text())
        document["arrays_sha256"] = hashlib.sha256(data).hexdigest()
        path.write_text(json.dumps(document))

    def zipped(entries: dict, compression=zipfile.ZIP_STORED) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression) as archive:
            for name, value in entries.items():
                archive.writestr(name, value)
        return buffer.getvalue()

    def npy(header: dict, data: bytes = b"") -> bytes:
        text = repr(header).encode("latin1")
        text += b" " * (63 - (len(text) + 10) % 64) + b"\n"
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + data

    with zipfile.ZipFile(valid / storage.ARRAYS_FILE) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    huge = npy({"descr": "<f8", "fortran_order": False, "shape": (10**12,)}, b"\0" * 64)
    npz("npz/header_declares_8_tb", zipped({**entries, "a0.npy": huge}))
    npz("npz/raw_bytes_entry", zipped({**entries, "a0.npy": b"not an array"}))
    npz("npz/not_npy_name", zipped({**entries, "extra.bin": b"\0" * 16}))
    npz("npz/object_dtype", zipped({**entries, "a9.npy": npy(
        {"descr": "|O", "fortran_order": False, "shape": (1,)}, b"\0" * 8)}))
    npz("npz/deflate_bomb", zipped({**entries, "a9.npy": npy(
        {"descr": "<f8", "fortran_order": False, "shape": (10**6,)}, bytes(8 * 10**6))},
        zipfile.ZIP_DEFLATED))
    npz("npz/zero_bytes_huge_shape", zipped({**entries, "a9.npy": npy(
        {"descr": "<f4", "fortran_order": False, "shape": (2**40, 0)})}))
    # central directories: a huge one announced, 200k records, one 1 MB entry listed 1000 times
    big = zipped({"a0.npy": npy({"descr": "<f4", "fortran_order": False, "shape": (1 << 18,)},
                                bytes(1 << 20))})
    start, end = big.index(b"PK\x01\x02"), big.rindex(b"PK\x05\x06")
    record, alphabet = big[start:end], "abcdefghijklmnopqrstuvwxyz0123456789"

    def directory(label, count, announced=None):
        names = (f"{alphabet[i // 36 % 36]}{alphabet[i % 36]}.npy" for i in range(count))
        records = b"".join(record.replace(b"a0.npy", name.encode()) for name in names)
        tail = bytearray(big[end:])
        tail[8:16] = struct.pack("<HHL", min(count, 0xFFFF), min(count, 0xFFFF),
                                 len(records) if announced is None else announced)
        npz(label, big[:start] + records + bytes(tail))

    directory("npz/directory_size_announced_4_gb", 1, 0xFFFFFF00)
    directory("npz/directory_200k_records", 200_000)
    directory("npz/overlapping_entries", 1000)
    expected = {label: "rejected" for label in cases}
    expected["npz/zero_bytes_huge_shape"] = "loaded"
    return cases, expected


# ---- tests --------------------------------------------------------------------------------------

def test_hostile_directories_end_quickly_in_bounded_memory(tmp_path):
    valid = _save_valid(tmp_path / "valid")
    cases, expected = {"valid/valid": valid}, {"valid/valid": "loaded"}
    for more, wanted in (_special_files(tmp_path, valid), _oversized_and_forged(tmp_path, valid),
                         _repeated_arrays(tmp_path)):
        cases.update(more)
        expected.update(wanted)
    cases.update(_huge_shapes(tmp_path))
    bombs = _folding_bombs(tmp_path)
    cases.update(bombs)
    expected.update({label: "loaded" for label in bombs})
    for label in ("shapes/placeholder_2**62", "shapes/placeholder_10**30",
                  "shapes/placeholder_64_dims", "shapes/output_spec"):
        expected[label] = "loaded"
    for label in ("shapes/placeholder_65_dims", "shapes/unpack_num", "shapes/fill_operand",
                  "shapes/reshape_operand", "shapes/format_width", "shapes/format_nested_width",
                  "shapes/percent_width", "shapes/percent_precision", "shapes/variable",
                  "shapes/tensor_spec", "shapes/string_array"):
        expected[label] = "rejected"
    results = _load_all(cases, tmp_path)
    assert set(results) == set(cases)
    counts = _check(results, expected)
    print("hostile directories by kind:", counts)
    assert counts["special"]["rejected"] >= 4 and counts["symlink"]["loaded"] == 2
    assert counts["folding"] == {"loaded": len(bombs), "rejected": 0}
    # what loaded works: a symlinked file like the file; a folding bomb stays an op to run later
    for name in ("json", "npz"):
        loaded = rt.saved.load(cases[f"symlink/regular_file_{name}"])
        assert loaded(rt.constant([1.0, 2.0])).numpy() == 7.0
    graph = rt.saved.load(cases["folding/tile"]).concrete_functions[0].graph
    assert "Tile" in [op.type for op in graph.operations]


def _huge_number(rng):
    return rng.choice([2**31, 10**9, 2**62, 10**30, 5 * 10**8, 2**40 + 1])


def test_fuzzed_huge_sizes_only_ever_raise_load_error_in_time(tmp_path):
    """Random shapes, ints and int arrays of a valid file replaced by huge numbers."""
    valid = tmp_path / "valid"
    x = rt.constant([[1.0, 2.0], [3.0, 4.0]])

    def model(x):
        y = rt.tile(rt.reshape(x, [4, 1]), [1, 3]) + rt.range(3.0)
        z = rt.broadcast_to(rt.reduce_sum(y, axis=0), [2, 3])
        return rt.concat([z, rt.fill(rt.shape(z), 1.5)], axis=0), rt.unstack(x)[0]

    f = rt.function(model, autograph=False)
    f(x)
    rt.saved.save(f, valid)
    good = json.loads((valid / storage.JSON_FILE).read_text())
    rng = random.Random(99)
    cases = {}
    for trial in range(60):
        document = json.loads(json.dumps(good))
        slots, stack = [], [document]
        while stack:
            value = stack.pop()
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if type(item) is int and not isinstance(item, bool):
                    slots.append((value, key))
                elif isinstance(item, (dict, list)):
                    stack.append(item)
        for _ in range(rng.randint(1, 3)):
            parent, key = rng.choice(slots)
            parent[key] = _huge_number(rng)
        directory = tmp_path / f"trial_{trial}"
        shutil.copytree(valid, directory)
        (directory / storage.JSON_FILE).write_text(json.dumps(document))
        cases[f"fuzz/{trial}"] = directory
    counts = _check(_load_all(cases, tmp_path), {})
    print("fuzzed huge sizes:", counts)
    assert sum(counts["fuzz"].values()) == 60


def test_folding_skips_big_results_before_running_the_kernel(monkeypatch):
    calls = []
    monkeypatch.setattr(np, "tile", lambda *a, **k: calls.append(a) or np.zeros(1))
    graph = rt.function(lambda x: x + rt.reduce_sum(rt.tile(rt.constant([[1.0]]), [1, 10**6])),
                        autograph=False).get_concrete_function(rt.constant(1.0)).graph
    assert "Tile" in [op.type for op in graph.operations] and not calls


def test_simplify_does_not_allocate_declared_shapes(tmp_path):
    g = _Graph()
    x = g.placeholder("bool", [9 * 10**8])
    both = g.op("LogicalAnd", [x, g.const(np.bool_(False))], {}, [("bool", (9 * 10**8,))])
    directory = g.save(tmp_path / "simplify", g.op("Any", [both], {"axis": None,
                                                                  "keepdims": False},
                                                  [("bool", ())]))
    _check(_load_all({"shapes/simplify": directory}, tmp_path), {"shapes/simplify": "loaded"})


def test_a_huge_constant_read_as_a_shape_is_not_unpacked(tmp_path):
    # the shape operand's declared length is unknown, so the size check passes it through;
    # its value is a 4-million-item constant: reading it as known dims would build a tuple
    g = _Graph()
    x = g.placeholder("float32", [4])
    dims = g.op("Cast", [g.const(np.ones(4_000_000, np.int32))], {"dtype": rt.int32},
                [("int32", (None,))])
    reshaped = g.op("DynamicReshape", [x, dims], {}, [("float32", (None,))])
    directory = g.save(tmp_path / "huge_dims", _scalar_sum(g, reshaped))
    results = _load_all({"shapes/huge_dims": directory}, tmp_path)
    _check(results, {})
    assert len(results["shapes/huge_dims"]["outcome"]) < 1000  # no list of 4 million items
