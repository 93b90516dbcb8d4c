"""The quick-ask window (``desktop-agent ask``): one line to type in, the answer streaming below.

Users bind ``desktop-agent ask`` to a keyboard shortcut in their desktop's settings (the way that works on Wayland
too: an app cannot grab a global key there). With the app running, the start hands its request to it through the
single-instance channel (:mod:`desktop_agent.ui.single_instance`) and the running app shows this window; otherwise
the start is the app, with its main window hidden until the user opens the chat in it.

Enter sends the line (a follow-up continues the same chat); Enter on an empty line after an answer — or
Ctrl+Enter, or *Open in window* — opens the chat in the main window; Esc stops an answer, or closes the window.
The turns run through the window's own parts: its services, the assembly and the store (a quick-ask chat is saved
like any other and listed in the history), on an :class:`~desktop_agent.ui.agent_runner.AgentRunner` of its own —
an answer here never stops the one the main window is writing. A tool call that needs approval is asked here
(Allow once / Deny); anything more (for this chat, always) is the main window's.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from desktop_agent.core.session import ChatSession
    from desktop_agent.ui.agent_runner import AgentRunner
    from desktop_agent.ui.main_window import MainWindow

log = logging.getLogger(__name__)


def quick_ask_of(window: MainWindow) -> QuickAsk:
    """The quick-ask window of ``window`` (one per app: made on first use, shut down with the app)."""
    found = window.findChild(_QuickAskHolder)
    if found is None:
        found = _QuickAskHolder(window)
    return found.quick_ask


class _QuickAskHolder(QObject):
    """Keeps the (top-level, parentless) quick-ask window with its main window: closed and shut down with it."""

    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.quick_ask = QuickAsk(window)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.quick_ask.shutdown)
        window.closing.connect(self._close)  # the main window closes for good: the app with it (its store closes)

    def _close(self) -> None:
        self.quick_ask.close()
        self.quick_ask.shutdown()


class QuickAsk(QWidget):
    """The quick-ask window of ``window`` (the app's main window, shown or not)."""

    #: the window's keys (listed in Help → Keyboard shortcuts)
    KEYS = (("Enter", QT_TRANSLATE_NOOP("Shortcuts", "Send the question")),
            ("Ctrl+Enter", QT_TRANSLATE_NOOP("Shortcuts",
                                             "Open the chat in the main window (also Enter on an empty line)")),
            ("Esc", QT_TRANSLATE_NOOP("Shortcuts", "Stop the answer, or close the quick ask")))

    #: the answer of a quick-ask turn ended (finished, failed or stopped): the outcome
    answered = Signal(str)
    #: the chat was opened in the main window
    opened_in_window = Signal(str)

    def __init__(self, window: MainWindow):
        super().__init__(None, Qt.WindowType.Window)
        self.window_ = window
        self.runner: AgentRunner | None = None
        self.session: ChatSession | None = None
        self._pending = ""  # a line sent before the window's services were ready
        self._open_after_turn = False
        self._request: Any = None
        #: the chat so far as markdown (the exchanges that ended), the question being answered and its answer so far
        self._done = ""
        self._question = ""
        self._live = ""
        self.setObjectName("quickAsk")
        self.setWindowTitle(self.tr("Quick ask — Desktop Agent"))
        self.setAccessibleName(self.tr("Quick ask"))
        self.resize(640, 360)
        self.setMinimumSize(420, 200)

        layout = QVBoxLayout(self)
        self.line = QLineEdit()
        self.line.setPlaceholderText(self.tr("Ask anything — Enter sends"))
        self.line.setAccessibleName(self.tr("Question"))
        self.line.setClearButtonEnabled(True)
        self.line.returnPressed.connect(self._on_return)
        layout.addWidget(self.line)

        self.answer = QTextBrowser()
        self.answer.setAccessibleName(self.tr("Answer"))
        self.answer.setOpenExternalLinks(True)
        self.answer.setPlaceholderText(self.tr("The answer shows here."))
        layout.addWidget(self.answer, 1)

        self.approval = QWidget()
        row = QHBoxLayout(self.approval)
        row.setContentsMargins(0, 0, 0, 0)
        self.approval_label = QLabel()
        self.approval_label.setWordWrap(True)
        self.allow_button = QPushButton(self.tr("Allow once"))
        self.deny_button = QPushButton(self.tr("Deny"))
        self.allow_button.clicked.connect(lambda: self._answer_request("once"))
        self.deny_button.clicked.connect(lambda: self._answer_request("deny"))
        row.addWidget(self.approval_label, 1)
        row.addWidget(self.allow_button)
        row.addWidget(self.deny_button)
        self.approval.hide()
        layout.addWidget(self.approval)

        bottom = QHBoxLayout()
        self.status = QLabel()
        self.status.setAccessibleName(self.tr("Quick ask status"))
        self.open_button = QPushButton(self.tr("Open in window"))
        self.open_button.setToolTip(self.tr("Continue this chat in the main window (Ctrl+Enter)"))
        self.open_button.clicked.connect(self.open_in_window)
        self.open_button.setEnabled(False)
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.open_button)
        layout.addLayout(bottom)

        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, self.open_in_window)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self._on_escape)

    # ---- asking ----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.runner is not None and self.runner.busy

    def ask(self, text: str) -> None:
        """Send ``text`` (as if typed); with the window's services not ready yet, it goes once they are."""
        text = text.strip()
        if not text:
            return
        if self.busy:  # the question waits in the line, to send once the answer has ended
            self.line.setText(text)
            self.status.setText(self.tr("Wait for the answer, or press Esc to stop it."))
            return
        if not self.window_.ready:
            waiting, self._pending = bool(self._pending), text
            self.status.setText(self.tr("Starting up — your question is sent in a moment…"))
            if not waiting:  # once the window's start-up has reached its server check (the store is open)
                from desktop_agent.ui.startup import Stage

                self.window_.startup.add(Stage("quick ask", self._send_pending), after="server check")
                self.window_.startup.start()
            return
        self._send(text)

    def _send_pending(self) -> None:
        text, self._pending = self._pending, ""
        if text:
            self._send(text)

    def _send(self, text: str) -> None:
        from desktop_agent.core.messages import Conversation
        from desktop_agent.core.session import ChatSession
        from desktop_agent.ui.agent_runner import AgentRunner

        ctl = self.window_.controller
        assert ctl is not None
        if self.runner is None:
            self.runner = AgentRunner(ctl.assembly, self)
            self.runner.turn_event.connect(self._on_event)
        if self.session is None:
            self.session = ChatSession(Conversation(), ctl.store or None)
            self._done = ""
        self._question, self._live = text, ""
        self._show()
        self.line.clear()
        self.status.setText(self.tr("Answering…"))
        self.open_button.setEnabled(True)
        log.info("quick ask: a question of %d characters", len(text))
        self.runner.start_turn(self.session, text, ctl.settings)  # the chat's own options: applied by the runner

    def _on_event(self, ev: object) -> None:
        from desktop_agent.core.events import (
            AnswerFinished,
            ChatUpdated,
            TextDelta,
            ToolCallStarted,
            TurnCancelled,
            TurnFailed,
        )
        from desktop_agent.core.mcp.elicitation import DECLINE, Question
        from desktop_agent.core.tools.permissions import PermissionRequest
        from desktop_agent.ui import errors as ui_errors
        from desktop_agent.ui.agent_runner import TurnCrashed, TurnEnded

        if isinstance(ev, TextDelta):  # streamed text arrives batched, a frame's worth at a time
            self._live += ev.text
            self._show()
        elif isinstance(ev, ToolCallStarted):
            self.status.setText(self.tr("Using the tool %1…").replace("%1", ev.name))
        elif isinstance(ev, PermissionRequest):
            self._request = ev
            self.approval_label.setText(self.tr("%1 wants to run: %2").replace("%1", ev.tool_name)
                                        .replace("%2", ev.subject.value if ev.subject else _args(ev.arguments)))
            self.approval.show()
            self.allow_button.setFocus()
        elif isinstance(ev, Question):  # no room for a form here: declined (the model hears it), said why
            ev.answer(DECLINE)
            self.status.setText(self.tr("%1 asked a question; quick ask cannot show forms, so it was declined "
                                        "(ask in the main window to answer it)").replace("%1", ev.server))
        elif isinstance(ev, ChatUpdated) and self.window_.controller is not None and self.window_.store:
            self.window_.history.note_saved(ev.conversation_id, False)  # listed from its first message on
        elif isinstance(ev, AnswerFinished):
            self._live = ev.message.content
            self._show()
        elif isinstance(ev, TurnFailed):
            self._live += f"\n\n> ⚠ {_md_escape(ui_errors.describe(ev.error).text)}"
            self._show()
        elif isinstance(ev, TurnCrashed):
            ui_errors.report_unexpected(ev.error, "the quick ask", ev.error.__traceback__)
        elif isinstance(ev, TurnCancelled):
            self.status.setText(self.tr("Stopped. The partial answer is kept."))
        elif isinstance(ev, TurnEnded):
            self._on_turn_ended(ev.outcome)

    def _exchange(self) -> str:
        if not self._question:
            return ""
        live = self._live
        if live.count("```") % 2:  # a stopped answer inside a code block: closed, so the next exchange shows
            live += "\n```"
        return f"**{_md_escape(self._question)}**\n\n{live}\n\n"

    def _show(self) -> None:
        """The chat so far, rendered (a quick-ask chat is short: rendered whole, once a frame at most)."""
        self.answer.setMarkdown(self._done + self._exchange())
        bar = self.answer.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _on_turn_ended(self, outcome: str) -> None:
        self._done += self._exchange()
        self._question = self._live = ""
        if self.session is not None and self.window_.store:  # its final message counted in the history's row
            self.window_.history.note_saved(self.session.id, False)
        self.approval.hide()
        self._request = None
        if outcome == "finished":
            self.status.setText(self.tr("Enter on an empty line (or Ctrl+Enter) opens this chat in the window."))
        elif outcome != "cancelled":
            self.status.setText(self.tr("The answer did not finish."))
        self.answered.emit(outcome)
        if self._open_after_turn:
            self._open_after_turn = False
            self.open_in_window()

    def _answer_request(self, choice: str) -> None:
        if self._request is not None:
            self._request.answer(choice)
            self._request = None
        self.approval.hide()
        self.line.setFocus()

    # ---- keys, opening in the window, closing ----------------------------------------------------

    def _on_return(self) -> None:
        if self.line.text().strip():
            self.ask(self.line.text())
        elif self.session is not None and self.session.conversation.messages:
            self.open_in_window()

    def _on_escape(self) -> None:
        if self.busy and self.runner is not None:
            self.runner.stop()
        else:
            self.close()

    def open_in_window(self) -> None:
        """Continue the chat in the main window (once the answer has ended): the window comes to the front with it."""
        if self.session is None or not self.session.conversation.messages:
            return
        if self.busy:
            self._open_after_turn = True
            self.status.setText(self.tr("Opens in the window when the answer ends…"))
            return
        chat_id = self.session.id
        window = self.window_
        window.bring_to_front()
        window.open_conversation(chat_id)
        self.opened_in_window.emit(chat_id)
        self.reset()
        self.hide()

    def reset(self) -> None:
        """A fresh quick ask (the next shortcut press starts a new chat)."""
        self.session = None
        self._done = self._question = self._live = ""
        self.answer.clear()
        self.line.clear()
        self.status.clear()
        self.open_button.setEnabled(False)

    def present(self, text: str = "") -> None:
        """Show the window in front with the focus in the line; ``text``: asked at once."""
        if not self.busy and self.session is not None:
            self.reset()  # a new press of the shortcut (or a new `ask "…"`): a new chat
        self.show()
        self.raise_()
        self.activateWindow()
        self.line.setFocus()
        if text:
            self.ask(text)

    def shutdown(self) -> None:
        """Stop the answer (its partial text is saved as interrupted) and the runner's thread."""
        if self.runner is not None:
            self.runner.shutdown(2.5)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.busy and self.runner is not None:
            self.runner.stop()  # the partial answer is kept, like Stop
        super().closeEvent(event)


def _args(arguments: dict[str, Any]) -> str:
    import json

    text = json.dumps(arguments, ensure_ascii=False)
    return text if len(text) <= 200 else text[:199] + "…"


def _md_escape(text: str) -> str:
    """``text`` shown as typed in markdown (its punctuation escaped)."""
    return "".join(f"\\{c}" if c in "\\`*_{}[]()#+-.!<>|~" else c for c in " ".join(text.split()))
