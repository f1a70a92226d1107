"""How a staged `if` or loop carries its state.

A `Construct` holds the state of one staged construct: the variables its functions take and
return (or, for an `if` whose branches `return`, the returned value), then its slots (see
`slots`). A `Plan` has one step per entry, made before the graph construct is built:

    Carried     defined on every path, with one structure: its tensor and number leaves are
                staged; its other leaves (None, strings, objects) must be the same on every
                path, and stay Python values
    Absent      undefined on every path: not staged
    Stacked     a Python list whose length the construct changes (it appends, pops...): a
                staged list (the backend's list type)
    Maybe       assigned on some paths: staged with a flag saying where; it becomes a
                MaybeUndefined, which checks the flag where it is read
    ReturnFill  the return value, set on some paths: filled where no `return` ran (never read
                there: the `do_return` flag says no `return` ran)

Backends see flat tuples of staged leaves (`Plan.encode`); `Plan.decode` rebuilds the values.
No path ever gets a made-up value that could be read: fills stand only where a flag says the
value is unassigned.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Sequence

from autograph import backends
from autograph.errors import AutoGraphError, at
from autograph.operators import slots, structures
from autograph.operators.aliases import check_alias
from autograph.operators.special_values import MaybeUndefined, Undefined, UndefinedReturn
from autograph.origins import caller_origin

RETURN_VALUE = "<return value>"


class Construct:
    """The state of one staged construct. `functions` are its branch / test / body functions
    (name slots find their cells in them); `returns`: an `if` whose branches return the
    function's value (their result is the first entry; `state` is still what they take)."""

    def __init__(self, state, names, slots, functions, returns=False):
        self.state = tuple(state)
        self.returns = returns
        self.single = len(names) == 1
        # (an item of an immutable tensor is no state: the body's write raises at its line)
        self.slots = [slot.bind(functions) for slot in slots if not _immutable(slot)]
        head = (None,) if returns else self.state
        self.heads = len(head)
        self.names = ([RETURN_VALUE] if returns else list(names)) + [s.name for s in self.slots]
        self.initial = head + tuple(slot.get() for slot in self.slots)
        self.saved = [slot.snapshot() for slot in self.slots]
        self.taken = ()
        self.written: dict = {}  # id -> (name, list or dict) a path writes into

    def run(self, fn, values, lead=()):
        """The state after `fn(*lead, *variables)` starting from `values`. Its containers are
        copies (later paths may change the originals, e.g. a dict that a slot writes to);
        `taken` keeps the variables `fn` took (changed in place up to where a run raised)."""
        args = self.variables(values)
        self.taken = [_own(v) for v in args]
        result = fn(*lead, *self.taken)
        if self.returns:  # (a returning `if`: its branches take the state as parameters)
            names = [f"'{name}'" for name in fn.__code__.co_varnames[len(lead):]]
            originals = self.state
        else:
            names, originals = [f"'{name}'" for name in self.names], self.initial
        for name, original, given, taken in zip(names, originals, args, self.taken):
            _note_written(name, original, given, taken, self.written)
        if self.returns or self.single:
            head = (result,)
        else:
            head = tuple(result) if self.heads else ()
        return tuple(structures.copy(v) for v in head + tuple(s.get() for s in self.slots))

    def dry_run(self, backend, fn, values, lead=None):
        """`run` inside `backend.dry_run`, with `values()` (and `lead()`) made there (staged
        stand-ins belong to the dry run's graph); the slots are restored after it."""
        try:
            return backend.dry_run(lambda: self.run(fn, values(), lead() if lead else ()))
        finally:
            self.restore()

    def variables(self, values) -> tuple:
        """Sets the slots to `values` (each path gets its own copy of Python lists) and returns
        what the functions take."""
        self.restore()  # a staged list another path changed is as it was before the construct
        self._set_slots(values, copy_lists=True)
        return self.state if self.returns else values[:self.heads]

    def restore(self) -> None:
        """Puts the slots back as they were before the construct."""
        for slot, saved in zip(self.slots, self.saved):
            slot.reset(saved)

    def finish(self, values):
        """Sets the slots to the construct's outputs; returns what the generated code assigns."""
        self.restore()  # a staged list the traced paths changed is as it was before
        self._set_slots(values)
        if self.returns or self.single:
            return values[0]
        return tuple(values[:self.heads]) if self.heads else None

    def _set_slots(self, values, copy_lists=False) -> None:
        for slot, value in zip(self.slots, values[self.heads:]):
            if copy_lists:
                value = _own(value)
            if slot.composite and isinstance(value, MaybeUndefined):
                raise AutoGraphError(at(
                    f"{slot.name} is assigned on some paths only of a graph `if` or loop (or in "
                    "a loop that may run zero times). A graph cannot add an item or attribute on "
                    f"some paths only: assign {slot.name} before the `if`/loop.",
                    caller_origin()))
            slot.set(value)


