""":class:`FolderList`: an editable list of folders (Add…, Remove, the Delete key) that says which are missing."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QListWidget, QPushButton, QVBoxLayout, QWidget

from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import note_label, on_delete_key, show


class FolderList(QWidget):
    """A list of folders with Add… (a folder picker) and Remove; ``changed`` after each edit. Folders that do
    not exist are named in a warning under the list (``missing_text`` says what that means)."""

    changed = Signal()

    def __init__(self, name: str, *, add_text: str = "", remove_text: str = "",
                 add_name: str = "", remove_name: str = "", dialog_title: str = "",
                 missing_text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        add_text = add_text or translate("FolderList", "A&dd folder…")
        remove_text = remove_text or translate("FolderList", "Remo&ve")
        dialog_title = dialog_title or translate("FolderList", "Add a folder")
        missing_text = missing_text or translate("FolderList", "Not found, skipped:")
        self._dialog_title = dialog_title
        self._missing_text = missing_text
        self.list = QListWidget()
        self.list.setAccessibleName(name)
        self.list.setMinimumHeight(60)
        self.list.setMaximumHeight(96)  # a few folders; the list scrolls beyond them
        self.add_button = QPushButton(add_text)
        self.add_button.setAccessibleName(add_name or translate("FolderList", "{name}: add a folder").format(name=name))
        self.add_button.setAutoDefault(False)
        self.remove_button = QPushButton(remove_text)
        self.remove_button.setAccessibleName(remove_name or translate("FolderList",
                "{name}: remove the selected folder").format(name=name))
        self.remove_button.setAutoDefault(False)
        self.remove_button.setEnabled(False)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.list, 1)
        row.addLayout(buttons)
        self.note = note_label(translate("FolderList", "{name} note").format(name=name))
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(3)
        outer.addLayout(row)
        outer.addWidget(self.note)

        self.add_button.clicked.connect(lambda: self.add_folder())
        self.remove_button.clicked.connect(self.remove_selected)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        on_delete_key(self.list, self.remove_selected)

    def folders(self) -> list[str]:
        """The folders, in the list's order."""
        return [self.list.item(i).text() for i in range(self.list.count())]

    def set_folders(self, folders: list[str]) -> None:
        self.list.clear()
        self.list.addItems(folders)
        self._check()

    def add_folder(self, folder: str | None = None) -> None:
        """Add ``folder`` (default: ask for one); a folder already listed is selected instead."""
        if folder is None:
            known = self.folders()
            start = known[-1] if known else str(Path.home())
            folder = QFileDialog.getExistingDirectory(self, self._dialog_title, start)
        if not folder:
            return
        known = self.folders()
        if folder not in known:
            self.list.addItem(folder)
            known.append(folder)
        self.list.setCurrentRow(known.index(folder))
        self._check()
        self.changed.emit()

    def remove_selected(self) -> None:
        """Remove the selected folder from the list (the folder itself is left alone)."""
        item = self.list.currentItem()
        if item is None or not item.isSelected():
            return
        self.list.takeItem(self.list.row(item))
        self._check()
        self.changed.emit()

    def changeEvent(self, event: QEvent) -> None:  # Qt's: enabled or disabled as a whole
        super().changeEvent(event)
        if event.type() == QEvent.Type.EnabledChange:
            self._update_buttons()

    def _check(self) -> None:
        missing = [f for f in self.folders() if not Path(f).expanduser().is_dir()]
        show(self.note, f"{self._missing_text} {', '.join(missing)}" if missing else None, "warn")

    def _update_buttons(self) -> None:
        item = self.list.currentItem()
        self.remove_button.setEnabled(self.isEnabled() and item is not None and item.isSelected())
