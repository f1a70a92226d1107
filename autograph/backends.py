"""The backend registry: how a tensor library lets converted code stage its values.

A library subclasses `Backend`, implements the staged primitives, and calls
`register_backend(instance)` when it is imported. Operators ask `staging(value)` which backend,
if any, claims a value as *staged* (a graph value whose control flow must become graph ops);
everything else runs as plain Python. autograph itself never names a tensor type.
"""

from __future__ import annotations

_PLAIN_TYPES = (bool, int, float, str, bytes, type(None), list, tuple, dict)


class Backend:
    """The staged primitives converted code needs. Methods receive values that this backend
    claimed, mixed with plain Python values; `names` are the user's variable names, for
    error messages. State structures are flat tuples."""

    modules: tuple = ()  # top-level package names of the library (its code is not converted)
    # Exception types the library raises where a graph cannot do what Python does (a staged
    # value used as a Python bool, ...): user `except` clauses never handle them.
    limit_errors: tuple = ()

    def raises_as_python(self, exc) -> bool:
        """Whether `exc`, which this library raised while a path of a staged construct was
        traced, is what the same call raises when it runs eagerly (an op rejecting its
        arguments), so that plain Python raises it on that path too. The limits of graphs
        (`limit_errors`, structure and dtype mismatches between paths) are not."""
        return False

    def is_tensor(self, value) -> bool:
        """`value` is a tensor of this library (eager or staged)."""
        raise NotImplementedError

    def writes_items(self, value) -> bool:
        """Whether `value[key] = v` can change `value`, a tensor of this library (a staged list
        can; an immutable tensor cannot: the user's write then raises at its own line)."""
        return True

    def is_staged(self, value) -> bool:
        """`value` is a graph value: its control flow must be staged."""
        raise NotImplementedError

    def converts(self, value) -> bool:
        """`value`, not a tensor, is one this backend turns into a staged value when a staged
        construct changes it (e.g. a numpy array: `total = np.zeros(3)` before a graph loop
        that adds tensors to it), as it does numbers."""
        return False

    def building_graph(self) -> bool:
        """A graph is being built now: ops on this library's eager tensors give graph values
        (the tensors are captured), so Python's comparisons of them cannot be decided."""
        return False

    def ops_built(self) -> int:
        """How many ops the graph being built (with the graphs inside it) holds so far; 0 when
        none is (used to tell that a Python loop unrolls into the graph)."""
        return 0

    def cond(self, pred, true_fn, false_fn, names):
        """Graph conditional; both functions return the same structure."""
        raise NotImplementedError

    def while_loop(self, test, body, loop_vars: tuple, names) -> tuple:
        """Graph loop: `test(*vars)` -> bool; `body(*vars)` -> tuple like `loop_vars`."""
        raise NotImplementedError

    def for_loop(self, iterated, extra_test, body, loop_vars: tuple, names) -> tuple:
        """Graph loop over dim 0 of a staged tensor, or of a tuple of them in lockstep (`zip`:
        items are tuples, the shortest ends the loop): `body(item, *vars)` -> tuple;
        `extra_test(*vars)` (or None) is checked before each iteration."""
        raise NotImplementedError

    def dry_run(self, fn):
        """Calls `fn` so that the values it returns can be inspected (dtype, shape), without
        leaving ops or side effects in the graph being built."""
        raise NotImplementedError

    def placeholder(self, value):
        """Inside `dry_run`: a staged stand-in for a loop variable's value (Python numbers and
        tensors; other values are returned as they are)."""
        raise NotImplementedError

    def item_placeholder(self, iterated):
        """Inside `dry_run`: a staged stand-in for one item (along dim 0) of `iterated` (a
        tuple of them for a tuple)."""
        raise NotImplementedError

    def zeros_like(self, value):
        """A staged value of zeros with the dtype and shape of the tensor `value` (it stands
        where a value is unassigned and never read)."""
        raise NotImplementedError

    def empty_list_like(self, items):
        """An empty staged list whose items are like the items of `items` (a staged list, or
        a Python list whose last item is one)."""
        raise NotImplementedError

    def to_list(self, value, like):
        """A staged list from a staged list or a (non-empty) Python list of items; `like` (as
        for `empty_list_like`) is the list after the construct."""
        raise NotImplementedError

    def list_append(self, lst, value):
        """Appends `value` to the staged list `lst`; returns `lst`."""
        raise NotImplementedError

    def logical_not(self, x):
        """`not x` for a tensor `x`."""
        raise NotImplementedError

    def print(self, values, sep: str, end: str):
        """A print that happens every time the graph runs."""
        raise NotImplementedError

    def assert_(self, cond, message: str, raises=None, origin=None):
        """An assertion checked every time the graph runs; `raises`: the exception the user's
        code raised on the path at `origin` (when the graph fails, it raises one like it)."""
        raise NotImplementedError

    def range(self, start, limit, delta):
        """`range(start, limit, delta)` with a tensor bound: a tensor of the values."""
        raise NotImplementedError

    def len(self, x):
        """`len(x)` of a tensor or staged list, as a tensor."""
        raise NotImplementedError

    def cast(self, x, python_type):
        """`int(x)` / `float(x)` / `bool(x)` of a staged value with exactly one element (other
        sizes raise, while tracing when the shape shows it, else when the graph runs). `bool`
        follows Python's truth rule (nonzero); `int` and `float` give Python's value or raise
        where Python raises (`int` of nan), never a wrapped one."""
        raise NotImplementedError

    def builtin(self, fn, args: tuple, kwargs: dict):
        """`fn(*args, **kwargs)` where an argument is a staged value, as Python computes it:
        for the builtins `max min sum all any round` and the `math` functions the backend
        stages; any other `fn` raises an error that names it."""
        raise NotImplementedError

    def numpy_call(self, fn, args: tuple, kwargs: dict):
        """`fn(*args, **kwargs)` for one of numpy's functions (ufuncs, scalar types) where an
        argument (or an item of a list or tuple argument) is this backend's tensor, eager or
        staged: the backend's computation of it, with numpy's result, or an error that names
        `fn`. (Outside converted code numpy computes on the tensors' values.)"""
        raise NotImplementedError

    def format(self, template: str, style: str, values: tuple):
        """`template.format(*values)` (style "{}") or `template % values` (style "%"), where
        `values` are tensors of this backend (eager or staged), one per field of `template`
        (positional `{}` / `%` fields; other values were formatted into its text already).
        Each value formats as Python formats its array value (`format(value, spec)`, `repr`,
        `%d`). A staged string that is computed every time the graph runs (so printing it
        prints every run); a Python `str` when the backend is not building a graph."""
        raise NotImplementedError

    def join_strings(self, separator: str, items: list):
        """`separator.join(items)` where an item is this backend's tensor (eager or staged; the
        others are `str`): a string tensor of Python's text, or Python's TypeError for an item
        that is not a string. A Python `str` when the backend is not building a graph."""
        raise NotImplementedError

    def staged_write(self, slot, saved, origin, construct: bool = True) -> None:
        """A staged construct (`construct`) left staged values in `slot` (see
        operators/slots.py: a global, a variable of an enclosing function, an attribute or item
        of an object), or a plain assignment at `origin` is about to write it while this
        backend builds a graph; `saved` is the slot's snapshot from before. The backend must
        not let a staged value stay where code outside the traced function reads it: it refuses
        such a slot when the trace ends, and puts the value back. Slots of the function's own
        objects are fine."""

    def calls(self, fn) -> bool:
        """Whether `fn` is a callable of this library that converted code calls through
        `call_from_converted_code` (e.g. a compiled function: its results as plain Python's)."""
        return False

    def call_from_converted_code(self, fn, args: tuple, kwargs: dict):
        """`fn(*args, **kwargs)` as converted code calls it (see `calls`)."""
        return fn(*args, **kwargs)

    def contains(self, container, item):
        """`item in container` for a tensor `container` (eager or staged), as numpy's
        `(container == item).any()`: a scalar bool tensor."""
        raise NotImplementedError


