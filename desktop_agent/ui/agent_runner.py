"""The ONE bridge between the window and background work.

:class:`AgentRunner` owns a :class:`QThread` and a worker :class:`QObject` moved to it. A turn is
queued to the worker, which builds the agent (backend, tools — the heavy client imports happen there,
never in the GUI thread), iterates :meth:`desktop_agent.core.agent.Agent.run` and re-emits every event
through ONE signal, :attr:`AgentRunner.event` (``Signal(object)``), delivered queued in the GUI thread.
No widget is touched from the worker.

Besides the core events (:mod:`desktop_agent.core.events`) the signal carries the runner's own:
:class:`TurnStarted` (emitted in the GUI thread when a turn is queued), :class:`ApprovalRequest` (a tool
that needs the user's consent; the worker waits for :meth:`ApprovalRequest.answer` or Stop),
:class:`TurnCrashed` (``Agent.run`` raised something that is not an ``AgentError`` — a bug) and, always
last, :class:`TurnEnded`.

Stop sets the turn's cancel :class:`threading.Event`; the agent closes the stream and yields
``TurnCancelled`` with the partial answer (status ``stopped``). :meth:`AgentRunner.shutdown` (window
closing, shared case 37-gui-qthread-destroyed-on-exit.json) marks the turn as interrupted (a partial
answer saved from then on gets status ``interrupted``), cancels, calls ``quit()`` and ``wait()``
bounded by ``timeout_s``; it never calls ``terminate()``. If the worker is stuck in a blocking call it
first closes the backend's HTTP client, and as a last resort keeps the thread object alive (see
:func:`orphaned_threads`) so that Qt never destroys a running thread.

:class:`BackgroundTasks` runs short one-off calls (listing models, pinging the server, pulling a model)
on daemon threads and delivers results/progress to the GUI thread through queued signals.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt, QThread, Signal, Slot

from desktop_agent.core.errors import AgentError
from desktop_agent.core.events import AnswerFinished, Notice, TurnCancelled, TurnFailed
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.settings import Settings

log = logging.getLogger(__name__)

# ---- the runner's own events ----------------------------------------------------------------------


@dataclass(frozen=True)
class TurnStarted:
    """A turn was queued. ``user_text`` None = retry/continue from the existing history."""

    turn_id: int
    conversation_id: str
    user_text: str | None


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


@dataclass(eq=False)
class ApprovalRequest:
    """A tool marked ``requires_approval`` wants to run. The worker waits until :meth:`answer` is
    called (GUI thread) or the turn is stopped (then it counts as denied)."""

    tool_name: str
    arguments: dict[str, Any]
    description: str = ""
    _done: threading.Event = field(default_factory=threading.Event, repr=False)
    allowed: bool | None = None

    def answer(self, allowed: bool) -> None:
        if self.allowed is None:
            self.allowed = bool(allowed)
        self._done.set()

    @property
    def answered(self) -> bool:
        return self._done.is_set()


# ---- building the agent (runs in the worker thread) -----------------------------------------------

_BACKEND_FIELDS = (
    "backend", "ollama_host", "ollama_model", "keep_alive", "format", "think", "openai_base_url",
    "openai_model", "openai_needs_key", "openai_timeout_s", "openai_retries_per_key",
    "openai_retry_interval_s", "openai_null_tool_content", "temperature",
)
_TOOL_FIELDS = ("tools_enabled", "tool_timeout_s", "tool_output_cap", "tools_dirs")


class AgentFactory:
    """Builds an :class:`~desktop_agent.core.agent.Agent` per turn, reusing the backend and the tool
    registry while the settings that shape them are unchanged. Called only from the worker thread,
    except :meth:`abort` (any thread) and :meth:`close` (after the thread has finished).

    ``backend_factory(settings, api_keys)`` defaults to :func:`desktop_agent.core.backends.create_backend`;
    ``secrets`` (a :class:`~desktop_agent.core.secrets.SecretStore`) gives the OpenAI-compatible keys.
    ``registry`` — a ready :class:`~desktop_agent.core.tooling.ToolRegistry` — replaces tool loading.
    """

    def __init__(self, secrets=None, backend_factory: Callable | None = None, registry=None):
        self.secrets = secrets
        self.backend_factory = backend_factory
        self.fixed_registry = registry
        self._backend = None
        self._backend_key: tuple | None = None
        self._registry = None
        self._registry_key: tuple | None = None
        self._approver: Callable[[Any, dict], bool] | None = None
        #: problems from tool loading not yet shown to the user
        self.pending_problems: list[str] = []
        self._lock = threading.Lock()

    def _approve(self, tool, arguments) -> bool:
        approver = self._approver
        return bool(approver(tool, arguments)) if approver else False

    def backend(self, settings: Settings):
        key = tuple(repr(getattr(settings, f)) for f in _BACKEND_FIELDS)
        if self._backend is None or key != self._backend_key:
            self._close_backend()
            keys: list[str] = []
            if settings.backend == "openai" and self.secrets is not None:
                keys = self.secrets.get_api_keys(settings.openai_base_url)
            if self.backend_factory is not None:
                backend = self.backend_factory(settings, keys)
            else:
                from desktop_agent.core.backends import create_backend

                backend = create_backend(settings, keys)
            with self._lock:
                self._backend, self._backend_key = backend, key
        return self._backend

    def registry(self, settings: Settings):
        if self.fixed_registry is not None:
            return self.fixed_registry
        if not settings.tools_enabled:
            return None
        key = tuple(repr(getattr(settings, f)) for f in _TOOL_FIELDS)
        if self._registry is None or key != self._registry_key:
            from desktop_agent.core.tool_loader import load_tools
            from desktop_agent.core.tooling import ToolRegistry

            reg = ToolRegistry(
                timeout_s=settings.tool_timeout_s, output_cap=settings.tool_output_cap, approver=self._approve
            )
            problems = load_tools(reg, extra_dirs=[*settings.tools_dirs])
            self.pending_problems.extend(problems or [])
            self._registry, self._registry_key = reg, key
        return self._registry

    def agent(self, settings: Settings, on_message=None, approver=None):
        from desktop_agent.core.agent import Agent

        self._approver = approver
        backend = self.backend(settings)
        registry = self.registry(settings)
        if registry is not None and not len(registry):
            registry = None
        return Agent.from_settings(backend, registry, settings, on_message)

    def _close_backend(self) -> None:
        with self._lock:
            backend, self._backend, self._backend_key = self._backend, None, None
        if backend is not None:
            try:
                backend.close()
            except Exception:  # closing a broken client must not stop a new one
                log.warning("closing the backend failed", exc_info=True)

    def abort(self) -> None:
        """Close the HTTP client under a blocked read (shutdown fallback; any thread)."""
        self._close_backend()

    def close(self) -> None:
        self._close_backend()


# ---- the worker -------------------------------------------------------------------------------------


@dataclass
class _Job:
    turn_id: int
    conversation: Conversation
    user_text: str | None
    settings: Settings
    on_message: Callable[[Conversation, Message], None] | None
    cancel: threading.Event = field(default_factory=threading.Event)


class _Worker(QObject):
    """Lives in the runner's QThread. Emits every event through :attr:`event`; touches no widget."""

    event = Signal(object)

    def __init__(self, factory: AgentFactory, interrupting: threading.Event):
        super().__init__()
        self.factory = factory
        self.interrupting = interrupting

    def _on_message(self, job: _Job):
        def save(conversation: Conversation, message: Message) -> None:
            if self.interrupting.is_set() and message.role == "assistant" and message.status == "stopped":
                message.status = "interrupted"  # the app is quitting, not the user pressing Stop
            if job.on_message is not None:
                job.on_message(conversation, message)

        return save

    def _approver(self, job: _Job):
        def ask(tool, arguments) -> bool:
            req = ApprovalRequest(
                getattr(tool, "name", str(tool)), dict(arguments or {}), getattr(tool, "description", "")
            )
            self.event.emit(req)
            while not req._done.wait(0.1):
                if job.cancel.is_set():
                    req.answer(False)
            return bool(req.allowed)

        return ask

    @Slot(object)
    def run_turn(self, job: _Job) -> None:
        outcome = "ended"
        try:
            agent = self.factory.agent(job.settings, self._on_message(job), self._approver(job))
            while self.factory.pending_problems:
                self.event.emit(Notice(self.factory.pending_problems.pop(0)))
            for ev in agent.run(job.conversation, job.user_text, job.cancel):
                if isinstance(ev, TurnCancelled) and self.interrupting.is_set() and ev.partial is not None:
                    if ev.partial.status == "stopped":
                        ev.partial.status = "interrupted"
                self.event.emit(ev)
                if isinstance(ev, AnswerFinished):
                    outcome = "finished"
                elif isinstance(ev, TurnFailed):
                    outcome = "failed"
                elif isinstance(ev, TurnCancelled):
                    outcome = "cancelled"
        except AgentError as exc:  # e.g. SettingsError while building the backend
            outcome = "failed"
            self.event.emit(TurnFailed(exc))
        except Exception as exc:  # a bug: the window shows the error dialog, the log has the traceback
            outcome = "crashed"
            details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            log.error("Agent.run crashed\n%s", details)
            self.event.emit(TurnCrashed(exc, details))
        finally:
            self.event.emit(TurnEnded(job.turn_id, outcome))


