"""Compiles a graph into the source of one Python function over numpy values.

One line per op: `name = expression` for ops with a Python expression (`a + b` is much faster
than `np.add(a, b)` on numpy scalars), `name = k_name(args)` for kernel calls (kernels with their
attrs bound as globals), `if`/`else` for `If` (branches inlined), `while` for `While`. Constants
and kernels are globals of the generated module. The source is registered in `linecache` under a
unique file name, so tracebacks show it; `line_ops` maps each line back to its op.
"""

from __future__ import annotations

import functools
import itertools
import os
from dataclasses import dataclass, field

import numpy as np

from runtime.core.generated_code import compile_function, fresh_name
from runtime.core.graph import Graph, Operation, provide_views
from runtime.core.tensor import SymbolicTensor
from runtime.executor import break_chains
from runtime.ops import control_flow_ops as cf
from runtime.ops.array_ops import GETITEM, SHAPE
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.list_ops import LIST_PUSH_BACK, ListValue, own_item
from runtime.ops.math_ops import ADD, LESS, LOGICAL_NOT
from runtime.ops.registry import CONST, FRESH_OUTPUT, PLACEHOLDER

_file_ids = itertools.count()


@dataclass
class Generated:
    """Source of the compiled function `run`, its globals and the op of every line."""

    source: str
    globals: dict
    line_ops: dict = field(default_factory=dict)
    filename: str = "<graph>"
    # What the caller passes after the input values, one per extra parameter of `run` (an
    # executor's: numba's compiled graphs take the random generators they draw from).
    extra_arguments: tuple = ()
    # The same graph's code on Python floats, which runs instead (executor/python_floats.py).
    python_floats: str | None = None


