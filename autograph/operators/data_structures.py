"""`list_append`: `lst.append(v)`, also for a list carried through a graph loop; `mutated`:
marks a variable whose object a statement changed in place (see converters/lists.py).

A Python list is appended to in place (and returned), so Python semantics are unchanged. Inside
a graph loop the list is the backend's staged list, which appends in place as well.
"""

from __future__ import annotations

from autograph import backends


def list_append(lst, value):
    """`lst.append(value)`; returns the list (the same object for a Python list)."""
    backend = backends.staging(lst)
    if backend is None:
        lst.append(value)
        return lst
    return backend.list_append(lst, value)


def mutated(value):
    """Returns `value`: the statement before it changed `value` in place (`lst.pop()`), and
    assigning it makes the variable one that the statement modifies."""
    return value
