"""Overloads of the builtins that meet tensors: `print`, `len`, `range`, `enumerate`, `zip`,
`int`, `float`, `bool`, `str`, `repr`, `format`; `min`, `max`, `sum`, `all`, `any`, `round`
and the `math` functions the backend stages (`Backend.builtin`); `operator.truth`, `contains`
and `index` (logical.py adds `operator.not_`). `converted_call` routes calls of them here;
plain Python values take the builtin itself. Builtins that cannot take a staged value (`hex`,
`id`, ...) are refused with an error that names them. `abs`, `divmod`, `pow`, `round` and
`math.floor` work on tensors through the tensor type too."""

from __future__ import annotations

import builtins
import math
import operator

from autograph import backends
from autograph.errors import at
from autograph.operators import formatting, traced_paths
from autograph.operators.formatting import format_string
from autograph.operators.membership import in_
from autograph.origins import caller_origin


class StagedZip:
    """`zip` (or `enumerate`) over staged tensors: a `for` over it becomes one graph loop.
    Anything else that iterates it (`list(...)`, a comprehension that stays Python) is an
    error at the user's line, not one item."""

    __slots__ = ("iterables",)

    def __init__(self, iterables: tuple):
        self.iterables = iterables

    def __iter__(self):
        raise TypeError(at(
            "zip/enumerate over graph tensors can only be the iterable of a `for` statement that "
            "autograph converts (it becomes a graph loop); here it is iterated in Python (by "
            "list(), a comprehension or unpacking). Write the loop as a `for` statement, or "
            "assign the comprehension to a name (`ys = [... for ... in zip(...)]`).",
            caller_origin()))

    __len__ = __iter__


def print_(*values, sep=" ", end="\n", file=None, flush=False):
    """A graph print (every run) when a value is a tensor; else Python's print (now)."""
    if file is None and any(formatting.needs_backend(v) for v in values):
        # (a list or tuple holding tensors prints as its text, made when the graph runs)
        values = tuple(formatting.container_text(v) if formatting.holds_tensors(v) else v
                       for v in values)
        backend = backends.tensor_backend_any(values)
        if backend is not None:
            return backend.print(values, sep=sep, end=end)
    return builtins.print(*values, sep=sep, end=end, file=file, flush=flush)


def len_(x):
    backend = backends.staging(x)
    return len(x) if backend is None else backend.len(x)


def range_(*args):
    backend = backends.staging_any(args)
    if backend is None:
        return range(*args)
    start, limit, delta = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    return backend.range(start, limit, delta)


def enumerate_(iterable, start=0):
    backend = backends.staging(iterable)
    if backend is None:
        return enumerate(iterable, start)
    count = backend.len(iterable)
    return StagedZip((backend.range(start, start + count, 1), iterable))


def zip_(*iterables, **kwargs):
    if kwargs or backends.staging_any(iterables) is None:
        return zip(*iterables, **kwargs)
    return StagedZip(iterables)


def _caster(python_type):
    def cast(x=0, *args):
        backend = backends.staging(x)
        if backend is None or args:
            return python_type(x, *args)
        return backend.cast(x, python_type)

    cast.__name__ = f"{python_type.__name__}_"
    return cast


int_ = _caster(int)
float_ = _caster(float)


def bool_(x=False):
    """`bool(x)`; of a staged value, a staged scalar bool by Python's truth rule (one element,
    nonzero; other sizes raise ValueError, as numpy does)."""
    backend = backends.staging(x)
    return bool(x) if backend is None else backend.cast(x, bool)


def str_(*args, **kwargs):
    """`str(x)`; of a tensor, the text of its value (computed when the graph runs)."""
    if len(args) != 1 or kwargs:
        return str(*args, **kwargs)
    return format_string("{!s}", args[0])  # (a container holding a graph tensor: an error)


def repr_(x):
    """`repr(x)`; of a tensor, the repr of its value (`np.float32(1.5)`), as Python's on it."""
    return format_string("{!r}", x)


