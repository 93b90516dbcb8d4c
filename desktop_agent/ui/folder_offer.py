""":class:`FolderOffer`: the bar above the message box that appears when a file or command tool was refused
because no folder is allowed yet, with "Allow a folder…" (a folder picker) and "Not now"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop_agent.core.events import ToolCallFinished
from desktop_agent.toolkit import NO_FOLDER_MESSAGE
from desktop_agent.ui import theme
from desktop_agent.ui.i18n import translate


class FolderOffer(QFrame):
    """Hidden until :meth:`on_tool_finished` sees a tool call refused for want of an allowed folder. ``folder_chosen``
    carries the folder the user picked (the window adds it to ``tools.allowed_folders`` and saves)."""

    folder_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("folderOffer")
        self.setAccessibleName(translate("FolderOffer", "File tools need a folder"))
        th = theme.current()
        self.setStyleSheet(f"QFrame#folderOffer {{ border: 1px solid {th.warn}; border-radius: 8px; }}")
        self.text = QLabel(translate("FolderOffer",
                "The model tried to use your files, but no folder is allowed for file and command tools "
                           "yet. Allow one and ask again."))
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.allow_button = QPushButton(translate("FolderOffer", "&Allow a folder…"))
        self.allow_button.setAccessibleName(translate("FolderOffer", "Allow a folder for file and command tools"))
        self.dismiss_button = QPushButton(translate("FolderOffer", "Not now"))
        self.dismiss_button.setAccessibleName(translate("FolderOffer", "Do not allow a folder now"))
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.allow_button)
        lay.addWidget(self.dismiss_button)
        self.allow_button.clicked.connect(lambda: self.choose())
        self.dismiss_button.clicked.connect(self.hide)
        self.hide()

    def routes(self) -> dict[type, Callable[[Any], None]]:
        """Event type → the method that takes it (:class:`~desktop_agent.ui.event_table.EventTable`)."""
        return {ToolCallFinished: self.on_tool_finished}

    def on_tool_finished(self, event: ToolCallFinished) -> None:
        """Show the bar for a tool call refused because no folder is allowed."""
        if not event.ok and NO_FOLDER_MESSAGE in (event.error or ""):
            self.show()

    def choose(self, folder: str | None = None) -> None:
        """Allow ``folder`` (default: ask for one with a folder picker); the bar hides once one is chosen."""
        if folder is None:
            folder = QFileDialog.getExistingDirectory(self, translate("FolderOffer", "Allow tools to use a folder"),
                    str(Path.home()))
        if not folder:
            return
        self.hide()
        self.folder_chosen.emit(folder)
