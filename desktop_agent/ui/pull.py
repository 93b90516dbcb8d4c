"""Pulling an Ollama model in the background: one :class:`PullController` per window, used by every
surface that offers a pull (the Settings dialog's "Pull a model", the chat's "Pull <model>").

Use::

    pull = PullController(assembly, tasks, parent=window)
    pull.progress.connect(show)         # (status, completed bytes | None, total bytes | None)
    pull.finished.connect(done)         # (model name)
    pull.failed.connect(show_error)     # (one line for the user)
    pull.cancelled.connect(stopped)     # ()
    pull.start(settings, "qwen3:8b")    # False when a pull already runs
    pull.cancel()                       # closes the HTTP stream; Ollama keeps what was downloaded

The backend comes from :meth:`desktop_agent.core.assembly.Assembly.one_off_backend` with the Ollama host
of ``settings``; the work runs on a :class:`~desktop_agent.ui.tasks.TaskRunner`, signals arrive on the GUI
thread. Exactly one of ``finished``, ``failed`` and ``cancelled`` ends each started pull.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import QObject, Signal

from desktop_agent.ui.errors import one_line
from desktop_agent.ui.tasks import Task, TaskRunner

if TYPE_CHECKING:
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.core.backends.ollama import OllamaBackend
    from desktop_agent.core.settings import Settings

#: seconds a pull may go without a progress line before it is reported as stalled
PULL_READ_TIMEOUT_S = 120.0
#: at most this many progress updates a second reach the GUI (every status change does)
PROGRESS_PER_SECOND = 20


class PullController(QObject):
    """Pulls one model at a time through ``assembly`` on ``tasks`` (default: a runner of its own)."""

    #: status text, bytes completed and total of the current layer (None when the server did not say)
    progress = Signal(str, object, object)
    #: the model was pulled (its name as asked for)
    finished = Signal(str)
    #: the pull failed: one line for the user
    failed = Signal(str)
    #: :meth:`cancel` stopped the pull
    cancelled = Signal()

    def __init__(self, assembly: Assembly, tasks: TaskRunner | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self._assembly = assembly
        self._tasks = tasks if tasks is not None else TaskRunner(self)
        self._task: Task | None = None
        self._model: str | None = None

    @property
    def busy(self) -> bool:
        """True from :meth:`start` until ``finished``, ``failed`` or ``cancelled`` is emitted."""
        return self._task is not None

    @property
    def model(self) -> str | None:
        """The model being pulled (None when idle)."""
        return self._model

    def start(self, settings: Settings, name: str) -> bool:
        """Pull ``name`` from the Ollama host of ``settings``. False (and nothing happens) while another
        pull runs or the name is blank."""
        name = name.strip()
        if self.busy or not name:
            return False
        target = settings.updated({"backend": "ollama", "ollama.model": name})
        assembly = self._assembly
        interval = 1.0 / PROGRESS_PER_SECOND

        def work(task: Task) -> bool:
            backend = cast("OllamaBackend", assembly.one_off_backend(target,
                    timeout_s=PULL_READ_TIMEOUT_S))
            try:
                last_sent, last_status = 0.0, None
                for step in backend.pull_model(name, task.cancel_event):
                    now = time.monotonic()
                    # a size-less step or a new status is always shown
                    if (now - last_sent >= interval or step.completed is None or step.status != last_status
                            or step.done):
                        task.report((step.status, step.completed, step.total))
                        last_sent, last_status = now, step.status
                return not task.cancelled
            finally:
                backend.close()

        def done(_result: Any, error: BaseException | None) -> None:
            self._task, self._model = None, None
            if task.cancelled:
                self.cancelled.emit()
            elif error is not None:
                self.failed.emit(one_line(error))
            else:
                self.finished.emit(name)

        self._model = name
        task = self._tasks.run(work, done, self._report)
        self._task = task
        return True

    def cancel(self) -> None:
        """Stop the running pull (its HTTP stream is closed); ``cancelled`` follows."""
        if self._task is not None:
            self._task.cancel()

    def wait(self, timeout_s: float) -> bool:
        """Block until the running pull's thread has returned, at most ``timeout_s`` (after :meth:`cancel`,
        when its owner closes). True when no pull thread runs any more."""
        task = self._task
        return task is None or task.finished.wait(timeout_s)

    def _report(self, value: tuple[str, int | None, int | None]) -> None:
        status, completed, total = value
        self.progress.emit(status, completed, total)
