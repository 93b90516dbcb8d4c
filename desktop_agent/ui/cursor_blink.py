"""The text cursor stops blinking after :data:`BLINK_TIMEOUT_MS` without input, as in GTK
(``gtk-cursor-blink-timeout``, 10 s): it stays drawn, and the idle window stops waking up twice a second
for it. A key press or a click in a watched text box, or focus moving anywhere, makes it blink again.

Qt blinks every focused text box at the application's ``cursorFlashTime``; 0 means a steady cursor. Only
the watched widgets (the compose box) and the application's ``focusChanged`` signal are looked at — not
every event of the application.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QWidget

#: how long the cursor blinks after the last input
BLINK_TIMEOUT_MS = 10_000

_INPUT = (QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.InputMethod, QEvent.Type.FocusIn)


class BlinkTimeout(QObject):
    """Steadies the application's text cursor after :data:`BLINK_TIMEOUT_MS` without input."""

    def __init__(self, app: QApplication, parent: QObject | None = None, timeout_ms: int = BLINK_TIMEOUT_MS):
        super().__init__(parent or app)
        self._app = app
        self._flash_ms = app.cursorFlashTime()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(timeout_ms)
        self._timer.timeout.connect(self._steady)
        app.focusChanged.connect(self._input)
        self._timer.start()

    @property
    def blinking(self) -> bool:
        return self._app.cursorFlashTime() > 0

    def watch(self, widget: QWidget) -> None:
        """Input in ``widget`` (and its viewport, for a text edit) restarts the blinking."""
        widget.installEventFilter(self)
        if isinstance(widget, QAbstractScrollArea):
            widget.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _INPUT:
            self._input()
        return False

    def _input(self, *_args: object) -> None:
        if self._flash_ms > 0 and self._app.cursorFlashTime() == 0:
            self._app.setCursorFlashTime(self._flash_ms)
        self._timer.start()

    def _steady(self) -> None:
        flash = self._app.cursorFlashTime()
        if flash > 0:
            self._flash_ms = flash  # the user's setting, given back on input
            self._app.setCursorFlashTime(0)
