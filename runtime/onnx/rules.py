"""ONNX export rules: each op's ONNX rule kind, `rule(builder, op, inputs) -> output names`.

A rule gets the Builder of the ONNX graph being written, the Operation (its attrs, input and
output dtypes/shapes, origin) and the ONNX names of its inputs; it adds nodes and returns one
name per op output. Rules raise `unsupported(op, reason)` for what ONNX cannot express. An
elementwise op that declares the ONNX op of its semantics (`Elementwise.onnx`, see
ops/math_ops.py) is that one node; the table at the end registers the rules of the other ops
against their op objects (`op.opdef.rule(ONNX)`); ops that have none say why (`lacks`).
"""

from __future__ import annotations

import numpy as np
from onnx import helper, numpy_helper

from runtime import variables
from runtime.core import dtypes
from runtime.onnx.builder import elem_type, unsupported, value_info
from runtime.ops import (
    array_ops,
    contraction_ops,
    control_flow_ops,
    creation_ops,
    io_ops,
    list_ops,
    math_ops,
    random_ops,
    reduction_ops,
    selection_ops,
    string_ops,
)
from runtime.ops import control_flow_ops as cf
from runtime.ops.fused_ops import FUSED_ELEMENTWISE, FUSED_REDUCTION
from runtime.ops.registry import CONST, ONNX, PLACEHOLDER, derive_rules, lacks, register_rules

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def _same(onnx_type, **attrs):
    """An op that is one ONNX node of the same name semantics."""
    return lambda b, op, x: [b.one(onnx_type, *x, **attrs)]


def _floats_only(onnx_type):
    def rule(b, op, x):
        if not op.inputs[0].dtype.is_floating:
            raise unsupported(op, f"ONNX {onnx_type} takes float tensors only")
        return [b.one(onnx_type, *x)]

    return rule


def _declared(opdef):
    """The ONNX rule of an elementwise op that declares its ONNX op: that one node (on floats
    only, for an op that takes floats only)."""
    declared = opdef.elementwise
    if declared is None or declared.onnx is None:
        return None
    if all(dtype.is_floating for dtype in declared.accepts):
        return _floats_only(declared.onnx)
    return _same(declared.onnx)


# ---- elementwise arithmetic -------------------------------------------------------------------

def _add(b, op, x):
    if op.inputs[0].dtype.is_string:
        return [b.one("StringConcat", *x)]
    return [b.one("Add", *x)]


def _real_div(b, op, x):
    # numpy's true division of integers gives floats: cast first.
    out = op.outputs[0].dtype
    a, c = (b.cast(n, t.dtype, out) for n, t in zip(x, op.inputs))
    return [b.one("Div", a, c)]


def _floor_div(b, op, x):
    if op.outputs[0].dtype.is_floating:
        return [b.one("Floor", b.one("Div", *x))]
    # integers: (a - a mod b) / b divides exactly, so truncation equals flooring
    remainder = b.one("Mod", *x, fmod=0)
    return [b.one("Div", b.one("Sub", x[0], remainder), x[1])]


def _floor_mod(b, op, x):
    if op.outputs[0].dtype.is_floating:
        quotient = b.one("Floor", b.one("Div", *x))
        return [b.one("Sub", x[0], b.one("Mul", quotient, x[1]))]
    return [b.one("Mod", *x, fmod=0)]  # fmod=0: the sign of the divisor, like numpy


def _nonzero(b, op, x):
    return [b.one("Transpose", b.one("NonZero", x[0]))]  # one row of coordinates per element


def _not_equal(b, op, x):
    return [b.one("Not", b.one("Equal", *x))]


def _square(b, op, x):
    return [b.one("Mul", x[0], x[0])]


def _relu(b, op, x):
    if op.inputs[0].dtype.is_floating:
        return [b.one("Relu", x[0])]
    return [b.one("Max", x[0], b.const(0, op.inputs[0].dtype))]


def _round(b, op, x):
    if op.inputs[0].dtype.is_floating:
        return [b.one("Round", x[0])]  # half to even, like numpy
    return [b.one("Identity", x[0])]


def _neg(b, op, x):
    if op.inputs[0].dtype in (dtypes.uint8, dtypes.bool_):
        raise unsupported(op, f"ONNX Neg does not take {op.inputs[0].dtype.name}")
    return [b.one("Neg", x[0])]


def _cast(b, op, x):
    return [b.one("Cast", x[0], to=elem_type(op.attrs["dtype"]))]


def _clip(b, op, x):
    return [b.one("Min", b.one("Max", x[0], x[1]), x[2])]


def _softmax(b, op, x):
    return [b.one("Softmax", x[0], axis=op.attrs["axis"])]


# ---- shapes and layout ------------------------------------------------------------------------

def _reshape(b, op, x):
    shape = op.attrs["shape"]
    zero = {"allowzero": 1} if 0 in shape else {}
    return [b.one("Reshape", x[0], b.int64s(shape), **zero)]


def _dynamic_reshape(b, op, x):
    return [b.one("Reshape", x[0], b.cast(x[1], op.inputs[1].dtype, dtypes.int64), allowzero=1)]


def _transpose(b, op, x):
    perm = op.attrs["perm"]
    return [b.one("Transpose", x[0], **({} if perm is None else {"perm": list(perm)}))]


def _expand_dims(b, op, x):
    return [b.one("Unsqueeze", x[0], b.int64s([op.attrs["axis"]]))]