# ---- plan steps --------------------------------------------------------------------------------
_STAGED = object()  # marks a staged leaf position in Carried.static


def stageable(backend, value) -> bool:
    """Whether a leaf can be a staged value: a tensor, a number, or a value the backend converts
    (a numpy array)."""
    return (isinstance(value, numbers.Number) or backend.is_tensor(value)
            or backend.converts(value))


class Carried:
    """Defined on every path, with one structure (see the module doc). `samples` are
    (label, value) pairs for the paths seen so far."""

    def __init__(self, backend, name, samples):
        self.name = name
        self.lists = _StagedLists(backend, [v for _, v in samples])
        (self.label, first), rest = samples[0], samples[1:]
        self.samples, self.tree = structures.flatten(self.lists.stage(backend, first, marks=True))
        self.static = [_STAGED if stageable(backend, leaf) or isinstance(leaf, _ListMark)
                       else leaf for leaf in self.samples]
        for label, value in rest:
            self.leaves(backend, value, label, check_only=True)

    @property
    def count(self) -> int:
        return sum(1 for s in self.static if s is _STAGED)

    def leaf_names(self) -> list:
        return [self.name + path for path, s in zip(self.tree.paths(), self.static)
                if s is _STAGED]

    def leaves(self, backend, value, label, check_only=False) -> list:
        """The staged leaves of `value` (the value on the path `label`), checked against the
        structure and the Python leaves of the first path (`check_only`: makes no staged
        lists, so no graph ops)."""
        leaves, tree = structures.flatten(self.lists.stage(backend, value, marks=check_only))
        if tree != self.tree:
            raise _mismatch(self.name, "", f"{self._kind(backend, tree, leaves)} {label}",
                            f"{self._kind(backend, self.tree, self.samples)} {self.label}")
        out = []
        for path, leaf, sample, static in zip(self.tree.paths(), leaves, self.samples,
                                               self.static):
            if static is _STAGED and (stageable(backend, leaf) or isinstance(leaf, _ListMark)):
                out.append(leaf)
            elif static is _STAGED or not _same(leaf, static):
                raise _mismatch(self.name, path, f"{_describe(backend, leaf)} {label}",
                                f"{_describe(backend, sample)} {self.label}")
        return out

    @staticmethod
    def _kind(backend, tree, leaves) -> str:
        return _describe(backend, leaves[0]) if tree.kind is None else tree.describe()

    def fill(self, backend) -> list:
        """Leaves of the right dtypes and shapes for a path where the value is unassigned."""
        return [backend.empty_list_like(leaf.sample) if isinstance(leaf, _ListMark)
                else backend.zeros_like(leaf) if backend.is_tensor(leaf) else leaf
                for leaf, s in zip(self.samples, self.static) if s is _STAGED]

    def rebuild(self, leaves):
        return structures.unflatten(
            self.tree, iter([next(leaves) if s is _STAGED else s for s in self.static]))


