"""The window's start-up as one ordered list of stages, each timed in the log (debug level).

first frame → settings → services (the core objects, the rest of the widgets) → store and history → last chat
(the one on screen when the app was closed, reopened where it was) → server check → warm-up. The first frame
is the window's frame, built from a glance at the settings file with only PySide6 and light modules
(:class:`~desktop_agent.ui.main_window.MainWindow`); the heavy modules (pydantic, the core, the chat view) are
imported once, by the stages after it. Each stage runs in its own turn of the event
loop (single-shot timers), so what the user types or clicks is handled between them — except where a stage
runs together with the one before it (the services with the settings: nothing may act on half of them).
A stage's work that is not Qt work — importing its modules, reading the settings file, markdown's warm-up — is
its ``background``: run first on the app's task runner (:mod:`desktop_agent.ui.tasks`), the event loop free
meanwhile, and only then its ``run`` in the GUI thread (issue 23: the window responds while it starts). A
background is a head start, never required: what it did not do (it failed, or a stage was run at once by
:meth:`Startup.run_through`) the stage's ``run`` does itself.
A stage that fails is reported like any uncaught exception; the stages after it still run.

With ``DESKTOP_AGENT_BENCH_RESPONDS=FILE`` in the environment, once the start is over, the moment from which on
the event loop was never held up longer than :data:`STALL_MS` — a key or a click is handled at once from then
on — is written to ``FILE`` (``bench/start_first_frame.py``: "the window responds"); a 10 ms timer watches the
loop meanwhile (only then).

Pure PySide6 and the standard library: imported before the first frame.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

from desktop_agent.ui.first_frame import bench_asks, note_for_bench

if TYPE_CHECKING:
    from desktop_agent.core.services import Layered, Services
    from desktop_agent.core.settings_glance import SettingsGlance
    from desktop_agent.ui.tasks import TaskRunner

log = logging.getLogger(__name__)

#: the stages after the first frame run then — or after this long, if no frame comes (never painted)
FALLBACK_MS = 2000

#: the bench's file for the moment the window responds (see the module docstring)
RESPONDS_ENV = "DESKTOP_AGENT_BENCH_RESPONDS"
#: a hold-up of the event loop longer than this is felt (a key or a click waits)
STALL_MS = 50


@dataclass(frozen=True)
class Stage:
    """One step of the start-up. ``together``: it runs in the same event-loop turn as the stage before it (no input
    is handled in between); otherwise the event loop runs first."""

    name: str
    run: Callable[[], None]
    together: bool = False
    #: its work that is not Qt work, run on a background thread before ``run`` (see the module docstring)
    background: Callable[[], None] | None = None


class Startup(QObject):
    """Runs ``stages`` in order, once each: :meth:`run_through` at once (a window given its settings builds
    its services before it shows), :meth:`start` for the rest (after the first frame), one event-loop turn apiece
    unless a stage runs ``together`` with the one before."""

    def __init__(self, stages: list[Stage], parent: QObject | None = None):
        super().__init__(parent)
        self.stages = stages
        self._next = 0
        self._started = False
        self._stopped = False
        self._t0 = time.perf_counter()
        #: stage name → its time in ms, in the order they ran
        self.timings: dict[str, float] = {}
        #: stages whose background has run (or failed, or is no longer waited for)
        self._prepared: set[str] = set()
        self._tasks: TaskRunner | None = None
        self._watch: _LoopWatch | None = None

    def reached(self, name: str) -> bool:
        """Whether stage ``name`` has run."""
        return name in self.timings

    @property
    def done(self) -> bool:
        return self._next >= len(self.stages)

    def run_through(self, name: str) -> None:
        """Run every stage not run yet up to and including ``name``, now."""
        while not self._stopped and not self.done:
            stage = self._take()
            self._run(stage)
            if stage.name == name:
                return

    def start(self) -> None:
        """Run the stages left, one event-loop turn apiece: the first stage of all in this turn (the first
        frame's), a stage after one already run (:meth:`run_through`) in the next. Idempotent."""
        if self._started or self._stopped:
            return
        self._started = True
        if bench_asks(RESPONDS_ENV):
            self._watch = _LoopWatch(self)
        if self._next == 0:
            self._step()
        else:
            QTimer.singleShot(0, self._step)

    def add(self, stage: Stage, *, after: str) -> None:
        """Put ``stage`` right after the stage named ``after`` (one not run yet: run in its place in the order)."""
        index = next(i for i, s in enumerate(self.stages) if s.name == after) + 1
        self.stages.insert(max(index, self._next), stage)

    def start_later(self, ms: int | None = None) -> None:
        """:meth:`start` after ``ms`` (default :data:`FALLBACK_MS`) if nothing started it before (a window that
        is never painted)."""
        QTimer.singleShot(FALLBACK_MS if ms is None else ms, self.start)

    def stop(self) -> None:
        """No stage runs any more (the window is closing)."""
        self._stopped = True
        if self._tasks is not None:
            self._tasks.close()

    def _take(self) -> Stage:
        stage = self.stages[self._next]
        self._next += 1
        return stage

    def _group(self) -> list[Stage]:
        """The next stage and those that run together with it."""
        group = [self.stages[self._next]]
        for stage in self.stages[self._next + 1:]:
            if not stage.together:
                break
            group.append(stage)
        return group

    def _prepare(self) -> bool:
        """Start the backgrounds of the next group of stages, when they have not run: True when the group must
        wait for them (:meth:`_step` comes again once they are done)."""
        group = self._group()
        work = [s for s in group if s.background is not None and s.name not in self._prepared]
        if not work:
            return False
        if self._tasks is None:
            from desktop_agent.ui.tasks import TaskRunner

            self._tasks = TaskRunner(self)
        names = [s.name for s in work]
        t = time.perf_counter()

        def background(_task) -> None:
            for stage in work:
                assert stage.background is not None
                stage.background()

        def done(_result, error: BaseException | None) -> None:
            if error is not None:  # the stage's run does the work itself (and reports what fails)
                log.warning("start-up: the background of %s failed", ", ".join(names), exc_info=error)
            log.debug("start-up: the background of %s took %.1f ms", ", ".join(names), (time.perf_counter() - t) * 1000)
            self._prepared.update(names)
            self._step()

        self._tasks.run(background, done)
        return True

    def _step(self) -> None:
        if not self._stopped and not self.done and self._prepare():
            return  # the loop is free while the background runs
        while not self._stopped and not self.done:
            stage = self._take()
            follows = not self.done and self.stages[self._next].together
            if not follows:
                QTimer.singleShot(0, self._step)  # the next stage after input — also if this one fails
                self._run(stage)
                if self.done:
                    QTimer.singleShot(0, self._responds)
                return
            try:
                self._run(stage)
            except BaseException:
                QTimer.singleShot(0, self._step)  # the stages after it still run
                raise

    def _responds(self) -> None:
        """The start is over and the loop has handled what was queued meanwhile: the window responds."""
        log.debug("start-up: over, the window responds (%.0f ms since the window was made)",
                  (time.perf_counter() - self._t0) * 1000)
        if self._watch is not None:
            note_for_bench(self._watch.stop(), env=RESPONDS_ENV)

    def _run(self, stage: Stage) -> None:
        self._prepared.add(stage.name)  # a background not run by now is not waited for
        t = time.perf_counter()
        try:
            stage.run()
        finally:
            ms = (time.perf_counter() - t) * 1000
            self.timings[stage.name] = ms
            log.debug("start-up: %s took %.1f ms (%.0f ms since the window was made)", stage.name, ms,
                      (time.perf_counter() - self._t0) * 1000)


class _LoopWatch(QObject):
    """For the bench: a 10 ms timer that notes the moment after the event loop's last hold-up over
    :data:`STALL_MS` (the first tick when there was none)."""

    def __init__(self, parent: QObject):
        super().__init__(parent)
        self._last = self.free_since = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._timer.start(10)

    def _tick(self) -> None:
        now = time.monotonic()
        if (now - self._last) * 1000 > STALL_MS + 10:
            self.free_since = now
            log.debug("start-up: the event loop was held up %.0f ms", (now - self._last) * 1000)
        self._last = now

    def stop(self) -> float:
        self._tick()
        self._timer.stop()
        return self.free_since


def load_layered(glance: SettingsGlance, services: Services) -> Layered:
    """The "settings" stage of a window started from a glance: the settings file read with its schema and
    layered with the environment (by ``services``); the theme follows when the glance got it wrong."""
    layered = services.layered
    app = QApplication.instance()
    if layered.effective.appearance.theme != glance.appearance.theme and isinstance(app, QApplication):
        from desktop_agent.ui import theme

        theme.apply(app, layered.effective.appearance.theme)
    return layered


def import_modules(*names: str) -> None:
    """Import modules (a stage's background: the import costs are paid off the GUI thread)."""
    import importlib

    for name in names:
        importlib.import_module(name)


def warm_up_markdown() -> None:
    """The "warm-up" stage's background: markdown-it and Pygments loaded and a first render made (pure Python,
    no Qt), before the first answer needs them."""
    try:
        from desktop_agent.ui import markdown

        markdown.warm_up()
    except ImportError:
        log.warning("markdown rendering unavailable", exc_info=True)


#: the modules the "services" stage builds its widgets from (imported by the "settings" stage's background)
SERVICES_MODULES = ("desktop_agent.core.assembly", "desktop_agent.core.secrets", "desktop_agent.core.state",
                    "desktop_agent.core.capabilities", "desktop_agent.core.backends.keypool",
                    "desktop_agent.ui.controller", "desktop_agent.ui.chat.view", "desktop_agent.ui.chat_options",
                    "desktop_agent.ui.folder_offer", "desktop_agent.ui.mcp_status", "desktop_agent.ui.attachment_strip",
                    "desktop_agent.ui.notify", "desktop_agent.ui.tray")
#: the modules of the "store and history" stage
STORE_MODULES = ("desktop_agent.core.store", "desktop_agent.core.store.rules", "desktop_agent.ui.history.panel")


class SettingsAhead:
    """The "settings" stage's background: for a window started from a glance (``wanted()``), the services made
    and the settings file read (:attr:`services`, None until then); the services stage's modules imported."""

    def __init__(self, wanted: Callable[[], bool]):
        self._wanted = wanted
        self.services: Services | None = None

    def __call__(self) -> None:
        if self._wanted():
            from desktop_agent.core.services import Services

            services = Services()
            services.layered  # noqa: B018 — read now, off the GUI thread
            self.services = services
        import_modules(*SERVICES_MODULES)


def store_ahead() -> None:
    """The "store and history" stage's background: its modules imported."""
    import_modules(*STORE_MODULES)


#: the last stage: markdown's warm-up, all of it off the GUI thread
WARM_UP = Stage("warm-up", lambda: None, background=warm_up_markdown)
