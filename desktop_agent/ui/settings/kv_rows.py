""":class:`KeyValueRows`: editable NAME = VALUE rows (an MCP server's environment variables or HTTP headers), each
one markable as a secret: a secret's value is typed masked, never shown back, and kept in the OS keyring by the
caller — a secret already stored shows "set", and an empty field keeps it."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.ui.i18n import translate


@dataclass
class Row:
    """One row as typed: ``value`` is "" for a secret left empty (the stored one is kept)."""

    name: str
    value: str
    secret: bool


class KeyValueRows(QWidget):
    """Rows of name, value and a Secret box, with Add and a remove button per row. ``what``: what a row is, for
    accessible names ("environment variable", "header"). ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, what: str, name_hint: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._what = what
        self._name_hint = name_hint
        #: names whose secret value is stored already ("set"), to say so in their empty value field
        self._stored: set[str] = set()
        self._rows: list[tuple[QLineEdit, QLineEdit, QCheckBox, QToolButton]] = []
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        self._grid_box = QWidget()
        self._grid = QGridLayout(self._grid_box)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(6)
        self._grid.setColumnStretch(0, 2)
        self._grid.setColumnStretch(1, 3)
        outer.addWidget(self._grid_box)
        self.empty = QLabel(translate("KvRows", "No {what}s.").format(what=what))
        self.empty.setEnabled(False)
        outer.addWidget(self.empty)
        bottom = QHBoxLayout()
        self.add_button = QPushButton(translate("KvRows", "Add {what}").format(what=what))
        self.add_button.setAccessibleName(translate("KvRows", "Add an {what}").format(what=what) if what[
                :1] in "aeiou" else translate("KvRows", "Add a {what}").format(what=what))
        self.add_button.setAutoDefault(False)
        bottom.addWidget(self.add_button)
        bottom.addStretch(1)
        outer.addLayout(bottom)
        self.add_button.clicked.connect(lambda: self.add_row(focus=True))

    # ---- rows ------------------------------------------------------------------------------------

    def set_rows(self, plain: dict[str, str], secret: list[str], stored: set[str]) -> None:
        """Show ``plain`` (name → value) and the ``secret`` names (``stored``: those whose value is in the
        keyring)."""
        for widgets in list(self._rows):
            self._drop(widgets)
        self._stored = set(stored)
        for name, value in plain.items():
            self.add_row(name, value, False)
        for name in secret:
            self.add_row(name, "", True)
        self._update_empty()

    def add_row(self, name: str = "", value: str = "", secret: bool = False, *, focus: bool = False) -> int:
        """Add a row; its index."""
        index = len(self._rows)
        name_edit = QLineEdit(name)
        name_edit.setPlaceholderText(self._name_hint)
        name_edit.setAccessibleName(translate("KvRows", "{what} {index} name").format(what=self._what, index=index + 1))
        value_edit = QLineEdit(value)
        value_edit.setAccessibleName(translate("KvRows", "{what} {index} value").format(what=self._what,
                index=index + 1))
        box = QCheckBox(translate("KvRows", "Secret"))
        box.setToolTip(translate("KvRows", "Keep the value in the system keyring, not in the settings file"))
        box.setAccessibleName(translate("KvRows", "{what} {index} is a secret").format(what=self._what,
                index=index + 1))
        box.setChecked(secret)
        remove = QToolButton()
        remove.setText("✕")
        remove.setToolTip(translate("KvRows", "Remove this {what}").format(what=self._what))
        remove.setAccessibleName(translate("KvRows", "Remove {what} {index}").format(what=self._what, index=index + 1))
        widgets = (name_edit, value_edit, box, remove)
        self._rows.append(widgets)
        row = self._grid.rowCount()
        for col, widget in enumerate(widgets):
            self._grid.addWidget(widget, row, col)
        self._style_value(widgets)
        name_edit.textChanged.connect(lambda _t, w=widgets: self._edited(w))
        value_edit.textChanged.connect(self.changed)
        box.toggled.connect(lambda _on, w=widgets: self._edited(w))
        remove.clicked.connect(lambda _c=False, w=widgets: self._remove(w))
        self._update_empty()
        if focus:
            name_edit.setFocus()
        self.changed.emit()
        return index

    def rows(self) -> list[Row]:
        """The rows with a name or a value, in order."""
        out = []
        for name_edit, value_edit, box, _remove in self._rows:
            name, value = name_edit.text().strip(), value_edit.text()
            if name or value:
                out.append(Row(name, value, box.isChecked()))
        return out

    def row_widgets(self, index: int) -> tuple[QLineEdit, QLineEdit, QCheckBox, QToolButton]:
        return self._rows[index]

    def _edited(self, widgets: tuple[QLineEdit, QLineEdit, QCheckBox, QToolButton]) -> None:
        self._style_value(widgets)
        self.changed.emit()

    def _style_value(self, widgets: tuple[QLineEdit, QLineEdit, QCheckBox, QToolButton]) -> None:
        name_edit, value_edit, box, _remove = widgets
        if box.isChecked():
            value_edit.setEchoMode(QLineEdit.EchoMode.Password)
            stored = name_edit.text().strip() in self._stored
            value_edit.setPlaceholderText(translate("KvRows",
                    "set — type a new value to replace it") if stored else translate("KvRows", "not set"))
        else:
            value_edit.setEchoMode(QLineEdit.EchoMode.Normal)
            value_edit.setPlaceholderText("value")

    def _remove(self, widgets: tuple[QLineEdit, QLineEdit, QCheckBox, QToolButton]) -> None:
        self._drop(widgets)
        self._update_empty()
        self.changed.emit()

    def _drop(self, widgets: tuple[QLineEdit, QLineEdit, QCheckBox, QToolButton]) -> None:
        self._rows.remove(widgets)
        for widget in widgets:
            self._grid.removeWidget(widget)
            widget.deleteLater()

    def _update_empty(self) -> None:
        self.empty.setVisible(not self._rows)
        self._grid_box.setVisible(bool(self._rows))
