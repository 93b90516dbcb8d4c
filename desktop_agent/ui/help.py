"""The Help menu's dialogs. Keyboard shortcuts: every key the window answers to, read from the window's own actions
and shortcuts (so the list cannot drift from what the keys do), grouped by where they work, plus the keys of the
message box and of Settings that are not actions. About: the version and where the log is. Opening a folder (the
log folder, the data folder) in the desktop's file manager."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QMessageBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core import paths
from desktop_agent.ui.i18n import translate


@dataclass(frozen=True)
class Key:
    """One shortcut as listed: where it works, the keys (native text), what it does."""

    area: str
    keys: str
    does: str


def _native(seq: QKeySequence) -> str:
    return seq.toString(QKeySequence.SequenceFormat.NativeText)


def _area(widget: QWidget | None, window: QWidget, context: Qt.ShortcutContext) -> str:
    """Where a shortcut works: the whole window, or the dock (or widget) it belongs to."""
    if context in (Qt.ShortcutContext.WindowShortcut, Qt.ShortcutContext.ApplicationShortcut) or widget is None:
        return translate("Shortcuts", "Anywhere in the window")
    w: QWidget | None = widget
    while w is not None and w is not window:
        if isinstance(w, QDockWidget):
            return w.windowTitle()
        w = w.parentWidget()
    return widget.accessibleName() or translate("Shortcuts", "Anywhere in the window")


def _plain(text: str) -> str:
    """An action's text without its mnemonic: "&New chat" → "New chat", "新建对话(&N)" → "新建对话"."""
    text = re.sub(r"\s*\(&\w\)", "", text)  # (the CJK way: the key in brackets after the words)
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("…").strip()


def window_keys(window: QWidget) -> list[Key]:
    """The shortcuts of ``window``'s actions and ``QShortcut`` objects (``whatsThis`` says what one does; an action
    without it says it by its text), then the message box's and Settings' own keys; each (area, keys) once."""
    from desktop_agent.ui.chat.approval import ApprovalCard
    from desktop_agent.ui.chat.question import QuestionCard
    from desktop_agent.ui.compose import ComposeBox
    from desktop_agent.ui.history.panel import HistoryPanel
    from desktop_agent.ui.quick_ask import QuickAsk
    from desktop_agent.ui.settings.dialog import SETTINGS_KEYS

    found: list[Key] = []
    for action in window.findChildren(QAction):
        if action.shortcut().isEmpty() or not action.text():
            continue
        parent = action.parent()
        owner = parent if isinstance(parent, QWidget) else None
        for seq in action.shortcuts():
            does = action.whatsThis() or _plain(action.text())
            found.append(Key(_area(owner, window, action.shortcutContext()), _native(seq), does))
    for shortcut in window.findChildren(QShortcut):
        if shortcut.key().isEmpty() or not shortcut.whatsThis():
            continue
        parent = shortcut.parent()
        owner = parent if isinstance(parent, QWidget) else None
        found.append(Key(_area(owner, window, shortcut.context()), _native(shortcut.key()), shortcut.whatsThis()))
    for area, keys_of_area in ((translate("Shortcuts", "Message box"), ComposeBox.KEYS),
                               (translate("Shortcuts", "History search"), HistoryPanel.SEARCH_KEYS),
                               (translate("Shortcuts", "An approval card"), ApprovalCard.KEYS),
                               (translate("Shortcuts", "A server's question"), QuestionCard.KEYS),
                               (translate("Shortcuts", "Settings"), SETTINGS_KEYS),
                               (translate("Shortcuts", "Quick ask"), QuickAsk.KEYS)):
        found += [Key(area, _native(QKeySequence(keys)), translate("Shortcuts", str(does)))
                  for keys, does in keys_of_area]
    seen: set[tuple[str, str]] = set()
    unique = []
    for k in found:
        if (k.area, k.keys) not in seen:
            seen.add((k.area, k.keys))
            unique.append(k)
    return unique


class ShortcutsDialog(QDialog):
    """The list of :func:`window_keys`, one group per area, the window's own first."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self.setWindowTitle(translate("Shortcuts", "Keyboard shortcuts"))
        self.setObjectName("shortcutsDialog")
        self.keys = window_keys(window)
        self.tree = QTreeWidget()
        self.tree.setObjectName("shortcutsList")
        self.tree.setAccessibleName(translate("Shortcuts", "Keyboard shortcuts"))
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels([translate("Shortcuts", "Keys"), translate("Shortcuts", "What it does")])
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        groups: dict[str, QTreeWidgetItem] = {}
        for k in self.keys:
            group = groups.get(k.area)
            if group is None:
                group = groups[k.area] = QTreeWidgetItem(self.tree, [k.area])
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                group.setFirstColumnSpanned(True)
                group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            QTreeWidgetItem(group, [k.keys, k.does])
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)
        self.tree.setColumnWidth(0, self.tree.columnWidth(0) + 24)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(520, 560)
        self.tree.setFocus()


def show_about(window: QWidget, app_name: str) -> None:
    """Help → About: the app's name and version, what it is, and its log file."""
    from desktop_agent import __version__

    QMessageBox.about(window, translate("MainWindow", "About {APP_DISPLAY_NAME}").format(
        APP_DISPLAY_NAME=app_name), translate("MainWindow", "<b>{APP_DISPLAY_NAME}</b> {version}<br>A "
        "desktop assistant for Ollama and OpenAI-compatible servers, with tools.<br><br>Log file: {log_file}"
    ).format(APP_DISPLAY_NAME=app_name, version=__version__, log_file=paths.log_file()))


def open_folder(folder: Path) -> None:
    """Show ``folder`` in the desktop's file manager."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
