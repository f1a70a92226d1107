"""The worked example of runtime/README.md ("Adding an op") works as written: run in a fresh
process (it registers a new op), its op runs eagerly, in a graph (fused on big arrays), after
save and load, and exports to ONNX."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "runtime", "README.md")

CHECKS = textwrap.dedent("""
    import tempfile
    import runtime as rt

    x = np.linspace(-3, 3, 1 << 16, dtype=np.float32)
    want = np.log1p(np.exp(x))
    assert np.array_equal(softplus(rt.constant(x)).numpy(), want)
    f = rt.function(lambda t: softplus(t) * 2.0 - 1.0)
    want = want * np.float32(2.0) - np.float32(1.0)
    assert np.array_equal(f(rt.constant(x)).numpy(), want)
    ops = [op.type for op in f.get_concrete_function(rt.constant(x)).graph.operations]
    assert "FusedElementwise" in ops, ops
    with tempfile.TemporaryDirectory() as d:
        rt.saved.save(f, d)
        assert np.array_equal(rt.saved.load(d)(rt.constant(x)).numpy(), want)
    model = rt.onnx.export(f.get_concrete_function(rt.constant(x)))
    assert "Softplus" in [n.op_type for n in model.graph.node]
    print("worked example ok")
""")


def test_the_worked_example_of_adding_an_op_runs(tmp_path):
    pytest.importorskip("onnx")
    text = open(README, encoding="utf-8").read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    script = tmp_path / "softplus_example.py"
    script.write_text(blocks[0] + CHECKS, encoding="utf-8")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "worked example ok" in result.stdout
