"""`rt.function(f, jit_compile="xla")`: graphs compiled by XLA, through JAX.

The graph is lowered op by op to `jax.numpy` / `jax.lax` by each op's JAX rule: an op declared
as a numpy ufunc (`Elementwise.ufunc`, see ops/math_ops.py) is `jnp.<ufunc>`, the other ops'
rules are registered below against the op objects: `If` becomes `lax.cond`, `While` becomes
`lax.while_loop`, and
`jax.jit` compiles the whole function for the shapes of each call's arguments. Values that are
known while tracing (shapes, and what is computed from them only) stay numpy values, so a
reshape to a computed shape is static, as XLA needs.

Results agree with the default executor bit for bit for integer and bool ops. Float results may
differ in the last bits: XLA fuses elementwise chains (and may contract a multiply and an add
into one rounding), adds up reductions and matrix products in its own order, and has its own
exp, log, tanh, sin, cos, sigmoid and power. tests/runtime/test_jax_backend.py states the
tolerances.

Where numpy raises and XLA would not (an index out of range, which XLA clamps; an `rt.Assert`
that fails), the compiled function checks with `jax.experimental.checkify` and raises an
InvalidArgumentError naming the user's line (the checks cost time: a graph with tensor indices
inside a loop runs slower than without). An integer division by zero gives 0, as numpy's does. An op
without a JAX rule, a loop whose variables change shape, or a value only known when the graph
runs where XLA needs it while compiling (the length of a `rt.range` with tensor bounds) is a
located NoLoweringError. The variables a graph reads are arguments of the XLA computation, their
values read on every call (a model's forward pass runs on XLA); a graph that updates a variable
is refused. A graph with 64-bit dtypes (a Python int or float it carries is one) is compiled and
called with JAX's 64-bit mode on for that call (`jax.enable_x64`), so it keeps its dtypes where
JAX would silently compute in 32 bits; the mode of the user's own JAX code is left alone
(`to_jax` needs `jax.config.update("jax_enable_x64", True)` for such graphs).
The extra `jax` must be installed.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from runtime import variables
from runtime.errors import InvalidArgumentError, NoLoweringError, with_origin
from runtime.executor.codegen import Generated
from runtime.ops import (
    array_ops,
    contraction_ops,
    control_flow_ops,
    creation_ops,
    io_ops,
    list_ops,  # noqa: F401 - defines the list ops, which have no JAX rule
    math_ops,
    random_ops,
    reduction_ops,
    selection_ops,
    string_ops,
)
from runtime.ops.array_ops import _index_tuple
from runtime.ops.fused_ops import FUSED_ELEMENTWISE, FUSED_REDUCTION
from runtime.ops.registry import (
    CONST,
    JAX,
    PLACEHOLDER,
    REGISTRY,
    derive_rules,
    lacks,
    register_rule,
    register_rules,
)

_jax: Any = None  # the jax module, imported at the first use


def _import_jax():
    global _jax
    if _jax is None:
        try:
            import jax
            import jax.numpy  # noqa: F401
            from jax.experimental import checkify  # noqa: F401
        except ImportError:
            raise ImportError("jit_compile='xla' needs the jax package: pip install "
                              "'tracegraph[jax]'.") from None
        _jax = jax
    return _jax


def compile_graph(graph):
    """(a function of the input values -> tuple of outputs, Generated), compiled by XLA. The
    variables the graph reads are arguments of the XLA computation too, their values read on
    every call."""
    jax = _import_jax()
    from jax.experimental import checkify

    x64 = _x64_mode(jax, graph)
    checks = _check_lowerable(graph, jax.config.jax_enable_x64 or x64 is not None)
    read = _variables_read(graph)

    def lowered(values, variable_values):
        _reading.values = dict(zip((v.name for v in read), variable_values))
        try:
            return tuple(run_graph(graph, values))
        finally:
            _reading.values = None

    if checks:
        checked = jax.jit(checkify.checkify(lowered, errors=checkify.index_checks
                                            | checkify.user_checks))

        def compiled(values, variable_values):
            error, outs = checked(values, variable_values)
            message = error.get()
            if message is not None:
                raise InvalidArgumentError(_located(message, graph))
            return outs
    else:
        compiled = jax.jit(lowered)
    kinds = [t.dtype.np_dtype.type for t in graph.outputs]
    scalar = [len(t.shape) == 0 for t in graph.outputs]

    def call(*values):
        if x64 is None:
            outs = compiled(values, [v.value_ for v in read])
        else:
            with x64(True):
                outs = compiled(values, [v.value_ for v in read])
        return tuple(kind(v) if is_scalar else np.asarray(v)
                     for v, kind, is_scalar in zip(outs, kinds, scalar))

    source = ("# compiled by XLA through JAX (runtime/executor/jax_backend.py); see "
              "jax.jit(...).lower(...).as_text() for what XLA runs\n")
    return call, Generated(source, {}, {}, "<rt-xla>")


def _x64_mode(jax, graph):
    """JAX's context manager that turns its 64-bit mode on for this thread, when `graph`
    computes in a 64-bit dtype (a Python int or float it carries, `int(x)`) and the mode is off
    (compiled and called inside it, the graph keeps its dtypes and the user's other JAX code is
    left as it is); else None."""
    if jax.config.jax_enable_x64:
        return None
    wide = any(t.dtype.np_dtype.itemsize // (2 if t.dtype.is_complex else 1) == 8
               and not t.dtype.is_string for op in graph.walk() for t in (*op.inputs, *op.outputs))
    return getattr(jax, "enable_x64", None) if wide else None


_reading = threading.local()  # .values: {variable name: its JAX value} while jax.jit traces


def _variables_read(graph) -> list:
    """The variables `graph` (or a sub-graph) reads, each once."""
    found: dict = {}
    for op in graph.walk():
        if op.opdef is variables.READ:
            found.setdefault(op.attrs["variable"].name, op.attrs["variable"])
    return list(found.values())


@register_rule(JAX, variables.READ)
def _read_variable_rule(op):
    values = getattr(_reading, "values", None)
    name = op.attrs["variable"].name
    if values is None or name not in values:
        raise NoLoweringError(with_origin(
            f"the graph reads the variable {name}, whose value a JAX function of the graph's "
            "inputs cannot see: pass its value as an argument instead (or run the function "
            "with jit_compile='xla', which reads variables on every call).", op.origin))
    return values[name]


def to_jax(concrete):
    """The graph of a concrete function (as traced) as a function of JAX arrays: flat inputs in
    the graph's input order, a tuple of the graph's outputs. It composes with JAX like any JAX
    function (`jax.jit` with shardings across devices, `jax.vmap`, ...); an index out of range
    then follows JAX (clamped), as in any JAX code."""
    jax = _import_jax()
    graph = concrete.traced_graph
    _check_lowerable(graph, jax.config.jax_enable_x64)
    return lambda *values: tuple(run_graph(graph, values))


def _check_lowerable(graph, x64: bool) -> bool:
    """Raises a located NoLoweringError for the first op of `graph` (or its sub-graphs) that
    XLA cannot run; returns whether the graph needs run-time checks."""
    checks = False
    for op in graph.walk():
        if op.opdef is not PLACEHOLDER and op.opdef.rule(JAX) is None:
            reason = op.opdef.lacking.get(JAX, "it has no JAX lowering")
            raise NoLoweringError(with_origin(
                f"jit_compile='xla' cannot compile the {op.type} op ({reason}). Use the default "
                "executor (jit_compile=None) for this function.", op.origin))
        for t in [*op.inputs, *op.outputs]:
            # a complex number is two floats: complex64's are 32-bit
            part = t.dtype.np_dtype.itemsize // (2 if t.dtype.is_complex else 1)
            if part == 8 and not x64 and not t.dtype.is_string:
                raise NoLoweringError(with_origin(
                    f"jit_compile='xla': the {op.type} op computes in {t.dtype.name}, and JAX "
                    "runs 64-bit dtypes in 32 bits unless its 64-bit mode is on: call "
                    "jax.config.update('jax_enable_x64', True) first, or use 32-bit dtypes.",
                    op.origin))
        checks = checks or op.opdef is io_ops.ASSERT or (op.opdef in _INDEXING and not all(
            t.op.opdef is CONST for t in op.inputs[1:]))
    return checks


def _located(message: str, graph) -> str:
    """A checkify message, with the user's line of the op whose check failed (the first op of
    the kind it names)."""
    where = None
    for op in graph.walk():
        if op.origin is not None and _CHECK_WORDS.get(op.opdef, "\0") in message.lower():
            where = op.origin
            break
    return with_origin(f"the graph compiled by XLA failed a check: {message.splitlines()[0]}",
                       where)


def run_graph(graph, values) -> list:
    """The outputs of `graph` on `values`, computed by the JAX rules (while JAX traces)."""
    env = {id(t): v for t, v in zip(graph.inputs, values)}
    for op in graph.operations:
        if op.opdef is PLACEHOLDER:
            continue
        try:
            out = op.opdef.rule(JAX)(op, *[env[id(t)] for t in op.inputs])
        except NoLoweringError:
            raise
        except (TypeError, ValueError, IndexError, _jax.errors.JAXTypeError) as e:
            raise NoLoweringError(with_origin(
                f"jit_compile='xla' cannot compile the {op.type} op: {e}", op.origin)) from None
        outs = out if isinstance(out, (tuple, list)) else (out,)
        for tensor, value in zip(op.outputs, outs):
            env[id(tensor)] = value
    return [env[id(t)] for t in graph.outputs]


# ---- the JAX rules ------------------------------------------------------------------------------

def _jnp():
    return _jax.numpy


def _static(*values) -> bool:
    """Whether all `values` are known while tracing (numpy values, not JAX tracers)."""
    return all(isinstance(v, (np.ndarray, np.generic, int, float, bool)) for v in values)


def _elementwise(numpy_fn, jax_name):
    """An op that numpy computes on static values (shape arithmetic stays static) and jnp on
    traced ones; the result has the op's dtype (as the executor's kernels give it)."""
    def rule(op, *xs):
        dtype = op.outputs[0].dtype.np_dtype
        if _static(*xs):
            return np.asarray(numpy_fn(*xs)).astype(dtype)
        return getattr(_jnp(), jax_name)(*xs).astype(dtype)
    return rule


def _ufunc(opdef):
    """The JAX rule of an op declared as a numpy ufunc: `jnp.<ufunc>` (`np.<ufunc>` on values
    known while tracing)."""
    ufunc = opdef.elementwise and opdef.elementwise.ufunc
    return _elementwise(getattr(np, ufunc), ufunc) if ufunc else None


def _integer_division(numpy_fn, jax_name):
    """FloorDiv and FloorMod as numpy computes them: an integer division by zero gives 0
    (XLA's would give other values)."""
    plain = _elementwise(numpy_fn, jax_name)

    def rule(op, a, b):
        if _static(a, b) or not op.outputs[0].dtype.is_integer:
            return plain(op, a, b)
        jnp = _jnp()
        zero = b == 0
        return jnp.where(zero, 0, plain(op, a, jnp.where(zero, 1, b))).astype(
            op.outputs[0].dtype.np_dtype)
    return rule


def _sigmoid(op, x):
    return _jax.nn.sigmoid(x)


def _relu(op, x):
    return _jnp().maximum(x, _jnp().zeros((), x.dtype))


def _cast(op, x):
    dtype = op.attrs["dtype"].np_dtype
    return np.asarray(x).astype(dtype) if _static(x) else x.astype(dtype)


def _const(op):
    value = op.attrs["value"]
    return np.asarray(value)


def _reduction(name, dtype_of_op=True):
    def rule(op, x):
        axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
        module = np if _static(x) else _jnp()
        out = getattr(module, name)(x, axis=axis, keepdims=keepdims)
        return out.astype(op.outputs[0].dtype.np_dtype) if dtype_of_op else out
    return rule


def _arg_reduction(name):
    def rule(op, x):
        module = np if _static(x) else _jnp()
        return getattr(module, name)(x, axis=op.attrs["axis"]).astype(
            op.attrs["output_type"].np_dtype)
    return rule


def _module(*xs):
    return np if _static(*xs) else _jnp()


def _shape_of(value) -> tuple:
    return tuple(int(d) for d in np.asarray(value).reshape(-1))


def _needs_static(op, value, what: str):
    if not _static(value):
        raise NoLoweringError(with_origin(
            f"jit_compile='xla' cannot compile the {op.type} op: its {what} is only known when "
            "the graph runs, and XLA needs it while compiling.", op.origin))
    return value


def _dynamic_reshape(op, x, shape):
    return _module(x).reshape(x, _shape_of(_needs_static(op, shape, "shape")))


def _dynamic_tile(op, x, multiples):
    return _module(x).tile(x, _shape_of(_needs_static(op, multiples, "multiples")))


def _dynamic_broadcast_to(op, x, shape):
    return _module(x).broadcast_to(x, _shape_of(_needs_static(op, shape, "shape")))


def _getitem(op, x, *index_values):
    return x[_index_tuple(op.attrs["spec"], index_values)]


def _gather(op, params, indices):
    return _module(params, indices).take(params, indices, axis=op.attrs["axis"])


def _split(op, x):
    axis, start, pieces = op.attrs["axis"], 0, []
    for size in op.attrs["sizes"]:
        index = [slice(None)] * x.ndim
        index[axis] = slice(start, start + size)
        pieces.append(x[tuple(index)])
        start += size
    return tuple(pieces)


def _unstack(op, x):
    moved = _module(x).moveaxis(x, op.attrs["axis"], 0)
    return tuple(moved[i] for i in range(op.attrs["num"]))


def _softmax(op, x):
    return _jax.nn.softmax(x, axis=op.attrs["axis"])


def _fill(op, dims, value):
    shape = _shape_of(_needs_static(op, dims, "shape"))
    return _module(value).full(shape, value, dtype=op.outputs[0].dtype.np_dtype)


def _range(op, start, limit, delta):
    _needs_static(op, np.asarray([0]) if _static(start, limit, delta) else start,
                  "length (a range with tensor bounds)")
    return np.arange(start, limit, delta, dtype=np.asarray(start).dtype)


def _linspace(op, start, stop):
    module = _module(start, stop)
    return module.linspace(start, stop, op.attrs["num"], axis=op.attrs["axis"]).astype(
        op.outputs[0].dtype.np_dtype)


def _like(fill):
    def rule(op, x):
        dtype = op.attrs.get("dtype") or op.outputs[0].dtype
        return _module(x).full(np.shape(x), fill, dtype=dtype.np_dtype)
    return rule


def _sum_to_shape(op, grad, shape):
    shape = _shape_of(_needs_static(op, shape, "shape"))
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                      if d == 1 and grad.shape[lead + i] != 1)
    module = _module(grad)
    total = module.sum(grad, axis=axes, keepdims=True) if axes else grad
    return module.reshape(total, shape).astype(op.outputs[0].dtype.np_dtype)


