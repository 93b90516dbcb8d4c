"""The chat: user bubbles on the right, assistant turns on the left, streamed in as they come.

Performance (long chats, fast streams):

- One small widget per displayed block (a user message, or the assistant side of one turn), created
  lazily: a loaded conversation materialises only its last :attr:`ChatView.PAGE` blocks; older ones are
  created a page at a time when the user scrolls to the top. A 2,000-message chat never becomes one
  giant document and never creates 2,000 widgets.
- While streaming, only the current text part is re-rendered, at most every :attr:`FRAME_MS` ms
  (≈ 30 fps; the interval grows when a render gets slow) from one timer that runs only during a turn.

Markdown and highlighting come from :mod:`desktop_agent.ui.markdown`, imported on the first render (the
window warms it up right after it shows).
"""

from __future__ import annotations

import html
import math
import time
from datetime import datetime
from typing import Any

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QFontDatabase, QTextCharFormat, QTextCursor, QTextOption
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.events import (
    AnswerFinished,
    MessageAdded,
    Notice,
    TextDelta,
    ThinkingDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnCancelled,
    TurnFailed,
)
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.ui import icons, theme
from desktop_agent.ui.agent_runner import ApprovalRequest, TurnCrashed, TurnEnded, TurnStarted
from desktop_agent.ui.errors import ErrorView, describe
from desktop_agent.ui.tool_sidebar import STATUS, format_duration, short_arguments, status_color

FRAME_MS = 33

#: characters above which an answer is shown as plain monospaced text instead of markdown: parsing and
#: laying out e.g. a 2,000-row table as HTML blocked the GUI thread ~2 s per render
PLAIN_TEXT_LIMIT = 100_000
PLAIN_TEXT_NOTE = "Shown as plain text (too large to format)."


def _md():
    from desktop_agent.ui import markdown

    return markdown


def _colors(th: theme.Theme):
    md = _md()
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    return md.Colors(
        text=th.text,
        muted=th.muted,
        link=th.link,
        code_bg=th.code_bg,
        code_head=th.code_head,
        inline_code_bg=th.inline_code_bg,
        border=th.assistant_border,
        mono_family=mono,
        pygments_style=th.pygments_style,
    )


# ---- text widgets ---------------------------------------------------------------------------------


