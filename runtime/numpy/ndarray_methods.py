"""numpy's ndarray methods and attributes on tensors (`x.sum()`, `x.T`, `x.astype(...)`),
eager and in graphs, installed on `Tensor` by runtime.numpy: each is the runtime.numpy
function of the same name, so it gives numpy's result."""

from __future__ import annotations

from runtime.core.source_info import user_origin
from runtime.core.tensor import EagerTensor, Tensor
from runtime.errors import OperatorNotAllowedInGraphError, with_origin
from runtime.numpy import functions as fn
from runtime.ops import array_ops
from runtime.tracing.python_builtins import one_element, to_float, to_int, weak


def _shape_args(shape):
    """`x.reshape(2, 3)` and `x.reshape((2, 3))` alike."""
    return shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape


def reshape(self, *shape, order="C"):
    """ndarray.reshape: `x.reshape(2, 3)` or `x.reshape((2, 3))`."""
    return fn.reshape(self, _shape_args(shape), order)


def transpose(self, *axes):
    """ndarray.transpose: `x.transpose()`, `x.transpose(1, 0)` or `x.transpose((1, 0))`."""
    return fn.transpose(self, _shape_args(axes) if axes else None)


def flatten(self, order="C"):
    """ndarray.flatten: the elements as a 1-D tensor (a copy, where ravel gives a view)."""
    return array_ops.identity(fn.ravel(self, order))


def item(self, *index):
    """ndarray.item: the one element (or the element at `index`) as a Python number; in a
    graph, a scalar tensor that stands for one."""
    value = self[index] if index else self
    if isinstance(value, EagerTensor):
        return value.numpy().item()
    if value.dtype.is_bool:
        return weak(one_element(value, "item()"))
    return to_float(value) if value.dtype.is_floating else to_int(value)  # Python's widths


def tolist(self):
    """ndarray.tolist: nested Python lists of Python numbers (eager tensors only)."""
    if isinstance(self, EagerTensor):
        return self.numpy().tolist()
    raise OperatorNotAllowedInGraphError(with_origin(
        "tolist() of a graph tensor: its values are known only when the graph runs. Use the "
        "tensor itself, or rt.unstack(x) for a Python list of tensors.", user_origin()))


def _size(self):
    return fn.size(self)


def _transposed(self):
    return fn.transpose(self)


_METHODS = {
    "sum": fn.sum, "mean": fn.mean, "max": fn.max, "min": fn.min, "prod": fn.prod,
    "std": fn.std, "var": fn.var, "argmax": fn.argmax, "argmin": fn.argmin, "all": fn.all,
    "any": fn.any, "squeeze": fn.squeeze, "astype": fn.astype, "clip": fn.clip,
    "round": fn.round, "copy": fn.copy, "ravel": fn.ravel, "swapaxes": fn.swapaxes,
    "reshape": reshape, "transpose": transpose, "flatten": flatten, "item": item,
    "tolist": tolist, "dot": fn.dot, "nonzero": fn.nonzero, "cumsum": fn.cumsum,
    "cumprod": fn.cumprod, "argsort": fn.argsort, "repeat": fn.repeat, "take": fn.take,
    "trace": fn.trace, "searchsorted": fn.searchsorted, "conj": fn.conj, "conjugate": fn.conj,
}


def _changes_in_place(name: str, instead: str):
    def method(self, *args, **kwargs):
        raise OperatorNotAllowedInGraphError(with_origin(
            f"x.{name}() changes an array in place, which a tensor cannot (tensors are "
            f"immutable: a graph never writes into a value, a caller's array included); make "
            f"a new one: `{instead}`.", user_origin()))
    method.__name__ = name
    method.__doc__ = f"ndarray.{name}: refused (it changes the array in place): `{instead}`."
    return method


# ndarray's methods that change the array in place, and what to write instead
_IN_PLACE = {
    "sort": "x = np.sort(x)", "fill": "x = np.full_like(x, value)",
    "put": "x = np.where((np.arange(x.size) == i).reshape(x.shape), v, x) for a flat index i",
    "partition": "x = np.sort(x)",
    "resize": "x = np.concatenate([x.ravel(), np.zeros(extra)]).reshape(shape)",
}


# the methods and the attributes
NAMES = sorted([*_METHODS, "T", "size", "real", "imag", "shape", "ndim", "dtype"])


def install() -> None:
    """Installs the methods on Tensor; `T`, `size`, `real` and `imag` are properties (`shape`,
    `ndim` and `dtype` are the tensor's own)."""
    for name, method in _METHODS.items():
        setattr(Tensor, name, method)
    for name, instead in _IN_PLACE.items():
        setattr(Tensor, name, _changes_in_place(name, instead))
    Tensor.T = property(_transposed, doc="ndarray.T: the axes reversed.")
    Tensor.real = property(fn.real, doc="ndarray.real: the real parts.")
    Tensor.imag = property(fn.imag, doc="ndarray.imag: the imaginary parts (zeros for real "
                                        "values).")
    Tensor.size = property(_size, doc="ndarray.size: the number of elements (an int; a scalar "
                                      "tensor when a dim is unknown).")