def _squeeze(b, op, x):
    axis = op.attrs["axis"]
    return [b.one("Squeeze", x[0]) if axis is None else b.one("Squeeze", x[0], b.int64s(axis))]


def _concat(b, op, x):
    return [b.one("Concat", *x, axis=op.attrs["axis"])]


def _pack(b, op, x):
    axis = b.int64s([op.attrs["axis"]])
    return [b.one("Concat", *[b.one("Unsqueeze", n, axis) for n in x], axis=op.attrs["axis"])]


def _unpack(b, op, x):
    axis, num = op.attrs["axis"], op.attrs["num"]
    parts = b.node("Split", [x[0]], num, axis=axis, num_outputs=num)
    return [b.one("Squeeze", p, b.int64s([axis])) for p in parts]


def _split(b, op, x):
    sizes = op.attrs["sizes"]
    return b.node("Split", [x[0], b.int64s(sizes)], len(sizes), axis=op.attrs["axis"])


def _tile(b, op, x):
    multiples, rank = list(op.attrs["multiples"]), op.inputs[0].ndim
    data = x[0]
    if len(multiples) > rank:  # numpy adds leading axes
        data = b.one("Unsqueeze", data, b.int64s(range(len(multiples) - rank)))
    multiples = [1] * (rank - len(multiples)) + multiples
    return [b.one("Tile", data, b.int64s(multiples))]


def _dynamic_tile(b, op, x):
    return [b.one("Tile", x[0], b.cast(x[1], op.inputs[1].dtype, dtypes.int64))]


def _dynamic_broadcast_to(b, op, x):
    return [b.one("Expand", x[0], b.cast(x[1], op.inputs[1].dtype, dtypes.int64))]


def _broadcast_to(b, op, x):
    return [b.one("Expand", x[0], b.int64s(op.attrs["shape"]))]


def _shape(b, op, x):
    return [b.one("Cast", b.one("Shape", x[0]), to=elem_type(dtypes.int32))]


def _size(b, op, x):
    return [b.one("Cast", b.one("Size", x[0]), to=elem_type(dtypes.int32))]


def _rank(b, op, x):
    return [b.const(np.int32(op.inputs[0].ndim))]


def _gather(b, op, x):
    return [b.one("Gather", *x, axis=op.attrs["axis"])]


def _bound_vector(b, values) -> str:
    """A 1-D int64 ONNX value from ints and (names of) scalar tensors."""
    if all(isinstance(v, (int, np.integer)) for v in values):
        return b.int64s(values)
    parts = [b.int64s([v]) if isinstance(v, (int, np.integer)) else b.one(
        "Reshape", b.one("Cast", v, to=elem_type(dtypes.int64)), b.int64s([1])) for v in values]
    return b.one("Concat", *parts, axis=0)


def _strided_slice(b, op, x):
    """numpy basic indexing (ints, slices, None, ...) as Slice + Squeeze + Unsqueeze, plus one
    integer-tensor index as Gather."""
    spec, rank, index = op.attrs["spec"], op.inputs[0].ndim, x[1:]
    arrays = [item for item in spec if item[0] == "tensor"]
    if len(arrays) > 1 or (arrays and any(item[0] == "int" for item in spec)):
        raise unsupported(op, "only one integer-tensor index (and no ints next to it) exports")

    def bound(part):
        return index[part[1]] if isinstance(part, tuple) else part

    consumed = sum(1 for item in spec if item[0] in ("int", "slice", "tensor"))
    starts, ends, axes, steps, squeeze, newaxes, gather = [], [], [], [], [], [], None
    axis = out = 0
    for item in spec:
        kind = item[0]
        if kind == "newaxis":
            newaxes.append(out)
            out += 1
        elif kind == "ellipsis":
            axis += rank - consumed
            out += rank - consumed
        elif kind == "int":
            starts.append(item[1])
            ends.append(item[1] + 1 if item[1] != -1 else INT64_MAX)
            axes.append(axis)
            steps.append(1)
            squeeze.append(axis)
            axis += 1
        elif kind == "slice":
            start, stop, step = (bound(p) for p in item[1:])
            step = 1 if step is None else step
            if not isinstance(step, int) and (start is None or stop is None):
                raise unsupported(op, "a tensor slice step needs explicit start and stop")
            backwards = isinstance(step, int) and step < 0
            starts.append(start if start is not None else (INT64_MAX if backwards else 0))
            ends.append(stop if stop is not None else (INT64_MIN if backwards else INT64_MAX))
            axes.append(axis)
            steps.append(step)
            axis += 1
            out += 1
        else:
            gather = (axis, index[item[1]])
            out += op.inputs[1 + item[1]].ndim
            axis += 1
    data = x[0]
    if axes:
        data = b.one("Slice", data, _bound_vector(b, starts), _bound_vector(b, ends),
                     b.int64s(axes), _bound_vector(b, steps))
    if gather is not None:
        data = b.one("Gather", data, gather[1], axis=gather[0])
    if squeeze:
        data = b.one("Squeeze", data, b.int64s(squeeze))
    if newaxes:
        data = b.one("Unsqueeze", data, b.int64s(newaxes))
    return [data if data != x[0] else b.one("Identity", data)]


# ---- reductions -------------------------------------------------------------------------------

def _axes(b, op):
    axis = op.attrs["axis"]
    if axis is None:
        return []
    return [b.int64s([axis] if isinstance(axis, int) else axis)]


