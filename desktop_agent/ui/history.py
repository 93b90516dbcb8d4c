"""The history panel (left dock): saved chats, full-text search, rename, delete, export, import.

:class:`HistoryPanel` takes a :class:`~desktop_agent.core.store.ConversationStore` and shows

- the chats, most recently updated first, grouped *Today* / *Yesterday* / *Previous 7 days* / *Older*,
  each with its title, model and date. The list model (:class:`ChatListModel`) loads 100 chats at a
  time as the list scrolls (``canFetchMore``/``fetchMore``), so 10,000 chats open instantly;
- a search box: full-text search over every message (:meth:`ConversationStore.search`), results with the
  matching text highlighted; Enter (or a click) opens the chat at that message;
- rename (F2 or double-click: inline editor), delete (Del, after a confirmation), export to Markdown or
  JSON (a file dialog; written atomically), import JSON (our export or the seed's
  ``chat_<model>_<time>.json``); problems show in a line at the bottom of the panel, never a traceback.

Signals: ``conversationActivated(str id)`` (open this chat), ``messageActivated(str id, int
message_id)`` (open it at that message — a search hit), ``conversationDeleted(str id)``,
``conversationRenamed(str id, str title)``, ``statusMessage(str)`` (for the status bar). For the main
window's generic hooks the same events are also emitted as ``open_requested(str id)`` (every open,
including search hits) and ``conversation_deleted(str id)``. Call :meth:`HistoryPanel.refresh` after a
turn was saved.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QColor, QFont, QFontMetrics, QIcon, QKeySequence, QPalette, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.store import ConversationSummary, SearchHit, StoreError, atomic_write_text
from desktop_agent.ui import theme

IdRole = Qt.ItemDataRole.UserRole + 1
KindRole = Qt.ItemDataRole.UserRole + 2  # "header" | "chat" | "hit"
SummaryRole = Qt.ItemDataRole.UserRole + 3  # ConversationSummary (chat rows)
HitRole = Qt.ItemDataRole.UserRole + 4  # SearchHit (search rows)
MessageIdRole = Qt.ItemDataRole.UserRole + 5

GROUPS = ("Today", "Yesterday", "Previous 7 days", "Older")


def group_of(ts: float, today: _dt.date) -> str:
    """The list group of a chat last updated at ``ts`` (epoch seconds, local time)."""
    day = _dt.datetime.fromtimestamp(ts).date()
    if day >= today:
        return "Today"
    if day == today - _dt.timedelta(days=1):
        return "Yesterday"
    if day >= today - _dt.timedelta(days=7):
        return "Previous 7 days"
    return "Older"


def date_label(ts: float, today: _dt.date) -> str:
    """Short date for a row: "14:32" today/yesterday, "Mon 14:32" this week, else "3 Nov 2025"."""
    when = _dt.datetime.fromtimestamp(ts)
    group = group_of(ts, today)
    if group in ("Today", "Yesterday"):
        return when.strftime("%H:%M")
    if group == "Previous 7 days":
        return when.strftime("%a %H:%M")
    return f"{when.day} {when.strftime('%b %Y')}"


def _safe_name(title: str) -> str:
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    return (name[:60].rstrip() or "chat")


# --------------------------------------------------------------------------------------------- models


class ChatListModel(QAbstractListModel):
    """Saved chats with group header rows, loaded a page at a time (``fetchMore``).

    Rows are ``("header", group)`` or ``("chat", ConversationSummary)``. ``today`` (a callable giving
    the local date) is a test hook. Store errors are reported through ``failed(str)``.
    """

    PAGE = 100
    failed = Signal(str)

    def __init__(self, store, parent=None, today: Callable[[], _dt.date] = _dt.date.today):
        super().__init__(parent)
        self.store = store
        self._today = today
        self._rows: list[tuple[str, Any]] = []
        self._ids: set[str] = set()
        self._loaded = 0
        self._total = 0

    # -- loading ---------------------------------------------------------------------------------

    def reload(self) -> None:
        """Reload from the store, keeping at least as many chats loaded as before."""
        want = max(self.PAGE, self._loaded)
        self.beginResetModel()
        self._rows, self._ids, self._loaded = [], set(), 0
        try:
            self._total = self.store.count()
            self._append(self.store.list(limit=want, offset=0))
        except StoreError as exc:
            self._total = 0
            self.failed.emit(str(exc))
        self.endResetModel()

    def _new_rows(self, batch: list[ConversationSummary]) -> list[tuple[str, Any]]:
        today = self._today()
        last = next((r[1] for r in reversed(self._rows) if r[0] == "header"), None)
        rows: list[tuple[str, Any]] = []
        for s in batch:
            if s.id in self._ids:  # the list moved while paging (a chat got a new message)
                continue
            g = group_of(s.updated_at, today)
            if g != last:
                rows.append(("header", g))
                last = g
            rows.append(("chat", s))
            self._ids.add(s.id)
        return rows

    def _append(self, batch: list[ConversationSummary]) -> None:
        self._rows += self._new_rows(batch)
        self._loaded += len(batch)

    def canFetchMore(self, parent=QModelIndex()) -> bool:  # noqa: N802 (Qt API)
        return not parent.isValid() and self._loaded < self._total

    def fetchMore(self, parent=QModelIndex()) -> None:  # noqa: N802
        if parent.isValid():
            return
        try:
            batch = self.store.list(limit=self.PAGE, offset=self._loaded)
        except StoreError as exc:
            self._total = self._loaded
            self.failed.emit(str(exc))
            return
        if not batch:
            self._total = self._loaded
            return
        rows = self._new_rows(batch)
        if rows:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(rows) - 1)
            self._rows += rows
            self.endInsertRows()
        self._loaded += len(batch)

    # -- access ------------------------------------------------------------------------------------

    @property
    def total(self) -> int:
        return self._total

    def chat_count(self) -> int:
        """Chats loaded so far (not counting headers)."""
        return sum(1 for k, _ in self._rows if k == "chat")

    def row_of(self, conversation_id: str) -> int | None:
        for i, (kind, value) in enumerate(self._rows):
            if kind == "chat" and value.id == conversation_id:
                return i
        return None

    def summary(self, row: int) -> ConversationSummary | None:
        if 0 <= row < len(self._rows) and self._rows[row][0] == "chat":
            return self._rows[row][1]
        return None

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        kind, value = self._rows[index.row()]
        if role == KindRole:
            return kind
        if kind == "header":
            if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
                return value
            return None
        s: ConversationSummary = value
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return s.title
        if role == IdRole:
            return s.id
        if role == SummaryRole:
            return s
        if role == Qt.ItemDataRole.ToolTipRole:
            n = f"{s.message_count} message" + ("s" if s.message_count != 1 else "")
            when = _dt.datetime.fromtimestamp(s.updated_at).strftime("%Y-%m-%d %H:%M")
            return f"{s.title}\n{s.model or 'unknown model'} · {n} · last message {when}"
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{s.title}, {s.model or 'unknown model'}, {date_label(s.updated_at, self._today())}"
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self._rows[index.row()][0] == "header":
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: QModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        s = self.summary(index.row()) if index.isValid() else None
        if s is None or role != Qt.ItemDataRole.EditRole:
            return False
        title = " ".join(str(value).split())
        if title == s.title:
            return False
        try:
            self.store.rename(s.id, title)
            new = self.store.summary(s.id)
        except StoreError as exc:
            self.failed.emit(str(exc))
            return False
        self._rows[index.row()] = ("chat", new)
        self.dataChanged.emit(index, index)
        return True


class SearchModel(QAbstractListModel):
    """Search results (:class:`SearchHit`), newest message first."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.hits: list[SearchHit] = []

    def set_hits(self, hits: list[SearchHit]) -> None:
        self.beginResetModel()
        self.hits = list(hits)
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.hits)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.hits):
            return None
        h = self.hits[index.row()]
        if role == KindRole:
            return "hit"
        if role == IdRole:
            return h.conversation_id
        if role == MessageIdRole:
            return h.message_id
        if role == HitRole:
            return h
        if role == Qt.ItemDataRole.DisplayRole:
            return h.title
        if role in (Qt.ItemDataRole.AccessibleTextRole, Qt.ItemDataRole.ToolTipRole):
            plain = "".join(t for t, _ in h.parts)
            return f"{h.title}: {plain}"
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable if index.isValid() else Qt.ItemFlag.NoItemFlags


