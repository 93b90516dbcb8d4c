"""The Settings dialog's Generation page: the model chats use (one per provider: the box shows the chosen
provider's), temperature, Ollama's keep alive, JSON output (``format``) and thinking (``think``), history and
step limits, the system prompt."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.settings import Settings
from desktop_agent.ui.accessibility import name_typed_entry
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import SettingsPage, form_row, hint_label, note_label

MODEL_LABELS = {"ollama": QT_TRANSLATE_NOOP("GenerationPage", "&Model (Ollama):"),
                "openai": QT_TRANSLATE_NOOP("GenerationPage", "&Model (OpenAI-compatible):")}
#: the Think choices: what the combo shows → ``generation.think``
THINK_CHOICES: tuple[tuple[str, bool | None], ...] = (
    (QT_TRANSLATE_NOOP("GenerationPage", "Model default"), None), (QT_TRANSLATE_NOOP("GenerationPage", "On"), True),
    (QT_TRANSLATE_NOOP("GenerationPage", "Off"), False))


class PromptEdit(QPlainTextEdit):
    """The system prompt's editor: a few lines high by default (it grows with the dialog)."""

    def sizeHint(self) -> QSize:  # Qt's name
        hint = super().sizeHint()
        margins = self.contentsMargins()
        lines = 6 * self.fontMetrics().lineSpacing() + 2 * self.document().documentMargin()
        return QSize(hint.width(), round(lines) + margins.top() + margins.bottom())


