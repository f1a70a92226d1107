"""Control flow operators: `if_stmt`, `while_stmt`, `for_stmt`, `if_exp`.

Converted code (see converters/control_flow.py) calls them with local functions:

    def if_true(total):
        total += 100
        return total
    def if_false(total):
        return total
    total = ag__.if_stmt(x > 0, if_true, if_false, (total,), ('total',))

A condition (or iterated value) that a backend claims as staged builds graph control flow
through that backend; anything else runs as plain Python, exactly like the original code.
State with one variable travels as a bare value, with several as a tuple. An `if_stmt` without
names is a returning `if`: its branches return the function's return value.

In staged constructs a variable may be assigned on some paths only. It is never filled with a
made-up value that could be read: it becomes a `MaybeUndefined` that carries a flag of where it
was assigned and checks it when read (the return slot is the exception: its flag is the
`do_return` variable of the lowered `return`s, see `special_values.return_value`).
"""

from __future__ import annotations

from collections.abc import Sequence

from autograph import backends
from autograph.errors import AutoGraphError, at
from autograph.operators.py_builtins import StagedZip
from autograph.operators.special_values import MaybeUndefined, Undefined, UndefinedReturn
from autograph.origins import caller_origin


def if_stmt(cond, if_true, if_false, state=(), names=()):
    """`if cond:` with branches `if_true(*state)` / `if_false(*state)`."""
    backend = backends.staging(cond)
    if backend is None:
        return if_true(*state) if cond else if_false(*state)
    if not names:
        return _staged_if_returning(backend, cond, if_true, if_false, state)
    return _staged_if(backend, cond, if_true, if_false, tuple(state), names)


def if_exp(cond, true_fn, false_fn):
    """`true_fn() if cond else false_fn()`."""
    backend = backends.staging(cond)
    if backend is None:
        return true_fn() if cond else false_fn()
    return _staged_if_returning(backend, cond, true_fn, false_fn, (), what="expression")


def while_stmt(test, body, state=(), names=()):
    """`while test(*state): state = body(*state)`."""
    single = len(names) == 1
    state = tuple(state)
    while True:
        result = test(*state)
        backend = backends.staging(result)
        if backend is not None:
            return _staged_while(backend, test, body, state, names)
        if not result:
            return _unpack(state, single)
        state = _pack(body(*state), single, len(names))


def for_stmt(iterated, body, state=(), names=(), extra_test=None):
    """`for item in iterated: state = body(item, *state)`, stopping when `extra_test(*state)`
    is false (the flag of a lowered `break` or `return`)."""
    single = len(names) == 1
    state = tuple(state)
    if isinstance(iterated, StagedZip):
        backend, iterated = backends.staging_any(iterated.iterables), tuple(iterated.iterables)
    else:
        backend = backends.staging(iterated)
    if backend is not None:
        return _staged_for(backend, iterated, body, state, names, extra_test)
    for item in iterated:
        if extra_test is not None:
            go_on = extra_test(*state)
            if backends.staging(go_on) is not None:
                # A staged break: the remaining (unrolled) iterations run under a condition.
                def run(*current, item=item):
                    return body(item, *current)

                state = _pack(
                    if_stmt(go_on, run, lambda *current: _unpack(current, single), state, names),
                    single, len(names))
                continue
            if not go_on:
                break
        state = _pack(body(item, *state), single, len(names))
    return _unpack(state, single)


def python_value(value, what):
    """`value` for the condition of an `if`/`while` (or a `for` iterable) inside `try`, where
    control flow stays Python; a staged value there is an error at the user's line."""
    if backends.staging(value) is not None:
        raise AutoGraphError(at(
            f"This `{what}` is inside a `try` block and depends on a tensor: autograph cannot "
            "turn it into graph control flow, because the `except` could not catch errors raised "
            "when the graph runs. Move the `try` inside the branch or loop body, or the "
            f"`{what}` out of the `try`.", caller_origin()))
    return value


# ---- staged implementations -------------------------------------------------------------------
def _staged_if_returning(backend, cond, if_true, if_false, state, what="if"):
    outputs = []

    def branch(fn, label):
        def run():
            out = fn(*state)
            outputs.append((label, out))
            if len(outputs) == 2:
                (la, a), (lb, b) = outputs
                if (a is None) != (b is None):
                    with_value, without = (la, lb) if b is None else (lb, la)
                    raise AutoGraphError(at(
                        f"This `{what}` on a tensor returns a value in its {with_value} branch "
                        f"but None in its {without} branch (a `return` in only one branch, or "
                        "one that ends without returning). Both branches of a graph "
                        "conditional must return the same structure: return a value on every "
                        "path.", caller_origin()))
            return out

        return run

    return backend.cond(cond, branch(if_true, "true"), branch(if_false, "false"), None)


