"""The status bar's server indicator: a dot and a short label — checking, online (with the server's version)
or the problem's short label from :func:`desktop_agent.ui.errors.status_label`, the full text as tooltip.

After a problem it emits ``recheck_due`` once :data:`RECHECK_MS` later: the user may be starting the server
right now. While online it emits it every :data:`ONLINE_RECHECK_MS`, so a server that went away does not stay
"online"; that quiet recheck keeps showing "Server online" until its answer (no "Checking…" flicker). An answer
of a turn while it showed no "online" shows it, and ``online_again`` asks for the models and the version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

from desktop_agent.ui import theme
from desktop_agent.ui.i18n import translate

RECHECK_MS = 20_000
ONLINE_RECHECK_MS = 30_000


class ServerStatus(QLabel):
    recheck_due = Signal()
    #: a turn was answered while the server showed a problem (or was being checked): it answers again
    online_again = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAccessibleName(translate("ServerStatus", "Server status"))
        self.setTextFormat(Qt.TextFormat.RichText)
        #: None while checking, True when the server answered, False after a problem
        self.ok: bool | None = None
        self._recheck = QTimer(self)
        self._recheck.setSingleShot(True)
        self._recheck.setInterval(RECHECK_MS)
        self._recheck.timeout.connect(self._due)
        self._online_recheck = QTimer(self)
        self._online_recheck.setSingleShot(True)
        self._online_recheck.setInterval(ONLINE_RECHECK_MS)
        self._online_recheck.timeout.connect(self._due_online)
        #: a recheck of a server that was online is starting: keep showing it online until it answers
        self._quiet = False
        self._state: tuple[bool | None, str, str] = (None, "", "")
        self.show_checking()

    def show_checking(self) -> None:
        if self._quiet and self.ok:
            return
        self._show(None, "", translate("ServerStatus", "Checking the server…"))

    def show_online(self, version: str = "") -> None:
        self._quiet = False
        self._show(True, version, translate("ServerStatus", "Server online") + (
                f" (v{version})" if version and version[0].isdigit() else ""))
        self._online_recheck.start()

    def show_problem(self, label: str, detail: str) -> None:
        self._quiet = False
        self._show(False, detail, label)
        self._recheck.start()

    def restyle(self) -> None:
        self._show(*self._state)

    def routes(self) -> dict[type, Callable[[Any], None]]:
        """Event type → the method that takes it (:class:`~desktop_agent.ui.event_table.EventTable`)."""
        from desktop_agent.core.events import AnswerFinished  # after the first frame, with the events

        return {AnswerFinished: self.on_answer}

    def on_answer(self, _event: object) -> None:
        """The server answers again (or its key works now)."""
        if self.ok is not True:
            self.show_online()
            self.online_again.emit()

    def _show(self, ok: bool | None, detail: str, text: str) -> None:
        th = theme.current()
        self.ok = ok
        self._state = (ok, detail, text)
        color = th.muted if ok is None else th.ok if ok else th.err
        self.setText(f'<span style="color:{color}">●</span> {text}')
        self.setToolTip(detail or text)
        if ok is not False:
            self._recheck.stop()
        if ok is not True:
            self._online_recheck.stop()

    def _due(self) -> None:
        if self.ok is False:
            self.recheck_due.emit()

    def _due_online(self) -> None:
        if self.ok:
            self._quiet = True  # the listing says "started" while the signal is delivered
            try:
                self.recheck_due.emit()
            finally:
                self._quiet = False
            self._online_recheck.start()  # and again later, if this one could not run now (a turn was running)
