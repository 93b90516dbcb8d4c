"""The settings dialog (Ctrl+,): provider, Ollama host and models, OpenAI-compatible provider and API
keys, generation options.

Use::

    dialog = SettingsDialog(settings, SecretStore(), parent=window)
    dialog.settingsSaved.connect(window.apply_settings)   # the new Settings, from the next turn on
    dialog.open()                                         # or SettingsDialog.edit(...) -> Settings | None

- Every field is validated through :class:`~desktop_agent.core.settings.Settings` itself (one source of
  truth): an invalid value (a URL without scheme, a negative timeout, a bad keep_alive) is shown under
  its field and Save is disabled. A host that does not answer is a warning, never a block.
- Network work (Test connection, model list, Pull, Delete) and keyring work (reading and saving keys,
  which can wait on an unlock prompt) run on the dialog's own ``QThreadPool``; results come back as
  queued signals. Closing the dialog cancels a running pull and waits (bounded) for the workers
  (shared case 37-gui-qthread-destroyed-on-exit.json).
- API keys are shown masked (:func:`~desktop_agent.core.secrets.mask_key`), with where each one lives
  ("system keyring" / "environment" / "this session only") and, when no keyring is usable, why and
  what to do instead (shared case 34-keyring-no-backend-headless.json). Keys are never put into the
  settings file: on Save they go to :class:`~desktop_agent.core.secrets.SecretStore`.

Wire formats used through the backends: Ollama ``/api/version``, ``/api/tags``, ``/api/pull``,
``/api/delete`` (Ollama API doc); OpenAI ``GET {base_url}/models`` (OpenAI API reference).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QCoreApplication, QObject, QRunnable, Qt, QThreadPool, QTimer, Signal, Slot
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.backends.keypool import scrub
from desktop_agent.core.secrets import (
    SESSION_ONLY,
    SYSTEM_KEYRING,
    SecretStore,
    mask_key,
    normalize_base_url,
)
from desktop_agent.core.settings import OPENAI_PRESETS, Settings

CUSTOM_PRESET = "Custom"
#: seconds allowed for Test connection / model list requests (connecting is capped lower by the backends)
TEST_TIMEOUT_S = 10.0
#: seconds a pull may go without a progress line before it is reported as stalled
PULL_READ_TIMEOUT_S = 120.0
#: how long closing the dialog waits for running workers (they are cancelled first)
SHUTDOWN_WAIT_MS = 3000

_LIVE_JOBS: set[_Job] = set()  # keeps each QRunnable's Python side alive until it has finished
_LIVE_LOCK = threading.Lock()


# ---- small helpers ---------------------------------------------------------------------------------


def human_size(size: int | None) -> str:
    """Bytes as Ollama shows them (decimal units): ``2019393189`` → ``"2.0 GB"``; None → ``""``."""
    if size is None:
        return ""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < 1000 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"  # pragma: no cover


def human_time(iso: str | None, now: datetime | None = None) -> str:
    """An ISO 8601 time as ``"3 minutes ago"`` / ``"2 days ago"`` / ``"2024-05-01"``; the raw text when
    it cannot be parsed; ``""`` for None."""
    if not iso:
        return ""
    try:
        when = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    seconds = (now - when).total_seconds()
    if seconds < 0:
        return when.astimezone().strftime("%Y-%m-%d %H:%M")
    for limit, div, unit in ((60, 1, None), (3600, 60, "minute"), (86400, 3600, "hour"), (30 * 86400, 86400, "day")):
        if seconds < limit:
            if unit is None:
                return "just now"
            n = int(seconds // div)
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return when.astimezone().strftime("%Y-%m-%d")


def _field_message(msg: str) -> str:
    """pydantic's message as inline text: ``Value error, x`` → ``x``; ``Input should be`` → ``Must be``."""
    msg = msg.removeprefix("Value error, ")
    if msg.startswith("Input should be"):
        msg = "Must be" + msg[len("Input should be") :]
    return msg[:1].upper() + msg[1:]


class _Signals(QObject):
    #: (job id, kind: "progress" | "done" | "failed" | "cancelled", payload)
    event = Signal(str, str, object)


class _Job(QRunnable):
    """Runs ``fn(cancel, progress)`` on a pool thread and reports through queued signals.

    ``fn`` returns the result (``done``), or raises: an exception's one-line text goes to ``failed``
    (with any key in ``secret_words`` masked). When ``cancel`` is set before ``fn`` returns, the job
    reports ``cancelled`` instead of ``done``.
    """

    def __init__(
        self,
        job_id: str,
        fn: Callable[..., Any],
        cancel: threading.Event,
        secret_words: list[str],
        signals: _Signals,
    ):
        super().__init__()
        self.job_id, self.fn, self.cancel, self.secret_words = job_id, fn, cancel, secret_words
        # owned by the dialog (a Qt parent), so it is only ever deleted on the GUI thread
        self.signals = signals
        self.setAutoDelete(True)

    def _emit(self, kind: str, payload: Any) -> None:
        try:
            self.signals.event.emit(self.job_id, kind, payload)
        except RuntimeError:  # the dialog (and its signals object) is gone: nobody to tell
            pass

    def run(self) -> None:
        try:
            result = self.fn(self.cancel, lambda p: self._emit("progress", p))
        except Exception as exc:  # every failure becomes text for the dialog, never a crash
            text = str(exc).strip() or type(exc).__name__
            from desktop_agent.core.errors import AgentError

            if not isinstance(exc, AgentError):
                text = f"{type(exc).__name__}: {text}"
            self._emit("failed", scrub(text, self.secret_words))
        else:
            self._emit("cancelled" if self.cancel.is_set() else "done", result)
        finally:
            with _LIVE_LOCK:
                _LIVE_JOBS.discard(self)


class _ActionLineEdit(QLineEdit):
    """A line edit whose Enter runs its own action (``activated``) instead of the dialog's Save."""

    activated = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt name)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.activated.emit()
            event.accept()
            return
        super().keyPressEvent(event)