class _StagedLists:
    """The lists inside a carried structure (a dict of lists, a list of lists...) whose length
    differs between the values `samples` (or that a staged construct inside made staged lists):
    the construct carries them as staged lists, as `Stacked` does a list in a variable."""

    def __init__(self, backend, samples):
        self.found = {}  # path (keys from the top) -> a value there that shows the items
        self._find(backend, samples, ())

    def _find(self, backend, values, path):
        first = values[0]
        lists = [v for v in values if type(v) is list]
        if lists:
            others = [v for v in values if type(v) is not list]
            if (others or len({len(v) for v in lists}) > 1) and path and all(
                    backend.is_tensor(o) for o in others):
                # (a staged list shows the items' type best: Python numbers in a list take it)
                shown = others or [v for v in values if v]
                self.found[path] = (shown or values)[0]
                return
        kind = type(first)
        if isinstance(first, dict) and all(type(v) is kind and list(v) == list(first)
                                           for v in values):
            for key in first:
                self._find(backend, [v[key] for v in values], (*path, key))
        elif (kind is list or isinstance(first, tuple)) and all(
                type(v) is kind and len(v) == len(first) for v in values):
            for i in range(len(first)):
                self._find(backend, [v[i] for v in values], (*path, i))

    def stage(self, backend, value, marks=False):
        """`value` with the Python lists at the found paths made staged lists (containers on
        the way are copies); with `marks`, `_ListMark`s stand for them (no graph ops)."""
        for path, sample in self.found.items():
            value = structures.replace_at(value, path, lambda lst, sample=sample: _staged_list(
                backend, lst, sample, marks))
        return value


class _ListMark:
    """Stands for a staged list, while a plan is made."""

    def __init__(self, sample):
        self.sample = sample


def _staged_list(backend, value, sample, marks):
    if type(value) is not list:
        return value
    if marks:
        return _ListMark(sample)
    if not value:
        return backend.empty_list_like(sample)
    return backend.to_list(value, sample)


class Absent:
    """Undefined on every path."""

    count = 0

    def __init__(self, undefined):
        self.undefined = undefined

    def leaf_names(self) -> list:
        return []

    def fill(self, backend) -> list:
        return []

    def encode(self, backend, value, label) -> list:
        return []

    def decode(self, leaves):
        return self.undefined


class Defined:
    """Carried: a value on every path."""

    def __init__(self, carried):
        self.carried = carried
        self.count = carried.count

    def leaf_names(self) -> list:
        return self.carried.leaf_names()

    def fill(self, backend) -> list:
        """Leaves for a path that never completes (it raises when the graph takes it)."""
        return self.carried.fill(backend) + [True] * (self.count - self.carried.count)

    def encode(self, backend, value, label) -> list:
        return self.carried.leaves(backend, value, label)

    def decode(self, leaves):
        return self.carried.rebuild(leaves)


class ReturnFill(Defined):
    """The return value, set on some paths."""

    def encode(self, backend, value, label) -> list:
        if isinstance(value, UndefinedReturn):
            return self.carried.fill(backend)
        return self.carried.leaves(backend, value, label)


class Maybe(Defined):
    """Assigned on some paths: the leaves, then a flag."""

    def __init__(self, carried):
        super().__init__(carried)
        self.count = carried.count + 1

    def leaf_names(self) -> list:
        return self.carried.leaf_names() + [f"{self.carried.name} (whether assigned)"]

    def encode(self, backend, value, label) -> list:
        if isinstance(value, Undefined):
            return self.carried.fill(backend) + [False]
        if isinstance(value, MaybeUndefined):
            return self.carried.leaves(backend, value.value, label) + [value.defined]
        return self.carried.leaves(backend, value, label) + [True]

    def decode(self, leaves):
        value = self.carried.rebuild(leaves)
        defined = next(leaves)
        if defined is True:
            return value
        if defined is False:
            return Undefined(self.carried.name)
        return MaybeUndefined(value, defined, self.carried.name)


def _note_written(name, original, given, taken, written: dict) -> None:
    """Notes in `written` each list or dict in `original` (the value before the construct,
    `given` to a path as its copy `taken`) whose copy the path changed in place, with words
    naming it: Python would have changed the container itself."""
    if isinstance(original, (list, dict)):  # (its items are its: noted with it)
        if id(original) not in written and _written_into(given, taken):
            written[id(original)] = (name, original)
    elif isinstance(original, tuple) and isinstance(given, tuple) and isinstance(
            taken, tuple) and len(original) == len(given) == len(taken):
        for parts in zip(original, given, taken):
            _note_written(f"an item of {name}", *parts, written)


def _written_into(given, taken) -> bool:
    """Whether a path changed `taken`, its own copy of the containers in `given`, in place."""
    before, tree = structures.flatten(given)
    after, changed = structures.flatten(taken)
    return tree != changed or any(a is not b for a, b in zip(before, after))


