"""Per-thread state of what is being built: which graph, if any, new ops go into (a stack of
graphs), and which gradient tapes record the ops that run."""

from __future__ import annotations

import contextlib
import threading


class _State(threading.local):
    def __init__(self):
        self.graphs = []
        self.trace_watchers = []
        self.staged_writes = []
        self.tapes = []
        self.functions = []
        self.dim_reads = []


_state = _State()

# How many graphs are being built and tapes are open, on all threads: while none is, a call of
# an rt.function needs no per-thread look (the fast path tests this one number).
busy = 0
_busy_lock = threading.Lock()


@contextlib.contextmanager
def _busy():
    global busy
    with _busy_lock:
        busy += 1
    try:
        yield
    finally:
        with _busy_lock:
            busy -= 1


def building_graph(graph) -> bool:
    """Whether `graph` is being built on this thread (it, or a graph inside it, takes ops)."""
    return any(g is graph for g in _state.graphs)


def current_graph():
    """The innermost graph being built on this thread, or None when running eagerly."""
    graphs = _state.graphs
    return graphs[-1] if graphs else None


@contextlib.contextmanager
def building(graph):
    """Makes `graph` the destination of new ops inside the `with` block."""
    _state.graphs.append(graph)
    try:
        with _busy():
            yield graph
    finally:
        _state.graphs.pop()


@contextlib.contextmanager
def tracing_function(function):
    """Marks `function` (an rt.function) as the one being traced inside the block; yields the
    list that callees' guarded values are added to, for this trace (see `current_trace`)."""
    adopted: list = []
    _state.functions.append((function, adopted))
    try:
        yield adopted
    finally:
        _state.functions.pop()


def current_trace():
    """(the rt.function being traced innermost on this thread, its trace's list of guarded
    values taken from callees), or None."""
    functions = _state.functions
    return functions[-1] if functions else None


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
def _innermost(stack: list, collected: list):
    """`collected` on top of `stack` inside the block."""
    stack.append(collected)
    try:
        yield collected
    finally:
        stack.pop()


def watching_variable_creation(created: list):
    """Appends every rt.Variable created inside the block to `created`."""
    return _innermost(_state.trace_watchers, created)


def watching_staged_writes(writes: list):
    """Appends to `writes` what `note_staged_write` reports inside the block (this trace's)."""
    return _innermost(_state.staged_writes, writes)


def note_staged_write(record) -> None:
    """Reports a staged value written to state outside the function being traced (see
    runtime/tracing/outside_state.py) to the innermost trace."""
    if _state.staged_writes:
        _state.staged_writes[-1].append(record)


def watching_dim_reads(reads: list):
    """Appends to `reads` the user's origin of every unknown dim the user's code reads inside
    the block (this trace's, and those of the traces around it)."""
    return _innermost(_state.dim_reads, reads)


def dims_watched() -> bool:
    """Whether a trace on this thread watches for reads of unknown dims."""
    return bool(_state.dim_reads)


def note_dim_read(origin) -> None:
    """Reports that the user's code at `origin` read an unknown dim of a static shape (None
    where plain Python would see a number) to every trace being made on this thread."""
    for reads in _state.dim_reads:
        reads.append(origin)


def recording_tapes() -> list:
    """The gradient tapes open on this thread (innermost last)."""
    return _state.tapes


@contextlib.contextmanager
def recording(tape):
    """Keeps `tape` open (recording) inside the block."""
    _state.tapes.append(tape)
    try:
        with _busy():
            yield tape
    finally:
        _state.tapes.remove(tape)


@contextlib.contextmanager
def tapes_paused():
    """No tape records inside the block (a custom gradient's forward computation)."""
    saved = _state.tapes
    _state.tapes = []
    try:
        yield
    finally:
        _state.tapes = saved


def note_variable_created(variable) -> None:
    for created in _state.trace_watchers:
        created.append(variable)