class AutoHeightBrowser(QTextBrowser):
    """A read-only, selectable text view exactly as tall as its text (no scroll bars of its own).

    Wheel events go to the chat's scroll area. ``natural_width`` makes it as wide as its longest line
    (up to the width the layout allows) — used for user bubbles."""

    def __init__(self, parent: QWidget | None = None, *, natural_width: bool = False):
        super().__init__(parent)
        self.natural_width = natural_width
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
            | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.document().setDocumentMargin(0)
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; border: none; }")
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)

    def _fit(self, *_args) -> None:
        h = math.ceil(self.document().size().height()) + 2 * self.frameWidth()
        if h != self.height():
            self.setFixedHeight(max(h, 1))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        w = self.viewport().width()
        if abs(self.document().textWidth() - w) > 0.5:
            self.document().setTextWidth(w)
        self._fit()

    def sizeHint(self) -> QSize:
        if self.natural_width:
            doc = self.document().clone()
            doc.setTextWidth(-1)
            w = math.ceil(doc.idealWidth()) + 2 * self.frameWidth() + 2
            return QSize(w, self.height())
        return QSize(400, self.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(40, self.height())

    def wheelEvent(self, event) -> None:
        event.ignore()


class TextPart(AutoHeightBrowser):
    """A markdown part of an assistant turn. ``append`` buffers text; ``flush`` renders if changed."""

    status_message = Signal(str)

    def __init__(self, view: ChatView, text: str = ""):
        super().__init__()
        self.view = view
        self.setObjectName("assistantText")
        self.setAccessibleName("Assistant message")
        self.buffer = text
        self.codes: list[str] = []
        self._rendered: str | None = None
        self._render_ms = 0.0
        self._last = 0.0
        self._copied: int | None = None
        #: True when the text is past :data:`PLAIN_TEXT_LIMIT` and shown unformatted
        self.plain = False
        self.anchorClicked.connect(self._on_link)
        if text:
            self.render()

    def append(self, text: str) -> None:
        self.buffer += text

    @property
    def dirty(self) -> bool:
        return self._rendered != self.buffer

    def due(self, now: float) -> bool:
        """Throttle: re-render at most every FRAME_MS, or 4× the last render time when it is slow."""
        return self.dirty and (now - self._last) * 1000 >= max(FRAME_MS, 4 * self._render_ms)

    def note_text(self) -> str:
        """The note shown above an answer too large to format ("" for a normal answer)."""
        return PLAIN_TEXT_NOTE if self.plain else ""

    def _render_plain(self) -> None:
        doc = self.document()
        doc.setDefaultStyleSheet("")
        doc.setDefaultFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setPlainText(self.buffer)
        cursor = QTextCursor(doc)
        fmt = QTextCharFormat()
        fmt.setFontItalic(True)
        fmt.setForeground(QColor(theme.current().muted))
        cursor.insertText(PLAIN_TEXT_NOTE + "\n", fmt)
        self.codes = []

    def render(self) -> None:
        t0 = time.perf_counter()
        self._rendered = self.buffer
        if len(self.buffer) > PLAIN_TEXT_LIMIT:
            self.plain = True
            self._render_plain()
            self._render_ms = (time.perf_counter() - t0) * 1000
            self._last = time.monotonic()
            self.view.count_render(self)
            return
        self.plain = False
        md = _md()
        colors = self.view.md_colors()
        out = md.render(self.buffer, colors, copied=self._copied)
        self.document().setDefaultStyleSheet(md.style_sheet(colors))
        self.setHtml(out.html)
        self.codes = out.codes
        self._render_ms = (time.perf_counter() - t0) * 1000
        self._last = time.monotonic()
        self.view.count_render(self)

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == "copy":
            try:
                n = int(url.path())
                QApplication.clipboard().setText(self.codes[n])
            except (ValueError, IndexError):
                return
            self._copied = n
            self.render()
            self.view.status_message.emit("Code copied to the clipboard")
            QTimer.singleShot(1500, self._uncopy)
        elif url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)

    def _uncopy(self) -> None:
        self._copied = None
        self.render()


class ThinkingPart(QWidget):
    """Reasoning, collapsed: a header "Thinking… 2.1 s" / "Thought for 3.2 s"; click to expand."""

    def __init__(self, view: ChatView, text: str = "", live: bool = True):
        super().__init__()
        self.view = view
        self.text = text
        self.started = time.monotonic()
        self.duration_s: float | None = None
        self.live = live
        self.toggle = QToolButton()
        self.toggle.setObjectName("thinkingToggle")
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setCursor(Qt.CursorShape.PointingHandCursor)
        self.toggle.toggled.connect(self._toggled)
        self.body = AutoHeightBrowser()
        self.body.setObjectName("thinkingText")
        self.body.setAccessibleName("Thinking")
        self.body.setVisible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 2)
        lay.setSpacing(4)
        lay.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addWidget(self.body)
        self._shown_len = -1
        self.update_label()

    def append(self, text: str) -> None:
        self.text += text

    def finish(self) -> None:
        if self.live:
            self.live = False
            self.duration_s = time.monotonic() - self.started
        self.update_label()
        self.flush()

    def update_label(self) -> None:
        th = self.view.theme
        if self.live:
            label = f"Thinking… {time.monotonic() - self.started:.1f} s"
        elif self.duration_s is not None:
            label = f"Thought for {self.duration_s:.1f} s"
        else:
            label = "Thoughts"
        self.toggle.setText(label)
        self.toggle.setAccessibleName(label + (" (expanded)" if self.toggle.isChecked() else " (collapsed)"))
        self.toggle.setIcon(icons.icon("chevron-down" if self.toggle.isChecked() else "chevron-right", th.muted))

    def flush(self) -> None:
        if self.body.isVisible() and self._shown_len != len(self.text):
            self.body.setPlainText(self.text.strip())
            self._shown_len = len(self.text)

    def _toggled(self, on: bool) -> None:
        self.body.setVisible(on)
        self.flush()
        self.update_label()


