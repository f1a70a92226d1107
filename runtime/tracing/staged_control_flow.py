"""`rt.cond` and `rt.while_loop`: plain Python eagerly; `If` / `While` ops with sub-graphs
while tracing.

Branches and loop bodies are traced into sub-graphs of the graph being built. Tensors they use
from enclosing graphs are captured: they become extra inputs of the `If` / `While` op, and
every sub-graph of one op has the same inputs in the same order.

Python scalars stay weak (see runtime.core.tensor_conversion): an output that is a Python
scalar (or weak tensor) on every path is a weak tensor; next to a strong tensor on another path
it takes that tensor's dtype if it keeps its value. A loop body is traced again until the loop
variables' dtypes, weakness and shapes agree with what the body gives.
"""

from __future__ import annotations

import numpy as np

from runtime import nest
from runtime.core import context
from runtime.core.graph import Graph, joined_arguments
from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.core.tensor_conversion import (
    convert_to_tensor,
    is_python_int,
    is_python_scalar,
    python_scalar_fits,
    weak_dtype,
    weak_fits,
    weak_join,
)
from runtime.errors import with_origin
from runtime.ops import math_ops
from runtime.ops.control_flow_ops import IF, WHILE, if_attrs, while_attrs
from runtime.ops.registry import apply, constant_in_graph
from runtime.tensor_list import TensorList, present


def _describe(names, index: int) -> str:
    if names and index < len(names):
        return f"'{names[index]}'"
    return f"#{index}"


def _to_graph_tensor(graph: Graph, value, dtype=None) -> SymbolicTensor:
    """`value` as a tensor of `graph` (constants for Python and eager values; a captured weak
    tensor stays weak; a TensorList gives its list tensor)."""
    if isinstance(value, TensorList):
        value = value.handle
    if isinstance(value, SymbolicTensor):
        if value.op.graph is graph:
            return value
        inner = graph.capture(value)
        inner.weak = value.weak
        return inner
    tensor = convert_to_tensor(value, dtype)
    if isinstance(tensor, EagerTensor):
        return constant_in_graph(graph, tensor)
    return _to_graph_tensor(graph, tensor)


# ---- weak values (Python scalars and weak tensors) ---------------------------------------------


def _spec(value):
    """(dtype, weak) of a graph tensor or a Python scalar (weak, with the dtype that holds it
    exactly: int32 (int64 for an int beyond int32), float64 for a float (Python's own width: a
    value joined from Python floats keeps Python's value), bool)."""
    if is_python_scalar(value):
        return weak_dtype(value), True
    return value.dtype, value.weak


def _shape(value):
    return () if is_python_scalar(value) else tuple(value.shape)


def _fits(value, dtype) -> bool:
    """Whether `value` (a Python scalar or graph tensor) can become `dtype` keeping its value:
    a Python scalar exactly, a weak tensor by kind, a strong tensor only as it is."""
    if is_python_scalar(value):
        return python_scalar_fits(value, dtype)
    if value.dtype is dtype:
        return True
    return value.weak and weak_fits(value.dtype, dtype)


def _as_dtype(graph: Graph, value, dtype) -> SymbolicTensor:
    """`value` (one that `_fits` `dtype`) as a `dtype` tensor of `graph`."""
    with graph.as_default():
        if is_python_scalar(value):
            return _to_graph_tensor(graph, value, dtype)
        return math_ops.cast(value, dtype)


def _show(value) -> str:
    if is_python_scalar(value):
        return f"the Python {type(value).__name__} {value!r}"
    return value.dtype.name + (" (from Python scalars)" if value.weak else "")


def _merge_shapes(a, b):
    if len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


def _unify_captures(graphs, first_inputs: int) -> list:
    """Makes all `graphs` take the same captured tensors after their first inputs; returns the
    tensors of the enclosing graph they stand for, in that order."""
    outer: dict[int, SymbolicTensor] = {}  # keyed by the enclosing graph's tensor
    for g in graphs:
        for tensor, _ in g.captures.values():
            outer.setdefault(id(tensor), tensor)
    for g in graphs:
        inner = {id(tensor): placeholder for tensor, placeholder in g.captures.values()}
        for key, tensor in outer.items():
            if key not in inner:
                inner[key] = g.capture(tensor)
        g.inputs = g.inputs[:first_inputs] + [inner[key] for key in outer]
    return list(outer.values())


# ---- cond --------------------------------------------------------------------------------------


