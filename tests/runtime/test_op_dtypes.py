"""The dtype rules that elementwise ops state (runtime/ops/math_ops.py) agree with numpy: for
every dtype an op accepts, its inferred output dtype is the dtype its kernel returns; every
other dtype, and operands of two dtypes, are refused while tracing."""

import numpy as np
import pytest

from runtime.core import dtypes
from runtime.core.graph import Graph
from runtime.ops.registry import ELEMENTWISE, REGISTRY

# Elementwise ops whose inference is not the stated-rule kind (they read attrs or pick operands).
OTHER_RULES = {"Identity", "Select", "Cast", "ClipByValue", "ZerosLike", "OnesLike"}
OPS = sorted((op for op in REGISTRY.values()
              if ELEMENTWISE in op.groups and op.name not in OTHER_RULES), key=lambda o: o.name)
VALUE_DTYPES = [d for d in dtypes.ALL if not d.is_list]


def _arity(opdef) -> int:
    ufunc = opdef.elementwise and opdef.elementwise.ufunc
    return getattr(np, ufunc).nin if ufunc else 1


def _sample(dtype):
    if dtype.is_string:
        return np.array([b"a"], dtype=object)
    return np.ones(1, dtype=dtype.np_dtype)


@pytest.mark.parametrize("opdef", OPS, ids=lambda o: o.name)
def test_stated_dtypes_match_numpy(opdef):
    graph = Graph("dtypes")
    accepted = 0
    for dtype in VALUE_DTYPES:
        inputs = [graph.add_input(dtype, (1,)) for _ in range(_arity(opdef))]
        try:
            [(out, _)] = opdef.infer(inputs)
        except TypeError as e:
            assert dtype.name in str(e)
            continue
        accepted += 1
        with np.errstate(all="ignore"):
            value = np.asarray(opdef.kernel(*[_sample(dtype)] * len(inputs)))
        got = dtypes.string if value.dtype == object else dtypes.from_numpy(value.dtype)
        assert got is out, f"{opdef.name}({dtype.name}): stated {out.name}, numpy {got.name}"
    assert accepted


@pytest.mark.parametrize("opdef", [o for o in OPS if _arity(o) == 2], ids=lambda o: o.name)
def test_operands_of_two_dtypes_are_refused(opdef):
    graph = Graph("dtypes")
    a, b = graph.add_input(dtypes.float32, ()), graph.add_input(dtypes.int32, ())
    with pytest.raises(TypeError, match="operands of one dtype"):
        opdef.infer([a, b])
