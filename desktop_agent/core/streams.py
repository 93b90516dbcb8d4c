"""Waiting on something that blocks — a network exchange, a tool — while staying able to stop at once:
when the user presses Stop (a ``cancel`` event), or when a server stops sending.

- :class:`Watch` guards one HTTP exchange read *in the calling thread*. One long-lived watchdog thread
  (for the whole process) looks at every open watch: when ``cancel`` is set, or when no progress came
  for too long — the first-data wait before the answer starts (the server may be loading a model), the
  next-data wait once it streams — it shuts down the socket the watched thread is blocked on, so that
  thread wakes within milliseconds and the backend looks at :attr:`Watch.reason`. Which data counts as
  progress is the backend's call (:meth:`Watch.progress`): keep-alive comments and empty frames do not.
- :func:`current_watch` is how the network layer (:mod:`desktop_agent.core.backends.http`, whose clients'
  connections report every read to it) finds the watch of the reading thread, also before the response
  headers arrive.
- :func:`run_watched` runs one blocking call (a tool) on a long-lived worker and waits for its result,
  ``cancel`` or a timeout, abandoning the call when it gives up.
- :func:`shutdown_socket` wakes a thread blocked in ``recv`` on an ``httpx.Response``.

No backend and no client library is imported here: the tool layer uses this module too.
"""

from __future__ import annotations

import contextlib
import queue
import socket
import threading
import time
from collections.abc import Callable, Generator
from typing import Any, Literal, TypeVar

__all__ = ["POLL_S", "WaitCancelled", "Watch", "current_watch", "run_watched", "shutdown_socket"]

T = TypeVar("T")
R = TypeVar("R")

#: seconds between two looks at ``cancel`` (and the clock) while waiting
POLL_S = 0.05

#: how :func:`run_watched` ended
Outcome = Literal["ok", "error", "timeout", "cancelled"]

#: why a :class:`Watch` ended its exchange: Stop, or no data within the wait
Reason = Literal["cancelled", "stalled"]


class WaitCancelled(BaseException):
    """``cancel`` was set while a request waited. A BaseException so that retry loops (the key pool)
    pass it through untouched: it is neither a failure nor retryable."""


# ---------------------------------------------------------------------------------------- watches

_local = threading.local()


class Watch:
    """One HTTP exchange, read in the calling thread, watched for Stop and for stalls.

    ``first_s``: seconds allowed before the first progress (None: no limit); ``next_s``: seconds allowed
    between two progresses once data flows (None: ``first_s``). Use::

        with Watch(cancel, first_s=300, next_s=60) as watch:
            with client.stream(...) as response:
                watch.attach(response)           # optional: a client not built by backends/http.py
                for frame in ...:
                    if meaningful(frame):
                        watch.progress()
        ...                                      # on any error or early end: look at watch.reason

    While the ``with`` block runs, reads of this thread on clients built by
    :mod:`desktop_agent.core.backends.http` are watched:
    when ``cancel`` is set or a wait runs out, :attr:`reason` is set (``"cancelled"`` / ``"stalled"``)
    and the socket being read is shut down, so the read ends at once (the client library then raises a
    transport error or sees the end of the body; the backend turns that into the right outcome).
    """

    def __init__(self, cancel: threading.Event | None, first_s: float | None = None, next_s: float | None = None):
        self.cancel = cancel
        self.first_s = first_s or None
        self.next_s = (next_s or None) if next_s is not None else self.first_s
        self.reason: Reason | None = None
        #: progress has come (the first-data wait is over)
        self.started = False
        self._lock = threading.Lock()
        self._reading: Any = None  # the network stream being read right now
        self._response: Any = None
        self._deadline: float | None = None
        self._previous: Watch | None = None
        #: inside the ``with`` block (a generator left suspended and never closed must not act later)
        self.open = False
        self.restart()

    # -- the backend's side ------------------------------------------------------------------
    def restart(self) -> None:
        """A new attempt (a retry): the first-data wait starts again (a wait that ran out meanwhile, say
        during a Retry-After pause, is forgotten; a Stop is not)."""
        self.started = False
        self._deadline = time.monotonic() + self.first_s if self.first_s else None
        if self.reason == "stalled":
            self.reason = None

    def progress(self, within_s: float | None = None) -> None:
        """Meaningful data arrived: the next-data wait (or ``within_s`` seconds) starts now."""
        self.started = True
        wait = within_s or self.next_s
        self._deadline = time.monotonic() + wait if wait else None

    def attach(self, response: Any) -> None:
        """An ``httpx.Response`` whose socket is shut down too when the watch fires (None: forget it)."""
        with self._lock:
            self._response = response
            fired = self.reason is not None
        if fired:
            shutdown_socket(response)

    @property
    def waited_s(self) -> float | None:
        """The wait that ran out (or would): the next-data one once data flows, else the first-data one."""
        return self.next_s if self.started else self.first_s

    @property
    def cancelled(self) -> bool:
        return self.reason == "cancelled" or (self.cancel is not None and self.cancel.is_set())

    @property
    def stalled(self) -> bool:
        return self.reason == "stalled"

    def __enter__(self) -> Watch:
        self._previous = getattr(_local, "watch", None)
        _local.watch = self
        self.open = True
        _WATCHDOG.add(self)
        if self.cancel is not None and self.cancel.is_set():
            self.fire("cancelled")
        return self

    def __exit__(self, *exc: Any) -> None:
        self.open = False
        _WATCHDOG.discard(self)
        with self._lock:
            self._response = None
            self._reading = None
        if getattr(_local, "watch", None) is self:
            _local.watch = self._previous

    # -- the watchdog's side -----------------------------------------------------------------
    def due(self, now: float) -> Reason | None:
        if self.reason is not None:
            return None
        if self.cancel is not None and self.cancel.is_set():
            return "cancelled"
        deadline = self._deadline
        if deadline is not None and now >= deadline:
            return "stalled"
        return None

    def fire(self, reason: Reason) -> None:
        """End the exchange: remember why and shut down what the thread reads (never raises)."""
        with self._lock:
            if self.reason is not None:
                return
            self.reason = reason
            response = self._response
        _shutdown_stream(self._reading)
        shutdown_socket(response)

    # -- the network layer's side -----------------------------------------------------------
    # No lock here (this runs for every read and write): the reading thread sets ``_reading`` and then
    # looks at ``reason``; :meth:`fire` sets ``reason`` and then looks at ``_reading``. Whatever the
    # interleaving, either the thread sees the reason or the watchdog sees the stream.
    def reading(self, stream: Any) -> None:
        """The thread is about to read (or write) ``stream``: a fired watch shuts it down."""
        self._reading = stream
        if self.reason is not None:  # fired between two reads: this read must not block
            _shutdown_stream(stream)

    def done_reading(self) -> None:
        self._reading = None