def cond(pred, true_fn, false_fn, names=None):
    """`true_fn()` if `pred` else `false_fn()`. With a symbolic `pred`, both branches are traced
    into an `If` op; their outputs must match in structure and dtype (Python scalars adapt)."""
    if not isinstance(pred, SymbolicTensor):
        return true_fn() if pred else false_fn()
    if not pred.dtype.is_bool or len(pred.shape) != 0:
        raise TypeError(
            with_origin(
                f"cond: the condition must be a scalar bool tensor, got {pred.dtype.name}"
                f"{list(pred.shape)}; reduce it first (rt.reduce_all / rt.reduce_any).",
                user_origin(),
            )
        )
    graph = context.current_graph()
    n = graph.next_construct_id()
    branches = [Graph(f"cond_{n}_true", outer=graph), Graph(f"cond_{n}_false", outer=graph)]
    results = []
    for g, fn in zip(branches, (true_fn, false_fn)):
        with g.as_default():
            results.append(fn())
    t_out, f_out = results
    try:
        nest.assert_same_structure(t_out, f_out, "cond")
    except ValueError:
        raise ValueError(
            with_origin(
                "cond: the two branches return different structures: true branch "
                f"{nest.structure_str(t_out)}, false branch {nest.structure_str(f_out)}. Both "
                "branches must return the same values (e.g. each must return a value, or neither).",
                user_origin(),
            )
        ) from None
    t_flat, f_flat = nest.flatten(t_out), nest.flatten(f_out)
    specs, positions, outs, weak = [], [], [[], []], []
    for i, (a, b) in enumerate(zip(t_flat, f_flat)):
        if a is None and b is None:
            continue
        if _same_python_value(a, b):
            continue  # the same Python value on both sides stays a Python value
        a, b = _in_branch(branches[0], a, names, i), _in_branch(branches[1], b, names, i)
        dtype, is_weak = _cond_join(a, b, names, i)
        ta, tb = _as_dtype(branches[0], a, dtype), _as_dtype(branches[1], b, dtype)
        outs[0].append(ta)
        outs[1].append(tb)
        merged = _merge_shapes(ta.shape, tb.shape)
        if merged is None:
            raise ValueError(
                with_origin(
                    f"cond: output {_describe(names, i)} has rank {len(ta.shape)} in the true "
                    "branch "
                    f"but rank {len(tb.shape)} in the false branch.",
                    user_origin(),
                )
            )
        specs.append((dtype, merged))
        positions.append(i)
        weak.append(is_weak)
    for g, o in zip(branches, outs):
        g.outputs = o
    captured = _unify_captures(branches, 0)
    result = apply(IF, [pred, *captured], if_attrs(branches[0], branches[1], specs))
    result = [result] if isinstance(result, SymbolicTensor) else result
    flat = list(t_flat)
    for pos, tensor, is_weak in zip(positions, result, weak):
        tensor.weak = is_weak
        flat[pos] = present(tensor)
        _may_be_argument(graph, tensor, t_flat[pos], f_flat[pos])
    return nest.pack_sequence_as(t_out, flat)


def _argument_of(value):
    """The function argument index `value` stands for (see Graph.argument_inputs; for a list,
    the argument its items may be views of), or None."""
    if isinstance(value, TensorList):
        value = value.handle
    if isinstance(value, SymbolicTensor):
        return value.op.graph.argument_inputs.get(id(value))
    return None


def _may_be_argument(graph, result, *values) -> None:
    """Notes that `result`, a construct's output that is one of `values` on some path (a branch
    that left `x` as it was, a loop that ran no iteration), may be a function argument."""
    for value in values:
        argument = _argument_of(value)
        if argument is not None:
            graph.argument_inputs[id(result)] = joined_arguments(
                graph.argument_inputs.get(id(result)), argument)


def _holds(value, dtype) -> bool:
    """Whether `value` (a Python scalar or graph tensor) becomes `dtype` keeping its value: as
    `_fits`, and a Python int a float dtype rounds does not."""
    return _fits(value, dtype) and not (
        dtype.is_floating and is_python_int(value) and float(value) != value)


def _same_python_value(a, b) -> bool:
    """Whether two Python scalars are one value, as Python tells them apart: of one type and
    equal, and with the same signs of zeros (0.0 == -0.0, but 1 / x tells them apart)."""
    return is_python_scalar(a) and type(a) is type(b) and a == b and repr(a) == repr(b)


def _joinable(a, b) -> bool:
    """Whether weak values of dtypes `a` and `b` join (lists only of one dtype: a list tensor is
    not cast)."""
    return a is b or not (a.is_list or b.is_list)


