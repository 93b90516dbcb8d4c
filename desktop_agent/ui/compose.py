"""The compose area: the message box and the Send/Stop button; the window's central area around them
(:class:`ComposeArea`: the chat, the options strip, the composer); the question asked before an action
would stop an answer (:class:`StopQuestion`).

:class:`Composer` owns both and says what the user wants through two signals: ``send_requested(str)``
(Enter, or a click on Send) and ``stop_requested()`` (a click on Stop). Files dropped or pasted into the box, or
picked with Attach… (Ctrl+Shift+A), wait in its :class:`~desktop_agent.ui.file_chips.FileTray` above the text; a
message whose files cannot go (still being read, images for a model that cannot see) is not sent, and says why.
While an answer runs the button is Stop — but only after :data:`STOP_GUARD_MS`: a double click on Send sends once
and never stops the answer it just started.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from PySide6.QtCore import QT_TRANSLATE_NOOP, QElapsedTimer, QEvent, QMimeData, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDragLeaveEvent, QDropEvent, QImage, QKeySequence, QTextCursor
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.ui import icons, theme
from desktop_agent.ui.file_chips import FileTray
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
    #: local files dropped or pasted (their paths)
    files_given = Signal(list)
    #: an image pasted from the clipboard
    image_given = Signal(QImage)
    #: files are dragged over the box (True), or no longer (False)
    dragging_files = Signal(bool)

    #: the box's own keys (listed in Help → Keyboard shortcuts)
    KEYS = (("Enter", QT_TRANSLATE_NOOP("Shortcuts", "Send the message")),
            ("Shift+Enter", QT_TRANSLATE_NOOP("Shortcuts", "Start a new line")),
            ("Up", QT_TRANSLATE_NOOP("Shortcuts", "Bring back your last message to edit (in an empty box)")),
            ("Ctrl+Shift+A", QT_TRANSLATE_NOOP("Shortcuts", "Attach files (or drop or paste them in the box)")))

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

    @staticmethod
    def _local_files(source: QMimeData) -> list[str]:
        return [u.toLocalFile() for u in source.urls() if u.isLocalFile()] if source.hasUrls() else []

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(self._local_files(source)) or source.hasImage() or super().canInsertFromMimeData(source)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        super().dragEnterEvent(event)
        if self._local_files(event.mimeData()) or event.mimeData().hasImage():
            self.dragging_files.emit(True)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        super().dragLeaveEvent(event)
        self.dragging_files.emit(False)

    def dropEvent(self, event: QDropEvent) -> None:
        self.dragging_files.emit(False)
        super().dropEvent(event)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """A dropped or pasted file becomes an attachment (not its path as text); a pasted image too."""
        files = self._local_files(source)
        if files:
            self.files_given.emit(files)
        elif source.hasImage():
            image = source.imageData()
            if isinstance(image, QImage) and not image.isNull():
                self.image_given.emit(image)
        else:
            super().insertFromMimeData(source)

    def recall(self, text: str) -> None:
        """Put ``text`` (the last message sent) in the empty box, the cursor at its end, to edit and send."""
        self.setPlainText(text)
        self.moveCursor(QTextCursor.MoveOperation.End)


class Composer(QFrame):
    """The message box and the Send/Stop button (see the module docstring)."""

    send_requested = Signal(str)
    stop_requested = Signal()
    #: a message was not sent: why (its files are still read, or the model cannot see its images)
    blocked = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("composer")
        self.input = ComposeBox()
        self.input.submitted.connect(self._submit)
        self.recall_requested = self.input.recall_requested
        self.tray = FileTray()
        self.input.files_given.connect(self.tray.add_paths)
        self.input.image_given.connect(self.tray.add_image)
        self.input.dragging_files.connect(self._show_drop)
        self.attach = QToolButton()
        self.attach.setObjectName("attachButton")
        self.attach.setAutoRaise(True)
        self.attach.setIconSize(QSize(18, 18))
        self.attach.setToolTip(translate("Compose", "Attach files (Ctrl+Shift+A) — or drop or paste them here"))
        self.attach.setAccessibleName(translate("Compose", "Attach files"))
        self.attach.clicked.connect(self.pick_files)
        self.attach_action = QAction(translate("Compose", "Attach files…"), self)
        self.attach_action.setShortcut(QKeySequence("Ctrl+Shift+A"))
        self.attach_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.attach_action.triggered.connect(self.pick_files)
        self.addAction(self.attach_action)
        self.button = QPushButton()
        self.button.setObjectName("sendButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setIconSize(QSize(16, 16))
        self.button.setMinimumWidth(92)
        self.button.clicked.connect(self._clicked)
        col = QVBoxLayout(self)
        col.setContentsMargins(6, 8, 8, 8)
        col.setSpacing(6)
        col.addWidget(self.tray)
        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.attach, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.input, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        col.addLayout(row)
        self._busy = False
        self._since_busy = QElapsedTimer()
        self.set_busy(False)

    @property
    def busy(self) -> bool:
        return self._busy

    def set_busy(self, busy: bool) -> None:
        """Send (idle) or Stop (an answer runs)."""
        th = theme.current()
        self.attach.setIcon(icons.icon("attach", th.muted))
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
        self.tray.restyle()

    def connect_files(self, controller: Any, capabilities: Any, status: Any, chat: QAbstractScrollArea) -> None:
        """The window's part: files are read on the controller's task runner, the tray knows the chosen model's
        facts (``capabilities.shown``), a message not sent says why in the status bar, the files of a message
        that failed before joining the chat come back, and files dropped on the chat are attached too."""
        self.chat_drops = _ChatDrops(self, chat)
        self.tray.run_task = lambda fn, done: controller.tasks.run(fn, done)
        capabilities.shown.connect(self.tray.set_model)
        self.tray.set_model(capabilities.model, capabilities.facts.get(capabilities.model))
        self.blocked.connect(lambda why: status.showMessage(why, 6000))
        controller.give_back_files.connect(self.tray.restore)

    def _show_drop(self, on: bool) -> None:
        """While files are dragged over the box its frame says they can be dropped."""
        if bool(self.property("dropping")) != on:
            self.setProperty("dropping", on)
            self.style().unpolish(self)
            self.style().polish(self)

    def pick_files(self) -> None:
        """Attach… : the file dialog (several files at once)."""
        dialog = QFileDialog(self.window(), translate("Compose", "Attach files"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.filesSelected.connect(self.tray.add_paths)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        self.file_dialog = dialog

    def _submit(self, text: str) -> None:
        """Send — unless the attached files cannot go yet (the tray says why, and the window's status bar)."""
        why = self.tray.blocked()
        if why:
            self.blocked.emit(why)
            return
        self.send_requested.emit(text)

    def _clicked(self) -> None:
        if not self._busy:
            self._submit(self.input.toPlainText())
        elif self._since_busy.isValid() and self._since_busy.elapsed() >= STOP_GUARD_MS:
            self.stop_requested.emit()
        # else: the second click of the double click that sent the message — not a Stop


class _ChatDrops(QObject):
    """Files dropped anywhere on the chat are attached to the message being written (as if dropped in its box)."""

    def __init__(self, composer: Composer, chat: QAbstractScrollArea):
        super().__init__(composer)
        self.composer = composer
        chat.viewport().setAcceptDrops(True)
        chat.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            mime = cast("QDropEvent", event).mimeData()
            files = ComposeBox._local_files(mime)
            if not files and not mime.hasImage():
                return False
            cast("QDropEvent", event).acceptProposedAction()
            self.composer._show_drop(kind != QEvent.Type.Drop)
            if kind == QEvent.Type.Drop:
                self.composer.input.insertFromMimeData(mime)
            return True
        if kind == QEvent.Type.DragLeave:
            self.composer._show_drop(False)
        return False


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
            QFrame#composer[dropping="true"] {{ border: 2px dashed {th.accent}; }}
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
