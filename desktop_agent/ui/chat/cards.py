"""Inline cards in the chat: an error with its actions (Retry, Pull <model>…); the tool approval card lives in
:mod:`.approval` (imported here too)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout

from desktop_agent.ui import icons
from desktop_agent.ui.chat.approval import ApprovalCard
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.errors import ErrorView
from desktop_agent.ui.i18n import translate

__all__ = ["ApprovalCard", "ErrorCard", "inline_code"]


def inline_code(text: str) -> str:
    """Escape, and show `backticked` parts in a monospace font."""
    parts = html.escape(text).split("`")
    out = []
    for i, p in enumerate(parts):
        out.append(f"<code>{p}</code>" if i % 2 else p)
    return "".join(out)


class ErrorCard(QFrame):
    """An inline error: icon, title, the actionable text and buttons (Retry, Pull <model>…)."""

    #: one of its buttons was clicked: (ErrorAction, this card)
    error_action = Signal(object, object)
    #: Cancel was clicked while the card showed progress (a model pull)
    cancel_requested = Signal()

    #: the chat went on after this error: its Retry / Pull / Use actions would act on a later state
    stale = False

    #: actions that stay useful on an old card
    TIMELESS = ("open_settings", "new_chat")

    def __init__(self, ctx: ChatContext, info: ErrorView):
        super().__init__()
        self.info = info
        self.setObjectName("errorCard")
        self.setAccessibleName(translate("Cards", "Error: {title}").format(title=info.title))
        th = ctx.theme
        lay = QHBoxLayout(self)
        lay.setContentsMargins(14, 12, 14, 12)
        lay.setSpacing(12)
        mark = QLabel()
        color = th.warn if info.icon == "warning" else th.err
        mark.setPixmap(icons.pixmap(info.icon, 22, color, self.devicePixelRatioF()))
        mark.setAlignment(Qt.AlignmentFlag.AlignTop)
        lay.addWidget(mark)
        col = QVBoxLayout()
        col.setSpacing(6)
        self.title = QLabel(info.title)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setObjectName("errorTitle")
        self.title.setWordWrap(True)
        self.text = QLabel(inline_code(info.text))
        self.text.setObjectName("errorText")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAccessibleName(translate("Cards", "Error message"))
        col.addWidget(self.title)
        col.addWidget(self.text)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress.setTextVisible(True)
        self.progress.setMaximumWidth(360)
        self.progress.setAccessibleName(translate("Cards", "Progress"))
        col.addWidget(self.progress)
        row = QHBoxLayout()
        row.setSpacing(8)
        self.buttons: dict[str, QPushButton] = {}
        for i, action in enumerate(info.actions):
            b = QPushButton(action.label)
            b.setAccessibleName(action.label)
            b.setCursor(Qt.CursorShape.PointingHandCursor)
            if action.kind == "retry":
                b.setIcon(icons.icon("retry"))
            elif action.kind == "pull_model":
                b.setIcon(icons.icon("download"))
            elif action.kind == "open_settings":
                b.setIcon(icons.icon("settings"))
            if i == 0:
                b.setDefault(True)
            b.clicked.connect(lambda _=False, a=action: self.error_action.emit(a, self))
            row.addWidget(b)
            self.buttons[action.label] = b
        self.cancel_button = QPushButton(translate("Cards", "Cancel"))
        self.cancel_button.setAccessibleName(translate("Cards", "Cancel"))
        self.cancel_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.cancel_button.setVisible(False)
        self.cancel_button.clicked.connect(self.cancel_requested)
        row.addWidget(self.cancel_button)
        row.addStretch(1)
        col.addLayout(row)
        lay.addLayout(col, 1)

    def set_progress(self, text: str, done: int | None = None, total: int | None = None) -> None:
        """Pull progress (``done``/``total`` bytes; indeterminate when unknown)."""
        self.progress.setVisible(True)
        if total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * (done or 0) / total))
        else:
            self.progress.setRange(0, 0)
        self.progress.setFormat(text)

    def set_busy(self, busy: bool) -> None:
        """While busy (a pull runs) the actions are off and Cancel is offered; after, the progress goes."""
        for b in self.buttons.values():
            b.setEnabled(not busy and not self.stale)
        self.cancel_button.setVisible(busy)
        if not busy:
            self.progress.setVisible(False)

    def set_stale(self) -> None:
        """The conversation went on after this error (a new message was sent): Retry, Pull and Use
        would now act on the latest message, not on this one — disable them (the card and its text
        stay, so nothing is lost)."""
        self.stale = True
        for action in self.info.actions:
            b = self.buttons.get(action.label)
            if b is not None and action.kind not in self.TIMELESS:
                b.setEnabled(False)
                b.setToolTip(translate("Cards", "This error is from an earlier message; the chat has moved on."))