def _reduce(onnx_type):
    def rule(b, op, x):
        return [b.one(onnx_type, x[0], *_axes(b, op), keepdims=int(op.attrs["keepdims"]))]

    return rule


def _sum_to_shape(b, op, x):
    """A gradient summed back to its operand's shape: over the leading axes, and over the axes
    where the operand has size 1 and the gradient not (found at run time when a shape is not
    known while exporting)."""
    grad, out = op.inputs[0], op.outputs[0]
    lead = len(grad.shape) - len(out.shape)
    if grad.shape.is_fully_defined() and out.shape.is_fully_defined():
        axes = list(range(lead)) + [lead + i for i, d in enumerate(out.shape)
                                    if d == 1 and grad.shape[lead + i] != 1]
        summed = b.one("ReduceSum", x[0], b.int64s(axes), keepdims=1) if axes else x[0]
        return [b.one("Reshape", summed, b.int64s(list(out.shape)), allowzero=1)]
    summed = b.one("ReduceSum", x[0], b.int64s(range(lead)), keepdims=0) if lead else x[0]
    target = b.cast(x[1], op.inputs[1].dtype, dtypes.int64)
    one = b.const(np.int64(1))
    widened = b.one("And", b.one("Equal", target, one),
                    b.one("Not", b.one("Equal", b.one("Shape", summed), one)))
    axes = b.one("Reshape", b.one("NonZero", widened), b.int64s([-1]))
    summed = b.one("ReduceSum", summed, axes, keepdims=1, noop_with_empty_axes=1)
    return [b.one("Reshape", summed, target, allowzero=1)]


def _reduce_bool(onnx_type):
    """Any / All: ONNX reduces numbers, so bools go through int32 and back."""

    def rule(b, op, x):
        ints = b.cast(x[0], dtypes.bool_, dtypes.int32)
        reduced = b.one(onnx_type, ints, *_axes(b, op), keepdims=int(op.attrs["keepdims"]))
        return [b.cast(reduced, dtypes.int32, dtypes.bool_)]

    return rule


def _arg(onnx_type):
    def rule(b, op, x):
        index = b.one(onnx_type, x[0], axis=op.attrs["axis"], keepdims=0)
        return [b.cast(index, dtypes.int64, op.attrs["output_type"])]

    return rule


# ---- creation and random ----------------------------------------------------------------------

def _like(fill_value):
    def rule(b, op, x):
        dtype = op.attrs["dtype"]
        if dtype.is_string:
            raise unsupported(op, "ONNX ConstantOfShape cannot make strings")
        value = np.full(1, fill_value, dtype=dtype.np_dtype)
        return [b.one("ConstantOfShape", b.one("Shape", x[0]),
                      value=helper.make_tensor("value", elem_type(dtype), [1], value.tolist()))]

    return rule


def _linspace(b, op, x):
    """start + i * (stop - start) / (num - 1), in float64 like numpy, then cast back."""
    num, out_dtype = op.attrs["num"], op.outputs[0].dtype
    start, stop = (b.cast(n, t.dtype, dtypes.float64) for n, t in zip(x, op.inputs))
    rank = len(op.outputs[0].shape) - 1
    axis = op.attrs["axis"] % (rank + 1)
    steps = np.arange(num, dtype=np.float64).reshape((num,) + (1,) * (rank - axis))
    start, stop = (b.one("Unsqueeze", n, b.int64s([axis])) for n in (start, stop))
    delta = b.one("Div", b.one("Sub", stop, start), b.const(np.float64(max(num - 1, 1))))
    values = b.one("Add", start, b.one("Mul", b.const(steps), delta))
    return [b.cast(values, dtypes.float64, out_dtype)]


def _fill(b, op, x):
    return [b.one("Expand", x[1], b.cast(x[0], op.inputs[0].dtype, dtypes.int64))]


def _range(b, op, x):
    return [b.one("Range", *x)]


def _random(onnx_type, low_key, high_key, low_name, high_name):
    def rule(b, op, x):
        attrs = op.attrs
        if not attrs["dtype"].is_floating:
            raise unsupported(op, f"ONNX {onnx_type} makes floats only")
        seed = {} if attrs["seed"] is None else {"seed": float(attrs["seed"])}
        return [b.one(onnx_type, dtype=elem_type(attrs["dtype"]), shape=list(attrs["shape"]),
                      **{low_name: float(attrs[low_key]), high_name: float(attrs[high_key])},
                      **seed)]

    return rule


# ---- strings, side effects, state -------------------------------------------------------------

def _string_join(b, op, x):
    separator = op.attrs["separator"]
    result = x[0]
    for name in x[1:]:
        if separator:
            result = b.one("StringConcat", result, b.const(np.array(separator, dtype=object)))
        result = b.one("StringConcat", result, name)
    return [result]


def _string_format(b, op, x):
    """Python's formatting of numbers has no ONNX form. A text that only prints is left out
    with the prints (drop_prints=True)."""
    text = op.outputs[0]
    consumers = [o for o in op.graph.operations if any(t is text for t in o.inputs)]
    only_printed = all(t is not text for t in op.graph.outputs) and all(
        o.opdef is io_ops.PRINT for o in consumers)
    if b.drop_prints and only_printed:
        return [b.const(np.array(b"", dtype=object))]  # unused: its prints are dropped
    hint = "; it only feeds prints, so drop_prints=True leaves it out" if only_printed else ""
    raise unsupported(op, f"ONNX cannot format values as text the way Python does{hint}")