class GenerationPage(SettingsPage):
    """Holds the model of each provider; :meth:`show_backend` says which one the box edits."""

    def __init__(self) -> None:
        super().__init__()
        self._backend = "ollama"
        self._models = {"ollama": "", "openai": ""}
        self._choices: dict[str, list[str]] = {"ollama": [], "openai": []}
        form = QFormLayout(self)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.setAccessibleName(translate("GenerationPage", "Model"))
        name_typed_entry(self.model, self.tr("Model name"))
        self.model.setMinimumWidth(260)
        self.model_error = note_label(translate("GenerationPage", "Model error"))
        box = form_row(form, translate("GenerationPage", "&Model:"), self.model, self.model_error)
        label = form.labelForField(box)
        self.model_label = label if isinstance(label, QLabel) else None

        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setAccessibleName(translate("GenerationPage", "Temperature"))
        self.temperature.setFixedWidth(110)
        form_row(form, translate("GenerationPage", "&Temperature:"), self.temperature, left=True)

        self.keep_alive = QLineEdit()
        self.keep_alive.setAccessibleName(translate("GenerationPage", "Keep alive (Ollama)"))
        self.keep_alive.setToolTip(
            translate("GenerationPage",
                    "How long Ollama keeps the model loaded after a reply: seconds (-1 = always, 0 = unload at once) "
            "or a duration such as 5m or 1h")
        )
        self.keep_alive.setFixedWidth(110)
        self.keep_alive_error = note_label(translate("GenerationPage", "Keep alive error"))
        self.keep_alive_hint = hint_label(translate("GenerationPage",
                "seconds (-1 = keep loaded, 0 = unload at once) or a duration like 5m"))
        ka_row = QHBoxLayout()
        ka_row.addWidget(self.keep_alive)
        ka_row.addWidget(self.keep_alive_hint, 1)
        form_row(form, translate("GenerationPage", "&Keep alive (Ollama):"), ka_row, self.keep_alive_error,
                buddy=self.keep_alive)

        self.json_format = QCheckBox(translate("GenerationPage", "Ask for &JSON"))
        self.json_format.setAccessibleName(translate("GenerationPage", "JSON output (Ollama format)"))
        self.json_format_hint = hint_label(translate("GenerationPage",
                'Ollama\'s `format` set to `"json"`: every reply is one JSON object.'))
        form_row(form, translate("GenerationPage", "JSON output (Ollama):"), self.json_format, self.json_format_hint,
                left=True)

        self.think = QComboBox()
        for text, value in THINK_CHOICES:
            self.think.addItem(translate("GenerationPage", text), value)
        self.think.setAccessibleName(translate("GenerationPage", "Think (Ollama)"))
        self.think.setFixedWidth(140)
        self.think_hint = hint_label(translate("GenerationPage",
                "Ollama's `think`: whether a reasoning model thinks before it answers."))
        form_row(form, translate("GenerationPage", "Th&ink (Ollama):"), self.think, self.think_hint, left=True)

        self.max_window = QSpinBox()
        self.max_window.setRange(256, 1_048_576)
        self.max_window.setSingleStep(1024)
        self.max_window.setSuffix(translate("GenerationPage", " tokens"))
        self.max_window.setAccessibleName(translate("GenerationPage", "Largest context window (Ollama)"))
        self.max_window.setFixedWidth(140)
        self.max_window_hint = hint_label(translate("GenerationPage",
                "Ollama is asked for the model's own window up to this size "
                                          "(`num_ctx`); a larger window needs more memory."))
        form_row(form, translate("GenerationPage", "Largest conte&xt window (Ollama):"), self.max_window,
                self.max_window_hint, left=True)
        self.default_window = QSpinBox()
        self.default_window.setRange(256, 1_048_576)
        self.default_window.setSingleStep(1024)
        self.default_window.setSuffix(translate("GenerationPage", " tokens"))
        self.default_window.setAccessibleName(translate("GenerationPage",
                "Context window when the server does not say"))
        self.default_window.setFixedWidth(140)
        self.default_window_hint = hint_label(translate("GenerationPage",
                "For servers that do not report a model's window (most "
                                              "OpenAI-compatible ones)."))
        form_row(form, translate("GenerationPage", "Context window if &unknown:"), self.default_window,
                self.default_window_hint, left=True)
        self.auto_compact = QCheckBox(translate("GenerationPage",
                "Summarise earlier messages when a chat outgrows the window"))
        self.auto_compact.setAccessibleName(translate("GenerationPage", "Summarise long chats automatically"))
        form_row(form, translate("GenerationPage", "Long chats:"), self.auto_compact, left=True)

        self.max_history = QSpinBox()
        self.max_history.setRange(0, 100_000)
        self.max_history.setSpecialValueText(translate("GenerationPage", "no limit"))
        self.max_history.setAccessibleName(translate("GenerationPage", "Maximum history messages sent to the model"))
        self.max_history.setFixedWidth(110)
        self.max_history_hint = hint_label(translate("GenerationPage",
                "The context window decides what is sent; this caps the count too."))
        form_row(form, translate("GenerationPage", "Max &history messages:"), self.max_history, self.max_history_hint,
                left=True)
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 100)
        self.max_steps.setAccessibleName(translate("GenerationPage", "Maximum agent steps per turn"))
        self.max_steps.setFixedWidth(110)
        form_row(form, translate("GenerationPage", "Max &steps per turn:"), self.max_steps, left=True)

        self.system_prompt = PromptEdit()
        self.system_prompt.setAccessibleName(translate("GenerationPage", "System prompt"))
        self.system_prompt.setTabChangesFocus(True)
        form_row(form, translate("GenerationPage", "S&ystem prompt:"), self.system_prompt)

        self.fields = [
            (("ollama.keep_alive",), self.keep_alive_error, translate("GenerationPage", "Keep alive (Generation tab)")),
            (("ollama.model", "openai.model"), self.model_error, translate("GenerationPage", "Model (Generation tab)")),
        ]
        self.model.editTextChanged.connect(self.changed)
        self.keep_alive.textChanged.connect(self.changed)
        self.json_format.toggled.connect(self.changed)
        self.think.currentIndexChanged.connect(self.changed)

    # ---- values in and out -----------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self._models = {"ollama": settings.ollama.model, "openai": settings.openai.model}
        self.temperature.setValue(settings.generation.temperature)
        self.keep_alive.setText(str(settings.ollama.keep_alive))
        self.json_format.setChecked(settings.generation.format == "json")
        self.think.setCurrentIndex(next(i for i, (_t, v) in enumerate(THINK_CHOICES) if v is settings.generation.think))
        self.max_history.setValue(settings.loop.max_history_messages)
        self.max_window.setValue(settings.models.max_window)
        self.default_window.setValue(settings.models.default_window)
        self.auto_compact.setChecked(settings.models.auto_compact)
        self.max_steps.setValue(settings.loop.max_steps)
        self.system_prompt.setPlainText(settings.loop.system_prompt)
        self._backend = settings.backend
        self._show_model()

    def values(self) -> dict[str, Any]:
        self._models[self._backend] = self.model.currentText().strip()
        return {
            "ollama.model": self._models["ollama"],
            "openai.model": self._models["openai"],
            "generation.temperature": round(self.temperature.value(), 2),
            "ollama.keep_alive": self.keep_alive.text().strip(),
            "generation.format": "json" if self.json_format.isChecked() else None,
            "generation.think": self.think.currentData(),
            "loop.max_history_messages": self.max_history.value(),
            "models.max_window": self.max_window.value(),
            "models.default_window": self.default_window.value(),
            "models.auto_compact": self.auto_compact.isChecked(),
            "loop.max_steps": self.max_steps.value(),
            "loop.system_prompt": self.system_prompt.toPlainText(),
        }

    def input_errors(self) -> dict[str, str]:
        if not self.model.currentText().strip():
            return {f"{self._backend}.model": translate("GenerationPage", "Enter or choose a model")}
        return {}

    # ---- the model of each provider --------------------------------------------------------------

    def show_backend(self, backend: str) -> None:
        """The box edits ``backend``'s model from now on (the other one's is kept)."""
        if backend == self._backend:
            return
        self._models[self._backend] = self.model.currentText().strip()
        self._backend = backend
        self._show_model()

    def model_of(self, backend: str) -> str:
        """The model chats with ``backend`` would use, as edited."""
        if backend == self._backend:
            return self.model.currentText().strip()
        return self._models[backend]

    def set_model(self, backend: str, name: str) -> None:
        """Chats with ``backend`` use ``name`` (a model picked on its page)."""
        self._models[backend] = name
        if backend == self._backend:
            self.model.setEditText(name)

    def set_choices(self, backend: str, names: Sequence[str]) -> None:
        """The models ``backend``'s server offers, listed in the box while it edits that provider."""
        self._choices[backend] = list(names)
        if backend == self._backend:
            self._models[backend] = self.model.currentText().strip()
            self._show_model()

    def _show_model(self) -> None:
        self.model.blockSignals(True)
        self.model.clear()
        self.model.addItems(self._choices[self._backend])
        self.model.setEditText(self._models[self._backend])
        self.model.blockSignals(False)
        if self.model_label is not None:
            self.model_label.setText(translate("GenerationPage", MODEL_LABELS[self._backend]))
        for widget in (self.keep_alive, self.json_format, self.think):  # only Ollama reads them
            widget.setEnabled(self._backend == "ollama")
