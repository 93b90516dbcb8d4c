"""The toolbar's backend and model pickers.

:class:`ModelPicker` shows the chosen backend and model and lists the models the server offers — only those:
a configured model the server does not offer stays as the typed text (with a tooltip saying so), never as a
list entry. It emits ``backend_picked(str)`` and ``model_picked(str)``; it changes no settings itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.ui.accessibility import name_typed_entry
from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:  # the settings schema (pydantic) loads after the window's first frame
    from desktop_agent.core.settings import Settings

BACKENDS = (("ollama", "Ollama"), ("openai", QT_TRANSLATE_NOOP("ModelPicker", "OpenAI-compatible")))

MODEL_TIP = QT_TRANSLATE_NOOP("ModelPicker", "The model to chat with (listed from the server)")


class ModelPicker(QWidget):
    backend_picked = Signal(str)
    model_picked = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.backend_combo = QComboBox()
        self.backend_combo.setAccessibleName(translate("ModelPicker", "Backend"))
        self.backend_combo.setToolTip(translate("ModelPicker", "Which kind of server answers"))
        for key, label in BACKENDS:
            self.backend_combo.addItem(translate("ModelPicker", label), key)
        self.backend_combo.currentIndexChanged.connect(self._backend_changed)
        self.model_combo = QComboBox()
        self.model_combo.setEditable(True)
        self.model_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model_combo.setMinimumContentsLength(18)
        self.model_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model_combo.setAccessibleName(translate("ModelPicker", "Model"))
        name_typed_entry(self.model_combo, self.tr("Model name"))
        self.model_combo.setToolTip(translate("ModelPicker", MODEL_TIP))
        self.model_combo.activated.connect(lambda _i: self._model_chosen())
        line_edit = self.model_combo.lineEdit()
        assert line_edit is not None  # the combo is editable
        line_edit.editingFinished.connect(self._model_chosen)
        backend_label = QLabel("  " + translate("ModelPicker", "Backend") + " ")
        model_label = QLabel("  " + translate("ModelPicker", "Model") + " ")
        backend_label.setBuddy(self.backend_combo)
        model_label.setBuddy(self.model_combo)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        for w in (backend_label, self.backend_combo, model_label, self.model_combo):
            row.addWidget(w)
        #: the models the server listed last (empty until a listing worked)
        self.available: list[str] = []

    def show_choice(self, settings: Settings) -> None:
        """Show the backend and model of ``settings`` (without emitting anything)."""
        self.backend_combo.blockSignals(True)
        self.backend_combo.setCurrentIndex(max(0, self.backend_combo.findData(settings.backend)))
        self.backend_combo.blockSignals(False)
        self._show_model(settings.model)

    def clear_models(self, current: str) -> None:
        """Another backend was picked: its models are not known yet."""
        self.available = []
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        self.model_combo.blockSignals(False)
        self._show_model(current)

    def fill(self, models: list[str], current: str) -> None:
        """The server's models, with ``current`` chosen (typed in when the server does not offer it). The same
        list again (a recheck) leaves the picker alone while the user is in it."""
        if list(models) == self.available and (self.model_combo.hasFocus() or self.model_combo.view().isVisible()):
            return
        self.available = list(models)
        self.model_combo.blockSignals(True)
        self.model_combo.clear()
        self.model_combo.addItems(models)
        self.model_combo.blockSignals(False)
        self._show_model(current)

    def _show_model(self, name: str) -> None:
        self.model_combo.blockSignals(True)
        index = self.model_combo.findText(name)
        if index >= 0:
            self.model_combo.setCurrentIndex(index)
        else:
            self.model_combo.setCurrentIndex(-1)
            self.model_combo.setEditText(name)
        offered = index >= 0 or not self.available
        self.model_combo.setToolTip(translate("ModelPicker", MODEL_TIP) if offered else translate("ModelPicker",
                "{name} is not offered by this server — pick one").format(name=name))
        self.model_combo.blockSignals(False)

    def _backend_changed(self, _index: int) -> None:
        key = self.backend_combo.currentData()
        if key:
            self.backend_picked.emit(key)

    def _model_chosen(self) -> None:
        name = self.model_combo.currentText().strip()
        if name:
            self.model_picked.emit(name)
