"""The settings dialog against real local servers (tests/servers/ollama.py, tests/servers/openai.py),
offscreen, with real widgets. Keys go to an in-test keyring backend or keyring's own `fail` backend;
the real Secret Service is in tests/e2e/test_keyring_real.py."""

from __future__ import annotations

import base64
import json
import socket
from pathlib import Path

import keyring
import keyring.core
import pytest
from keyring.errors import KeyringLocked
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDialog,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QSpinBox,
    QTableWidget,
)

from desktop_agent.core import paths
from desktop_agent.core.secrets import SERVICE, SESSION_ONLY, SYSTEM_KEYRING, SecretStore
from desktop_agent.core.settings import OPENAI_PRESETS, Settings
from desktop_agent.ui.settings_dialog import SettingsDialog, human_size, human_time
from tests.servers.ollama import ollama_server  # noqa: F401 (fixture)
from tests.servers.openai import OpenAIServer
from tests.keyrings import DictKeyring, RaisingKeyring

KEY = "sk-gui-test-0123456789abcdefXYZ"
KEY2 = "sk-gui-second-9876543210fedcbaQRS"
WAIT_MS = 10_000


pytestmark = pytest.mark.usefixtures("clean_keyring_state")


@pytest.fixture
def no_keyring(monkeypatch):
    """keyring's `fail` backend, as on a headless Linux without Secret Service (shared case 34)."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    keyring.core.init_backend()


@pytest.fixture
def dialogs(qtbot):
    """Create dialogs through this; each is shut down and closed at the end (never destroyed with a
    worker still running — shared case 37-gui-qthread-destroyed-on-exit.json)."""
    made: list[SettingsDialog] = []

    def make(settings: Settings | None = None, store: SecretStore | None = None, **kwargs) -> SettingsDialog:
        kwargs.setdefault("auto_refresh", False)
        # default: an in-test keyring, so that a Secret Service on the machine (CI runs everything
        # under with-keyring.sh) is never touched by tests that are not about it
        store = store if store is not None else SecretStore(keyring_backend=DictKeyring())
        dialog = SettingsDialog(settings or Settings(), store, **kwargs)
        qtbot.addWidget(dialog)
        made.append(dialog)
        dialog.show()
        qtbot.waitUntil(lambda: dialog._keys_loaded, timeout=WAIT_MS)
        return dialog

    yield make
    for dialog in made:
        dialog.shutdown()
        dialog.close()


@pytest.fixture
def openai_server():
    server = OpenAIServer(models=["gpt-local", "coder-local"], required_keys=[KEY]).start()
    try:
        yield server
    finally:
        server.stop()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _shown(label) -> str:
    return "" if label.isHidden() else label.text()


def _files_with(root: Path, needle: str) -> list[Path]:
    forms = [needle.encode(), base64.b64encode(needle.encode()), needle.encode("utf-16-le")]
    return [p for p in root.rglob("*") if p.is_file() and any(f in p.read_bytes() for f in forms)]


# ---- Ollama ------------------------------------------------------------------------------------


def test_ollama_test_connection_shows_version_and_models(dialogs, qtbot, ollama_server):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    qtbot.mouseClick(dialog.ollama_test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.ollama_status), timeout=WAIT_MS)
    assert "Ollama 0.12.6" in dialog.ollama_status.text()
    assert "2 models installed" in dialog.ollama_status.text()
    table = dialog.models_table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == ["llama3.2:latest", "qwen3:8b"]
    assert table.item(0, 1).text() == "2.0 GB"
    assert table.item(0, 2).text()  # modified, human readable
    assert [p for p, _ in ollama_server.requests][:2] == ["/api/version", "/api/tags"]
    # the installed models are offered in the Generation tab's model box
    assert dialog.model.findText("qwen3:8b") >= 0
    # editing the host clears a result that was about another host
    dialog.ollama_host.setText(ollama_server.url + "/other")
    assert _shown(dialog.ollama_status) == ""


def test_models_listed_when_the_dialog_opens(dialogs, qtbot, ollama_server):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url), auto_refresh=True)
    qtbot.waitUntil(lambda: dialog.models_table.rowCount() == 2, timeout=WAIT_MS)


def test_unreachable_host_is_a_warning_not_a_block(dialogs, qtbot):
    """shared case 07-ollama-connection-refused.json as the dialog shows it: actionable, not blocking."""
    host = f"http://127.0.0.1:{_closed_port()}"
    dialog = dialogs(Settings(ollama_host=host))
    dialog.test_ollama()
    qtbot.waitUntil(lambda: "Can't reach Ollama" in _shown(dialog.ollama_status), timeout=WAIT_MS)
    assert "ollama serve" in dialog.ollama_status.text()
    assert dialog.ollama_status.property("kind") == "warn"
    assert dialog.save_button.isEnabled()
    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS) as saved:
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert saved.args[0].ollama.host == host
    assert Settings.load()[0].ollama.host == host
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_pull_progress_bar_follows_the_stream(dialogs, qtbot, ollama_server):  # noqa: F811
    ollama_server.pull_delay_s = 0.06
    ollama_server.pull_steps = 5
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    values: list[int] = []
    dialog.pull_progress.valueChanged.connect(values.append)
    dialog.pull_name.setFocus()
    qtbot.keyClicks(dialog.pull_name, "qwen3:0.6b")
    qtbot.keyClick(dialog.pull_name, Qt.Key.Key_Return)  # Enter pulls; it does not save the dialog
    assert dialog.isVisible() and dialog.pulling()
    qtbot.waitUntil(lambda: "Pulled qwen3:0.6b" in _shown(dialog.pull_status), timeout=WAIT_MS)
    assert not dialog.pulling()
    # the bar moved through the layer's progress and ended full
    partial = [v for v in values if 0 < v < 1000]
    assert len(partial) >= 2 and partial == sorted(partial)
    assert dialog.pull_progress.value() == 1000
    assert ("/api/pull", {"model": "qwen3:0.6b", "stream": True}) in ollama_server.requests
    names = [dialog.models_table.item(r, 0).text() for r in range(dialog.models_table.rowCount())]
    assert "qwen3:0.6b" in names
    assert dialog.pull_button.isEnabled() is False  # the name field was cleared


def test_pull_cancel_closes_the_stream(dialogs, qtbot, ollama_server):  # noqa: F811
    ollama_server.pull_delay_s = 0.1
    ollama_server.pull_steps = 100
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.start_pull("big-model:70b")
    qtbot.waitUntil(lambda: dialog.pull_progress.value() > 0, timeout=WAIT_MS)
    assert dialog.pull_cancel_button.isVisible()
    qtbot.mouseClick(dialog.pull_cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "cancelled" in _shown(dialog.pull_status), timeout=WAIT_MS)
    assert dialog.pull_status.property("kind") == "warn"
    assert not dialog.pulling() and not dialog.pull_cancel_button.isVisible()
    qtbot.waitUntil(lambda: ollama_server.disconnects >= 1, timeout=WAIT_MS)  # the HTTP stream was closed
    assert not ollama_server.has_model("big-model:70b")
    assert dialog.pull_button.isEnabled()  # ready for another pull


def test_pull_error_is_shown(dialogs, qtbot, ollama_server):  # noqa: F811
    ollama_server.pull_error = "pull model manifest: file does not exist"
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.start_pull("no-such-model")
    qtbot.waitUntil(lambda: "file does not exist" in _shown(dialog.pull_status), timeout=WAIT_MS)
    assert dialog.pull_status.property("kind") == "err"
    assert not dialog.pulling()


def test_closing_mid_pull_cancels_and_waits(dialogs, qtbot, ollama_server):  # noqa: F811
    """shared case 37-gui-qthread-destroyed-on-exit.json: closing the dialog while a pull streams
    cancels it, closes the stream and leaves no worker running."""
    ollama_server.pull_delay_s = 0.1
    ollama_server.pull_steps = 100
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.start_pull("big-model:70b")
    qtbot.waitUntil(lambda: dialog.pull_progress.value() > 0, timeout=WAIT_MS)
    dialog.reject()  # Esc / the window's close button
    assert not dialog.isVisible()
    assert not dialog.busy()
    qtbot.waitUntil(lambda: ollama_server.disconnects >= 1, timeout=WAIT_MS)
    assert dialog.saved_settings is None


def test_delete_asks_first(dialogs, qtbot, ollama_server, monkeypatch):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.test_ollama()
    qtbot.waitUntil(lambda: dialog.models_table.rowCount() == 2, timeout=WAIT_MS)
    dialog.models_table.selectRow(1)
    asked: list[str] = []

    def answer(reply):
        def question(parent, title, text, *args, **kwargs):
            asked.append(text)
            return reply

        return question

    monkeypatch.setattr(QMessageBox, "question", staticmethod(answer(QMessageBox.StandardButton.No)))
    qtbot.mouseClick(dialog.delete_model_button, Qt.MouseButton.LeftButton)
    assert "qwen3:8b" in asked[0]
    assert not [p for p, _ in ollama_server.requests if p == "/api/delete"]

    monkeypatch.setattr(QMessageBox, "question", staticmethod(answer(QMessageBox.StandardButton.Yes)))
    qtbot.mouseClick(dialog.delete_model_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Deleted qwen3:8b" in _shown(dialog.ollama_status), timeout=WAIT_MS)
    assert not ollama_server.has_model("qwen3:8b")
    assert dialog.models_table.rowCount() == 1


def test_use_installed_model_for_chats(dialogs, qtbot, ollama_server):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.test_ollama()
    qtbot.waitUntil(lambda: dialog.models_table.rowCount() == 2, timeout=WAIT_MS)
    dialog.models_table.selectRow(1)
    qtbot.mouseClick(dialog.use_model_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    assert saved.args[0].ollama.model == "qwen3:8b"


# ---- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("widget", "value", "label", "message"),
    [
        ("base_url", "api.openai.com/v1", "base_url_error", "http:// or https://"),
        ("ollama_host", "localhost:11434", "ollama_host_error", "http:// or https://"),
        ("timeout", "-5", "timeout_error", "greater than 0"),
        ("timeout", "soon", "timeout_error", "number of seconds"),
        ("ollama_timeout", "0", "ollama_timeout_error", "greater than 0"),
        ("ollama_timeout", "-300", "ollama_timeout_error", "greater than 0"),
        ("ollama_timeout", "5 min", "ollama_timeout_error", "number of seconds"),
        ("ollama_timeout", "", "ollama_timeout_error", "number of seconds"),
        ("ollama_timeout", "inf", "ollama_timeout_error", "number of seconds"),
        ("retry_interval", "-1", "retry_interval_error", "greater than or equal to 0"),
        ("keep_alive", "for a while", "keep_alive_error", "duration like 5m"),
    ],
)
def test_invalid_input_is_shown_inline_and_blocks_save(dialogs, qtbot, widget, value, label, message):
    dialog = dialogs()
    assert dialog.save_button.isEnabled()
    edit: QLineEdit = getattr(dialog, widget)
    good = edit.text()
    edit.setText(value)
    error = getattr(dialog, label)
    assert not error.isHidden() and message in error.text()
    assert not dialog.save_button.isEnabled()
    assert "To save, fix:" in dialog.status_label.text()
    dialog._save()  # Ctrl+S or a stray call cannot save either
    assert not paths.settings_file().exists()
    edit.setText(good)
    assert error.isHidden()
    assert dialog.save_button.isEnabled()


def test_values_round_trip_through_the_dialog(dialogs, qtbot):
    dialog = dialogs()
    dialog.openai_radio.setChecked(True)
    dialog.tabs.setCurrentIndex(1)
    dialog.preset.setCurrentText("DeepSeek")
    dialog.preset.activated.emit(dialog.preset.currentIndex())
    assert dialog.base_url.text() == OPENAI_PRESETS["DeepSeek"]
    dialog.timeout.setText("30")
    dialog.retries.setValue(4)
    dialog.retry_interval.setText("2.5")
    dialog.model.setEditText("deepseek-chat")
    dialog.temperature.setValue(0.7)
    dialog.keep_alive.setText("5m")
    dialog.max_history.setValue(20)
    dialog.max_steps.setValue(5)
    dialog.system_prompt.setPlainText("Réponds brièvement. 简短回答。")
    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    s = saved.args[0]
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded == s
    assert (s.backend, s.openai.base_url, s.openai.model) == ("openai", OPENAI_PRESETS["DeepSeek"], "deepseek-chat")
    assert (s.openai.timeout_s, s.openai.retries_per_key, s.openai.retry_interval_s) == (30, 4, 2.5)
    assert (s.generation.temperature, s.ollama.keep_alive, s.loop.max_history_messages, s.loop.max_steps) == (0.7, "5m", 20, 5)
    assert s.loop.system_prompt == "Réponds brièvement. 简短回答。"
    assert s.ollama.model == "llama3.2"  # the other provider's model is kept


def test_ollama_answer_timeout_round_trips(dialogs, qtbot):
    """Settings.ollama.timeout_s (the read timeout between chunks) is edited on the Ollama tab: shown
    from the settings, saved (a decimal comma is read too), loaded back — the other timeout untouched."""
    dialog = dialogs(Settings(ollama_timeout_s=120))
    assert dialog.ollama_timeout.text() == "120"
    assert dialog.tabs.widget(0).isAncestorOf(dialog.ollama_timeout)  # the Ollama tab
    dialog.ollama_timeout.setText("600,5")
    assert dialog.ollama_timeout_error.isHidden() and dialog.save_button.isEnabled()
    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    s = saved.args[0]
    assert (s.ollama.timeout_s, s.openai.timeout_s) == (600.5, 60)
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded.ollama.timeout_s == 600.5
    again = dialogs(loaded)
    assert again.ollama_timeout.text() == "600.5"


def test_invalid_answer_timeout_names_the_ollama_tab(dialogs):
    dialog = dialogs()
    dialog.openai_radio.setChecked(True)  # also when chats use the other provider
    dialog.ollama_timeout.setText("0")
    assert not dialog.save_button.isEnabled()
    assert "Answer timeout (Ollama tab)" in dialog.status_label.text()


def test_local_preset_needs_no_key(dialogs):
    dialog = dialogs()
    dialog.preset.setCurrentText("LM Studio")
    dialog.preset.activated.emit(dialog.preset.currentIndex())
    assert dialog.base_url.text() == "http://localhost:1234/v1"
    assert not dialog.needs_key.isChecked()
    dialog.base_url.setText("http://10.1.2.3:9000/v1")
    assert dialog.preset.currentText() == "Custom"
    dialog.base_url.setText("https://api.openai.com/v1/")
    assert dialog.preset.currentText() == "OpenAI"


# ---- OpenAI-compatible --------------------------------------------------------------------------


def test_openai_test_connection_lists_models(dialogs, qtbot, openai_server):
    store = SecretStore(keyring_backend=DictKeyring())
    dialog = dialogs(Settings(backend="openai", openai_base_url=openai_server.url), store)
    dialog.new_key.setText(KEY)
    dialog._add_key()
    qtbot.mouseClick(dialog.openai_test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.openai_status), timeout=WAIT_MS)
    assert "2 models: gpt-local, coder-local" in dialog.openai_status.text()
    assert [dialog.openai_models.item(i).text() for i in range(dialog.openai_models.count())] == [
        "gpt-local",
        "coder-local",
    ]
    assert openai_server.all_requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert dialog.model.findText("coder-local") >= 0
    dialog.openai_models.itemDoubleClicked.emit(dialog.openai_models.item(1))
    assert dialog.model.currentText() == "coder-local"


def test_openai_rejected_key_is_a_warning_without_the_key(dialogs, qtbot, openai_server):
    """shared case 21-openai-api-key-missing-or-401.json in the dialog: names the URL, never the key."""
    store = SecretStore(keyring_backend=DictKeyring())
    dialog = dialogs(Settings(backend="openai", openai_base_url=openai_server.url), store)
    dialog.new_key.setText(KEY2)
    dialog._add_key()
    dialog.test_openai()
    qtbot.waitUntil(lambda: "rejected" in _shown(dialog.openai_status), timeout=WAIT_MS)
    assert openai_server.url in dialog.openai_status.text()
    assert KEY2 not in dialog.openai_status.text()
    assert dialog.save_button.isEnabled()


def test_keys_are_masked_and_saved_to_the_keyring_not_the_settings_file(dialogs, qtbot, _user_dirs):
    backend = DictKeyring()
    store = SecretStore(keyring_backend=backend)
    url = "https://api.example.test/v1"
    dialog = dialogs(Settings(backend="openai", openai_base_url=url), store)
    assert "system keyring" in dialog.keys_where.text()
    dialog.tabs.setCurrentIndex(1)
    dialog.new_key.setFocus()
    qtbot.keyClicks(dialog.new_key, KEY)
    assert dialog.new_key.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClick(dialog.new_key, Qt.Key.Key_Return)  # Enter adds the key, it does not save
    assert dialog.isVisible()
    dialog.new_key.setText(KEY2)
    qtbot.mouseClick(dialog.add_key_button, Qt.MouseButton.LeftButton)
    shown = [dialog.keys_list.item(i).text() for i in range(dialog.keys_list.count())]
    assert len(shown) == 2 and all(KEY not in t and KEY2 not in t for t in shown)
    assert shown[0].startswith("sk-…") and "not saved yet" in shown[0]

    # remove the second with the keyboard
    dialog.keys_list.setFocus()
    dialog.keys_list.setCurrentRow(1)
    qtbot.keyClick(dialog.keys_list, Qt.Key.Key_Delete)
    assert dialog.api_keys() == [KEY]

    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert json.loads(backend.data[(SERVICE, f"api-keys:{url}")]) == [KEY]
    assert dialog.key_locations == {url: SYSTEM_KEYRING}
    assert SecretStore(url, keyring_backend=backend).get_api_keys() == [KEY]
    assert "openai_api" not in paths.settings_file().read_text()
    assert _files_with(_user_dirs, KEY) == [] and _files_with(_user_dirs, KEY2) == []


def test_keys_follow_the_provider(dialogs, qtbot):
    """Each base URL has its own keys: switching preset shows that provider's keys; Save stores each."""
    backend = DictKeyring()
    backend.data[(SERVICE, "api-keys:https://api.deepseek.com/v1")] = json.dumps([KEY2])
    store = SecretStore(keyring_backend=backend)
    dialog = dialogs(Settings(backend="openai"), store)
    dialog.new_key.setText(KEY)
    dialog._add_key()
    dialog.preset.setCurrentText("DeepSeek")
    dialog.preset.activated.emit(dialog.preset.currentIndex())
    qtbot.waitUntil(lambda: dialog._keys_loaded and dialog.api_keys() == [KEY2], timeout=WAIT_MS)
    assert "system keyring" in dialog.keys_list.item(0).text()
    dialog.preset.setCurrentText("OpenAI")
    dialog.preset.activated.emit(dialog.preset.currentIndex())
    assert dialog.api_keys() == [KEY]
    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert json.loads(backend.data[(SERVICE, "api-keys:https://api.openai.com/v1")]) == [KEY]
    assert json.loads(backend.data[(SERVICE, "api-keys:https://api.deepseek.com/v1")]) == [KEY2]


