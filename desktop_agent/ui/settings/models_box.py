"""The Ollama page's "Installed models" box: the table (name, size, modified) and its Use for chats /
Delete… / Refresh buttons. It shows models and says what the user asked for; the page does the work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import human_size, human_time, on_delete_key


class ModelsBox(QGroupBox):
    """``use_requested(name)``: Use for chats or a double click; ``delete_requested(name)``: Delete… or
    the Delete key; ``refresh_requested()``: Refresh."""

    use_requested = Signal(str)
    delete_requested = Signal(str)
    refresh_requested = Signal()

    def __init__(self) -> None:
        super().__init__(translate("ModelsBox", "Installed models"))
        layout = QVBoxLayout(self)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels([translate("ModelsBox", "Name"), translate("ModelsBox", "Size"),
                translate("ModelsBox", "Modified")])
        self.table.setAccessibleName(translate("ModelsBox", "Installed Ollama models"))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setAlternatingRowColors(True)
        self.table.setTabKeyNavigation(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.use_button = QPushButton(translate("ModelsBox", "&Use for chats"))
        self.use_button.setAccessibleName(translate("ModelsBox", "Use the selected model for chats"))
        self.delete_button = QPushButton(translate("ModelsBox", "&Delete…"))
        self.delete_button.setAccessibleName(translate("ModelsBox", "Delete the selected model"))
        self.refresh_button = QPushButton(translate("ModelsBox", "&Refresh"))
        self.refresh_button.setAccessibleName(translate("ModelsBox", "Refresh the list of installed models"))
        for b in (self.use_button, self.delete_button, self.refresh_button):
            b.setAutoDefault(False)
            row.addWidget(b)
        row.addStretch(1)
        layout.addLayout(row)

        self.refresh_button.clicked.connect(self.refresh_requested)
        self.table.itemSelectionChanged.connect(self.update_buttons)
        self.table.itemDoubleClicked.connect(self._use)
        self.use_button.clicked.connect(self._use)
        self.delete_button.clicked.connect(self._delete)
        on_delete_key(self.table, self._delete)
        self.update_buttons()

    def fill(self, models: Sequence[Any]) -> None:
        """Show ``models`` (``ModelInfo``: name, size, modified_at), keeping the selected one selected."""
        selected = self.selected()
        self.table.setRowCount(0)
        for info in models:
            row = self.table.rowCount()
            self.table.insertRow(row)
            name = QTableWidgetItem(info.name)
            size = QTableWidgetItem(human_size(info.size))
            size.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if info.size is not None:
                size.setToolTip(translate("ModelsBox", "{size:,} bytes").format(size=info.size))
            modified = QTableWidgetItem(human_time(info.modified_at))
            if info.modified_at:
                modified.setToolTip(info.modified_at)
            for col, item in enumerate((name, size, modified)):
                self.table.setItem(row, col, item)
            if info.name == selected:
                self.table.selectRow(row)
        self.update_buttons()

    def selected(self) -> str | None:
        """The name of the selected model."""
        model = self.table.selectionModel()
        rows = model.selectedRows() if model else []
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return item.text() if item else None

    def update_buttons(self) -> None:
        has = self.selected() is not None
        self.use_button.setEnabled(has)
        self.delete_button.setEnabled(has)

    def _use(self, *_args: object) -> None:
        name = self.selected()
        if name:
            self.use_requested.emit(name)

    def _delete(self) -> None:
        name = self.selected()
        if name:
            self.delete_requested.emit(name)