def _print(b, op, x):
    if not b.drop_prints:
        raise unsupported(op, "ONNX has no print; pass drop_prints=True to leave prints out")
    return []


def _read_variable(b, op, x):
    variable = op.attrs["variable"]
    value = np.asarray(variable.value_, dtype=variable.dtype.np_dtype)
    return [b.const(value)]  # ONNX has no mutable state: the value at export time


def _assign(b, op, x):
    raise unsupported(op, "ONNX models have no mutable state, so variables cannot be assigned")


def _assert(b, op, x):  # (the checks of Python numbers are left out before: exporter.py)
    raise unsupported(op, "ONNX has no assertion op")


def _const(b, op, x):
    return [b.const(op.attrs["value"])]


# ---- staged lists: ONNX sequences ---------------------------------------------------------------

def _sequence_op(rule):
    """The rule of a list op. ONNX sequence ops hold tensors only, so lists of lists do not
    export."""
    def checked(b, op, x):
        if any(t.dtype.is_list and t.dtype.element.is_list for t in [*op.inputs, *op.outputs]):
            raise unsupported(op, "ONNX sequence ops hold tensors, and this list holds lists")
        return rule(b, op, x)

    return checked


def _int64(b, op, i: int, x) -> str:
    """The index input `i` of `op` as an int64 scalar."""
    return b.cast(x[i], op.inputs[i].dtype, dtypes.int64)


def _list_from_items(b, op, x):
    if not x:
        return [b.one("SequenceEmpty", dtype=elem_type(op.attrs["dtype"]))]
    return [b.one("SequenceConstruct", *x)]


def _push_back(b, op, x):
    return [b.one("SequenceInsert", *x)]  # no position: at the end


def _pop_back(b, op, x):
    last = b.const(np.int64(-1))
    return [b.one("SequenceErase", x[0], last), b.one("SequenceAt", x[0], last)]


def _list_length(b, op, x):
    return [b.cast(b.one("SequenceLength", x[0]), dtypes.int64, dtypes.int32)]


def _get_item(b, op, x):
    return [b.one("SequenceAt", x[0], _int64(b, op, 1, x))]  # negative indices as in Python


def _set_item(b, op, x):
    """lst[i] = v: erase item i (which checks i as Python does), then insert v where it was."""
    index = _int64(b, op, 1, x)
    rest = b.one("SequenceErase", x[0], index)
    length = b.one("SequenceLength", x[0])
    negative = b.one("Less", index, b.const(np.int64(0)))
    position = b.one("Where", negative, b.one("Add", index, length), index)
    return [b.one("SequenceInsert", rest, x[2], position)]


def _concat_lists(b, op, x):
    """a + b: ONNX has no sequence concatenation, so a Loop appends the items of b to a."""
    child = b.child()
    child.op = op
    iteration = child.names.fresh(f"{op.name}_iteration")
    test = child.names.fresh(f"{op.name}_cond_in")
    joined = child.names.fresh(f"{op.name}_joined")
    appended = child.one("SequenceInsert", joined, child.one("SequenceAt", x[1], iteration))
    out = op.outputs[0]
    inputs = [value_info(iteration, dtypes.int64, []), value_info(test, dtypes.bool_, []),
              value_info(joined, out.dtype, out.shape)]
    body = child.finish(f"{op.name}_body", inputs, [test, appended],
                        [(dtypes.bool_, ()), (out.dtype, out.shape)])
    return b.node("Loop", [b.one("SequenceLength", x[1]), "", x[0]], 1, body=body)


def _list_stack(b, op, x):
    return [b.one("ConcatFromSequence", x[0], axis=0, new_axis=1)]


def _list_concat(b, op, x):
    return [b.one("ConcatFromSequence", x[0], axis=op.attrs["axis"], new_axis=0)]


def _take_items(b, op, sequence, start, count):
    """A new sequence of `count` items of `sequence` from position `start` (int64 scalars): a
    Loop that appends them one by one (ONNX has no sequence slicing)."""
    child = b.child()
    child.op = op
    out = op.outputs[0]
    iteration = child.names.fresh(f"{op.name}_iteration")
    test = child.names.fresh(f"{op.name}_cond_in")
    taken = child.names.fresh(f"{op.name}_taken")
    item = child.one("SequenceAt", sequence, child.one("Add", start, iteration))
    inputs = [value_info(iteration, dtypes.int64, []), value_info(test, dtypes.bool_, []),
              value_info(taken, out.dtype, out.shape)]
    body = child.finish(f"{op.name}_body", inputs, [test, child.one("SequenceInsert", taken, item)],
                        [(dtypes.bool_, ()), (out.dtype, out.shape)])
    empty = b.one("SequenceEmpty", dtype=elem_type(out.dtype.element))
    return b.node("Loop", [count, "", empty], 1, body=body)[0]


def _list_split_at(b, op, x):
    length = b.one("SequenceLength", x[0])
    first = b.cast(x[1], op.inputs[1].dtype, dtypes.int64)
    zero = b.const(np.int64(0))
    return [_take_items(b, op, x[0], zero, first),
            _take_items(b, op, x[0], first, b.one("Sub", length, first))]


