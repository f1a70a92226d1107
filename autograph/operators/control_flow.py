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
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from autograph import backends
from autograph.errors import AutoGraphError, at
from autograph.operators.py_builtins import StagedZip
from autograph.operators.special_values import is_undefined
from autograph.origins import caller_origin

_RETVAL = re.compile(r"retval(_\d+)?$")


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
    if not any(_needs_type(v, n) for v, n in zip(state, names)):
        result = backend.cond(cond, lambda: _pack(if_true(*state), single, count),
                              lambda: _pack(if_false(*state), single, count), names)
        return _unpack(tuple(result), single)
    # Undefined values or Python lists: the first branch traced decides, with the second
    # branch's outputs from a dry run only when it needs them, how each is staged (the plan).
    plan = []
    labels = {if_true: "true", if_false: "false"}

    def branch(fn, other):
        def run():
            out = _pack(fn(*_copies(state)), single, count)
            if not plan:
                def other_out():
                    return _pack(backend.dry_run(lambda: other(*_copies(state))), single, count)

                plan.extend(_if_plan(out, other_out, state, names, labels[fn], labels[other]))
            return _apply(backend, plan, out, names, labels[fn])

        return run

    result = backend.cond(cond, branch(if_true, if_false), branch(if_false, if_true),
                          _KeptNames(names, plan))
    return _unpack(_merge(plan, state, result), single)


class _KeptNames(Sequence):
    """The names of the outputs a plan keeps (read when the backend reports an error, after
    the plan is made)."""

    def __init__(self, names, plan):
        self.names, self.plan = names, plan

    def _kept(self):
        return [n for n, step in zip(self.names, self.plan) if step is not _DROP]

    def __getitem__(self, index):
        return self._kept()[index]

    def __len__(self):
        return len(self._kept())


def _staged_while(backend, test, body, state, names):
    single = len(names) == 1
    state, keep = _loop_init(backend, body, state, names)

    def staged_test(*current):
        return test(*_restore(current, keep, state))

    def staged_body(*current):
        return _kept(_pack(body(*_restore(current, keep, state)), single, len(names)), keep)

    result = backend.while_loop(staged_test, staged_body, _kept(state, keep), _kept(names, keep))
    return _unpack(_restore(result, keep, state), single)


def _staged_for(backend, iterated, body, state, names, extra_test):
    single = len(names) == 1
    state, keep = _loop_init(
        backend, lambda *s: body(backend.item_placeholder(iterated), *s), state, names)

    def staged_test(*current):
        return extra_test(*_restore(current, keep, state))

    def staged_body(item, *current):
        out = body(item, *_restore(current, keep, state))
        return _kept(_pack(out, single, len(names)), keep)

    result = backend.for_loop(iterated, staged_test if extra_test else None, staged_body,
                              _kept(state, keep), _kept(names, keep))
    return _unpack(_restore(result, keep, state), single)


# ---- undefined values and lists --------------------------------------------------------------
_DROP = object()


class _List:
    """Plan step: a Python list that a staged branch appends to becomes a stacked list."""

    def __init__(self, sample):
        self.sample = sample


class _Fill:
    """Plan step: a value the other branch defines; an undefined return value is replaced by
    zeros like `sample`, any other undefined variable is an error."""

    def __init__(self, sample, defined_in):
        self.sample = sample
        self.defined_in = defined_in


def _undefined_like(value, name) -> bool:
    """Undefined, or the None that a lowered `return` starts its `retval` with."""
    return is_undefined(value) or (value is None and _RETVAL.match(name) is not None)


def _needs_type(value, name) -> bool:
    return _undefined_like(value, name) or isinstance(value, list)


def _copies(state):
    """Each branch gets its own copy of Python lists (a branch must not see another's appends)."""
    return tuple(list(v) if isinstance(v, list) else v for v in state)


def _if_plan(out, other_out, state, names, label, other_label):
    """The plan for each output, from the outputs of the branch traced first (`out`) and, if
    needed, of the other one (`other_out()`, a dry run, computed at most once)."""
    other = []

    def other_value(i):
        if not other:
            other.append(other_out())
        return other[0][i]

    plan = []
    for i, name in enumerate(names):
        value = out[i]
        if isinstance(state[i], list):
            if _grown(value, state[i]):
                plan.append(_List(value))
            else:
                sample = other_value(i)
                plan.append(_List(sample) if _grown(sample, state[i]) else _DROP)
        elif not _undefined_like(value, name):
            plan.append(_Fill(value, label))
        else:
            sample = other_value(i)
            if _undefined_like(sample, name):
                plan.append(_DROP)
            else:
                _check_return_value(name, other_label, label)
                plan.append(_Fill(sample, other_label))
    return plan


def _grown(value, original) -> bool:
    return not isinstance(value, list) or len(value) > len(original)


def _check_return_value(name, defined, undefined):
    """Only a lowered return value may be undefined in one branch (it is never read there)."""
    if not _RETVAL.match(name):
        raise AutoGraphError(at(
            f"'{name}' must be defined in both branches of this `if` on a tensor: the {defined} "
            f"branch assigns it, the {undefined} branch does not, and it is used afterwards. "
            f"Assign '{name}' before the `if` or in both branches.", caller_origin()))


def _apply(backend, plan, out, names, label):
    """The outputs of one branch, staged as `plan` says."""
    values = []
    for value, step, name in zip(out, plan, names):
        if step is _DROP:
            continue
        if isinstance(step, _List):
            if isinstance(value, list) and not value:
                value = backend.empty_list_like(step.sample)
            else:
                value = backend.to_list(value)
        elif _undefined_like(value, name):
            _check_return_value(name, step.defined_in, label)
            value = backend.zeros_like(step.sample)
        values.append(value)
    return tuple(values)


def _merge(plan, state, result):
    result = iter(result)
    return tuple(s if step is _DROP else next(result) for s, step in zip(state, plan))


def _loop_init(backend, body, state, names):
    """Initial loop values and which variables the graph loop carries.

    Undefined values and empty lists get their type from a dry run of the body (graph loop
    variables need a dtype before the loop starts); a variable that stays undefined through
    the body is not carried (it keeps its value, like Python).
    """
    needs_type = [_undefined_like(v, n) or (isinstance(v, list) and not v)
                  for v, n in zip(state, names)]
    keep = (True,) * len(names)
    if not any(needs_type):
        return state, keep

    def probe():
        return body(*(list(v) if isinstance(v, list) else backend.placeholder(v) for v in state))

    out = _pack(backend.dry_run(probe), len(names) == 1, len(names))
    init, keep = list(state), list(keep)
    for i, name in enumerate(names):
        if not needs_type[i]:
            continue
        if isinstance(state[i], list):
            init[i] = backend.empty_list_like(out[i])
        elif _undefined_like(out[i], name):
            keep[i] = False
        else:
            init[i] = backend.zeros_like(out[i])
    return tuple(init), tuple(keep)


def _kept(values, keep):
    return tuple(v for v, k in zip(values, keep) if k)


def _restore(kept, keep, originals):
    """The full state from the carried values, with the others at their original values."""
    kept = iter(kept)
    return tuple(next(kept) if k else original for k, original in zip(keep, originals))


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

