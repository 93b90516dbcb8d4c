"""The ONE bridge that runs a :class:`~desktop_agent.core.session.ChatSession` turn on the worker thread.

:class:`AgentRunner` owns a :class:`QThread` and a worker :class:`QObject` moved to it. A turn is queued to
the worker, which asks the :class:`~desktop_agent.core.assembly.Assembly` for the agent of the turn's settings
— the window's with the chat's own options applied (:meth:`~desktop_agent.core.session.ChatSession.effective`);
the heavy client imports happen there, never in the GUI thread —, iterates the session's ``run_turn`` and
re-emits every event through ONE signal, :attr:`AgentRunner.turn_event` (``Signal(object)``), delivered in the
GUI thread. No widget is touched from the worker, and no widget method runs there. The worker queues its events
(:class:`_EventQueue`) and wakes the GUI thread once for all that queued meanwhile; streamed text is handed over
every :attr:`AgentRunner.batch_ms` (the chat view's frame interval), consecutive pieces joined into one
``TextDelta`` (or ``ThinkingDelta``): a model streaming 500 tokens/s costs the GUI thread one wake-up a frame,
not 500. While text flows, the GUI thread's batch timer collects it and the worker wakes nobody; any other event
wakes the GUI thread at once and is handed over in order.

Besides the core events (:mod:`desktop_agent.core.events`) the signal carries the runner's own:
:class:`TurnStarted` (emitted in the GUI thread when a turn is queued), :class:`ApprovalRequest` (the core's
:class:`~desktop_agent.core.tools.permissions.PermissionRequest`: a tool call the permission engine asks the user
about; the worker waits for its ``answer`` (Allow once / for this chat / always / Deny), Stop, or a rule saved
meanwhile that decides it — it is the session's asker),
:class:`TurnCrashed` (the turn raised something that is not an ``AgentError`` — a bug) and, always last,
:class:`TurnEnded`.

Stop sets the turn's cancel :class:`threading.Event`; the agent closes the stream and yields
``TurnCancelled`` with the partial answer (status ``stopped``). :meth:`AgentRunner.shutdown` (window
closing) marks the session as interrupted (a partial answer saved from then on gets status
``interrupted``), cancels, calls ``quit()`` and ``wait()`` bounded by ``timeout_s``; it never calls
``terminate()`` — Qt must never destroy a running thread. If the worker is stuck in a blocking call it
first closes the backend's HTTP client, and as a last resort keeps the thread object alive (see
:func:`orphaned_threads`).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import traceback
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Qt, QThread, QTimer, Signal, Slot

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.errors import AgentError
from desktop_agent.core.events import AnswerFinished, Notice, TextDelta, ThinkingDelta, TurnCancelled, TurnFailed
from desktop_agent.core.messages import Attachment
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.permissions import Answer, PermissionRequest

log = logging.getLogger(__name__)

# ---- the runner's own events ----------------------------------------------------------------------


@dataclass(frozen=True)
class TurnStarted:
    """A turn was queued. ``user_text`` None = retry/continue from the existing history. ``compact``: not a
    turn but summarising the chat's earlier messages (:meth:`ChatSession.compact`). ``attachments``: the files
    attached to the user's message."""

    turn_id: int
    conversation_id: str
    user_text: str | None
    compact: bool = False
    attachments: tuple[Attachment, ...] = ()


@dataclass(frozen=True)
class TurnEnded:
    """Always the last event of a turn. ``outcome``: finished / failed / cancelled / crashed / ended."""

    turn_id: int
    outcome: str


@dataclass(frozen=True)
class TurnCrashed:
    """``Agent.run`` raised an exception that is not an :class:`AgentError` (a bug). ``details`` is the
    formatted traceback for the error dialog and the log."""

    error: BaseException
    details: str


#: a tool call waiting for the user's answer (the core's request; the card answers it)
ApprovalRequest = PermissionRequest


# ---- the worker -------------------------------------------------------------------------------------

#: streamed text reaches the GUI thread at most this often (ms) until the chat view sets its frame interval
#: (:meth:`AgentRunner.set_batch_ms`)
DELTA_BATCH_MS = 33

_DELTAS = (TextDelta, ThinkingDelta)


def join_deltas(events: list[object]) -> list[object]:
    """``events`` with each run of consecutive ``TextDelta`` (or ``ThinkingDelta``) joined into one."""
    out: list[object] = []
    for ev in events:
        last = out[-1] if out else None
        if isinstance(ev, _DELTAS) and isinstance(last, _DELTAS) and type(last) is type(ev):
            out[-1] = type(ev)(last.text + ev.text)
        else:
            out.append(ev)
    return out