def _map_items(b, op, sequences, item_fn):
    """SequenceMap over the items of `sequences`, lists like the op's input lists:
    `item_fn(child builder, item names)` makes each item of the output list."""
    child = b.child()
    child.op = op
    out = op.outputs[0]
    shape = [d if d is not None else child.names.fresh(f"{op.name}_dim") for d in out.shape]
    items = [child.names.fresh(f"{op.name}_item") for _ in sequences]
    inputs = [value_info(name, op.inputs[0].dtype.element, shape) for name in items]
    body = child.finish(f"{op.name}_body", inputs, [item_fn(child, items)],
                        [(out.dtype.element, shape)])
    return b.one("SequenceMap", *sequences, body=body)


def _list_zeros_like(b, op, x):
    dtype = op.inputs[0].dtype.element
    zero = numpy_helper.from_array(np.zeros(1, dtype.np_dtype))
    return [_map_items(b, op, x, lambda c, items: c.one(
        "ConstantOfShape", c.one("Shape", items[0]), value=zero))]


def _list_add(b, op, x):
    return [_map_items(b, op, x, lambda c, items: c.one("Add", *items))]


def _list_cast(b, op, x):
    dtype = op.inputs[0].dtype.element
    return [_map_items(b, op, x, lambda c, items: c.cast(items[0], dtype, op.attrs["dtype"]))]


def _list_unstack(b, op, x):
    return [b.one("SplitToSequence", x[0], axis=0, keepdims=0)]


def _list_split_like(b, op, x):
    """The pieces of a tensor as long (along `axis`) as the items of a list are."""
    axis = op.attrs["axis"]
    like = op.inputs[0]
    rank = len(like.shape)
    axis = axis + rank if axis < 0 else axis
    child = b.child()
    child.op = op
    shape = [d if d is not None else child.names.fresh(f"{op.name}_dim") for d in like.shape]
    item = child.names.fresh(f"{op.name}_item")
    size = child.one("Slice", child.one("Shape", item), child.int64s([axis]),
                     child.int64s([axis + 1]))
    body = child.finish(f"{op.name}_size", [value_info(item, like.dtype.element, shape)], [size],
                        [(dtypes.int64, (1,))])
    sizes = b.one("ConcatFromSequence", b.one("SequenceMap", x[0], body=body), axis=0)
    return [b.one("SplitToSequence", x[1], sizes, axis=axis)]


# ---- control flow -----------------------------------------------------------------------------

def _if(b, op, x):
    predicate, captured = cf.split_inputs(op, x)
    then_branch, else_branch = cf.branches(op)
    then_graph = b.subgraph(then_branch, captured, f"{op.name}_then")
    else_graph = b.subgraph(else_branch, captured, f"{op.name}_else")
    return b.node("If", [predicate], len(op.outputs), then_branch=then_graph,
                  else_branch=else_graph)


def _while(b, op, x):
    """`while cond(v): v = body(v)` as ONNX Loop: the condition is computed once before the loop
    and again at the end of every iteration (both copies of the cond graph are inlined)."""
    cond, body, limit = cf.loop_cond(op), cf.loop_body(op), cf.iteration_limit(op)
    n = cf.loop_count(op)
    loop_vars, captured = cf.split_inputs(op, x)
    first_test = b.inline(cond, x)[0]
    child = b.child()
    child.op = op
    iteration = child.names.fresh(f"{op.name}_iteration")
    test_in = child.names.fresh(f"{op.name}_cond_in")
    carried = [child.names.fresh(f"{op.name}_var_{i}") for i in range(n)]
    results = child.inline(body, carried + captured)
    test = child.inline(cond, results + captured)[0]
    inputs = [value_info(iteration, dtypes.int64, []), value_info(test_in, dtypes.bool_, [])]
    inputs += [value_info(name, dtype, shape)
               for name, (dtype, shape) in zip(carried, cf.loop_specs(op))]
    specs = [(dtypes.bool_, ())] + [(t.dtype, t.shape) for t in op.outputs]
    loop_body = child.finish(f"{op.name}_body", inputs, [test] + results, specs)
    trips = b.const(np.int64(limit)) if limit is not None else ""
    return b.node("Loop", [trips, first_test, *loop_vars], n, body=loop_body)


