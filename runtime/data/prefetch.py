"""`Dataset.prefetch` in Python iteration: a background thread runs the input pipeline up to
`buffer_size` elements ahead of the loop that consumes them.

An error raised by the pipeline is raised to the consumer, at the element where it happened.
When the consumer stops early (`break`, or the iterator is dropped), the thread stops at its
next element.
"""

from __future__ import annotations

import queue
import threading

_POLL = 0.05  # seconds between checks that the consumer is still there


def prefetched(make_elements, buffer_size: int):
    """Yields what the generator `make_elements()` yields, made ahead in a background thread."""
    items: queue.Queue = queue.Queue(maxsize=buffer_size)
    stop = threading.Event()

    def put(entry) -> bool:
        while not stop.is_set():
            try:
                items.put(entry, timeout=_POLL)
                return True
            except queue.Full:
                continue
        return False

    def produce():
        try:
            source = make_elements()
            try:
                for element in source:
                    if not put((True, element)):
                        return
            finally:
                close = getattr(source, "close", None)
                if close is not None:
                    close()
            put((False, None))
        except BaseException as error:  # noqa: BLE001 - handed to the consumer
            put((False, error))

    thread = threading.Thread(target=produce, name="rt.data prefetch", daemon=True)
    thread.start()
    try:
        while True:
            ok, value = items.get()
            if ok:
                yield value
            elif value is None:
                return
            else:
                raise value
    finally:
        stop.set()