def _row(form: QFormLayout, text: str, field: QWidget | QHBoxLayout, *notes: QWidget,
         buddy: QWidget | None = None, left: bool = False) -> QWidget:
    """Add a form row: ``field`` with its (usually hidden) notes right under it, so that a hidden
    error takes no space. The label's mnemonic focuses ``buddy`` (default: ``field``)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(3)
    if isinstance(field, QWidget):
        if left:
            layout.addWidget(field, 0, Qt.AlignmentFlag.AlignLeft)
        else:
            layout.addWidget(field)
    else:
        layout.addLayout(field)
    for note in notes:
        layout.addWidget(note)
    if text:
        label = QLabel(text)
        target = buddy or (field if isinstance(field, QWidget) else None)
        if target is not None:
            label.setBuddy(target)
        form.addRow(label, box)
    else:
        form.addRow(QLabel(""), box)  # keep the field column aligned
    return box


def _error_label(accessible: str) -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setVisible(False)
    label.setAccessibleName(accessible)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


# ---- the dialog -----------------------------------------------------------------------------------


class SettingsDialog(QDialog):
    """Edit :class:`Settings` and the OpenAI-compatible API keys.

    ``settings``: the current settings (not modified). ``secrets``: where keys are read and saved
    (default: a new :class:`SecretStore`). ``settings_path``: the file Save writes (default: the user
    config dir). ``auto_refresh``: list the Ollama models in the background when the dialog opens.

    On Save: the settings file is written, changed keys are saved through ``secrets``, then
    :attr:`settingsSaved` is emitted with the new :class:`Settings` and the dialog is accepted
    (:attr:`saved_settings` holds it too).
    """

    settingsSaved = Signal(object)  # noqa: N815 (Qt naming)

    def __init__(
        self,
        settings: Settings,
        secrets: SecretStore | None = None,
        parent: QWidget | None = None,
        *,
        settings_path: Path | None = None,
        auto_refresh: bool = True,
    ):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setObjectName("SettingsDialog")
        self.setAccessibleName("Settings")
        self.setSizeGripEnabled(True)
        self._original = settings
        self._secrets = secrets if secrets is not None else SecretStore()
        self._settings_path = settings_path
        self.saved_settings: Settings | None = None
        self._candidate: Settings | None = settings

        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(4)
        self._seq = 0
        self._latest: dict[str, str] = {}
        self._handlers: dict[str, dict[str, Callable[[Any], None]]] = {}
        self._cancels: dict[str, threading.Event] = {}
        self._job_signals: dict[str, _Signals] = {}
        self._closing = False
        self._pull_cancel: threading.Event | None = None
        self._saving = False

        # keys: normalised base URL -> the keys shown/edited for it; which were changed
        self._keys_url = normalize_base_url(settings.openai.base_url)
        self._keys_by_url: dict[str, list[str]] = {}
        self._key_where: dict[str, str] = {}
        self._dirty_urls: set[str] = set()
        self._env_key: str | None = None
        self._keys_loaded = False
        self._add_when_loaded = False  # Enter/Add pressed while the keys list was loading
        self._models = {"ollama": settings.ollama.model, "openai": settings.openai.model}
        self._model_choices: dict[str, list[str]] = {"ollama": [], "openai": []}
        self._where_text = ""
        self.key_locations: dict[str, str] = {}

        self._loading = True
        self._build()
        self._load(settings)
        self._loading = False
        self._validate()
        self._load_keys(self._keys_url)
        if auto_refresh and settings.ollama.host:
            self._refresh_models(quiet=True)
        self.resize(720, 640)

    # ---- construction --------------------------------------------------------------------------

    def _build(self) -> None:
        root = QVBoxLayout(self)

        provider_row = QHBoxLayout()
        provider_label = QLabel("Provider:")
        self.ollama_radio = QRadioButton("&Ollama (local models)")
        self.openai_radio = QRadioButton("Open&AI-compatible server")
        self.ollama_radio.setAccessibleName("Provider: Ollama")
        self.openai_radio.setAccessibleName("Provider: OpenAI-compatible")
        self._provider_group = QButtonGroup(self)
        self._provider_group.addButton(self.ollama_radio)
        self._provider_group.addButton(self.openai_radio)
        provider_row.addWidget(provider_label)
        provider_row.addWidget(self.ollama_radio)
        provider_row.addWidget(self.openai_radio)
        provider_row.addStretch(1)
        root.addLayout(provider_row)

        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Settings sections")
        self.tabs.addTab(self._build_ollama_tab(), "Ollama")
        self.tabs.addTab(self._build_openai_tab(), "OpenAI-compatible")
        self.tabs.addTab(self._build_generation_tab(), "Generation")
        root.addWidget(self.tabs, 1)

        self.status_label = _error_label("Settings status")
        root.addWidget(self.status_label)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setAccessibleName("Save settings")
        self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        root.addWidget(self.buttons)

        self.ollama_radio.toggled.connect(self._provider_toggled)
        save = QShortcut(QKeySequence("Ctrl+S"), self)
        save.activated.connect(self._save)

    def _shortcut(self, widget: QWidget, slot: Callable[[], None]) -> None:
        """The Delete key on ``widget`` runs ``slot`` (remove a key, delete a model)."""
        shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), widget)
        shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        shortcut.activated.connect(slot)

    def _build_ollama_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)

        form = QFormLayout()
        host_row = QHBoxLayout()
        self.ollama_host = QLineEdit()
        self.ollama_host.setPlaceholderText("http://localhost:11434")
        self.ollama_host.setAccessibleName("Ollama host URL")
        self.ollama_test_button = QPushButton("&Test connection")
        self.ollama_test_button.setAccessibleName("Test the Ollama connection")
        self.ollama_test_button.setAutoDefault(False)
        host_row.addWidget(self.ollama_host, 1)
        host_row.addWidget(self.ollama_test_button)
        self.ollama_host_error = _error_label("Ollama host error")
        self.ollama_status = _error_label("Ollama connection status")
        self.ollama_host_note = _error_label("Ollama host note")
        _row(form, "&Host:", host_row, self.ollama_host_error, self.ollama_host_note, self.ollama_status,
             buddy=self.ollama_host)
        self.ollama_timeout = QLineEdit()
        self.ollama_timeout.setAccessibleName("Answer timeout in seconds")
        self.ollama_timeout.setToolTip(
            "Seconds to wait for the next piece of an answer before giving up (the first piece includes "
            "loading the model, which can take minutes for a large model)"
        )
        self.ollama_timeout.setFixedWidth(110)
        self.ollama_timeout_error = _error_label("Answer timeout error")
        self.ollama_timeout_hint = QLabel("seconds without data before an answer fails, e.g. 300")
        self.ollama_timeout_hint.setEnabled(False)  # greyed: a hint, not a value
        timeout_row = QHBoxLayout()
        timeout_row.addWidget(self.ollama_timeout)
        timeout_row.addWidget(self.ollama_timeout_hint, 1)
        _row(form, "Ans&wer timeout (s):", timeout_row, self.ollama_timeout_error, buddy=self.ollama_timeout)
        layout.addLayout(form)

        models_box = QGroupBox("Installed models")
        models_layout = QVBoxLayout(models_box)
        self.models_table = QTableWidget(0, 3)
        self.models_table.setHorizontalHeaderLabels(["Name", "Size", "Modified"])
        self.models_table.setAccessibleName("Installed Ollama models")
        self.models_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.models_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.models_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.models_table.verticalHeader().setVisible(False)
        self.models_table.setAlternatingRowColors(True)
        self.models_table.setTabKeyNavigation(False)
        header = self.models_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        models_layout.addWidget(self.models_table, 1)
        row = QHBoxLayout()
        self.use_model_button = QPushButton("&Use for chats")
        self.use_model_button.setAccessibleName("Use the selected model for chats")
        self.delete_model_button = QPushButton("&Delete…")
        self.delete_model_button.setAccessibleName("Delete the selected model")
        self.refresh_models_button = QPushButton("&Refresh")
        self.refresh_models_button.setAccessibleName("Refresh the list of installed models")
        for b in (self.use_model_button, self.delete_model_button, self.refresh_models_button):
            b.setAutoDefault(False)
            row.addWidget(b)
        row.addStretch(1)
        models_layout.addLayout(row)
        layout.addWidget(models_box, 1)

        pull_box = QGroupBox("Pull a model")
        pull_layout = QVBoxLayout(pull_box)
        row = QHBoxLayout()
        self.pull_name = _ActionLineEdit()
        self.pull_name.setPlaceholderText("Model name, e.g. llama3.2 or qwen3:8b")
        self.pull_name.setAccessibleName("Name of the model to pull")
        self.pull_button = QPushButton("&Pull")
        self.pull_button.setAccessibleName("Pull the model")
        self.pull_cancel_button = QPushButton("Cancel pull")
        self.pull_cancel_button.setAccessibleName("Cancel the pull")
        for b in (self.pull_button, self.pull_cancel_button):
            b.setAutoDefault(False)
        row.addWidget(self.pull_name, 1)
        row.addWidget(self.pull_button)
        row.addWidget(self.pull_cancel_button)
        pull_layout.addLayout(row)
        self.pull_progress = QProgressBar()
        self.pull_progress.setRange(0, 1000)
        self.pull_progress.setValue(0)
        self.pull_progress.setAccessibleName("Pull progress")
        self.pull_progress.setTextVisible(True)
        self.pull_progress.setVisible(False)
        pull_layout.addWidget(self.pull_progress)
        self.pull_status = _error_label("Pull status")
        pull_layout.addWidget(self.pull_status)
        layout.addWidget(pull_box)

        self.ollama_host.textChanged.connect(self._ollama_host_edited)
        self.ollama_timeout.textChanged.connect(self._validate)
        self.ollama_test_button.clicked.connect(self.test_ollama)
        self.refresh_models_button.clicked.connect(lambda: self._refresh_models(quiet=False))
        self.models_table.itemSelectionChanged.connect(self._update_model_buttons)
        self.models_table.itemDoubleClicked.connect(lambda _item: self._use_selected_model())
        self.use_model_button.clicked.connect(self._use_selected_model)
        self.delete_model_button.clicked.connect(self._delete_selected_model)
        self.pull_name.textChanged.connect(self._update_pull_buttons)
        self.pull_name.activated.connect(self._pull_clicked)
        self.pull_button.clicked.connect(self._pull_clicked)
        self.pull_cancel_button.clicked.connect(self.cancel_pull)
        self._shortcut(self.models_table, self._delete_selected_model)
        return page

    def _build_openai_tab(self) -> QWidget:
        page = QWidget()
        outer = QVBoxLayout(page)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)

        self.preset = QComboBox()
        self.preset.addItems([*OPENAI_PRESETS, CUSTOM_PRESET])
        self.preset.setAccessibleName("Provider preset")
        self.preset.setMinimumWidth(220)
        _row(form, "&Preset:", self.preset, left=True)

        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText("https://api.openai.com/v1")
        self.base_url.setAccessibleName("Base URL")
        self.base_url_error = _error_label("Base URL error")
        _row(form, "&Base URL:", self.base_url, self.base_url_error)

        self.needs_key = QCheckBox("This provider needs an API &key (local servers usually don't)")
        self.needs_key.setAccessibleName("Provider needs an API key")
        _row(form, "", self.needs_key)

        keys_box = QWidget()
        keys_layout = QVBoxLayout(keys_box)
        keys_layout.setContentsMargins(0, 0, 0, 0)
        self.keys_list = QListWidget()
        self.keys_list.setAccessibleName("API keys (masked)")
        self.keys_list.setMaximumHeight(96)
        keys_layout.addWidget(self.keys_list)
        row = QHBoxLayout()
        self.new_key = _ActionLineEdit()
        self.new_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.new_key.setPlaceholderText("Paste a new API key")
        self.new_key.setAccessibleName("New API key")
        self.add_key_button = QPushButton("A&dd key")
        self.add_key_button.setAccessibleName("Add the API key")
        self.remove_key_button = QPushButton("Re&move key")
        self.remove_key_button.setAccessibleName("Remove the selected API key")
        for b in (self.add_key_button, self.remove_key_button):
            b.setAutoDefault(False)
        row.addWidget(self.new_key, 1)
        row.addWidget(self.add_key_button)
        row.addWidget(self.remove_key_button)
        keys_layout.addLayout(row)
        self.keys_where = QLabel("Reading keys…")
        self.keys_where.setWordWrap(True)
        self.keys_where.setAccessibleName("Where the API keys live")
        self.keys_where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        keys_layout.addWidget(self.keys_where)
        _row(form, "API &keys:", keys_box, buddy=self.keys_list)

        self.timeout = QLineEdit()
        self.timeout.setAccessibleName("Timeout in seconds")
        self.timeout.setFixedWidth(110)
        self.timeout_error = _error_label("Timeout error")
        _row(form, "&Timeout (s):", self.timeout, self.timeout_error, left=True)
        self.retries = QSpinBox()
        self.retries.setRange(0, 10)
        self.retries.setAccessibleName("Retries per key")
        self.retries.setFixedWidth(110)
        _row(form, "&Retries per key:", self.retries, left=True)
        self.retry_interval = QLineEdit()
        self.retry_interval.setAccessibleName("Retry interval in seconds")
        self.retry_interval.setFixedWidth(110)
        self.retry_interval_error = _error_label("Retry interval error")
        _row(form, "Retry &interval (s):", self.retry_interval, self.retry_interval_error, left=True)

        test_row = QHBoxLayout()
        self.openai_test_button = QPushButton("Test co&nnection")
        self.openai_test_button.setAccessibleName("Test the OpenAI-compatible connection")
        self.openai_test_button.setAutoDefault(False)
        test_row.addWidget(self.openai_test_button)
        test_row.addStretch(1)
        self.openai_status = _error_label("OpenAI-compatible connection status")
        self.openai_models = QListWidget()
        self.openai_models.setAccessibleName("Models the server offers")
        self.openai_models.setToolTip("Double-click a model to use it for chats")
        self.openai_models.setMaximumHeight(90)
        self.openai_models.setVisible(False)
        _row(form, "", test_row, self.openai_status, self.openai_models)

        self.preset.activated.connect(self._preset_chosen)
        self.base_url.textChanged.connect(self._base_url_edited)
        self.needs_key.toggled.connect(self._validate)
        self.timeout.textChanged.connect(self._validate)
        self.retry_interval.textChanged.connect(self._validate)
        self.retries.valueChanged.connect(self._validate)
        self.new_key.activated.connect(self._add_key)
        self.new_key.textChanged.connect(self._update_key_buttons)
        self.add_key_button.clicked.connect(self._add_key)
        self.remove_key_button.clicked.connect(self._remove_key)
        self.keys_list.itemSelectionChanged.connect(self._update_key_buttons)
        self.openai_test_button.clicked.connect(self.test_openai)
        self.openai_models.itemDoubleClicked.connect(self._use_openai_model)
        self._shortcut(self.keys_list, self._remove_key)
        self._keys_timer = QTimer(self)
        self._keys_timer.setSingleShot(True)
        self._keys_timer.setInterval(400)
        self._keys_timer.timeout.connect(self._switch_keys_to_current_url)
        return page

    def _build_generation_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.setAccessibleName("Model")
        self.model.setMinimumWidth(260)
        self.model_error = _error_label("Model error")
        box = _row(form, "&Model:", self.model, self.model_error)
        self.model_label = form.labelForField(box)

        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setAccessibleName("Temperature")
        self.temperature.setFixedWidth(110)
        _row(form, "&Temperature:", self.temperature, left=True)

        self.keep_alive = QLineEdit()
        self.keep_alive.setAccessibleName("Keep alive (Ollama)")
        self.keep_alive.setToolTip(
            "How long Ollama keeps the model loaded after a reply: seconds (-1 = always, 0 = unload at once) "
            "or a duration such as 5m or 1h"
        )
        self.keep_alive.setFixedWidth(110)
        self.keep_alive_error = _error_label("Keep alive error")
        self.keep_alive_hint = QLabel("seconds (-1 = keep loaded, 0 = unload at once) or a duration like 5m")
        self.keep_alive_hint.setEnabled(False)  # greyed: a hint, not a value
        ka_row = QHBoxLayout()
        ka_row.addWidget(self.keep_alive)
        ka_row.addWidget(self.keep_alive_hint, 1)
        _row(form, "&Keep alive (Ollama):", ka_row, self.keep_alive_error, buddy=self.keep_alive)

        self.max_history = QSpinBox()
        self.max_history.setRange(2, 100_000)
        self.max_history.setAccessibleName("Maximum history messages sent to the model")
        self.max_history.setFixedWidth(110)
        _row(form, "Max &history messages:", self.max_history, left=True)
        self.max_steps = QSpinBox()
        self.max_steps.setRange(1, 100)
        self.max_steps.setAccessibleName("Maximum agent steps per turn")
        self.max_steps.setFixedWidth(110)
        _row(form, "Max &steps per turn:", self.max_steps, left=True)

        self.system_prompt = QPlainTextEdit()
        self.system_prompt.setAccessibleName("System prompt")
        self.system_prompt.setTabChangesFocus(True)
        _row(form, "S&ystem prompt:", self.system_prompt)

        self.model.editTextChanged.connect(self._validate)
        self.keep_alive.textChanged.connect(self._validate)
        return page

    # ---- values in and out -----------------------------------------------------------------------

    def _load(self, s: Settings) -> None:
        (self.ollama_radio if s.backend == "ollama" else self.openai_radio).setChecked(True)
        self.ollama_host.setText(s.ollama.host)
        env_host = os.environ.get("OLLAMA_HOST", "").strip()
        self._show(
            self.ollama_host_note,
            f"OLLAMA_HOST is set ({env_host}): it replaces the saved host each time the app starts."
            if env_host else None,
            "info",
        )
        self.base_url.setText(s.openai.base_url)
        self._sync_preset()
        self.needs_key.setChecked(s.openai.needs_key)
        self.ollama_timeout.setText(f"{s.ollama.timeout_s:g}")
        self.timeout.setText(f"{s.openai.timeout_s:g}")
        self.retries.setValue(s.openai.retries_per_key)
        self.retry_interval.setText(f"{s.openai.retry_interval_s:g}")
        self.temperature.setValue(s.generation.temperature)
        self.keep_alive.setText(str(s.ollama.keep_alive))
        self.max_history.setValue(s.loop.max_history_messages)
        self.max_steps.setValue(s.loop.max_steps)
        self.system_prompt.setPlainText(s.loop.system_prompt)
        self._show_model_for(self.backend())
        self.tabs.setCurrentIndex(0 if s.backend == "ollama" else 1)
        self._update_model_buttons()
        self._update_pull_buttons()
        self._update_key_buttons()
        self.pull_cancel_button.setVisible(False)

    def backend(self) -> str:
        """The provider chosen in the dialog: ``"ollama"`` or ``"openai"``."""
        return "ollama" if self.ollama_radio.isChecked() else "openai"

    def _show_model_for(self, backend: str) -> None:
        self.model.blockSignals(True)
        self.model.clear()
        self.model.addItems(self._model_choices[backend])
        self.model.setEditText(self._models[backend])
        self.model.blockSignals(False)
        if isinstance(self.model_label, QLabel):
            self.model_label.setText("&Model (Ollama):" if backend == "ollama" else "&Model (OpenAI-compatible):")
        self.keep_alive.setEnabled(backend == "ollama")

    def _provider_toggled(self, ollama_checked: bool) -> None:
        if self._loading:
            return
        previous = "openai" if ollama_checked else "ollama"
        self._models[previous] = self.model.currentText().strip()
        current = self.backend()
        self._show_model_for(current)
        if self.tabs.currentIndex() != 2:
            self.tabs.setCurrentIndex(0 if current == "ollama" else 1)
        self._validate()

    def _float_field(self, edit: QLineEdit, errors: dict[str, str], name: str, example: str) -> Any:
        text = edit.text().strip().replace(",", ".")
        try:
            value = float(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value):  # "inf"/"nan" parse, but are no number of seconds
            errors[name] = f"Must be a number of seconds, e.g. {example}"
            return None
        return value

    def _validate(self) -> Settings | None:
        """Check every field through :class:`Settings`; show problems inline; enable Save. Returns the
        candidate settings (None while something is invalid)."""
        if self._loading:
            return None
        errors: dict[str, str] = {}
        self._models[self.backend()] = self.model.currentText().strip()
        data = self._original.model_dump()
        data.update(
            backend=self.backend(),
            ollama_host=self.ollama_host.text().strip(),
            ollama_model=self._models["ollama"],
            openai_base_url=self.base_url.text().strip(),
            openai_model=self._models["openai"],
            openai_needs_key=self.needs_key.isChecked(),
            openai_retries_per_key=self.retries.value(),
            temperature=round(self.temperature.value(), 2),
            max_history_messages=self.max_history.value(),
            max_steps=self.max_steps.value(),
            system_prompt=self.system_prompt.toPlainText(),
            keep_alive=self.keep_alive.text().strip(),
        )
        ollama_timeout = self._float_field(self.ollama_timeout, errors, "ollama_timeout_s", "300")
        if ollama_timeout is not None:
            data["ollama_timeout_s"] = ollama_timeout
        timeout = self._float_field(self.timeout, errors, "openai_timeout_s", "60")
        interval = self._float_field(self.retry_interval, errors, "openai_retry_interval_s", "1")
        if timeout is not None:
            data["openai_timeout_s"] = timeout
        if interval is not None:
            data["openai_retry_interval_s"] = interval
        if not data["ollama_host"]:
            errors["ollama_host"] = "Enter the Ollama host, e.g. http://localhost:11434"
        if not data["openai_base_url"]:
            errors["openai_base_url"] = "Enter the base URL, e.g. https://api.openai.com/v1"
        if not self._models[self.backend()]:
            errors["model"] = "Enter or choose a model"
        candidate: Settings | None = None
        try:
            candidate = Settings.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                name = str(err["loc"][0]) if err.get("loc") else "settings"
                errors.setdefault(name, _field_message(err.get("msg", "invalid value")))
        labels = {
            "ollama_host": self.ollama_host_error,
            "ollama_timeout_s": self.ollama_timeout_error,
            "openai_base_url": self.base_url_error,
            "openai_timeout_s": self.timeout_error,
            "openai_retry_interval_s": self.retry_interval_error,
            "keep_alive": self.keep_alive_error,
            "model": self.model_error,
        }
        where = {
            "ollama_host": "Host (Ollama tab)",
            "ollama_timeout_s": "Answer timeout (Ollama tab)",
            "openai_base_url": "Base URL (OpenAI-compatible tab)",
            "openai_timeout_s": "Timeout (OpenAI-compatible tab)",
            "openai_retry_interval_s": "Retry interval (OpenAI-compatible tab)",
            "keep_alive": "Keep alive (Generation tab)",
            "model": "Model (Generation tab)",
        }
        marked = [where[name] for name in labels if name in errors]
        for name, label in labels.items():
            self._show(label, errors.pop(name, None), "err")
        if errors:  # a field without its own label: say it in the status line
            self._show(self.status_label, "; ".join(f"{k}: {v}" for k, v in errors.items()), "err")
            candidate = None
        elif candidate is None or marked:
            self._show(self.status_label, "To save, fix: " + ", ".join(marked) + ".", "err")
            candidate = None
        else:
            self._show(self.status_label, self._key_warning(candidate), "warn")
        self._candidate = candidate
        self.save_button.setEnabled(candidate is not None and not self._saving)
        self._sync_preset()
        return candidate

    def _key_warning(self, s: Settings) -> str | None:
        if s.backend != "openai" or not s.openai.needs_key or not self._keys_loaded:
            return None
        if self._current_keys() or self._env_key:
            return None
        return (
            "No API key for this provider: add one on the OpenAI-compatible tab, or untick "
            "'needs an API key' for a local server."
        )

    def _show(self, label: QLabel, text: str | None, kind: str = "info") -> None:
        """Show ``text`` in ``label`` coloured by ``kind`` (ok / warn / err / info), or hide it."""
        if not text:
            label.clear()
            label.setVisible(False)
            return
        from desktop_agent.ui import theme

        t = theme.current(self.palette())
        color = {"ok": t.ok, "warn": t.warn, "err": t.err}.get(kind)
        mark = {"ok": "✓ ", "warn": "⚠ ", "err": "✗ "}.get(kind, "")
        label.setStyleSheet(f"color: {color};" if color else "")
        label.setText(mark + text)
        label.setProperty("kind", kind)
        label.setVisible(True)

    # ---- background jobs -------------------------------------------------------------------------

    def _run(
        self,
        tag: str,
        fn: Callable[[threading.Event, Callable[[Any], None]], Any],
        *,
        done: Callable[[Any], None],
        failed: Callable[[str], None],
        progress: Callable[[Any], None] | None = None,
        cancelled: Callable[[Any], None] | None = None,
    ) -> threading.Event:
        """Run ``fn(cancel, report_progress)`` off the GUI thread. Only the newest job of a ``tag``
        reports back (an older Test connection that answers late is ignored)."""
        self._seq += 1
        job_id = f"{tag}#{self._seq}"
        self._latest[tag] = job_id
        self._handlers[job_id] = {
            "done": done,
            "failed": failed,
            "progress": progress or (lambda _p: None),
            "cancelled": cancelled or (lambda _r: None),
        }
        cancel = threading.Event()
        self._cancels[job_id] = cancel
        signals = _Signals(self)
        self._job_signals[job_id] = signals
        signals.event.connect(self._on_job_event, Qt.ConnectionType.QueuedConnection)
        job = _Job(job_id, fn, cancel, self._all_keys(), signals)
        with _LIVE_LOCK:
            _LIVE_JOBS.add(job)
        self._pool.start(job)
        return cancel

    @Slot(str, str, object)
    def _on_job_event(self, job_id: str, kind: str, payload: Any) -> None:
        finished = kind != "progress"
        handlers = self._handlers.get(job_id)
        if finished:
            self._handlers.pop(job_id, None)
            self._cancels.pop(job_id, None)
            signals = self._job_signals.pop(job_id, None)
            if signals is not None:
                signals.deleteLater()
        tag = job_id.split("#", 1)[0]
        if handlers is None or self._closing or self._latest.get(tag) != job_id:
            return
        handlers[kind](payload)

    def busy(self) -> bool:
        """True while a background job (test, list, pull, delete, keys) is running."""
        return self._pool.activeThreadCount() > 0

    def wait_idle(self, timeout_ms: int = 10_000) -> bool:
        """Wait until every background job has finished (tests); True when they did."""
        return self._pool.waitForDone(timeout_ms)

    def shutdown(self, wait_ms: int = SHUTDOWN_WAIT_MS) -> bool:
        """Cancel running jobs (a pull is stopped and its HTTP stream closed) and wait for them, at
        most ``wait_ms``. A job that cannot stop in time (a request still connecting) is left to
        finish on its own: its pool is handed to the application, so nothing is destroyed while a
        thread still runs. True when every job had finished."""
        self._closing = True
        self._keys_timer.stop()
        for cancel in list(self._cancels.values()):
            cancel.set()
        finished = self._pool.waitForDone(wait_ms)
        if not finished:
            app = QCoreApplication.instance()
            if app is not None:
                self._pool.setParent(app)
        return finished

    def done(self, result: int) -> None:  # noqa: D401 (Qt override: accept, reject, Esc, close)
        self.shutdown()
        super().done(result)

    # ---- Ollama -----------------------------------------------------------------------------------

    def _ollama_host(self) -> str | None:
        if not self.ollama_host_error.isHidden():
            return None
        host = self.ollama_host.text().strip().rstrip("/")
        return host or None

    def test_ollama(self) -> None:
        """Test connection: the server version and the installed models, or the actionable error."""
        host = self._ollama_host()
        if host is None:
            self._show(self.ollama_status, "Enter a valid host URL first.", "err")
            return

        def work(_cancel, _progress):
            from desktop_agent.core.backends.ollama import OllamaBackend

            backend = OllamaBackend(host, timeout_s=TEST_TIMEOUT_S)
            try:
                return backend.server_version(), backend.list_models()
            finally:
                backend.close()

        def done(result):
            version, models = result
            self.ollama_test_button.setEnabled(True)
            self._fill_models(models)
            n = len(models)
            self._show(
                self.ollama_status,
                f"Connected to Ollama {version} at {host} — {n} model{'s' if n != 1 else ''} installed.",
                "ok",
            )

        def failed(text):
            self.ollama_test_button.setEnabled(True)
            self._ollama_unreachable(text)

        self.ollama_test_button.setEnabled(False)
        self._show(self.ollama_status, f"Connecting to {host}…", "info")
        self._run("ollama-test", work, done=done, failed=failed)

    def _ollama_unreachable(self, text: str) -> None:
        # a warning, not a block: the user may be setting up a host that is not running yet
        self._show(self.ollama_status, text, "warn")

    def _refresh_models(self, quiet: bool = False) -> None:
        host = self._ollama_host()
        if host is None:
            return

        def work(_cancel, _progress):
            from desktop_agent.core.backends.ollama import OllamaBackend

            backend = OllamaBackend(host, timeout_s=TEST_TIMEOUT_S)
            try:
                return backend.list_models()
            finally:
                backend.close()

        def failed(text):
            if quiet:
                self._show(self.ollama_status, f"{text} Installed models are listed once it answers.", "warn")
            else:
                self._ollama_unreachable(text)

        self._run("ollama-list", work, done=self._fill_models, failed=failed)

    def _fill_models(self, models: list[Any]) -> None:
        selected = self._selected_model()
        self.models_table.setRowCount(0)
        for info in models:
            row = self.models_table.rowCount()
            self.models_table.insertRow(row)
            name = QTableWidgetItem(info.name)
            size = QTableWidgetItem(human_size(info.size))
            size.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if info.size is not None:
                size.setToolTip(f"{info.size:,} bytes")
            modified = QTableWidgetItem(human_time(info.modified_at))
            if info.modified_at:
                modified.setToolTip(info.modified_at)
            for col, item in enumerate((name, size, modified)):
                self.models_table.setItem(row, col, item)
            if info.name == selected:
                self.models_table.selectRow(row)
        self._model_choices["ollama"] = [m.name for m in models]
        if self.backend() == "ollama":
            self._show_model_for("ollama")
        self._update_model_buttons()

    def _selected_model(self) -> str | None:
        rows = self.models_table.selectionModel().selectedRows() if self.models_table.selectionModel() else []
        if not rows:
            return None
        item = self.models_table.item(rows[0].row(), 0)
        return item.text() if item else None

    def _update_model_buttons(self) -> None:
        has = self._selected_model() is not None
        self.use_model_button.setEnabled(has)
        self.delete_model_button.setEnabled(has)

    def _use_selected_model(self) -> None:
        name = self._selected_model()
        if not name:
            return
        self._models["ollama"] = name
        if self.backend() == "ollama":
            self.model.setEditText(name)
        self._show(self.ollama_status, f"Chats will use {name} (after Save).", "ok")
        self._validate()

    def _confirm_delete(self, name: str) -> bool:
        answer = QMessageBox.question(
            self,
            "Delete model",
            f"Delete the model “{name}” from the Ollama server?\nIt has to be pulled again to be used.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _delete_selected_model(self) -> None:
        name = self._selected_model()
        host = self._ollama_host()
        if not name or host is None or not self._confirm_delete(name):
            return

        def work(_cancel, _progress):
            from desktop_agent.core.backends.ollama import OllamaBackend

            backend = OllamaBackend(host, timeout_s=TEST_TIMEOUT_S)
            try:
                backend.delete_model(name)
                return backend.list_models()
            finally:
                backend.close()

        def done(models):
            self._fill_models(models)
            self._show(self.ollama_status, f"Deleted {name}.", "ok")

        def failed(text):
            self._show(self.ollama_status, text, "err")
            self._update_model_buttons()

        self.delete_model_button.setEnabled(False)
        self._run("ollama-delete", work, done=done, failed=failed)

    def _update_pull_buttons(self) -> None:
        pulling = self._pull_cancel is not None
        self.pull_button.setEnabled(bool(self.pull_name.text().strip()) and not pulling)
        self.pull_name.setEnabled(not pulling)

    def _pull_clicked(self) -> None:
        name = self.pull_name.text().strip()
        if name:
            self.start_pull(name)

    def start_pull(self, name: str) -> None:
        """Pull ``name`` from the Ollama host with a progress bar (also used by the chat's
        "Pull <model>" action). Does nothing while another pull runs."""
        host = self._ollama_host()
        if self._pull_cancel is not None:
            return
        self.tabs.setCurrentIndex(0)
        self.pull_name.setText(name)
        if host is None:
            self._show(self.pull_status, "Enter a valid Ollama host first.", "err")
            return

        def work(cancel, progress):
            from desktop_agent.core.backends.ollama import OllamaBackend

            backend = OllamaBackend(host, timeout_s=PULL_READ_TIMEOUT_S)
            try:
                last_sent = 0.0
                last = None
                for step in backend.pull_model(name, cancel):
                    last = step
                    now = time.monotonic()
                    # at most ~20 updates a second, but every status change
                    if now - last_sent >= 0.05 or step.done or step.completed is None:
                        progress(step)
                        last_sent = now
                if cancel.is_set():
                    return None
                models = backend.list_models()
                return last, models
            finally:
                backend.close()

        def on_progress(step):
            fraction = step.fraction
            if fraction is None:
                if step.done:
                    self.pull_progress.setRange(0, 1000)
                    self.pull_progress.setValue(1000)
                else:
                    self.pull_progress.setRange(0, 0)  # busy: this step has no size
            else:
                self.pull_progress.setRange(0, 1000)
                self.pull_progress.setValue(int(fraction * 1000))
            text = step.status or "working"
            if step.total:
                text += f" — {human_size(step.completed or 0)} of {human_size(step.total)}"
            self._show(self.pull_status, text, "info")

        def finish():
            self._pull_cancel = None
            self.pull_cancel_button.setVisible(False)
            self._update_pull_buttons()

        def cancelled(_result):
            finish()
            self.pull_progress.setVisible(False)
            self._show(
                self.pull_status,
                f"Pull of {name} cancelled. Ollama keeps what was downloaded and resumes next time.",
                "warn",
            )

        def done(result):
            if result is None:
                return cancelled(None)
            finish()
            _last, models = result
            self.pull_progress.setRange(0, 1000)
            self.pull_progress.setValue(1000)
            self._fill_models(models)
            self._show(self.pull_status, f"Pulled {name}.", "ok")
            self.pull_name.clear()

        def failed(text):
            finish()
            self.pull_progress.setVisible(False)
            self._show(self.pull_status, text, "err")

        self.pull_progress.setRange(0, 0)
        self.pull_progress.setVisible(True)
        self.pull_cancel_button.setVisible(True)
        self._show(self.pull_status, f"Pulling {name}…", "info")
        self._pull_cancel = self._run(
            "ollama-pull", work, done=done, failed=failed, progress=on_progress, cancelled=cancelled
        )
        self._update_pull_buttons()
        self.pull_cancel_button.setFocus()

    def cancel_pull(self) -> None:
        """Stop the running pull (the HTTP stream is closed; the dialog stays usable)."""
        if self._pull_cancel is not None:
            self._pull_cancel.set()
            self.pull_cancel_button.setEnabled(False)
            self._show(self.pull_status, "Cancelling…", "info")
            QTimer.singleShot(0, lambda: self.pull_cancel_button.setEnabled(True))

    def pulling(self) -> bool:
        return self._pull_cancel is not None

    # ---- OpenAI-compatible ---------------------------------------------------------------------

    def _sync_preset(self) -> None:
        url = normalize_base_url(self.base_url.text()) if self.base_url.text().strip() else ""
        name = next((n for n, u in OPENAI_PRESETS.items() if normalize_base_url(u) == url), CUSTOM_PRESET)
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
            self._switch_keys_to_current_url()
        else:
            self.base_url.setFocus()
            self.base_url.selectAll()

    def _base_url_edited(self) -> None:
        self._validate()
        if not self._loading:
            self._keys_timer.start()
            # a result about another URL would mislead
            self._latest.pop("openai-test", None)
            self.openai_test_button.setEnabled(True)
            self._show(self.openai_status, None)
            self.openai_models.setVisible(False)

    def _ollama_host_edited(self) -> None:
        self._validate()
        if not self._loading:
            for tag in ("ollama-test", "ollama-list"):
                self._latest.pop(tag, None)
            self.ollama_test_button.setEnabled(True)
            self._show(self.ollama_status, None)

    def _current_keys(self) -> list[str]:
        return list(self._keys_by_url.get(self._keys_url, []))

    def _all_keys(self) -> list[str]:
        keys = [k for ks in self._keys_by_url.values() for k in ks]
        if self._env_key:
            keys.append(self._env_key)
        return keys

    def _switch_keys_to_current_url(self) -> None:
        """The keys list follows the base URL: each provider has its own keys."""
        self._keys_timer.stop()
        if not self.base_url_error.isHidden() or not self.base_url.text().strip():
            return
        url = normalize_base_url(self.base_url.text())
        if url == self._keys_url:
            return
        self._keys_url = url
        if url in self._keys_by_url:
            self._render_keys()
        else:
            self._load_keys(url)

    def _load_keys(self, url: str) -> None:
        store = self._secrets
        self._keys_loaded = False
        self.keys_list.clear()
        self.keys_where.setText("Reading keys…")
        self._update_key_buttons()

        def work(_cancel, _progress):
            keys, where = store.stored_api_keys(url)
            return url, keys, where, store.environment_key(), store.describe(url)

        def done(result):
            loaded_url, keys, where, env_key, describe = result
            self._keys_by_url.setdefault(loaded_url, keys)
            self._key_where[loaded_url] = where
            self._env_key = env_key
            self._where_text = describe
            if loaded_url == self._keys_url:
                self._keys_loaded = True
                self._render_keys()
                self._validate()
                self._add_pending_key()

        def failed(text):  # SecretStore never raises; this is a bug path, still no crash
            self._keys_loaded = True
            self._where_text = text
            self._render_keys()
            self._add_pending_key()

        self._run("keys-load", work, done=done, failed=failed)

    def _render_keys(self) -> None:
        url = self._keys_url
        where = self._key_where.get(url, SYSTEM_KEYRING)
        self.keys_list.clear()
        for key in self._keys_by_url.get(url, []):
            saved = url not in self._dirty_urls
            suffix = where if saved else f"not saved yet — Save keeps it in: {self._save_target()}"
            item = QListWidgetItem(f"{mask_key(key)}    ({suffix})")
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"API key {mask_key(key)}, {suffix}")
            self.keys_list.addItem(item)
        if self._env_key:
            item = QListWidgetItem(f"{mask_key(self._env_key)}    (environment: OPENAI_API_KEY)")
            item.setData(Qt.ItemDataRole.UserRole, None)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            item.setToolTip("Read from the OPENAI_API_KEY environment variable; change it there.")
            self.keys_list.addItem(item)
        self.keys_where.setText(self._where_text)
        self._update_key_buttons()

    def _save_target(self) -> str:
        """Where Save will keep new keys (as far as known now)."""
        return SYSTEM_KEYRING if self._secrets.problem is None else SESSION_ONLY

    def _update_key_buttons(self) -> None:
        self.add_key_button.setEnabled(self._keys_loaded and bool(self.new_key.text().strip()))
        # The key field stays enabled while the keys list loads (a keyring read can take a while,
        # or wait on an unlock prompt): disabling it would move the focus away mid-typing and send
        # the rest of a typed or pasted key to the next field.
        item = self.keys_list.currentItem()
        self.remove_key_button.setEnabled(
            self._keys_loaded and item is not None and item.isSelected() and item.data(Qt.ItemDataRole.UserRole) is not None
        )

    def _add_key(self) -> None:
        key = self.new_key.text().strip()
        if not key:
            return
        from desktop_agent.core.secrets import api_key_problem

        problem = api_key_problem(key)
        if problem:  # would fail every request (and could show up escaped in an error text)
            self.openai_status.setText(problem)
            self.openai_status.setVisible(True)
            return
        if self._keys_timer.isActive():  # the base URL was just edited: the key belongs to the new one
            self._switch_keys_to_current_url()
        if not self._keys_loaded:  # added as soon as this provider's keys are read
            self._add_when_loaded = True
            return
        keys = self._keys_by_url.setdefault(self._keys_url, [])
        self.new_key.clear()
        if key in keys:
            return
        keys.append(key)
        self._dirty_urls.add(self._keys_url)
        self._render_keys()
        self._validate()

    def _add_pending_key(self) -> None:
        if self._add_when_loaded:
            self._add_when_loaded = False
            self._add_key()

    def _remove_key(self) -> None:
        item = self.keys_list.currentItem()
        key = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not key:
            return
        keys = self._keys_by_url.setdefault(self._keys_url, [])
        if key in keys:
            keys.remove(key)
            self._dirty_urls.add(self._keys_url)
        self._render_keys()
        self._validate()

    def api_keys(self) -> list[str]:
        """The keys listed for the base URL being edited (unsaved changes included)."""
        return self._current_keys()

    def test_openai(self) -> None:
        """Test connection: list the models the server offers, with the keys in the list (or the
        environment's), or show the actionable error."""
        s = self._candidate
        if s is None or not self.base_url_error.isHidden():
            self._show(self.openai_status, "Fix the base URL and timeout first.", "err")
            return
        keys = self._current_keys() or ([self._env_key] if self._env_key else [])
        base_url, needs_key = s.openai.base_url, s.openai.needs_key
        timeout = min(s.openai.timeout_s, TEST_TIMEOUT_S)

        def work(_cancel, _progress):
            from desktop_agent.core.backends.openai import OpenAIBackend

            backend = OpenAIBackend(
                base_url, s.openai.model, keys, timeout_s=timeout, retries_per_key=0, needs_key=needs_key
            )
            try:
                return backend.list_models()
            finally:
                backend.close()

        def done(models):
            names = [m.name for m in models]
            self._model_choices["openai"] = names
            if self.backend() == "openai":
                self._show_model_for("openai")
            self.openai_models.clear()
            self.openai_models.addItems(names)
            self.openai_models.setVisible(bool(names))
            shown = ", ".join(names[:5]) + ("…" if len(names) > 5 else "")
            n = len(names)
            self._show(
                self.openai_status,
                f"Connected to {base_url} — {n} model{'s' if n != 1 else ''}" + (f": {shown}" if names else "."),
                "ok",
            )
            self.openai_test_button.setEnabled(True)

        def failed(text):
            self.openai_models.setVisible(False)
            self._show(self.openai_status, text, "warn")
            self.openai_test_button.setEnabled(True)

        self.openai_test_button.setEnabled(False)
        self._show(self.openai_status, f"Connecting to {base_url}…", "info")
        self._run("openai-test", work, done=done, failed=failed)

    def _use_openai_model(self, item: QListWidgetItem) -> None:
        self._models["openai"] = item.text()
        if self.backend() == "openai":
            self.model.setEditText(item.text())
        self._show(self.openai_status, f"Chats will use {item.text()} (after Save).", "ok")
        self._validate()

    # ---- save ------------------------------------------------------------------------------------

    def _save(self) -> None:
        if self._saving:
            return
        if self._keys_timer.isActive():  # the base URL was just edited: its keys list comes next
            self._switch_keys_to_current_url()
        settings = self._validate()
        if settings is None:
            return
        try:
            settings.save(self._settings_path)
        except OSError as exc:
            self._show(self.status_label, f"The settings could not be saved: {exc}", "err")
            return
        changes = {url: list(self._keys_by_url.get(url, [])) for url in self._dirty_urls}
        if not changes:
            self._finish_save(settings, {})
            return
        store = self._secrets
        expected = self._save_target()

        shown_url = self._keys_url

        def work(_cancel, _progress):
            where_by_url = {url: store.set_api_keys(keys, url) for url, keys in changes.items()}
            return where_by_url, store.describe(shown_url)

        def done(result):
            where_by_url, describe = result
            self._saving = False
            self._dirty_urls.clear()
            self._key_where.update(where_by_url)
            self._where_text = describe
            lost = [
                url for url, where in where_by_url.items()
                if changes[url] and where == SESSION_ONLY and expected == SYSTEM_KEYRING
            ]
            if lost:
                # the keyring failed while saving: say so before closing
                self._render_keys()
                self.saved_settings = settings
                self.settingsSaved.emit(settings)
                self._show(
                    self.status_label,
                    f"Settings saved, but the keys could not go into the system keyring: {store.problem} "
                    "They are kept for this session only. Press Cancel to close.",
                    "warn",
                )
                self.save_button.setEnabled(True)
                self.cancel_button.setText("Close")
                return
            self._finish_save(settings, where_by_url)

        def failed(text):
            self._saving = False
            self.save_button.setEnabled(True)
            self._show(self.status_label, f"The keys could not be saved: {text}", "err")

        self._saving = True
        self.save_button.setEnabled(False)
        self._show(self.status_label, "Saving…", "info")
        self._run("keys-save", work, done=done, failed=failed)

    def _finish_save(self, settings: Settings, where_by_url: dict[str, str]) -> None:
        self.saved_settings = settings
        self.key_locations = where_by_url
        self.settingsSaved.emit(settings)
        self.accept()

    @classmethod
    def edit(
        cls, settings: Settings, secrets: SecretStore | None = None, parent: QWidget | None = None, **kwargs: Any
    ) -> Settings | None:
        """Show the dialog modally; the saved :class:`Settings`, or None when cancelled."""
        dialog = cls(settings, secrets, parent, **kwargs)
        try:
            dialog.exec()
            return dialog.saved_settings
        finally:
            dialog.deleteLater()


__all__ = ["SettingsDialog", "human_size", "human_time"]
