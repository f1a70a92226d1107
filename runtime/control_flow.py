"""`rt.cond` and `rt.while_loop`: plain Python eagerly; `If` / `While` ops with sub-graphs
while tracing.

Branches and loop bodies are traced into sub-graphs of the graph being built. Tensors they use
from enclosing graphs are captured: they become extra inputs of the `If` / `While` op, and
every sub-graph of one op has the same inputs in the same order.
"""

from __future__ import annotations

import itertools

from runtime import context, nest
from runtime.conversion import convert_to_tensor, is_weak
from runtime.errors import with_origin
from runtime.graph import Graph
from runtime.ops.registry import CONTROL_FLOW, apply, constant_in_graph, define_op
from runtime.source_info import user_origin
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor

_names = itertools.count()

IF = define_op(
    "If",
    infer=lambda inputs, *, specs, **attrs: list(specs),
    kernel=None,  # the executor inlines the branches
    groups=[CONTROL_FLOW],
)
WHILE = define_op(
    "While",
    infer=lambda inputs, *, specs, **attrs: list(specs),
    kernel=None,  # the executor emits a Python `while`
    groups=[CONTROL_FLOW],
)


def _describe(names, index: int) -> str:
    if names and index < len(names):
        return f"'{names[index]}'"
    return f"#{index}"


def _to_graph_tensor(graph: Graph, value, dtype=None) -> SymbolicTensor:
    """`value` as a tensor of `graph` (constants for Python and eager values)."""
    if isinstance(value, SymbolicTensor):
        return value if value.op.graph is graph else graph.capture(value)
    tensor = convert_to_tensor(value, dtype)
    if isinstance(tensor, EagerTensor):
        return constant_in_graph(graph, tensor)
    return _to_graph_tensor(graph, tensor)


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
    into an `If` op; their outputs must match in structure and dtype."""
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
    n = next(_names)
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
    specs, positions, outs = [], [], [[], []]
    for i, (a, b) in enumerate(zip(t_flat, f_flat)):
        if a is None and b is None:
            continue
        if is_weak(a) and is_weak(b) and a == b and type(a) is type(b):
            continue  # the same Python value on both sides stays a Python value
        dtype = None
        if is_weak(a) and isinstance(b, Tensor):
            dtype = b.dtype
        elif is_weak(b) and isinstance(a, Tensor):
            dtype = a.dtype
        ta = _in_branch(branches[0], a, dtype, names, i)
        tb = _in_branch(branches[1], b, dtype, names, i)
        if ta.dtype is not tb.dtype:
            raise TypeError(
                with_origin(
                    f"cond: output {_describe(names, i)} is {ta.dtype.name} in the true branch but "
                    f"{tb.dtype.name} in the false branch; use rt.cast so both have one dtype.",
                    user_origin(),
                )
            )
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
        specs.append((ta.dtype, merged))
        positions.append(i)
    for g, o in zip(branches, outs):
        g.outputs = o
    captured = _unify_captures(branches, 0)
    attrs = {"then_branch": branches[0], "else_branch": branches[1], "specs": tuple(specs)}
    result = apply(IF, [pred, *captured], attrs)
    result = [result] if isinstance(result, SymbolicTensor) else result
    flat = list(t_flat)
    for pos, tensor in zip(positions, result):
        flat[pos] = tensor
    return nest.pack_sequence_as(t_out, flat)


def _in_branch(g: Graph, value, dtype, names, i):
    if not isinstance(value, (Tensor, bool, int, float)) and not hasattr(value, "read_value"):
        raise TypeError(
            with_origin(
                f"cond: output {_describe(names, i)} is {type(value).__name__} ({value!r}), which "
                "cannot become a tensor; branches of a tensor condition can only return tensors "
                "and numbers.",
                user_origin(),
            )
        )
    with g.as_default():
        return _to_graph_tensor(g, value, dtype)


# ---- while_loop --------------------------------------------------------------------------------


def while_loop(cond, body, loop_vars, maximum_iterations=None, names=None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`. In a graph this is a
    `While` op; loop variables keep their dtype and may change shape (dims that change become
    unknown)."""
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
    flat = [_to_graph_tensor(graph, v) if v is not None else None for v in nest.flatten(structure)]
    for i, v in enumerate(flat):
        if v is None:
            raise ValueError(
                with_origin(
                    f"while_loop: loop variable {_describe(names, i)} is None; give it an initial "
                    "value before the loop.",
                    user_origin(),
                )
            )
    shapes = [v.shape for v in flat]
    for _ in range(4):
        cond_g, body_g, body_flat = _trace_loop(graph, cond, body, structure, flat, shapes, names)
        relaxed = []
        for i, (v, out) in enumerate(zip(flat, body_flat)):
            if out.dtype is not v.dtype:
                raise TypeError(
                    with_origin(
                        f"while_loop: loop variable {_describe(names, i)} is {v.dtype.name} before "
                        f"the loop but {out.dtype.name} after an iteration; a loop variable must "
                        "keep its dtype (use rt.cast).",
                        user_origin(),
                    )
                )
            merged = _merge_shapes(shapes[i], out.shape)
            if merged is None:
                raise ValueError(
                    with_origin(
                        f"while_loop: loop variable {_describe(names, i)} changes rank from "
                        f"{len(shapes[i])} to {len(out.shape)} in an iteration; its rank must stay "
                        "the same.",
                        user_origin(),
                    )
                )
            relaxed.append(merged)
        if relaxed == [tuple(s) for s in shapes]:
            break
        shapes = relaxed
    captured = _unify_captures([cond_g, body_g], len(flat))
    attrs = {
        "cond": cond_g,
        "body": body_g,
        "maximum_iterations": maximum_iterations,
        "specs": tuple((v.dtype, s) for v, s in zip(flat, shapes)),
    }
    result = apply(WHILE, [*flat, *captured], attrs)
    result = [result] if isinstance(result, SymbolicTensor) else result
    packed = nest.pack_sequence_as(structure, result)
    return packed[0] if single else packed


def _loop_inputs(graph, flat, shapes, names):
    """Placeholders for the loop variables, named after them when the names are known."""
    return [
        graph.add_input(v.dtype, s, name=names[i] if names and i < len(names) else None)
        for i, (v, s) in enumerate(zip(flat, shapes))
    ]


def _trace_loop(graph, cond, body, structure, flat, shapes, names):
    n = next(_names)
    cond_g, body_g = Graph(f"while_{n}_cond", outer=graph), Graph(f"while_{n}_body", outer=graph)
    with cond_g.as_default():
        args = nest.pack_sequence_as(structure, _loop_inputs(cond_g, flat, shapes, names))
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
        args = nest.pack_sequence_as(structure, _loop_inputs(body_g, flat, shapes, names))
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
        body_flat = [
            _to_graph_tensor(body_g, o, v.dtype if is_weak(o) else None)
            for o, v in zip(nest.flatten(out), flat)
        ]
        body_g.outputs = body_flat
    return cond_g, body_g, body_flat

