"""An overall deadline for a server's first data, enforced on the socket.

httpx's read timeout is the longest wait for *one* read: it starts again with every byte, so a server that
trickles its status line one byte a second, or never finishes its headers, would hold a request forever.
The clients :mod:`desktop_agent.core.backends.http` builds bound every read of a thread inside
:func:`first_data_within` by that deadline (:func:`remaining`): a read past it fails with httpx's own
``ReadTimeout`` (which the backends report as "not responding"), and the connection is closed by the library
as for any read timeout.

The deadline is per thread: the thread that sends a request and waits for its first data sets it; the
threads that read the rest of a stream (see :mod:`desktop_agent.core.streams`) have none, so a long answer
is not cut at the deadline.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

__all__ = ["FirstData", "first_data_within", "remaining"]

_local = threading.local()


class FirstData:
    """The deadline of the current thread, as :func:`first_data_within` set it. :meth:`arrived` ends it
    early (the first data is here: later reads wait as long as the read timeout lets them)."""

    def __init__(self, seconds: float | None):
        self.deadline = time.monotonic() + seconds if seconds else None

    def arrived(self) -> None:
        self.deadline = None


@contextlib.contextmanager
def first_data_within(seconds: float | None) -> Iterator[FirstData]:
    """Within the block, network reads of this thread on a client of :mod:`~desktop_agent.core.backends.http` end
    ``seconds`` from now (None or 0: no deadline)."""
    previous = getattr(_local, "current", None)
    current = FirstData(seconds)
    _local.current = current
    try:
        yield current
    finally:
        _local.current = previous


def remaining() -> float | None:
    """Seconds left before the calling thread's first-data deadline (None: no deadline)."""
    current = getattr(_local, "current", None)
    if current is None or current.deadline is None:
        return None
    return current.deadline - time.monotonic()
