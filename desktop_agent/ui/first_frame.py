"""Knowing when a window's first frame is on screen: :func:`after_first_frame` runs a callback once it has
been painted and handed to the window system.

Qt paints a newly shown window while it handles the window's first *expose* event (the platform saying
"this window is visible now"): every widget is painted and the frame is flushed before the handler returns.
A filter on the window's ``QWindow`` lets that handling run first and calls ``then`` right after (the
first such event during which the widget was painted: on some platforms a paint event follows the
expose and does the painting).

With ``DESKTOP_AGENT_BENCH_FIRST_PAINT=FILE`` in the environment the moment (``time.monotonic()``, one
clock for every process on Linux) is also written to ``FILE`` — what ``bench/start_*.py`` measure. The
bench's bare-window script loads this file by its path, so both are timed by the same code. Only PySide6
and the standard library are imported here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QWindow
from PySide6.QtWidgets import QWidget

BENCH_ENV = "DESKTOP_AGENT_BENCH_FIRST_PAINT"


def bench_asks(env: str) -> bool:
    """True when a benchmark set ``env`` (the file it wants a moment written to)."""
    return bool(os.environ.get(env))


def note_for_bench(moment: float | None = None, env: str = BENCH_ENV) -> None:
    """Write ``moment`` (default: now) to the file named by the environment variable ``env``, when it is set."""
    path = os.environ.get(env)
    if not path:
        return
    moment = time.monotonic() if moment is None else moment
    try:
        with open(f"{path}.part", "w", encoding="utf-8") as f:
            f.write(repr(moment))
        os.replace(f"{path}.part", path)  # the bench never reads half a number
    except OSError:  # a bench helper must never stop the app
        pass


class _FirstFrame(QObject):
    """Filters a ``QWindow``'s events until the first expose or paint event during which its widget was
    painted: handles that event itself (the frame is painted and flushed), then calls what waits for it and
    goes away. Platforms differ in which of the two events paints (offscreen: the expose)."""

    def __init__(self, widget: QWidget, window: QWindow):
        super().__init__(window)
        self._widget = widget
        self._then: list[Callable[[], None]] | None = []
        self._painted = False
        widget.installEventFilter(self)
        window.installEventFilter(self)

    @classmethod
    def of(cls, widget: QWidget, window: QWindow) -> _FirstFrame:
        """The one watcher of ``window`` (a second filter would see no expose: the first one handles it)."""
        for child in window.findChildren(cls):
            if child._then is not None:
                return child
        return cls(widget, window)

    def add(self, then: Callable[[], None]) -> None:
        if self._then is not None:
            self._then.append(then)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self._widget:
            if kind == QEvent.Type.Paint:
                self._painted = True
            return False
        if self._then is None or kind not in (QEvent.Type.Expose, QEvent.Type.Paint):
            return False
        if not isinstance(watched, QWindow):
            return False
        self._painted = False
        watched.event(event)  # Qt paints the widgets and flushes the frame in here (when it paints at all)
        if self._painted:
            watched.removeEventFilter(self)
            self._widget.removeEventFilter(self)
            waiting, self._then = self._then, None
            self.deleteLater()
            for then in waiting:
                then()
        return True  # handled above


def after_first_frame(widget: QWidget, then: Callable[[], None]) -> None:
    """Call ``then`` once the top-level ``widget``'s first frame has been painted (call it right after
    ``show()``, or from the first ``showEvent``). The moment is noted for the bench (:func:`note_for_bench`)."""
    handle = widget.windowHandle()
    if handle is None:  # pragma: no cover - a shown top-level widget always has one
        then()
        return
    watcher = _FirstFrame.of(widget, handle)
    if watcher._then == []:
        watcher.add(note_for_bench)
    watcher.add(then)