derive_rules(ONNX, _declared)  # the rule of every op that declares its ONNX op
register_rules(ONNX, {
    CONST: _const,
    # arithmetic
    math_ops.ADD: _add,
    math_ops.DIV: _real_div,
    math_ops.FLOORDIV: _floor_div,
    math_ops.MOD: _floor_mod,
    math_ops.NOT_EQUAL: _not_equal,
    math_ops.STRING_NOT_EQUAL: _not_equal,
    math_ops.NEG: _neg,
    math_ops.SQUARE: _square,
    math_ops.RELU: _relu,
    math_ops.ROUND: _round,
    math_ops.WHERE: _same("Where"),
    math_ops.WHERE_INDICES: _nonzero,
    math_ops.CAST: _cast,
    math_ops.CLIP: _clip,
    math_ops.MATMUL: _same("MatMul"),
    math_ops.SOFTMAX: _softmax,
    # shapes and layout
    array_ops.RESHAPE: _reshape,
    array_ops.TRANSPOSE: _transpose,
    array_ops.EXPAND_DIMS: _expand_dims,
    array_ops.SQUEEZE: _squeeze,
    array_ops.CONCAT: _concat,
    array_ops.STACK: _pack,
    array_ops.UNSTACK: _unpack,
    array_ops.SPLIT: _split,
    array_ops.TILE: _tile,
    array_ops.BROADCAST_TO: _broadcast_to,
    array_ops.DYNAMIC_RESHAPE: _dynamic_reshape,
    array_ops.DYNAMIC_TILE: _dynamic_tile,
    array_ops.DYNAMIC_BROADCAST_TO: _dynamic_broadcast_to,
    array_ops.IDENTITY: _same("Identity"),
    array_ops.SHAPE: _shape,
    array_ops.SIZE: _size,
    array_ops.RANK: _rank,
    array_ops.GATHER: _gather,
    array_ops.GETITEM: _strided_slice,
    # reductions
    reduction_ops.SUM: _reduce("ReduceSum"),
    reduction_ops.MEAN: _reduce("ReduceMean"),
    reduction_ops.MAX: _reduce("ReduceMax"),
    reduction_ops.MIN: _reduce("ReduceMin"),
    reduction_ops.PROD: _reduce("ReduceProd"),
    reduction_ops.ANY: _reduce_bool("ReduceMax"),
    reduction_ops.ALL: _reduce_bool("ReduceMin"),
    reduction_ops.ARGMAX: _arg("ArgMax"),
    reduction_ops.ARGMIN: _arg("ArgMin"),
    array_ops.SUM_TO_SHAPE: _sum_to_shape,
    array_ops.STOP_GRADIENT: _same("Identity"),
    # creation and random
    creation_ops.ZEROS_LIKE: _like(0),
    creation_ops.ONES_LIKE: _like(1),
    creation_ops.FILL: _fill,
    creation_ops.LINSPACE: _linspace,
    creation_ops.RANGE: _range,
    random_ops.UNIFORM: _random("RandomUniform", "minval", "maxval", "low", "high"),
    random_ops.NORMAL: _random("RandomNormal", "mean", "stddev", "mean", "scale"),
    # strings, side effects, state
    string_ops.STRING_JOIN: _string_join,
    string_ops.STRING_FORMAT: _string_format,
    io_ops.PRINT: _print,
    io_ops.ASSERT: _assert,
    variables.READ: _read_variable,
    variables.ASSIGN: _assign,
    variables.ASSIGN_ADD: _assign,
    variables.ASSIGN_SUB: _assign,
    # staged lists
    list_ops.LIST_FROM_ITEMS: _sequence_op(_list_from_items),
    list_ops.LIST_PUSH_BACK: _sequence_op(_push_back),
    list_ops.LIST_POP_BACK: _sequence_op(_pop_back),
    list_ops.LIST_LENGTH: _sequence_op(_list_length),
    list_ops.LIST_GET_ITEM: _sequence_op(_get_item),
    list_ops.LIST_SET_ITEM: _sequence_op(_set_item),
    list_ops.LIST_CONCAT_LISTS: _sequence_op(_concat_lists),
    list_ops.LIST_STACK: _sequence_op(_list_stack),
    list_ops.LIST_CONCAT: _sequence_op(_list_concat),
    list_ops.LIST_ZEROS_LIKE: _sequence_op(_list_zeros_like),
    list_ops.LIST_ADD: _sequence_op(_list_add),
    list_ops.LIST_UNSTACK: _sequence_op(_list_unstack),
    list_ops.LIST_SPLIT_LIKE: _sequence_op(_list_split_like),
    list_ops.LIST_SPLIT_AT: _sequence_op(_list_split_at),
    list_ops.LIST_CAST: _sequence_op(_list_cast),
    # control flow
    control_flow_ops.IF: _if,
    control_flow_ops.WHILE: _while,
})
lacks(ONNX, "graph inputs become inputs of the ONNX graph", PLACEHOLDER)
lacks(ONNX, "ONNX BitShift takes unsigned integers only", math_ops.LEFT_SHIFT,
      math_ops.RIGHT_SHIFT)
lacks(ONNX, "made by the fusion pass; export uses the graph before the passes", FUSED_ELEMENTWISE,
      FUSED_REDUCTION)
lacks(ONNX, "ONNX random ops take a static shape; this one's shape is computed at run time",
      random_ops.DYNAMIC_UNIFORM, random_ops.DYNAMIC_NORMAL)
lacks(ONNX, "not yet: the gradient of indexing has no export", array_ops.SLICE_GRADIENT)
lacks(ONNX, "not yet: the gradient of gather has no export", array_ops.GATHER_GRADIENT)


# ---- numpy's other math functions (ops/math_ops.py) ------------------------------------------
# (tan, the inverse and hyperbolic functions, rint and reciprocal are the ONNX op they declare)

def _log_base(base):
    """log2, log10: the natural logarithm over ln(base)."""
    def rule(b, op, x):
        return [b.one("Div", b.one("Log", x[0]), b.const(np.log(base), op.outputs[0].dtype))]

    return rule


def _times(factor):
    """deg2rad, rad2deg: one product."""
    return lambda b, op, x: [b.one("Mul", x[0], b.const(factor, op.outputs[0].dtype))]


def _exp2(b, op, x):
    return [b.one("Pow", b.const(2, op.outputs[0].dtype), x[0])]


def _cbrt(b, op, x):
    third = b.const(1 / 3, op.outputs[0].dtype)
    return [b.one("Mul", b.one("Sign", x[0]), b.one("Pow", b.one("Abs", x[0]), third))]


def _trunc(b, op, x):
    if not op.inputs[0].dtype.is_floating:
        return [b.one("Identity", x[0])]
    negative = b.one("Less", x[0], b.const(0, op.inputs[0].dtype))
    return [b.one("Where", negative, b.one("Ceil", x[0]), b.one("Floor", x[0]))]


