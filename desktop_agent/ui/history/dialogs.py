"""The history panel's dialogs: where to export a chat, which file to import, confirming a delete."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop_agent.core.store import ConversationSummary


def safe_file_name(title: str) -> str:
    """A file name (without suffix) made from a chat title: no path or reserved characters, ≤ 60 characters."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    return (name[:60].rstrip() or "chat")


def ask_export_path(parent: QWidget, title: str, fmt: str) -> str | None:
    """Ask where to export the chat ``title`` as ``fmt`` (``"md"`` or ``"json"``); None if cancelled."""
    suffix, filt = (".md", "Markdown (*.md)") if fmt == "md" else (".json", "JSON (*.json)")
    start = str(Path.home() / (safe_file_name(title) + suffix))
    path, _ = QFileDialog.getSaveFileName(parent, "Export chat", start, f"{filt};;All files (*)")
    return path or None


def ask_import_path(parent: QWidget) -> str | None:
    """Ask which chat file to import; None if cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, "Import chat", str(Path.home()), "Chat files (*.json);;All files (*)")
    return path or None


def confirm_delete(parent: QWidget, s: ConversationSummary) -> bool:
    """Ask before deleting the chat ``s`` (Cancel is the default); True if the user chose Delete."""
    box = QMessageBox(parent)
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
