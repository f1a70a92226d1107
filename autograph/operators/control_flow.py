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
names is a returning `if`: its branches return the function's return value. `slots` are state
that the functions change in place (shared variables, subscripts, attributes; see `slots`):
plain Python never looks at them, a staged construct carries them like variables (see `state`).
"""

from __future__ import annotations

import copy
import warnings

from autograph import backends
from autograph.errors import AutoGraphError, UnrolledLoopWarning, at
from autograph.operators import decisions, list_uses, slots, structures, traced_paths
from autograph.operators.aliases import held_by_caller
from autograph.operators.path_changes import PathChanges
from autograph.operators.py_builtins import StagedZip
from autograph.operators.state import (
    Construct,
    LeafNames,
    Plan,
    Stacked,
    loop_step,
    needs_other_path,
    probe_value,
    step_for,
)
from autograph.operators.traced_paths import TracedPaths
from autograph.origins import caller_origin


def if_stmt(cond, if_true, if_false, state=(), names=(), slots=()):
    """`if cond:` with branches `if_true(*state)` / `if_false(*state)`."""
    backend = backends.staging(cond)
    decisions.note("if", backend is not None)
    if backend is None:
        return if_true(*state) if cond else if_false(*state)
    construct = Construct(state, names, slots, (if_true, if_false), returns=not names)
    return _staged_if(backend, cond, if_true, if_false, construct)


def if_exp(cond, true_fn, false_fn):
    """`true_fn() if cond else false_fn()`."""
    backend = backends.staging(cond)
    if backend is None:
        return true_fn() if cond else false_fn()
    return staged_choice(backend, cond, true_fn, false_fn)


def staged_choice(backend, cond, true_fn, false_fn):
    """`true_fn() if cond else false_fn()` on a staged `cond` (also for `and` / `or`)."""
    return _staged_if(backend, cond, true_fn, false_fn, Construct((), (), (), (), returns=True))


def while_stmt(test, body, state=(), names=(), slots=()):
    """`while test(*state): state = body(*state)`."""
    single = len(names) == 1
    state = tuple(state)
    iterations = 0
    unrolling = _Unrolling()
    while True:
        result = test(*state)
        backend = backends.staging(result)
        if backend is not None:
            decisions.note("while", True, iterations or None)
            construct = Construct(state, names, slots, (test, body))
            return _staged_loop(backend, construct, test, body, first_test=result)
        if not result:
            decisions.note("while", False, iterations)
            unrolling.done("while", iterations)
            return _unpack(state, single)
        state = _pack(body(*state), single, len(names))
        iterations += 1


def for_stmt(iterated, body, state=(), names=(), extra_test=None, slots=()):
    """`for item in iterated: state = body(item, *state)`, stopping when `extra_test(*state)`
    is false (the flag of a lowered `break` or `return`)."""
    single = len(names) == 1
    state = tuple(state)
    if isinstance(iterated, StagedZip):
        backend, iterated = backends.staging_any(iterated.iterables), tuple(iterated.iterables)
    else:
        backend = backends.staging(iterated)
    if backend is not None:
        decisions.note("for", True)
        functions = (body,) if extra_test is None else (body, extra_test)
        construct = Construct(state, names, slots, functions)
        return _staged_loop(backend, construct, extra_test, body, iterated)
    iterations = 0
    unrolling = _Unrolling()
    for item in iterated:
        iterations += 1
        if extra_test is not None:
            go_on = extra_test(*state)
            if backends.staging(go_on) is not None:
                # A staged break: the remaining (unrolled) iterations run under a condition
                # (whose branch functions hold no cells: the slots are bound to this loop's).
                slots = tuple(slot.bind((body, extra_test)) for slot in slots)

                def run(*current, item=item):
                    return body(item, *current)

                state = _pack(
                    if_stmt(go_on, run, lambda *current: _unpack(current, single), state, names,
                            slots),
                    single, len(names))
                continue
            if not go_on:
                iterations -= 1
                break
        state = _pack(body(item, *state), single, len(names))
    decisions.note("for", False, iterations)
    unrolling.done("for", iterations)
    return _unpack(state, single)


UNROLL_WARNING_OPS = 2000  # ops a Python loop adds to a graph before it is said once
_warned_loops: set = set()


class _Unrolling:
    """Watches a Python loop that runs while a graph is built: past UNROLL_WARNING_OPS ops
    added by it, an UnrolledLoopWarning at its line (once per line) says so and how to make it
    a graph loop."""

    __slots__ = ("backend", "before")

    def __init__(self):
        self.backend = backends.building_graph()
        self.before = 0 if self.backend is None else self.backend.ops_built()

    def done(self, kind: str, iterations: int) -> None:
        if self.backend is None:
            return
        added = self.backend.ops_built() - self.before
        if added < UNROLL_WARNING_OPS:
            return
        origin = caller_origin()
        if origin is None or (origin.filename, origin.lineno) in _warned_loops:
            return
        _warned_loops.add((origin.filename, origin.lineno))
        how = ("iterate over a tensor (e.g. a tensor range such as `rt.range(n)`, or a tensor "
               "bound `range(n)` where `n` is a tensor)" if kind == "for" else
               "make its condition a tensor")
        warnings.warn_explicit(
            f"This Python `{kind}` loop ran {iterations} iterations while the graph was traced "
            f"and added {added} ops to it: it is unrolled, so the graph (and the time to trace "
            f"and compile it) grows with the loop. If that is not what you want, {how}: it then "
            "becomes one graph loop.", UnrolledLoopWarning, origin.filename, origin.lineno)


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


def match_subject(value):
    """The subject of a `match` (which stays Python control flow); a staged value is an error
    at the user's line."""
    if backends.staging(value) is not None:
        raise AutoGraphError(at(
            "This `match` is on a tensor: autograph does not turn `match` into graph control "
            "flow (its patterns compare in Python). Write it as `if`/`elif` on the tensor, which "
            "autograph stages.", caller_origin()))
    return value