def _all(b, x, value: bool):
    """A bool tensor of the shape of `x`, all `value`."""
    return b.one("Expand", b.const(np.bool_(value)), b.one("Shape", x))


def _is_nan(b, op, x):
    if not op.inputs[0].dtype.is_floating:
        return [_all(b, x[0], False)]  # integers and bools are never nan (numpy's isnan)
    return [b.one("IsNaN", x[0])]


def _is_inf(b, op, x):
    if not op.inputs[0].dtype.is_floating:
        return [_all(b, x[0], False)]
    return [b.one("IsInf", x[0])]


def _is_finite(b, op, x):
    if not op.inputs[0].dtype.is_floating:
        return [_all(b, x[0], True)]
    return [b.one("Not", b.one("Or", b.one("IsNaN", x[0]), b.one("IsInf", x[0])))]


def _hypot(b, op, x):
    """m * sqrt(1 + (n / m)**2), m and n the larger and the smaller magnitude: no overflow
    where x1**2 + x2**2 would; 0 where both are 0, and inf where either is inf (even next to a
    nan, as numpy's hypot)."""
    dtype = op.outputs[0].dtype
    magnitudes = b.one("Abs", x[0]), b.one("Abs", x[1])
    large, small = b.one("Max", *magnitudes), b.one("Min", *magnitudes)
    zero, one = b.const(0, dtype), b.const(1, dtype)
    ratio = b.one("Div", small, b.one("Where", b.one("Equal", large, zero), one, large))
    scaled = b.one("Mul", large, b.one("Sqrt", b.one("Add", one, b.one("Mul", ratio, ratio))))
    infinite = b.one("Or", b.one("IsInf", x[0]), b.one("IsInf", x[1]))
    return [b.one("Where", infinite, b.const(np.inf, dtype), scaled)]


def _logaddexp(b, op, x):
    """max(x1, x2) + log(1 + exp(-|x1 - x2|)), numpy's formula with log(1 + t) for its
    log1p(t) (t <= 1: an absolute error of an ulp of the result's scale), and x1 + log(2) where
    x1 == x2 (so that two infinities of one sign give that infinity)."""
    dtype = op.outputs[0].dtype
    distance = b.one("Abs", b.one("Sub", x[0], x[1]))
    tail = b.one("Log", b.one("Add", b.const(1, dtype), b.one("Exp", b.one("Neg", distance))))
    general = b.one("Add", b.one("Max", x[0], x[1]), tail)
    doubled = b.one("Add", x[0], b.const(np.log(2), dtype))
    return [b.one("Where", b.one("Equal", x[0], x[1]), doubled, general)]


def _heaviside(b, op, x):
    dtype = op.outputs[0].dtype
    zero = b.const(0, dtype)
    step = b.one("Where", b.one("Greater", x[0], zero), b.const(1, dtype), x[1])
    step = b.one("Where", b.one("Less", x[0], zero), zero, step)
    return [b.one("Where", b.one("IsNaN", x[0]), x[0], step)]  # nan stays nan


def _nan_losing(onnx_type):
    """fmax, fmin: ONNX Max and Min give nan next to a nan; numpy's fmax and fmin give the
    other operand."""
    def rule(b, op, x):
        both = b.one(onnx_type, *x)
        if not op.inputs[0].dtype.is_floating:
            return [both]
        either = b.one("Where", b.one("IsNaN", x[0]), x[1], both)
        return [b.one("Where", b.one("IsNaN", x[1]), x[0], either)]

    return rule


register_rules(ONNX, {
    math_ops.LOG2: _log_base(2),
    math_ops.LOG10: _log_base(10),
    math_ops.DEG2RAD: _times(np.pi / 180),
    math_ops.RAD2DEG: _times(180 / np.pi),
    math_ops.EXP2: _exp2,
    math_ops.CBRT: _cbrt,
    math_ops.TRUNC: _trunc,
    math_ops.IS_NAN: _is_nan,
    math_ops.IS_INF: _is_inf,
    math_ops.IS_FINITE: _is_finite,
    math_ops.HYPOT: _hypot,
    math_ops.LOGADDEXP: _logaddexp,
    math_ops.HEAVISIDE: _heaviside,
    math_ops.FMOD: lambda b, op, x: [b.one("Mod", *x, fmod=1)],  # C's remainder, as numpy's
    math_ops.FMAX: _nan_losing("Max"),
    math_ops.FMIN: _nan_losing("Min"),
})
lacks(ONNX, "ONNX has no log1p or expm1, and Log(1 + x) and Exp(x) - 1 lose the precision near "
      "0 that these functions exist for", math_ops.LOG1P, math_ops.EXPM1)
lacks(ONNX, "ONNX has no Atan2; its quadrants, signed zeros and infinities take more than a few "
      "nodes (not written yet)", math_ops.ARCTAN2)
lacks(ONNX, "ONNX cannot read the sign bit of a nan (it has no bitcast), which numpy's signbit "
      "and copysign do", math_ops.SIGNBIT, math_ops.COPYSIGN)


# ---- contractions, selections and boolean masks (ops/contraction_ops.py, selection_ops.py) ----
# onnxruntime's kernels take fewer dtypes than ONNX names: Einsum computes narrow integers and
# bools in int64 (wrapping back as numpy's does, or nonzero for bools), Unique integers in int64
# (floats: it drops NaNs), NonZero reads the truth of each element.
_EINSUM_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)
_UNIQUE_DTYPES = (dtypes.int8, dtypes.int64)


