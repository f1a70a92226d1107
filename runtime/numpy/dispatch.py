"""Numpy's functions called with tensors: which function of `runtime.numpy` stands for each.

Converted code sends a call of a numpy function that has a tensor among its arguments here
(autograph's `Backend.numpy_call`), and so does numpy itself for a graph tensor anywhere
(`SymbolicTensor.__array_function__` / `__array_ufunc__`), so a numpy function never sees a
graph value as an array: it runs the rt ops, or raises an error that names it.
"""

from __future__ import annotations

import difflib

import numpy as np

from runtime.core import dtypes
from runtime.core.source_info import user_origin
from runtime.core.tensor_conversion import convert_to_tensor
from runtime.errors import NumpyUnsupportedError, with_origin
from runtime.ops import math_ops
from runtime.tracing import python_builtins

TABLE: dict = {}  # a numpy callable -> the runtime.numpy function computing it on tensors
_NAMES: dict = {}  # its qualified numpy name ("numpy.linalg.norm") -> the numpy callable


def implement(numpy_namespace, namespace, names) -> None:
    """Maps `numpy_namespace.<name>` to `namespace.<name>` for each of `names` that numpy has
    (`numpy_namespace` is `numpy` or one of its modules: `numpy.linalg`, `numpy.fft`)."""
    prefix = numpy_namespace.__name__
    for name in names:
        numpy_fn = getattr(numpy_namespace, name, None)
        if callable(numpy_fn) and not isinstance(numpy_fn, type):
            TABLE[numpy_fn] = getattr(namespace, name)
            _NAMES[f"{prefix}.{name}"] = numpy_fn


def implement_callable(numpy_fn, fn, name: str) -> None:
    """Maps one numpy callable (a ufunc method such as `np.add.reduce`, a scalar type) to
    `fn`."""
    TABLE[numpy_fn] = fn
    _NAMES[name] = numpy_fn


def _scalar_type(dtype):
    def convert(x=0, /):  # (a numpy scalar: no Python number's stand-in any more)
        return python_builtins.strong(math_ops.cast(convert_to_tensor(x), dtype))

    return convert


for _dtype in dtypes.ALL:
    if not _dtype.is_string:
        implement_callable(_dtype.np_dtype.type, _scalar_type(_dtype), f"numpy.{_dtype.name}")


def lookup(numpy_fn):
    """The runtime.numpy function for `numpy_fn`, or None."""
    try:
        return TABLE.get(numpy_fn)
    except TypeError:  # unhashable
        return None


def call(numpy_fn, args, kwargs):
    """`numpy_fn(*args, **kwargs)` computed by rt ops; an error naming it when unsupported."""
    implementation = lookup(numpy_fn)
    if implementation is None:
        raise unsupported(numpy_fn)
    return implementation(*args, **kwargs)


def qualified_name(numpy_fn) -> str:
    """`numpy.sum`, `numpy.linalg.norm`, `numpy.add.reduce`: how the user wrote it."""
    owner = getattr(numpy_fn, "__self__", None)
    if isinstance(owner, np.ufunc):
        return f"numpy.{owner.__name__}.{numpy_fn.__name__}"
    module = getattr(numpy_fn, "__module__", None) or "numpy"
    return f"{module}.{getattr(numpy_fn, '__name__', repr(numpy_fn))}"


def supported_names() -> list:
    """The qualified names of the numpy callables that run on tensors, sorted."""
    return sorted(_NAMES)


def names_markdown(width: int = 96) -> str:
    """The supported names as README lines: per numpy module, the names in backquotes."""
    groups: dict = {}
    for name in supported_names():
        module, _, short = name.rpartition(".")
        if module.rpartition(".")[2] in _UFUNC_NAMES:  # a ufunc's method: `add.reduce`
            module, short = module.rpartition(".")[0], f"{module.rpartition('.')[2]}.{short}"
        groups.setdefault(module, []).append(short)
    return "\n".join(wrapped(f"`{module}` ({len(names)}):", names, width)
                     for module, names in sorted(groups.items()))


def wrapped(label: str, names, width: int = 96) -> str:
    """`- label` and the names in backquotes, as a Markdown list item wrapped at `width`."""
    lines, line = [], f"- {label}"
    for name in names:
        if len(line) + len(name) + 3 > width:
            lines.append(line)
            line = " "
        line += f" `{name}`"
    return "\n".join([*lines, line])


_UFUNC_NAMES = frozenset(name for name in dir(np) if isinstance(getattr(np, name), np.ufunc))


# What to write instead of a numpy function runtime.numpy does not have, where it is short.
_INSTEAD = {
    "median": "np.sort(x, axis) and the middle item(s)",
    "count_nonzero": "np.sum(x != 0, axis)",
    "nanmean": "np.sum(np.where(np.isnan(x), 0, x)) / np.sum(~np.isnan(x))",
    "nansum": "np.sum(np.where(np.isnan(x), 0, x))",
    "nanmax": "np.max(np.where(np.isnan(x), -np.inf, x))",
    "nanmin": "np.min(np.where(np.isnan(x), np.inf, x))",
    "nan_to_num": "np.where(np.isnan(x), 0.0, x)",
    "average": "np.sum(w * x) / np.sum(w)",
    "ptp": "np.max(x, axis) - np.min(x, axis)",
    "flipud": "np.flip(x, 0)",
    "fliplr": "np.flip(x, 1)",
    "column_stack": "np.stack(arrays, axis=1)",
    "append": "np.concatenate([x, values])",
    "split": "slices (x[:k], x[k:]) or rt.split",
    "diagonal": "np.diag(x) (2-D)",
    "isin": "np.any(x[..., None] == values, axis=-1)",
    "logspace": "10.0 ** np.linspace(start, stop, num)",
}


def unsupported(numpy_fn) -> NumpyUnsupportedError:
    """The error for a numpy function that has no rt implementation (yet)."""
    name = qualified_name(numpy_fn)
    short = name.removeprefix("numpy.")
    instead = _INSTEAD.get(short)
    if instead is not None:
        nearest = f" Write {instead} instead."
    else:
        close = difflib.get_close_matches(name, _NAMES, n=3, cutoff=0.75)
        nearest = f" The nearest supported: {', '.join(close)}." if close else ""
    what = (f"{name} is not supported on tensors in rt.function (numpy cannot compute on graph "
            "values).")
    if name.startswith("numpy.random."):
        what = (f"{name} in rt.function would run once, while tracing, and freeze its numbers "
                "into the graph; rt.random.uniform / rt.random.normal (or np.random.normal, "
                "uniform, rand, randn, random, standard_normal) draw new ones on every call.")
    return NumpyUnsupportedError(with_origin(
        f"{what}{nearest} Or call numpy on the values when the graph runs: "
        f"rt.numpy_function(np.{short}, [x, ...], Tout=x.dtype, shape=[None]) (shape: one "
        "entry per axis of the result, None where its size is known only when it runs). "
        "runtime.numpy lists the numpy functions that run on tensors.", user_origin(3)))