class Emitter:
    """Writes the Python source of a graph. Subclasses (other executors) change how an op
    becomes code; these switches change what the base emits."""

    free_temporaries = True  # `del` big temporaries after their last use
    counted_loops = True  # `while i < n: ...; i += step` as a `for` over a numpy range
    python_history = True  # a While's gradient history on Python lists (`_History`)
    appended_lists = True  # the lists a loop only appends to as the executor's own (`_Appended`)
    jump_out_of_chains = True  # an unrolled loop's `break` skips its later iterations
    negated_predicates = True  # `if not flag:` for an If on a LogicalNot only it reads
    origin_comments = True  # each op's line ends with the user's file and line

    def __init__(self, graph: Graph):
        self.graph = graph
        self.lines: list[str] = []
        self.line_ops: dict[int, Operation] = {}
        self.globals: dict = {}
        self.names: dict[int, str] = {}  # id(tensor) -> local name
        self._taken: set[str] = set()  # every name defined so far, local or global
        self._loop_ids = itertools.count()
        self._appends: dict[int, str] = {}  # id(ListPushBack op) -> the Python list it appends to
        self._loops = 0  # loops open where code is emitted now (at most _MAX_BLOCKS)
        self._exits: dict[int, tuple] = {}  # id(If of a break chain) -> (results, exit values)
        self._negated: dict[int, SymbolicTensor] = {}  # id(a `not x` only Ifs read) -> x
        # Parameters of `run` after the inputs: name -> what the caller passes for it.
        self.extra_parameters: dict[str, object] = {}

    def epilogue(self) -> str:
        """Source the module holds after the function (helpers its code calls): none here."""
        return ""

    def prologue(self, params: list[str]) -> str:
        """Emits what the function does before the graph's ops (nothing here); returns the
        indent of the ops."""
        return "    "

    def returns(self, indent: str, params: list[str]) -> None:
        """Emits what the function does after the graph's ops: returns the outputs."""
        self.emit(indent, return_statement([self.name_of(t) for t in self.graph.outputs]))

    # ---- a list a loop only appends to (`_Appended`) ----
    def list_buffer(self, buffer: str, lst: str, result: SymbolicTensor,
                    appends: str | None) -> list[str]:
        """Statements making `buffer`, the executor's own list of the items of the list value
        `lst` (a new one), which becomes the loop's `result`; `appends`: an expression of how
        many items the loop will append, where that is known before it (else None)."""
        return [f"{buffer} = {lst}.items()"]

    def list_append(self, buffer: str, item: SymbolicTensor, value: str) -> list[str]:
        """Statements appending the item `item` (named `value`) to `buffer`: an array's copy."""
        if len(item.shape):
            value = f"{self._global('own_item', own_item)}({value})"
        return [f"{buffer}.append({value})"]

    def list_value(self, buffer: str) -> str:
        """The list value of the executor's list `buffer` after the loop."""
        return f"{self._global('ListValue', ListValue)}({buffer}, len({buffer}))"

    # ---- names ----
    def name_of(self, tensor: SymbolicTensor) -> str:
        return self.names[id(tensor)]

    def _define(self, tensor: SymbolicTensor) -> str:
        """A new Python name for `tensor` (after its op's name; values are bound by identity,
        so two ops of one name, e.g. in a hand-edited saved file, still get two variables)."""
        op = tensor.op
        name = self._fresh(op.name if len(op.outputs) == 1 else f"{op.name}_{tensor.index}")
        self.names[id(tensor)] = name
        return name

    def _fresh(self, base: str) -> str:
        """`base`, or `base_v<n>` if taken: a Python name no other value of the code has."""
        return fresh_name(base, self._taken, "_v{}")

    def _global(self, prefix: str, value) -> str:
        name = prefix
        while name in self._taken and self.globals.get(name) is not value:
            name = f"{prefix}_{len(self.globals)}"
        self._taken.add(name)
        self.globals[name] = value
        return name

    def _bind_all(self, names: dict) -> bool:
        """Binds each of `names` as a global under its own name; False (nothing bound) when
        one of them already names another value."""
        if any(name in self._taken and self.globals.get(name) is not value
               for name, value in names.items()):
            return False
        for name, value in names.items():
            self._taken.add(name)
            self.globals[name] = value
        return True

    def emit(self, indent: str, text: str, op: Operation | None = None) -> None:
        """Appends a line; one that computes `op` names the user's line it came from (so do
        numpy's warnings, which show the generated line)."""
        if op is not None and op.origin is not None and self.origin_comments:
            text += f"  # {os.path.basename(op.origin.filename)}:{op.origin.lineno}"
        self.lines.append(indent + text)
        if op is not None:
            # +1 for the `def` line, +1 because line numbers start at 1
            self.line_ops[len(self.lines) + 1] = op

    # ---- graphs ----
    def body(self, graph: Graph, indent: str, skip=()) -> None:
        """Emits the ops of `graph` (but the ops in `skip`, which others emit their own way)."""
        dead_after = _arrays_dead_after(graph) if self.free_temporaries else {}
        unaliased = _unaliased_arrays(graph) if dead_after else set()
        chains = {i: c for i, c in break_chains.find(graph).items()
                  if self._loops + 1 + c.loops_inside() <= _MAX_BLOCKS
                  } if self.jump_out_of_chains else {}
        chain_ends: dict[int, tuple] = {}  # index of a chain's last op -> (chain, its indent)
        negations = _negated_predicates(graph) if self.negated_predicates else set()
        for index, op in enumerate(graph.operations):
            if op.opdef is PLACEHOLDER or any(op is s for s in skip):
                continue
            chain = chains.get(index)
            if chain is not None:  # `while True:` ... `break`, left at its first else branch
                self.emit(indent, "while True:")
                self._loops += 1
                chain_ends[index + len(chain.ops) - 1] = (chain, indent)
                for t in chain.levels[-1][1].outputs:  # (the names each exit sets)
                    self._define(t)
                indent += "    "
            statement = _STATEMENTS.get(op.opdef)
            dead = dead_after.get(index)
            if id(op) in negations:  # (its If writes `if not x:`)
                self._negated[id(op.outputs[0])] = op.inputs[0]
            elif id(op) in self._appends:
                _Appended.emit_append(self, op, indent)
            elif op.opdef is IF and self._exits.get(id(op)) is not None:
                self._emit_if(op, indent, self._exits.pop(id(op)))
            elif statement is not None:
                getattr(self, statement)(op, indent)
            else:
                self._emit_kernel(op, indent, [t for t in dead or () if id(t) in unaliased])
            if dead:
                self.emit(indent, f"del {', '.join(self.name_of(t) for t in dead)}")
            if chain is not None:
                for (_, level), values in zip(chain.levels, chain.exits):
                    self._exits[id(level)] = (chain.levels[-1][1].outputs, values)
            if index in chain_ends:
                chain, indent = chain_ends.pop(index)
                self.emit(indent + "    ", "break")
                self._loops -= 1

    def _emit_const(self, op: Operation, indent: str) -> None:
        value = op.attrs["value"]
        if value.ndim == 0:
            value = value[()]
        else:  # shared by every call: read-only, so no kernel writes into it, and a result
            value = value.view()  # that is a constant is copied for the caller (see
            value.setflags(write=False)  # concrete_function._make_caller)
        self.globals[self._define(op.outputs[0])] = value

    def _emit_kernel(self, op: Operation, indent: str, dying=()) -> None:
        args = [self.name_of(t) for t in op.inputs]
        attrs = op.kernel_attrs()
        expr = self._expression(op, args, attrs)
        if expr is None:
            kernel = _array_kernel(op) or op.opdef.kernel
            kernel = functools.partial(kernel, **attrs) if attrs else kernel
            expr = f"{self._global('k_' + op.name, kernel)}({', '.join(args)})"
            donor = _buffer_donor(op, kernel, dying)
            if donor is not None:  # write into a temporary that dies here: no new allocation
                expr = expr[:-1] + f", out={self.name_of(donor)})"
        outs = [self._define(t) for t in op.outputs]
        if not outs:
            self.emit(indent, expr, op)
        else:
            self.emit(
                indent,
                f"{', '.join(outs)}{',' if op.opdef.tuple_outputs else ''} = {expr}",
                op,
            )

    def _expression(self, op: Operation, args, attrs) -> str | None:
        """The op's Python expression (for these input shapes, where it has one), or None:
        the kernel is called."""
        opdef = op.opdef
        expr = None
        if opdef.typed_expression is not None:
            expr = opdef.typed_expression(args, attrs, op.inputs)
        if expr is None and opdef.expression is not None:
            expr = opdef.expression(args, attrs)
        return expr if expr is not None and self._bind_all(opdef.expression_globals) else None

    def _bind_inputs(self, sub: Graph, outer_names: list[str]) -> None:
        for placeholder, name in zip(sub.inputs, outer_names):
            self.names[id(placeholder)] = name

    def _emit_if(self, op: Operation, indent: str, exit_values=None) -> None:
        """`if`/`else` with both branches inlined; with `exit_values` (an If of a break chain
        but its last), the else branch sets the chain's results to them and leaves it."""
        negated = self._negated.get(id(cf.predicate(op)))
        pred = (f"not {self.name_of(negated)}" if negated is not None
                else self.name_of(cf.predicate(op)))
        captured = [self.name_of(t) for t in cf.captured(op)]
        outs = [self.names.get(id(t)) or self._define(t) for t in op.outputs]
        self.emit(indent, f"if {pred}:", op)
        for i, branch in enumerate(cf.branches(op)):
            if i:
                self.emit(indent, "else:")
            if i and exit_values is not None:
                results, values = exit_values
                if results:
                    self.emit(indent + "    ", f"{', '.join(self.name_of(t) for t in results)} = "
                              f"{', '.join(self.name_of(t) for t in values)}", op)
                self.emit(indent + "    ", "break")
                continue
            self._bind_inputs(branch, captured)
            start = len(self.lines)
            self.body(branch, indent + "    ")
            for out, result in zip(outs, branch.outputs):
                self.emit(indent + "    ", f"{out} = {self.name_of(result)}", op)
            if len(self.lines) == start:
                self.emit(indent + "    ", "pass")

    def _emit_while(self, op: Operation, indent: str) -> None:
        counted = _counted_loop(op) if self.counted_loops else None
        n = cf.loop_count(op)
        inputs = [self.name_of(t) for t in cf.sub_graph_inputs(op)]
        loop_vars = [self._define(t) for t in op.outputs]
        history = _History.of(self, op, loop_vars, inputs) if self.python_history else None
        carried = n if history is None else history.h
        appended = _Appended(self, op, loop_vars, inputs, carried) if self.appended_lists else None
        for i, (var, init) in enumerate(zip(loop_vars[:carried], inputs)):
            if (counted is None or i != counted[0]) and (appended is None or i not in appended):
                self.emit(indent, f"{var} = {init}", op)
        if history is not None:
            history.before(indent)
        if appended is not None:
            appended.before(indent)
        self._loops += 1
        if counted is not None:
            self._emit_counted_loop(op, indent, loop_vars, inputs, history, carried, *counted)
        else:
            self._emit_loop(op, indent, loop_vars, inputs, history, carried)
        self._loops -= 1
        if history is not None:
            history.after(indent)
        if appended is not None:
            appended.after(indent)

    def _emit_loop(self, op, indent, loop_vars, inputs, history, carried) -> None:
        """A `while True:` loop; `carried`: how many loop variables the body passes on (the
        rest, a history, `history` keeps)."""
        n = cf.loop_count(op)
        cond, body = cf.loop_cond(op), cf.loop_body(op)
        limit = cf.iteration_limit(op)
        counter = None
        if limit is not None:
            counter = self._fresh(f"iterations_{next(self._loop_ids)}")
            self.emit(indent, f"{counter} = 0")
        self.emit(indent, "while True:", op)
        inner = indent + "    "
        self._bind_inputs(cond, loop_vars + inputs[n:])
        self.body(cond, inner)
        self.emit(inner, f"if not {self.name_of(cond.outputs[0])}:", op)
        self.emit(inner + "    ", "break")
        if counter is not None:
            self.emit(inner, f"if {counter} >= {int(limit)}:")
            self.emit(inner + "    ", "break")
            self.emit(inner, f"{counter} += 1")
        self._bind_inputs(body, loop_vars + inputs[n:])
        if history is not None:
            history.record(inner)
        self.body(body, inner, skip=history.ops if history is not None else ())
        pairs = [(var, self.name_of(t)) for var, t in zip(loop_vars[:carried], body.outputs)
                 if id(t.op) not in self._appends]
        if any(var != value for var, value in pairs):
            names, values = zip(*pairs)
            self.emit(inner, f"{', '.join(names)} = {', '.join(values)}", op)

    def _emit_counted_loop(self, op, indent, loop_vars, inputs, history, carried, k, limit,
                           step, step_op) -> None:
        """`while i < limit: ...; i = i + step` as `for i in <numpy range>:` (the test and the
        increment are the costliest part of small loops)."""
        n = cf.loop_count(op)
        cond, body = cf.loop_cond(op), cf.loop_body(op)
        outer_names = loop_vars + inputs[n:]
        if limit.op.opdef is CONST:
            limit_name = self._global(limit.op.name, limit.op.attrs["value"][()])
        else:
            limit_name = outer_names[_index_of(cond.inputs, limit)]
        counting, end = (
            self._global("counting", counting_range),
            self._global("range_end", range_end),
        )
        start = f"{inputs[k]}, {limit_name}, {step}"
        self._bind_inputs(body, outer_names)
        only_output = sum(t is step_op.outputs[0] for t in body.outputs) == 1 and not any(
            step_op.outputs[0] is t for o in body.operations for t in o.inputs
        )
        items = _items_read(op, k, limit, step_op if only_output else None)
        if items is None:
            self.emit(indent, f"for {loop_vars[k]} in {counting}({start}):", op)
        else:  # `for x in xs` (no index in the generated loop: twice as fast as `xs[i]`)
            read, first, counter_used = items
            rows = self.name_of(read.inputs[0]) + (f"[{first}::{step}]" if (first, step) != (
                0, 1) else "")
            item = self._define(read.outputs[0])
            self.emit(indent, f"for {loop_vars[k]}, {item} in zip({counting}({start}), {rows}):"
                      if counter_used else f"for {item} in {rows}:", op)
        inner = indent + "    "
        start_lines = len(self.lines)
        if history is not None:
            history.record(inner)
        skip = (*(history.ops if history is not None else ()), *([step_op] if only_output else ()),
                *([items[0]] if items is not None else ()))
        self.body(body, inner, skip=skip)
        pairs = [
            (var, self.name_of(t))
            for i, (var, t) in enumerate(zip(loop_vars[:carried], body.outputs))
            if i != k and id(t.op) not in self._appends and var != self.name_of(t)
        ]
        if pairs:
            names, values = zip(*pairs)
            self.emit(inner, f"{', '.join(names)} = {', '.join(values)}", op)
        if len(self.lines) == start_lines:
            self.emit(inner, "pass")
        self.emit(indent, f"{loop_vars[k]} = {end}({start})", op)