# ---- the runner (GUI thread) ------------------------------------------------------------------------

_orphans: list[tuple[QThread, QObject]] = []


def orphaned_threads() -> int:
    """How many worker threads did not stop within their shutdown bound (kept alive, never terminated).
    :func:`desktop_agent.ui.main_window.run_gui` exits the process without destroying them."""
    return sum(1 for thread, _ in _orphans if thread.isRunning())


class AgentRunner(QObject):
    """Runs turns on a worker thread. ``event`` carries every event (core + runner), in the GUI thread."""

    event = Signal(object)
    _submit = Signal(object)

    def __init__(self, factory: AgentFactory | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.factory = factory or AgentFactory()
        self._interrupting = threading.Event()
        self._thread: QThread | None = None
        self._worker: _Worker | None = None
        self._job: _Job | None = None
        self._ids = itertools.count(1)
        self._closed = False

    # state
    @property
    def busy(self) -> bool:
        """A turn is queued or running (until its :class:`TurnEnded` reaches the GUI thread)."""
        return self._job is not None

    @property
    def conversation(self) -> Conversation | None:
        return self._job.conversation if self._job else None

    def _ensure_thread(self) -> None:
        if self._thread is not None:
            return
        self._thread = QThread(self)
        self._thread.setObjectName("agent-worker")
        self._worker = _Worker(self.factory, self._interrupting)
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run_turn, Qt.ConnectionType.QueuedConnection)
        self._worker.event.connect(self._relay, Qt.ConnectionType.QueuedConnection)
        self._thread.start()

    def start_turn(
        self,
        conversation: Conversation,
        user_text: str | None,
        settings: Settings,
        on_message: Callable[[Conversation, Message], None] | None = None,
    ) -> int:
        """Queue a turn; returns its id. ``user_text`` None retries from the history. Raises
        RuntimeError if a turn is already running or the runner was shut down."""
        if self._closed:
            raise RuntimeError("the runner was shut down")
        if self._job is not None:
            raise RuntimeError("a turn is already running")
        self._ensure_thread()
        job = _Job(next(self._ids), conversation, user_text, settings, on_message)
        self._job = job
        self.event.emit(TurnStarted(job.turn_id, conversation.id, user_text))
        self._submit.emit(job)
        return job.turn_id

    def stop(self) -> None:
        """Ask the running turn to stop (the partial answer is kept, status ``stopped``)."""
        if self._job is not None:
            self._job.cancel.set()

    @Slot(object)
    def _relay(self, ev: object) -> None:
        if self._closed:
            return
        if isinstance(ev, TurnEnded) and self._job is not None and ev.turn_id == self._job.turn_id:
            self._job = None
        self.event.emit(ev)

    def shutdown(self, timeout_s: float = 2.5) -> bool:
        """Cancel, ``quit()``, ``wait()`` at most ``timeout_s``; never ``terminate()``. Returns True when
        the thread has finished. Idempotent. Events after this are dropped."""
        if self._closed:
            return self._thread is None or self._thread.isFinished()
        self._closed = True
        self._interrupting.set()
        if self._job is not None:
            self._job.cancel.set()
        thread = self._thread
        if thread is None:
            self.factory.close()
            return True
        deadline = time.monotonic() + timeout_s
        thread.quit()
        if not thread.wait(int(timeout_s * 600)):
            log.warning("worker did not stop after cancel; closing the backend connection")
            self.factory.abort()
            thread.wait(max(1, int((deadline - time.monotonic()) * 1000)))
        if thread.isRunning():
            log.error("worker thread still running after %.1f s; leaving it to finish on its own", timeout_s)
            self._submit.disconnect()
            thread.setParent(None)
            _orphans.append((thread, self._worker))
            return False
        self.factory.close()
        self._job = None
        return True


