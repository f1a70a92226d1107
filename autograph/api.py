"""The public API: `to_graph`, `to_code`, `do_not_convert`, `converted_call`, and the lookups
the runtime uses to map generated lines back to the user's (`user_location`)."""

from __future__ import annotations

import builtins
import functools
import types
from collections.abc import Callable
from typing import Any, TypeVar

from autograph import backends, errors, operators, origins
from autograph.conversion import ConversionCache
from autograph.frames import is_library_code
from autograph.operators import formatting, py_builtins, traced_paths

_F = TypeVar("_F", bound=Callable[..., Any])


def converted_call(f: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Calls `f`: builtins through their tensor overloads, user functions converted (once,
    cached), library code and `do_not_convert` functions as they are."""
    overload = py_builtins.OVERLOADS.get(f) if type(f) in _BUILTIN_TYPES else None
    if overload is not None:
        return overload(*args, **kwargs)
    if type(f) is types.BuiltinMethodType and type(f.__self__) is str:
        if f.__name__ == "format":
            return operators.format_string(f.__self__, *args, **kwargs)  # `template.format(...)`
        if f.__name__ == "join" and len(args) == 1 and not kwargs:
            return formatting.join_strings(f.__self__, args[0])  # `", ".join(texts)`
    if is_numpy_function(f):
        backend = backends.tensor_backend_any((*args, *kwargs.values()))
        if backend is None and (_is_numpy_random(f) or _sets_numpy_errors(f)):
            # drawn while tracing, numbers would be frozen into the graph, and an error state
            # set then would not hold when the graph runs: the library decides
            backend = backends.building_graph()
        if backend is not None:  # numpy's function on tensors: the library computes it
            return backend.numpy_call(f, args, kwargs)
    if type(f) is types.FunctionType:
        fn = f
    elif type(f) is types.MethodType and type(f.__func__) is types.FunctionType:
        fn, args = f.__func__, (f.__self__, *args)
    else:
        call = type(f).__call__ if callable(f) else None
        if not (type(call) is types.FunctionType and not isinstance(f, type)
                and _should_convert(call)):
            library = backends.calling(f)
            if library is not None:  # (a tensor library's compiled function)
                return library.call_from_converted_code(f, args, kwargs)
            if f is builtins.locals or (f is builtins.vars and not args and not kwargs):
                raise errors.AutoGraphError(errors.at(
                    "locals() is called here under another name: converted code runs in "
                    "generated functions, whose variables it would give. Call `locals()` by "
                    "its name, which converted code turns into the function's variables.",
                    origins.caller_origin()))
            return f(*args, **kwargs)
        fn, args = call, (f, *args)
    converted = _function(fn)
    if traced_paths.depth() and converted is not fn:
        with traced_paths.Call(fn, args, kwargs):
            return converted(*args, **kwargs)
    return converted(*args, **kwargs)


_BUILTIN_TYPES = (types.BuiltinFunctionType, type)


# Builtins that call a function they are given: they call it as converted code calls it (a
# builtin through its overload: `map(str, x.shape)` gives the dims' text, not graph
# placeholders' reprs; a function of the user's converted).
def _calling(fn):
    return fn if fn is None else functools.partial(converted_call, fn)


def _map(fn, *iterables):
    return map(_calling(fn), *iterables)


def _filter(fn, iterable):
    return filter(_calling(fn), iterable)


def _sorted(iterable, /, *, key=None, reverse=False):
    return sorted(iterable, key=_calling(key), reverse=reverse)


def _reduce(fn, *args):
    return functools.reduce(_calling(fn), *args)


py_builtins.OVERLOADS.update({builtins.map: _map, builtins.filter: _filter,
                              builtins.sorted: _sorted, functools.reduce: _reduce})


def _is_numpy_random(f) -> bool:
    """`f` is numpy.random's (a module function, or a method of its global generator)."""
    module = getattr(f, "__module__", None) or ""
    return module.startswith("numpy.random")


def _sets_numpy_errors(f) -> bool:
    """`f` is numpy's `errstate` or `seterr` (how floating-point errors are handled)."""
    return getattr(f, "__name__", None) in ("errstate", "seterr")


def is_numpy_function(f: object) -> bool:
    """`f` is one of numpy's functions, ufuncs (or their methods) or scalar types: a call of it
    with a backend's tensor goes to the backend (`Backend.numpy_call`)."""
    module = getattr(f, "__module__", None)
    if module is None:  # a ufunc's method (`np.add.reduce`)
        module = getattr(getattr(f, "__self__", None), "__module__", None)
    return type(module) is str and (module == "numpy" or module.startswith("numpy."))


def _should_convert(fn) -> bool:
    if getattr(fn, "__ag_do_not_convert__", False):
        return False
    filename = fn.__code__.co_filename
    if origins.REGISTRY.is_generated(filename):
        return False
    return not is_library_code(getattr(fn, "__module__", None), filename)


def _function(fn):
    return _CACHE.function(fn) if _should_convert(fn) else fn


def to_graph(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The converted `fn`: runs eagerly on Python values and tensors, and builds graph control
    flow when a condition is a staged tensor. Errors point at `fn`'s source lines."""
    if isinstance(fn, types.MethodType):
        return types.MethodType(to_graph(fn.__func__), fn.__self__)
    fn = _unwrap(fn)
    call = _python_call(fn)
    if call is not None:
        return types.MethodType(to_graph(call), fn)  # an object whose __call__ is Python code
    if not isinstance(fn, types.FunctionType):
        if callable(fn):  # a builtin, a numpy ufunc...: no Python code to convert
            return fn
        raise TypeError(f"to_graph expects a Python function or method, got {type(fn).__name__}")
    if not _should_convert(fn):
        return fn  # library code, `do_not_convert`, a function defined inside converted code
    converted = _CACHE.function(fn)
    if converted is fn:
        return fn

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return converted(*args, **kwargs)
        except Exception as e:
            translated = errors.translate(e, origins.REGISTRY)
            if translated is e:
                raise  # the same exception, its traceback rewritten: its cause is kept
            raise translated from None

    wrapper.__ag_converted__ = converted  # type: ignore[attr-defined]  # (a function attribute)
    return wrapper


def to_code(fn: Callable[..., Any]) -> str:
    """The source of the converted `fn` (also for a `runtime.function`-decorated function)."""
    fn = _unwrap(fn)
    if isinstance(fn, types.MethodType):
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        what = ("a builtin" if isinstance(fn, types.BuiltinFunctionType)
                else f"a callable {type(fn).__name__} object" if callable(fn)
                else f"{type(fn).__name__} {fn!r}")
        hint = (f" (for its __call__, pass {type(fn).__name__}.__call__)"
                if callable(fn) and not isinstance(fn, (type, types.BuiltinFunctionType)) else "")
        raise TypeError(f"to_code takes a Python function or method, got {what}{hint}: only "
                        "functions written in Python have source to convert.")
    return _CACHE.source(fn)


def do_not_convert(fn: _F) -> _F:
    """Marks `fn` to run as written, never converted."""
    fn.__ag_do_not_convert__ = True  # type: ignore[attr-defined]  # (a function attribute)
    code = getattr(fn, "__code__", None)
    if code is not None:
        _CACHE.unconverted.setdefault(code, (
            f"{fn.__qualname__} is marked @autograph.do_not_convert, so it runs as written and "
            "its `if`/`while`/`for` on graph tensors cannot become graph control flow. Remove "
            "the decorator to let autograph convert it, or use rt.cond / rt.while_loop in it."))
    return fn


def user_location(filename: str, lineno: int) -> tuple[str, int, str] | None:
    """`(user_filename, user_lineno, source_text)` for a line of generated code, else None."""
    origin = origins.REGISTRY.lookup(filename, lineno)
    return None if origin is None else (origin.filename, origin.lineno, origin.text)


def is_generated_file(filename: str) -> bool:
    """Whether `filename` is code generated by autograph."""
    return origins.REGISTRY.is_generated(filename)


def _unwrap(fn):
    """The Python function behind a decorated object: `python_function` (a backend's traced
    function, whose class sets `__ag_traced_function__`, e.g. an rt.function), or
    `__wrapped__` of a wrapper that is not itself Python code (functools.lru_cache). A Python
    wrapper (a function made with functools.wraps, an object whose `__call__` is Python code)
    is converted as it is: its own code must run."""
    while True:
        if isinstance(fn, types.FunctionType):  # (functools.wraps may have copied attributes)
            return fn
        traced = getattr(type(fn), "__ag_traced_function__", False)  # a backend's function
        inner = fn.python_function if traced else None  # (not an attribute a wrapper copied)
        if inner is None and _python_call(fn) is None:
            inner = getattr(fn, "__wrapped__", None)
        if inner is None or inner is fn:
            return fn
        fn = inner


def _python_call(obj):
    """The `__call__` function of an object (not a function or class) whose call is Python
    code, else None."""
    if isinstance(obj, (types.FunctionType, type)):
        return None
    call = getattr(type(obj), "__call__", None)  # noqa: B004 - the method, not callability
    return call if isinstance(call, types.FunctionType) else None


def _ag_module():
    """The namespace converted code reaches as `ag__`."""
    module = types.ModuleType("ag__", "Operators called by code generated by autograph.")
    for name in operators.__all__:
        setattr(module, name, getattr(operators, name))
    module.converted_call = converted_call
    return module


_CACHE = ConversionCache(_ag_module())


def not_converted_reason(code: types.CodeType) -> str | None:
    """Why the function of `code` runs unconverted (its source was not available, or it is
    marked `do_not_convert`), or None."""
    return _CACHE.unconverted.get(code)
