"""A tiny backend for testing autograph without the runtime (and for backend-agnosticism).

`Sym` wraps a Python value and behaves like a graph value: it refuses `bool()`, so plain
Python control flow on it fails, and only staged operators can handle it. The staged
primitives compute with the wrapped values, but `cond` runs *both* branches (like tracing)
and keeps a log of what was staged.
"""

import operator

import autograph


class Sym:
    """A staged value wrapping `value`."""

    def __init__(self, value):
        self.value = value

    def __bool__(self):
        raise TypeError("Sym used as a Python bool (control flow was not staged)")

    def __iter__(self):
        raise TypeError("Sym iterated in Python (the loop was not staged)")

    def __repr__(self):
        return f"Sym({self.value!r})"


def unwrap(value):
    return value.value if isinstance(value, Sym) else value


def _binary(op):
    return lambda a, b: Sym(op(unwrap(a), unwrap(b)))


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "lt", "le", "gt", "ge", "eq",
              "ne"):
    _op = getattr(operator, _name)
    setattr(Sym, f"__{_name}__", _binary(_op))
    setattr(Sym, f"__r{_name}__", (lambda op: lambda a, b: Sym(op(unwrap(b), unwrap(a))))(_op))
Sym.__neg__ = lambda a: Sym(-a.value)
Sym.__getitem__ = lambda a, i: Sym(a.value[unwrap(i)])
Sym.__hash__ = object.__hash__



class SymList(Sym):
    """A staged list: changed in place by its methods, as the runtime's TensorList is."""

    def append(self, item):
        self.value = self.value + [unwrap(item)]

    def pop(self):
        if not self.value:
            raise IndexError("pop from empty list")
        self.value, item = self.value[:-1], self.value[-1]
        return Sym(item)

    def __copy__(self):
        return SymList(self.value)


_PYTHON_SCALARS = (bool, int, float)


def _staged(value):
    """Like the outputs of a graph op: numbers (also in tuples) become staged values."""
    if isinstance(value, tuple):
        return tuple(_staged(v) for v in value)
    return Sym(value) if type(value) in _PYTHON_SCALARS else value


def _merge(chosen, t, f):
    """The outputs of a staged cond: a number that both branches give equal stays a Python
    number, others become staged values (as `rt.cond` does)."""
    if isinstance(chosen, tuple):
        return tuple(_merge(c, a, b) for c, a, b in zip(chosen, t, f))
    if type(t) in _PYTHON_SCALARS and type(t) is type(f) and t == f:
        return chosen
    return _staged(chosen)


class FakeBackend(autograph.Backend):
    """Stages by evaluating: both branches of a cond run; loops run in Python."""

    modules = ("fake_backend",)

    def __init__(self):
        self.log = []

    def is_tensor(self, value):
        return isinstance(value, Sym)

    def is_staged(self, value):
        return isinstance(value, Sym)

    def cond(self, pred, true_fn, false_fn, names):
        at = len(self.log)
        t, f = true_fn(), false_fn()
        # Names are read after tracing, as the real backend reads them (for its errors).
        self.log.insert(at, ("cond", tuple(names or ())))
        return _merge(t if unwrap(pred) else f, t, f)

    def while_loop(self, test, body, loop_vars, names):
        self.log.append(("while", tuple(names)))
        loop_vars = tuple(loop_vars)
        while unwrap(test(*loop_vars)):
            loop_vars = tuple(body(*loop_vars))
        return _staged(loop_vars)

    def for_loop(self, iterated, extra_test, body, loop_vars, names):
        self.log.append(("for", tuple(names)))
        loop_vars = tuple(loop_vars)
        items = zip(*map(unwrap, iterated)) if isinstance(iterated, tuple) else unwrap(iterated)
        for item in items:
            if extra_test is not None and not unwrap(extra_test(*loop_vars)):
                break
            item = tuple(map(Sym, item)) if isinstance(iterated, tuple) else Sym(item)
            loop_vars = tuple(body(item, *loop_vars))
        return _staged(loop_vars)

    def dry_run(self, fn):
        saved, self.log = self.log, []
        try:
            return fn()
        finally:
            self.log = saved

    def placeholder(self, value):
        if isinstance(value, (Sym, int, float, bool)):
            return Sym(unwrap(value))
        return value

    def item_placeholder(self, iterated):
        if isinstance(iterated, tuple):
            return tuple(self.item_placeholder(i) for i in iterated)
        return Sym(unwrap(iterated)[0] if unwrap(iterated) else 0)

    def zeros_like(self, value):
        if not isinstance(value, Sym):  # the real backend takes tensors only
            raise TypeError(f"zeros_like of a {type(value).__name__}")
        return Sym(type(unwrap(value))())

    def empty_list_like(self, items):
        return SymList([])

    def to_list(self, value, like):
        return value if isinstance(value, Sym) else SymList([unwrap(v) for v in value])

    def list_append(self, lst, value):
        lst.append(value)  # in place, as the real staged list appends
        return lst

    def logical_not(self, x):
        return Sym(not unwrap(x))

    def print(self, values, sep, end):
        self.log.append(("print", sep.join(str(unwrap(v)) for v in values)))

    def assert_(self, cond, message):
        self.log.append(("assert", message))
        if not unwrap(cond):
            raise AssertionError(message)

    def range(self, start, limit, delta):
        return Sym(list(range(unwrap(start), unwrap(limit), unwrap(delta))))

    def len(self, x):
        return Sym(len(unwrap(x)))

    def cast(self, x, python_type):
        return Sym(python_type(unwrap(x)))

    def builtin(self, fn, args, kwargs):
        return Sym(fn(*[unwrap(a) for a in args], **kwargs))
