"""The Settings dialog's Presets page: the assistants a new chat can start with (:mod:`desktop_agent.core.presets`).

A list of the presets (the shipped ones first, as edited) beside an editor of the selected one: its name, system
prompt, provider and model (empty: the one chats use), temperature and tools (or as Settings say). Add, Duplicate,
Delete; a shipped preset that was changed can be Reset to its shipped version, and a deleted shipped preset comes
back with Restore shipped presets. Nothing is saved before the dialog's Save: the page gives ``presets.items`` (the
user's presets and their edits of shipped ones) and ``presets.removed`` (the shipped ones deleted).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core import presets as core_presets
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.settings import Preset, Settings
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import SettingsPage, field_message, form_row, hint_label, note_label, show

#: the provider choices: label, value of ``Preset.backend``
BACKEND_CHOICES = ((QT_TRANSLATE_NOOP("PresetsPage", "As in Settings"), None), ("Ollama", "ollama"),
                   (QT_TRANSLATE_NOOP("PresetsPage", "OpenAI-compatible"), "openai"))
#: the tools choices: label, value of ``Preset.tools``
TOOLS_CHOICES = ((QT_TRANSLATE_NOOP("PresetsPage", "As in Settings"), None),
                 (QT_TRANSLATE_NOOP("PresetsPage", "On"), True), (QT_TRANSLATE_NOOP("PresetsPage", "Off"), False))


class PresetsPage(SettingsPage):
    """Add, edit, duplicate, delete and reset presets. See the module docstring."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []  # the presets shown, as editable dicts (Preset fields)
        self._settings = Settings()
        self._showing = False  # filling the editor: its signals are not edits
        outer = QHBoxLayout(self)

        left = QVBoxLayout()
        self.list = QListWidget()
        self.list.setObjectName("presetList")
        self.list.setAccessibleName(translate("PresetsPage", "Presets"))
        self.list.setMinimumWidth(170)
        self.list.currentRowChanged.connect(self._show_row)
        left.addWidget(self.list, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton(translate("PresetsPage", "&Add"))
        self.duplicate_button = QPushButton(translate("PresetsPage", "D&uplicate"))
        self.delete_button = QPushButton(translate("PresetsPage", "&Delete"))
        for b in (self.add_button, self.duplicate_button, self.delete_button):
            buttons.addWidget(b)
        left.addLayout(buttons)
        self.reset_button = QPushButton(translate("PresetsPage", "&Reset to shipped"))
        self.reset_button.setToolTip(translate("PresetsPage", "Bring back this preset as the app ships it"))
        self.restore_button = QPushButton(translate("PresetsPage", "Restore shipped presets"))
        self.restore_button.setToolTip(translate("PresetsPage", "Bring back the shipped presets you deleted"))
        left.addWidget(self.reset_button)
        left.addWidget(self.restore_button)
        outer.addLayout(left, 2)

        form = QFormLayout()
        self.name_edit = QLineEdit()
        self.name_edit.setObjectName("presetName")
        self.name_edit.setAccessibleName(translate("PresetsPage", "Preset name"))
        self.name_note = note_label(translate("PresetsPage", "Preset name problem"))
        form_row(form, translate("PresetsPage", "&Name:"), self.name_edit, self.name_note)
        self.prompt_edit = QPlainTextEdit()
        self.prompt_edit.setObjectName("presetPrompt")
        self.prompt_edit.setAccessibleName(translate("PresetsPage", "System prompt"))
        self.prompt_edit.setTabChangesFocus(True)
        self.prompt_edit.setMinimumHeight(150)
        form_row(form, translate("PresetsPage", "System &prompt:"), self.prompt_edit,
                 hint_label(translate("PresetsPage", "What the model is told before every chat started with it.")))
        self.backend_combo = QComboBox()
        self.backend_combo.setAccessibleName(translate("PresetsPage", "Provider"))
        for label, backend in BACKEND_CHOICES:
            self.backend_combo.addItem(translate("PresetsPage", label), backend)
        form_row(form, translate("PresetsPage", "Pro&vider:"), self.backend_combo)
        self.model_edit = QLineEdit()
        self.model_edit.setObjectName("presetModel")
        self.model_edit.setAccessibleName(translate("PresetsPage", "Model"))
        self.model_edit.setPlaceholderText(translate("PresetsPage", "The model chats use"))
        form_row(form, translate("PresetsPage", "&Model:"), self.model_edit)
        temp_row = QHBoxLayout()
        self.temp_box = QCheckBox(translate("PresetsPage", "Own &temperature"))
        self.temp_spin = QDoubleSpinBox()
        self.temp_spin.setAccessibleName(translate("PresetsPage", "Temperature"))
        self.temp_spin.setRange(0.0, 2.0)
        self.temp_spin.setSingleStep(0.1)
        self.temp_spin.setDecimals(2)
        temp_row.addWidget(self.temp_box)
        temp_row.addWidget(self.temp_spin)
        temp_row.addStretch(1)
        form_row(form, translate("PresetsPage", "Temperature:"), temp_row, buddy=self.temp_box)
        self.tools_combo = QComboBox()
        self.tools_combo.setAccessibleName(translate("PresetsPage", "Tools"))
        for label, value in TOOLS_CHOICES:
            self.tools_combo.addItem(translate("PresetsPage", label), value)
        form_row(form, translate("PresetsPage", "T&ools:"), self.tools_combo)
        self.state_note = note_label(translate("PresetsPage", "Preset state"))
        form.addRow(self.state_note)
        outer.addLayout(form, 5)

        self.add_button.clicked.connect(self.add)
        self.duplicate_button.clicked.connect(self.duplicate)
        self.delete_button.clicked.connect(self.delete)
        self.reset_button.clicked.connect(self.reset)
        self.restore_button.clicked.connect(self.restore_shipped)
        self.name_edit.textEdited.connect(self._edited)
        self.prompt_edit.textChanged.connect(self._edited)
        self.model_edit.textEdited.connect(self._edited)
        self.backend_combo.currentIndexChanged.connect(self._edited)
        self.tools_combo.currentIndexChanged.connect(self._edited)
        self.temp_box.toggled.connect(self._edited)
        self.temp_spin.valueChanged.connect(self._edited)

    # ---- the page interface ----------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self._settings = settings
        self._rows = [p.model_dump() for p in core_presets.all_presets(settings)]
        self._fill_list(0)

    def values(self) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        for row in self._rows:
            try:
                preset = Preset.model_validate(row)
            except ValidationError:
                items.append(row)  # shown as an error (input_errors): the dialog does not save
                continue
            if core_presets.shipped(preset.id) != preset:
                items.append(preset.model_dump())
        shown = {row["id"] for row in self._rows}
        removed = [p.id for p in core_presets.SHIPPED if p.id not in shown]
        return {"presets.items": items, "presets.removed": removed}

    def input_errors(self) -> dict[str, str]:
        seen: set[str] = set()
        for row in self._rows:
            name = " ".join(str(row.get("name", "")).split())
            if not name:
                return {"presets.items": translate("PresetsPage", "A preset needs a name.")}
            if name.casefold() in seen:
                return {"presets.items": translate("PresetsPage", "Two presets are named “{name}”.").format(
                        name=name)}
            seen.add(name.casefold())
        return {}

    def owns(self, key: str) -> bool:
        return key.startswith("presets")

    def show_errors(self, errors: dict[str, str]) -> list[str]:
        message = next((v for k, v in errors.items() if k.startswith("presets")), None)
        show(self.name_note, field_message(message) if message else None, "err")
        return [translate("PresetsPage", "Preset name (Presets tab)")] if message else []

    # ---- actions ---------------------------------------------------------------------------------

    def add(self) -> None:
        name = self._free_name(translate("PresetsPage", "New preset"))
        self._rows.append(Preset(id=self._new_id(name), name=name).model_dump())
        self._fill_list(len(self._rows) - 1)
        self.name_edit.setFocus()
        self.name_edit.selectAll()
        self.changed.emit()

    def duplicate(self) -> None:
        row = self._current()
        if row is None:
            return
        name = self._free_name(translate("PresetsPage", "{name} copy").format(name=row["name"]))
        self._rows.append({**row, "id": self._new_id(name), "name": name})
        self._fill_list(len(self._rows) - 1)
        self.changed.emit()

    def delete(self) -> None:
        index = self.list.currentRow()
        if 0 <= index < len(self._rows):
            del self._rows[index]
            self._fill_list(min(index, len(self._rows) - 1))
            self.changed.emit()

    def reset(self) -> None:
        row = self._current()
        original = core_presets.shipped(row["id"]) if row is not None else None
        if original is not None:
            self._rows[self.list.currentRow()] = original.model_dump()
            self._fill_list(self.list.currentRow())
            self.changed.emit()

    def restore_shipped(self) -> None:
        shown = {row["id"] for row in self._rows}
        missing = [p.model_dump() for p in core_presets.SHIPPED if p.id not in shown]
        if missing:
            self._rows = missing + self._rows
            self._fill_list(0)
            self.changed.emit()

    # ---- internals -------------------------------------------------------------------------------

    def _current(self) -> dict[str, Any] | None:
        index = self.list.currentRow()
        return self._rows[index] if 0 <= index < len(self._rows) else None

    def _free_name(self, name: str) -> str:
        taken = {str(r["name"]).casefold() for r in self._rows}
        candidate, n = name, 1
        while candidate.casefold() in taken:
            n += 1
            candidate = f"{name} {n}"
        return candidate

    def _new_id(self, name: str) -> str:
        return core_presets.new_id((str(r["id"]) for r in self._rows), name)

    def _fill_list(self, select: int) -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for row in self._rows:
            item = QListWidgetItem(self._label(row))
            item.setData(Qt.ItemDataRole.UserRole, row["id"])
            self.list.addItem(item)
        self.list.blockSignals(False)
        self.list.setCurrentRow(select)
        self._show_row(select)

    def _label(self, row: dict[str, Any]) -> str:
        name = str(row.get("name") or "").strip() or translate("PresetsPage", "(no name)")
        original = core_presets.shipped(row["id"])
        if original is not None and _valid(row) and Preset.model_validate(row) != original:
            return translate("PresetsPage", "{name} (edited)").format(name=name)
        return name

    def _show_row(self, index: int) -> None:
        row = self._rows[index] if 0 <= index < len(self._rows) else None
        self._showing = True
        for w in (self.name_edit, self.prompt_edit, self.model_edit, self.backend_combo, self.tools_combo,
                  self.temp_box, self.temp_spin, self.duplicate_button, self.delete_button):
            w.setEnabled(row is not None)
        row = row or Preset(id="none", name="-").model_dump()
        self.name_edit.setText(row["name"])
        self.prompt_edit.setPlainText(row["system_prompt"])
        self.model_edit.setText(row["model"])
        self.backend_combo.setCurrentIndex(max(0, self.backend_combo.findData(row["backend"])))
        self.tools_combo.setCurrentIndex([v for _l, v in TOOLS_CHOICES].index(row["tools"]))
        self.temp_box.setChecked(row["temperature"] is not None)
        self.temp_spin.setValue(row["temperature"] if row["temperature"] is not None else 0.7)
        self.temp_spin.setEnabled(row["temperature"] is not None)
        self._showing = False
        self._update_state()

    def _edited(self, *_args: Any) -> None:
        row = self._current()
        if self._showing or row is None:
            return
        row.update(name=self.name_edit.text(), system_prompt=self.prompt_edit.toPlainText(),
                   model=self.model_edit.text().strip(), backend=self.backend_combo.currentData(),
                   tools=TOOLS_CHOICES[self.tools_combo.currentIndex()][1],
                   temperature=round(self.temp_spin.value(), 2) if self.temp_box.isChecked() else None)
        self.temp_spin.setEnabled(self.temp_box.isChecked())
        item = self.list.currentItem()
        if item is not None:
            item.setText(self._label(row))
        self._update_state()
        self.changed.emit()

    def _update_state(self) -> None:
        row = self._current()
        original = core_presets.shipped(row["id"]) if row is not None else None
        edited = original is not None and (not _valid(row) or Preset.model_validate(row) != original)
        self.reset_button.setEnabled(edited)
        shown = {r["id"] for r in self._rows}
        self.restore_button.setVisible(any(p.id not in shown for p in core_presets.SHIPPED))
        if original is not None:
            show(self.state_note, translate("PresetsPage", "Shipped with the app; edited — Reset brings it back.")
                 if edited else translate("PresetsPage", "Shipped with the app."), "info")
        else:
            show(self.state_note, None)


def _valid(row: dict[str, Any] | None) -> bool:
    if row is None:
        return False
    try:
        Preset.model_validate(row)
    except ValidationError:
        return False
    return True
