"""The conversation view: a scroll area with one block per message, paged in lazily, fed by events."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from desktop_agent.core.events import (
    AnswerFinished,
    ChatCompacted,
    CompactionUndone,
    MessageAdded,
    Notice,
    RequestSent,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnCancelled,
    TurnFailed,
)
from desktop_agent.core.mcp.elicitation import CANCEL, Question
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.ui import theme
from desktop_agent.ui.agent_runner import ApprovalRequest, TurnCrashed, TurnEnded, TurnStarted
from desktop_agent.ui.chat.cards import ErrorCard
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.chat.empty_state import EmptyState
from desktop_agent.ui.chat.note_line import NoteLine
from desktop_agent.ui.chat.parts import FRAME_BUDGET, FRAME_MS, MAX_FRAME_MS
from desktop_agent.ui.chat.placeholders import Placeholder, estimate_height, rebuild, settle
from desktop_agent.ui.chat.scroll_bar import QuietScrollBar
from desktop_agent.ui.chat.style import chat_style_sheet
from desktop_agent.ui.chat.summary_card import SummaryCard
from desktop_agent.ui.chat.turn import AssistantTurn, UserBubble
from desktop_agent.ui.chat.widgets import repaint_only_changes
from desktop_agent.ui.errors import ErrorView, describe, describe_saved
from desktop_agent.ui.i18n import translate

W = TypeVar("W", bound=QWidget)

#: the live turn's clock (ms): labels that count (thinking, running tools), the typing dots
TICK_MS = 100


def display_blocks(messages: list[Message]) -> list[tuple[str, list[Message]]]:
    """Group a history into blocks: ``("user", [msg])``, ``("assistant", [assistant/tool msgs…])`` and
    ``("summary", [msg])`` (a summary of earlier messages)."""
    blocks: list[tuple[str, list[Message]]] = []
    for m in messages:
        if m.role == "system" and m.kind in ("summary", "note"):
            blocks.append((m.kind, [m]))
            continue
        if m.role == "system":
            continue
        if m.role == "user":
            blocks.append(("user", [m]))
        elif blocks and blocks[-1][0] == "assistant":
            blocks[-1][1].append(m)
        else:
            blocks.append(("assistant", [m]))
    return blocks


class ChatView(QScrollArea):
    """The conversation. Feed it events through :meth:`routes` (one method per event type); load a saved chat
    with :meth:`set_conversation`."""

    PAGE = 40
    #: a saved chat opens with the newest blocks that fill this many viewport heights built (the rest of the
    #: page follows right after the first frame)
    FIRST_SCREENS = 1.5

    status_message = Signal(str)
    #: an error card's button: (ErrorAction, ErrorCard)
    error_action = Signal(object, object)
    #: a tool chip was clicked (call id)
    tool_clicked = Signal(str)
    #: an empty-state suggestion was clicked
    suggestion = Signal(str)
    #: a turn ended before the user's message became part of the chat (the backend could not even be
    #: built): the text, so the window can give it back to the compose box
    unsent_text = Signal(str)
    #: a summary card's Undo (the summary message)
    undo_summary = Signal(object)
    #: a message's action (Regenerate, Edit and resend…, Fork from here, Delete this branch…): (action, message)
    branch_action = Signal(str, object)
    #: ``‹ 2/3 ›`` was clicked: show the branch through this message (id)
    switch_branch = Signal(int)
    #: the streaming frame interval (ms) changed: the runner hands streamed text over at this pace
    #: (``AgentRunner.set_batch_ms``), so a frame costs one wake-up of the GUI thread
    frame_interval_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setAccessibleName(translate("View", "Conversation"))
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._bar = QuietScrollBar(self)
        self.setVerticalScrollBar(self._bar)
        # count_render is looked up on each render, so a replacement set on the instance (tests count
        # renders per part) sees every render
        self.ctx = ChatContext(theme.current(), on_render=lambda part: self.count_render(part))
        #: number of TextPart renders (tests check streaming renders only the live part)
        self.render_count = 0

        self.content = QWidget()
        self.content.setObjectName("chatContent")
        outer = QHBoxLayout(self.content)
        outer.setContentsMargins(16, 16, 16, 16)
        outer.addStretch(1)
        self.column = QWidget()
        self.column.setObjectName("chatColumn")
        self.column.setMaximumWidth(880)
        self.column.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        outer.addWidget(self.column, 100)
        outer.addStretch(1)
        self.column.installEventFilter(self)
        self.col = QVBoxLayout(self.column)
        self.col.setContentsMargins(0, 0, 0, 0)
        self.col.setSpacing(14)
        self.more = QPushButton()
        self.more.setObjectName("loadEarlier")
        self.more.setFlat(True)
        self.more.setCursor(Qt.CursorShape.PointingHandCursor)
        self.more.clicked.connect(lambda: self.load_earlier())
        self.more.setVisible(False)
        self.col.addWidget(self.more, 0, Qt.AlignmentFlag.AlignHCenter)
        self.empty_state = EmptyState()
        self.empty_state.suggestion.connect(self.suggestion)
        self.col.addWidget(self.empty_state, 1)
        self.later = QPushButton()
        self.later.setObjectName("loadEarlier")
        self.later.setFlat(True)
        self.later.setCursor(Qt.CursorShape.PointingHandCursor)
        self.later.clicked.connect(lambda: self.load_later())
        self.later.setVisible(False)
        self.col.addWidget(self.later, 0, Qt.AlignmentFlag.AlignHCenter)
        self.col.addStretch(0)
        self.setWidget(self.content)
        # the chat grows at the bottom while an answer streams and scrolls with it: a resize paints only the
        # new area, and an opaque content widget (restyle) is scrolled by moving its pixels
        repaint_only_changes(self.content)
        repaint_only_changes(self.column)

        #: the model the next turn asks (the window sets it): shown in the header while the answer streams
        self.live_model: str | None = None
        self.blocks: list[QWidget] = []  # materialised, in order
        self._items: list[tuple[str, list[Message]]] = []  # the loaded conversation, as display blocks
        #: the loaded conversation's versions of its messages (``Conversation.siblings``): ``‹ 2/3 ›``
        self._siblings: dict[int, list[int]] = {}
        self._lo = self._hi = 0  # items[_lo:_hi] have widgets
        self.live: AssistantTurn | None = None
        #: the text of the running turn until its user message arrives (MessageAdded)
        self._unsent: str | None = None
        #: the bubble showing that text meanwhile
        self._pending_bubble: QWidget | None = None
        #: the card of the loaded chat's failed last turn (``Conversation.last_failure``): shown after the
        #: newest block whenever the newest page is shown, until a turn starts
        self._saved_failure: ErrorView | None = None
        self._follow = True
        self._anchor_from_bottom: int | None = None
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range)
        bar.valueChanged.connect(self._on_scroll)
        self._follow_timer = QTimer(self)
        self._follow_timer.setSingleShot(True)
        self._follow_timer.setInterval(0)
        self._follow_timer.timeout.connect(self._follow_bottom)
        self._frame_cost: float | None = None  # ms of GUI-thread time a streaming frame takes (smoothed)
        #: while a turn streams: the thinking timer, running tool chips, the typing dots, and text that came
        #: between two frames (streamed text is rendered when it arrives: :meth:`_frame`)
        self._tick = QTimer(self)
        self._tick.setInterval(TICK_MS)
        self._tick.timeout.connect(self._on_tick)
        # releases blocks far from the viewport and rebuilds near ones (placeholders.settle), after scrolling
        self._settle_timer = QTimer(self)
        self._settle_timer.setSingleShot(True)
        self._settle_timer.setInterval(30)  # after the scrolling and the layouts it causes have settled
        self._settle_timer.timeout.connect(self._settle)
        self._settled_at: tuple[int, int] | None = None  # (scroll value, block count) at the last pass
        self.restyle()

    # ---- theme
    def count_render(self, _part) -> None:
        self.render_count += 1

    def restyle(self) -> None:
        """Re-derive colours from the palette (light/dark switch) and re-render what is shown."""
        self.ctx.set_theme(theme.current())
        self.content.setStyleSheet(chat_style_sheet(self.ctx.theme))
        # opaque (after the style sheet, which turns it off): scrolling then moves the painted pixels and
        # paints only the uncovered strip, instead of repainting the whole visible chat
        self.content.setAutoFillBackground(True)
        for w in self.blocks:
            if isinstance(w, AssistantTurn | UserBubble):
                w.restyle()

    # ---- building
    # Layout of self.col: [more, empty_state, blocks…, later, stretch]. A loaded conversation is a list of
    # display blocks (self._items); only items[_lo:_hi] have widgets (self.blocks[:_hi-_lo]); widgets for
    # messages of this session are appended after them (only while _hi == len(_items)).

    @property
    def _pending(self) -> list[tuple[str, list[Message]]]:
        """Older blocks without widgets yet."""
        return self._items[: self._lo]

    @property
    def _later(self) -> list[tuple[str, list[Message]]]:
        """Newer blocks without widgets (after a jump to an old message)."""
        return self._items[self._hi :]

    def _remove_widgets(self) -> None:
        for w in self.blocks:
            self.col.removeWidget(w)
            w.hide()  # gone from the screen now: its deletion waits for the event loop
            w.deleteLater()
        self.blocks.clear()

    def clear(self) -> None:
        self._tick.stop()
        self.live = None
        self._saved_failure = None
        self._remove_widgets()
        self._items, self._lo, self._hi = [], 0, 0
        self._update_buttons()
        self.empty_state.setVisible(True)
        self._follow = True

    def set_conversation(self, conversation: Conversation) -> None:
        """Show a saved conversation: only the newest :attr:`PAGE` blocks are created now. When its last turn
        failed (``conversation.last_failure``) that error follows, with Retry (:func:`describe_saved`)."""
        self.clear()
        self._items = display_blocks(conversation.messages)
        self._siblings = dict(conversation.siblings)
        failure = conversation.last_failure
        self._saved_failure = describe_saved(failure.kind, failure.text) if failure is not None else None
        self._show_range(max(0, len(self._items) - self.PAGE), len(self._items), build_screens=self.FIRST_SCREENS)
        self._follow = True
        self._scroll_to_bottom()

    def _show_range(self, lo: int, hi: int, build_screens: float | None = None) -> None:
        """Create the widgets for items[lo:hi] only (a fresh window onto the conversation). ``build_screens``:
        build only the newest blocks that fill about that many viewport heights; the older ones of the range
        get placeholders of their estimated height, built once the first frame is out (:func:`settle`, for
        those near the viewport) — opening a long chat builds what it shows first."""
        self._settled_at = None
        self._remove_widgets()
        items = self._items[lo:hi]
        if build_screens is None:
            widgets = [self._make_block(kind, msgs) for kind, msgs in items]
        else:
            budget = build_screens * max(self.viewport().height(), 400)
            width = max(self.column.width(), 400)
            widgets, filled = [], 0
            for source in reversed(items):
                guess = estimate_height(source, width)
                widgets.append(self._make_block(*source) if filled < budget else Placeholder(source, guess))
                filled += guess
            widgets.reverse()
        if hi == len(self._items) and self._saved_failure is not None:
            widgets.append(self._error_card(self._saved_failure))
        for i, w in enumerate(widgets):
            self.col.insertWidget(2 + i, w)
        self.blocks = widgets
        self._lo, self._hi = lo, hi
        self._after_change()

    def _after_change(self) -> None:
        self._update_buttons()
        self.empty_state.setVisible(not self.blocks and not self._items)
        self._fit_bubbles()

    def load_earlier(self, n: int | None = None, anchor: bool = True) -> int:
        """Create up to ``n`` more of the older blocks (above the shown ones); returns how many."""
        n = n or self.PAGE
        start = max(0, self._lo - n)
        take = self._items[start : self._lo]
        if not take:
            return 0
        if anchor:
            bar = self.verticalScrollBar()
            self._anchor_from_bottom = bar.maximum() - bar.value()
        widgets = [self._make_block(kind, msgs) for kind, msgs in take]
        for i, w in enumerate(widgets):
            self.col.insertWidget(2 + i, w)
        self.blocks[0:0] = widgets
        self._lo = start
        self._after_change()
        return len(widgets)

    def load_later(self, n: int | None = None) -> int:
        """Create up to ``n`` more of the newer blocks (below the shown ones, after a jump)."""
        n = n or self.PAGE
        take = self._items[self._hi : self._hi + n]
        for kind, msgs in take:
            w = self._make_block(kind, msgs)
            self.col.insertWidget(2 + len(self.blocks), w)
            self.blocks.append(w)
        self._hi += len(take)
        if take and self._hi == len(self._items) and self._saved_failure is not None:
            card = self._error_card(self._saved_failure)
            self.col.insertWidget(2 + len(self.blocks), card)
            self.blocks.append(card)
        self._after_change()
        return len(take)

    def _update_buttons(self) -> None:
        n = len(self._pending)
        self.more.setVisible(n > 0)
        self.more.setText(translate("View", "Show earlier messages ({n} more)").format(n=n))
        self.more.setAccessibleName(translate("View", "Show earlier messages"))
        m = len(self._later)
        self.later.setVisible(m > 0)
        self.later.setText(translate("View", "Show later messages ({m} more)").format(m=m))
        self.later.setAccessibleName(translate("View", "Show later messages"))

    # the blocks' signals, connected where each block is made
    def _user_bubble(self, message: Message) -> UserBubble:
        bubble = UserBubble(self.ctx, message)
        bubble.status_message.connect(self.status_message)
        bubble.branch_action.connect(self.branch_action)
        bubble.switch_to.connect(self.switch_branch)
        bubble.set_siblings(self._siblings)
        return bubble

    def _connect_turn(self, turn: AssistantTurn) -> AssistantTurn:
        turn.status_message.connect(self.status_message)
        turn.tool_clicked.connect(self.tool_clicked)
        turn.branch_action.connect(self.branch_action)
        turn.switch_to.connect(self.switch_branch)
        turn.set_siblings(self._siblings)
        return turn

    def adopt_messages(self, conversation: Conversation) -> None:
        """A turn ended: its answer, drawn as it streamed, gets the saved messages it shows (its actions act on
        them)."""
        blocks = display_blocks(conversation.messages)
        turns = [b for b in self.blocks if isinstance(b, AssistantTurn)]
        if blocks and blocks[-1][0] == "assistant" and turns and not turns[-1].live:
            turns[-1].set_messages(blocks[-1][1], self._siblings)

    def show_siblings(self, siblings: dict[int, list[int]]) -> None:
        """The chat's messages have (new) versions — a regenerated answer, an edited message: every block shows
        its ``‹ i/n ›``."""
        self._siblings = dict(siblings)
        for block in self.blocks:
            if isinstance(block, UserBubble | AssistantTurn):
                block.set_siblings(self._siblings)

    def _summary_card(self, message: Message) -> SummaryCard:
        card = SummaryCard(self.ctx, message)
        card.undo_requested.connect(self.undo_summary)
        return card

    def summary_cards(self) -> list[SummaryCard]:
        return [w for w in self.blocks if isinstance(w, SummaryCard)]

    def _make_block(self, kind: str, msgs: list[Message]) -> QWidget:
        block: QWidget
        if kind == "user":
            block = self._user_bubble(msgs[0])
        elif kind == "summary":
            block = self._summary_card(msgs[0])
        elif kind == "note":
            block = NoteLine(self.ctx, msgs[0])
        else:
            block = self._connect_turn(AssistantTurn.from_saved(self.ctx, msgs))
        setattr(block, "source", (kind, msgs))  # noqa: B010 - it can be released and rebuilt from these
        return block

    def _settle(self) -> None:
        # a pass looks at every block: skip it while the view moved less than half a screen (a streaming
        # answer growing at the bottom) and no block came or went
        value, screen = self.verticalScrollBar().value(), self.viewport().height()
        last = self._settled_at
        if last is not None and last[1] == len(self.blocks) and abs(value - last[0]) < screen / 2:
            return
        settle(self, self.col, self.blocks, self._make_block)
        self._settled_at = (self.verticalScrollBar().value(), len(self.blocks))
        self._fit_bubbles()

    def scroll_to_message(self, message_id: int) -> QWidget | None:
        """Show the block holding the saved message ``message_id``. An old message is reached by a
        jump — a fresh page around it, with "Show earlier/later messages" — never by creating every
        block in between."""
        k = next((i for i, (_kind, msgs) in enumerate(self._items) if any(m.id == message_id for m in msgs)), None)
        if k is None:
            return None
        if not (self._lo <= k < self._hi):
            lo = max(0, k - 5)
            self._show_range(lo, min(len(self._items), lo + self.PAGE))
        target = rebuild(self.col, self.blocks, k - self._lo, self._make_block)
        self._follow = False
        QTimer.singleShot(0, lambda: self.ensureWidgetVisible(target, 0, 60))
        return target

    def top_message_id(self) -> int | None:
        """The saved message at the top of the view — None when the view follows the end of the chat (a
        chat reopened there shows its end, new messages included)."""
        if self._follow:
            return None
        top = self.verticalScrollBar().value()
        for block in self.blocks:
            source = getattr(block, "source", None)
            if source is None or block.geometry().bottom() + self.column.y() < top:
                continue
            return next((m.id for m in source[1] if m.id is not None), None)
        return None

    def _append(self, w: W) -> W:
        if self._later:  # new messages go at the end: show the newest page again first
            self._show_range(max(0, len(self._items) - self.PAGE), len(self._items))
        self.col.insertWidget(2 + len(self.blocks), w)
        self.blocks.append(w)
        self._after_change()
        return w

    def _insert_before(self, anchor: QWidget, w: QWidget) -> QWidget:
        index = self.blocks.index(anchor)
        self.col.insertWidget(2 + index, w)
        self.blocks.insert(index, w)
        self._after_change()
        return w

    def set_tools_offered(self, on: bool) -> None:
        """Whether the model is offered tools: the empty chat's hint and suggestions follow it."""
        self.empty_state.set_tools(on)

    def add_user_message(self, text: str) -> UserBubble:
        self._follow = True
        return self._append(self._user_bubble(Message(role="user", content=text)))

    def _error_card(self, info: ErrorView) -> ErrorCard:
        card = ErrorCard(self.ctx, info)
        card.error_action.connect(self.error_action)
        return card

    def add_error(self, info: ErrorView) -> ErrorCard:
        return self._append(self._error_card(info))

    def remove_block(self, w: QWidget) -> None:
        if w in self.blocks:
            self.blocks.remove(w)
            self.col.removeWidget(w)
            w.hide()
            w.deleteLater()
        self.empty_state.setVisible(not self.blocks and not self._items)

    def _drop_pending_bubble(self) -> None:
        bubble, self._pending_bubble = self._pending_bubble, None
        if bubble is not None:
            self.remove_block(bubble)

    def error_cards(self) -> list[ErrorCard]:
        return [w for w in self.blocks if isinstance(w, ErrorCard)]

    # ---- events: each handler takes one event type (the controller's table routes them, see routes())
    def routes(self) -> dict[type, Callable[[Any], None]]:
        """Event type → the method that renders it (:class:`~desktop_agent.ui.event_table.EventTable`)."""
        return {
            TurnStarted: self.on_turn_started, TurnEnded: self.on_turn_ended, ChatCompacted: self.on_compacted,
            CompactionUndone: self.on_compaction_undone, MessageAdded: self.on_message_added,
            TextDelta: self.on_text, ThinkingDelta: self._to_live(lambda t, ev: t.on_thinking(ev.text)),
            ToolCallStarted: self._to_live(AssistantTurn.on_tool_started),
            ToolCallFinished: self._to_live(AssistantTurn.on_tool_finished),
            Notice: self._to_live(lambda t, ev: t.on_notice(ev.text)),
            RequestSent: self._to_live(AssistantTurn.on_request),
            ApprovalRequest: self._to_live(AssistantTurn.on_approval), AnswerFinished: self.on_answer,
            Question: self.on_question,
            TurnCancelled: self.on_cancelled, TurnFailed: self.on_failed, TurnCrashed: self.on_crashed,
        }

    def on_question(self, question: Question) -> None:
        """An MCP server's question: shown in the answer being streamed; with none, nobody can answer it."""
        if self.live is not None:
            self.live.on_question(question)
        else:
            question.answer(CANCEL)

    def _to_live(self, handle: Callable[[AssistantTurn, Any], None]) -> Callable[[Any], None]:
        """A handler giving its event to the answer being streamed (with none, the event has nothing to show)."""
        def route(ev: Any) -> None:
            if self.live is not None:
                handle(self.live, ev)
        return route

    def on_turn_started(self, ev: TurnStarted) -> None:
        if ev.compact:
            return  # summarising: no answer to show (its card comes with ChatCompacted)
        self._saved_failure = None  # the new turn answers it, or fails with its own error
        tail = next((b for b in reversed(self.blocks) if not isinstance(b, NoteLine)), None)
        if ev.user_text is None and isinstance(tail, ErrorCard):
            self.remove_block(tail)  # a Retry: the new turn replaces the error (a note after it stays)
        for card in self.error_cards():  # a new message after an older error: its actions are stale
            card.set_stale()
        self._follow = True
        self._unsent = ev.user_text
        # the user's message is drawn once, here — also while the turn waits (MCP servers starting, a backend
        # being built); the message the session saves (MessageAdded) is then put in this bubble
        self._pending_bubble = (self._append(self._user_bubble(Message(role="user", content=ev.user_text or "",
                                attachments=list(ev.attachments)))) if ev.user_text or ev.attachments else None)
        self.live = self._append(self._connect_turn(AssistantTurn(self.ctx, live=True, model=self.live_model)))
        self._tick.start()

    def on_turn_ended(self, ev: TurnEnded) -> None:
        if self._unsent is not None:
            text, self._unsent = self._unsent, None
            self._drop_pending_bubble()  # never saved: the text goes back into the message box
            self.unsent_text.emit(text)
        live = self.live
        if live is not None:
            if live.live:
                live.finish(None)
            self._end_live()

    def on_compacted(self, ev: ChatCompacted) -> None:
        new_card = self._summary_card(ev.summary)
        # the summary stands for messages before the turn's own: before its user bubble, if one is waiting
        anchor = self._pending_bubble or self.live
        if anchor is not None:
            self._insert_before(anchor, new_card)
        else:
            self._append(new_card)

    def add_note(self, message: Message) -> None:
        """A note about the chat (its model or system prompt changed) joins the end of it."""
        self._append(self._make_block("note", [message]))

    def on_compaction_undone(self, ev: CompactionUndone) -> None:
        k = next((i for i, (_kind, msgs) in enumerate(self._items) if msgs[0] is ev.summary), None)
        if k is not None:  # a card of the saved chat: its block goes too
            del self._items[k]
            self._lo -= k < self._lo
            self._hi -= k < self._hi
        for old_card in self.summary_cards():
            if old_card.message is ev.summary:
                self.remove_block(old_card)

    def on_message_added(self, ev: MessageAdded) -> None:
        live = self.live
        if live is None:
            return
        if ev.message.role == "user":
            self._unsent = None  # saved: it stays in the chat whatever happens to the turn
            bubble, self._pending_bubble = self._pending_bubble, None
            if isinstance(bubble, UserBubble):
                bubble.show_message(ev.message)
            else:  # a turn started elsewhere (no bubble drawn yet)
                self._insert_before(live, self._user_bubble(ev.message))
        elif ev.message.role == "assistant" and ev.message.model:
            live.set_meta(ev.message.model, ev.message.created_at)

    def on_text(self, ev: TextDelta) -> None:
        if self.live is not None:
            self.live.on_text(ev.text)
            self._frame()

    def on_answer(self, ev: AnswerFinished) -> None:
        if self.live is not None:
            self.live.finish(ev.message)
            self._end_live()

    def on_cancelled(self, ev: TurnCancelled) -> None:
        live = self.live
        if live is not None:
            live.finish(ev.partial, status=(ev.partial.status if ev.partial else "stopped"))
            if live.empty:
                live.set_status("stopped")
            self._end_live()

    def on_failed(self, ev: TurnFailed) -> None:
        self._end_failed(ev.partial, ev.error)

    def on_crashed(self, ev: TurnCrashed) -> None:
        if self.live is not None:  # a crash outside a turn's answer is reported by the controller alone
            self._end_failed(None, ev.error)

    def _end_failed(self, partial: Message | None, error: BaseException) -> None:
        live = self.live
        if live is not None:
            live.finish(partial)
            self._end_live()
            if live.empty:
                self.remove_block(live)
        self.add_error(describe(error))  # without a live answer: an action (summarising) failed

    def _end_live(self) -> None:
        self.live = None
        self._tick.stop()

    def _on_tick(self) -> None:
        if self.live is not None:
            self._frame(self.live.tick)

    def _frame(self, step=None) -> None:
        """Render what streamed in when its frame is due (``step``: what else to do first), lay it out and
        follow it, and pace the next frame by what this one cost."""
        live = self.live
        if live is None:
            return
        renders, t0 = self.render_count, time.thread_time()
        if step is not None:
            step()
        else:
            live.flush()
        if self.render_count != renders:
            self._settle_frame()
            self._pace((time.thread_time() - t0) * 1000)

    def _pace(self, cost_ms: float) -> None:
        """Set the streaming frame interval from what frames cost (render, layout, paint; smoothed): frames
        take about :data:`FRAME_BUDGET` of the GUI thread, between :data:`FRAME_MS` and :data:`MAX_FRAME_MS`
        apart."""
        self._frame_cost = cost_ms if self._frame_cost is None else 0.8 * self._frame_cost + 0.2 * cost_ms
        frame_ms = min(MAX_FRAME_MS, max(FRAME_MS, self._frame_cost / FRAME_BUDGET))
        if abs(frame_ms - self.ctx.frame_ms) >= 1:
            self.ctx.frame_ms = frame_ms
            self.frame_interval_changed.emit(frame_ms)

    def _settle_frame(self) -> None:
        """Lay out what a frame changed and follow it to the bottom now (the layout passes cascade: text →
        its column → turn → chat column → content). The frame's changes are painted before it scrolls: a
        scroll with no paint pending moves the pixels and paints only the uncovered strip, where one with a
        paint pending repaints the whole visible chat."""
        with self._bar.quiet():  # the scroll bar repaints once, if its handle moved on screen
            for _ in range(5):
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
            if self._follow_timer.isActive():
                self._follow_timer.stop()
                QCoreApplication.sendPostedEvents(self.window(), QEvent.Type.UpdateRequest)
                self._follow_bottom()

    # ---- scrolling and sizes
    def _scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _follow_bottom(self) -> None:
        if self._follow:
            self._scroll_to_bottom()

    def _on_range(self, _lo: int, hi: int) -> None:
        self._settle_timer.start()
        bar = self.verticalScrollBar()
        if self._anchor_from_bottom is not None:
            bar.setValue(max(0, hi - self._anchor_from_bottom))
            self._anchor_from_bottom = None
        elif self._follow and self.live is not None:
            # streaming: scrolled once the frame is laid out and painted (:meth:`_settle_frame`) — a scroll
            # made while the chat is being resized repaints the whole visible chat, one made after moves pixels
            self._follow_timer.start()
        elif self._follow:
            bar.setValue(hi)

    def _on_scroll(self, value: int) -> None:
        self._settle_timer.start()
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24
        if value == 0 and self._pending and bar.maximum() > 0:
            QTimer.singleShot(0, self.load_earlier)
        elif value == bar.maximum() and self._later and bar.maximum() > 0:
            QTimer.singleShot(0, self.load_later)

    def _fit_bubbles(self) -> None:
        w = int(max(200, self.column.width()) * 0.8)
        for b in self.blocks:
            if isinstance(b, UserBubble):
                b.set_max_width(w)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.column and event.type() == QEvent.Type.Resize:
            self._fit_bubbles()
        return super().eventFilter(obj, event)

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            QTimer.singleShot(0, self.restyle)