def _assert(op, condition, *data):
    from jax.experimental import checkify

    checkify.check(_jnp().all(condition), f"assertion failed: {op.attrs.get('message', '')}")
    return ()


def _if(op, predicate, *captured):
    then_branch, else_branch = control_flow_ops.branches(op)
    if _static(predicate):  # known while tracing: only the branch taken is compiled
        return tuple(run_graph(control_flow_ops.taken_branch(op, bool(predicate)), captured))
    return _jax.lax.cond(predicate, lambda xs: tuple(run_graph(then_branch, xs)),
                         lambda xs: tuple(run_graph(else_branch, xs)), tuple(captured))


def _while(op, *inputs):
    n = control_flow_ops.loop_count(op)
    cond, body = control_flow_ops.loop_cond(op), control_flow_ops.loop_body(op)
    limit = control_flow_ops.iteration_limit(op)
    jnp = _jnp()
    state = [jnp.asarray(v, dtype=t.dtype.np_dtype) for v, t in zip(inputs[:n], op.outputs)]
    captured = inputs[n:]

    def test(carry):
        i, values = carry
        going = jnp.asarray(run_graph(cond, (*values, *captured))[0])
        return going if limit is None else jnp.logical_and(going, i < limit)

    def step(carry):
        i, values = carry
        new = run_graph(body, (*values, *captured))
        return i + 1, tuple(jnp.asarray(v, dtype=t.dtype.np_dtype)
                            for v, t in zip(new, op.outputs))

    try:
        _, final = _jax.lax.while_loop(test, step, (jnp.int32(0), tuple(state)))
    except TypeError as e:
        raise NoLoweringError(with_origin(
            "jit_compile='xla' cannot compile this loop: XLA needs each loop variable to keep "
            f"its shape and dtype from one iteration to the next ({str(e).splitlines()[0]}).",
            op.origin)) from None
    return final


