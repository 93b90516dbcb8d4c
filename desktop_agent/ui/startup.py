"""The window's start-up as one ordered list of stages, each timed in the log (debug level).

first frame → settings → services (the core objects, the rest of the widgets) → store and history → last chat
(the one on screen when the app was closed, reopened where it was) → server check → warm-up. The first frame
is the window's frame, built from a glance at the settings file with only PySide6 and light modules
(:class:`~desktop_agent.ui.main_window.MainWindow`); the heavy modules (pydantic, the core, the chat view) are
imported once, by the stages after it. Each stage runs in its own turn of the event
loop (single-shot timers), so what the user types or clicks is handled between them — except where a stage
runs together with the one before it (the services with the settings: nothing may act on half of them).
A stage that fails is reported like any uncaught exception; the stages after it still run.

Pure PySide6 and the standard library: imported before the first frame.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

if TYPE_CHECKING:
    from desktop_agent.core.services import Layered, Services
    from desktop_agent.core.settings_glance import SettingsGlance

log = logging.getLogger(__name__)

#: the stages after the first frame run then — or after this long, if no frame comes (never painted)
FALLBACK_MS = 2000


@dataclass(frozen=True)
class Stage:
    """One step of the start-up. ``together``: it runs in the same event-loop turn as the stage before it (no input
    is handled in between); otherwise the event loop runs first."""

    name: str
    run: Callable[[], None]
    together: bool = False


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

    def _take(self) -> Stage:
        stage = self.stages[self._next]
        self._next += 1
        return stage

    def _step(self) -> None:
        while not self._stopped and not self.done:
            stage = self._take()
            follows = not self.done and self.stages[self._next].together
            if not follows:
                QTimer.singleShot(0, self._step)  # the next stage after input — also if this one fails
                self._run(stage)
                return
            try:
                self._run(stage)
            except BaseException:
                QTimer.singleShot(0, self._step)  # the stages after it still run
                raise

    def _run(self, stage: Stage) -> None:
        t = time.perf_counter()
        try:
            stage.run()
        finally:
            ms = (time.perf_counter() - t) * 1000
            self.timings[stage.name] = ms
            log.debug("start-up: %s took %.1f ms (%.0f ms since the window was made)", stage.name, ms,
                      (time.perf_counter() - self._t0) * 1000)


def load_layered(glance: SettingsGlance, services: Services) -> Layered:
    """The "settings" stage of a window started from a glance: the settings file read with its schema and
    layered with the environment (by ``services``); the theme follows when the glance got it wrong."""
    layered = services.layered
    app = QApplication.instance()
    if layered.effective.appearance.theme != glance.appearance.theme and isinstance(app, QApplication):
        from desktop_agent.ui import theme

        theme.apply(app, layered.effective.appearance.theme)
    return layered


def warm_up_markdown() -> None:
    """The "warm-up" stage: markdown-it and Pygments, loaded before the first answer needs them."""
    try:
        from desktop_agent.ui import markdown

        markdown.warm_up()
    except ImportError:
        log.warning("markdown rendering unavailable", exc_info=True)