def _einsum_node(b, op, x, equation):
    dtype = op.inputs[0].dtype
    if dtype in _EINSUM_DTYPES:
        return [b.one("Einsum", *x, equation=equation)]
    if not (dtype.is_integer or dtype.is_bool):
        raise unsupported(op, f"onnxruntime's Einsum does not take {dtype.name}")
    wide = b.one("Einsum", *(b.cast(n, dtype, dtypes.int64) for n in x), equation=equation)
    return [b.cast(wide, dtypes.int64, dtype)]


def _einsum(b, op, x):
    return _einsum_node(b, op, x, op.attrs["equation"])


def _tensordot(b, op, x):
    a, c = op.inputs
    a_axes, b_axes = op.attrs["axes"]
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    a_term = [next(letters) for _ in range(a.ndim)]
    b_term = [next(letters) for _ in range(c.ndim)]
    for i, j in zip(a_axes, b_axes):
        b_term[j] = a_term[i]
    out = [a_term[i] for i in range(a.ndim) if i not in a_axes] + [
        b_term[j] for j in range(c.ndim) if j not in b_axes]
    equation = "".join(a_term) + "," + "".join(b_term) + "->" + "".join(out)
    return _einsum_node(b, op, x, equation)


def _truth(b, op, name, dtype):
    return name if dtype.is_bool else b.one("Cast", name, to=elem_type(dtypes.bool_))


def _nonzero_rows(b, op, x):
    rank = op.inputs[0].ndim
    found = b.one("NonZero", _truth(b, op, x[0], op.inputs[0].dtype))  # [rank, count]
    rows = [found] if rank == 1 else b.node("Split", [found], rank, axis=0, num_outputs=rank)
    return [b.one("Squeeze", row, b.int64s([0])) for row in rows]


def _unique(b, op, x):
    dtype = op.inputs[0].dtype
    wide = dtype if dtype in _UNIQUE_DTYPES else dtypes.int64
    if not (dtype.is_integer or dtype.is_bool):
        raise unsupported(op, f"{dtype.name} values: onnxruntime's Unique drops NaNs, where "
                              "numpy keeps one, so only integers and bools are exported")
    values, index, inverse, counts = b.node("Unique", [b.cast(x[0], dtype, wide)], 4, sorted=1)
    outs = [b.cast(values, wide, dtype)]
    if op.attrs["return_index"]:
        outs.append(index)
    if op.attrs["return_inverse"]:
        outs.append(b.one("Reshape", inverse, b.one("Shape", x[0])))
    if op.attrs["return_counts"]:
        outs.append(counts)
    return outs


def _bincount(b, op, x):
    """Scatter-adds ones (or the weights) into max(x) + 1 (at least minlength) zeros."""
    out = op.outputs[0].dtype
    index = b.cast(x[0], op.inputs[0].dtype, dtypes.int64)
    top = b.one("Add", b.one("ReduceMax", index, keepdims=1), b.int64s([1]))  # [1]
    length = b.one("Max", top, b.int64s([op.attrs["minlength"]]))
    zeros = b.one("ConstantOfShape", length,
                  value=numpy_helper.from_array(np.zeros(1, out.np_dtype)))
    if len(x) == 2:
        updates = b.cast(x[1], op.inputs[1].dtype, out)
    else:
        updates = b.one("Expand", b.const(np.int64(1)), b.one("Shape", index))
    return [b.one("ScatterElements", zeros, index, updates, axis=0, reduction="add")]


def _boolean_mask(b, op, x):
    if op.inputs[1].ndim == 0:
        raise unsupported(op, "a 0-d boolean mask (x[True]) has no ONNX GatherND form")
    coordinates = b.one("Transpose", b.one("NonZero", x[1]))  # [count, mask rank]
    return [b.one("GatherND", x[0], coordinates)]


def _boolean_mask_gradient(b, op, x):
    if op.inputs[1].ndim == 0:
        raise unsupported(op, "a 0-d boolean mask (x[True]) has no ONNX ScatterND form")
    grad, mask, shape = x
    zeros = b.one("ConstantOfShape", b.cast(shape, op.inputs[2].dtype, dtypes.int64),
                  value=numpy_helper.from_array(np.zeros(1, op.outputs[0].dtype.np_dtype)))
    coordinates = b.one("Transpose", b.one("NonZero", mask))
    return [b.one("ScatterND", zeros, coordinates, grad)]


register_rules(ONNX, {
    contraction_ops.EINSUM: _einsum,
    contraction_ops.TENSORDOT: _tensordot,
    selection_ops.NONZERO: _nonzero_rows,
    selection_ops.UNIQUE: _unique,
    selection_ops.BINCOUNT: _bincount,
    array_ops.BOOLEAN_MASK: _boolean_mask,
    array_ops.BOOLEAN_MASK_GRADIENT: _boolean_mask_gradient,
})
lacks(ONNX, "not yet: numpy's modes swap the operands by their lengths at run time, and ONNX "
      "Conv takes its padding as a static attribute", contraction_ops.CONVOLVE,
      contraction_ops.CORRELATE)
lacks(ONNX, "not yet: ONNX has no 1-D interpolation op (it would be a search and two gathers)",
      selection_ops.INTERP)
lacks(ONNX, "not yet: the gradients of convolve, correlate and interp have no export",
      contraction_ops.SLIDING_GRADIENT, selection_ops.INTERP_GRADIENT)