def test_no_keyring_dialog_explains_and_keeps_key_for_the_session(dialogs, qtbot, no_keyring, _user_dirs):
    """shared case 34-keyring-no-backend-headless.json: the dialog says 'No secure keyring is available
    on this system' with the alternatives; a saved key is kept for this session only and never written."""
    url = "https://api.openai.com/v1"
    dialog = dialogs(Settings(backend="openai"), SecretStore())  # keyring's own choice: `fail`
    text = dialog.keys_where.text()
    assert "No secure keyring is available on this system" in text
    assert "OPENAI_API_KEY" in text and "this session only" in text
    dialog.new_key.setText(KEY)
    dialog._add_key()
    assert "this session only" in dialog.keys_list.item(0).text()
    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert dialog.key_locations == {url: SESSION_ONLY}
    fresh = SecretStore(url)
    assert fresh.get_api_keys() == [KEY] and fresh.where() == SESSION_ONLY
    assert _files_with(_user_dirs, KEY) == []


def test_environment_key_is_shown_masked_and_not_removable(dialogs, monkeypatch, no_keyring):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    dialog = dialogs(Settings(backend="openai"), SecretStore())
    assert dialog.keys_list.count() == 1
    item = dialog.keys_list.item(0)
    assert "environment" in item.text() and KEY not in item.text()
    assert not item.flags() & Qt.ItemFlag.ItemIsSelectable
    dialog.keys_list.setCurrentRow(0)
    assert not dialog.remove_key_button.isEnabled()
    assert "OPENAI_API_KEY" in dialog.keys_where.text()
    assert dialog.status_label.text() == ""  # no "no API key" warning: the environment has one