def _own(value):
    """`value` for one path to change in place: copies of its containers (lists, dicts...),
    and a new object for a staged value that has methods changing it (a staged list:
    `__copy__` gives it)."""
    leaves, tree = structures.flatten(value)
    leaves = [copy.copy(v) if hasattr(type(v), "__copy__") and backends.staging(v) is not None
              else v for v in leaves]
    return structures.unflatten(tree, iter(leaves))


class Stacked:
    """A Python list whose length the construct changes: a staged list."""

    count = 1

    def __init__(self, name, sample):
        self.name, self.sample = name, sample

    def leaf_names(self) -> list:
        return [self.name]

    def fill(self, backend) -> list:
        return [backend.empty_list_like(self.sample)]

    def encode(self, backend, value, label) -> list:
        if isinstance(value, list) and not value:
            return [backend.empty_list_like(self.sample)]
        return [backend.to_list(value, self.sample)]

    def decode(self, leaves):
        return next(leaves)


class Plan:
    """One step per entry of a construct's state."""

    def __init__(self):
        self.steps = []

    def __bool__(self) -> bool:
        return bool(self.steps)

    def encode(self, backend, values, label) -> tuple:
        out = []
        for step, value in zip(self.steps, values):
            out += step.encode(backend, value, label)
        return tuple(out)

    def decode(self, leaves) -> tuple:
        leaves = iter(leaves)
        return tuple(step.decode(leaves) for step in self.steps)

    def raised_on_a_path(self, error) -> None:
        """A path raised `error` while it was traced (the graph raises it there): a variable
        that no path assigns is unassigned because of it (its `cause`, unless it has one)."""
        for step in self.steps:
            if type(step) is Absent and type(step.undefined) is Undefined \
                    and step.undefined.cause is None:
                step.undefined = Undefined(step.undefined.name, error)

    def fill(self, backend) -> tuple:
        """Staged leaves for a path that never completes."""
        return tuple(leaf for step in self.steps for leaf in step.fill(backend))

    def leaf_names(self) -> list:
        return [name for step in self.steps for name in step.leaf_names()]


