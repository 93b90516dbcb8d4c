"""The history panel (left dock): saved chats, full-text search, rename, delete, export, import.

:class:`HistoryPanel` takes a :class:`~desktop_agent.core.store.ConversationStore` and shows

- the chats, most recently updated first, grouped *Today* / *Yesterday* / *Previous 7 days* / *Older*,
  each with its title, model and date. The list model (:class:`~.models.ChatListModel`) loads 100 chats at a
  time as the list scrolls (``canFetchMore``/``fetchMore``), so 10,000 chats open instantly;
- a search box: full-text search over every message and chat title (:meth:`ConversationStore.search`) as
  you type, run in the background (the latest query wins: an older one still running is stopped and its
  results dropped), results with the matching text highlighted; Enter (or a click) opens the chat at that
  message (a title hit opens the chat) — Enter before the results are in opens the first once they are. No
  result is selected before one is opened;
- rename (F2 or double-click: inline editor), delete (Del, after a confirmation), export to Markdown, JSON
  (every branch) or a web page (a file dialog; written atomically), export every chat to one file (in the
  background), import chats (:class:`~.porting.ImportDialog`: our export, the seed's ``chat_<model>_<time>.json``,
  ChatGPT's ``conversations.json``, Open WebUI's export — a preview, then the import with a progress bar; what is
  already here is not added again); problems show in a line at the bottom of the panel, never a traceback. The
  export and import dialogs open in the folder the last export or import went to (remembered in ``window.ini``).

The window tells the panel which chat it shows (:meth:`HistoryPanel.show_current`; None: a new, unsaved
chat): that row is highlighted, also after a delete or a refresh. After a message was saved call
:meth:`HistoryPanel.note_saved` (a few row changes, cheap on every message) or :meth:`HistoryPanel.refresh`
(reloads the list and re-runs the search).

Signals: ``conversation_activated(str id)`` (open this chat), ``message_activated(str id, int
message_id)`` (open it at that message — a search hit), ``conversation_deleted(str id)``,
``conversation_renamed(str id, str title)``, ``status_message(str)`` (for the status bar). A chat deleted
while its answer still streams stays deleted: the store refuses later saves into it.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QEvent, QModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.errors import StoreError
from desktop_agent.core.store.chatfiles import atomic_write_text
from desktop_agent.ui import theme
from desktop_agent.ui.history.delegates import ChatDelegate, HitDelegate
from desktop_agent.ui.history.dialogs import ask_export_path, ask_import_path, confirm_delete
from desktop_agent.ui.history.models import ChatListModel, HitRole, IdRole, KindRole, SearchModel
from desktop_agent.ui.history.organise import HistoryFilter, LabelActions
from desktop_agent.ui.history.porting import (
    ImportDialog,
    ask_export_all_path,
    export_all,
    last_folder,
    remember_folder,
    result_text,
)
from desktop_agent.ui.i18n import number, translate
from desktop_agent.ui.tasks import TaskRunner

#: ``window.ini`` key of the folder the last export or import went to


def result_count(hits: list, more: bool = False) -> str:
    """"3 messages found", "1 title and 2 messages found" (``more``: the list was cut, "2+ messages")."""
    titles = sum(1 for h in hits if h.in_title)
    messages = len(hits) - titles
    counts = [(n, word) for n, word in ((titles, "title"), (messages, "message")) if n]
    parts = [f"{n}{'+' if more and i == len(counts) - 1 else ''} {word}{'s' if n != 1 else ''}"
             for i, (n, word) in enumerate(counts)]
    return " and ".join(parts) + " found"


class _ListView(QListView):
    """A list that reports Enter/Return and Delete/F2 (Qt's own Enter handling depends on the style)."""

    enter_pressed = Signal(QModelIndex)
    delete_pressed = Signal(QModelIndex)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        idx = self.currentIndex()
        editing = self.state() == QAbstractItemView.State.EditingState
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not editing and idx.isValid():
            self.enter_pressed.emit(idx)
            event.accept()
            return
        if key == Qt.Key.Key_Delete and idx.isValid() and not editing:
            self.delete_pressed.emit(idx)
            event.accept()
            return
        super().keyPressEvent(event)


class HistoryPanel(QWidget):
    """Browse / search / open / rename / delete / export / import saved chats. See the module docstring."""

    #: the search box's keys (listed in Help → Keyboard shortcuts)
    SEARCH_KEYS = (("Down", QT_TRANSLATE_NOOP("Shortcuts", "From the search box into the list or the results")),
                   ("Enter", QT_TRANSLATE_NOOP("Shortcuts", "Open the selected (or first) result")),
                   ("Esc", QT_TRANSLATE_NOOP("Shortcuts", "Clear the search")))

    conversation_activated = Signal(str)
    message_activated = Signal(str, int)
    conversation_deleted = Signal(str)
    conversation_renamed = Signal(str, str)
    status_message = Signal(str)

    #: keys typed closer together than this make one search (a paste, a fast typist); a human's next key
    #: comes later, and the search starts on each
    SEARCH_DELAY_MS = 30

    def __init__(self, store, parent: QWidget | None = None, *, today: Callable[[], _dt.date] = _dt.date.today):
        super().__init__(parent)
        self.store = store
        self._today = today
        #: the chat the window shows (see show_current)
        self._shown: str | None = None
        self.setObjectName("historyPanel")
        self.setAccessibleName(translate("Panel", "Chat history"))
        self.setMinimumWidth(200)

        self.search_box = QLineEdit(self)
        self.search_box.setObjectName("historySearch")
        self.search_box.setAccessibleName(translate("Panel", "Search all chats"))
        self.search_box.setPlaceholderText(translate("Panel", "Search all chats…"))
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setToolTip(
            translate("Panel",
                    "Full-text search over every message and chat title. Enter opens the chat at the first result.")
        )

        self.model = ChatListModel(store, self, today=today)
        self.list = _ListView(self)
        self.list.setObjectName("historyList")
        self.list.setAccessibleName(translate("Panel", "Saved chats"))
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
        self.results.setAccessibleName(translate("Panel", "Search results"))
        self.results.setModel(self.search_model)
        self.results.setItemDelegate(HitDelegate(today, self.results))
        self.results.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setFrameShape(QListView.Shape.NoFrame)
        self.results.setWordWrap(True)
        self.results.setResizeMode(QListView.ResizeMode.Adjust)

        self.empty_label = QLabel(translate("Panel", "No saved chats yet.\nYour chats appear here as you talk."), self)
        self.empty_label.setObjectName("historyEmpty")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.result_label = QLabel(self)
        self.result_label.setObjectName("historyResultCount")
        self.result_label.setAccessibleName(translate("Panel", "Search result count"))
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
        self.error_label.setAccessibleName(translate("Panel", "History problem"))
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.hide()

        # actions (context menu, buttons, shortcuts)
        self.open_action = QAction(translate("Panel", "&Open"), self)
        self.rename_action = QAction(translate("Panel", "&Rename…"), self)
        self.rename_action.setShortcut(QKeySequence(Qt.Key.Key_F2))
        self.export_md_action = QAction(translate("Panel", "Export as &Markdown…"), self)
        self.export_json_action = QAction(translate("Panel", "Export as &JSON…"), self)
        self.export_html_action = QAction(translate("Panel", "Export as &web page…"), self)
        self.export_all_action = QAction(translate("Panel", "E&xport all chats…"), self)
        self.export_all_action.setToolTip(translate("Panel", "Every chat in one file: JSON (every branch, "
                                                             "re-importable), Markdown or a web page"))
        self.delete_action = QAction(translate("Panel", "&Delete…"), self)
        self.delete_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.import_action = QAction(translate("Panel", "&Import chats…"), self)
        self.import_action.setToolTip(translate("Panel", "Import chats: a Desktop Agent export, ChatGPT's "
                                                         "conversations.json or an Open WebUI export"))
        self.rename_action.setWhatsThis(self.tr("Rename the selected chat"))
        self.delete_action.setWhatsThis(self.tr("Delete the selected chat"))
        for a in (self.rename_action, self.delete_action):
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.open_action.triggered.connect(lambda: self._open_index(self.list.currentIndex()))
        self.rename_action.triggered.connect(self.start_rename)
        self.export_md_action.triggered.connect(lambda: self.export_current("md"))
        self.export_json_action.triggered.connect(lambda: self.export_current("json"))
        self.export_html_action.triggered.connect(lambda: self.export_current("html"))
        self.export_all_action.triggered.connect(lambda: self.export_all())
        self.delete_action.triggered.connect(lambda: self.delete_current())
        self.import_action.triggered.connect(lambda: self.import_chat())

        self.import_button = QToolButton(self)
        self.import_button.setObjectName("historyImport")
        self.import_button.setDefaultAction(self.import_action)
        self.import_button.setText(translate("Panel", "Import…"))
        self.import_button.setAccessibleName(translate("Panel", "Import chat"))
        self.import_button.setAutoRaise(True)
        self.labels = LabelActions(self)  # pin, tags (organise.py)
        self.chat_menu = QMenu(self)
        for a in (self.labels.pin_action, self.rename_action, self.export_md_action, self.export_json_action,
                  self.export_html_action):
            self.chat_menu.addAction(a)
        self.chat_menu.addMenu(self.labels.tags_menu)
        self.chat_menu.addSeparator()
        self.chat_menu.addAction(self.delete_action)
        self.chat_menu.addSeparator()
        self.chat_menu.addAction(self.export_all_action)
        self.chat_button = QToolButton(self)
        self.chat_button.setObjectName("historyChatMenu")
        self.chat_button.setText(translate("Panel", "Chat"))
        self.chat_button.setAccessibleName(translate("Panel", "Selected chat actions"))
        self.chat_button.setToolTip(translate("Panel", "Rename, export or delete the selected chat"))
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
        self.filter_row = HistoryFilter(store, today, self)  # tag, model, date (organise.py)
        self.filter_row.changed.connect(self.set_filter)
        layout.addWidget(self.filter_row)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.error_label)
        layout.addLayout(bar)
        self.addActions([self.rename_action, self.delete_action])

        #: searches run here, off the GUI thread (key "search": the latest wins)
        self.tasks = TaskRunner(self)
        #: the query whose results are shown (None: none yet); Enter pressed before they came
        self._hits_for: str | None = None
        self._open_first_hit = False
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(self.SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self._run_search)
        self.search_box.textChanged.connect(self._search_changed)
        self.search_box.returnPressed.connect(self._search_enter)
        self.search_box.installEventFilter(self)

        self.list.clicked.connect(self._open_index)
        self.list.enter_pressed.connect(self._open_index)
        self.list.delete_pressed.connect(lambda idx: self.delete_current())
        self.list.doubleClicked.connect(lambda idx: self.start_rename())
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.list.selectionModel().currentChanged.connect(lambda *_: self._update_actions())
        self.results.clicked.connect(self._open_hit)
        self.results.enter_pressed.connect(self._open_hit)
        self.model.failed.connect(self.show_error)
        self.model.modelReset.connect(self._update_state)
        self.model.rowsInserted.connect(lambda *_: self._update_state())
        self.model.renamed.connect(self.conversation_renamed)

        self.restyle()
        self.refresh()

    # -- public API --------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the list from the store (keeps the selection); re-run the search if one is shown."""
        current = self.current_id() or self._shown
        scroll = self.list.verticalScrollBar().value()
        self.model.reload()
        if current is not None:
            self.select(current, fetch=False)
        self.list.verticalScrollBar().setValue(scroll)
        if self.search_box.text().strip():
            self._run_search()
        self._update_state()

    reload = refresh

    def show_current(self, conversation_id: str | None) -> None:
        """The window shows this chat (None: a new, unsaved one): highlight its row — loading pages until it
        is listed — or nothing. Emits nothing (the chat is already open)."""
        self._shown = conversation_id
        if conversation_id is None or not self._is_saved(conversation_id) or not self.select(conversation_id):
            self.list.selectionModel().clear()
            self.list.setCurrentIndex(QModelIndex())
        self._update_actions()

    def _is_saved(self, conversation_id: str) -> bool:
        """Whether the store has the chat (before paging through the whole list looking for it)."""
        if self.model.row_of(conversation_id) is not None:
            return True
        try:
            self.store.summary(conversation_id)
        except StoreError:  # ConversationNotFound: not saved yet
            return False
        return True

    def note_saved(self, conversation_id: str) -> None:
        """A message of this chat was saved: show it at the top of the list (added when it is new) without
        reloading the list — one summary read and a few row changes. The shown chat stays highlighted."""
        try:
            s = self.store.summary(conversation_id)
        except StoreError as exc:  # e.g. deleted meanwhile
            self.show_error(str(exc))
            return
        current = self.current_id()
        self.model.note_saved(s)
        if current is not None and current != self.current_id():
            self.select(current, fetch=False)
        self._update_state()

    def set_filter(self, where) -> None:
        """List only the chats ``where`` (a :class:`~desktop_agent.core.store.labels.ChatFilter`) lets through."""
        self.model.set_filter(where)
        self._update_state()
        self.show_current(self._shown)

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
            self.status_message.emit(text)

    def clear_error(self) -> None:
        self.error_label.clear()
        self.error_label.hide()

    def _search_changed(self, _text: str) -> None:
        self.clear_error()
        self._open_first_hit = False  # an Enter was for what the box said before
        self._search_timer.start()

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
        self.conversation_renamed.emit(conversation_id, self.store.summary(conversation_id).title)
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
        if confirm and not confirm_delete(self, s):
            return False
        try:
            self.store.delete(conversation_id)
        except StoreError as exc:
            self.show_error(str(exc))
            return False
        self.clear_error()
        self.refresh()
        if self._shown == conversation_id:
            self._shown = None  # the window leaves it (and calls show_current with what it shows next)
        self.show_current(self._shown)
        self.status_message.emit(translate("Panel", "Deleted “{title}”.").format(title=s.title))
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
            path = ask_export_path(self, s.title, fmt, last_folder())
            if path is None:
                return None
        try:
            atomic_write_text(path, text)
        except OSError as exc:
            self.show_error(translate("Panel", "Could not write {path}: {strerror}.").format(path=path,
                    strerror=exc.strerror or exc))
            return None
        remember_folder(Path(path).parent)
        self.clear_error()
        self.status_message.emit(translate("Panel", "Exported “{title}” to {path}.").format(title=s.title, path=path))
        return Path(path)

    def import_chat(self, path: str | None = None) -> ImportDialog | None:
        """Import chats from a file (asked with a file dialog when None): the import dialog reads it in the
        background, shows what it holds and what is new, and imports on the user's say-so; then the first chat
        imported opens. Returns the dialog (None: no file chosen)."""
        if path is None:
            path = ask_import_path(self, last_folder())
            if path is None:
                return None
        remember_folder(Path(path).parent)
        dialog = ImportDialog(self.store, path, self.tasks, self)
        dialog.imported.connect(self._imported)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _imported(self, result) -> None:
        self.clear_error()
        self.search_box.clear()
        self.refresh()
        self.status_message.emit(result_text(result))
        if result.chat_ids:
            self.select(result.chat_ids[0])
            self._emit_open(result.chat_ids[0])

    def export_all(self, path: str | None = None, fmt: str = "json") -> None:
        """Export every chat to one file (asked with a file dialog when ``path`` is None), in the background."""
        if path is None:
            asked = ask_export_all_path(self, last_folder())
            if asked is None:
                return
            path, fmt = asked
        remember_folder(Path(path).parent)
        self.status_message.emit(translate("Panel", "Exporting every chat to {path}…").format(path=path))

        def done(count: int | None, error: BaseException | None) -> None:
            if error is not None:
                reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
                self.show_error(translate("Panel", "Could not write {path}: {strerror}.").format(path=path,
                                                                                                strerror=reason))
                return
            self.clear_error()
            text = (translate("Panel", "Exported {count} chat to {path}.") if count == 1
                    else translate("Panel", "Exported {count} chats to {path}."))
            self.status_message.emit(text.format(count=number(count or 0), path=path))

        export_all(self.store, path, fmt, self.tasks, done)

    # -- internals ---------------------------------------------------------------------------------

    def restyle(self) -> None:
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

    def changeEvent(self, event) -> None:
        if event.type() == QEvent.Type.PaletteChange:
            self.restyle()
        super().changeEvent(event)

    def eventFilter(self, obj, event) -> bool:
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
                        first = next((view.model().index(r, 0) for r in range(view.model().rowCount())
                                      if view.model().index(r, 0).flags() & Qt.ItemFlag.ItemIsSelectable), None)
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
            filtered = not self.model.filter.empty
            self.empty_label.setText(translate("Panel", "No chat matches the filter.") if filtered else
                                     translate("Panel", "No saved chats yet.\nYour chats appear here as you talk."))
            self.stack.setCurrentIndex(2)
        else:
            self.stack.setCurrentIndex(0)
        total = self.model.total
        text = translate("Panel", "{count} chat") if total == 1 else translate("Panel", "{count} chats")
        self.count_label.setText(text.format(count=number(total)))
        self._update_actions()

    def _update_actions(self) -> None:
        has = self.current_id() is not None and self.stack.currentIndex() == 0
        chat_actions = (self.open_action, self.rename_action, self.export_md_action, self.export_json_action,
                        self.export_html_action, self.delete_action)
        for a in chat_actions:
            a.setEnabled(has)
        self.chat_button.setEnabled(has)
        self.labels.update()

    def _emit_open(self, conversation_id: str) -> None:
        self.conversation_activated.emit(conversation_id)

    def _open_index(self, idx: QModelIndex) -> None:
        if idx.isValid() and idx.data(KindRole) == "chat":
            self._emit_open(idx.data(IdRole))

    def _open_hit(self, idx: QModelIndex) -> None:
        """Open a search result (and highlight it): a message hit at its message, a title hit as the chat."""
        if not idx.isValid():
            return
        self.results.setCurrentIndex(idx)
        hit = idx.data(HitRole)
        if hit.in_title:
            self._emit_open(hit.conversation_id)
        else:
            self.message_activated.emit(hit.conversation_id, int(hit.message_id))

    def _search_enter(self) -> None:
        """Enter in the search box: open the selected (or first) result of what the box says — at once when
        its results are shown, else as soon as they come."""
        text = self.search_box.text().strip()
        if not text:
            return
        if self._hits_for != text or self._search_timer.isActive():
            self._open_first_hit = True
            if self._search_timer.isActive() or not self.tasks.is_running("search"):
                self._run_search()
            return
        self._open_shown_hit()

    def _open_shown_hit(self) -> None:
        if self.search_model.rowCount() == 0:
            return
        idx = self.results.currentIndex()
        self._open_hit(idx if idx.isValid() else self.search_model.index(0))

    def _run_search(self) -> None:
        """Search for what the box says, in the background (:meth:`_show_hits` shows the results)."""
        self._search_timer.stop()
        text = self.search_box.text().strip()
        if not text:
            self.tasks.drop("search")
            self._hits_for = None
            self._open_first_hit = False
            self.search_model.set_hits([])
            self._update_state()
            return
        store = self.store
        self.tasks.run(lambda task: store.search(text, limit=100, cancel=task.cancel_event),
                       lambda hits, error: self._show_hits(text, hits, error), key="search")

    def _show_hits(self, text: str, hits: list | None, error: BaseException | None) -> None:
        if text != self.search_box.text().strip():
            return  # the box says something else now: its own search is on its way
        if error is not None:
            if not isinstance(error, StoreError):
                raise error
            self.show_error(str(error))
        hits = hits or []
        self._hits_for = text
        self.search_model.set_hits(hits)  # (no result is selected before one is opened)
        if hits:
            self.result_label.setText(result_count(hits, more=len(hits) >= 100))
        else:
            self.result_label.setText("")
            self.no_results.setText(translate("Panel", "No message contains “{text}”.").format(text=text))
        self.result_label.setVisible(bool(hits))
        self.results.setVisible(bool(hits))
        self.no_results.setVisible(not hits)
        self._update_state()
        if self._open_first_hit:
            self._open_first_hit = False
            self._open_shown_hit()

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
        menu.addAction(self.labels.pin_action)
        menu.addMenu(self.labels.tags_menu)
        for a in (self.rename_action, self.export_md_action, self.export_json_action, self.export_html_action):
            menu.addAction(a)
        menu.addSeparator()
        menu.addAction(self.delete_action)
        menu.addSeparator()
        menu.addAction(self.import_action)
        menu.exec(self.list.viewport().mapToGlobal(pos))
