"""The card of a summary of earlier messages (a compaction): collapsed to one line, it opens to the summary the
model wrote; Undo sends the messages it stands for again."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout

from desktop_agent.core.messages import Message
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.chat.widgets import button_text
from desktop_agent.ui.i18n import translate


def summary_title(message: Message) -> str:
    n = message.covers or 0
    if n == 1:
        return translate("SummaryCard", "Summary of the first %n message — sent to the model instead of it", None, n)
    return translate("SummaryCard", "Summary of the first %n messages — sent to the model instead of them", None, n)


class SummaryCard(QFrame):
    """``message``: a ``kind="summary"`` message. :attr:`undo_requested` carries it when Undo is pressed."""

    undo_requested = Signal(object)

    def __init__(self, ctx: ChatContext, message: Message):
        super().__init__()
        self.message = message
        self.setObjectName("summaryCard")
        self.setAccessibleName(translate("SummaryCard", "Summary of earlier messages"))
        th = ctx.theme
        self.setStyleSheet(f"QFrame#summaryCard {{ background: {th.code_bg}; border: 1px dashed {th.muted}; "
                           "border-radius: 12px; }")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 8, 12, 8)
        lay.setSpacing(6)
        row = QHBoxLayout()
        self.toggle = QToolButton()
        self.toggle.setObjectName("summaryToggle")
        self.toggle.setCheckable(True)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setText(button_text(summary_title(message)))
        self.toggle.setStyleSheet(f"QToolButton {{ border: none; color: {th.text}; font-weight: 600; }}")
        self.toggle.setAccessibleName(translate("SummaryCard", "Show the summary"))
        self.toggle.toggled.connect(self._set_open)
        row.addWidget(self.toggle, 1)
        self.undo = QPushButton(translate("SummaryCard", "Undo"))
        self.undo.setToolTip(translate("SummaryCard", "Send the earlier messages again instead of this summary"))
        self.undo.setAccessibleName(translate("SummaryCard", "Undo the summary"))
        self.undo.clicked.connect(lambda: self.undo_requested.emit(self.message))
        row.addWidget(self.undo)
        lay.addLayout(row)
        self.body = QLabel(message.content)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setStyleSheet(f"color: {th.text};")
        self.body.setVisible(False)
        lay.addWidget(self.body)
        self.note = QLabel(translate("SummaryCard",
                "The messages above stay in the chat (and in search and exports); the model gets this "
                           "summary instead."))
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {th.muted}; font-size: 11px;")
        self.note.setVisible(False)
        lay.addWidget(self.note)

    @property
    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def _set_open(self, on: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.toggle.setAccessibleName(translate("SummaryCard", "Hide the summary") if on else translate("SummaryCard",
                "Show the summary"))
        self.body.setVisible(on)
        self.note.setVisible(on)
