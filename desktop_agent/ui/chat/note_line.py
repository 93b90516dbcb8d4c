"""A note about the chat itself, one small centred line between its messages: "Model: a → b", "System prompt
changed: …" (a ``kind="note"`` message: kept with the chat, never sent to the model)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel

from desktop_agent.core.epoch import format_epoch
from desktop_agent.core.messages import Message
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.i18n import translate


class NoteLine(QFrame):
    """``message``: a ``kind="note"`` message, shown as a muted line between hairlines."""

    def __init__(self, ctx: ChatContext, message: Message):
        super().__init__()
        self.message = message
        self.setObjectName("noteLine")
        th = ctx.theme
        self.setAccessibleName(translate("NoteLine", "Chat note: {text}").format(text=message.content))
        lay = QHBoxLayout(self)
        lay.setContentsMargins(24, 2, 24, 2)
        lay.setSpacing(10)
        for side in ("left", "right"):
            rule = QFrame()
            rule.setObjectName(f"noteRule_{side}")
            rule.setFixedHeight(1)
            rule.setStyleSheet(f"background: {th.faint};")
            lay.addWidget(rule, 1, Qt.AlignmentFlag.AlignVCenter)
            if side == "left":
                self.label = QLabel(" ".join(message.content.split()))
                self.label.setObjectName("noteText")
                self.label.setStyleSheet(f"color: {th.muted}; font-size: 11px;")
                self.label.setTextFormat(Qt.TextFormat.PlainText)
                self.label.setWordWrap(True)
                self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
                self.label.setMaximumWidth(520)
                # one line when it fits (a wrapping label would otherwise take the narrowest width it can)
                self.label.setMinimumWidth(min(self.label.fontMetrics().horizontalAdvance(self.label.text()) + 6, 440))
                when = format_epoch(message.created_at)
                self.label.setToolTip(translate("NoteLine", "{text}\n{when} · not sent to the model").format(
                        text=message.content, when=when))
                lay.addWidget(self.label, 0)