# ---- staged implementations -------------------------------------------------------------------
_BRANCHES = ("in the true branch", "in the false branch")


def _staged_if(backend, cond, if_true, if_false, construct):
    """The first branch traced makes the plan, with the other branch's outputs from a dry run
    only when it needs them; the second branch is checked against it. A branch that raises an
    error plain Python would raise there (`traced_paths.raised_by_user`) becomes that error,
    raised when the graph takes the branch."""
    plan = Plan()
    changes = PathChanges((if_true, if_false), construct)

    def make_plan(samples):
        plan.steps = [step_for(backend, name, original, [(lb, v[i]) for lb, v in samples])
                      for i, (name, original) in enumerate(zip(construct.names,
                                                               construct.initial))]

    def other_path(other, other_label) -> list:
        """[(label, outputs)] of the other branch, from a dry run; [] if it raises as Python
        would (it then never completes)."""
        try:
            return [(other_label, changes.kept(
                lambda: construct.dry_run(backend, other, lambda: construct.initial)))]
        except Exception as e:
            if traced_paths.raised_by_user(e) is None:
                raise
            return []

    def branch(fn, label, other, other_label):
        def run():
            changes.start()
            try:
                out = construct.run(fn, construct.initial)
                changes.end()
            except Exception as e:
                origin = traced_paths.raised_by_user(e)
                if origin is None:
                    raise
                if not plan:  # the other branch says what the construct gives
                    samples = other_path(other, other_label)
                    if not samples:
                        raise  # both paths raise: so does the `if`, as in Python
                    make_plan(samples)
                _raise_on_path(backend, plan, e, origin)
                return plan.fill(backend)
            if not plan:
                samples = [(label, out)]
                if needs_other_path(backend, construct.initial, out):
                    samples += other_path(other, other_label)
                make_plan(samples)
            return plan.encode(backend, out, label)

        return run

    true_label, false_label = _BRANCHES
    try:
        with TracedPaths():
            result = backend.cond(cond, branch(if_true, true_label, if_false, false_label),
                                  branch(if_false, false_label, if_true, true_label),
                                  LeafNames(plan))
    except BaseException:
        changes.start()
        raise
    else:
        changes.check_if()
    finally:
        construct.restore()
    return _finish(backend, construct, plan.decode(_as_tuple(result)))


def _staged_loop(backend, construct, test, body, iterated=None, first_test=None):
    """A graph `while` (`iterated` is None; `test` is its condition, `first_test` its staged
    first value) or a graph `for` over `iterated` (`test` is the extra test of a lowered
    break, or None)."""
    plan = Plan()
    changes = PathChanges((body, test), construct)
    try:
        with TracedPaths():
            result = _build_loop(backend, construct, plan, test, body, iterated, changes)
    except BaseException:
        changes.start()
        raise
    else:
        kept = changes.check_loop()
        if kept:  # (changed once, as the loop's first iteration does: only if there is one)
            if first_test is None:
                items = iterated if isinstance(iterated, tuple) else (iterated,)
                runs = [backend.len(items) > 0 for items in items]
            else:
                runs = [first_test]
            for condition in runs:
                backend.assert_(condition, at(
                    f"This graph loop ran no iteration, but tracing its body changed "
                    f"{kept[0]} once (by a call: a memo filled or an object built on the first "
                    "iteration), which Python does only when the loop runs. Make the change "
                    "before the loop.", caller_origin()))
    finally:
        construct.restore()
    return _finish(backend, construct, plan.decode(_as_tuple(result)))


