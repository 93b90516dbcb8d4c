"""The history panel's dialogs: where to export a chat, which file to import, importing a chat again,
confirming a delete."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QDateTime, QLocale
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop_agent.core.store import ConversationSummary
from desktop_agent.core.store.conversations import PreviousImport
from desktop_agent.ui.i18n import translate


def safe_file_name(title: str) -> str:
    """A file name (without suffix) made from a chat title: no path or reserved characters, ≤ 60 characters."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    return (name[:60].rstrip() or "chat")


def ask_export_path(parent: QWidget, title: str, fmt: str, folder: Path) -> str | None:
    """Ask where to export the chat ``title`` as ``fmt`` (``"md"`` or ``"json"``), starting in ``folder``;
    None if cancelled."""
    suffix, filt = (".md", translate("Dialogs", "Markdown (*.md)")) if fmt == "md" else (".json", translate("Dialogs",
            "JSON (*.json)"))
    start = str(folder / (safe_file_name(title) + suffix))
    path, _ = QFileDialog.getSaveFileName(parent, translate("Dialogs", "Export chat"), start, translate("Dialogs",
            "{filter};;All files (*)").format(filter=filt))
    return path or None


def ask_import_path(parent: QWidget, folder: Path) -> str | None:
    """Ask which chat file to import, starting in ``folder``; None if cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, translate("Dialogs", "Import chat"), str(folder), translate(
            "Dialogs", "Chat files (*.json);;All files (*)"))
    return path or None


def when_text(ts: float) -> str:
    """A date and time for a sentence: "3 Nov 2025 at 14:32" (local time)."""
    # the pattern is QLocale's (month names in the window's language); a translation orders it its own way
    pattern = translate("Dialogs", "d MMM yyyy 'at' HH:mm", "a date and time in a sentence (QDateTime format)")
    return QLocale().toString(QDateTime.fromSecsSinceEpoch(int(ts)), pattern)


def confirm_import_again(parent: QWidget, previous: PreviousImport) -> bool:
    """Ask before importing a chat that is already saved (``previous``); Cancel is the default. True if the
    user chose to import it again as a copy."""
    box = QMessageBox(parent)
    box.setObjectName("historyImportAgain")
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle(translate("Dialogs", "Import chat"))
    if previous.imported_at is not None:
        box.setText(translate("Dialogs",
                "This chat was already imported on {when_text}. Import it again as a copy?").format(
                        when_text=when_text(previous.imported_at)))
    else:
        box.setText(translate("Dialogs", "This chat is already in your history. Import it again as a copy?"))
    box.setInformativeText(translate("Dialogs", "The saved chat: “{title}”.").format(title=previous.title))
    again = box.addButton(translate("Dialogs", "Import copy"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is again


def confirm_delete(parent: QWidget, s: ConversationSummary) -> bool:
    """Ask before deleting the chat ``s`` (Cancel is the default); True if the user chose Delete."""
    box = QMessageBox(parent)
    box.setObjectName("historyDeleteConfirm")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(translate("Dialogs", "Delete chat"))
    box.setText(translate("Dialogs", "Delete “{title}”?").format(title=s.title))
    box.setInformativeText(
        translate("Dialogs", "Its %n message will be removed from the history. Export it first if you want to "
                  "keep a copy.", None, count) if (count := s.message_count) == 1
        else translate("Dialogs", "Its %n messages will be removed from the history. Export it first if you want to "
                       "keep a copy.", None, count)
    )
    delete = box.addButton(translate("Dialogs", "Delete"), QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is delete
