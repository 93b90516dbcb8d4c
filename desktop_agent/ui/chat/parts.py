"""The streamed parts of an assistant turn: a markdown text part and the collapsed thinking section."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QDesktopServices, QFontDatabase, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QApplication, QToolButton, QVBoxLayout, QWidget

from desktop_agent.ui import icons, theme
from desktop_agent.ui.chat.context import ChatContext, markdown_module
from desktop_agent.ui.chat.widgets import AutoHeightBrowser

#: the shortest interval (ms) between two renders of a streaming text part (≈ 30 fps)
FRAME_MS = 33

#: characters above which an answer is shown as plain monospaced text instead of markdown: parsing and
#: laying out e.g. a 2,000-row table as HTML blocked the GUI thread ~2 s per render
PLAIN_TEXT_LIMIT = 100_000
PLAIN_TEXT_NOTE = "Shown as plain text (too large to format)."


class TextPart(AutoHeightBrowser):
    """A markdown part of an assistant turn. ``append`` buffers text; ``flush`` renders if changed."""

    #: a line for the status bar ("Code copied to the clipboard")
    status_message = Signal(str)

    def __init__(self, ctx: ChatContext, text: str = ""):
        super().__init__()
        self.ctx = ctx
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
            self.render_text()

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

    def render_text(self) -> None:
        t0 = time.perf_counter()
        self._rendered = self.buffer
        if len(self.buffer) > PLAIN_TEXT_LIMIT:
            self.plain = True
            self._render_plain()
            self._render_ms = (time.perf_counter() - t0) * 1000
            self._last = time.monotonic()
            self.ctx.on_render(self)
            return
        self.plain = False
        md = markdown_module()
        colors = self.ctx.md_colors()
        out = md.render(self.buffer, colors, copied=self._copied)
        self.document().setDefaultStyleSheet(md.style_sheet(colors))
        self.setHtml(out.html)
        self.codes = out.codes
        self._render_ms = (time.perf_counter() - t0) * 1000
        self._last = time.monotonic()
        self.ctx.on_render(self)

    def _on_link(self, url: QUrl) -> None:
        if url.scheme() == "copy":
            try:
                n = int(url.path())
                QApplication.clipboard().setText(self.codes[n])
            except (ValueError, IndexError):
                return
            self._copied = n
            self.render_text()
            self.status_message.emit("Code copied to the clipboard")
            QTimer.singleShot(1500, self._uncopy)
        elif url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)

    def _uncopy(self) -> None:
        self._copied = None
        self.render_text()


class ThinkingPart(QWidget):
    """Reasoning, collapsed: a header "Thinking… 2.1 s" / "Thought for 3.2 s"; click to expand."""

    def __init__(self, ctx: ChatContext, text: str = "", live: bool = True):
        super().__init__()
        self.ctx = ctx
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
        th = self.ctx.theme
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