# Ops that need run-time checks: asserts, and indexing by tensors (constant indices are checked
# while tracing); and a word of the checkify message of each.
_INDEXING = frozenset({array_ops.GETITEM, array_ops.GATHER})
_CHECK_WORDS = {array_ops.GETITEM: "index", array_ops.GATHER: "index",
                io_ops.ASSERT: "assertion"}

derive_rules(JAX, _ufunc)  # the rule of every op declared as a ufunc, unless written here
register_rules(JAX, {
    CONST: _const,
    math_ops.FLOORDIV: _integer_division(np.floor_divide, "floor_divide"),
    math_ops.MOD: _integer_division(np.mod, "mod"),
    math_ops.ROUND: _elementwise(np.round, "round"),
    math_ops.SIGMOID: _sigmoid,
    math_ops.RELU: _relu,
    math_ops.WHERE: _elementwise(np.where, "where"),
    math_ops.CAST: _cast,
    math_ops.CLIP: lambda op, x, lo, hi: _module(x, lo, hi).minimum(
        _module(x, lo, hi).maximum(x, lo), hi),
    math_ops.MATMUL: lambda op, a, b: _module(a, b).matmul(a, b),
    math_ops.SOFTMAX: _softmax,
    array_ops.RESHAPE: lambda op, x: _module(x).reshape(x, op.attrs["shape"]),
    array_ops.DYNAMIC_RESHAPE: _dynamic_reshape,
    array_ops.TRANSPOSE: lambda op, x: _module(x).transpose(x, op.attrs["perm"]),
    array_ops.EXPAND_DIMS: lambda op, x: _module(x).expand_dims(x, op.attrs["axis"]),
    array_ops.SQUEEZE: lambda op, x: _module(x).squeeze(x, op.attrs["axis"]),
    array_ops.CONCAT: lambda op, *xs: _module(*xs).concatenate(xs, op.attrs["axis"]),
    array_ops.STACK: lambda op, *xs: _module(*xs).stack(xs, op.attrs["axis"]),
    array_ops.UNSTACK: _unstack,
    array_ops.SPLIT: _split,
    array_ops.TILE: lambda op, x: _module(x).tile(x, op.attrs["multiples"]),
    array_ops.DYNAMIC_TILE: _dynamic_tile,
    array_ops.BROADCAST_TO: lambda op, x: _module(x).broadcast_to(x, op.attrs["shape"]),
    array_ops.DYNAMIC_BROADCAST_TO: _dynamic_broadcast_to,
    array_ops.IDENTITY: lambda op, x: x,
    array_ops.STOP_GRADIENT: lambda op, x: x,
    array_ops.SHAPE: lambda op, x: np.array(np.shape(x), op.attrs["out_type"].np_dtype),
    array_ops.SIZE: lambda op, x: op.attrs["out_type"].np_dtype.type(np.size(x)),
    array_ops.RANK: lambda op, x: np.int32(np.ndim(x)),
    array_ops.GATHER: _gather,
    array_ops.GETITEM: _getitem,
    reduction_ops.SUM: _reduction("sum"),
    reduction_ops.MEAN: _reduction("mean"),
    reduction_ops.MAX: _reduction("max"),
    reduction_ops.MIN: _reduction("min"),
    reduction_ops.PROD: _reduction("prod"),
    reduction_ops.ANY: _reduction("any", dtype_of_op=False),
    reduction_ops.ALL: _reduction("all", dtype_of_op=False),
    reduction_ops.ARGMAX: _arg_reduction("argmax"),
    reduction_ops.ARGMIN: _arg_reduction("argmin"),
    array_ops.SUM_TO_SHAPE: _sum_to_shape,
    creation_ops.ZEROS_LIKE: _like(0),
    creation_ops.ONES_LIKE: _like(1),
    creation_ops.FILL: _fill,
    creation_ops.RANGE: _range,
    creation_ops.LINSPACE: _linspace,
    io_ops.ASSERT: _assert,
    control_flow_ops.IF: _if,
    control_flow_ops.WHILE: _while,
})
lacks(JAX, "a graph input: an argument of the compiled function", PLACEHOLDER)
lacks(JAX, "staged lists grow while the graph runs, and XLA needs every shape while compiling",
      *[opdef for opdef in REGISTRY.values() if opdef.name.startswith("List")])
