"""The history panel's dialogs: where to export a chat, which file to import, confirming a delete (the import
itself: :mod:`.porting`)."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop_agent.core.store import ConversationSummary
from desktop_agent.ui.i18n import translate


def safe_file_name(title: str) -> str:
    """A file name (without suffix) made from a chat title: no path or reserved characters, ≤ 60 characters."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    return (name[:60].rstrip() or "chat")


def ask_export_path(parent: QWidget, title: str, fmt: str, folder: Path) -> str | None:
    """Ask where to export the chat ``title`` as ``fmt`` (``"md"``, ``"json"`` or ``"html"``), starting in
    ``folder``; None if cancelled."""
    suffix, filt = {"md": (".md", translate("Dialogs", "Markdown (*.md)")),
                    "html": (".html", translate("Dialogs", "Web page (*.html)"))}.get(
        fmt, (".json", translate("Dialogs", "JSON (*.json)")))
    start = str(folder / (safe_file_name(title) + suffix))
    path, _ = QFileDialog.getSaveFileName(parent, translate("Dialogs", "Export chat"), start, translate("Dialogs",
            "{filter};;All files (*)").format(filter=filt))
    return path or None


def ask_import_path(parent: QWidget, folder: Path) -> str | None:
    """Ask which chat file to import, starting in ``folder``; None if cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, translate("Dialogs", "Import chats"), str(folder), translate(
            "Dialogs", "Chat files: Desktop Agent, ChatGPT conversations.json, Open WebUI (*.json);;"
                       "Chat histories of Desktop Agent (conversations.sqlite3*);;All files (*)"))
    return path or None


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
