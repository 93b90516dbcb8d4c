"""The Settings dialog's OpenAI-compatible page: the provider preset and base URL, whether it needs a key,
its API keys (:mod:`.keys_editor`), timeout and retries, and Test connection (``GET {base_url}/models``,
OpenAI API reference) through :meth:`Assembly.one_off_backend` with the URL and keys being edited."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from desktop_agent.core.assembly import PROBE_TIMEOUT_S, Assembly
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.secrets import SecretStore, normalize_base_url
from desktop_agent.core.settings import OPENAI_PRESETS, Settings, is_loopback_url
from desktop_agent.core.urls import clean_base_url
from desktop_agent.ui.errors import one_line
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import SettingsPage, form_row, note_label, parse_seconds, show, show_cleaned_url
from desktop_agent.ui.settings.keys_editor import KeysEditor
from desktop_agent.ui.tasks import Task, TaskRunner

CUSTOM_PRESET = QT_TRANSLATE_NOOP("OpenaiPage", "Custom")


class OpenAIPage(SettingsPage):
    """``model_chosen(name)``: the user picked one of the server's models for chats;
    ``models_listed(names)``: the models the server offers, from Test connection; ``connection_tested(names)``:
    Test connection worked and the server offers ``names``;
    ``preset_chosen(name)``: the user picked a preset (or Custom): they mean to use this provider."""

    model_chosen = Signal(str)
    models_listed = Signal(list)
    connection_tested = Signal(list)
    preset_chosen = Signal(str)

    def __init__(self, assembly: Assembly, secrets: SecretStore, tasks: TaskRunner):
        super().__init__()
        self._connected = ""  # the last Test connection's result
        self._assembly = assembly
        self._tasks = tasks
        self._base = Settings()
        self._loading = False
        outer = QVBoxLayout(self)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)

        self.preset = QComboBox()
        self.preset.addItems([*OPENAI_PRESETS, translate("OpenaiPage", CUSTOM_PRESET)])
        self.preset.setAccessibleName(translate("OpenaiPage", "Provider preset"))
        self.preset.setMinimumWidth(220)
        form_row(form, translate("OpenaiPage", "&Preset:"), self.preset, left=True)

        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("https://api.openai.com/v1")
        self.base_url.setAccessibleName(translate("OpenaiPage", "Base URL"))
        self.base_url_error = note_label(translate("OpenaiPage", "Base URL error"))
        self.base_url_used = note_label(translate("OpenaiPage", "Base URL in use"))
        form_row(form, translate("OpenaiPage", "&Base URL:"), self.base_url, self.base_url_error, self.base_url_used)

        self.needs_key = QCheckBox(translate("OpenaiPage",
                "This provider needs an API &key (local servers usually don't)"))
        self.needs_key.setAccessibleName(translate("OpenaiPage", "Provider needs an API key"))
        form_row(form, "", self.needs_key)

        self.keys = KeysEditor(secrets, tasks)
        form_row(form, translate("OpenaiPage", "API &keys:"), self.keys, buddy=self.keys.list)

        self.timeout = QLineEdit()
        self.timeout.setAccessibleName(translate("OpenaiPage", "Timeout in seconds"))
        self.timeout.setToolTip(translate("OpenaiPage", "Seconds to wait for an answer to start (connecting included)"))
        self.timeout.setFixedWidth(110)
        self.timeout_error = note_label(translate("OpenaiPage", "Timeout error"))
        form_row(form, translate("OpenaiPage", "&Timeout (s):"), self.timeout, self.timeout_error, left=True)
        self.next_data = QLineEdit()
        self.next_data.setAccessibleName(translate("OpenaiPage", "Wait for next data in seconds"))
        self.next_data.setToolTip(
            translate("OpenaiPage",
                    "Once an answer streams: seconds without new data (keep-alive comments do not count) before the "
            "turn ends with the partial answer kept and \"the server stopped responding\"")
        )
        self.next_data.setFixedWidth(110)
        self.next_data_error = note_label(translate("OpenaiPage", "Wait for next data error"))
        form_row(form, translate("OpenaiPage", "Wait for ne&xt data (s):"), self.next_data, self.next_data_error,
                left=True)
        self.retries = QSpinBox()
        self.retries.setRange(0, 10)
        self.retries.setAccessibleName(translate("OpenaiPage", "Retries per key"))
        self.retries.setFixedWidth(110)
        form_row(form, translate("OpenaiPage", "&Retries per key:"), self.retries, left=True)
        self.retry_interval = QLineEdit()
        self.retry_interval.setAccessibleName(translate("OpenaiPage", "Retry interval in seconds"))
        self.retry_interval.setFixedWidth(110)
        self.retry_interval_error = note_label(translate("OpenaiPage", "Retry interval error"))
        form_row(form, translate("OpenaiPage", "Retry &interval (s):"), self.retry_interval, self.retry_interval_error,
                left=True)

        test_row = QHBoxLayout()
        self.test_button = QPushButton(translate("OpenaiPage", "Test co&nnection"))
        self.test_button.setAccessibleName(translate("OpenaiPage", "Test the OpenAI-compatible connection"))
        self.test_button.setAutoDefault(False)
        test_row.addWidget(self.test_button)
        test_row.addStretch(1)
        self.status = note_label(translate("OpenaiPage", "OpenAI-compatible connection status"))
        self.models = QListWidget()
        self.models.setAccessibleName(translate("OpenaiPage", "Models the server offers"))
        self.models.setToolTip(translate("OpenaiPage", "Double-click a model to use it for chats"))
        self.models.setMaximumHeight(90)
        self.models.setVisible(False)
        form_row(form, "", test_row, self.status, self.models)

        self.fields = [
            (("openai.base_url",), self.base_url_error, translate("OpenaiPage", "Base URL (OpenAI-compatible tab)")),
            (("openai.timeout_s",), self.timeout_error, translate("OpenaiPage", "Timeout (OpenAI-compatible tab)")),
            (("openai.next_data_timeout_s",), self.next_data_error, translate("OpenaiPage",
                    "Wait for next data (OpenAI-compatible tab)")),
            (("openai.retry_interval_s",), self.retry_interval_error, translate("OpenaiPage",
                    "Retry interval (OpenAI-compatible tab)")),
        ]
        self.preset.activated.connect(self._preset_chosen)
        self.base_url.textChanged.connect(self._base_url_edited)
        self.needs_key.toggled.connect(self.changed)
        self.timeout.textChanged.connect(self.changed)
        self.next_data.textChanged.connect(self.changed)
        self.retry_interval.textChanged.connect(self.changed)
        self.retries.valueChanged.connect(self.changed)
        self.keys.changed.connect(self.changed)
        self.keys.refused.connect(lambda text: show(self.status, text, "err"))
        self.test_button.clicked.connect(self.test_connection)
        self.models.itemDoubleClicked.connect(self._use_model)

    # ---- values in and out -----------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self._loading = True
        try:
            self._base = settings
            self.base_url.setText(settings.openai.base_url)
            self.needs_key.setChecked(settings.openai.needs_key)
            self.timeout.setText(f"{settings.openai.timeout_s:g}")
            self.next_data.setText(f"{settings.openai.next_data_timeout_s:g}")
            self.retries.setValue(settings.openai.retries_per_key)
            self.retry_interval.setText(f"{settings.openai.retry_interval_s:g}")
            self._sync_preset()
        finally:
            self._loading = False
        self.keys.show_url(normalize_base_url(settings.openai.base_url))

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "openai.base_url": self.base_url.text().strip(),
            "openai.needs_key": self.needs_key.isChecked(),
            "openai.retries_per_key": self.retries.value(),
        }
        for key, edit, example in (("openai.timeout_s", self.timeout, "60"),
                                   ("openai.next_data_timeout_s", self.next_data, "60"),
                                   ("openai.retry_interval_s", self.retry_interval, "1")):
            value, _problem = parse_seconds(edit, example)
            if value is not None:
                out[key] = value
        return out

    def input_errors(self) -> dict[str, str]:
        errors: dict[str, str] = {}
        if not self.base_url.text().strip():
            errors["openai.base_url"] = translate("OpenaiPage", "Enter the base URL, e.g. https://api.openai.com/v1")
        for key, edit, example in (("openai.timeout_s", self.timeout, "60"),
                                   ("openai.next_data_timeout_s", self.next_data, "60"),
                                   ("openai.retry_interval_s", self.retry_interval, "1")):
            _value, problem = parse_seconds(edit, example)
            if problem:
                errors[key] = problem
        return errors

    def key_warning(self, settings: Settings) -> str | None:
        """The warning for the dialog's status line when ``settings`` need a key and none is listed. A local
        server (a loopback base URL) is used without a key when none is set, so it gets no warning."""
        if settings.backend != "openai" or not settings.openai.needs_key or not self.keys.loaded:
            return None
        if is_loopback_url(settings.openai.base_url):
            return None
        if self.keys.api_keys() or self.keys.environment_key:
            return None
        return (
            translate("OpenaiPage", "No API key for this provider: add one on the OpenAI-compatible tab, or untick "
            "'needs an API key' for a local server.")
        )

    # ---- preset and base URL ---------------------------------------------------------------------

    def _url(self) -> str | None:
        """The base URL being edited, normalised (None while it is not a URL)."""
        try:
            return normalize_base_url(clean_base_url(self.base_url.text()))
        except ValueError:
            return None

    def _sync_preset(self) -> None:
        url = (self._url() or normalize_base_url(self.base_url.text())) if self.base_url.text().strip() else ""
        name = next((n for n, u in OPENAI_PRESETS.items() if normalize_base_url(u) == url),
                    translate("OpenaiPage", CUSTOM_PRESET))
        if self.preset.currentText() != name:
            self.preset.blockSignals(True)
            self.preset.setCurrentText(name)
            self.preset.blockSignals(False)

    def _preset_chosen(self, index: int) -> None:
        name = self.preset.itemText(index)
        if name in OPENAI_PRESETS:
            self.base_url.setText(OPENAI_PRESETS[name])
            # local servers need no key; hosted providers do
            self.needs_key.setChecked(not OPENAI_PRESETS[name].startswith("http://localhost"))
            self.keys.follow_now()
        else:
            self.base_url.setFocus()
            self.base_url.selectAll()
        self.preset_chosen.emit(name)

    def _base_url_edited(self) -> None:
        show_cleaned_url(self.base_url_used, self.base_url.text(), clean_base_url)
        self._sync_preset()
        self.changed.emit()
        if not self._loading:
            self.keys.follow(self._url())
            self._tasks.drop("openai-test")  # a result about another URL would mislead
            self.test_button.setEnabled(True)
            show(self.status, None)
            self.models.setVisible(False)

    # ---- Test connection -------------------------------------------------------------------------

    def test_connection(self) -> None:
        """Test connection: list the models the server offers, with the keys in the list (or the
        environment's), or show the actionable error."""
        target: Settings | None = None
        if not self.input_errors():
            try:
                target = self._base.updated({**self.values(), "backend": "openai", "openai.retries_per_key": 0})
            except ValidationError:
                target = None
        if target is None:
            show(self.status, translate("OpenaiPage", "Fix the base URL and timeout first."), "err")
            return
        env_key = self.keys.environment_key
        keys = self.keys.api_keys() or ([env_key] if env_key else [])
        secret_words = self.keys.all_keys()
        base_url, assembly = target.openai.base_url, self._assembly
        timeout = min(target.openai.timeout_s, PROBE_TIMEOUT_S)

        def work(_task: Task) -> list[Any]:
            backend = assembly.one_off_backend(target, timeout_s=timeout, probe=True, keys=keys)
            try:
                return backend.list_models()
            finally:
                backend.close()

        def done(models: Any, error: BaseException | None) -> None:
            self.test_button.setEnabled(True)
            if error is not None:
                self.models.setVisible(False)
                show(self.status, one_line(error, secret_words), "warn")
                return
            names = [m.name for m in models]
            self.models.clear()
            self.models.addItems(names)
            self.models.setVisible(bool(names))
            self.models_listed.emit(names)
            shown = ", ".join(names[:5]) + ("…" if len(names) > 5 else "")
            n = len(names)
            self._connected = (translate("OpenaiPage", "Connected to {base_url} — %n model", None, n) if n == 1
                               else translate("OpenaiPage", "Connected to {base_url} — %n models", None, n)).format(
                    base_url=base_url) + (
                f": {shown}" if names else ".")
            show(self.status, self._connected, "ok")
            self.connection_tested.emit(names)

        self.test_button.setEnabled(False)
        show(self.status, translate("OpenaiPage", "Connecting to {base_url}…").format(base_url=base_url), "info")
        self._tasks.run(work, done, key="openai-test")

    def model_replaced(self, old: str, new: str) -> None:
        """Say that the model ``old`` is not on the server just tested, so chats will use ``new``."""
        show(self.status, translate("OpenaiPage",
                "{connected}. “{old}” is not on this server: chats will use {new} (after Save).").format(
                        connected=self._connected.rstrip('.…'), old=old, new=new), "ok")

    def _use_model(self, item: QListWidgetItem) -> None:
        show(self.status, translate("OpenaiPage", "Chats will use {text} (after Save).").format(text=item.text()), "ok")
        self.model_chosen.emit(item.text())
