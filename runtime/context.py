"""Which graph, if any, new ops go into (a per-thread stack of graphs being built)."""

from __future__ import annotations

import contextlib
import threading


class _State(threading.local):
    def __init__(self):
        self.graphs = []
        self.trace_watchers = []


_state = _State()


def current_graph():
    """The innermost graph being built on this thread, or None when running eagerly."""
    graphs = _state.graphs
    return graphs[-1] if graphs else None


@contextlib.contextmanager
def building(graph):
    """Makes `graph` the destination of new ops inside the `with` block."""
    _state.graphs.append(graph)
    try:
        yield graph
    finally:
        _state.graphs.pop()


@contextlib.contextmanager
def eager_scope():
    """Runs the block eagerly even while a graph is being built (used to lift initial values)."""
    saved = _state.graphs
    _state.graphs = []
    try:
        yield
    finally:
        _state.graphs = saved


@contextlib.contextmanager
def watching_variable_creation(created: list):
    """Appends every rt.Variable created inside the block to `created`."""
    _state.trace_watchers.append(created)
    try:
        yield created
    finally:
        _state.trace_watchers.pop()


def note_variable_created(variable) -> None:
    for created in _state.trace_watchers:
        created.append(variable)
