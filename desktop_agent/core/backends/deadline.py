"""An overall deadline for a server's first data, enforced on the socket.

httpx's read timeout is the longest wait for *one* read: it starts again with every byte, so a server that
trickles its status line one byte a second, or never finishes its headers, would hold a request forever.
:func:`bound_reads` wraps the network layer of an ``httpx.Client`` (or ``httpx2.Client``, which the openai
client uses) so that every read of a thread inside :func:`first_data_within` ends at that deadline: a read
past it fails with the library's own ``ReadTimeout`` (which the backends report as "not responding"), and the
connection is closed by the library as for any read timeout.

The deadline is per thread: the thread that sends a request and waits for its first data sets it; the
threads that read the rest of a stream (see :mod:`desktop_agent.core.streams`) have none, so a long answer
is not cut at the deadline.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["FirstData", "bound_reads", "first_data_within"]

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
    """Within the block, network reads of this thread on a client wrapped by :func:`bound_reads` end
    ``seconds`` from now (None or 0: no deadline)."""
    previous = getattr(_local, "current", None)
    current = FirstData(seconds)
    _local.current = current
    try:
        yield current
    finally:
        _local.current = previous


def _remaining() -> float | None:
    current = getattr(_local, "current", None)
    if current is None or current.deadline is None:
        return None
    return current.deadline - time.monotonic()


class _Stream:
    """A network stream of httpcore / httpcore2 whose reads and writes respect the thread's deadline."""

    def __init__(self, inner: Any, timeout_error: type[Exception]):
        self._inner, self._timeout_error = inner, timeout_error

    def _bounded(self, timeout: float | None) -> float | None:
        remaining = _remaining()
        if remaining is None:
            return timeout
        if remaining <= 0:
            raise self._timeout_error("no answer before the deadline for the first data")
        return remaining if timeout is None else min(timeout, remaining)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._bounded(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._bounded(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, self._bounded(timeout)),
                       self._timeout_error)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend:
    """A network backend of httpcore / httpcore2 whose streams are :class:`_Stream`."""

    def __init__(self, inner: Any, timeout_error: type[Exception]):
        self._inner, self._timeout_error = inner, timeout_error

    def connect_tcp(self, *args: Any, **kwargs: Any) -> _Stream:
        return _Stream(self._inner.connect_tcp(*args, **kwargs), self._timeout_error)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> _Stream:
        return _Stream(self._inner.connect_unix_socket(*args, **kwargs), self._timeout_error)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _wrap_pool(pool: Any) -> bool:
    inner = getattr(pool, "_network_backend", None)
    if inner is None or isinstance(inner, _Backend):
        return isinstance(inner, _Backend)
    library = importlib.import_module(type(pool).__module__.split(".")[0])  # httpcore or httpcore2
    pool._network_backend = _Backend(inner, library.ReadTimeout)
    return True


def bound_reads(client: Any) -> bool:
    """Make every connection ``client`` (an ``httpx.Client`` / ``httpx2.Client``) opens from now on respect
    :func:`first_data_within`, for its own transport and its proxy mounts. True when the default transport
    was wrapped; False for a client whose transport has no connection pool (a mock transport in tests)."""
    transports = [getattr(client, "_transport", None), *(getattr(client, "_mounts", None) or {}).values()]
    wrapped = [_wrap_pool(getattr(t, "_pool", None)) for t in transports if t is not None]
    return bool(wrapped and wrapped[0])
