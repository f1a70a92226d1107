"""What the numba executor's tests compare: a graph's results on jit_compile="numba" and on the
default executor, bit for bit (dtype and the Python type of scalars included) or within a few
ulp where numba is not exact."""

import numpy as np

import runtime as rt


def same(a, b, ulps=0):
    """Tensors `a` and `b` are equal (within `ulps` units in the last place)."""
    assert a.dtype is b.dtype and type(a.numpy()) is type(b.numpy())
    if ulps:
        spacing = np.spacing(np.abs(a.numpy()).astype(a.dtype.np_dtype))
        both_nan = np.isnan(a.numpy()) & np.isnan(b.numpy())  # arcsin(2) and its kin
        assert np.all((np.abs(a.numpy() - b.numpy()) <= ulps * spacing) | both_nan)
    else:
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def both(fn, *args):
    """numba's results of `fn(*args)`, after checking they are the default executor's."""
    default = rt.function(fn)(*args)
    native = rt.function(fn, jit_compile="numba")(*args)
    for a, b in zip(default if isinstance(default, tuple) else (default,),
                    native if isinstance(native, tuple) else (native,)):
        same(a, b)
    return native


def agree(fn, *args, ulps=0, signature=None):
    """fn's results on numba equal the default executor's (within `ulps` where not exact)."""
    default = rt.function(fn, input_signature=signature)(*args)
    native = rt.function(fn, jit_compile="numba", input_signature=signature)(*args)
    for want, got in zip(default if isinstance(default, tuple) else (default,),
                         native if isinstance(native, tuple) else (native,)):
        same(want, got, ulps=ulps)