def _cond_join(a, b, names, i):
    """(dtype, weak) of an output that is `a` in the true branch and `b` in the false one: two
    weak values stay weak (promoted: int and float give float); next to a strong tensor, a weak
    value takes its dtype if it keeps its value."""
    (da, wa), (db, wb) = _spec(a), _spec(b)
    if wa and wb and _joinable(da, db):
        dtype = weak_join(da, db)
        for value, side in ((a, "true"), (b, "false")):
            # a Python int past int64, or one a float64 rounds (next to a float on the other
            # path, the graph holds both as float64)
            if not _holds(value, dtype):
                raise TypeError(with_origin(
                    f"cond: output {_describe(names, i)} is {_show(value)} in the {side} branch, "
                    f"which a graph's {dtype.name} cannot hold exactly; compute it where no "
                    "tensor decides the branch (outside this `if`), or keep it within int64 "
                    "(and, next to a float on the other path, within 2**53).", user_origin()))
        return dtype, max(wa, wb)  # (a list's weakness: the most mixed, tensor_list.MIXED)
    dtype = db if wa else da
    if not (_fits(a, dtype) and _fits(b, dtype)):
        raise TypeError(
            with_origin(
                f"cond: output {_describe(names, i)} is {_show(a)} in the true branch but "
                f"{_show(b)} in the false branch; use rt.cast so both have one dtype.",
                user_origin(),
            )
        )
    return dtype, False


def _in_branch(g: Graph, value, names, i):
    """A branch output as a tensor of `g`; a Python scalar stays one until its dtype is known."""
    if is_python_scalar(value):
        return value
    if not isinstance(value, (Tensor, TensorList, np.generic)) and not hasattr(
            value, "read_value") and not (isinstance(value, np.ndarray)
                                          and value.dtype.kind in "biufc"):
        raise TypeError(
            with_origin(
                f"cond: output {_describe(names, i)} is {type(value).__name__} ({value!r}), which "
                "cannot become a tensor; branches of a tensor condition can only return tensors, "
                "numbers and numeric numpy arrays.",
                user_origin(),
            )
        )
    with g.as_default():
        return _to_graph_tensor(g, value)


# ---- while_loop --------------------------------------------------------------------------------