class ToolChip(QToolButton):
    """The inline marker where a tool ran: ``✓ get_weather · location=Paris · 0.4 s``. Click → sidebar."""

    def __init__(self, view: ChatView, call_id: str, name: str, arguments: dict | None):
        super().__init__()
        self.view = view
        self.call_id, self.name, self.arguments = call_id, name, dict(arguments or {})
        self.status = "running"
        self.duration_ms: float | None = None
        self.started = time.monotonic()
        self.setObjectName("toolChip")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAutoRaise(True)
        self.clicked.connect(lambda: view.tool_clicked.emit(self.call_id))
        self.refresh()

    def finish(self, status: str, duration_ms: float | None) -> None:
        self.status, self.duration_ms = status, duration_ms
        self.refresh()

    def refresh(self) -> None:
        icon_name, label = STATUS.get(self.status, ("info", self.status))
        color = status_color(self.status, self.view.theme)
        self.setIcon(icons.icon(icon_name, color))
        ms = (time.monotonic() - self.started) * 1000 if self.status == "running" else self.duration_ms
        bits = [self.name]
        args = short_arguments(self.arguments, 40)
        if args:
            bits.append(args)
        dur = format_duration(ms)
        if dur:
            bits.append(dur)
        if self.status not in ("ok", "running"):
            bits.append(label)
        self.setText("  ·  ".join(bits))
        self.setToolTip(f"{self.name}: {label} — click to see the call in the tool sidebar")
        self.setAccessibleName(f"Tool call {self.name}, {label}, {dur}")


class ToolsPart(QWidget):
    """A column of tool chips (one step's tool calls)."""

    def __init__(self, view: ChatView):
        super().__init__()
        self.view = view
        self.setObjectName("toolsPart")
        self.lay = QVBoxLayout(self)
        self.lay.setContentsMargins(0, 2, 0, 2)
        self.lay.setSpacing(2)
        self.chips: dict[str, ToolChip] = {}

    def add(self, call_id: str, name: str, arguments: dict | None) -> ToolChip:
        chip = ToolChip(self.view, call_id, name, arguments)
        self.chips[call_id] = chip
        self.lay.addWidget(chip, 0, Qt.AlignmentFlag.AlignLeft)
        return chip


class ApprovalCard(QFrame):
    """"Allow <tool> to run?" with the arguments and Allow / Deny."""

    def __init__(self, view: ChatView, request: ApprovalRequest):
        super().__init__()
        self.request = request
        self.setObjectName("approvalCard")
        self.setAccessibleName(f"Approve tool {request.tool_name}")
        th = view.theme
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 10, 12, 10)
        lay.setSpacing(6)
        title = QLabel(f"<b>Allow <code>{html.escape(request.tool_name)}</code> to run?</b>")
        lay.addWidget(title)
        args = short_arguments(request.arguments, 300)
        if args:
            a = QLabel(html.escape(args))
            a.setWordWrap(True)
            a.setStyleSheet(f"color: {th.muted};")
            a.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            lay.addWidget(a)
        row = QHBoxLayout()
        self.allow = QPushButton("Allow")
        self.allow.setAccessibleName(f"Allow {request.tool_name}")
        self.deny = QPushButton("Deny")
        self.deny.setAccessibleName(f"Deny {request.tool_name}")
        self.allow.clicked.connect(lambda: self._answer(True))
        self.deny.clicked.connect(lambda: self._answer(False))
        row.addWidget(self.allow)
        row.addWidget(self.deny)
        row.addStretch(1)
        lay.addLayout(row)
        self.result = QLabel()
        self.result.setVisible(False)
        lay.addWidget(self.result)

    def _answer(self, allowed: bool) -> None:
        self.request.answer(allowed)
        self.settle()

    def settle(self) -> None:
        """Show the decision (or that the turn ended first) and disable the buttons."""
        self.allow.setEnabled(False)
        self.deny.setEnabled(False)
        self.result.setText("Allowed" if self.request.allowed else "Denied")
        self.result.setVisible(True)


# ---- blocks ------------------------------------------------------------------------------------------


def _time_text(ts: float | None) -> str:
    return datetime.fromtimestamp(ts or time.time()).strftime("%H:%M")


class _CopyButton(QToolButton):
    def __init__(self, view: ChatView, what: str):
        super().__init__()
        self.setObjectName("copyButton")
        self.setAutoRaise(True)
        self.setIcon(icons.icon("copy", view.theme.muted))
        self.setIconSize(QSize(15, 15))
        self.setToolTip(f"Copy {what}")
        self.setAccessibleName(f"Copy {what}")
        self.setCursor(Qt.CursorShape.PointingHandCursor)


