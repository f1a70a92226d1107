"""`list_append`: `lst.append(v)`, also for a list carried through a graph loop.

A Python list is appended to in place (and returned), so Python semantics are unchanged. Inside
a graph loop the list is a stacked tensor, and appending returns a longer one.
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
