"""The two kinds of message block: a user bubble, and the assistant side of one turn (live or saved)."""

from __future__ import annotations

import time
from typing import Any, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QApplication, QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop_agent.core.events import RequestSent, ToolCallFinished, ToolCallStarted
from desktop_agent.core.messages import Message
from desktop_agent.ui import icons
from desktop_agent.ui.agent_runner import ApprovalRequest
from desktop_agent.ui.chat.branch_bar import ActionsButton, BranchSwitcher, answer_entries, user_entries
from desktop_agent.ui.chat.cards import ApprovalCard
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.chat.parts import TextPart, ThinkingPart
from desktop_agent.ui.chat.question import QuestionCard
from desktop_agent.ui.chat.widgets import (
    AutoHeightBrowser,
    CopyButton,
    ToolChip,
    ToolsPart,
    repaint_only_changes,
    time_text,
)
from desktop_agent.ui.file_chips import SentFiles
from desktop_agent.ui.i18n import translate

W = TypeVar("W", bound=QWidget)


class UserBubble(QWidget):
    """A user message, right-aligned, with a copy button, its actions (Edit and resend…) and — when it was
    edited — ``‹ 2/3 ›`` between its versions."""

    #: a line for the status bar ("Message copied to the clipboard")
    status_message = Signal(str)
    #: one of its actions was chosen: (action, message) — see :data:`.branch_bar.ACTIONS`
    branch_action = Signal(str, object)
    #: show the branch through this version of the message (id)
    switch_to = Signal(int)

    def __init__(self, ctx: ChatContext, message: Message):
        super().__init__()
        self.ctx = ctx
        self.message = message
        self.bubble = QFrame()
        self.bubble.setObjectName("userBubble")
        bl = QVBoxLayout(self.bubble)
        bl.setContentsMargins(14, 9, 14, 9)
        self.files: SentFiles | None = None
        if message.attachments:  # its files as chips above its text (an image opens bigger on a click)
            self.files = SentFiles(message.attachments)
            bl.addWidget(self.files)
        self.text = AutoHeightBrowser(natural_width=True)
        self.text.setObjectName("userText")
        self.text.setAccessibleName(translate("Turn", "Your message"))
        self.text.setPlainText(message.content)
        bl.addWidget(self.text)
        if message.attachments and not message.content:  # only files: no empty line of text under them
            self.text.hide()
        self.bubble.setParent(self)  # before the Copy button: Tab reads the message, then offers its Copy
        self.copy = CopyButton(ctx, translate("Turn", "message"))
        self.copy.clicked.connect(self._copy)
        self.switcher = BranchSwitcher(ctx)
        self.switcher.switch_to.connect(self.switch_to)
        self.menu_button = ActionsButton(ctx, lambda: user_entries(self.message))
        self.menu_button.chosen.connect(self.branch_action)
        row = QHBoxLayout(self)
        row.setContentsMargins(48, 0, 0, 0)
        row.setSpacing(4)
        row.addStretch(1)
        for w in (self.switcher, self.menu_button, self.copy):
            row.addWidget(w, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.bubble, 0)
        self.setAccessibleName(translate("Turn", "Your message"))

    def show_message(self, message: Message) -> None:
        """The saved message this bubble shows (it was drawn from the text sent): its text only if it differs."""
        if message.content != self.message.content:
            self.text.setPlainText(message.content)
        self.message = message

    def set_siblings(self, siblings: dict[int, list[int]]) -> None:
        """Show ``‹ i/n ›`` when this message has other versions (``Conversation.siblings``)."""
        self.switcher.show_siblings(siblings.get(self.message.id or -1), self.message.id)

    def contextMenuEvent(self, event) -> None:
        """Right-click beside the text: the message's actions (the text itself has its own menu: Copy…)."""
        self.menu_button.popup_at(event.globalPos())

    def _copy(self) -> None:
        QApplication.clipboard().setText(self.message.content)
        self.status_message.emit("Message copied to the clipboard")

    def set_max_width(self, w: int) -> None:
        self.bubble.setMaximumWidth(w)

    def restyle(self) -> None:
        """Re-derive the colours from the (new) theme."""
        self.copy.restyle(self.ctx)
        self.menu_button.restyle(self.ctx)
        if self.files is not None:
            self.files.restyle()