def _staged_if(backend, cond, if_true, if_false, state, names):
    single, count = len(names) == 1, len(names)
    if not any(_needs_plan(v) for v in state):
        result = backend.cond(cond, lambda: _pack(if_true(*state), single, count),
                              lambda: _pack(if_false(*state), single, count), names)
        return _unpack(tuple(result), single)
    # Undefined values or Python lists: the first branch traced decides, with the second
    # branch's outputs from a dry run only when it needs them, how each is staged (the plan).
    plan = []

    def branch(fn, other):
        def run():
            out = _pack(fn(*_copies(state)), single, count)
            if not plan:
                def other_out():
                    return _pack(backend.dry_run(lambda: other(*_copies(state))), single, count)

                plan.extend(_if_plan(out, other_out, state))
            return _encode(backend, plan, out)

        return run

    result = backend.cond(cond, branch(if_true, if_false), branch(if_false, if_true),
                          _EncodedNames(names, plan))
    return _unpack(_decode(plan, state, result, names), single)


def _encoded_names(names, plan):
    if all(step is _VALUE or isinstance(step, (_List, _ReturnFill)) for step in plan):
        return names
    return _EncodedNames(names, plan)


class _EncodedNames(Sequence):
    """The names of the encoded outputs (read when the backend reports an error, after the
    plan is made): a variable assigned on some paths only has a second output, its flag."""

    def __init__(self, names, plan):
        self.names, self.plan = names, plan

    def _encoded(self):
        out = []
        for name, step in zip(self.names, self.plan):
            if step is not _DROP:
                out.append(name)
            if isinstance(step, _Maybe):
                out.append(f"{name} (whether assigned)")
        return out

    def __getitem__(self, index):
        return self._encoded()[index]

    def __len__(self):
        return len(self._encoded())


def _staged_while(backend, test, body, state, names):
    single = len(names) == 1
    plan = _loop_plan(backend, body, state, names)

    def staged_test(*current):
        return test(*_decode(plan, state, current, names))

    def staged_body(*current):
        out = _pack(body(*_decode(plan, state, current, names)), single, len(names))
        return _encode(backend, plan, out)

    init = _encode(backend, plan, _loop_init(backend, plan, state))
    result = backend.while_loop(staged_test, staged_body, init, _encoded_names(names, plan))
    return _unpack(_decode(plan, state, result, names), single)


def _staged_for(backend, iterated, body, state, names, extra_test):
    single = len(names) == 1
    plan = _loop_plan(
        backend, lambda *s: body(backend.item_placeholder(iterated), *s), state, names)

    def staged_test(*current):
        return extra_test(*_decode(plan, state, current, names))

    def staged_body(item, *current):
        out = _pack(body(item, *_decode(plan, state, current, names)), single, len(names))
        return _encode(backend, plan, out)

    init = _encode(backend, plan, _loop_init(backend, plan, state))
    result = backend.for_loop(iterated, staged_test if extra_test else None, staged_body,
                              init, _encoded_names(names, plan))
    return _unpack(_decode(plan, state, result, names), single)


# ---- plans: how each state variable is staged ------------------------------------------------
# A plan has one step per state variable, made before the graph construct is built:
#   _VALUE      a value on every path: staged as it is.
#   _DROP       undefined on every path: not staged, keeps its value (an Undefined).
#   _List       a Python list that the construct appends to: a stacked list.
#   _ReturnFill the return slot, set on some paths: a placeholder like `sample` where it is not
#               (never read there: the `do_return` flag says no `return` ran).
#   _Maybe      a variable assigned on some paths: staged with a flag saying where it was; it
#               becomes a MaybeUndefined, which checks the flag where it is read.
_VALUE = object()
_DROP = object()


class _List:
    def __init__(self, sample):
        self.sample = sample


class _ReturnFill:
    def __init__(self, sample):
        self.sample = sample


class _Maybe:
    def __init__(self, sample):
        self.sample = sample


def _needs_plan(value) -> bool:
    return isinstance(value, (Undefined, MaybeUndefined, list))


def _copies(state):
    """Each branch gets its own copy of Python lists (a branch must not see another's appends)."""
    return tuple(list(v) if isinstance(v, list) else v for v in state)


def _assigned(value):
    """The assigned value in `value` (a MaybeUndefined's value), or None if it is undefined."""
    if isinstance(value, Undefined):
        return None
    return value.value if isinstance(value, MaybeUndefined) else value


def _step(values, original):
    """The plan step for one variable whose values at the end of each path are `values`."""
    if isinstance(original, list):
        grown = [v for v in values if _grown(v, original)]
        return _List(grown[0]) if grown else _DROP
    if all(isinstance(v, Undefined) for v in values):
        return _DROP
    sample = next(_assigned(v) for v in values if not isinstance(v, Undefined))
    if any(isinstance(v, UndefinedReturn) for v in values):
        return _ReturnFill(sample)
    if any(isinstance(v, (Undefined, MaybeUndefined)) for v in values):
        return _Maybe(sample)
    return _VALUE


