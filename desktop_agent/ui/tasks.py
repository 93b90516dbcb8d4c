"""The one runner for the window's background work that is not a chat turn: listing models, testing a
connection, pulling a model, importing and exporting chats.

``tasks.run(fn, on_done, on_progress=None, key=None)`` runs ``fn(task)`` on a daemon thread. ``task.report(value)``
sends progress, ``task.cancelled`` tells ``fn`` to stop early (:meth:`Task.cancel` or :meth:`TaskRunner.close`).
``on_done(result, error)`` and ``on_progress(value)`` are called on the GUI thread. With a ``key``, the latest
task of that key wins: starting a new one cancels the older one, whose results are then dropped (a task
cancelled by :meth:`Task.cancel` still delivers, so its caller can show that it stopped). After
:meth:`TaskRunner.close` nothing is delivered any more; the threads are daemons and never hold up quitting.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

log = logging.getLogger(__name__)


class Task:
    """A handle on one background call: ``fn`` reads :attr:`cancelled` and calls :meth:`report`."""

    def __init__(self, runner: TaskRunner, key: str | None, on_progress: Callable[[Any], None] | None):
        self.key = key
        self._runner = runner
        self._on_progress = on_progress
        self._cancel = threading.Event()
        #: a newer task of the same key replaced this one: its result is dropped
        self.superseded = False
        self.finished = threading.Event()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def cancel_event(self) -> threading.Event:
        """The cancel flag, for core calls that take a :class:`threading.Event`."""
        return self._cancel

    def cancel(self) -> None:
        self._cancel.set()

    def report(self, value: Any) -> None:
        """Progress for ``on_progress`` (dropped once the task is cancelled or the runner closed)."""
        if self._on_progress is not None and not self.cancelled:
            self._runner._emit_progress(self, value)


class TaskRunner(QObject):
    """Background calls with results on the GUI thread (see the module docstring)."""

    _done = Signal(object, object, object, object)
    _progress = Signal(object, object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._done.connect(self._deliver_done, Qt.ConnectionType.QueuedConnection)
        self._progress.connect(self._deliver_progress, Qt.ConnectionType.QueuedConnection)
        self._closed = False
        self._latest: dict[str, Task] = {}
        self._running: set[Task] = set()

    @property
    def running(self) -> int:
        """How many tasks have not delivered their result yet."""
        return len(self._running)

    @property
    def active(self) -> int:
        """How many tasks' functions have not returned yet (their threads still run, results delivered
        or not)."""
        return sum(1 for task in self._running if not task.finished.is_set())

    def wait(self, timeout_s: float) -> bool:
        """Block until every running task's function has returned, at most ``timeout_s`` in all (a dialog
        closing after cancelling its tasks, tests). True when they all did."""
        deadline = time.monotonic() + timeout_s
        return all(task.finished.wait(max(0.0, deadline - time.monotonic())) for task in list(self._running))

    def is_running(self, key: str) -> bool:
        task = self._latest.get(key)
        return task is not None and task in self._running

    def run(self, fn: Callable[[Task], Any], on_done: Callable[[Any, BaseException | None], None] | None = None,
            on_progress: Callable[[Any], None] | None = None, *, key: str | None = None) -> Task:
        task = Task(self, key, on_progress)
        if self._closed:
            task.cancel()
            return task
        if key is not None:
            older = self._latest.get(key)
            if older is not None:
                older.superseded = True
                older.cancel()
            self._latest[key] = task
        self._running.add(task)

        def body() -> None:
            result, error = None, None
            try:
                result = fn(task)
            except BaseException as exc:  # noqa: BLE001 - delivered to on_done, which decides what to show
                error = exc
            try:
                if not self._closed:  # after close() nothing is delivered: leave a closing runner alone
                    self._done.emit(task, on_done, result, error)
            except RuntimeError:  # the runner is gone (the app is exiting)
                pass
            finally:
                # only now: once wait() has seen every task finished, no thread touches the runner any more,
                # and its owner (a closing dialog) may be deleted
                task.finished.set()

        threading.Thread(target=body, name=f"task-{key or 'background'}", daemon=True).start()
        return task

    def cancel(self, key: str) -> None:
        task = self._latest.get(key)
        if task is not None:
            task.cancel()

    def drop(self, key: str) -> None:
        """Cancel the latest task of ``key`` and drop its result (it answers a question no longer asked,
        such as a connection test of a host that was edited since)."""
        task = self._latest.pop(key, None)
        if task is not None:
            task.superseded = True
            task.cancel()

    def _emit_progress(self, task: Task, value: Any) -> None:
        if not self._closed:
            with contextlib.suppress(RuntimeError):
                self._progress.emit(task, value)

    @Slot(object, object, object, object)
    def _deliver_done(self, task: Task, on_done: Any, result: Any, error: Any) -> None:
        self._running.discard(task)
        if task.key is not None and self._latest.get(task.key) is task:
            del self._latest[task.key]
        if self._closed or task.superseded or on_done is None:
            return
        on_done(result, error)

    @Slot(object, object)
    def _deliver_progress(self, task: Task, value: Any) -> None:
        if not self._closed and not task.superseded and task._on_progress is not None:
            task._on_progress(value)

    def close(self) -> None:
        """Cancel every task and deliver nothing more (window closing)."""
        self._closed = True
        for task in list(self._running):
            task.cancel()