class _Watchdog:
    """The one thread that fires watches. It looks every :data:`POLL_S` seconds while watches are open,
    and for :attr:`LINGER_S` seconds after the last one closed (the next request of a tool turn then
    costs it no wake-up); then it sleeps until a watch opens."""

    LINGER_S = 2.0

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._watches: set[Watch] = set()
        self._thread: threading.Thread | None = None
        self._asleep = False

    def add(self, watch: Watch) -> None:
        with self._cond:
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="stream-watchdog", daemon=True)
                self._thread.start()
            elif self._asleep:
                self._cond.notify()

    def discard(self, watch: Watch) -> None:
        with self._cond:
            self._watches.discard(watch)

    def _run(self) -> None:
        last_active = time.monotonic()
        while True:
            with self._cond:
                if not self._watches and time.monotonic() - last_active > self.LINGER_S:
                    self._asleep = True
                    while not self._watches:
                        self._cond.wait()
                    self._asleep = False
                watches = list(self._watches)
            now = time.monotonic()
            if watches:
                last_active = now
            for watch in watches:
                reason = watch.due(now)
                if reason is not None:
                    watch.fire(reason)
            time.sleep(POLL_S)


_WATCHDOG = _Watchdog()


def current_watch() -> Watch | None:
    """The open :class:`Watch` of the calling thread, if any: the network layer
    (:mod:`desktop_agent.core.backends.http`) reports each read and write to it."""
    watch: Watch | None = getattr(_local, "watch", None)
    return watch if watch is not None and watch.open else None


def _shutdown_stream(stream: Any) -> None:
    if stream is None:
        return
    try:
        sock = stream.get_extra_info("socket")
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
    except Exception:  # noqa: BLE001 — already closed
        pass


def shutdown_socket(response: Any) -> None:
    """Shut down the socket under an ``httpx.Response`` still being read (``SHUT_RDWR``), which wakes a
    thread blocked in ``recv`` on it. Does nothing for None, a closed response, or a transport without
    a socket. Never raises."""
    if response is None or getattr(response, "is_closed", False):
        return
    try:
        stream = response.extensions.get("network_stream")
    except Exception:  # noqa: BLE001 — not an httpx response
        return
    _shutdown_stream(stream)


# ---------------------------------------------------------------------------------------- workers