class UserBubble(QWidget):
    """A user message, right-aligned, with a copy button."""

    def __init__(self, view: ChatView, message: Message):
        super().__init__()
        self.view = view
        self.message = message
        self.bubble = QFrame()
        self.bubble.setObjectName("userBubble")
        bl = QVBoxLayout(self.bubble)
        bl.setContentsMargins(14, 9, 14, 9)
        self.text = AutoHeightBrowser(natural_width=True)
        self.text.setObjectName("userText")
        self.text.setAccessibleName("Your message")
        self.text.setPlainText(message.content)
        bl.addWidget(self.text)
        self.copy = _CopyButton(view, "message")
        self.copy.clicked.connect(self._copy)
        row = QHBoxLayout(self)
        row.setContentsMargins(48, 0, 0, 0)
        row.setSpacing(4)
        row.addStretch(1)
        row.addWidget(self.copy, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.bubble, 0)
        self.setAccessibleName("Your message")

    def _copy(self) -> None:
        QApplication.clipboard().setText(self.message.content)
        self.view.status_message.emit("Message copied to the clipboard")

    def set_max_width(self, w: int) -> None:
        self.bubble.setMaximumWidth(w)


class AssistantTurn(QFrame):
    """The assistant side of one turn: thinking, text, tool markers, notices, in the order they came."""

    def __init__(self, view: ChatView, *, live: bool = False, model: str | None = None, ts: float | None = None):
        super().__init__()
        self.view = view
        self.live = live
        self.setObjectName("assistantTurn")
        self.setAccessibleName("Assistant message")
        self.parts: list[QWidget] = []
        self.chips: dict[str, ToolChip] = {}
        self.approvals: list[ApprovalCard] = []

        outer = QVBoxLayout(self)
        outer.setContentsMargins(14, 10, 14, 10)
        outer.setSpacing(6)
        head = QHBoxLayout()
        head.setSpacing(6)
        self.avatar = QLabel()
        self.avatar.setPixmap(icons.pixmap("assistant", 16, view.theme.accent, self.devicePixelRatioF()))
        self.title = QLabel("Assistant")
        self.title.setObjectName("turnTitle")
        self.meta = QLabel()
        self.meta.setObjectName("turnMeta")
        self.tag = QLabel()
        self.tag.setObjectName("statusTag")
        self.tag.setVisible(False)
        self.copy = _CopyButton(view, "answer")
        self.copy.clicked.connect(self._copy)
        head.addWidget(self.avatar)
        head.addWidget(self.title)
        head.addWidget(self.meta)
        head.addWidget(self.tag)
        head.addStretch(1)
        head.addWidget(self.copy)
        outer.addLayout(head)
        self.body = QVBoxLayout()
        self.body.setSpacing(6)
        self.body.setContentsMargins(0, 0, 0, 0)
        outer.addLayout(self.body)
        self.typing = QLabel("…")
        self.typing.setObjectName("typing")
        self.typing.setAccessibleName("The assistant is answering")
        self.notice = QLabel()
        self.notice.setObjectName("notice")
        self.notice.setWordWrap(True)
        self.notice.setVisible(False)
        outer.addWidget(self.notice)
        self.body.addWidget(self.typing)
        self.typing.setVisible(live)
        self._dots = 0
        self.set_meta(model, ts)

    # --- building
    def set_meta(self, model: str | None, ts: float | None) -> None:
        bits = [b for b in (model, _time_text(ts)) if b]
        self.meta.setText("  ·  ".join(bits))

    def _add(self, part: QWidget) -> QWidget:
        self.typing.setVisible(False)
        self.parts.append(part)
        self.body.insertWidget(self.body.count() - 1, part)
        return part

    def last(self, kind: type) -> Any:
        return self.parts[-1] if self.parts and isinstance(self.parts[-1], kind) else None

    def add_text(self, text: str) -> TextPart:
        return self._add(TextPart(self.view, text))

    def add_thinking(self, text: str, live: bool) -> ThinkingPart:
        return self._add(ThinkingPart(self.view, text, live))

    def tools_part(self) -> ToolsPart:
        return self.last(ToolsPart) or self._add(ToolsPart(self.view))

    def add_tool(self, call_id: str, name: str, arguments: dict | None, status: str = "running",
                 duration_ms: float | None = None) -> ToolChip:
        chip = self.tools_part().add(call_id, name, arguments)
        self.chips[call_id] = chip
        if status != "running":
            chip.finish(status, duration_ms)
        return chip

    def set_status(self, status: str) -> None:
        text = {"stopped": "Stopped", "interrupted": "Interrupted"}.get(status)
        self.tag.setText(text or "")
        self.tag.setVisible(bool(text))

    def text_content(self) -> str:
        return "\n\n".join(p.buffer for p in self.parts if isinstance(p, TextPart) and p.buffer.strip())

    def _copy(self) -> None:
        QApplication.clipboard().setText(self.text_content())
        self.view.status_message.emit("Answer copied to the clipboard")

    # --- streaming
    def _close_thinking(self) -> None:
        for p in self.parts:
            if isinstance(p, ThinkingPart) and p.live:
                p.finish()

    def on_text(self, text: str) -> None:
        self.notice.setVisible(False)
        self._close_thinking()
        part = self.last(TextPart) or self.add_text("")
        part.append(text)

    def on_thinking(self, text: str) -> None:
        part = self.last(ThinkingPart)
        if part is None or not part.live:
            part = self.add_thinking("", True)
        part.append(text)

    def on_tool_started(self, ev: ToolCallStarted) -> None:
        self._close_thinking()
        self.flush(force=True)
        self.add_tool(ev.call_id, ev.name, ev.arguments)

    def on_tool_finished(self, ev: ToolCallFinished) -> None:
        status = getattr(ev, "status", None) or ("ok" if ev.ok else "error")
        chip = self.chips.get(ev.call_id) or self.add_tool(ev.call_id, ev.name, {})
        chip.finish(status, ev.duration_ms)

    def on_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setVisible(True)

    def on_approval(self, request: ApprovalRequest) -> None:
        self.approvals.append(self._add(ApprovalCard(self.view, request)))

    def tick(self) -> None:
        now = time.monotonic()
        for p in self.parts:
            if isinstance(p, ThinkingPart) and p.live:
                p.update_label()
                p.flush()
            elif isinstance(p, ToolsPart):
                for chip in p.chips.values():
                    if chip.status == "running":
                        chip.refresh()
        self.flush(now=now)
        if self.typing.isVisible():
            self._dots = (self._dots + 1) % 30
            self.typing.setText("●" + " ●" * (self._dots // 10))

    def flush(self, force: bool = False, now: float | None = None) -> None:
        now = now or time.monotonic()
        for p in self.parts:
            if isinstance(p, TextPart) and (p.dirty if force else p.due(now)):
                p.render()

    def finish(self, message: Message | None = None, status: str | None = None) -> None:
        """The turn is over. ``message``: the final assistant message (authoritative text)."""
        self.live = False
        self._close_thinking()
        self.notice.setVisible(False)
        if message is not None:
            if message.thinking and not any(isinstance(p, ThinkingPart) for p in self.parts):
                self._add(ThinkingPart(self.view, message.thinking, live=False))
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
                card.request.answer(False)
            card.settle()
        for chip in self.chips.values():
            if chip.status == "running":
                chip.finish("cancelled", (time.monotonic() - chip.started) * 1000)
        self.flush(force=True)
        self.typing.setVisible(False)
        if status and status != "complete":
            self.set_status(status)

    @property
    def empty(self) -> bool:
        return not self.parts


class ErrorCard(QFrame):
    """An inline error: icon, title, the actionable text and buttons (Retry, Pull <model>…)."""

    def __init__(self, view: ChatView, info: ErrorView):
        super().__init__()
        self.view = view
        self.info = info
        self.setObjectName("errorCard")
        self.setAccessibleName(f"Error: {info.title}")
        th = view.theme
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
        self.text = QLabel(_inline_code(info.text))
        self.text.setObjectName("errorText")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAccessibleName("Error message")
        col.addWidget(self.title)
        col.addWidget(self.text)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.progress.setTextVisible(True)
        self.progress.setMaximumWidth(360)
        self.progress.setAccessibleName("Progress")
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
            b.clicked.connect(lambda _=False, a=action: view.error_action.emit(a, self))
            row.addWidget(b)
            self.buttons[action.label] = b
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
        for b in self.buttons.values():
            b.setEnabled(not busy and not self.stale)

    #: the chat went on after this error: its Retry / Pull / Use actions would act on a later state
    stale = False

    #: actions that stay useful on an old card
    TIMELESS = ("open_settings", "new_chat")

    def set_stale(self) -> None:
        """The conversation went on after this error (a new message was sent): Retry, Pull and Use
        would now act on the latest message, not on this one — disable them (the card and its text
        stay, so nothing is lost)."""
        self.stale = True
        for action in self.info.actions:
            b = self.buttons.get(action.label)
            if b is not None and action.kind not in self.TIMELESS:
                b.setEnabled(False)
                b.setToolTip("This error is from an earlier message; the chat has moved on.")


def _inline_code(text: str) -> str:
    """Escape, and show `backticked` parts in a monospace font."""
    parts = html.escape(text).split("`")
    out = []
    for i, p in enumerate(parts):
        out.append(f"<code>{p}</code>" if i % 2 else p)
    return "".join(out)


class EmptyState(QWidget):
    """What an empty chat shows: a greeting and a few prompts to try."""

    suggestion = Signal(str)

    SUGGESTIONS = (
        "What day of the week is it today?",
        "Explain Python's GIL in three bullet points",
        "Write a shell one-liner that finds the largest files",
    )

    def __init__(self, view: ChatView):
        super().__init__()
        self.setObjectName("emptyState")
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(10)
        lay.addStretch(3)
        logo = QLabel()
        logo.setPixmap(icons.pixmap("desktop-agent", 72, None, self.devicePixelRatioF()))
        logo.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(logo)
        title = QLabel("How can I help?")
        title.setObjectName("emptyTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        lay.addWidget(title)
        self.hint = QLabel(
            "Ask anything. The assistant can use tools — you'll see each call in the sidebar."
        )
        self.hint.setObjectName("emptyHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        lay.addWidget(self.hint)
        lay.addSpacing(8)
        for text in self.SUGGESTIONS:
            b = QPushButton(text)
            b.setObjectName("suggestion")
            b.setCursor(Qt.CursorShape.PointingHandCursor)
            b.setAccessibleName(f"Ask: {text}")
            b.clicked.connect(lambda _=False, t=text: self.suggestion.emit(t))
            row = QHBoxLayout()
            row.addStretch(1)
            row.addWidget(b)
            row.addStretch(1)
            lay.addLayout(row)
        lay.addStretch(4)


# ---- the view -----------------------------------------------------------------------------------------


def display_blocks(messages: list[Message]) -> list[tuple[str, list[Message]]]:
    """Group a history into blocks: ``("user", [msg])`` and ``("assistant", [assistant/tool msgs…])``."""
    blocks: list[tuple[str, list[Message]]] = []
    for m in messages:
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
    """The conversation. Feed it events with :meth:`handle`; load a saved chat with :meth:`set_conversation`."""

    PAGE = 40

    status_message = Signal(str)
    #: an error card's button: (ErrorAction, ErrorCard)
    error_action = Signal(object, object)
    #: a tool chip was clicked (call id)
    tool_clicked = Signal(str)
    #: an empty-state suggestion was clicked
    suggestion = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("chatView")
        self.setAccessibleName("Conversation")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.theme = theme.current()
        self._md_colors = None
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
        self.empty_state = EmptyState(self)
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

        #: the model the next turn asks (the window sets it): shown in the header while the answer streams
        self.live_model: str | None = None
        self.blocks: list[QWidget] = []  # materialised, in order
        self._items: list[tuple[str, list[Message]]] = []  # the loaded conversation, as display blocks
        self._lo = self._hi = 0  # items[_lo:_hi] have widgets
        self.live: AssistantTurn | None = None
        self._follow = True
        self._anchor_from_bottom: int | None = None
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._on_range)
        bar.valueChanged.connect(self._on_scroll)
        self._tick = QTimer(self)
        self._tick.setInterval(FRAME_MS)
        self._tick.timeout.connect(self._on_tick)
        self.restyle()

    # ---- theme / markdown
    def md_colors(self):
        if self._md_colors is None:
            self._md_colors = _colors(self.theme)
        return self._md_colors

    def count_render(self, _part) -> None:
        self.render_count += 1

    def restyle(self) -> None:
        """Re-derive colours from the palette (light/dark switch) and re-render what is shown."""
        self.theme = th = theme.current()
        self._md_colors = None
        self.content.setStyleSheet(
            f"""
            QWidget#chatContent {{ background: {th.base}; }}
            QFrame#userBubble {{ background: {th.user_bubble}; border: 1px solid {th.user_border};
                                 border-radius: 14px; }}
            QFrame#assistantTurn {{ background: {th.assistant_bubble}; border: 1px solid {th.assistant_border};
                                    border-radius: 14px; }}
            QTextBrowser {{ color: {th.text}; }}
            QTextBrowser#thinkingText {{ color: {th.muted}; }}
            QLabel#turnTitle {{ font-weight: 600; color: {th.text}; }}
            QLabel#turnMeta {{ color: {th.muted}; }}
            QLabel#statusTag {{ color: {th.warn}; border: 1px solid {th.warn}; border-radius: 8px;
                                padding: 0px 6px; font-size: 11px; }}
            QLabel#typing {{ color: {th.muted}; }}
            QLabel#notice {{ color: {th.warn}; font-style: italic; }}
            QToolButton#thinkingToggle {{ color: {th.muted}; border: none; padding: 2px 0px; }}
            QToolButton#toolChip {{ color: {th.text}; background: {th.code_bg}; border: 1px solid {th.assistant_border};
                                    border-radius: 11px; padding: 3px 10px 3px 6px; }}
            QToolButton#toolChip:hover {{ border-color: {th.accent}; }}
            QToolButton#copyButton {{ border: none; border-radius: 6px; padding: 3px; }}
            QToolButton#copyButton:hover {{ background: {th.faint}; }}
            QFrame#errorCard {{ background: {th.error_bg}; border: 1px solid {th.error_border}; border-radius: 12px; }}
            QLabel#errorTitle {{ font-weight: 600; color: {th.text}; }}
            QLabel#errorText {{ color: {th.text}; }}
            QFrame#approvalCard {{ background: {th.code_bg}; border: 1px solid {th.accent}; border-radius: 12px; }}
            QLabel#emptyTitle {{ font-size: 22px; font-weight: 600; color: {th.text}; }}
            QLabel#emptyHint {{ color: {th.muted}; }}
            QPushButton#suggestion {{ color: {th.text}; background: {th.assistant_bubble};
                                      border: 1px solid {th.assistant_border}; border-radius: 14px;
                                      padding: 7px 16px; }}
            QPushButton#suggestion:hover {{ border-color: {th.accent}; }}
            QPushButton#loadEarlier {{ color: {th.link}; border: none; padding: 4px 10px; }}
            """
        )
        for w in self.blocks:
            self._restyle_block(w)

    def _restyle_block(self, w: QWidget) -> None:
        if isinstance(w, AssistantTurn):
            w.avatar.setPixmap(icons.pixmap("assistant", 16, self.theme.accent, w.devicePixelRatioF()))
            w.copy.setIcon(icons.icon("copy", self.theme.muted))
            for p in w.parts:
                if isinstance(p, TextPart):
                    p.render()
                elif isinstance(p, ThinkingPart):
                    p.update_label()
                elif isinstance(p, ToolsPart):
                    for chip in p.chips.values():
                        chip.refresh()
        elif isinstance(w, UserBubble):
            w.copy.setIcon(icons.icon("copy", self.theme.muted))

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
            w.deleteLater()
        self.blocks.clear()

    def clear(self) -> None:
        self._tick.stop()
        self.live = None
        self._remove_widgets()
        self._items, self._lo, self._hi = [], 0, 0
        self._update_buttons()
        self.empty_state.setVisible(True)
        self._follow = True

    def set_conversation(self, conversation: Conversation) -> None:
        """Show a saved conversation: only the newest :attr:`PAGE` blocks are created now."""
        self.clear()
        self._items = display_blocks(conversation.messages)
        self._show_range(max(0, len(self._items) - self.PAGE), len(self._items))
        self._follow = True
        self._scroll_to_bottom()

    def _show_range(self, lo: int, hi: int) -> None:
        """Create the widgets for items[lo:hi] only (a fresh window onto the conversation)."""
        self._remove_widgets()
        widgets = [self._make_block(kind, msgs) for kind, msgs in self._items[lo:hi]]
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
        self._after_change()
        return len(take)

    def _update_buttons(self) -> None:
        n = len(self._pending)
        self.more.setVisible(n > 0)
        self.more.setText(f"Show earlier messages ({n} more)")
        self.more.setAccessibleName("Show earlier messages")
        m = len(self._later)
        self.later.setVisible(m > 0)
        self.later.setText(f"Show later messages ({m} more)")
        self.later.setAccessibleName("Show later messages")

    def _make_block(self, kind: str, msgs: list[Message]) -> QWidget:
        if kind == "user":
            return UserBubble(self, msgs[0])
        turn = AssistantTurn(self, model=None, ts=msgs[0].created_at)
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
        target = self.blocks[k - self._lo]
        self._follow = False
        QTimer.singleShot(0, lambda: self.ensureWidgetVisible(target, 0, 60))
        return target

    def _append(self, w: QWidget) -> QWidget:
        if self._later:  # new messages go at the end: show the newest page again first
            self._show_range(max(0, len(self._items) - self.PAGE), len(self._items))
        self.col.insertWidget(2 + len(self.blocks), w)
        self.blocks.append(w)
        self._after_change()
        return w

    def add_user_message(self, text: str) -> UserBubble:
        self._follow = True
        return self._append(UserBubble(self, Message(role="user", content=text)))

    def add_error(self, info: ErrorView) -> ErrorCard:
        return self._append(ErrorCard(self, info))

    def remove_block(self, w: QWidget) -> None:
        if w in self.blocks:
            self.blocks.remove(w)
            self.col.removeWidget(w)
            w.deleteLater()
        self.empty_state.setVisible(not self.blocks and not self._items)

    def error_cards(self) -> list[ErrorCard]:
        return [w for w in self.blocks if isinstance(w, ErrorCard)]

    # ---- events
    def handle(self, ev: object) -> None:
        """Render one event from :class:`~desktop_agent.ui.agent_runner.AgentRunner`."""
        if isinstance(ev, TurnStarted):
            if self.blocks and isinstance(self.blocks[-1], ErrorCard):
                self.remove_block(self.blocks[-1])  # a Retry: the new turn replaces the error
            for card in self.error_cards():  # a new message after an older error: its actions are stale
                card.set_stale()
            self._follow = True
            self.live = self._append(AssistantTurn(self, live=True, model=self.live_model))
            self._tick.start()
            return
        live = self.live
        if live is None:
            return
        if isinstance(ev, TextDelta):
            live.on_text(ev.text)
        elif isinstance(ev, ThinkingDelta):
            live.on_thinking(ev.text)
        elif isinstance(ev, ToolCallStarted):
            live.on_tool_started(ev)
        elif isinstance(ev, ToolCallFinished):
            live.on_tool_finished(ev)
        elif isinstance(ev, Notice):
            live.on_notice(ev.text)
        elif isinstance(ev, ApprovalRequest):
            live.on_approval(ev)
        elif isinstance(ev, MessageAdded):
            if ev.message.role == "assistant" and ev.message.model:
                live.set_meta(ev.message.model, ev.message.created_at)
        elif isinstance(ev, AnswerFinished):
            live.finish(ev.message)
            self._end_live()
        elif isinstance(ev, TurnCancelled):
            live.finish(ev.partial, status=(ev.partial.status if ev.partial else "stopped"))
            if live.empty:
                live.set_status("stopped")
            self._end_live()
        elif isinstance(ev, TurnFailed | TurnCrashed):
            live.finish(getattr(ev, "partial", None))
            self._end_live()
            if live.empty:
                self.remove_block(live)
            self.add_error(describe(ev.error))
        elif isinstance(ev, TurnEnded):
            if live.live:
                live.finish(None)
            self._end_live()

    def _end_live(self) -> None:
        self.live = None
        self._tick.stop()

    def _on_tick(self) -> None:
        if self.live is not None:
            self.live.tick()

    # ---- scrolling and sizes
    def _scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _on_range(self, _lo: int, hi: int) -> None:
        bar = self.verticalScrollBar()
        if self._anchor_from_bottom is not None:
            bar.setValue(max(0, hi - self._anchor_from_bottom))
            self._anchor_from_bottom = None
        elif self._follow:
            bar.setValue(hi)

    def _on_scroll(self, value: int) -> None:
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
