"""Painting the history panel's rows: group headers, chats (title over "model · date"), search hits."""

from __future__ import annotations

import datetime as _dt
import html
from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QIcon, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.store import ConversationSummary, SearchHit
from desktop_agent.ui import theme
from desktop_agent.ui.history.models import HitRole, KindRole, SummaryRole, date_label
from desktop_agent.ui.i18n import translate

_PAD_X, _PAD_Y, _GAP = 10, 6, 2
#: how a search hit names where the match is
_WHO = {"user": QT_TRANSLATE_NOOP("Delegates", "You"), "assistant": QT_TRANSLATE_NOOP("Delegates", "Assistant"),
        "tool": QT_TRANSLATE_NOOP("Delegates", "Tool result"), "title": QT_TRANSLATE_NOOP("Delegates", "Title")}


def _small(font: QFont, delta: float = 1.5) -> QFont:
    f = QFont(font)
    size = f.pointSizeF()
    if size > 0:
        f.setPointSizeF(max(7.0, size - delta))
    return f


class _RowDelegate(QStyledItemDelegate):
    """Draws the standard item background (selection, hover, focus) then lets subclasses draw text."""

    def _background(
        self, painter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QStyleOptionViewItem:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        opt.icon = QIcon()
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        return opt

    @staticmethod
    def _colors(option: QStyleOptionViewItem) -> tuple[QColor, QColor]:
        pal = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        text = pal.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        base = pal.color(QPalette.ColorRole.Highlight if selected else QPalette.ColorRole.Base)
        return text, theme.mix(text, base, 0.38)


class ChatDelegate(_RowDelegate):
    """Group headers as small muted captions; chats as title over "model · date"."""

    def __init__(self, today: Callable[[], _dt.date], parent=None):
        super().__init__(parent)
        self._today = today
        #: font key → (header size, chat size): the list asks for every loaded row's size at each layout
        self._sizes: dict[str, tuple[QSize, QSize]] = {}

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        sizes = self._sizes.get(option.font.key())
        if sizes is None:
            fm = QFontMetrics(option.font)
            small = QFontMetrics(_small(option.font))
            sizes = (QSize(120, small.height() + 14), QSize(120, fm.height() + small.height() + 2 * _PAD_Y + _GAP))
            self._sizes[option.font.key()] = sizes
        return QSize(sizes[0] if index.data(KindRole) == "header" else sizes[1])

    def paint(self, painter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        painter.save()
        try:
            if index.data(KindRole) == "header":
                self._paint_header(painter, option, index)
            else:
                self._paint_chat(painter, option, index)
        finally:
            painter.restore()

    def _paint_header(self, painter, option, index) -> None:
        font = _small(option.font)
        font.setBold(True)
        painter.setFont(font)
        pal = option.palette
        painter.setPen(theme.mix(pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Base), 0.45))
        r = option.rect.adjusted(_PAD_X, 6, -_PAD_X, -2)
        painter.drawText(r, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom), index.data().upper())

    def _paint_chat(self, painter, option, index) -> None:
        self._background(painter, option, index)
        s: ConversationSummary = index.data(SummaryRole)
        text, muted = self._colors(option)
        r = option.rect.adjusted(_PAD_X, _PAD_Y, -_PAD_X, -_PAD_Y)
        fm = QFontMetrics(option.font)
        painter.setFont(option.font)
        painter.setPen(text)
        title_rect = QRect(r.left(), r.top(), r.width(), fm.height())
        painter.drawText(title_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         fm.elidedText(s.title, Qt.TextElideMode.ElideRight, r.width()))
        small = _small(option.font)
        sfm = QFontMetrics(small)
        painter.setFont(small)
        painter.setPen(muted)
        line = QRect(r.left(), title_rect.bottom() + 1 + _GAP, r.width(), sfm.height())
        when = date_label(s.updated_at, self._today())
        when_w = sfm.horizontalAdvance(when)
        painter.drawText(line, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), when)
        model = s.model or ""
        count = s.message_count
        n = translate("Delegates", "%n msg", "a short count of messages", count)
        left = f"{model} · {n}" if model else n
        if s.tags:
            left = " ".join(f"#{t}" for t in s.tags) + " · " + left
        painter.drawText(
            QRect(line.left(), line.top(), max(0, line.width() - when_w - 8), line.height()),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            sfm.elidedText(left, Qt.TextElideMode.ElideRight, max(0, line.width() - when_w - 8)),
        )

    def updateEditorGeometry(
        self, editor: QWidget, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        fm = QFontMetrics(option.font)
        r = option.rect
        editor.setGeometry(
            QRect(r.left() + _PAD_X - 4, r.top() + _PAD_Y - 3, r.width() - 2 * _PAD_X + 8, fm.height() + 6)
        )

    def createEditor(
        self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QWidget:
        editor = QLineEdit(parent)
        editor.setAccessibleName(translate("Delegates", "New chat title"))
        editor.setPlaceholderText(translate("Delegates", "Title (empty: first message)"))
        return editor


class HitDelegate(_RowDelegate):
    """A search hit: chat title and date, then the snippet with the matches highlighted (≤ 3 lines)."""

    MAX_LINES = 3
    #: snippet heights kept (a list of results asks for each row's size many times while it is laid out)
    KEEP_HEIGHTS = 2000

    def __init__(self, today: Callable[[], _dt.date], parent=None):
        super().__init__(parent)
        self._today = today
        self._heights: dict[tuple[SearchHit, int, str], int] = {}

    def _doc(self, option: QStyleOptionViewItem, hit: SearchHit, width: int, text: QColor, mark: QColor,
             mark_text: QColor | None = None) -> QTextDocument:
        doc = QTextDocument()
        doc.setDocumentMargin(0)
        doc.setDefaultFont(option.font)
        pieces = []
        for t, hl in hit.parts:
            t = html.escape(t)
            if hl:
                color = (mark_text or text).name()
                style = f"background-color:{mark.name()}; color:{color}; font-weight:600"
                pieces.append(f'<span style="{style}">{t}</span>')
            else:
                pieces.append(t)
        doc.setHtml(f'<div style="color:{text.name()}">{"".join(pieces)}</div>')
        doc.setTextWidth(max(10, width))
        return doc

    def _mark(self, option) -> QColor:
        pal = option.palette
        dark = pal.color(QPalette.ColorRole.Base).lightness() < 128
        return theme.mix(pal.color(QPalette.ColorRole.Base), QColor("#d4a72c"), 0.45 if dark else 0.38)

    def _snippet_height(self, option, hit: SearchHit, width: int) -> int:
        """The snippet's height at ``width``, once per hit, width and font: measured on its plain text with the
        font's metrics (a rich-text layout per row made a list of 100 results cost the GUI thread up to
        150 ms), wrapped as if the highlighted words' extra width in bold were taken from every line — never
        fewer lines than the painted snippet has."""
        key = (hit, width, option.font.key())
        height = self._heights.get(key)
        if height is None:
            if len(self._heights) >= self.KEEP_HEIGHTS:
                self._heights.clear()
            fm = QFontMetrics(option.font)
            bold = QFont(option.font)
            bold.setWeight(QFont.Weight.DemiBold)
            bfm = QFontMetrics(bold)
            extra = sum(max(0, bfm.horizontalAdvance(t) - fm.horizontalAdvance(t)) for t, hl in hit.parts if hl)
            plain = " ".join("".join(t for t, _ in hit.parts).split())  # HTML folds white space as this does
            box = fm.boundingRect(QRect(0, 0, max(10, width - extra), 1_000_000), int(Qt.TextFlag.TextWordWrap),
                                  plain)
            height = self._heights[key] = min(box.height() + 1, fm.lineSpacing() * self.MAX_LINES)
        return height

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        hit: SearchHit = index.data(HitRole)
        view = self.parent()
        width = (view.viewport().width() if isinstance(view, QListView) else 240) - 2 * _PAD_X
        small = QFontMetrics(_small(option.font))
        return QSize(120, small.height() + _GAP + self._snippet_height(option, hit, width) + 2 * _PAD_Y)

    def paint(self, painter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        painter.save()
        try:
            self._background(painter, option, index)
            hit: SearchHit = index.data(HitRole)
            text, muted = self._colors(option)
            r = option.rect.adjusted(_PAD_X, _PAD_Y, -_PAD_X, -_PAD_Y)
            small = _small(option.font)
            sfm = QFontMetrics(small)
            painter.setFont(small)
            painter.setPen(muted)
            when = date_label(hit.created_at, self._today())
            when_w = sfm.horizontalAdvance(when)
            head = QRect(r.left(), r.top(), r.width(), sfm.height())
            painter.drawText(head, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), when)
            who = translate("Delegates", _WHO.get(hit.role, hit.role))
            label = f"{hit.title} · {who}"
            painter.drawText(
                QRect(head.left(), head.top(), max(0, head.width() - when_w - 8), head.height()),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                sfm.elidedText(label, Qt.TextElideMode.ElideRight, max(0, head.width() - when_w - 8)),
            )
            doc = self._doc(option, hit, r.width(), text, self._mark(option),
                            option.palette.color(QPalette.ColorRole.Text))
            top = head.bottom() + 1 + _GAP
            height = min(r.bottom() - top + 1, self._snippet_height(option, hit, r.width()))
            painter.translate(r.left(), top)
            painter.setClipRect(QRect(0, 0, r.width(), max(0, height)))
            doc.drawContents(painter)
        finally:
            painter.restore()
