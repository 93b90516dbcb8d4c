"""The status bar's MCP indicator: hidden without MCP servers, else "MCP: 2 servers ready", "MCP: starting…" or
"MCP: 1 of 2 servers failed" (each server's line as tooltip); a click asks for Settings → MCP servers. It follows
the assembly's servers live (their state changes arrive on the manager's thread and are queued to the GUI)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

from desktop_agent.ui import theme
from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.core.assembly import Assembly


class McpStatus(QLabel):
    """``open_requested``: the user clicked it (show the MCP servers page)."""

    open_requested = Signal()
    _changed = Signal()

    def __init__(self, assembly: Assembly, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._assembly = assembly
        self.setAccessibleName(translate("McpStatus", "MCP servers status"))
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setVisible(False)
        self._changed.connect(self.refresh, Qt.ConnectionType.QueuedConnection)
        emit = self._changed.emit
        unwatch = assembly.watch_mcp(lambda _state: emit())
        self.destroyed.connect(lambda *_: unwatch())
        self.summary = ""

    def refresh(self) -> None:
        """Show the servers' states now."""
        manager = self._assembly.current_mcp()
        states = manager.states() if manager is not None else []
        if not states:
            self.summary = ""
            self.setVisible(False)
            return
        failed = [s for s in states if s.state == "failed"]
        ready = [s for s in states if s.state == "ready"]
        t = theme.current()
        if failed:
            total = len(states)
            text, color = translate("McpStatus", "MCP: {n_failed} of %n servers failed", None, total).format(
                    n_failed=len(failed)), t.err
        elif len(ready) == len(states):
            count = len(ready)
            text = (translate("McpStatus", "MCP: %n server ready", None, count) if count == 1
                    else translate("McpStatus", "MCP: %n servers ready", None, count))
            color = t.ok
        elif any(s.state == "starting" for s in states):
            text, color = translate("McpStatus", "MCP: starting…"), t.muted
        else:
            text, color = translate("McpStatus", "MCP: {n_ready} of {n_states} servers ready").format(n_ready=len(
                    ready), n_states=len(states)), t.warn
        self.summary = text
        self.setText(f'<span style="color:{color}">●</span> {text}')
        self.setToolTip("\n".join(s.line() for s in states) + translate("McpStatus",
                "\nClick to open Settings → MCP servers."))
        self.setVisible(True)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # Qt's name
        if event.button() == Qt.MouseButton.LeftButton:
            self.open_requested.emit()
        super().mouseReleaseEvent(event)