lacks(JAX, "XLA has no strings", string_ops.STRING_JOIN, string_ops.STRING_FORMAT,
      math_ops.STRING_EQUAL, math_ops.STRING_NOT_EQUAL)
lacks(JAX, "random numbers come from numpy's generator; XLA's would give other numbers",
      random_ops.UNIFORM, random_ops.NORMAL, random_ops.DYNAMIC_UNIFORM, random_ops.DYNAMIC_NORMAL)
lacks(JAX, "the size of its output is known only when the graph runs", math_ops.WHERE_INDICES)
lacks(JAX, "made by the fusion pass, which does not run for XLA (XLA fuses by itself)",
      FUSED_ELEMENTWISE, FUSED_REDUCTION)
lacks(JAX, "XLA computes values, it cannot update a variable: run the updates on the default "
      "executor (e.g. the training step), the forward pass may use XLA", variables.ASSIGN,
      variables.ASSIGN_ADD, variables.ASSIGN_SUB)
lacks(JAX, "not lowered yet", io_ops.PRINT, array_ops.SLICE_GRADIENT, array_ops.GATHER_GRADIENT)


# ---- contractions and selections (ops/contraction_ops.py, ops/selection_ops.py) ---------------

def _in_dtype_of_op(fn):
    """A rule computing `fn(module, op, *xs)` (numpy on static values, jnp on traced ones), in
    the op's output dtype."""
    def rule(op, *xs):
        return fn(_module(*xs), op, *xs).astype(op.outputs[0].dtype.np_dtype)
    return rule


register_rules(JAX, {
    contraction_ops.EINSUM: _in_dtype_of_op(
        lambda m, op, *xs: m.einsum(op.attrs["equation"], *xs)),
    contraction_ops.TENSORDOT: _in_dtype_of_op(
        lambda m, op, a, b: m.tensordot(a, b, op.attrs["axes"])),
    contraction_ops.CONVOLVE: _in_dtype_of_op(
        lambda m, op, a, v: m.convolve(a, v, op.attrs["mode"])),
    contraction_ops.CORRELATE: _in_dtype_of_op(
        lambda m, op, a, v: m.correlate(a, v, op.attrs["mode"])),
    selection_ops.INTERP: _in_dtype_of_op(
        lambda m, op, x, xp, fp: m.interp(x, xp, fp, op.attrs["left"], op.attrs["right"])),
})
lacks(JAX, "the size of its output is known only when the graph runs", selection_ops.NONZERO,
      selection_ops.UNIQUE, selection_ops.BINCOUNT, array_ops.BOOLEAN_MASK,
      array_ops.BOOLEAN_MASK_GRADIENT)
lacks(JAX, "not lowered yet", contraction_ops.SLIDING_GRADIENT, selection_ops.INTERP_GRADIENT)
