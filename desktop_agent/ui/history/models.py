"""The history panel's list models: saved chats grouped by day (paged), and search results.

Both give the same roles (:data:`IdRole`, :data:`KindRole`, …) so the panel and the delegates read rows
the same way.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractListModel, QDateTime, QLocale, QModelIndex, QPersistentModelIndex, Qt, Signal

from desktop_agent.core.epoch import format_epoch, local_datetime
from desktop_agent.core.errors import StoreError
from desktop_agent.core.store import ConversationSummary, SearchHit
from desktop_agent.core.store.labels import ChatFilter
from desktop_agent.ui.i18n import translate

_NO_PARENT = QModelIndex()  # the invalid index: "no parent" in a flat list

IdRole = Qt.ItemDataRole.UserRole + 1
KindRole = Qt.ItemDataRole.UserRole + 2  # "header" | "chat" | "hit"
SummaryRole = Qt.ItemDataRole.UserRole + 3  # ConversationSummary (chat rows)
HitRole = Qt.ItemDataRole.UserRole + 4  # SearchHit (search rows)
MessageIdRole = Qt.ItemDataRole.UserRole + 5

GROUPS = ("Today", "Yesterday", "Previous 7 days", "Older")


def pinned_group() -> str:
    """The group of the pinned chats, listed before the :data:`GROUPS` of dates."""
    return translate("Models", "Pinned")


def group_of(ts: float, today: _dt.date) -> str:
    """The list group of a chat last updated at ``ts`` (epoch seconds, local time)."""
    when = local_datetime(ts)
    if when is None:  # a time no date can show (a damaged database, an old import): where the list sorts it
        return translate("Models", "Today") if ts > 0 else translate("Models", "Older")
    day = when.date()
    if day >= today:
        return translate("Models", "Today")
    if day == today - _dt.timedelta(days=1):
        return translate("Models", "Yesterday")
    if day >= today - _dt.timedelta(days=7):
        return translate("Models", "Previous 7 days")
    return translate("Models", "Older")


def date_label(ts: float, today: _dt.date) -> str:
    """Short date for a row: "14:32" today/yesterday, "Mon 14:32" this week, else "3 Nov 2025"."""
    if local_datetime(ts) is None:
        return "?"
    group = group_of(ts, today)
    at = QDateTime.fromSecsSinceEpoch(int(ts))
    if group in (translate("Models", "Today"), translate("Models", "Yesterday")):
        return QLocale().toString(at, "HH:mm")
    if group == translate("Models", "Previous 7 days"):
        return QLocale().toString(at, "ddd HH:mm")
    return QLocale().toString(at, translate("Models", "d MMM yyyy", "a short date (QDateTime format)"))


class ChatListModel(QAbstractListModel):
    """Saved chats with group header rows, loaded a page at a time (``fetchMore``).

    Rows are ``("header", group)`` or ``("chat", ConversationSummary)``; pinned chats come first, under *Pinned*.
    :meth:`set_filter` lists only the chats a :class:`ChatFilter` lets through (a tag, a model, a time range).
    ``today`` (a callable giving the local date) is a test hook.
    Store errors are reported through ``failed(str)``; a title edited in the
    list (``setData``) through ``renamed(str id, str title)``.
    """

    PAGE = 100
    failed = Signal(str)
    renamed = Signal(str, str)

    def __init__(self, store, parent=None, today: Callable[[], _dt.date] = _dt.date.today):
        super().__init__(parent)
        self.store = store
        self._today = today
        self._rows: list[tuple[str, Any]] = []
        self._ids: set[str] = set()
        self._loaded = 0
        self._total = 0
        #: which chats are listed (empty: all)
        self.filter = ChatFilter()

    # -- loading ---------------------------------------------------------------------------------

    def set_filter(self, where: ChatFilter) -> None:
        """List only the chats ``where`` lets through (an empty filter: every chat)."""
        self.filter = where
        self._loaded = 0
        self.reload()

    def reload(self) -> None:
        """Reload from the store, keeping at least as many chats loaded as before."""
        want = max(self.PAGE, self._loaded)
        self.beginResetModel()
        self._rows, self._ids, self._loaded = [], set(), 0
        try:
            self._total = self.store.count(self.filter)
            self._append(self.store.list(limit=want, offset=0, where=self.filter))
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
            g = pinned_group() if s.pinned else group_of(s.updated_at, today)
            if g != last:
                rows.append(("header", g))
                last = g
            rows.append(("chat", s))
            self._ids.add(s.id)
        return rows

    def _append(self, batch: list[ConversationSummary]) -> None:
        self._rows += self._new_rows(batch)
        self._loaded += len(batch)

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = _NO_PARENT) -> bool:
        return not parent.isValid() and self._loaded < self._total

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = _NO_PARENT) -> None:
        if parent.isValid():
            return
        try:
            batch = self.store.list(limit=self.PAGE, offset=self._loaded, where=self.filter)
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

    def note_saved(self, s: ConversationSummary) -> None:
        """Show the chat ``s`` (just saved: the most recently updated) at the top of the list, under the pinned
        chats — added if it was not listed, else moved up and updated — without reloading the list: a few row
        changes, whatever the number of chats. A pinned chat is updated where it is; with a filter (the chat may
        not pass it) the list is read again."""
        row = self.row_of(s.id)
        if s.pinned and row is not None:
            self._rows[row] = ("chat", s)
            self.dataChanged.emit(self.index(row), self.index(row))
            return
        if s.pinned or not self.filter.empty:
            self.reload()
            return
        base = self._dated_start()
        group = group_of(s.updated_at, self._today())
        top = base + 1 if base < len(self._rows) and self._rows[base] == ("header", group) else None
        if row is not None and row == top:
            self._rows[row] = ("chat", s)
            self.dataChanged.emit(self.index(row), self.index(row))
            return
        if row is not None:
            first = row
            # its group header goes too when it was the only chat of its group
            alone = self._rows[row - 1][0] == "header" and (
                row + 1 == len(self._rows) or self._rows[row + 1][0] == "header"
            )
            if alone:
                first = row - 1
            self.beginRemoveRows(QModelIndex(), first, row)
            del self._rows[first : row + 1]
            self.endRemoveRows()
        else:
            self._ids.add(s.id)
            self._loaded += 1  # every listed chat moved one place down in the store's order
            try:
                self._total = self.store.count()  # one more when it is a new chat
            except StoreError:
                self._total = max(self._total, self._loaded)
        if base < len(self._rows) and self._rows[base] == ("header", group):
            self.beginInsertRows(QModelIndex(), base + 1, base + 1)
            self._rows.insert(base + 1, ("chat", s))
        else:
            self.beginInsertRows(QModelIndex(), base, base + 1)
            self._rows[base:base] = [("header", group), ("chat", s)]
        self.endInsertRows()

    def _dated_start(self) -> int:
        """The row where the chats grouped by date begin (after the pinned ones, if any)."""
        if not self._rows or self._rows[0] != ("header", pinned_group()):
            return 0
        return next((i for i in range(1, len(self._rows)) if self._rows[i][0] == "header"), len(self._rows))

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

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
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
            count = s.message_count
            n = (translate("Models", "%n message", None, count) if count == 1
                 else translate("Models", "%n messages", None, count))
            when = format_epoch(s.updated_at)
            tip = translate("Models", "{title}\n{model} · {n} · last message {when}").format(title=s.title,
                    model=s.model or 'unknown model', n=n, when=when)
            return tip + ("\n" + translate("Models", "Tags: {tags}").format(tags=", ".join(s.tags)) if s.tags else "")
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{s.title}, {s.model or 'unknown model'}, {date_label(s.updated_at, self._today())}"
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        if self._rows[index.row()][0] == "header":
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def setData(
        self, index: QModelIndex | QPersistentModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole
    ) -> bool:
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
        self.renamed.emit(new.id, new.title)
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

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self.hits)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
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

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable if index.isValid() else Qt.ItemFlag.NoItemFlags