class AssistantTurn(QFrame):
    """The assistant side of one turn: thinking, text, tool markers, notices, in the order they came."""

    #: a line for the status bar (answer or code copied)
    status_message = Signal(str)
    #: one of its tool chips was clicked (call id)
    tool_clicked = Signal(str)
    #: one of its actions was chosen: (action, message) — see :data:`.branch_bar.ACTIONS`
    branch_action = Signal(str, object)
    #: show the branch through this version of the answer (id of its first message)
    switch_to = Signal(int)

    def __init__(self, ctx: ChatContext, *, live: bool = False, model: str | None = None, ts: float | None = None):
        super().__init__()
        self.ctx = ctx
        self.live = live
        self.setObjectName("assistantTurn")
        self.setAccessibleName(translate("Turn", "Assistant message"))
        self.parts: list[QWidget] = []
        self.chips: dict[str, ToolChip] = {}
        self.approvals: list[ApprovalCard] = []
        #: the MCP servers' questions shown in this turn
        self.questions: list[QuestionCard] = []
        #: the saved messages a turn rebuilt by :meth:`from_saved` shows (empty for a live turn)
        self.messages: list[Message] = []

        outer = QVBoxLayout(self)
        outer.setContentsMargins(14, 10, 14, 10)
        outer.setSpacing(6)
        head = QHBoxLayout()
        head.setSpacing(6)
        self.avatar = QLabel()
        self.avatar.setPixmap(icons.pixmap("assistant", 16, ctx.theme.accent, self.devicePixelRatioF()))
        self.title = QLabel(translate("Turn", "Assistant"))
        self.title.setObjectName("turnTitle")
        self.meta = QLabel()
        self.meta.setObjectName("turnMeta")
        self.tag = QLabel()
        self.tag.setObjectName("statusTag")
        self.tag.setVisible(False)
        self.copy = CopyButton(ctx, translate("Turn", "answer"))
        self.copy.clicked.connect(self._copy)
        head.addWidget(self.avatar)
        head.addWidget(self.title)
        head.addWidget(self.meta)
        head.addWidget(self.tag)
        head.addStretch(1)
        self.switcher = BranchSwitcher(ctx)
        self.switcher.switch_to.connect(self.switch_to)
        self.menu_button = ActionsButton(ctx, lambda: answer_entries(self.messages))
        self.menu_button.chosen.connect(self.branch_action)
        self.menu_button.setVisible(not live)
        head.addWidget(self.switcher)
        head.addWidget(self.menu_button)
        head.addWidget(self.copy)
        outer.addLayout(head)
        self.body = QVBoxLayout()
        self.body.setSpacing(6)
        self.body.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(self.body)
        self.typing = QLabel("…")
        self.typing.setObjectName("typing")
        self.typing.setAccessibleName(translate("Turn", "The assistant is answering"))
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)
        outer.addWidget(self.notice)
        self.body.addWidget(self.typing)
        self.typing.setVisible(live)
        #: the model call waiting for its first data, and whether "reading the prompt" is shown
        self._request: tuple[float, RequestSent] | None = None
        self._waiting_shown = False
        self.set_meta(model, ts)
        repaint_only_changes(self)

    #: the height (px) of the frame's rounded bottom edge, repainted when the turn grows or shrinks
    EDGE = 16

    def resizeEvent(self, event) -> None:
        """Only the new area is repainted on a resize (:func:`repaint_only_changes`): the rounded bottom
        edge moved, so the strip where it was (growing) or now is (shrinking) is repainted too; a new width
        repaints everything (the right edge moved)."""
        super().resizeEvent(event)
        old, new = event.oldSize(), event.size()
        if old.width() != new.width():
            self.update()
        elif old.height() != new.height():
            self.update(0, min(old.height(), new.height()) - self.EDGE, new.width(), self.EDGE)

    @classmethod
    def from_saved(cls, ctx: ChatContext, msgs: list[Message]) -> AssistantTurn:
        """A finished turn rebuilt from its saved assistant and tool messages."""
        turn = cls(ctx, model=None, ts=msgs[0].created_at)
        turn.messages = msgs
        results = {m.tool_call_id: m for m in msgs if m.role == "tool"}
        last_status = "complete"
        model = None
        for m in msgs:
            if m.role != "assistant":
                continue
            model = m.model or model
            if m.thinking:
                turn.add_thinking(m.thinking, live=False).finish()
            if m.content:
                turn.add_text(m.content)
            for call in m.tool_calls:
                res = results.get(call.id)
                status = (res.tool_status or "ok") if res is not None else "cancelled"
                turn.add_tool(call.id, call.name, call.arguments, status, res.duration_ms if res else None)
            last_status = m.status
        turn.set_meta(model, msgs[-1].created_at)
        if last_status != "complete":
            turn.set_status(last_status)
        return turn

    # --- building
    def set_meta(self, model: str | None, ts: float | None) -> None:
        bits = [b for b in (model, time_text(ts)) if b]
        self.meta.setText("  ·  ".join(bits))

    def _add(self, part: W) -> W:
        self.typing.setVisible(False)
        self.parts.append(part)
        # a text part sits in its column (its sealed chunks above it, ``TextPart.column``)
        self.body.insertWidget(self.body.count() - 1, part.column if isinstance(part, TextPart) else part)
        return part

    def last(self, kind: type) -> Any:
        return self.parts[-1] if self.parts and isinstance(self.parts[-1], kind) else None

    def add_text(self, text: str) -> TextPart:
        part = TextPart(self.ctx, text)
        part.status_message.connect(self.status_message)
        return self._add(part)

    def add_thinking(self, text: str, live: bool) -> ThinkingPart:
        return self._add(ThinkingPart(self.ctx, text, live))

    def tools_part(self) -> ToolsPart:
        part = self.last(ToolsPart)
        if part is None:
            part = ToolsPart(self.ctx)
            part.tool_clicked.connect(self.tool_clicked)
            self._add(part)
        return part

    def add_tool(self, call_id: str, name: str, arguments: dict | None, status: str = "running",
                 duration_ms: float | None = None) -> ToolChip:
        chip = self.tools_part().add(call_id, name, arguments)
        self.chips[call_id] = chip
        if status != "running":
            chip.finish(status, duration_ms)
        return chip

    def set_status(self, status: str) -> None:
        text = {"stopped": translate("Turn", "Stopped"), "interrupted": translate("Turn", "Interrupted")}.get(status)
        self.tag.setText(text or "")
        self.tag.setVisible(bool(text))

    def contextMenuEvent(self, event) -> None:
        """Right-click on the answer's frame or header: its actions (the text itself has its own menu: Copy…)."""
        if self.menu_button.isVisible():
            self.menu_button.popup_at(event.globalPos())

    def set_messages(self, messages: list[Message], siblings: dict[int, list[int]]) -> None:
        """The saved messages this turn (drawn as it streamed) shows: its actions act on them."""
        self.messages = list(messages)
        self.menu_button.setVisible(bool(messages))
        self.set_siblings(siblings)

    def set_siblings(self, siblings: dict[int, list[int]]) -> None:
        """Show ``‹ i/n ›`` when this answer has other versions (``Conversation.siblings`` of its first message)."""
        first = self.messages[0].id if self.messages else None
        self.switcher.show_siblings(siblings.get(first or -1), first)

    def text_content(self) -> str:
        return "\n\n".join(p.buffer for p in self.parts if isinstance(p, TextPart) and p.buffer.strip())

    def _copy(self) -> None:
        QApplication.clipboard().setText(self.text_content())
        self.status_message.emit("Answer copied to the clipboard")

    def restyle(self) -> None:
        """Re-derive the colours from the (new) theme and re-render the text."""
        self.avatar.setPixmap(icons.pixmap("assistant", 16, self.ctx.theme.accent, self.devicePixelRatioF()))
        self.copy.restyle(self.ctx)
        self.menu_button.restyle(self.ctx)
        for p in self.parts:
            if isinstance(p, TextPart):
                p.render_text()
            elif isinstance(p, ThinkingPart):
                p.update_label()
            elif isinstance(p, ToolsPart):
                p.refresh()

    # --- streaming
    def _close_thinking(self) -> None:
        for p in self.parts:
            if isinstance(p, ThinkingPart) and p.live:
                p.finish()

    def on_request(self, ev: RequestSent) -> None:
        """A model call was sent: if nothing comes within its quiet time, say the server is reading the prompt."""
        self._request = (time.monotonic(), ev)

    def _data_came(self) -> None:
        self._request = None
        if self._waiting_shown:
            self._waiting_shown = False
            self.notice.setVisible(False)

    def on_text(self, text: str) -> None:
        self._data_came()
        self.notice.setVisible(False)
        self._close_thinking()
        part = self.last(TextPart) or self.add_text("")
        part.append(text)

    def on_thinking(self, text: str) -> None:
        self._data_came()
        part = self.last(ThinkingPart)
        if part is None or not part.live:
            part = self.add_thinking("", True)
        part.append(text)

    def on_tool_started(self, ev: ToolCallStarted) -> None:
        self._data_came()
        self._close_thinking()
        self.flush(final=True)  # the text before a tool call is complete
        self.add_tool(ev.call_id, ev.name, ev.arguments)
        self.typing.setVisible(False)  # the running chip says what happens

    def on_tool_finished(self, ev: ToolCallFinished) -> None:
        status = ev.status or ("ok" if ev.ok else "error")
        chip = self.chips.get(ev.call_id) or self.add_tool(ev.call_id, ev.name, {})
        chip.finish(status, ev.duration_ms)
        for card in self.approvals:
            if card.request.call_id == ev.call_id:
                card.settle()
        for question in self.questions:
            if question.question.call_id == ev.call_id:
                question.settle()
        if self.live and all(c.status != "running" for c in self.chips.values()):
            self.typing.setVisible(True)  # the model works on the results: the dots until its next part

    def on_notice(self, text: str) -> None:
        self._data_came()
        self.notice.setText(text)
        self.notice.setVisible(True)

    def on_approval(self, request: ApprovalRequest) -> None:
        self.approvals.append(self._add(ApprovalCard(self.ctx, request)))

    def on_question(self, question: Any) -> None:
        """An MCP server asks the user something during a call: its form, after the call's chip."""
        card = self._add(QuestionCard(self.ctx, question))
        self.questions.append(card)
        card.first_control().setFocus()

    def tick(self) -> None:
        now = time.monotonic()
        for p in self.parts:
            if isinstance(p, ThinkingPart) and p.live:
                p.update_label()
                p.flush()
            elif isinstance(p, ToolsPart):
                p.refresh(only_running=True)
        self.flush(now=now)
        if self._request is not None and now - self._request[0] >= self._request[1].QUIET_S:
            self.notice.setText(self._request[1].waiting_text())
            self.notice.setVisible(True)
            self._request, self._waiting_shown = None, True
        if self.typing.isVisible():
            dots = "●" + " ●" * (int(now * 3) % 3)  # a dot more every ⅓ s
            if self.typing.text() != dots:
                self.typing.setText(dots)

    def flush(self, force: bool = False, now: float | None = None, final: bool = False) -> None:
        """Render the text parts that changed (``force``: now; else when their frame is due). ``final``: their
        text is complete — an open fence gets its highlighting."""
        now = now or time.monotonic()
        for p in self.parts:
            if not isinstance(p, TextPart):
                continue
            if final:
                if p.unfinished:
                    p.render_live(final=True)
            elif p.dirty if force else p.due(now):
                p.render_live()

    def finish(self, message: Message | None = None, status: str | None = None) -> None:
        """The turn is over. ``message``: the final assistant message (authoritative text)."""
        self.live = False
        self._close_thinking()
        self.notice.setVisible(False)
        if message is not None:
            if message.thinking and not any(isinstance(p, ThinkingPart) for p in self.parts):
                self._add(ThinkingPart(self.ctx, message.thinking, live=False))
                # keep thinking above the text
                self.body.removeWidget(self.parts[-1])
                self.body.insertWidget(0, self.parts[-1])
                self.parts.insert(0, self.parts.pop())
            part = self.last(TextPart)
            if message.content and (part is None or part.buffer.strip() != message.content.strip()):
                if part is None:
                    self.add_text(message.content)
                else:
                    part.buffer = message.content
            if message.model:
                self.set_meta(message.model, message.created_at)
            status = status or message.status
        for card in self.approvals:
            if not card.request.answered:
                card.request.answer("deny")
            card.settle()
        for question in self.questions:
            question.settle()
        for chip in self.chips.values():
            if chip.status == "running":
                chip.finish("cancelled", (time.monotonic() - chip.started) * 1000)
        self.flush(final=True)
        self.typing.setVisible(False)
        if status and status != "complete":
            self.set_status(status)

    @property
    def empty(self) -> bool:
        return not self.parts