_BACKENDS: list[Backend] = []


def register_backend(backend: Backend) -> None:
    """Adds `backend` (once); later registrations are asked first."""
    if backend not in _BACKENDS:
        _BACKENDS.insert(0, backend)


def unregister_backend(backend: Backend) -> None:
    """Stops `backend` from deciding for autograph's operators (if it is registered)."""
    if backend in _BACKENDS:
        _BACKENDS.remove(backend)


def calling(fn) -> Backend | None:
    """The backend whose callable `fn` is (`Backend.calls`), or None."""
    for backend in _BACKENDS:
        if backend.calls(fn):
            return backend
    return None


def staging(value) -> Backend | None:
    """The backend that claims `value` as staged, or None (run plain Python)."""
    if type(value) in _PLAIN_TYPES:
        return None
    for backend in _BACKENDS:
        if backend.is_staged(value):
            return backend
    return None


def staging_any(values) -> Backend | None:
    """The backend claiming the first staged value among `values`, or None."""
    for value in values:
        backend = staging(value)
        if backend is not None:
            return backend
    return None


def building_graph() -> Backend | None:
    """The first backend that builds a graph now, or None (running eagerly)."""
    for backend in _BACKENDS:
        if backend.building_graph():
            return backend
    return None


def capturing_any(values) -> Backend | None:
    """The backend of the first tensor among `values` that is staged, or that is eager while
    its backend builds a graph (an op on it gives a graph value), or None."""
    for value in values:
        backend = tensor_backend(value)
        if backend is not None and (backend.is_staged(value) or backend.building_graph()):
            return backend
    return None


def tensor_backend(value) -> Backend | None:
    """The backend whose tensor (eager or staged) `value` is, or None."""
    if type(value) in _PLAIN_TYPES:
        return None
    for backend in _BACKENDS:
        if backend.is_tensor(value):
            return backend
    return None


def tensor_backend_any(values, depth: int = 3) -> Backend | None:
    """The backend of the first tensor among `values` or the items of lists and tuples among
    them (`depth` levels down), or None."""
    for value in values:
        if isinstance(value, (list, tuple)):  # (and shapes, tuples too)
            backend = tensor_backend_any(value, depth - 1) if depth > 1 else None
        else:
            backend = tensor_backend(value)
        if backend is not None:
            return backend
    return None


def raises_as_python(exc) -> bool:
    """Whether a registered library says `exc` is raised eagerly too (see the method)."""
    return any(backend.raises_as_python(exc) for backend in _BACKENDS)


def is_graph_limit(exc) -> bool:
    """`exc` is one of a registered library's `limit_errors`."""
    return any(isinstance(exc, backend.limit_errors) for backend in _BACKENDS)


def library_modules() -> set:
    """Top-level module names of registered libraries: their functions are not converted."""
    return {name for backend in _BACKENDS for name in backend.modules}