class _History:
    """The history a While keeps for its gradient (`control_flow_ops.keep_history`), emitted as
    Python lists: one `append` per loop variable and iteration instead of the body's list ops
    and iteration count (a numpy add and a `ListValue` each), wrapped as list values after the
    loop. The reference interpreter runs the ops themselves."""

    def __init__(self, emitter, op, loop_vars, inputs, layout, ops):
        self.emitter, self.op, self.layout, self.ops = emitter, op, layout, ops
        self.h = layout.count  # the user's loop variables: the ones the loop carries
        self.loop_vars, self.inputs = loop_vars, inputs
        self.buffers = [emitter._fresh(f"{var}_items") for var in loop_vars[layout.lists]]
        self.start = emitter._fresh(f"{loop_vars[layout.count]}_start")

    @classmethod
    def of(cls, emitter, op, loop_vars, inputs):
        plain = cf.plain_history(op)
        if plain is None:
            return None
        _, count, pushes = plain
        return cls(emitter, op, loop_vars, inputs, cf.while_layout(op), (count, *pushes))

    def before(self, indent) -> None:
        emit = self.emitter.emit
        for buffer, start in zip(self.buffers, self.inputs[self.layout.lists]):
            emit(indent, f"{buffer} = {start}.items()", self.op)  # a new Python list
        emit(indent, f"{self.start} = len({self.buffers[0]})", self.op)

    def record(self, indent) -> None:
        own = self.emitter._global("own_item", own_item)
        body = cf.loop_body(self.op)
        user = self.layout.user
        for j, (buffer, value, inner) in enumerate(
                zip(self.buffers, self.loop_vars[user], body.inputs[user])):
            item = value if len(inner.shape) == 0 else f"{own}({value})"
            self.emitter.emit(indent, f"{buffer}.append({item})", self.ops[1 + j])

    def after(self, indent) -> None:
        emit, count = self.emitter.emit, self.layout.count
        wrap = self.emitter._global("ListValue", ListValue)
        int32 = self.emitter._global("int32", np.int32)
        first = self.buffers[0]
        emit(indent, f"{self.loop_vars[count]} = {self.inputs[count]} + {int32}(len({first}) - "
                     f"{self.start})", self.op)
        for var, buffer in zip(self.loop_vars[self.layout.lists], self.buffers):
            emit(indent, f"{var} = {wrap}({buffer}, len({buffer}))", self.op)