class _Workers:
    """Long-lived daemon threads that run blocking calls (tools) one at a time each. A call gets an
    idle worker, or a new one when all are busy (an abandoned call keeps its worker until it returns);
    at most :attr:`KEEP` idle workers wait for more work, the others end. The hand-offs are
    :class:`queue.SimpleQueue` puts and gets (one wake-up each way, no condition objects built per call)."""

    KEEP = 4

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []

    def submit(self, job: Callable[[], None], name: str) -> None:
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            worker = _Worker(self)
        worker.give(job, name)

    def _done(self, worker: _Worker) -> bool:
        """A worker finished its job: True when it stays (idle), False when it ends."""
        with self._lock:
            if len(self._idle) >= self.KEEP:
                return False
            self._idle.append(worker)
            return True


class _Worker:
    def __init__(self, pool: _Workers):
        self._pool = pool
        self._jobs: queue.SimpleQueue[tuple[Callable[[], None], str]] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="worker", daemon=True)
        self._thread.start()

    def give(self, job: Callable[[], None], name: str) -> None:
        self._jobs.put((job, name))

    def _run(self) -> None:
        while True:
            job, name = self._jobs.get()
            self._thread.name = name
            job()  # never raises (run_watched's work catches everything)
            self._thread.name = "worker"
            if not self._pool._done(self):
                return


_WORKERS = _Workers()


def run_watched(
    fn: Callable[[], T],
    cancel: threading.Event | None,
    *,
    timeout_s: float | None = None,
    name: str = "watched-call",
    discard: Callable[[T], Any] | None = None,
    poll_s: float = POLL_S,
) -> tuple[Outcome, Any]:
    """``fn()`` on a long-lived worker thread, while this thread waits for it, ``cancel`` or
    ``timeout_s`` seconds (None or 0: no timeout), looking every ``poll_s`` seconds.

    Returns ``("ok", value)``, ``("error", exception)`` (any ``BaseException`` ``fn`` raised),
    ``("cancelled", None)`` or ``("timeout", None)``. On cancel or timeout the call is abandoned
    (its worker is a daemon: it never blocks the app's exit) and a result it returns later is given to
    ``discard``; a result that arrives first is always returned, never discarded.
    """
    results: queue.SimpleQueue[tuple[Outcome, Any]] = queue.SimpleQueue()
    lock = threading.Lock()
    state = {"done": False, "abandoned": False}

    def work() -> None:
        outcome: tuple[Outcome, Any]
        try:
            outcome = ("ok", fn())
        except BaseException as exc:  # noqa: BLE001 — handed to the waiting thread
            outcome = ("error", exc)
        with lock:
            state["done"] = True
            late = state["abandoned"]
        if not late:
            results.put(outcome)
        elif outcome[0] == "ok" and discard is not None:
            _quietly(discard, outcome[1])

    def give_up() -> bool:
        """Abandon the call unless it has just finished."""
        with lock:
            if state["done"]:
                return False
            state["abandoned"] = True
            return True

    _WORKERS.submit(work, name)
    deadline = time.monotonic() + timeout_s if timeout_s else None
    while True:
        wait = poll_s
        if deadline is not None:
            wait = min(wait, max(0.0, deadline - time.monotonic()))
        try:
            return results.get(timeout=wait)
        except queue.Empty:
            pass
        if cancel is not None and cancel.is_set():
            if give_up():
                return "cancelled", None
            return results.get()  # it finished meanwhile: its result is on its way
        if deadline is not None and time.monotonic() >= deadline:
            if give_up():
                return "timeout", None
            return results.get()


def _quietly(fn: Callable[[Any], Any], value: Any) -> None:
    with contextlib.suppress(Exception):  # closing an abandoned result must not raise anywhere
        fn(value)


_DONE = object()


def run_reporting(
    fn: Callable[[Callable[[R], None]], T], *, name: str = "reporting-call"
) -> Generator[R, None, T]:
    """``fn(report)`` on a long-lived worker thread while this generator yields what it reports, in order; reports
    that pile up while the consumer is busy are merged (the newest is yielded). Returns what ``fn`` returned
    (raises what it raised). ``fn`` handles its own cancel and timeout: this waits for it to end."""
    updates: queue.SimpleQueue[Any] = queue.SimpleQueue()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn(updates.put)
        except BaseException as exc:  # noqa: BLE001 — handed to the waiting thread
            box["error"] = exc
        updates.put(_DONE)

    _WORKERS.submit(work, name)
    finished = False
    while not finished:
        item, latest = updates.get(), None
        while True:
            if item is _DONE:
                finished = True
            else:
                latest = item
            try:
                item = updates.get_nowait()
            except queue.Empty:
                break
        if latest is not None and not finished:
            yield latest
    if "error" in box:
        raise box["error"]
    return box["value"]