def test_keyring_failing_during_save_is_said_before_closing(dialogs, qtbot):
    """shared case 34-keyring-no-backend-headless.json (KeyringLocked while saving): settings are
    saved, the key is kept for the session, and the dialog stays open to say so."""
    backend = RaisingKeyring(None)
    store = SecretStore(keyring_backend=backend)
    dialog = dialogs(Settings(backend="openai"), store)
    backend.exc = KeyringLocked("Failed to unlock the collection!")
    dialog.new_key.setText(KEY)
    dialog._add_key()
    with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert dialog.isVisible()
    assert "locked" in dialog.status_label.text() and "this session only" in dialog.status_label.text()
    assert dialog.cancel_button.text() == "Close"
    assert SecretStore("https://api.openai.com/v1", keyring_backend=backend).get_api_keys() == [KEY]


def test_missing_key_is_a_warning(dialogs):
    dialog = dialogs(Settings(backend="openai"), SecretStore(keyring_backend=DictKeyring()))
    assert "No API key" in dialog.status_label.text()
    assert dialog.save_button.isEnabled()
    dialog.needs_key.setChecked(False)
    assert dialog.status_label.text() == ""


# ---- accessibility and helpers -------------------------------------------------------------------


def test_every_control_has_an_accessible_name(dialogs):
    dialog = dialogs()
    kinds = (QLineEdit, QComboBox, QSpinBox, QListWidget, QTableWidget, QPlainTextEdit)
    unnamed = [
        w
        for w in dialog.findChildren(QAbstractButton) + [c for k in kinds for c in dialog.findChildren(k)]
        if not w.accessibleName() and not (isinstance(w, QAbstractButton) and w.text())
        and w.parent() is not None and not isinstance(w.parent(), (QComboBox, QSpinBox))
        and not w.objectName().startswith("qt_")  # Qt's internal parts (spin box editor, table corner)
    ]
    assert unnamed == []


