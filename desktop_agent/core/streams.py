"""Waiting on something that blocks — a network stream, a request, a tool — while staying able to stop
at once: when the user presses Stop (a ``cancel`` event) or a timeout runs out.

- :class:`StreamReader` reads a blocking stream (NDJSON lines, SSE events) on a daemon thread and
  hands its items to the consuming thread, which polls ``cancel`` (both backends' chat streams, the
  Ollama model download);
- :func:`run_watched` runs one blocking call on a daemon thread and waits for its result, ``cancel``
  or a timeout, abandoning the thread when it gives up (tool calls);
- :func:`until_cancelled` is :func:`run_watched` for a call whose late result must be closed
  (an HTTP request still waiting for its first event); it raises :class:`WaitCancelled`;
- :func:`shutdown_socket` wakes a thread blocked in ``recv`` on an ``httpx.Response``.

No backend and no client library is imported here: the tool layer uses this module too.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, Literal, TypeVar

__all__ = ["POLL_S", "StreamReader", "WaitCancelled", "run_watched", "shutdown_socket", "until_cancelled"]

T = TypeVar("T")

#: seconds between two looks at ``cancel`` (and the clock) while waiting
POLL_S = 0.05

#: how :func:`run_watched` ended
Outcome = Literal["ok", "error", "timeout", "cancelled"]


class WaitCancelled(BaseException):
    """``cancel`` was set while :func:`until_cancelled` waited. A BaseException so that retry loops
    (the key pool) pass it through untouched: it is neither a failure nor retryable."""


def run_watched(
    fn: Callable[[], T],
    cancel: threading.Event | None,
    *,
    timeout_s: float | None = None,
    name: str = "watched-call",
    discard: Callable[[T], Any] | None = None,
    poll_s: float = POLL_S,
) -> tuple[Outcome, Any]:
    """``fn()`` on a daemon thread, while this thread waits for it, ``cancel`` or ``timeout_s``
    seconds (None or 0: no timeout), looking every ``poll_s`` seconds.

    Returns ``("ok", value)``, ``("error", exception)`` (any ``BaseException`` ``fn`` raised),
    ``("cancelled", None)`` or ``("timeout", None)``. On cancel or timeout the thread is abandoned
    (a daemon: it never blocks the app's exit) and a result it returns later is given to
    ``discard``; a result that arrives first is always returned, never discarded.
    """
    box: dict[str, Any] = {}
    done = threading.Event()
    abandoned = threading.Event()
    lock = threading.Lock()

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 — handed to the waiting thread
            box["error"] = exc
        with lock:
            done.set()
            late = abandoned.is_set()
        if late and "value" in box and discard is not None:
            _quietly(discard, box["value"])

    def give_up() -> bool:
        """Abandon the thread unless it has just finished."""
        with lock:
            if done.is_set():
                return False
            abandoned.set()
            return True

    threading.Thread(target=work, name=name, daemon=True).start()
    deadline = time.monotonic() + timeout_s if timeout_s else None
    while True:
        wait = poll_s
        if deadline is not None:
            wait = min(wait, max(0.0, deadline - time.monotonic()))
        if done.wait(wait):
            break
        if cancel is not None and cancel.is_set():
            if give_up():
                return "cancelled", None
            break
        if deadline is not None and time.monotonic() >= deadline:
            if give_up():
                return "timeout", None
            break
    if "error" in box:
        return "error", box["error"]
    return "ok", box.get("value")


def until_cancelled(
    fn: Callable[[], T], cancel: threading.Event | None, discard: Callable[[T], Any], *, name: str = "request"
) -> T:
    """``fn()``, run on a helper thread while this one watches ``cancel`` (see :func:`run_watched`).

    When ``cancel`` is set first, raises :class:`WaitCancelled` at once; the helper thread is left to
    finish on its own and its late result is given to ``discard`` (close the stream). A result that
    arrives just as ``cancel`` is set is discarded too. Exceptions of ``fn`` are re-raised here.
    Without ``cancel``, ``fn()`` runs in this thread.
    """
    if cancel is None:
        return fn()
    outcome, value = run_watched(fn, cancel, name=name, discard=discard)
    if outcome == "cancelled":
        raise WaitCancelled()
    if outcome == "error":
        raise value
    if cancel.is_set():  # finished just as Stop was pressed: drop it
        _quietly(discard, value)
        raise WaitCancelled()
    return value


def _quietly(fn: Callable[[Any], Any], value: Any) -> None:
    with contextlib.suppress(Exception):  # closing an abandoned result must not raise anywhere
        fn(value)


class StreamReader(Generic[T]):
    """Iterates a blocking network stream on a short-lived daemon thread, so that the consuming
    thread can stop at once — also while the server is silent mid-answer.

    ``source``: an iterable whose ``next()`` blocks on the network (NDJSON lines, SSE events).
    Iterating the reader yields the source's items in order, re-raises the source's exception in the
    consuming thread, and returns at the end of the source or — polling every :attr:`POLL_S` seconds —
    as soon as ``cancel`` is set (without ``cancel`` it blocks until the next item).

    Use::

        reader = StreamReader(lines(), cancel, name="ollama-chat")
        reader.watch(response)      # optional: the httpx.Response being read (also from ``source``)
        reader.start()
        try:
            for item in reader: ...
        finally:
            reader.close()          # always

    :meth:`close` stops the reader: it shuts down the socket of the watched response (closing a
    socket from another thread does not wake a blocked ``recv`` on Linux; ``shutdown`` does), so the
    reader thread ends within milliseconds and closes ``source`` itself (a generator's ``finally`` /
    ``with`` blocks run there). The watched response is cleared when the source ends (and the source
    may clear it itself with ``watch(None)`` before giving its connection back to the pool), so a
    pooled connection is never shut down.
    """

    #: seconds between two looks at ``cancel`` while waiting for the next item
    POLL_S = POLL_S

    def __init__(self, source: Iterable[T], cancel: threading.Event | None = None, *, name: str = "stream-reader"):
        self._source = source
        self._cancel = cancel
        self._q: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._response: Any = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> StreamReader[T]:
        self._thread.start()
        return self

    def watch(self, response: Any) -> None:
        """The ``httpx.Response`` whose socket :meth:`close` shuts down (None: nothing to shut down)."""
        with self._lock:
            self._response = response

    @property
    def stopped(self) -> bool:
        """:meth:`close` was called (a source may look at this before starting to read)."""
        return self._stop.is_set()

    def _cancelled(self) -> bool:
        return self._cancel is not None and self._cancel.is_set()

    def __iter__(self) -> Iterator[T]:
        while True:
            try:
                kind, value = self._q.get(timeout=self.POLL_S) if self._cancel is not None else self._q.get()
            except queue.Empty:
                if self._cancelled():
                    return
                continue
            if self._cancelled():
                return
            if kind == "item":
                yield value
            elif kind == "error":
                raise value
            else:  # "end"
                return

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the reader thread to end; True when it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def close(self) -> None:
        """Stop reading (idempotent, never raises): the reader thread drops what it reads from now on."""
        self._stop.set()
        with self._lock:  # held while shutting down: the source cannot hand the connection back meanwhile
            shutdown_socket(self._response)

    def _run(self) -> None:
        it = iter(self._source)
        try:
            for item in it:
                if self._stop.is_set():
                    return
                self._q.put(("item", item))
            self._q.put(("end", None))
        except BaseException as exc:  # noqa: BLE001 — handed to the consuming thread
            if not self._stop.is_set():
                self._q.put(("error", exc))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):  # nobody is listening any more
                    close()  # a generator source: its finally/with blocks close the response here
            self.watch(None)


def shutdown_socket(response: Any) -> None:
    """Shut down the socket under an ``httpx.Response`` still being read (``SHUT_RDWR``), which wakes a
    thread blocked in ``recv`` on it. Does nothing for None, a closed response, or a transport without
    a socket. Never raises."""
    if response is None or getattr(response, "is_closed", False):
        return
    try:
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except Exception:  # noqa: BLE001 — already closed
        pass