def format_(value, format_spec=""):
    """`format(value, format_spec)`; of a tensor, or a list or tuple holding tensors, the text
    of its value."""
    if backends.tensor_backend(format_spec) is None and not formatting.needs_backend(value):
        return format(value, format_spec)
    return format_string("{:{}}", value, format_spec)


def ascii_(x):
    """`ascii(x)`; of a tensor, or a list or tuple holding tensors, the text of its value, as
    Python's on it."""
    return format_string("{!a}", x)


def _staged_builtin(python_fn):
    """`python_fn` itself on Python values and eager tensors; where an argument (or an item of
    its one iterable argument) is staged, the backend's (`Backend.builtin`). An iterator
    (a generator expression) is read as Python reads it: `all` / `any` stop at the first
    Python item that decides them. What `python_fn` raises is Python's own error (`max([])`):
    on a path of a tensor `if` that Python does not take, it is raised when the graph takes
    it (traced_paths)."""

    @traced_paths.python_semantics
    def call(*args, **kwargs):
        if len(args) == 1 and _is_iterator(args[0]):
            if python_fn in (builtins.all, builtins.any):
                return _decide(python_fn, args[0])
            args = (list(args[0]),)
        # min and max compare their items in Python, all and any take their truth: an eager
        # tensor captured by a graph being built gives graph values, so they are staged then
        # too.
        staging_any = backends.capturing_any if python_fn in _COMPARING else backends.staging_any
        backend = staging_any(args)
        if backend is None and len(args) == 1 and isinstance(args[0], (list, tuple)):
            backend = staging_any(args[0])
        if backend is None:
            return python_fn(*args, **kwargs)
        return backend.builtin(python_fn, args, kwargs)

    call.__name__ = f"{python_fn.__name__}_"
    return call


_COMPARING = (builtins.min, builtins.max, builtins.all, builtins.any)


def _is_iterator(value) -> bool:
    return hasattr(type(value), "__next__") and backends.tensor_backend(value) is None


def _decide(python_fn, items):
    """`all(items)` / `any(items)` of an iterator: Python's, until a staged item; from there
    the backend's over it and the rest."""
    decisive = python_fn is builtins.any  # the truth that ends it
    for item in items:
        backend = backends.staging(item)
        if backend is not None:
            return backend.builtin(python_fn, ([item, *items],), {})
        if bool(item) is decisive:
            return decisive
    return not decisive


def index_(x):
    """`operator.index(x)`: an integer tensor with one element stays a tensor in a graph."""
    backend = backends.staging(x)
    if backend is None:
        return operator.index(x)
    return backend.cast(x, int) if backend.is_tensor(x) and x.dtype.is_integer else (
        operator.index(x))


def truth_(x):
    return bool_(x)


def contains_(container, item):
    return in_(item, container)


# Staged as Python computes them.
_STAGED = (builtins.min, builtins.max, builtins.sum, builtins.all, builtins.any, builtins.round,
           math.sqrt, math.log, math.exp, math.sin, math.cos, math.tanh, math.fabs, math.floor,
           math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite, math.tan, math.atan,
           math.atan2, math.asin, math.acos, math.log10, math.log2, math.log1p, math.expm1,
           math.hypot, math.copysign, math.fmod, math.sinh, math.cosh)
# Builtins whose result on a staged value cannot be computed from it (the text of its digits,
# its identity) and `math` functions not staged yet: the backend refuses them by name.
_REFUSED = (builtins.hex, builtins.oct, builtins.bin, builtins.chr, builtins.ord, builtins.id,
            math.pow, math.isclose)


# Builtin -> overload, used by converted_call.
OVERLOADS: dict = {
    builtins.print: print_,
    builtins.len: len_,
    builtins.range: range_,
    builtins.enumerate: enumerate_,
    builtins.zip: zip_,
    builtins.int: int_,
    builtins.float: float_,
    builtins.bool: bool_,
    builtins.str: str_,
    builtins.repr: repr_,
    builtins.ascii: ascii_,
    builtins.format: format_,
    **{fn: _staged_builtin(fn) for fn in (*_STAGED, *_REFUSED)},
    operator.truth: truth_,
    operator.contains: contains_,
    operator.index: index_,
}
