"""The compose area: the message box and the Send/Stop button; the window's central area around them
(:class:`ComposeArea`: the chat, the options strip, the composer); the question asked before an action
would stop an answer (:class:`StopQuestion`).

:class:`Composer` owns both and says what the user wants through two signals: ``send_requested(str)``
(Enter, or a click on Send) and ``stop_requested()`` (a click on Stop). While an answer runs the button is
Stop — but only after :data:`STOP_GUARD_MS`: a double click on Send sends once and never stops the answer it
just started.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QElapsedTimer, QSize, Qt, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.ui import icons, theme
from desktop_agent.ui.i18n import translate

#: how long after a turn starts a click on the button is still taken as part of the click that sent it
STOP_GUARD_MS = 600
#: the height of the chat's options strip (:class:`~desktop_agent.ui.chat_options.ChatOptions`), kept free
#: for it in the first frame
OPTIONS_STRIP_HEIGHT = 25


class ComposeBox(QTextEdit):
    """The input: Enter sends, Shift+Enter adds a line, Up in an empty box asks for the last message sent (to edit
    and send again); grows from 1 to 8 lines."""

    submitted = Signal(str)
    recall_requested = Signal()

    #: the box's own keys (listed in Help → Keyboard shortcuts)
    KEYS = (("Enter", QT_TRANSLATE_NOOP("Shortcuts", "Send the message")),
            ("Shift+Enter", QT_TRANSLATE_NOOP("Shortcuts", "Start a new line")),
            ("Up", QT_TRANSLATE_NOOP("Shortcuts", "Bring back your last message to edit (in an empty box)")))

    MAX_LINES = 8

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("composeBox")
        self.setAcceptRichText(False)
        self.setAccessibleName(translate("Compose", "Message input"))
        self.setPlaceholderText(translate("Compose", "Message the assistant…  (Shift+Enter: new line)"))
        self.setToolTip(translate("Compose", "Enter sends; Shift+Enter adds a line; Esc stops an answer"))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setTabChangesFocus(True)
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def _fit(self, *_args: object) -> None:
        line = self.fontMetrics().lineSpacing()
        doc_h = self.document().size().height()
        margins = self.contentsMargins().top() + self.contentsMargins().bottom()
        h = int(min(max(doc_h, line + 2 * self.document().documentMargin()), self.MAX_LINES * line + 8))
        self.setFixedHeight(h + margins)

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.textCursor().insertText("\n")
                event.accept()
                return
            if not (event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)):
                event.accept()
                self.submitted.emit(self.toPlainText())
                return
        if event.key() == Qt.Key.Key_Up and not event.modifiers() and not self.toPlainText():
            event.accept()
            self.recall_requested.emit()
            return
        super().keyPressEvent(event)

    def recall(self, text: str) -> None:
        """Put ``text`` (the last message sent) in the empty box, the cursor at its end, to edit and send."""
        self.setPlainText(text)
        self.moveCursor(QTextCursor.MoveOperation.End)


class Composer(QFrame):
    """The message box and the Send/Stop button (see the module docstring)."""

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("composer")
        self.input = ComposeBox()
        self.input.submitted.connect(self.send_requested)
        self.recall_requested = self.input.recall_requested
        self.button = QPushButton()
        self.button.setObjectName("sendButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setIconSize(QSize(16, 16))
        self.button.setMinimumWidth(92)
        self.button.clicked.connect(self._clicked)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 8, 8)
        row.setSpacing(8)
        row.addWidget(self.input, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        self._busy = False
        self._since_busy = QElapsedTimer()
        self.set_busy(False)

    @property
    def busy(self) -> bool:
        return self._busy

    def set_busy(self, busy: bool) -> None:
        """Send (idle) or Stop (an answer runs)."""
        th = theme.current()
        self._busy = busy
        if busy:
            self._since_busy.start()
            self.button.setText(translate("Compose", "Stop"))
            self.button.setIcon(icons.icon("stop", th.accent_text))
            self.button.setAccessibleName(translate("Compose", "Stop"))
            self.button.setToolTip(translate("Compose", "Stop the answer (Esc)"))
        else:
            self.button.setText(translate("Compose", "Send"))
            self.button.setIcon(icons.icon("send", th.accent_text))
            self.button.setAccessibleName(translate("Compose", "Send"))
            self.button.setToolTip(translate("Compose", "Send (Enter)"))
        shown = bool(self.button.property("stop"))  # None (False) before the first call
        self.button.setProperty("stop", busy)
        if shown != busy:  # the style sheet's [stop="true"] rule shows a change after a re-polish
            self._repolish()

    def _repolish(self) -> None:
        style = self.button.style()
        style.unpolish(self.button)
        style.polish(self.button)

    def restyle(self) -> None:
        self.set_busy(self._busy)
        self._repolish()

    def _clicked(self) -> None:
        if not self._busy:
            self.send_requested.emit(self.input.toPlainText())
        elif self._since_busy.isValid() and self._since_busy.elapsed() >= STOP_GUARD_MS:
            self.stop_requested.emit()
        # else: the second click of the double click that sent the message — not a Stop


class ComposeArea(QWidget):
    """The window's central area: the chat (an empty stand-in of its size and colour until :meth:`set_chat`),
    and below it the room of the chat's options strip (until :meth:`set_options`) above the composer."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("central")
        self.chat = QWidget()
        self.chat.setObjectName("chatRoom")
        self.composer = Composer()
        bottom = QWidget()
        bottom.setObjectName("composerArea")
        bl = QHBoxLayout(bottom)
        bl.setContentsMargins(16, 4, 16, 12)
        bl.addStretch(1)
        self.column = QVBoxLayout()
        self.column.setSpacing(6)
        #: keeps the options strip's height until the strip is built, so the composer does not move
        self.options_room = QWidget()
        self.options_room.setFixedHeight(OPTIONS_STRIP_HEIGHT)
        self.column.addWidget(self.options_room)
        self.column.addWidget(self.composer)
        holder = QWidget()
        holder.setMaximumWidth(880)
        holder.setLayout(self.column)
        self.column.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(holder, 100)
        bl.addStretch(1)
        self.lay = QVBoxLayout(self)
        self.lay.setContentsMargins(0, 0, 0, 0)
        self.lay.setSpacing(0)
        self.lay.addWidget(self.chat, 1)
        self.lay.addWidget(bottom, 0)
        self.restyle()

    def set_chat(self, chat: QWidget) -> None:
        """The chat view takes the stand-in's place."""
        self.lay.replaceWidget(self.chat, chat)
        self.chat.deleteLater()
        self.chat = chat

    def set_options(self, strip: QWidget, offer: QWidget) -> None:
        """The options strip takes its room; ``offer`` (the folder offer) goes above it."""
        self.column.replaceWidget(self.options_room, strip)
        self.options_room.deleteLater()
        self.column.insertWidget(0, offer)

    def restyle(self) -> None:
        th = theme.current()
        self.setStyleSheet(
            f"""
            QWidget#central, QWidget#composerArea, QWidget#chatRoom {{ background: {th.base}; }}
            QFrame#composer {{ background: {th.base}; border: 1px solid {th.assistant_border}; border-radius: 14px; }}
            QTextEdit#composeBox {{ background: transparent; color: {th.text}; }}
            QPushButton#sendButton {{ background: {th.accent}; color: {th.accent_text}; border: none;
                                      border-radius: 10px; padding: 7px 14px; font-weight: 600; }}
            QPushButton#sendButton:disabled {{ background: {th.faint}; color: {th.muted}; }}
            QPushButton#sendButton[stop="true"] {{ background: {th.err}; }}
            """
        )


class StopQuestion(QMessageBox):
    """"The assistant is still answering. Stop the answer and …?" — asked before an action that would end it."""

    def __init__(self, what: str, parent: QWidget):
        super().__init__(QMessageBox.Icon.Question, translate("Compose", "An answer is being written"),
                         translate("Compose", "The assistant is still answering. Stop the answer and {what}?").format(
                                 what=what),
                         QMessageBox.StandardButton.NoButton, parent)
        self.stop_button = self.addButton(translate("Compose", "Stop and {what}").format(what=what),
                QMessageBox.ButtonRole.AcceptRole)
        self.addButton(translate("Compose", "Keep the answer"), QMessageBox.ButtonRole.RejectRole)
        self.setDefaultButton(self.stop_button)
        self.setWindowModality(Qt.WindowModality.WindowModal)

    @classmethod
    def ask(cls, what: str, parent: QWidget, stop: Callable[[], None]) -> StopQuestion:
        """Open the question (not blocking); ``stop`` runs when the user says "Stop and …"."""
        box = cls(what, parent)
        box.buttonClicked.connect(lambda button: stop() if button is box.stop_button else None)
        box.open()
        return box