def while_loop(cond, body, loop_vars, maximum_iterations=None, names=None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`. In a graph this is a
    `While` op; loop variables keep their dtype and may change shape (dims that change become
    unknown). A loop variable that starts as a Python scalar is weak: it takes the dtype the
    body gives it (the body is traced again with that dtype)."""
    single = not isinstance(loop_vars, (list, tuple))
    structure = (loop_vars,) if single else loop_vars
    graph = context.current_graph()
    if graph is None:
        values, i = structure, 0
        while (maximum_iterations is None or i < maximum_iterations) and cond(*values):
            values = body(*values)
            values = (values,) if single else values
            i += 1
        return values[0] if single else values
    initial = nest.flatten(structure)
    for i, v in enumerate(initial):
        if v is None:
            raise ValueError(
                with_origin(
                    f"while_loop: loop variable {_describe(names, i)} is None; give it an initial "
                    "value before the loop.",
                    user_origin(),
                )
            )
    arguments = [_argument_of(v) for v in initial]  # (which stand for a function argument)
    initial = [v if is_python_scalar(v) else _to_graph_tensor(graph, v) for v in initial]
    # (dtype, weak, shape) of each loop variable, until the body agrees with it.
    state = [(*_spec(v), _shape(v)) for v in initial]
    while True:  # ends: dtypes only widen or become strong, dims only become unknown
        cond_g, body_g, outs = _trace_loop(graph, cond, body, structure, state, names,
                                           arguments)
        joined = [_loop_join(s, out, names, i) for i, (s, out) in enumerate(zip(state, outs))]
        # (a list the body fills with views of an argument holds them from the start too)
        held = [joined_arguments(a, _argument_of(out)) for a, out in zip(arguments, outs)]
        if joined == state and held == arguments:
            break
        state, arguments = joined, held
    body_g.outputs = [_as_dtype(body_g, out, s[0]) for out, s in zip(outs, state)]
    flat = [_loop_initial(graph, v, s[0], names, i) for i, (v, s) in enumerate(zip(initial, state))]
    captured = _unify_captures([cond_g, body_g], len(flat))
    specs = [(dtype, shape) for dtype, _, shape in state]
    attrs = while_attrs(cond_g, body_g, maximum_iterations, specs)
    result = apply(WHILE, [*flat, *captured], attrs)
    result = [result] if isinstance(result, SymbolicTensor) else result
    for tensor, (_, weak, _), argument in zip(result, state, arguments):
        tensor.weak = weak
        if argument is not None:  # (no iteration leaves it the argument)
            graph.argument_inputs[id(tensor)] = argument
    packed = nest.pack_sequence_as(structure, [present(t) for t in result])
    return packed[0] if single else packed


def _loop_join(before, out, names, i):
    """The (dtype, weak, shape) of a loop variable that is `before` when an iteration starts and
    `out` (a Python scalar or tensor) when it ends."""
    dtype, weak, shape = before
    out_dtype, out_weak = _spec(out)
    merged = _merge_shapes(shape, _shape(out))
    if merged is None:
        raise ValueError(
            with_origin(
                f"while_loop: loop variable {_describe(names, i)} changes rank from "
                f"{len(shape)} to {len(_shape(out))} in an iteration; its rank must stay the same.",
                user_origin(),
            )
        )
    if weak and out_weak and _joinable(dtype, out_dtype):
        joined = weak_join(dtype, out_dtype)
        if not _holds(out, joined):  # a Python int past int64 (or one float64 rounds)
            raise TypeError(with_origin(
                f"while_loop: loop variable {_describe(names, i)} is {_show(out)} after an "
                f"iteration, which a graph's {joined.name} cannot hold exactly; compute it where "
                "no tensor decides the loop, or keep it within int64 (and, next to floats, within "
                "2**53).", user_origin()))
        return joined, max(weak, out_weak), merged
    if weak:  # a weak variable takes the dtype of the strong value the body gives it
        return out_dtype, False, merged
    if not _fits(out, dtype):
        raise TypeError(
            with_origin(
                f"while_loop: loop variable {_describe(names, i)} is {dtype.name} before the loop "
                f"but {_show(out)} after an iteration; a loop variable must keep its dtype (use "
                "rt.cast).",
                user_origin(),
            )
        )
    return dtype, False, merged


def _loop_initial(graph, value, dtype, names, i) -> SymbolicTensor:
    """The initial value of a loop variable as a `dtype` tensor of `graph` (a weak initial value
    takes the dtype the body gave the variable, if it keeps its value)."""
    if not _holds(value, dtype):
        raise TypeError(
            with_origin(
                f"while_loop: loop variable {_describe(names, i)} starts as {_show(value)}, but "
                f"the loop body makes it {dtype.name}, which cannot hold that value exactly; "
                f"start it with a value of that kind, or rt.cast it in the body.",
                user_origin(),
            )
        )
    return _as_dtype(graph, value, dtype)


def _loop_inputs(graph, state, names, arguments):
    """Placeholders for the loop variables, named after them when the names are known;
    `arguments`: the function argument each starts as, or None."""
    inputs = []
    for i, (dtype, weak, shape) in enumerate(state):
        tensor = graph.add_input(dtype, shape, name=names[i] if names and i < len(names) else None)
        tensor.weak = weak
        if arguments[i] is not None:
            graph.argument_inputs[id(tensor)] = arguments[i]
        inputs.append(present(tensor))
    return inputs


def _trace_loop(graph, cond, body, structure, state, names, arguments):
    """The cond and body graphs for loop variables described by `state`, and the body's flat
    outputs (tensors of the body graph, or Python scalars)."""
    n = graph.next_construct_id()
    cond_g, body_g = Graph(f"while_{n}_cond", outer=graph), Graph(f"while_{n}_body", outer=graph)
    with cond_g.as_default():
        args = nest.pack_sequence_as(structure, _loop_inputs(cond_g, state, names, arguments))
        test = _to_graph_tensor(cond_g, cond(*args))
        if not test.dtype.is_bool or len(test.shape) != 0:
            raise TypeError(
                with_origin(
                    f"while_loop: the condition must be a scalar bool, got {test.dtype.name}"
                    f"{list(test.shape)}.",
                    user_origin(),
                )
            )
        cond_g.outputs = [test]
    with body_g.as_default():
        args = nest.pack_sequence_as(structure, _loop_inputs(body_g, state, names, arguments))
        out = body(*args)
        out = (
            (out,)
            if not isinstance(structure, (list, tuple))
            or (len(structure) == 1 and not isinstance(out, (list, tuple)))
            else out
        )
        try:
            nest.assert_same_structure(tuple(structure), tuple(out), "while_loop")
        except ValueError:
            raise ValueError(
                with_origin(
                    f"while_loop: the body returns {nest.structure_str(tuple(out))} but the loop "
                    f"variables are {nest.structure_str(tuple(structure))}.",
                    user_origin(),
                )
            ) from None
        outs = [
            o if is_python_scalar(o) else _to_graph_tensor(body_g, o) for o in nest.flatten(out)
        ]
    return cond_g, body_g, outs
