"""The history panel's place in the window: the left dock (View → History, Ctrl+H) with its action in the View
menu and the toolbar, File → Import chats… / Export all chats…, and View → Search chats (Ctrl+K), the keyboard's
way into the list — there from the first
frame when the default store will open, dropped again when it could not be opened. Imported before the first
frame: PySide6 only (the panel itself comes later)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QToolBar, QWidget

from desktop_agent.ui import icons
from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.ui.dock_fit import DockFitter
    from desktop_agent.ui.history.panel import HistoryPanel

log = logging.getLogger(__name__)


class HistoryDock:
    """The left dock of ``window`` for the history panel, its toggle action before ``before`` in ``menu`` and
    ``toolbar``; ``fitted`` runs when the toolbar changed. ``dock`` / ``action``: None without one."""

    def __init__(self, window: QMainWindow, menu: QMenu, toolbar: QToolBar, before: QAction, fit: DockFitter,
                 *, fitted: Callable[[], None], restored: Callable[[], bool], visible: Callable[[], Any]):
        self.window, self.menu, self.toolbar, self.before, self.fit = window, menu, toolbar, before, fit
        self._fitted, self._restored, self._visible = fitted, restored, visible
        self.dock: QDockWidget | None = None
        self.action: QAction | None = None
        #: View → Search chats (Ctrl+K): shows the dock and puts the keyboard in its search box
        self.search_action: QAction | None = None
        self.panel: HistoryPanel | None = None
        self._file_actions: list[QAction] = []

    def add(self) -> None:
        """The dock, empty until the panel is set. Added before the window shows, the window's saved layout
        places it; added after, it is placed from that layout here."""
        w = self.window
        dock = QDockWidget(translate("Dock", "History"), w)
        dock.setObjectName("historyDock")
        dock.setAccessibleName(translate("Dock", "Chat history"))
        dock.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        dock.setWidget(QWidget())
        w.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        action = dock.toggleViewAction()
        action.setText(translate("Dock", "&History"))
        action.setIcon(icons.icon("history"))
        action.setShortcut(QKeySequence("Ctrl+H"))
        action.setToolTip(translate("Dock", "Show or hide the chat history (Ctrl+H)"))
        action.setWhatsThis(QCoreApplication.translate("HistoryDock", "Show or hide the chat history"))
        w.addAction(action)
        self.menu.insertAction(self.before, action)
        self.toolbar.insertAction(self.before, action)
        search = QAction(QCoreApplication.translate("HistoryDock", "&Search chats"), w)
        search.setShortcut(QKeySequence("Ctrl+K"))
        search.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        search.setToolTip(QCoreApplication.translate(
            "HistoryDock", "Go to the chat history's search (Ctrl+K); Down steps into the list, Enter opens a chat"))
        search.triggered.connect(self.focus_search)
        w.addAction(search)
        self.menu.insertAction(self.before, search)
        self.dock, self.action, self.search_action = dock, action, search
        # created after the window showed: restore its place from the saved layout, then show it
        # explicitly unless the user had hidden it (a late dock is not shown by restoreState)
        restored = self._restored() and w.restoreDockWidget(dock)
        dock.setVisible(str(self._visible()).lower() != "false")
        if not restored:
            width = max(200, min(260, int(w.width() * 0.2)))
            w.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
        self.fit.add(dock)
        self._fitted()
        self.fit.schedule()

    def focus_search(self) -> None:
        """Show the history (if hidden) and put the keyboard in its search box."""
        if self.dock is None or self.panel is None:
            return
        self.dock.show()
        self.dock.raise_()
        self.panel.focus_search()

    def restyle_icon(self) -> None:
        if self.action is not None:
            self.action.setIcon(icons.icon("history"))

    def install(self, store: Any, warn: Callable[[str], None]) -> HistoryPanel | None:
        """The panel of ``store``, or None (the empty dock goes) when there is no store or no panel; ``warn`` tells
        the user why a store's panel could not be shown."""
        if not store:
            self.drop()
            return None
        from desktop_agent.ui.history.panel import HistoryPanel

        try:
            return HistoryPanel(store)
        except Exception as exc:  # the chat works without the list of past chats: say so, go on
            log.exception("could not create the history panel")
            warn(translate("Dock", "The list of past chats could not be shown ({exc}); chats are still saved.").format(
                    exc=exc))
            self.drop()
            return None

    def set_panel(self, panel: HistoryPanel) -> None:
        if self.dock is None:
            self.add()
        assert self.dock is not None
        self.dock.setWidget(panel)
        self.panel = panel
        self._add_to_file_menu(panel)

    def _add_to_file_menu(self, panel: HistoryPanel) -> None:
        """File → Import chats… and Export all chats… (the panel's actions), after File → New chat."""
        menus = [m for a in self.window.menuBar().actions() if isinstance(m := a.menu(), QMenu)]
        if not menus:
            return
        file_menu = menus[0]
        for a in self._file_actions:
            file_menu.removeAction(a)
        first_separator = next((a for a in file_menu.actions() if a.isSeparator()), None)
        separator = QAction(file_menu)
        separator.setSeparator(True)
        self._file_actions = [separator, panel.import_action, panel.export_all_action]
        if first_separator is None:
            file_menu.addActions(self._file_actions)
        else:
            file_menu.insertActions(first_separator, self._file_actions)

    def show_current(self, conversation_id: str | None) -> None:
        """The list highlights the chat on screen (None: nothing, a new chat)."""
        if self.panel is not None:
            self.panel.show_current(conversation_id)

    def note_saved(self, conversation_id: str, shown: bool) -> None:
        """Chat ``conversation_id`` was saved: in the list from its first message on (highlighted when shown)."""
        if self.panel is not None:
            self.panel.note_saved(conversation_id)
            if shown:
                self.panel.show_current(conversation_id)

    def refresh(self, current: str | None) -> None:
        """After a turn: the list shows the saved chats, with ``current`` selected."""
        if self.panel is None:
            return
        try:
            self.panel.refresh()
            self.panel.show_current(current)
        except Exception:  # the panel failing must not break the chat
            log.exception("history panel refresh failed")

    def drop(self) -> None:
        """No history panel after all (the store could not be opened): its empty dock goes."""
        dock, action, search = self.dock, self.action, self.search_action
        if dock is None or action is None or self.panel is not None:
            return
        for holder in (self.window, self.menu, self.toolbar):
            holder.removeAction(action)
            if search is not None:
                holder.removeAction(search)
        self.dock = self.action = self.search_action = None
        self.fit.remove(dock)
        self.window.removeDockWidget(dock)
        dock.deleteLater()
        self._fitted()
