"""The window's status bar: its messages take the room left of the permanent widgets (context meter, backend,
server) and never more — a message too long for it is elided, its whole text in the tooltip.

Qt's own status-bar message is painted across the bar and clipped, with no way to read the end of it; here a
message is a label laid out beside the permanent widgets. PySide6 only (first frame).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QSizePolicy, QStatusBar, QWidget


class ElidedLabel(QLabel):
    """One line of plain text, elided at the right to the label's width; the full text in the tooltip when cut."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(0)

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = " ".join(text.split())  # one line: a message with line breaks is shown on one
        self._fit()

    def elided(self) -> bool:
        return self.text() != self._full

    def _fit(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, max(0, self.width()))
        self.setText(shown)
        self.setToolTip(self._full if shown != self._full else "")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit()


class StatusBar(QStatusBar):
    """A status bar whose :meth:`showMessage` shows the text in an :class:`ElidedLabel` (a normal widget: the
    permanent widgets keep their room), cleared after ``timeout`` ms when one is given."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.line = ElidedLabel()
        self.line.setObjectName("statusLine")
        self.addWidget(self.line, 1)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.clearMessage)

    def showMessage(self, text: str, timeout: int = 0) -> None:  # type: ignore[override]  # Qt's has a default
        self._timer.stop()
        self.line.set_full_text(text)
        if timeout > 0 and text:
            self._timer.start(timeout)
        self.messageChanged.emit(text)

    def clearMessage(self) -> None:
        self._timer.stop()
        if self.line.full_text():
            self.line.set_full_text("")
            self.messageChanged.emit("")

    def currentMessage(self) -> str:
        return self.line.full_text()
