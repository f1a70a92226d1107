"""rt.onnx.export of staged lists: list ops become ONNX sequence ops, lists carried through
If/Loop are sequence-typed, and onnxruntime agrees with our executor (errors included)."""

import numpy as np
import pytest
from list_programs import (
    append_in_branch,
    concat_after_loop,
    float32_items_then_a_python_float,
    length_and_index,
    list_of_lists,
    plus_list,
    pop_in_loop,
    pop_in_while,
    returns_list,
    set_and_get_at,
    set_item_and_extend,
    stack_and_list,
    stack_scalars,
    strings,
)

import runtime as rt

try:
    import onnx
    import onnxruntime as ort
except ImportError:
    onnx = ort = None

pytestmark = pytest.mark.skipif(
    ort is None, reason="onnx and onnxruntime are not installed (pip install 'tracegraph[onnx]')"
)

def _feed(value):
    return np.array(value, dtype=np.asarray(value).dtype)  # onnxruntime wants arrays, not scalars


def _from_onnx(value):
    if isinstance(value, list):
        return [_from_onnx(v) for v in value]
    if value.dtype == object:
        return np.vectorize(str.encode, otypes=[object])(value)
    return value


def _ours(value):
    if isinstance(value, list):
        return [_ours(v) for v in value]
    return value.numpy()


def _assert_same(ours, theirs):
    if isinstance(ours, list):
        assert isinstance(theirs, list) and len(theirs) == len(ours)
        for a, b in zip(ours, theirs):
            _assert_same(a, b)
    else:
        ours = np.asarray(ours, dtype=object if theirs.dtype == object else None)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)


def _export(fn, *args):
    """`fn` as an rt.function, and an onnxruntime session of its export for args like `args`."""
    f = rt.function(fn)
    model = rt.onnx.export(f.get_concrete_function(*[rt.constant(a) for a in args]))
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return f, model, session


def _compare(f, session, args):
    try:
        ours = f(*[rt.constant(a) for a in args])
    except Exception:  # noqa: BLE001 - whatever our executor raises, onnxruntime must raise too
        feeds = {i.name: _feed(a) for i, a in zip(session.get_inputs(), args)}
        with pytest.raises(Exception):  # noqa: B017, PT011 - onnxruntime's own error kinds
            session.run(None, feeds)
        return
    ours = list(ours) if isinstance(ours, tuple) else [ours]
    feeds = {i.name: _feed(a) for i, a in zip(session.get_inputs(), args)}
    theirs = [_from_onnx(v) for v in session.run(None, feeds)]
    assert len(theirs) == len(ours)
    for a, b in zip(ours, theirs):
        _assert_same(_ours(a), b)


VECTOR = np.float32([1.5, -2.0])
CASES = [
    (stack_and_list, [(3, VECTOR), (1, VECTOR), (0, VECTOR)]),
    (returns_list, [(3, VECTOR), (0, VECTOR)]),
    (concat_after_loop, [(2, VECTOR), (0, VECTOR)]),
    (stack_scalars, [(4,), (0,)]),
    (pop_in_loop, [(2,), (0,), (5,), (6,)]),
    (pop_in_while, [(2,), (0,), (3,), (4,)]),
    (length_and_index, [(5,), (1,), (0,)]),
    (set_item_and_extend, [(5,), (1,), (0,)]),
    (set_and_get_at, [(0,), (1,), (3,), (5,), (6,)]),
    (plus_list, [(4,), (0,)]),
    (append_in_branch, [(5,), (0,)]),
    (strings, [(2,), (0,)]),
    (float32_items_then_a_python_float, [(3, VECTOR), (0, VECTOR)]),
]


@pytest.mark.parametrize("fn, inputs", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_staged_lists_agree_with_onnxruntime(fn, inputs):
    args = [np.int32(a) if isinstance(a, int) else a for a in inputs[0]]
    f, _, session = _export(fn, *args)
    for values in inputs:
        _compare(f, session, [np.int32(a) if isinstance(a, int) else a for a in values])


def _node_types(graph):
    types = []
    for node in graph.node:
        types.append(node.op_type)
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                types += _node_types(attr.g)
    return types


def _sequence_typed(values):
    return [v.name for v in values if v.type.HasField("sequence_type")]


def test_list_ops_become_sequence_ops_and_loops_carry_sequences():
    _, model, _ = _export(stack_and_list, np.int32(2), VECTOR)
    types = _node_types(model.graph)
    assert {"SequenceEmpty", "SequenceInsert", "ConcatFromSequence", "Loop"} <= set(types)
    (loop,) = [n for n in model.graph.node if n.op_type == "Loop"]
    body = loop.attribute[0].g
    assert len(_sequence_typed(body.input)) == 1 and len(_sequence_typed(body.output)) == 1
    assert _sequence_typed(model.graph.output) == ["output_1"]
    sequence = model.graph.output[1].type.sequence_type.elem_type.tensor_type
    assert sequence.elem_type == onnx.TensorProto.FLOAT
    assert [d.dim_value for d in sequence.shape.dim] == [2]

    _, model, _ = _export(append_in_branch, np.int32(2))
    (branchy,) = [n for n in _all_nodes(model.graph) if n.op_type == "If"]
    for branch in branchy.attribute:
        assert len(_sequence_typed(branch.g.output)) == 1
    for fn, ops in [(pop_in_loop, {"SequenceErase", "SequenceAt", "SequenceConstruct"}),
                    (length_and_index, {"SequenceLength", "SequenceAt"}),
                    (set_item_and_extend, {"SequenceErase", "SequenceInsert", "Loop"})]:
        _, model, _ = _export(fn, np.int32(2))
        assert ops <= set(_node_types(model.graph)), fn.__name__


def _all_nodes(graph):
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from _all_nodes(attr.g)


def test_lists_of_lists_name_the_op_that_cannot_be_exported():
    f = rt.function(list_of_lists)
    concrete = f.get_concrete_function(rt.constant(2), rt.constant(2))
    with pytest.raises(rt.onnx.ExportError,
                       match=r"Cannot export op listfromitems_\d+ \(ListFromItems\) to ONNX: ONNX "
                             r"sequence ops hold tensors, and this list holds lists") as info:
        rt.onnx.export(concrete)
    assert "list_programs.py" in str(info.value)  # and the user's line


def test_list_ops_are_listed_as_supported():
    supported = rt.onnx.supported_ops()
    assert {"ListFromItems", "ListPushBack", "ListPopBack", "ListLength", "ListGetItem",
            "ListSetItem", "ListConcatLists", "ListStack", "ListConcat"} <= set(supported)