# ------------------------------------------------------------------------------------------ delegates

_PAD_X, _PAD_Y, _GAP = 10, 6, 2


def _small(font: QFont, delta: float = 1.5) -> QFont:
    f = QFont(font)
    size = f.pointSizeF()
    if size > 0:
        f.setPointSizeF(max(7.0, size - delta))
    return f


class _RowDelegate(QStyledItemDelegate):
    """Draws the standard item background (selection, hover, focus) then lets subclasses draw text."""

    def _background(self, painter, option: QStyleOptionViewItem, index: QModelIndex) -> QStyleOptionViewItem:
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

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        fm = QFontMetrics(option.font)
        small = QFontMetrics(_small(option.font))
        if index.data(KindRole) == "header":
            return QSize(120, small.height() + 14)
        return QSize(120, fm.height() + small.height() + 2 * _PAD_Y + _GAP)

    def paint(self, painter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
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
        n = f"{s.message_count} msg"
        left = f"{model} · {n}" if model else n
        painter.drawText(
            QRect(line.left(), line.top(), max(0, line.width() - when_w - 8), line.height()),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            sfm.elidedText(left, Qt.TextElideMode.ElideRight, max(0, line.width() - when_w - 8)),
        )

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> None:  # noqa: N802
        fm = QFontMetrics(option.font)
        r = option.rect
        editor.setGeometry(QRect(r.left() + _PAD_X - 4, r.top() + _PAD_Y - 3, r.width() - 2 * _PAD_X + 8, fm.height() + 6))

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> QWidget:  # noqa: N802
        editor = QLineEdit(parent)
        editor.setAccessibleName("New chat title")
        editor.setPlaceholderText("Title (empty: first message)")
        return editor


class HitDelegate(_RowDelegate):
    """A search hit: chat title and date, then the snippet with the matches highlighted (≤ 3 lines)."""

    MAX_LINES = 3

    def __init__(self, today: Callable[[], _dt.date], parent=None):
        super().__init__(parent)
        self._today = today

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
                pieces.append(f'<span style="background-color:{mark.name()}; color:{color}; font-weight:600">{t}</span>')
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
        fm = QFontMetrics(option.font)
        doc = self._doc(option, hit, width, QColor("black"), QColor("yellow"))
        return min(int(doc.size().height()) + 1, fm.lineSpacing() * self.MAX_LINES)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802
        hit: SearchHit = index.data(HitRole)
        view = self.parent()
        width = (view.viewport().width() if isinstance(view, QListView) else 240) - 2 * _PAD_X
        small = QFontMetrics(_small(option.font))
        return QSize(120, small.height() + _GAP + self._snippet_height(option, hit, width) + 2 * _PAD_Y)

    def paint(self, painter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
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
            who = {"user": "You", "assistant": "Assistant", "tool": "Tool result"}.get(hit.role, hit.role)
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


# --------------------------------------------------------------------------------------------- panel


class _ListView(QListView):
    """A list that reports Enter/Return and Delete/F2 (Qt's own Enter handling depends on the style)."""

    enterPressed = Signal(QModelIndex)
    deletePressed = Signal(QModelIndex)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        key = event.key()
        idx = self.currentIndex()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.state() != QAbstractItemView.State.EditingState:
            if idx.isValid():
                self.enterPressed.emit(idx)
                event.accept()
                return
        if key == Qt.Key.Key_Delete and idx.isValid() and self.state() != QAbstractItemView.State.EditingState:
            self.deletePressed.emit(idx)
            event.accept()
            return
        super().keyPressEvent(event)


class HistoryPanel(QWidget):
    """Browse / search / open / rename / delete / export / import saved chats. See the module docstring."""

    conversationActivated = Signal(str)
    messageActivated = Signal(str, int)
    #: emitted just before a chat is deleted from the store (the window stops saving into it first)
    conversationAboutToBeDeleted = Signal(str)
    conversationDeleted = Signal(str)
    conversationRenamed = Signal(str, str)
    statusMessage = Signal(str)
    # aliases for MainWindow.set_history_panel's generic hooks
    open_requested = Signal(str)
    conversation_deleted = Signal(str)

    SEARCH_DELAY_MS = 200

    def __init__(self, store, parent: QWidget | None = None, *, today: Callable[[], _dt.date] = _dt.date.today):
        super().__init__(parent)
        self.store = store
        self._today = today
        self.setObjectName("historyPanel")
        self.setAccessibleName("Chat history")
        self.setMinimumWidth(200)

        self.search_box = QLineEdit(self)
        self.search_box.setObjectName("historySearch")
        self.search_box.setAccessibleName("Search all chats")
        self.search_box.setPlaceholderText("Search all chats…")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setToolTip("Full-text search over every message. Enter opens the chat at the first result.")

        self.model = ChatListModel(store, self, today=today)
        self.list = _ListView(self)
        self.list.setObjectName("historyList")
        self.list.setAccessibleName("Saved chats")
        self.list.setModel(self.model)
        self.list.setItemDelegate(ChatDelegate(today, self.list))
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)  # F2 (and our Rename action)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setMouseTracking(True)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.setFrameShape(QListView.Shape.NoFrame)

        self.search_model = SearchModel(self)
        self.results = _ListView(self)
        self.results.setObjectName("historySearchResults")
        self.results.setAccessibleName("Search results")
        self.results.setModel(self.search_model)
        self.results.setItemDelegate(HitDelegate(today, self.results))
        self.results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setFrameShape(QListView.Shape.NoFrame)
        self.results.setWordWrap(True)
        self.results.setResizeMode(QListView.ResizeMode.Adjust)

        self.empty_label = QLabel("No saved chats yet.\nYour chats appear here as you talk.", self)
        self.empty_label.setObjectName("historyEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.result_label = QLabel(self)
        self.result_label.setObjectName("historyResultCount")
        self.result_label.setAccessibleName("Search result count")
        self.no_results = QLabel(self)
        self.no_results.setObjectName("historyNoResults")
        self.no_results.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.no_results.setWordWrap(True)

        results_page = QWidget(self)
        results_page.setObjectName("historyResultsPage")
        results_page.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        rl = QVBoxLayout(results_page)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(2)
        rl.addWidget(self.result_label)
        rl.addWidget(self.results, 1)
        rl.addWidget(self.no_results, 1)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.list)  # 0
        self.stack.addWidget(results_page)  # 1
        self.stack.addWidget(self.empty_label)  # 2

        self.error_label = QLabel(self)
        self.error_label.setObjectName("historyError")
        self.error_label.setAccessibleName("History problem")
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()

        # actions (context menu, buttons, shortcuts)
        self.open_action = QAction("&Open", self)
        self.rename_action = QAction("&Rename…", self)
        self.rename_action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        self.export_md_action = QAction("Export as &Markdown…", self)
        self.export_json_action = QAction("Export as &JSON…", self)
        self.delete_action = QAction("&Delete…", self)
        self.delete_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.import_action = QAction("&Import chat…", self)
        self.import_action.setToolTip("Import a chat from a JSON file (a desktop-agent export or a seed chat_*.json)")
        for a in (self.rename_action, self.delete_action):
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.open_action.triggered.connect(lambda: self._open_index(self.list.currentIndex()))
        self.rename_action.triggered.connect(self.start_rename)
        self.export_md_action.triggered.connect(lambda: self.export_current("md"))
        self.export_json_action.triggered.connect(lambda: self.export_current("json"))
        self.delete_action.triggered.connect(lambda: self.delete_current())
        self.import_action.triggered.connect(lambda: self.import_chat())

        self.import_button = QToolButton(self)
        self.import_button.setObjectName("historyImport")
        self.import_button.setDefaultAction(self.import_action)
        self.import_button.setText("Import…")
        self.import_button.setAccessibleName("Import chat")
        self.import_button.setAutoRaise(True)
        self.chat_menu = QMenu(self)
        for a in (self.rename_action, self.export_md_action, self.export_json_action):
            self.chat_menu.addAction(a)
        self.chat_menu.addSeparator()
        self.chat_menu.addAction(self.delete_action)
        self.chat_button = QToolButton(self)
        self.chat_button.setObjectName("historyChatMenu")
        self.chat_button.setText("Chat")
        self.chat_button.setAccessibleName("Selected chat actions")
        self.chat_button.setToolTip("Rename, export or delete the selected chat")
        self.chat_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.chat_button.setMenu(self.chat_menu)
        self.chat_button.setAutoRaise(True)
        self.count_label = QLabel(self)
        self.count_label.setObjectName("historyCount")

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 0, 4, 2)
        bar.setSpacing(2)
        bar.addWidget(self.import_button)
        bar.addWidget(self.chat_button)
        bar.addStretch(1)
        bar.addWidget(self.count_label)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(4)
        top = QHBoxLayout()
        top.setContentsMargins(6, 0, 6, 0)
        top.addWidget(self.search_box)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.error_label)
        layout.addLayout(bar)
        self.addActions([self.rename_action, self.delete_action])

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(self.SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._run_search)
        self.search_box.textChanged.connect(lambda _t: (self.clear_error(), self._search_timer.start()))
        self.search_box.returnPressed.connect(self._search_enter)
        self.search_box.installEventFilter(self)

        self.list.clicked.connect(self._open_index)
        self.list.enterPressed.connect(self._open_index)
        self.list.deletePressed.connect(lambda idx: self.delete_current())
        self.list.doubleClicked.connect(lambda idx: self.start_rename())
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.list.selectionModel().currentChanged.connect(lambda *_: self._update_actions())
        self.results.clicked.connect(self._open_hit)
        self.results.enterPressed.connect(self._open_hit)
        self.model.failed.connect(self.show_error)
        self.model.modelReset.connect(self._update_state)
        self.model.rowsInserted.connect(lambda *_: self._update_state())
        self.model.dataChanged.connect(self._on_renamed)

        self._style()
        self.refresh()

    # -- public API --------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the list from the store (keeps the selection); re-run the search if one is shown."""
        current = self.current_id()
        scroll = self.list.verticalScrollBar().value()
        self.model.reload()
        if current is not None:
            self.select(current, fetch=False)
        self.list.verticalScrollBar().setValue(scroll)
        if self.search_box.text().strip():
            self._run_search()
        self._update_state()

    reload = refresh

    def current_id(self) -> str | None:
        """The id of the selected chat in the list (None when nothing is selected)."""
        idx = self.list.currentIndex()
        return idx.data(IdRole) if idx.isValid() else None

    def select(self, conversation_id: str, fetch: bool = True) -> bool:
        """Select (without opening) a chat, e.g. the one the window shows; ``fetch``: load further
        pages until it is found. Returns False if it is not in the list."""
        row = self.model.row_of(conversation_id)
        while row is None and fetch and self.model.canFetchMore():
            self.model.fetchMore()
            row = self.model.row_of(conversation_id)
        if row is None:
            return False
        idx = self.model.index(row)
        self.list.setCurrentIndex(idx)
        self.list.scrollTo(idx)
        return True

    def focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def show_error(self, text: str) -> None:
        """Show a problem (one line a user can act on) at the bottom of the panel."""
        self.error_label.setText(text)
        self.error_label.setVisible(bool(text))
        if text:
            self.statusMessage.emit(text)

    def clear_error(self) -> None:
        self.error_label.clear()
        self.error_label.hide()

    def start_rename(self) -> None:
        """Open the inline title editor on the selected chat (Enter saves, Esc cancels)."""
        idx = self.list.currentIndex()
        if idx.isValid() and idx.data(KindRole) == "chat":
            self.stack.setCurrentIndex(0)
            self.list.edit(idx)

    def rename(self, conversation_id: str, title: str) -> bool:
        """Rename a chat (empty title: back to its first message). Returns True if it changed."""
        row = self.model.row_of(conversation_id)
        if row is not None:
            return self.model.setData(self.model.index(row), title)
        try:
            self.store.rename(conversation_id, title)
        except StoreError as exc:
            self.show_error(str(exc))
            return False
        self.refresh()
        self.conversationRenamed.emit(conversation_id, self.store.summary(conversation_id).title)
        return True

    def delete_current(self, confirm: bool = True) -> bool:
        """Delete the selected chat after asking; True if it was deleted."""
        s = self.model.summary(self.list.currentIndex().row()) if self.list.currentIndex().isValid() else None
        if s is None:
            return False
        return self.delete(s.id, confirm=confirm)

    def delete(self, conversation_id: str, confirm: bool = True) -> bool:
        try:
            s = self.store.summary(conversation_id)
        except StoreError as exc:
            self.show_error(str(exc))
            return False
        if confirm and not self._confirm_delete(s):
            return False
        row = self.model.row_of(conversation_id)
        self.conversationAboutToBeDeleted.emit(conversation_id)
        try:
            self.store.delete(conversation_id)
        except StoreError as exc:
            self.show_error(str(exc))
            return False
        self.clear_error()
        self.refresh()
        if row is not None:  # keep the selection near where it was
            for r in (row, row - 1, row + 1, row - 2):
                if self.model.summary(r) is not None:
                    self.list.setCurrentIndex(self.model.index(r))
                    break
        self.statusMessage.emit(f"Deleted “{s.title}”.")
        self.conversationDeleted.emit(conversation_id)
        self.conversation_deleted.emit(conversation_id)
        return True

    def export_current(self, fmt: str) -> Path | None:
        cid = self.current_id()
        return self.export(cid, fmt) if cid else None

    def export(self, conversation_id: str, fmt: str, path: str | None = None) -> Path | None:
        """Export a chat to ``path`` (asked with a file dialog when None). Returns the file written."""
        try:
            s = self.store.summary(conversation_id)
            text = self.store.export(conversation_id, fmt)
        except StoreError as exc:
            self.show_error(str(exc))
            return None
        if path is None:
            suffix, filt = (".md", "Markdown (*.md)") if fmt == "md" else (".json", "JSON (*.json)")
            start = str(Path.home() / (_safe_name(s.title) + suffix))
            path, _ = QFileDialog.getSaveFileName(self, "Export chat", start, f"{filt};;All files (*)")
            if not path:
                return None
        try:
            atomic_write_text(path, text)
        except OSError as exc:
            self.show_error(f"Could not write {path}: {exc.strerror or exc}.")
            return None
        self.clear_error()
        self.statusMessage.emit(f"Exported “{s.title}” to {path}.")
        return Path(path)

    def import_chat(self, path: str | None = None) -> str | None:
        """Import a chat file (asked with a file dialog when None); opens it and returns its id."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self, "Import chat", str(Path.home()), "Chat files (*.json);;All files (*)"
            )
            if not path:
                return None
        try:
            cid = self.store.import_file(path)
            s = self.store.summary(cid)
        except StoreError as exc:  # ImportFailed: empty / truncated / not a chat — nothing was imported
            self.show_error(str(exc))
            return None
        self.clear_error()
        self.search_box.clear()
        self.refresh()
        self.select(cid)
        self.statusMessage.emit(f"Imported “{s.title}” ({s.message_count} messages).")
        self._emit_open(cid)
        return cid

    # -- internals ---------------------------------------------------------------------------------

    def _style(self) -> None:
        th = theme.current(self.palette())
        self.setStyleSheet(
            f"""
            QLabel#historyEmpty, QLabel#historyNoResults {{ color: {th.muted}; padding: 24px 12px;
                                                            background: {th.base}; }}
            QWidget#historyResultsPage {{ background: {th.base}; }}
            QLabel#historyResultCount {{ color: {th.muted}; padding: 2px 10px; background: {th.base}; }}
            QLabel#historyCount {{ color: {th.muted}; padding: 0 6px; }}
            QToolButton#historyChatMenu {{ padding: 3px 16px 3px 6px; }}
            QToolButton#historyChatMenu::menu-indicator {{ subcontrol-origin: padding;
                                                           subcontrol-position: right center;
                                                           right: 4px; }}
            QLabel#historyError {{ color: {th.error_text}; background: {th.error_bg};
                                   border: 1px solid {th.error_border}; border-radius: 4px;
                                   padding: 4px 6px; margin: 0 4px; }}
            """
        )

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() == QEvent.Type.PaletteChange:
            self._style()
        super().changeEvent(event)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if (obj is self.search_box and event.type() == QEvent.Type.ShortcutOverride
                and event.key() == Qt.Key.Key_Escape and self.search_box.text()):
            # claim Esc before window shortcuts (the main window's Esc = Stop) swallow it: with text in
            # the box, Esc clears the search
            event.accept()
            return True
        if obj is self.search_box and event.type() == QEvent.Type.KeyPress:
            if event.key() == Qt.Key.Key_Down:
                view = self.results if self.stack.currentIndex() == 1 else self.list
                if view.model().rowCount() > 0:
                    view.setFocus()
                    if not view.currentIndex().isValid():
                        first = next((view.model().index(r) for r in range(view.model().rowCount())
                                      if view.model().index(r).flags() & Qt.ItemFlag.ItemIsSelectable), None)
                        if first is not None:
                            view.setCurrentIndex(first)
                    return True
            if event.key() == Qt.Key.Key_Escape and self.search_box.text():
                self.search_box.clear()
                return True
        return super().eventFilter(obj, event)

    def _update_state(self) -> None:
        searching = bool(self.search_box.text().strip())
        if searching:
            self.stack.setCurrentIndex(1)
        elif self.model.rowCount() == 0:
            self.stack.setCurrentIndex(2)
        else:
            self.stack.setCurrentIndex(0)
        total = self.model.total
        self.count_label.setText(f"{total:,} chat" + ("s" if total != 1 else ""))
        self._update_actions()

    def _update_actions(self) -> None:
        has = self.current_id() is not None and self.stack.currentIndex() == 0
        for a in (self.open_action, self.rename_action, self.export_md_action, self.export_json_action, self.delete_action):
            a.setEnabled(has)
        self.chat_button.setEnabled(has)

    def _emit_open(self, conversation_id: str) -> None:
        self.conversationActivated.emit(conversation_id)
        self.open_requested.emit(conversation_id)

    def _open_index(self, idx: QModelIndex) -> None:
        if idx.isValid() and idx.data(KindRole) == "chat":
            self._emit_open(idx.data(IdRole))

    def _open_hit(self, idx: QModelIndex) -> None:
        if not idx.isValid():
            return
        cid, mid = idx.data(IdRole), idx.data(MessageIdRole)
        self.messageActivated.emit(cid, int(mid))
        self.open_requested.emit(cid)

    def _search_enter(self) -> None:
        """Enter in the search box: search now, then open the selected (or first) result."""
        self._search_timer.stop()
        self._run_search()
        if self.search_model.rowCount() == 0:
            return
        idx = self.results.currentIndex()
        self._open_hit(idx if idx.isValid() else self.search_model.index(0))

    def _run_search(self) -> None:
        text = self.search_box.text().strip()
        if not text:
            self.search_model.set_hits([])
            self._update_state()
            return
        try:
            hits = self.store.search(text, limit=100)
        except StoreError as exc:
            self.show_error(str(exc))
            hits = []
        self.search_model.set_hits(hits)
        if hits:
            n = len(hits)
            self.result_label.setText(f"{n}{'+' if n >= 100 else ''} message{'s' if n != 1 else ''} found")
            self.results.setCurrentIndex(self.search_model.index(0))
        else:
            self.result_label.setText("")
            self.no_results.setText(f"No message contains “{text}”.")
        self.result_label.setVisible(bool(hits))
        self.results.setVisible(bool(hits))
        self.no_results.setVisible(not hits)
        self._update_state()

    def _on_renamed(self, top_left: QModelIndex, _bottom_right: QModelIndex, _roles=None) -> None:
        s = self.model.summary(top_left.row())
        if s is not None:
            self.conversationRenamed.emit(s.id, s.title)

    def _context_menu(self, pos: QPoint) -> None:
        idx = self.list.indexAt(pos)
        if not idx.isValid() or idx.data(KindRole) != "chat":
            menu = QMenu(self)
            menu.addAction(self.import_action)
            menu.exec(self.list.viewport().mapToGlobal(pos))
            return
        self.list.setCurrentIndex(idx)
        menu = QMenu(self)
        menu.addAction(self.open_action)
        menu.addSeparator()
        for a in (self.rename_action, self.export_md_action, self.export_json_action):
            menu.addAction(a)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.addSeparator()
        menu.addAction(self.import_action)
        menu.exec(self.list.viewport().mapToGlobal(pos))

    def _confirm_delete(self, s: ConversationSummary) -> bool:
        box = QMessageBox(self)
        box.setObjectName("historyDeleteConfirm")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Delete chat")
        box.setText(f"Delete “{s.title}”?")
        box.setInformativeText(
            f"Its {s.message_count} message{'s' if s.message_count != 1 else ''} will be removed from the "
            "history. Export it first if you want to keep a copy."
        )
        delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        return box.clickedButton() is delete