# ---- short background calls ---------------------------------------------------------------------------


class BackgroundTasks(QObject):
    """Run ``fn(report)`` on a daemon thread; ``on_done(result, error)`` and ``on_progress(value)`` are
    called in the GUI thread. ``report(value)`` may be called by ``fn`` any number of times. Tasks still
    running at exit never block it (daemon threads; nothing Qt-owned runs in them)."""

    _done = Signal(object, object, object)
    _progress = Signal(object, object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._done.connect(self._deliver_done, Qt.ConnectionType.QueuedConnection)
        self._progress.connect(self._deliver_progress, Qt.ConnectionType.QueuedConnection)
        self._closed = False
        self.running = 0

    def run(
        self,
        fn: Callable[[Callable[[Any], None]], Any],
        on_done: Callable[[Any, BaseException | None], None] | None = None,
        on_progress: Callable[[Any], None] | None = None,
        name: str = "background",
    ) -> threading.Thread:
        def emit_progress(value: Any) -> None:
            if on_progress is not None and not self._closed:
                try:
                    self._progress.emit(on_progress, value)
                except RuntimeError:  # the QObject is gone (app exiting)
                    pass

        def body() -> None:
            result, error = None, None
            try:
                result = fn(emit_progress)
            except BaseException as exc:  # delivered to on_done, which decides what to show
                error = exc
            if not self._closed:
                try:
                    self._done.emit(on_done, result, error)
                except RuntimeError:
                    pass

        self.running += 1
        t = threading.Thread(target=body, name=name, daemon=True)
        t.start()
        return t

    @Slot(object, object, object)
    def _deliver_done(self, on_done, result, error) -> None:
        self.running -= 1
        if not self._closed and on_done is not None:
            on_done(result, error)

    @Slot(object, object)
    def _deliver_progress(self, on_progress, value) -> None:
        if not self._closed:
            on_progress(value)

    def close(self) -> None:
        self._closed = True
