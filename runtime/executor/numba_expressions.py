"""Code fragments the NUMBA rules write: numpy's name of a dtype, a scalar made the op's dtype,
dims and shapes as code (known dims as numbers, the others read when the graph runs)."""

from __future__ import annotations


def numpy_name(dtype) -> str:
    return "np.bool_" if dtype.is_bool else f"np.{dtype.np_dtype.name}"


def as_output_dtype(op, expr: str) -> str:
    """`expr` as the op's output dtype when the output is a scalar (numba computes integer
    scalars in int64; arrays keep numpy's dtype rules)."""
    out = op.outputs[0]
    return f"{numpy_name(out.dtype)}({expr})" if len(out.shape) == 0 else expr


def dims_of(t, name: str) -> list:
    """Each dim of `t` (held in the variable `name`) as code: the number when it is known while
    tracing, else `name.shape[i]`, read when the graph runs."""
    return [str(d) if d is not None else f"{name}.shape[{i}]" for i, d in enumerate(t.shape)]


def tuple_of(items) -> str:
    items = list(items)
    return f"({', '.join(items)},)" if items else "()"


def product_of(items) -> str:
    """The product of dims given as code (`dims_of`), the known ones multiplied out."""
    known, unknown = 1, []
    for item in items:
        if item.isdigit():
            known *= int(item)
        else:
            unknown.append(item)
    return " * ".join(([str(known)] if known != 1 or not unknown else []) + unknown)