class LeafNames(Sequence):
    """The names of a plan's staged leaves, read when a backend reports an error (the plan is
    made while the first path is traced, after the backend was called)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self._names: tuple = (None, [])  # (the plan's steps they were made from, names)

    def _current(self) -> list:
        steps, names = self._names
        if steps is not self.plan.steps:
            self._names = steps, names = self.plan.steps, self.plan.leaf_names()
        return names

    def __getitem__(self, index):
        return self._current()[index]

    def __len__(self):
        return len(self._current())


# ---- making plans ------------------------------------------------------------------------------
def needs_other_path(backend, initial, out) -> bool:
    """Whether an `if`'s plan needs the other branch's outputs besides `out` (the first
    branch's): where `out` has no value to take the type from, or leaves a list as it was (the
    other branch may append to it). Everything else the second branch is checked against."""
    return any(isinstance(value, Undefined) or (isinstance(original, list)
                                                and not _resized(backend, value, original))
               or _holds_list(original) for original, value in zip(initial, out))


def step_for(backend, name, original, samples):
    """The step for one entry whose values at the end of the paths seen are `samples` ((label,
    value) pairs); `original` is its value before the construct."""
    values = [v for _, v in samples]
    if isinstance(original, list):
        resized = [v for v in values if _resized(backend, v, original)]
        if resized:  # the items give the item type: any list that has some
            samples = [v for v in (*resized, original) if not isinstance(v, list) or v]
            check_alias(name, original, original)
            # (the name takes a staged list: the Python list itself, which Python would
            # change in place, keeps its items; refused where code outside can read it)
            backend.staged_write(slots.Mutated(original, f"Appending to '{name}'"),
                                 list(original), caller_origin())
            return Stacked(name, (samples or resized)[0])
        if not original:
            return Absent(original)
    if all(isinstance(v, Undefined) for v in values):
        return Absent(values[0])
    assigned = [(label, v.value if isinstance(v, MaybeUndefined) else v)
                for label, v in samples if not isinstance(v, Undefined)]
    carried = Carried(backend, name, assigned)
    for path in carried.lists.found:
        inner = _at(original, path)
        if type(inner) is list:
            check_alias(name + "".join(f"[{k!r}]" for k in path), inner, original)
    if any(isinstance(v, UndefinedReturn) for v in (original, *values)):
        return ReturnFill(carried)
    # A path not seen may leave it unassigned; where every path assigns it, the flags are all
    # Python True, and the backend keeps equal Python values as they are.
    if any(isinstance(v, (Undefined, MaybeUndefined)) for v in (original, *values)):
        return Maybe(carried)
    return Defined(carried)


def loop_step(backend, name, original, probed):
    """The step for one loop entry; `probed()` is its value after one dry-run iteration of
    the body (asked only for a value undefined before the loop, whose type comes from the
    body, or a list: the body may append to it, or keep it a structure)."""
    if isinstance(original, (list, Undefined, MaybeUndefined)) or _holds_list(original):
        return step_for(backend, name, original,
                        [("before the loop", original), ("after an iteration", probed())])
    return Defined(Carried(backend, name, [("before the loop", original)]))


def probe_value(backend, value, staged_lists=False, like=None):
    """A staged stand-in for a loop variable's value in the dry run of the body; a Python list
    is a copy, or with `staged_lists` a staged list when its items can be staged (an empty one
    takes the type of the items of `like`, the list an iteration appended to, and so do Python
    numbers in it)."""
    if isinstance(value, list):
        if staged_lists and (value or (type(like) is list and like)):
            if type(like) is not list or len(like) <= len(value):
                like = value
            try:
                return backend.to_list(value, like) if value else backend.empty_list_like(like)
            except Exception:  # noqa: BLE001 - items a staged list cannot hold: a Python list
                pass
        return list(value)
    if isinstance(value, Undefined):
        return value
    if isinstance(value, MaybeUndefined):
        return MaybeUndefined(probe_value(backend, value.value),
                              backend.placeholder(value.defined), value.name)
    leaves, tree = structures.flatten(value)
    return structures.unflatten(tree, iter(
        [backend.placeholder(leaf) if stageable(backend, leaf) else leaf for leaf in leaves]))


def _at(value, path):
    """The value at `path` (keys from the top) inside `value`, or None."""
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _holds_list(value) -> bool:
    """Whether the structure `value` (a dict, tuple or list, of any type) holds a list."""
    return any(type(v) is list or _holds_list(v)
               for _, v in structures.items(value, sequence_subclasses=True))


def _resized(backend, value, original) -> bool:
    """Whether the construct changed the length of the list `original`: `value` is a list of
    another length, or a staged list that a staged construct inside made of it."""
    if isinstance(value, list):
        return len(value) != len(original)
    return backend.is_tensor(value)


# ---- messages ----------------------------------------------------------------------------------
def _same(a, b) -> bool:
    return a is b or (type(a) is type(b) and type(a) in (str, bytes) and a == b)


def _describe(backend, value) -> str:
    if value is None:
        return "None"
    if isinstance(value, (str, bytes)):
        return repr(value)
    if isinstance(value, numbers.Number):
        return "a number"
    if backend.is_tensor(value):
        return "a tensor"
    return f"a {type(value).__name__} object"


def _mismatch(name, path, here, there) -> AutoGraphError:
    if name == RETURN_VALUE:
        subject = "the returned value" + (f" (at {path})" if path else "")
        fix = ("Return values of one kind on every path (a `return` in one branch only, or a "
               "function that may end without one, returns None on the other).")
    else:
        subject = f"'{name}{path}'"
        fix = "Give it a value of one kind on every path, e.g. assign it before the `if`/loop."
    return AutoGraphError(at(
        f"{subject} is {here} but {there}. A graph `if` or loop needs the same structure on "
        "every path, and only tensors and numbers can differ between paths (None, strings and "
        f"other Python objects must be the same). {fix}", caller_origin()))


def _immutable(slot) -> bool:
    """Whether `slot` is an item of a tensor that no write can change."""
    if slot.kind != "item":
        return False
    backend = backends.tensor_backend(slot.holder)
    return backend is not None and not backend.writes_items(slot.holder)
