"""The streamed parts of an assistant turn: a markdown text part and the collapsed thinking section.

A streaming :class:`TextPart` renders incrementally (:meth:`TextPart.render_live`): the finished top-level
blocks at the start of its text (``markdown_growth.finished_prefix``) are rendered once and stay in the document;
each frame replaces only what follows them — the open block — so a frame costs the same at 1,000 and at
20,000 tokens. An open code fence is shown unhighlighted until it closes. The document then is the same as
a full render of the text (``tests/gui/test_incremental_render.py`` compares them).
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFontDatabase,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
)
from PySide6.QtWidgets import QApplication, QLayout, QToolButton, QVBoxLayout, QWidget

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.ui import icons, theme
from desktop_agent.ui.chat.context import ChatContext, markdown_growth, markdown_module
from desktop_agent.ui.chat.widgets import AutoHeightBrowser, repaint_only_changes
from desktop_agent.ui.i18n import translate

#: the shortest interval (ms) between two renders of a streaming text part (≈ 30 fps)
FRAME_MS = 33
#: the longest: the view lengthens the interval as frames get costly (a fast stream, a long open block, a slow
#: machine), up to this — streamed text arrives once a frame (the runner's batch follows the pace), so new text
#: is on screen within a quarter second. (At most 100 ms cost a 500 tokens/s stream ≈ 7× the CPU of one render
#: of its answer: each frame's fixed part — the open block's render, the layout cascade, the paint — came ten
#: times a second; issue 23)
MAX_FRAME_MS = 250
#: the share of the GUI thread streaming frames may take before the interval grows
FRAME_BUDGET = 0.03

#: characters above which an answer is shown as plain monospaced text instead of markdown: parsing and
#: laying out e.g. a 2,000-row table as HTML blocked the GUI thread ~2 s per render
PLAIN_TEXT_LIMIT = 100_000
PLAIN_TEXT_NOTE = QT_TRANSLATE_NOOP("Parts", "Shown as plain text (too large to format).")

#: a streaming part moves its finished blocks into a sealed chunk of their own once they hold this many
#: characters: Qt draws and edits a document in time proportional to its size, so one growing document
#: would make each frame slower; a chunk is drawn only while it is on screen. The frame that seals lays the
#: chunk out again in its own view (≈ 5 ms per 1,000 characters here): smaller chunks, shorter stalls
SEAL_CHARS = 3000


class SealedText(AutoHeightBrowser):
    """Finished blocks of a streamed answer, moved out of its :class:`TextPart` (rendered once)."""

    def __init__(self, part: TextPart, doc: QTextDocument, source: str):
        super().__init__()
        self.setObjectName("assistantText")
        self.setAccessibleName(translate("Parts", "Assistant message"))
        #: the markdown these blocks were rendered from
        self.markdown_text = source
        self.fill(part.ctx.theme.assistant_bubble)
        self.adopt(doc)  # the blocks as the part rendered and laid them out: not parsed again
        # in one document the gap under these blocks is their last margin (the next chunk starts with a
        # paragraph, whose top margin is 0); a document's height leaves that margin out
        self.extra_height = self.document().lastBlock().blockFormat().bottomMargin()
        self._fit()
        self.anchorClicked.connect(part._on_link)


class TextPart(AutoHeightBrowser):
    """A markdown part of an assistant turn. ``append`` buffers text; ``flush`` renders if changed."""

    #: a line for the status bar ("Code copied to the clipboard")
    status_message = Signal(str)

    def __init__(self, ctx: ChatContext, text: str = ""):
        super().__init__()
        self.ctx = ctx
        self.setObjectName("assistantText")
        self.setAccessibleName(translate("Parts", "Assistant message"))
        self.buffer = text
        self.codes: list[str] = []
        self._rendered: str | None = None
        #: the last render highlighted every code block (a live render leaves an open fence plain)
        self._final = True
        #: incremental state: buffer[:_frozen_len] is rendered and frozen, ending at document position
        #: _doc_end (None: nothing frozen); _frozen_codes are its code blocks
        self._frozen_len = 0
        self._doc_end: int | None = None
        self._frozen_codes: list[str] = []
        #: finished blocks sealed in their own widgets (above this one in :attr:`column`): buffer[:_sealed_len]
        self.sealed: list[SealedText] = []
        self._sealed_len = 0
        #: the open block (buffer[_open_at:]) and its kind, as the last render found them: more plain text
        #: for it is inserted as text (``markdown_growth.appends_as_text``), without rendering the block again
        self._open_at = 0
        self._open_kind = ""
        #: the open block's HTML as the document shows it (None: not known — it was rendered with the rest, or
        #: text was inserted into it since)
        self._open_html: str | None = None
        self.document().setUndoRedoEnabled(False)  # frames edit the document: keep no undo history
        #: what the turn puts in its layout: the sealed chunks, then this part, with no gap between them
        self.column = QWidget()
        self._column_layout = QVBoxLayout(self.column)
        self._column_layout.setContentsMargins(0, 0, 0, 0)
        self._column_layout.setSpacing(0)
        self._column_layout.addWidget(self)
        repaint_only_changes(self.column)
        # the column grows with its text before it places it: laid out in its old height, the growing text
        # would be moved up for a moment (and a moved widget is repainted whole)
        self._column_layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        self._render_ms = 0.0
        self._last = 0.0
        self._scratch: QTextDocument | None = None  # where appended fragments are cut from (reused)
        self._copied: int | None = None
        #: True when the text is past :data:`PLAIN_TEXT_LIMIT` and shown unformatted
        self.plain = False
        self.anchorClicked.connect(self._on_link)
        self.fill(ctx.theme.assistant_bubble)
        if text:
            self.render_text()

    def append(self, text: str) -> None:
        self.buffer += text

    @property
    def dirty(self) -> bool:
        return self._rendered != self.buffer

    @property
    def unfinished(self) -> bool:
        """Not rendered as a finished text yet (changed since, or an open fence left unhighlighted)."""
        return self.dirty or not self._final

    def due(self, now: float) -> bool:
        """Throttle: re-render at most every ``ctx.frame_ms`` (the view's pace; text arrives at that pace, so
        a batch a little early still counts), or 4× the last render time when it is slow."""
        return self.dirty and (now - self._last) * 1000 >= max(0.8 * self.ctx.frame_ms, 4 * self._render_ms)

    def note_text(self) -> str:
        """The note shown above an answer too large to format ("" for a normal answer)."""
        return translate("Parts", PLAIN_TEXT_NOTE) if self.plain else ""

    def _render_plain(self) -> None:
        doc = self.document()
        doc.setDefaultStyleSheet("")
        doc.setDefaultFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setPlainText(self.buffer)
        cursor = QTextCursor(doc)
        fmt = QTextCharFormat()
        fmt.setFontItalic(True)
        fmt.setForeground(QColor(theme.current().muted))
        cursor.insertText(translate("Parts", PLAIN_TEXT_NOTE) + "\n", fmt)
        self.codes = []

    def _reset_frozen(self) -> None:
        self._frozen_len, self._doc_end, self._frozen_codes = 0, None, []
        self._open_kind = ""
        self._open_html = None
        self._sealed_len = 0
        for chunk in self.sealed:
            chunk.setParent(None)
            chunk.deleteLater()
        self.sealed = []

    def render_text(self) -> None:
        """Render the whole text at once (a saved message, a theme change, a copy marker)."""
        t0 = time.perf_counter()
        self._reset_frozen()
        self.fill(self.ctx.theme.assistant_bubble)  # (again after a theme change)
        self._final = True
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

    def render_live(self, final: bool = False) -> None:
        """Render a growing text: only what follows the frozen finished blocks is re-rendered. ``final``:
        the text is complete (an unclosed fence gets highlighted, as a full render does)."""
        buffer = self.buffer
        md = markdown_module()
        frozen = self._rendered[: self._frozen_len] if self._rendered is not None else ""
        if len(buffer) > PLAIN_TEXT_LIMIT or self._copied is not None or not buffer.startswith(frozen):
            self.render_text()
            return
        grow = markdown_growth()
        if not final and self._append_text(buffer, grow):  # (a final render highlights an open fence)
            return
        tail = buffer[self._frozen_len:]
        parsed = grow.parse_growing(tail)
        if parsed is None:
            self.render_text()
            return
        t0 = time.perf_counter()
        was_open = (self._open_at, self._open_kind, self._open_html)
        self._open_html = None
        (boundary, open_fence, self._open_kind), tokens, cut = parsed
        self._open_at = self._frozen_len + boundary
        colors = self.ctx.md_colors()
        highlight = final or not open_fence
        self.plain = False
        frozen_html = md.render_tokens(tokens[:cut], colors, self._frozen_codes, last=False) if boundary else ""
        seal = (self._doc_end is not None and frozen_html.startswith(md.PARAGRAPH_OPEN)
                and self._frozen_len - self._sealed_len >= SEAL_CHARS)
        if seal:
            self._seal()
        doc = self.document()  # (a new one after a seal)
        if self._doc_end is None or seal:
            doc.setDefaultStyleSheet(md.style_sheet(colors))
            if frozen_html:
                self.setHtml(frozen_html)
            # nothing finished yet, or finished blocks that hold no text (an empty quote or list item: the
            # next fragment would take over their empty block's format): the whole text is the open block
            if not frozen_html or doc.isEmpty():
                codes = list(self._frozen_codes)
                self.setHtml(md.render_tokens(tokens, colors, codes, highlight=highlight))
                self._set_rendered(buffer, codes, highlight, t0)
                return
        else:
            if not frozen_html and was_open[:2] == (self._open_at, self._open_kind) and was_open[2] is not None:
                codes = list(self._frozen_codes)
                html = md.render_tokens(tokens[cut:], colors, codes, highlight=highlight)
                if self._extend_open(was_open[2], html):
                    self._open_html = html
                    self._set_rendered(buffer, codes, highlight, t0)
                    return
            cursor = QTextCursor(doc)
            cursor.setPosition(self._doc_end)
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor.removeSelectedText()
            if frozen_html:
                self._append_fragment(frozen_html)
        if frozen_html:
            self._frozen_len += boundary
            self._doc_end = doc.characterCount() - 1
        codes = list(self._frozen_codes)
        rest = tail[boundary:]
        if rest.strip():
            html = md.render_tokens(tokens[cut:], colors, codes, highlight=highlight)
            self._append_fragment(html)
            self._open_html = html
        self._set_rendered(buffer, codes, highlight, t0)

    def _extend_open(self, shown_html: str, html: str) -> bool:
        """The frame of an open paragraph or heading that only grew (``html``, its new render, starts with
        ``shown_html``, the render in the document, up to its closing tag): the text it gained is cut from a
        render of the block and inserted after the text shown, each character in its own format — the block is
        not removed and inserted again. False (nothing done) when the block must be rendered again."""
        close = shown_html[shown_html.rfind("</"):]
        if not close.startswith("</") or not html.endswith(close) or not html.startswith(shown_html[:-len(close)]):
            return False
        doc = self.document()
        last = doc.lastBlock()
        if self._doc_end is None or last.position() != self._doc_end + 1:
            return False  # the open block is not the document's last block, alone
        shown = last.text()
        scratch = self._scratch_doc()
        scratch.setHtml(html)
        first = scratch.firstBlock()
        if not shown or scratch.blockCount() != 1 or not first.text().startswith(shown) \
                or first.blockFormat() != last.blockFormat():
            return False  # (an empty block shown, e.g. after a table, has not taken the block's format)
        if scratch.characterCount() - 1 > len(shown):
            cut = QTextCursor(scratch)
            cut.setPosition(len(shown))
            cut.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor = QTextCursor(doc)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertFragment(QTextDocumentFragment(cut))
        return True

    def _append_text(self, buffer: str, grow) -> bool:
        """The quick frame: what came since the last render only lengthens the open block's last line with
        plain text (``markdown_growth.appends_as_text``), so it is inserted as text at the end of the document, in
        the format the text ends in. False (nothing done) when the block must be rendered again."""
        done = self._rendered
        if done is None or not self._open_kind or not buffer.startswith(done) or len(done) <= self._open_at:
            return False
        more = buffer[len(done):]
        if self._open_kind == "fence":
            return self._append_code(buffer, grow.appends_to_fence(done[self._open_at:], more))
        if not grow.appends_as_text(done[self._open_at:], self._open_kind, more):
            return False
        doc = self.document()
        if not doc.lastBlock().text().endswith(grow.last_word(done)):
            return False  # the document does not end in that text (e.g. a table's last cell): render
        t0 = time.perf_counter()
        cursor = QTextCursor(doc)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(more.rstrip(" "))  # a render drops trailing spaces too (the next frame renders)
        self._open_html = None
        self._set_rendered(buffer, self.codes, self._final, t0)
        return True

    def _append_code(self, buffer: str, change: tuple[str, str, str] | None) -> bool:
        """The quick frame of an open code fence (``change``: ``markdown_growth.appends_to_fence``): its new code
        (lines too) is inserted as text after the code shown, inside the code block's table (the document's
        last block is the empty one after the table)."""
        doc = self.document()
        if change is None or self._final or not self.codes:
            return False
        shown, add, code = change
        code_end = doc.lastBlock().previous()
        last_line = shown[shown.rfind("\n") + 1:]
        if doc.lastBlock().text() or not code_end.isValid() or not code_end.text().endswith(last_line):
            return False  # not the document a render of the open fence gives: render
        t0 = time.perf_counter()
        if add:
            cursor = QTextCursor(code_end)
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
            cursor.insertText(add)
        self._open_html = None
        self._set_rendered(buffer, [*self.codes[:-1], code], False, t0)
        return True

    def _seal(self) -> None:
        """Move the frozen blocks of this document into a :class:`SealedText` above it; the document starts
        again with the next finished blocks (a paragraph first: no margin is lost between)."""
        source = self.buffer[self._sealed_len:self._frozen_len]
        doc = self.document()
        assert self._doc_end is not None
        cursor = QTextCursor(doc)  # the document keeps its frozen blocks only: the open block is rendered anew
        cursor.setPosition(self._doc_end)
        cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor.removeSelectedText()
        fresh = QTextDocument()
        fresh.setUndoRedoEnabled(False)
        fresh.setDefaultStyleSheet(doc.defaultStyleSheet())
        chunk = SealedText(self, doc, source)  # takes the document
        self.adopt(fresh)
        self._column_layout.insertWidget(self._column_layout.indexOf(self), chunk)
        if self.isVisible():
            # shown now, not when the layout's deferred show comes: until then it would take no space, the
            # answer would lose its top for a frame and the view would jump
            chunk.show()
        self.sealed.append(chunk)
        self._sealed_len = self._frozen_len
        self._doc_end = None

    def _append_fragment(self, html: str) -> None:
        """Append ``html`` (whole blocks) at the end of the document, each block keeping its own format, as
        ``setHtml`` of everything would give: the fragment is cut from a scratch document after a dummy
        first paragraph, so it starts with a block break that carries the first block's format."""
        scratch = self._scratch_doc()
        scratch.setHtml("<p>x</p>" + html)
        cut = QTextCursor(scratch)
        cut.setPosition(1)
        cut.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertFragment(QTextDocumentFragment(cut))

    def _scratch_doc(self) -> QTextDocument:
        """The document fragments are cut from (reused), with this part's style sheet."""
        scratch, css = self._scratch, self.document().defaultStyleSheet()
        if scratch is None:
            scratch = self._scratch = QTextDocument(self)  # owned by the part: deleted with it, in its thread
            scratch.setUndoRedoEnabled(False)
        if scratch.defaultStyleSheet() != css:  # parsing the style sheet is half the cost of a small fragment
            scratch.setDefaultStyleSheet(css)
        return scratch

    def _set_rendered(self, buffer: str, codes: list[str], final: bool, t0: float) -> None:
        self._rendered, self.codes, self._final = buffer, codes, final
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
        self.body.setAccessibleName(translate("Parts", "Thinking"))
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
            label = translate("Parts", "Thinking… {started:.1f} s").format(started=time.monotonic() - self.started)
        elif self.duration_s is not None:
            label = translate("Parts", "Thought for {duration_s:.1f} s").format(duration_s=self.duration_s)
        else:
            label = translate("Parts", "Thoughts")
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