def test_human_readable_sizes_and_times():
    from datetime import datetime, timezone

    assert human_size(2_019_393_189) == "2.0 GB"
    assert human_size(512) == "512 B" and human_size(None) == ""
    now = datetime(2026, 1, 10, 12, 0, tzinfo=timezone.utc)
    assert human_time("2026-01-10T11:57:00Z", now) == "3 minutes ago"
    assert human_time("2026-01-08T11:00:00.123456789+00:00", now) == "2 days ago"
    assert human_time("2025-06-01T00:00:00Z", now).startswith("2025-0")
    assert human_time("garbage", now) == "garbage"


@pytest.mark.parametrize("source", ["dialog", "environment"])
def test_known_key_is_used_for_chats_and_written_nowhere(dialogs, qtbot, no_keyring, monkeypatch, _user_dirs, source):
    """Issue 4: a session with a known key (entered in the dialog, or from OPENAI_API_KEY) on a machine
    without a keyring (shared case 34-keyring-no-backend-headless.json): the chat authenticates with
    it, and afterwards no file under the user config, data, cache and log dirs holds it — DEBUG
    logging of every library included."""
    import logging

    from desktop_agent.core.assembly import KeySet, backend_spec, build_backend
    from desktop_agent.core.messages import Message

    log_file = paths.log_file()
    handler = logging.FileHandler(log_file, encoding="utf-8")
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    server = OpenAIServer(models=["m"], required_keys=[KEY]).start()
    try:
        if source == "environment":
            monkeypatch.setenv("OPENAI_API_KEY", KEY)
        dialog = dialogs(Settings(backend="openai", openai_base_url=server.url, openai_model="m"), SecretStore())
        if source == "dialog":
            dialog.new_key.setText(KEY)
            dialog._add_key()
        dialog.test_openai()
        qtbot.waitUntil(lambda: "Connected" in _shown(dialog.openai_status), timeout=WAIT_MS)
        with qtbot.waitSignal(dialog.settingsSaved, timeout=WAIT_MS) as saved:
            dialog.save_button.click()
        settings = saved.args[0]

        # the window builds its backend for the next turn the same way
        keys = SecretStore(settings.openai.base_url).get_api_keys()
        assert keys == [KEY]
        quick = settings.updated({"openai.retries_per_key": 0})
        backend = build_backend(backend_spec(quick, KeySet(tuple(keys))), KeySet(tuple(keys)))
        try:
            chunks = list(backend.stream_chat([Message(role="user", content="hello")]))
        finally:
            backend.close()
        assert "".join(c.text for c in chunks).strip()
        assert server.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    finally:
        server.stop()
        root.removeHandler(handler)
        handler.close()
        root.setLevel(old_level)
    assert log_file.stat().st_size > 0  # something was logged, and checked
    assert _files_with(_user_dirs, KEY) == []