class _Appended:
    """The lists a While only appends to (`lst.append(x)` once an iteration, the list read
    nowhere else in the loop), emitted as one list of the executor's each (`Emitter.list_buffer`:
    a Python list here): `append` in the body instead of a ListPushBack kernel call, a list
    value after the loop (as the kernel keeps it: the item itself, an array's copy)."""

    def __init__(self, emitter, op, loop_vars, inputs, carried):
        self.emitter, self.op = emitter, op
        self.lists = {}  # loop variable index -> its list's name
        for j, push in append_only(op, carried).items():
            buffer = emitter._fresh(f"{loop_vars[j]}_items")
            self.lists[j] = buffer
            emitter._appends[id(push)] = buffer
        self.loop_vars, self.inputs = loop_vars, inputs

    def __contains__(self, j: int) -> bool:
        return j in self.lists

    def before(self, indent) -> None:
        appends = self._appends()
        for j, buffer in self.lists.items():  # (a new list: the items so far)
            for line in self.emitter.list_buffer(buffer, self.inputs[j], self.op.outputs[j],
                                                 appends):
                self.emitter.emit(indent, line, self.op)

    def _appends(self) -> str | None:
        """How many times the loop appends to each list (once an iteration), as an expression
        of its variables before it starts, where it counts to a limit (`_counted_loop`)."""
        counted = _counted_loop(self.op)
        if counted is None:
            return None
        k, limit, step, _ = counted
        end = (str(int(limit.op.attrs["value"])) if limit.op.opdef is CONST
               else self.inputs[_index_of(cf.loop_cond(self.op).inputs, limit)])
        return f"max(0, (int({end}) - int({self.inputs[k]}) + {step - 1}) // {step})"

    def after(self, indent) -> None:
        for j, buffer in self.lists.items():
            self.emitter.emit(indent, f"{self.loop_vars[j]} = {self.emitter.list_value(buffer)}",
                              self.op)

    @staticmethod
    def emit_append(emitter, push: Operation, indent) -> None:
        item = push.inputs[1]
        for line in emitter.list_append(emitter._appends[id(push)], item, emitter.name_of(item)):
            emitter.emit(indent, line, push)