def _build_loop(backend, construct, plan, test, body, iterated, changes):
    probed = []
    run_body = changes.counted(body)

    def dry_iteration(staged_lists, like=None):
        return construct.dry_run(
            backend, run_body,
            lambda: tuple(probe_value(backend, v, staged_lists, like[i] if like else None)
                          for i, v in enumerate(construct.initial)),
            lambda: () if iterated is None else (backend.item_placeholder(iterated),))

    def probe(i):
        if not probed:
            try:
                try:
                    probed.append(dry_iteration(staged_lists=False))
                except Exception as first:
                    # A graph limit met on a Python list (indexed by a tensor): the body needs
                    # its lists staged. Try that (an empty list takes the type of the items the
                    # iteration appended before it raised); if it fails too, the first error
                    # stands.
                    taken = construct.taken
                    appended = [*taken, *[None] * (len(construct.initial) - len(taken))]
                    if not (backends.is_graph_limit(first) and any(
                            type(v) is list and (v or a)
                            for v, a in zip(construct.initial, appended))):
                        raise
                    try:
                        probed.append(dry_iteration(staged_lists=True, like=appended))
                    except Exception:
                        raise first from None
            except Exception as e:
                if traced_paths.raised_by_user(e) is None:
                    raise
                probed.append(construct.initial)  # an iteration raises: it changes nothing
        return probed[0][i]

    plan.steps = [loop_step(backend, name, original, lambda i=i: probe(i))
                  for i, (name, original) in enumerate(zip(construct.names, construct.initial))]
    stacked = [name for step, name in zip(plan.steps, construct.names)
               if isinstance(step, Stacked)]
    # A list held in a slot (a closure's cell, a global, an attribute) may be read by other
    # code than the loop's (a helper that closes over it): only plain loop variables qualify.
    slotted = {slot.name for slot in construct.slots}
    if stacked and not (slotted.isdisjoint(stacked) and list_uses.only_appended(
            stacked, body, [test] if test else [])):
        # The body sees staged lists, not the Python lists the probe ran with: their truth,
        # length and items are tensors there, so paths the probe decided in Python may be
        # staged (and assign variables the probe saw unassigned). Probe again, as it will run
        # (not needed when the loop only appends to them: list_uses).
        def staged_values():
            return tuple(step.encode(backend, v, "before the loop")[0]
                         if isinstance(step, Stacked) else probe_value(backend, v)
                         for step, v in zip(plan.steps, construct.initial))

        try:
            again = construct.dry_run(
                backend, run_body, staged_values,
                lambda: () if iterated is None else (backend.item_placeholder(iterated),))
        except Exception as e:
            if traced_paths.raised_by_user(e) is None:
                raise
            again = construct.initial
        plan.steps = [step if isinstance(step, Stacked)
                      else loop_step(backend, name, original, lambda i=i: again[i])
                      for i, (step, name, original) in enumerate(
                          zip(plan.steps, construct.names, construct.initial))]

    def staged_test(*current):
        return test(*construct.variables(plan.decode(current)))

    def staged_body(*args):
        item, current = ((), args) if iterated is None else ((args[0],), args[1:])
        values = plan.decode(current)
        try:
            out = construct.run(run_body, values, item)
        except Exception as e:  # an iteration raises as Python would: when the graph runs one
            origin = traced_paths.raised_by_user(e)
            if origin is None:
                raise
            _raise_on_path(backend, plan, e, origin)
            out = values
        return plan.encode(backend, out, "after an iteration")

    init = plan.encode(backend, construct.initial, "before the loop")
    if iterated is None:
        result = backend.while_loop(staged_test, staged_body, init, LeafNames(plan))
    else:
        result = backend.for_loop(iterated, staged_test if test is not None else None,
                                  staged_body, init, LeafNames(plan))
    if changes.changed_in_one_run_only():  # a second run tells a memo from a change per step
        try:
            dry_iteration(staged_lists=False)
        except Exception as e:
            if traced_paths.raised_by_user(e) is None:
                raise
    return result


def _finish(backend, construct, values):
    """`construct.finish(values)`; each slot left holding staged values (a global, a variable
    of an enclosing function, an attribute or item of an object) is reported to the backend,
    which refuses it where code outside the traced function could read the placeholder."""
    result = construct.finish(values)
    for name, original in construct.written.values():  # (Python changes the container)
        held_by_caller(original, name)
        backend.staged_write(
            slots.Mutated(original, f"Writing into {name}",
                          "changes a copy of it (each path takes its own)"),
            copy.copy(original), caller_origin())
    for slot, saved in zip(construct.slots, construct.saved):
        if backends.staging(slot.holder) is None and backends.staging_any(
                structures.flatten(slot.get())[0]) is not None:  # (a staged list's item: its own)
            backend.staged_write(slot, saved, caller_origin())
    return result


def _raise_on_path(backend, plan, error, origin) -> None:
    """Makes `error`, raised while tracing a path as plain Python raises it there, an error
    that the graph raises when it takes the path (and the cause of the variables that `plan`
    leaves unassigned on every path)."""
    in_try = traced_paths.in_try()  # (then an `except` of Python's may take it: a limit)
    traced_paths.staged_raise(origin)
    plan.raised_on_a_path(error)
    text = str(error)
    if backends.staging_any(error.args) is not None:  # a message formatted from graph values
        text = ("its message is made from tensors, which the graph does not keep for the error "
                "(run eagerly to see it: rt.config.run_functions_eagerly(True))")
    backend.assert_(False, at(
        f"{type(error).__name__}: {text} (raised when the graph took this path; an `except` "
        "in the traced function cannot catch it)", origin),
        raises=None if in_try else error, origin=origin)


def _as_tuple(result) -> tuple:
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


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