class _EventQueue:
    """The worker's events on their way to the GUI thread. :meth:`put` (worker) says whether the GUI thread
    must be woken: for every event that is not streamed text (it must not wait for the batch), and for streamed
    text only when the GUI thread is not going to look anyway — a :meth:`take` that found streamed text means
    it will, in one batch time (its batch timer runs while text flows: one wake-up a frame)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: list[object] = []
        self._woken = False

    def put(self, ev: object) -> bool:
        with self._lock:
            self._events.append(ev)
            wake = not self._woken or not isinstance(ev, _DELTAS)
            self._woken = True
        return wake

    def urgent(self) -> bool:
        """Something besides streamed text is waiting."""
        with self._lock:
            return any(not isinstance(ev, _DELTAS) for ev in self._events)

    def take(self) -> list[object]:
        """All queued events. When they hold streamed text, the caller looks again in one batch time (and
        the worker wakes nobody for more text meanwhile); when not, the next event wakes the GUI thread."""
        with self._lock:
            events, self._events = self._events, []
            self._woken = any(isinstance(ev, _DELTAS) for ev in events)
        return events


@dataclass
class _Job:
    turn_id: int
    session: ChatSession
    user_text: str | None
    settings: Settings
    cancel: threading.Event = field(default_factory=threading.Event)
    compact: bool = False
    attachments: tuple[Attachment, ...] = ()


class _Worker(QObject):
    """Lives in the runner's QThread. Puts every event in :attr:`queue` and wakes the GUI thread with
    :attr:`ready` when it must look; touches no widget."""

    ready = Signal()

    def __init__(self, assembly: Assembly):
        super().__init__()
        self.assembly = assembly
        self.queue = _EventQueue()

    def _emit(self, ev: object) -> None:
        if self.queue.put(ev):
            self.ready.emit()

    def _ask(self, request: PermissionRequest) -> Answer | None:
        """The session's asker: show the request (the window draws a card); the engine waits for its answer."""
        self._emit(request)
        return None

    @Slot(object)
    def run_turn(self, job: _Job) -> None:
        outcome = "ended"
        try:
            settings = job.session.effective(job.settings)  # the chat's own options over the defaults
            job.session.asker = self._ask
            if not job.compact:  # a message sent while MCP servers start waits for their tools (Stop ends it)
                for notice in self.assembly.wait_for_mcp(settings, job.cancel):
                    self._emit(notice)
            job.session.agent = self.assembly.agent(settings)
            while self.assembly.pending_problems:
                self._emit(Notice(self.assembly.pending_problems.pop(0)))
            events = (job.session.compact(job.cancel) if job.compact
                      else job.session.run_turn(job.user_text, job.cancel, job.attachments))
            for ev in events:
                self._emit(ev)
                if isinstance(ev, AnswerFinished):
                    outcome = "finished"
                elif isinstance(ev, TurnFailed):
                    outcome = "failed"
                elif isinstance(ev, TurnCancelled):
                    outcome = "cancelled"
        except AgentError as exc:  # e.g. SettingsError while building the backend
            outcome = "failed"
            self._emit(TurnFailed(exc))
        except Exception as exc:  # noqa: BLE001 - a bug: the window shows the error dialog, the log its traceback
            outcome = "crashed"
            details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            log.error("the turn crashed\n%s", details)
            self._emit(TurnCrashed(exc, details))
        finally:
            self._emit(TurnEnded(job.turn_id, outcome))


# ---- the runner (GUI thread) ------------------------------------------------------------------------

_orphans: list[tuple[QThread, QObject | None]] = []


def orphaned_threads() -> int:
    """How many worker threads did not stop within their shutdown bound (kept alive, never terminated).
    :func:`desktop_agent.ui.application.run_gui` exits the process without destroying them."""
    return sum(1 for thread, _ in _orphans if thread.isRunning())


