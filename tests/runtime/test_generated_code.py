"""Source the runtime generates is shown in tracebacks (linecache) while its function lives,
and leaves linecache with it: tracing many functions does not grow it without bound."""

import gc
import linecache

import runtime as rt


def _generated_entries() -> int:
    return sum(1 for name in linecache.cache if str(name).startswith("<rt-"))


def test_generated_source_leaves_linecache_with_its_function():
    gc.collect()
    before = _generated_entries()
    f = rt.function(lambda x: rt.tanh(x) * 2.0 + 1.0)
    f(rt.constant([1.0, 2.0]))
    assert _generated_entries() > before  # the graph's code (and its call wrapper) are there
    for _ in range(50):  # fresh functions, dropped at once
        rt.function(lambda x: rt.tanh(x) * 2.0 + 1.0)(rt.constant([1.0, 2.0]))
    del f
    gc.collect()
    assert _generated_entries() <= before + 2  # (kernels cached by program may stay)