def append_only(op: Operation, carried: int | None = None) -> dict:
    """{loop variable index: its ListPushBack op} of the lists the While `op` only appends to:
    once an iteration, the list read nowhere else in the loop (of its first `carried` loop
    variables, default all)."""
    cond, body = cf.loop_cond(op), cf.loop_body(op)
    found = {}
    for j in range(cf.loop_count(op) if carried is None else carried):
        push = body.outputs[j].op
        if push.opdef is LIST_PUSH_BACK and push.inputs[0] is body.inputs[j] and (
                _only_reader(body, body.inputs[j], push)
                and _only_reader(body, push.outputs[0], None)
                and _only_reader(cond, cond.inputs[j], None)):
            found[j] = push
    return found


def _only_reader(graph: Graph, tensor: SymbolicTensor, reader) -> bool:
    """Whether no op of `graph` but `reader` reads `tensor`, nor is it one of its outputs
    (when `reader` is None: whether nothing reads it, but as an output once)."""
    readers = [op for op in graph.operations if any(t is tensor for t in op.inputs)]
    outputs = sum(t is tensor for t in graph.outputs)
    if reader is None:
        return not readers and outputs <= 1
    return readers == [reader] and outputs == 0


def counting_range(start, limit, step):
    """The values `start, start + step, ...` below `limit`, as numpy scalars of start's dtype."""
    if (int(limit) - int(start)) // step <= 1 << 16:
        return np.arange(start, limit, step, dtype=start.dtype)
    return _counting_chunks(start, limit, step)


