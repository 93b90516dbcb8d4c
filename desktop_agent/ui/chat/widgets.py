"""Small widgets of the chat: the auto-height text view, the copy button, tool chips."""

from __future__ import annotations

import math
import time

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QTextDocument, QTextOption
from PySide6.QtWidgets import QFrame, QHBoxLayout, QSizePolicy, QTextBrowser, QToolButton, QVBoxLayout, QWidget

from desktop_agent.core.epoch import format_epoch
from desktop_agent.ui import icons
from desktop_agent.ui.chat.context import ChatContext
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.tool_sidebar import STATUS, format_duration, short_arguments, status_color


def repaint_only_changes(widget: QWidget) -> None:
    """Let a growing chat widget repaint only what changed: a resize then exposes (and repaints) only the
    new area instead of the whole widget (``WA_StaticContents``). A streaming answer grows a line a frame;
    without this every frame repainted the whole visible chat."""
    widget.setAttribute(Qt.WidgetAttribute.WA_StaticContents)


def button_text(text: str) -> str:
    """``text`` as a button shows it letter for letter: a button takes ``&`` as the mark of its shortcut key
    (``ls && echo`` showed as ``ls & echo``)."""
    return text.replace("&", "&&")


def time_text(ts: float | None) -> str:
    """``HH:MM`` of a message time (now when unknown)."""
    return format_epoch(ts or time.time(), "%H:%M")


class AutoHeightBrowser(QTextBrowser):
    """A read-only, selectable text view exactly as tall as its text (no scroll bars of its own).

    Wheel events go to the chat's scroll area. ``natural_width`` makes it as wide as its longest line
    (up to the width the layout allows) — used for user bubbles."""

    def __init__(self, parent: QWidget | None = None, *, natural_width: bool = False):
        super().__init__(parent)
        self.natural_width = natural_width
        #: pixels added under the text (a sealed chunk keeps its last block's bottom margin, which Qt leaves
        #: out of a document's height)
        self.extra_height: float = 0
        self._fill: QColor | None = None  # the background it paints itself (:meth:`fill`)
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
        repaint_only_changes(self)
        repaint_only_changes(self.viewport())
        self.setStyleSheet("QTextBrowser { background: transparent; border: none; }")
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        # Tab reaches each message: a screen reader reads it (its name says whose, its value is the text)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def adopt(self, doc: QTextDocument) -> None:
        """Show ``doc`` (rendered and laid out elsewhere) and own it; the document shown before, this view's
        own, is deleted by Qt."""
        doc.setParent(self)
        doc.setDocumentMargin(0)
        self.document().documentLayout().documentSizeChanged.disconnect(self._fit)  # (it may live on elsewhere)
        self.setDocument(doc)
        doc.documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def fill(self, color: str) -> None:
        """Paint the text's background in ``color`` (the colour behind it) instead of leaving it transparent:
        an opaque text view is repainted alone, where a transparent one makes each widget behind it (turn,
        column, chat) repaint the same area first — a streaming answer repaints its last lines every frame.
        Painted by :meth:`paintEvent` (a palette colour would be replaced by the chat's style sheet's)."""
        self._fill = QColor(color)
        vp = self.viewport()
        vp.setAutoFillBackground(False)
        vp.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        vp.update()

    def paintEvent(self, event) -> None:
        if self._fill is not None:
            painter = QPainter(self.viewport())
            painter.fillRect(event.rect(), self._fill)
            painter.end()
        super().paintEvent(event)

    def _fit(self, *_args) -> None:
        h = math.ceil(self.document().size().height() + self.extra_height) + 2 * self.frameWidth()
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


class CopyButton(QToolButton):
    """The small copy icon next to a message; the owner connects ``clicked``."""

    def __init__(self, ctx: ChatContext, what: str):
        super().__init__()
        self.setObjectName("copyButton")
        self.setAutoRaise(True)
        self.setIcon(icons.icon("copy", ctx.theme.muted))
        self.setIconSize(QSize(15, 15))
        self.setToolTip(translate("Widgets", "Copy {what}").format(what=what))
        self.setAccessibleName(translate("Widgets", "Copy {what}").format(what=what))
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def restyle(self, ctx: ChatContext) -> None:
        self.setIcon(icons.icon("copy", ctx.theme.muted))


class ToolChip(QToolButton):
    """The inline marker where a tool ran: ``✓ get_weather · location=Paris · 0.4 s``. Click → sidebar."""

    #: the chip was clicked (call id)
    tool_clicked = Signal(str)

    def __init__(self, ctx: ChatContext, call_id: str, name: str, arguments: dict | None):
        super().__init__()
        self.ctx = ctx
        self.call_id, self.name, self.arguments = call_id, name, dict(arguments or {})
        self.status = "running"
        self.duration_ms: float | None = None
        self.started = time.monotonic()
        self.setObjectName("toolChip")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAutoRaise(True)
        self.clicked.connect(lambda: self.tool_clicked.emit(self.call_id))
        self.refresh()

    def finish(self, status: str, duration_ms: float | None) -> None:
        self.status, self.duration_ms = status, duration_ms
        self.refresh()

    def minimumSizeHint(self) -> QSize:
        """A narrow window may squeeze the chip (its text is cut; the tooltip and the sidebar have it all),
        so the chat column can re-wrap instead of running off the edge."""
        hint = super().minimumSizeHint()
        return QSize(min(hint.width(), 96), hint.height())

    def refresh(self) -> None:
        icon_name, label = STATUS.get(self.status, ("info", self.status))
        label = translate("ToolSidebar", label)
        color = status_color(self.status, self.ctx.theme)
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
        self.setText(button_text("  ·  ".join(bits)))
        self.setToolTip(translate("Widgets", "{name}: {label} — click to see the call in the tool sidebar").format(
                name=self.name, label=label))
        self.setAccessibleName(translate("Widgets", "Tool call {name}, {label}, {dur}").format(name=self.name,
                label=label, dur=dur))


class ToolsPart(QWidget):
    """A column of tool chips (one step's tool calls)."""

    #: one of its chips was clicked (call id)
    tool_clicked = Signal(str)

    def __init__(self, ctx: ChatContext):
        super().__init__()
        self.ctx = ctx
        self.setObjectName("toolsPart")
        self.lay = QVBoxLayout(self)
        self.lay.setContentsMargins(0, 2, 0, 2)
        self.lay.setSpacing(2)
        self.chips: dict[str, ToolChip] = {}

    def add(self, call_id: str, name: str, arguments: dict | None) -> ToolChip:
        chip = ToolChip(self.ctx, call_id, name, arguments)
        chip.tool_clicked.connect(self.tool_clicked)
        self.chips[call_id] = chip
        # left-aligned by its size policy, not by a layout alignment (which would make its full width the
        # part's minimum and stop a narrow chat from re-wrapping)
        chip.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(chip, 1)
        row.addStretch(0)
        self.lay.addLayout(row)
        return chip

    def refresh(self, only_running: bool = False) -> None:
        """Repaint the chips (all, or only those still running — their live duration)."""
        for chip in self.chips.values():
            if not only_running or chip.status == "running":
                chip.refresh()