class AgentRunner(QObject):
    """Runs turns on a worker thread. ``event`` carries every event (core + runner), in the GUI thread."""

    turn_event = Signal(object)
    _submit = Signal(object)

    def __init__(self, assembly: Assembly | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.assembly = assembly or Assembly()
        self._thread: QThread | None = None
        self._worker: _Worker | None = None
        self._job: _Job | None = None
        self._ids = itertools.count(1)
        self._closed = False
        self._last_hand_over = 0.0
        self._handing: deque[object] = deque()
        #: ms between two hand-overs of streamed text (:meth:`set_batch_ms`)
        self.batch_ms: float = DELTA_BATCH_MS
        #: hands the queued streamed text over when its batch time is up; while text flows it runs after
        #: every hand-over that carried text (the queue then wakes nobody for more text)
        self._batch = QTimer(self)
        self._batch.setSingleShot(True)
        self._batch.timeout.connect(self._hand_over)

    # state
    @property
    def busy(self) -> bool:
        """A turn is queued or running (until its :class:`TurnEnded` reaches the GUI thread)."""
        return self._job is not None

    @property
    def session(self) -> ChatSession | None:
        """The session whose turn is running."""
        return self._job.session if self._job else None

    def _ensure_thread(self) -> None:
        if self._thread is not None:
            return
        self._thread = QThread(self)
        self._thread.setObjectName("agent-worker")
        self._worker = _Worker(self.assembly)
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run_turn, Qt.ConnectionType.QueuedConnection)
        self._worker.ready.connect(self._on_ready, Qt.ConnectionType.QueuedConnection)
        self._thread.start()

    def start_turn(
        self,
        session: ChatSession,
        user_text: str | None,
        settings: Settings,
        *,
        compact: bool = False,
        attachments: Sequence[Attachment] = (),
    ) -> int:
        """Queue a turn; returns its id. ``user_text`` None retries from the history; ``compact``: summarise the
        chat's earlier messages instead. Raises RuntimeError if a turn is already running or the runner was
        shut down."""
        if self._closed:
            raise RuntimeError("the runner was shut down")
        if self._job is not None:
            raise RuntimeError("a turn is already running")
        self._ensure_thread()
        job = _Job(next(self._ids), session, user_text, settings, compact=compact, attachments=tuple(attachments))
        self._job = job
        self.turn_event.emit(TurnStarted(job.turn_id, session.id, user_text, compact, job.attachments))
        self._submit.emit(job)
        return job.turn_id

    def stop(self) -> None:
        """Ask the running turn to stop (the partial answer is kept, status ``stopped``)."""
        if self._job is not None:
            self._job.cancel.set()

    def cancel_tool_call(self, call_id: str) -> bool:
        """Cancel one tool call of the running turn (the turn goes on); False when it is not running."""
        job = self._job
        return job.session.cancel_tool_call(call_id) if job is not None else False

    @Slot(float)
    def set_batch_ms(self, ms: float) -> None:
        """Hand streamed text over every ``ms`` (the chat view's frame interval: one hand-over a frame)."""
        self.batch_ms = max(1.0, ms)

    @Slot()
    def _on_ready(self) -> None:
        """The worker queued events: hand them over now, or — only streamed text, and the last hand-over was
        less than :attr:`batch_ms` ago — when that time is up."""
        if self._worker is None or self._closed:
            return
        wait_ms = self.batch_ms - (time.monotonic() - self._last_hand_over) * 1000
        if wait_ms <= 0 or self._worker.queue.urgent():
            self._hand_over()
        elif not self._batch.isActive():
            self._batch.start(max(1, int(wait_ms)))

    def _hand_over(self) -> None:
        self._batch.stop()
        if self._worker is None:
            return
        self._last_hand_over = time.monotonic()
        events = self._worker.queue.take()
        if any(isinstance(ev, _DELTAS) for ev in events):  # text flows: look again in one batch time
            self._batch.start(max(1, round(self.batch_ms)))
        # one list shared by nested calls (a handler may run a nested event loop, e.g. a dialog): the events
        # keep their order either way
        self._handing.extend(join_deltas(events))
        while self._handing:
            self._relay(self._handing.popleft())

    def _relay(self, ev: object) -> None:
        if self._closed:
            return
        if isinstance(ev, TurnEnded) and self._job is not None and ev.turn_id == self._job.turn_id:
            self._job = None
        self.turn_event.emit(ev)

    def shutdown(self, timeout_s: float = 2.5) -> bool:
        """Cancel, ``quit()``, ``wait()`` at most ``timeout_s``; never ``terminate()``. Returns True when
        the thread has finished. Idempotent. Events after this are dropped."""
        if self._closed:
            return self._thread is None or self._thread.isFinished()
        self._closed = True
        if self._job is not None:
            self._job.session.interrupting.set()
            self._job.cancel.set()
        thread = self._thread
        if thread is None:
            self.assembly.close()
            return True
        deadline = time.monotonic() + timeout_s
        thread.quit()
        if not thread.wait(int(timeout_s * 600)):
            log.warning("worker did not stop after cancel; closing the backend connection")
            self.assembly.abort()
            thread.wait(max(1, int((deadline - time.monotonic()) * 1000)))
        if thread.isRunning():
            log.error("worker thread still running after %.1f s; leaving it to finish on its own", timeout_s)
            self._submit.disconnect()
            thread.setParent(None)
            _orphans.append((thread, self._worker))
            return False
        self.assembly.close()
        self._job = None
        return True