def _if_plan(out, other_out, state):
    """The plan for each output, from the outputs of the branch traced first (`out`) and, if
    needed, of the other one (`other_out()`, a dry run, computed at most once)."""
    other = []

    def other_value(i):
        if not other:
            other.append(other_out())
        return other[0][i]

    plan = []
    for i, value in enumerate(out):
        original = state[i]
        if isinstance(original, list) and _grown(value, original):
            plan.append(_List(value))
        elif not isinstance(original, list) and not _needs_plan(value) \
                and not _needs_plan(original):
            plan.append(_VALUE)  # defined before and on this path: defined on every path
        else:
            plan.append(_step((value, other_value(i)), original))
    return plan


def _grown(value, original) -> bool:
    return not isinstance(value, list) or len(value) > len(original)


def _encode(backend, plan, values) -> tuple:
    """The staged outputs for `values` (one path's state), as `plan` says."""
    encoded = []
    for value, step in zip(values, plan):
        if step is _DROP:
            continue
        if step is _VALUE:
            encoded.append(value)
        elif isinstance(step, _List):
            if isinstance(value, list) and not value:
                encoded.append(backend.empty_list_like(step.sample))
            else:
                encoded.append(backend.to_list(value))
        elif isinstance(step, _ReturnFill):
            encoded.append(_fill_like(backend, step.sample) if isinstance(value, Undefined)
                           else value)
        elif isinstance(value, MaybeUndefined):
            encoded += [value.value, value.defined]
        elif isinstance(value, Undefined):
            encoded += [_fill_like(backend, step.sample), False]
        else:
            encoded += [value, True]
    return tuple(encoded)


def _decode(plan, state, encoded, names) -> tuple:
    """The state after a staged construct (or inside a loop body) from its encoded values."""
    encoded = iter(encoded)
    values = []
    for original, step, name in zip(state, plan, names):
        if step is _DROP:
            values.append(original)
        elif isinstance(step, _Maybe):
            value, defined = next(encoded), next(encoded)
            values.append(value if defined is True else MaybeUndefined(value, defined, name))
        else:
            values.append(next(encoded))
    return tuple(values)


def _fill_like(backend, sample):
    """A value of the structure, dtypes and shapes of `sample` for a path where the variable
    is not assigned (it is never read there)."""
    if isinstance(sample, MaybeUndefined):
        return _fill_like(backend, sample.value)
    if isinstance(sample, tuple):
        fills = [_fill_like(backend, v) for v in sample]
        return type(sample)(*fills) if hasattr(sample, "_fields") else tuple(fills)
    if isinstance(sample, list):
        return [_fill_like(backend, v) for v in sample]
    if isinstance(sample, dict):
        return {k: _fill_like(backend, v) for k, v in sample.items()}
    if backend.is_tensor(sample):
        return backend.zeros_like(sample)
    return sample  # a Python value: any value will do, and the same one stays Python


def _loop_plan(backend, body, state, names):
    """The plan for a graph loop. Undefined values and empty lists get their type from a dry
    run of the body (graph loop variables need a dtype before the loop starts); a variable
    that stays undefined through the body is not carried (it keeps its value, like Python)."""
    if not any(isinstance(v, (Undefined, MaybeUndefined)) or (isinstance(v, list) and not v)
               for v in state):
        return tuple(_List(v) if isinstance(v, list) else _VALUE for v in state)

    def probe():
        return body(*(_probe_value(backend, v) for v in state))

    out = _pack(backend.dry_run(probe), len(names) == 1, len(names))
    plan = []
    for value, original in zip(out, state):
        if isinstance(original, list):
            plan.append(_List(value if _grown(value, original) else original)
                        if original or _grown(value, original) else _DROP)
        elif isinstance(original, (Undefined, MaybeUndefined)):
            plan.append(_step((original, value), original))
        else:
            plan.append(_VALUE)
    return tuple(plan)


def _probe_value(backend, value):
    """A staged stand-in for a loop variable's value in the dry run of the body."""
    if isinstance(value, list):
        return list(value)
    if isinstance(value, MaybeUndefined):
        return MaybeUndefined(backend.placeholder(value.value), backend.placeholder(value.defined),
                              value.name)
    if isinstance(value, Undefined):
        return value
    return backend.placeholder(value)


def _loop_init(backend, plan, state):
    """The loop's initial state: lists as stacked lists (empty ones typed by the plan)."""
    return tuple(
        (backend.empty_list_like(step.sample) if not original else backend.to_list(original))
        if isinstance(step, _List) else original
        for original, step in zip(state, plan))


# ---- state packing ----------------------------------------------------------------------------
def _pack(value, single: bool, count: int) -> tuple:
    if single:
        return (value,)
    if count == 0:
        return ()
    return tuple(value)


def _unpack(state: tuple, single: bool):
    if single:
        return state[0]
    return state if state else None