def _counting_chunks(start, limit, step):
    chunk = step << 16
    for first in range(int(start), int(limit), chunk):
        yield from np.arange(first, min(int(limit), first + chunk), step, dtype=start.dtype)


def range_end(start, limit, step):
    """The counter's value after `while i < limit: i += step` (step > 0)."""
    first, last = int(start), int(limit)
    if last <= first:
        return start
    return start.dtype.type(first + -(-(last - first) // step) * step)


def _index_of(tensors, tensor) -> int:
    return next(i for i, t in enumerate(tensors) if t is tensor)


def _counted_loop(op: Operation):
    """(k, limit, step, step_op) when a While op counts loop variable k up to a loop-invariant
    limit by a positive constant step, and its test is only `k < limit`; else None."""
    if cf.iteration_limit(op) is not None:
        return None
    n = cf.loop_count(op)
    cond, body = cf.loop_cond(op), cf.loop_body(op)
    test = cond.outputs[0].op
    others = [o for o in cond.operations if o.opdef is not PLACEHOLDER and o.opdef is not CONST]
    if others != [test] or test.opdef is not LESS:
        return None
    counter, limit = test.inputs
    if counter.op.opdef is not PLACEHOLDER or counter.shape != () or (
        not counter.dtype.is_integer
    ):
        return None
    k = _index_of(cond.inputs, counter)
    if k >= n:
        return None
    if limit.op.opdef is PLACEHOLDER:
        j = _index_of(cond.inputs, limit)
        if j < n and body.outputs[j] is not body.inputs[j]:
            return None
    elif limit.op.opdef is not CONST or limit.shape != ():
        return None
    step_op = body.outputs[k].op
    if step_op.opdef is not ADD:
        return None
    a, b = step_op.inputs
    increment = b if a is body.inputs[k] else a if b is body.inputs[k] else None
    if increment is None or increment.op.opdef is not CONST or increment.shape != ():
        return None
    step = int(increment.op.attrs["value"])
    return (k, limit, step, step_op) if step > 0 else None


def _items_read(op: Operation, k: int, limit: SymbolicTensor, step_op: Operation | None):
    """(read, first, counter used) when the counted While `op` (counter: loop variable `k`, below
    `limit`, as _counted_loop found them) is `for x in xs` as autograph stages it: its counter runs
    from a constant `first` >= 0 by its step up to `xs.shape[0]` (so every `xs[i]` is in range and
    there are as many as the rows of `xs[first::step]`), and its body reads `xs[i]` (the op `read`)
    of a loop-invariant `xs`; `counter used`: whether the body uses the counter for more than that
    and its own step (`step_op`, when the code leaves it out). Else None."""
    n = cf.loop_count(op)
    cond, body = cf.loop_cond(op), cf.loop_body(op)
    outer = cf.sub_graph_inputs(op)
    counter_start = outer[k]
    if counter_start.op.opdef is not CONST:
        return None
    first = int(counter_start.op.attrs["value"])
    limit_outer = outer[_index_of(cond.inputs, limit)] if limit.op.opdef is PLACEHOLDER else limit
    counter = body.inputs[k]
    readers = [o for o in body.operations if any(t is counter for t in o.inputs)]
    for read in readers:
        rows = read.inputs[0] if read.opdef is GETITEM else None
        if (rows is None or read.attrs.get("spec") != (("tensor", 0),) or len(read.inputs) != 2
                or read.inputs[1] is not counter or rows.op.opdef is not PLACEHOLDER
                or rows.dtype.is_list or not len(rows.shape)):
            continue
        j = _index_of(body.inputs, rows)
        if j < n and body.outputs[j] is not rows:  # (changed by the loop)
            continue
        if first < 0 or not _is_length_of(limit_outer, outer[j]):
            continue
        counter_used = any(o is not read and o is not step_op for o in readers) or any(
            t is counter for t in body.outputs[:k] + body.outputs[k + 1:])
        return read, first, counter_used
    return None


def _is_length_of(limit: SymbolicTensor, rows: SymbolicTensor) -> bool:
    """Whether `limit` is `rows.shape[0]`: read from its shape (`Shape` then `[0]`), or a
    constant equal to its static first dimension."""
    producer = limit.op
    if producer.opdef is CONST:
        return rows.shape[0] is not None and limit.shape == () and int(
            producer.attrs["value"]) == rows.shape[0]
    if producer.opdef is not GETITEM or producer.attrs.get("spec") != (("int", 0),):
        return False
    shape = producer.inputs[0].op
    return shape.opdef is SHAPE and shape.inputs[0] is rows


# Ops whose result is always a new array (for array operands), never a view of an input.
def _array_kernel(op: Operation):
    """The declared ufunc of an elementwise op whose result is an array of numbers: its kernel
    there (Pow's kernel differs on two scalars only), and one that can write into a dying
    buffer; None otherwise."""
    declared, out = op.opdef.elementwise, op.outputs[0] if op.outputs else None
    if declared is None or not declared.ufunc or out is None or len(out.shape) == 0 or (
            out.dtype.is_string):
        return None
    return getattr(np, declared.ufunc)


def _buffer_donor(op: Operation, kernel, dying) -> SymbolicTensor | None:
    """An input of a ufunc op (`kernel`) that dies at the op and can hold its result: a fresh
    array (not a view, not a constant or argument) of the output's exact shape and dtype, that
    no other value shares (`dying` holds only those)."""
    if not isinstance(kernel, np.ufunc) or op.attrs or len(op.outputs) != 1:
        return None
    out = op.outputs[0]
    if len(out.shape) == 0 or not out.shape.is_fully_defined():
        return None
    for t in op.inputs:
        producer = t.op
        if (
            any(t is d for d in dying)
            and FRESH_OUTPUT in producer.opdef.groups
            and not producer.attrs
            and t.dtype is out.dtype
            and tuple(t.shape) == tuple(out.shape)
        ):
            return t
    return None


def _unaliased_arrays(graph: Graph) -> set[int]:
    """The tensors of `graph` whose array no other value can share: every op that reads them
    makes a new array (a ufunc, or an op declaring FRESH_OUTPUT). A view (`x[1:]`, a reshape),
    an identity, or a loop or branch that may pass the array through would share it, so the
    array must not be overwritten by a donation while those live."""
    readers: dict[int, list] = {}
    for op in graph.operations:
        for t in op.inputs:
            readers.setdefault(id(t), []).append(op)
    return {key for key, ops in readers.items()
            if all(isinstance(op.opdef.kernel, np.ufunc) or FRESH_OUTPUT in op.opdef.groups
                   for op in ops)}


def _negated_predicates(graph: Graph) -> set[int]:
    """The ids of the LogicalNot ops of `graph` whose result only If ops read, as their
    predicate: `if not x:` costs less than `(x ^ True)` and a test of its result."""
    predicate: set[int] = set()
    other = {id(t) for t in graph.outputs}
    for op in graph.operations:
        for i, t in enumerate(op.inputs):
            (predicate if i == 0 and op.opdef is IF else other).add(id(t))
    return {id(op) for op in graph.operations if op.opdef is LOGICAL_NOT
            and id(op.outputs[0]) in predicate and id(op.outputs[0]) not in other}


def _arrays_dead_after(graph: Graph) -> dict[int, list[SymbolicTensor]]:
    """For each op index, the array values of this graph last used by that op. Deleting them
    there frees big temporaries early instead of at `return` (numpy scalars are left alone:
    freeing them gains nothing)."""
    last_use: dict[int, tuple[int, SymbolicTensor]] = {}
    for index, op in enumerate(graph.operations):
        for t in op.inputs:
            last_use[id(t)] = (index, t)
    kept = {id(t) for t in graph.outputs}
    dead: dict[int, list[SymbolicTensor]] = {}
    for index, t in last_use.values():
        if id(t) in kept or t.op.opdef in _NOT_TEMPORARY or t.op.graph is not graph:
            continue
        if len(t.shape) == 0:
            continue
        dead.setdefault(index, []).append(t)
    return dead


def return_statement(values: list[str]) -> str:
    """`return (a, b,)`: the generated function's tuple of outputs."""
    return f"return ({', '.join(values)}{',' if len(values) == 1 else ''})"


_MAX_BLOCKS = 20  # Python's limit on statically nested loops (and try/with) in a function
_NOT_TEMPORARY = (PLACEHOLDER, CONST)  # arguments and constants outlive every op
# Ops that the executor writes as statements of its own rather than as a kernel call.
_STATEMENTS = {CONST: "_emit_const", IF: "_emit_if", WHILE: "_emit_while"}


def generate(graph: Graph, function_name: str = "run", emitter_class=None) -> Generated:
    """The Python source (and globals) of a function computing `graph`'s outputs."""
    emitter = (emitter_class or Emitter)(graph)
    params = []
    for placeholder in graph.inputs:
        params.append(emitter._define(placeholder))
    indent = emitter.prologue(params)
    emitter.body(graph, indent)
    emitter.returns(indent, params)
    params += emitter.extra_parameters
    source = (f"def {function_name}({', '.join(params)}):\n" + "\n".join(emitter.lines) + "\n"
              + emitter.epilogue())
    filename = f"<rt-graph {graph.name} #{next(_file_ids)}>"
    return Generated(source, emitter.globals, emitter.line_ops, filename,
                     tuple(emitter.extra_parameters.values()))


def compile_graph(graph: Graph, emitter_class=None):
    """Compiles `graph`; returns (function of the input values -> tuple of outputs, Generated)."""
    generated = generate(graph, emitter_class=emitter_class)
    return load(generated), generated


def load(generated: Generated):
    """The function `run` of `generated`, compiled in memory (its source in linecache, for
    tracebacks)."""
    return compile_function(generated.source, generated.filename, dict(generated.globals), "run")


provide_views(to_python=lambda graph: generate(graph).source)
