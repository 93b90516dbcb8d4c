"""The settings dialog against real local servers (tests/servers/ollama.py, tests/servers/openai.py),
offscreen, with real widgets. Keys go to an in-test keyring backend or keyring's own `fail` backend;
the real Secret Service is in tests/e2e/test_keyring_real.py."""

from __future__ import annotations

import base64
import json
import socket
import threading
from datetime import UTC
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
from desktop_agent.core.assembly import Assembly
from desktop_agent.core.secrets import SERVICE, SESSION_ONLY, SYSTEM_KEYRING, SecretStore, normalize_base_url
from desktop_agent.core.settings import OPENAI_PRESETS, Settings
from desktop_agent.ui.settings.common import human_size, human_time
from desktop_agent.ui.settings.dialog import SettingsDialog
from tests.helpers.keyrings import DictKeyring, RaisingKeyring
from tests.servers.ollama import ollama_server  # noqa: F401 (fixture)
from tests.servers.openai import OpenAIServer

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
        qtbot.waitUntil(lambda: dialog.openai_page.keys.loaded, timeout=WAIT_MS)
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


def _part(dialog, path: str):
    """``dialog.<path>`` for a dotted path (``"ollama_page.host"``)."""
    obj = dialog
    for name in path.split("."):
        obj = getattr(obj, name)
    return obj


def _shown(label) -> str:
    return "" if label.isHidden() else label.text()


def _files_with(root: Path, needle: str) -> list[Path]:
    forms = [needle.encode(), base64.b64encode(needle.encode()), needle.encode("utf-16-le")]
    return [p for p in root.rglob("*") if p.is_file() and any(f in p.read_bytes() for f in forms)]


# ---- Ollama ------------------------------------------------------------------------------------


def test_ollama_test_connection_shows_version_and_models(dialogs, qtbot, ollama_server):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    qtbot.mouseClick(dialog.ollama_page.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.ollama_page.status), timeout=WAIT_MS)
    assert "Ollama 0.12.6" in dialog.ollama_page.status.text()
    assert "2 models installed" in dialog.ollama_page.status.text()
    table = dialog.ollama_page.models.table
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == ["llama3.2:latest", "qwen3:8b"]
    assert table.item(0, 1).text() == "2.0 GB"
    assert table.item(0, 2).text()  # modified, human readable
    assert [p for p, _ in ollama_server.requests][:2] == ["/api/version", "/api/tags"]
    # the installed models are offered in the Generation tab's model box
    assert dialog.generation_page.model.findText("qwen3:8b") >= 0
    # editing the host clears a result that was about another host
    dialog.ollama_page.host.setText(ollama_server.url + "/other")
    assert _shown(dialog.ollama_page.status) == ""


def test_models_listed_when_the_dialog_opens(dialogs, qtbot, ollama_server):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url), auto_refresh=True)
    qtbot.waitUntil(lambda: dialog.ollama_page.models.table.rowCount() == 2, timeout=WAIT_MS)


def test_unreachable_host_is_a_warning_not_a_block(dialogs, qtbot):
    """shared case 07-ollama-connection-refused.json as the dialog shows it: actionable, not blocking."""
    host = f"http://127.0.0.1:{_closed_port()}"
    dialog = dialogs(Settings(ollama_host=host))
    dialog.ollama_page.test_connection()
    qtbot.waitUntil(lambda: "Can't reach Ollama" in _shown(dialog.ollama_page.status), timeout=WAIT_MS)
    assert "ollama serve" in dialog.ollama_page.status.text()
    assert dialog.ollama_page.status.property("kind") == "warn"
    assert dialog.save_button.isEnabled()
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert saved.args[0].ollama.host == host
    assert Settings.load()[0].ollama.host == host
    assert dialog.result() == QDialog.DialogCode.Accepted


def test_pull_progress_bar_follows_the_stream(dialogs, qtbot, ollama_server):  # noqa: F811
    ollama_server.pull_delay_s = 0.06
    ollama_server.pull_steps = 5
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    values: list[int] = []
    dialog.ollama_page.pull.progress.valueChanged.connect(values.append)
    dialog.ollama_page.pull.name.setFocus()
    qtbot.keyClicks(dialog.ollama_page.pull.name, "qwen3:0.6b")
    qtbot.keyClick(dialog.ollama_page.pull.name, Qt.Key.Key_Return)  # Enter pulls; it does not save the dialog
    assert dialog.isVisible() and dialog.pulling()
    qtbot.waitUntil(lambda: "Pulled qwen3:0.6b" in _shown(dialog.ollama_page.pull.status), timeout=WAIT_MS)
    assert not dialog.pulling()
    # the bar moved through the layer's progress and ended full
    partial = [v for v in values if 0 < v < 1000]
    assert len(partial) >= 2 and partial == sorted(partial)
    assert dialog.ollama_page.pull.progress.value() == 1000
    assert ("/api/pull", {"model": "qwen3:0.6b", "stream": True}) in ollama_server.requests
    table = dialog.ollama_page.models.table
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert "qwen3:0.6b" in names
    assert dialog.ollama_page.pull.pull_button.isEnabled() is False  # the name field was cleared


def test_pull_cancel_closes_the_stream(dialogs, qtbot, ollama_server):  # noqa: F811
    ollama_server.pull_delay_s = 0.1
    ollama_server.pull_steps = 100
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.start_pull("big-model:70b")
    qtbot.waitUntil(lambda: dialog.ollama_page.pull.progress.value() > 0, timeout=WAIT_MS)
    assert dialog.ollama_page.pull.cancel_button.isVisible()
    qtbot.mouseClick(dialog.ollama_page.pull.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "cancelled" in _shown(dialog.ollama_page.pull.status), timeout=WAIT_MS)
    assert dialog.ollama_page.pull.status.property("kind") == "warn"
    assert not dialog.pulling() and not dialog.ollama_page.pull.cancel_button.isVisible()
    qtbot.waitUntil(lambda: ollama_server.disconnects >= 1, timeout=WAIT_MS)  # the HTTP stream was closed
    assert not ollama_server.has_model("big-model:70b")
    assert dialog.ollama_page.pull.pull_button.isEnabled()  # ready for another pull


def test_pull_error_is_shown(dialogs, qtbot, ollama_server):  # noqa: F811
    ollama_server.pull_error = "pull model manifest: file does not exist"
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.start_pull("no-such-model")
    qtbot.waitUntil(lambda: "file does not exist" in _shown(dialog.ollama_page.pull.status), timeout=WAIT_MS)
    assert dialog.ollama_page.pull.status.property("kind") == "err"
    assert not dialog.pulling()


def test_closing_mid_pull_cancels_and_waits(dialogs, qtbot, ollama_server):  # noqa: F811
    """shared case 37-gui-qthread-destroyed-on-exit.json: closing the dialog while a pull streams
    cancels it, closes the stream and leaves no worker running."""
    ollama_server.pull_delay_s = 0.1
    ollama_server.pull_steps = 100
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.start_pull("big-model:70b")
    qtbot.waitUntil(lambda: dialog.ollama_page.pull.progress.value() > 0, timeout=WAIT_MS)
    dialog.reject()  # Esc / the window's close button
    assert not dialog.isVisible()
    assert not dialog.busy()
    qtbot.waitUntil(lambda: ollama_server.disconnects >= 1, timeout=WAIT_MS)
    assert dialog.saved_settings is None


def test_delete_asks_first(dialogs, qtbot, ollama_server, monkeypatch):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.ollama_page.test_connection()
    qtbot.waitUntil(lambda: dialog.ollama_page.models.table.rowCount() == 2, timeout=WAIT_MS)
    dialog.ollama_page.models.table.selectRow(1)
    asked: list[str] = []

    def answer(reply):
        def question(parent, title, text, *args, **kwargs):
            asked.append(text)
            return reply

        return question

    monkeypatch.setattr(QMessageBox, "question", staticmethod(answer(QMessageBox.StandardButton.No)))
    qtbot.mouseClick(dialog.ollama_page.models.delete_button, Qt.MouseButton.LeftButton)
    assert "qwen3:8b" in asked[0]
    assert not [p for p, _ in ollama_server.requests if p == "/api/delete"]

    monkeypatch.setattr(QMessageBox, "question", staticmethod(answer(QMessageBox.StandardButton.Yes)))
    qtbot.mouseClick(dialog.ollama_page.models.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Deleted qwen3:8b" in _shown(dialog.ollama_page.status), timeout=WAIT_MS)
    assert not ollama_server.has_model("qwen3:8b")
    assert dialog.ollama_page.models.table.rowCount() == 1


def test_use_installed_model_for_chats(dialogs, qtbot, ollama_server):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url))
    dialog.ollama_page.test_connection()
    qtbot.waitUntil(lambda: dialog.ollama_page.models.table.rowCount() == 2, timeout=WAIT_MS)
    dialog.ollama_page.models.table.selectRow(1)
    qtbot.mouseClick(dialog.ollama_page.models.use_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    assert saved.args[0].ollama.model == "qwen3:8b"


# ---- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("widget", "value", "label", "message"),
    [
        ("openai_page.base_url", "api.openai.com/v1", "openai_page.base_url_error", "http:// or https://"),
        # "localhost:11434" is an Ollama host form, used as Ollama reads it (issue 13): not an error any more
        ("ollama_page.host", "ftp://localhost:11434", "ollama_page.host_error", "http:// or https://"),
        ("openai_page.timeout", "-5", "openai_page.timeout_error", "greater than 0"),
        ("openai_page.timeout", "soon", "openai_page.timeout_error", "number of seconds"),
        ("ollama_page.timeout", "0", "ollama_page.timeout_error", "greater than 0"),
        ("ollama_page.timeout", "-300", "ollama_page.timeout_error", "greater than 0"),
        ("ollama_page.timeout", "5 min", "ollama_page.timeout_error", "number of seconds"),
        ("ollama_page.timeout", "", "ollama_page.timeout_error", "number of seconds"),
        ("ollama_page.timeout", "inf", "ollama_page.timeout_error", "number of seconds"),
        ("openai_page.retry_interval", "-1", "openai_page.retry_interval_error", "greater than or equal to 0"),
        ("ollama_page.next_data", "0", "ollama_page.next_data_error", "greater than 0"),
        ("openai_page.next_data", "soon", "openai_page.next_data_error", "number of seconds"),
        ("generation_page.keep_alive", "for a while", "generation_page.keep_alive_error", "duration like 5m"),
    ],
)
def test_invalid_input_is_shown_inline_and_blocks_save(dialogs, qtbot, widget, value, label, message):
    dialog = dialogs()
    assert dialog.save_button.isEnabled()
    edit: QLineEdit = _part(dialog, widget)
    good = edit.text()
    edit.setText(value)
    error = _part(dialog, label)
    assert not error.isHidden() and message in error.text()
    assert not dialog.save_button.isEnabled()
    assert "To save, fix:" in dialog.status_label.text()
    dialog._save()  # Ctrl+S or a stray call cannot save either
    assert not paths.settings_file().exists()
    edit.setText(good)
    assert error.isHidden()
    assert dialog.save_button.isEnabled()


def test_the_two_stream_waits_are_shown_and_saved(dialogs, qtbot, tmp_path):
    """First data and next data: both waits of each backend are in Settings and saved."""
    dialog = dialogs(Settings.model_validate({"ollama": {"next_data_timeout_s": 45}}))
    assert dialog.ollama_page.next_data.text() == "45"
    assert dialog.openai_page.next_data.text() == "60"
    dialog.ollama_page.next_data.setText("20")
    dialog.openai_page.next_data.setText("15")
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    assert saved.args[0].ollama.next_data_timeout_s == 20
    assert saved.args[0].openai.next_data_timeout_s == 15
    dialog.tabs.setCurrentWidget(dialog.ollama_page)
    dialog.grab().save(str(tmp_path / "settings-ollama.png"))


def test_values_round_trip_through_the_dialog(dialogs, qtbot):
    dialog = dialogs()
    dialog.openai_radio.setChecked(True)
    dialog.tabs.setCurrentIndex(1)
    dialog.openai_page.preset.setCurrentText("DeepSeek")
    dialog.openai_page.preset.activated.emit(dialog.openai_page.preset.currentIndex())
    assert dialog.openai_page.base_url.text() == OPENAI_PRESETS["DeepSeek"]
    dialog.openai_page.timeout.setText("30")
    dialog.openai_page.retries.setValue(4)
    dialog.openai_page.retry_interval.setText("2.5")
    dialog.generation_page.model.setEditText("deepseek-chat")
    dialog.generation_page.temperature.setValue(0.7)
    dialog.generation_page.keep_alive.setText("5m")
    dialog.generation_page.max_history.setValue(20)
    dialog.generation_page.max_window.setValue(4096)
    dialog.generation_page.default_window.setValue(32768)
    dialog.generation_page.auto_compact.setChecked(False)
    dialog.generation_page.max_steps.setValue(5)
    dialog.generation_page.system_prompt.setPlainText("Réponds brièvement. 简短回答。")
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    s = saved.args[0]
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded == s
    assert (s.backend, s.openai.base_url, s.openai.model) == ("openai", OPENAI_PRESETS["DeepSeek"], "deepseek-chat")
    assert (s.openai.timeout_s, s.openai.retries_per_key, s.openai.retry_interval_s) == (30, 4, 2.5)
    assert (s.generation.temperature, s.ollama.keep_alive, s.loop.max_history_messages, s.loop.max_steps) == (
        0.7, "5m", 20, 5
    )
    assert (s.models.max_window, s.models.default_window, s.models.auto_compact) == (4096, 32768, False)
    assert s.loop.system_prompt == "Réponds brièvement. 简短回答。"
    assert s.ollama.model == "llama3.2"  # the other provider's model is kept


def test_ollama_answer_timeout_round_trips(dialogs, qtbot):
    """Settings.ollama.timeout_s (the read timeout between chunks) is edited on the Ollama tab: shown
    from the settings, saved (a decimal comma is read too), loaded back — the other timeout untouched."""
    dialog = dialogs(Settings(ollama_timeout_s=120))
    assert dialog.ollama_page.timeout.text() == "120"
    assert dialog.tabs.widget(0).isAncestorOf(dialog.ollama_page.timeout)  # the Ollama tab
    dialog.ollama_page.timeout.setText("600,5")
    assert dialog.ollama_page.timeout_error.isHidden() and dialog.save_button.isEnabled()
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    s = saved.args[0]
    assert (s.ollama.timeout_s, s.openai.timeout_s) == (600.5, Settings().openai.timeout_s)
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded.ollama.timeout_s == 600.5
    again = dialogs(loaded)
    assert again.ollama_page.timeout.text() == "600.5"


def test_invalid_answer_timeout_names_the_ollama_tab(dialogs):
    dialog = dialogs()
    dialog.openai_radio.setChecked(True)  # also when chats use the other provider
    dialog.ollama_page.timeout.setText("0")
    assert not dialog.save_button.isEnabled()
    assert "Answer timeout (Ollama tab)" in dialog.status_label.text()


def test_local_preset_needs_no_key(dialogs):
    dialog = dialogs()
    dialog.openai_page.preset.setCurrentText("LM Studio")
    dialog.openai_page.preset.activated.emit(dialog.openai_page.preset.currentIndex())
    assert dialog.openai_page.base_url.text() == "http://localhost:1234/v1"
    assert not dialog.openai_page.needs_key.isChecked()
    dialog.openai_page.base_url.setText("http://10.1.2.3:9000/v1")
    assert dialog.openai_page.preset.currentText() == "Custom"
    dialog.openai_page.base_url.setText("https://api.openai.com/v1/")
    assert dialog.openai_page.preset.currentText() == "OpenAI"


# ---- OpenAI-compatible --------------------------------------------------------------------------


def test_openai_test_connection_lists_models(dialogs, qtbot, openai_server):
    store = SecretStore(keyring_backend=DictKeyring())
    dialog = dialogs(Settings(backend="openai", openai_base_url=openai_server.url), store)
    dialog.openai_page.keys.new_key.setText(KEY)
    dialog.openai_page.keys.add_key()
    qtbot.mouseClick(dialog.openai_page.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.openai_page.status), timeout=WAIT_MS)
    assert "2 models: gpt-local, coder-local" in dialog.openai_page.status.text()
    assert [dialog.openai_page.models.item(i).text() for i in range(dialog.openai_page.models.count())] == [
        "gpt-local",
        "coder-local",
    ]
    assert openai_server.all_requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert dialog.generation_page.model.findText("coder-local") >= 0
    dialog.openai_page.models.itemDoubleClicked.emit(dialog.openai_page.models.item(1))
    assert dialog.generation_page.model.currentText() == "coder-local"


def test_openai_rejected_key_is_a_warning_without_the_key(dialogs, qtbot, openai_server):
    """shared case 21-openai-api-key-missing-or-401.json in the dialog: names the URL, never the key."""
    store = SecretStore(keyring_backend=DictKeyring())
    dialog = dialogs(Settings(backend="openai", openai_base_url=openai_server.url), store)
    dialog.openai_page.keys.new_key.setText(KEY2)
    dialog.openai_page.keys.add_key()
    dialog.openai_page.test_connection()
    qtbot.waitUntil(lambda: "rejected" in _shown(dialog.openai_page.status), timeout=WAIT_MS)
    assert openai_server.url in dialog.openai_page.status.text()
    assert KEY2 not in dialog.openai_page.status.text()
    assert dialog.save_button.isEnabled()


def test_keys_are_masked_and_saved_to_the_keyring_not_the_settings_file(dialogs, qtbot, _user_dirs):
    backend = DictKeyring()
    store = SecretStore(keyring_backend=backend)
    url = "https://api.example.test/v1"
    dialog = dialogs(Settings(backend="openai", openai_base_url=url), store)
    assert "system keyring" in dialog.openai_page.keys.where.text()
    dialog.tabs.setCurrentIndex(1)
    dialog.openai_page.keys.new_key.setFocus()
    qtbot.keyClicks(dialog.openai_page.keys.new_key, KEY)
    assert dialog.openai_page.keys.new_key.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClick(dialog.openai_page.keys.new_key, Qt.Key.Key_Return)  # Enter adds the key, it does not save
    assert dialog.isVisible()
    dialog.openai_page.keys.new_key.setText(KEY2)
    qtbot.mouseClick(dialog.openai_page.keys.add_button, Qt.MouseButton.LeftButton)
    shown = [dialog.openai_page.keys.list.item(i).text() for i in range(dialog.openai_page.keys.list.count())]
    assert len(shown) == 2 and all(KEY not in t and KEY2 not in t for t in shown)
    assert shown[0].startswith("sk-…") and "not saved yet" in shown[0]

    # remove the second with the keyboard
    dialog.openai_page.keys.list.setFocus()
    dialog.openai_page.keys.list.setCurrentRow(1)
    qtbot.keyClick(dialog.openai_page.keys.list, Qt.Key.Key_Delete)
    assert dialog.openai_page.keys.api_keys() == [KEY]

    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
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
    dialog.openai_page.keys.new_key.setText(KEY)
    dialog.openai_page.keys.add_key()
    dialog.openai_page.preset.setCurrentText("DeepSeek")
    dialog.openai_page.preset.activated.emit(dialog.openai_page.preset.currentIndex())
    keys = dialog.openai_page.keys
    qtbot.waitUntil(lambda: keys.loaded and keys.api_keys() == [KEY2], timeout=WAIT_MS)
    assert "system keyring" in dialog.openai_page.keys.list.item(0).text()
    dialog.openai_page.preset.setCurrentText("OpenAI")
    dialog.openai_page.preset.activated.emit(dialog.openai_page.preset.currentIndex())
    assert dialog.openai_page.keys.api_keys() == [KEY]
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert json.loads(backend.data[(SERVICE, "api-keys:https://api.openai.com/v1")]) == [KEY]
    assert json.loads(backend.data[(SERVICE, "api-keys:https://api.deepseek.com/v1")]) == [KEY2]


def test_no_keyring_dialog_explains_and_keeps_key_for_the_session(dialogs, qtbot, no_keyring, _user_dirs):
    """shared case 34-keyring-no-backend-headless.json: the dialog says 'No secure keyring is available
    on this system' with the alternatives; a saved key is kept for this session only and never written."""
    url = "https://api.openai.com/v1"
    dialog = dialogs(Settings(backend="openai"), SecretStore())  # keyring's own choice: `fail`
    text = dialog.openai_page.keys.where.text()
    assert "No secure keyring is available on this system" in text
    assert "OPENAI_API_KEY" in text and "this session only" in text
    dialog.openai_page.keys.new_key.setText(KEY)
    dialog.openai_page.keys.add_key()
    assert "this session only" in dialog.openai_page.keys.list.item(0).text()
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert dialog.key_locations == {url: SESSION_ONLY}
    fresh = SecretStore(url)
    assert fresh.get_api_keys() == [KEY] and fresh.where() == SESSION_ONLY
    assert _files_with(_user_dirs, KEY) == []


def test_environment_key_is_shown_masked_and_not_removable(dialogs, monkeypatch, no_keyring):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    dialog = dialogs(Settings(backend="openai"), SecretStore())
    assert dialog.openai_page.keys.list.count() == 1
    item = dialog.openai_page.keys.list.item(0)
    assert "environment" in item.text() and KEY not in item.text()
    assert not item.flags() & Qt.ItemFlag.ItemIsSelectable
    dialog.openai_page.keys.list.setCurrentRow(0)
    assert not dialog.openai_page.keys.remove_button.isEnabled()
    assert "OPENAI_API_KEY" in dialog.openai_page.keys.where.text()
    assert dialog.status_label.text() == ""  # no "no API key" warning: the environment has one


def test_keyring_failing_during_save_is_said_before_closing(dialogs, qtbot):
    """shared case 34-keyring-no-backend-headless.json (KeyringLocked while saving): settings are
    saved, the key is kept for the session, and the dialog stays open to say so."""
    backend = RaisingKeyring(None)
    store = SecretStore(keyring_backend=backend)
    dialog = dialogs(Settings(backend="openai"), store)
    backend.exc = KeyringLocked("Failed to unlock the collection!")
    dialog.openai_page.keys.new_key.setText(KEY)
    dialog.openai_page.keys.add_key()
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert dialog.isVisible()
    assert "locked" in dialog.status_label.text() and "this session only" in dialog.status_label.text()
    assert dialog.cancel_button.text() == "Close"
    assert SecretStore("https://api.openai.com/v1", keyring_backend=backend).get_api_keys() == [KEY]


def test_missing_key_is_a_warning(dialogs):
    dialog = dialogs(Settings(backend="openai"), SecretStore(keyring_backend=DictKeyring()))
    assert "No API key" in dialog.status_label.text()
    assert dialog.save_button.isEnabled()
    dialog.openai_page.needs_key.setChecked(False)
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
    from datetime import datetime

    assert human_size(2_019_393_189) == "2.0 GB"
    assert human_size(512) == "512 B" and human_size(None) == ""
    now = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
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
            dialog.openai_page.keys.new_key.setText(KEY)
            dialog.openai_page.keys.add_key()
        dialog.openai_page.test_connection()
        qtbot.waitUntil(lambda: "Connected" in _shown(dialog.openai_page.status), timeout=WAIT_MS)
        with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
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


# ---- one assembly, texts ---------------------------------------------------------------------------


class _RecordingAssembly(Assembly):
    """Records every backend the dialog asks for (settings, timeout, keys) and builds it as usual."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.calls: list[tuple[str, str, float | None, list[str] | None]] = []

    def one_off_backend(self, settings, *, timeout_s=None, probe=False, keys=None):
        from desktop_agent.core.assembly import PROBE_TIMEOUT_S

        url = settings.ollama.host if settings.backend == "ollama" else settings.openai.base_url
        waits = timeout_s or (PROBE_TIMEOUT_S if probe else None)  # what the backend is built to wait
        self.calls.append((settings.backend, url, waits, None if keys is None else list(keys)))
        return super().one_off_backend(settings, timeout_s=timeout_s, probe=probe, keys=keys)


def test_every_backend_comes_from_the_assembly_with_the_edited_host(dialogs, qtbot, ollama_server, openai_server):  # noqa: F811
    store = SecretStore(keyring_backend=DictKeyring())
    assembly = _RecordingAssembly(secrets=store)
    dialog = dialogs(Settings(), store, assembly=assembly)
    dialog.ollama_page.host.setText(ollama_server.url)  # edited, not saved
    dialog.ollama_page.test_connection()
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.ollama_page.status), timeout=WAIT_MS)
    dialog.start_pull("qwen3:0.6b")
    qtbot.waitUntil(lambda: "Pulled" in _shown(dialog.ollama_page.pull.status), timeout=WAIT_MS)
    assert {(b, url) for b, url, _t, _k in assembly.calls} == {("ollama", ollama_server.url)}
    assert assembly.calls[0][2] == 10.0  # Test connection waits seconds, not the answer timeout
    assert any(t == 120.0 for _b, _u, t, _k in assembly.calls)  # the pull's read timeout

    dialog.openai_page.base_url.setText(openai_server.url)
    dialog.openai_page.keys.follow_now()
    qtbot.waitUntil(lambda: dialog.openai_page.keys.loaded, timeout=WAIT_MS)
    dialog.openai_page.keys.new_key.setText(KEY)
    dialog.openai_page.keys.add_key()
    dialog.openai_page.test_connection()
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.openai_page.status), timeout=WAIT_MS)
    assert assembly.calls[-1] == ("openai", openai_server.url, 10.0, [KEY])  # the key not saved yet


def test_the_dialog_uses_the_windows_pull_controller(dialogs, qtbot, ollama_server):  # noqa: F811
    from desktop_agent.ui.pull import PullController

    ollama_server.pull_delay_s = 0.1
    ollama_server.pull_steps = 100
    pull = PullController(Assembly())
    ends: list[str] = []
    pull.cancelled.connect(lambda: ends.append("cancelled"))
    dialog = dialogs(Settings().updated({"ollama.host": ollama_server.url}), pull=pull)
    dialog.start_pull("big-model:70b")
    assert pull.busy and pull.model == "big-model:70b"
    qtbot.waitUntil(lambda: dialog.ollama_page.pull.progress.value() > 0, timeout=WAIT_MS)
    dialog.reject()  # closing the dialog stops the pull it started
    qtbot.waitUntil(lambda: ends == ["cancelled"], timeout=WAIT_MS)
    assert not pull.busy


def test_a_command_in_backticks_is_shown_as_code(dialogs, qtbot):
    host = f"http://127.0.0.1:{_closed_port()}"
    dialog = dialogs(Settings().updated({"ollama.host": host}))
    dialog.ollama_page.test_connection()
    qtbot.waitUntil(lambda: "Can't reach Ollama" in _shown(dialog.ollama_page.status), timeout=WAIT_MS)
    text = dialog.ollama_page.status.text()
    assert "`" not in text and "<code>ollama serve</code>" in text
    assert dialog.ollama_page.status.textFormat() == Qt.TextFormat.RichText


@pytest.mark.parametrize(
    ("value", "shown", "kind"),
    [
        (":11500", "http://127.0.0.1:11500", "info"),
        ("gpu-box", "http://gpu-box:11434", "info"),
        ("http://gpu-box:port", "cannot be used", "warn"),
    ],
)
def test_the_ollama_host_note_reads_the_variable_as_ollama_does(dialogs, monkeypatch, value, shown, kind):
    monkeypatch.setenv("OLLAMA_HOST", value)
    dialog = dialogs()
    note = dialog.ollama_page.host_note
    assert not note.isHidden() and shown in note.text() and value in note.text()
    assert note.property("kind") == kind


# ---- Tools, Generation extras, Appearance ------------------------------------------------------------


def test_tools_page_round_trips(dialogs, qtbot, tmp_path):
    kept, dropped, added = tmp_path / "kept", tmp_path / "dropped", tmp_path / "added"
    for folder in (kept, dropped, added):
        folder.mkdir()
    start = Settings().updated({"tools.enabled": False, "tools.timeout_s": 12.5, "tools.output_cap": 5000,
                                "tools.dirs": [str(kept), str(dropped)]})
    dialog = dialogs(start)
    page = dialog.tools_page
    assert dialog.tabs.widget(3).isAncestorOf(page.enabled) and dialog.tabs.tabText(3) == "Tools"
    assert not page.enabled.isChecked() and page.enabled.text().replace("&", "") == "Use tools"
    assert (page.timeout.text(), page.output_cap.value(), page.folders()) == ("12.5", 5000, [str(kept), str(dropped)])
    assert not page.timeout.isEnabled() and not page.add_button.isEnabled()  # tools off: nothing else applies
    page.enabled.setChecked(True)
    assert page.timeout.isEnabled() and page.output_cap.isEnabled() and page.add_button.isEnabled()
    page.timeout.setText("45,5")
    page.output_cap.setValue(20_000)
    page.dirs.setCurrentRow(1)
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    page.add_folder(str(added))
    page.add_folder(str(added))  # already listed: selected, not added twice
    assert page.folders() == [str(kept), str(added)]
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    s = saved.args[0]
    assert (s.tools.enabled, s.tools.timeout_s, s.tools.output_cap, s.tools.dirs) == (
        True, 45.5, 20_000, [str(kept), str(added)])
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded == s
    again = dialogs(loaded).tools_page
    assert again.enabled.isChecked() and again.timeout.text() == "45.5" and again.output_cap.value() == 20_000
    assert again.folders() == [str(kept), str(added)]


def test_tools_off_is_saved(dialogs, qtbot):
    dialog = dialogs()
    assert dialog.tools_page.enabled.isChecked()
    dialog.tools_page.enabled.setChecked(False)
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    assert saved.args[0].tools.enabled is False
    assert Settings.load()[0].tools.enabled is False


def test_add_folder_asks_for_a_folder_and_warns_about_a_missing_one(dialogs, qtbot, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog

    asked: list[str] = []

    def pick(parent, caption, start):
        asked.append(caption)
        return str(tmp_path)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(pick))
    dialog = dialogs(Settings().updated({"tools.dirs": [str(tmp_path / "gone")]}))
    from desktop_agent.ui.settings.tools_page import INSTALLED_SECTION

    dialog.tabs.setCurrentIndex(3)
    page = dialog.tools_page
    page.sections.setCurrentIndex(INSTALLED_SECTION)  # the extra folders are beside the installed tools
    note = page.dirs_note
    assert not note.isHidden() and str(tmp_path / "gone") in note.text() and note.property("kind") == "warn"
    assert dialog.save_button.isEnabled()  # a missing folder is skipped when tools load: a warning only
    qtbot.mouseClick(page.add_button, Qt.MouseButton.LeftButton)
    assert asked == ["Add a tool folder"] and page.folders() == [str(tmp_path / "gone"), str(tmp_path)]
    page.dirs.setCurrentRow(0)
    page.dirs.setFocus()
    qtbot.keyClick(page.dirs, Qt.Key.Key_Delete)
    assert page.folders() == [str(tmp_path)] and note.isHidden()


def test_the_tools_folder_is_shown_and_opens_in_the_file_manager(dialogs, qtbot, monkeypatch):
    from PySide6.QtGui import QDesktopServices

    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: opened.append(url.toLocalFile()) or True))
    dialog = dialogs()
    page = dialog.tools_page
    assert page.tools_folder.isReadOnly() and page.tools_folder.text() == str(paths.user_tools_dir())
    qtbot.mouseClick(page.open_button, Qt.MouseButton.LeftButton)
    assert opened == [str(paths.user_tools_dir())]


@pytest.mark.parametrize(
    ("value", "message"),
    [("0", "greater than 0"), ("-3", "greater than 0"), ("soon", "number of seconds"), ("", "number of seconds")],
)
def test_invalid_tool_timeout_is_shown_inline_and_blocks_save(dialogs, value, message):
    dialog = dialogs()
    page = dialog.tools_page
    page.timeout.setText(value)
    assert not page.timeout_error.isHidden() and message in page.timeout_error.text()
    assert not dialog.save_button.isEnabled()
    assert "Tool timeout (Tools tab)" in dialog.status_label.text()
    dialog._save()
    assert not paths.settings_file().exists()
    page.timeout.setText("30")
    assert page.timeout_error.isHidden() and dialog.save_button.isEnabled()


def test_output_cap_below_256_is_shown_inline_and_blocks_save(dialogs):
    dialog = dialogs()
    page = dialog.tools_page
    page.output_cap.setValue(255)
    assert not page.output_cap_error.isHidden() and "256" in page.output_cap_error.text()
    assert not dialog.save_button.isEnabled()
    assert "Output cap (Tools tab)" in dialog.status_label.text()
    dialog._save()
    assert not paths.settings_file().exists()
    page.output_cap.setValue(256)
    assert page.output_cap_error.isHidden() and dialog.save_button.isEnabled()


@pytest.mark.parametrize(("think", "shown"), [(None, "Model default"), (True, "On"), (False, "Off")])
@pytest.mark.parametrize("fmt", [None, "json"])
def test_json_format_and_think_load(dialogs, think, shown, fmt):
    page = dialogs(Settings().updated({"generation.think": think, "generation.format": fmt})).generation_page
    assert page.think.currentText() == shown
    assert page.json_format.isChecked() is (fmt == "json")


@pytest.mark.parametrize(("choice", "think"), [("Model default", None), ("On", True), ("Off", False)])
def test_json_format_and_think_round_trip(dialogs, qtbot, choice, think):
    dialog = dialogs(Settings().updated({"generation.think": not think if think is not None else True}))
    page = dialog.generation_page
    page.json_format.setChecked(think is not False)
    page.think.setCurrentText(choice)
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    s = saved.args[0]
    assert s.generation.think is think
    assert s.generation.format == ("json" if think is not False else None)
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded == s
    again = dialogs(loaded).generation_page
    assert again.think.currentText() == choice and again.json_format.isChecked() is (think is not False)


def test_json_format_says_it_is_ollamas_format(dialogs):
    page = dialogs().generation_page
    assert page.json_format_hint.textFormat() == Qt.TextFormat.RichText
    assert "Ollama" in page.json_format_hint.text() and "<code>format</code>" in page.json_format_hint.text()
    assert "<code>think</code>" in page.think_hint.text()


@pytest.mark.parametrize("theme_name", ["light", "dark", "system"])
def test_appearance_round_trips(dialogs, qtbot, theme_name):
    other = "dark" if theme_name != "dark" else "light"
    dialog = dialogs(Settings().updated({"appearance.theme": other}))
    page = dialog.appearance_page
    assert dialog.tabs.tabText(4) == "Appearance" and dialog.tabs.widget(4).isAncestorOf(page)
    assert page.theme_buttons[other].isChecked()
    page.theme_buttons[theme_name].setChecked(True)
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    assert saved.args[0].appearance.theme == theme_name
    loaded, warnings = Settings.load()
    assert warnings == [] and loaded.appearance.theme == theme_name
    assert dialogs(loaded).appearance_page.theme_buttons[theme_name].isChecked()


def test_the_theme_is_applied_when_saved(make_window, qtbot, monkeypatch):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from desktop_agent.ui import theme

    monkeypatch.delenv("DESKTOP_AGENT_THEME", raising=False)
    monkeypatch.setenv("QT_STYLE_OVERRIDE", "fusion")  # keep the test session's style as it is
    app = QApplication.instance()
    before = QPalette(app.palette())
    window_color = lambda: app.palette().color(QPalette.ColorRole.Window).name()  # noqa: E731
    try:
        app.setPalette(theme.light_palette())
        w = make_window(Settings().updated({"appearance.theme": "light"}), saved=Settings(),
                        secrets=SecretStore(keyring_backend=DictKeyring()))
        for choice, palette in (("dark", theme.dark_palette()), ("light", theme.light_palette())):
            w.open_settings()
            dialog = w.settings_dialog
            qtbot.waitUntil(lambda d=dialog: d.openai_page.keys.loaded, timeout=WAIT_MS)
            dialog.appearance_page.theme_buttons[choice].setChecked(True)
            with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
                dialog.save_button.click()
            assert window_color() == palette.color(QPalette.ColorRole.Window).name()
            assert w.settings.appearance.theme == choice
            qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=WAIT_MS)
    finally:
        app.setPalette(before)


def test_the_theme_variable_is_said_to_win(dialogs, monkeypatch):
    monkeypatch.setenv("DESKTOP_AGENT_THEME", "dark")
    note = dialogs().appearance_page.override_note
    assert not note.isHidden() and "dark" in note.text() and "<code>DESKTOP_AGENT_THEME</code>" in note.text()


@pytest.mark.parametrize("preset", [*OPENAI_PRESETS, "Custom"])
def test_choosing_a_preset_chooses_the_openai_provider(dialogs, qtbot, preset):
    dialog = dialogs(Settings(backend="ollama"))
    assert dialog.ollama_radio.isChecked()
    dialog.tabs.setCurrentIndex(1)
    combo = dialog.openai_page.preset
    combo.setCurrentText(preset)
    combo.activated.emit(combo.currentIndex())
    assert dialog.openai_radio.isChecked() and dialog.backend() == "openai"
    assert dialog.tabs.currentIndex() == 1
    assert dialog.generation_page.model_label.text() == "&Model (OpenAI-compatible):"
    if preset == "Custom":
        return
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog._save()
    assert (saved.args[0].backend, saved.args[0].openai.base_url) == ("openai", OPENAI_PRESETS[preset])


def test_no_text_shows_literal_backticks(dialogs, monkeypatch):
    """A name written in backticks in a label, hint or note is shown as code on every page."""
    from PySide6.QtWidgets import QLabel

    monkeypatch.setenv("DESKTOP_AGENT_THEME", "dark")  # the note that names the variable, shown
    dialog = dialogs()
    dialog.tools_page.timeout.setText("0")
    coded = 0
    for label in dialog.findChildren(QLabel):
        text = label.text()
        if label.textFormat() == Qt.TextFormat.RichText or "<code>" in text:
            assert label.textFormat() == Qt.TextFormat.RichText, text
            coded += "<code>" in text
        assert "`" not in text, text
    for widget in dialog.findChildren(QAbstractButton) + dialog.findChildren(QLineEdit):
        assert "`" not in widget.text() + widget.toolTip(), widget.text()
    assert coded >= 5  # format, think, @tool twice, DESKTOP_AGENT_THEME


def test_every_page_fits_at_the_minimum_size(dialogs, qtbot):
    """At the dialog's minimum size every page shows whole (no scroll bar, no wrapped text squeezed under
    the field below it) while no error is shown."""
    from PySide6.QtWidgets import QApplication, QLabel, QScrollArea

    dialog = dialogs(Settings().updated({"tools.dirs": ["/nonexistent/tools"]}))
    minimum = dialog.minimumSize()
    assert 480 <= minimum.width() <= 760 and 400 <= minimum.height() <= 680
    dialog.resize(minimum)
    for index in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(index)
        QApplication.processEvents()
        area = dialog.tabs.widget(index)
        assert isinstance(area, QScrollArea)
        assert area.verticalScrollBar().maximum() == 0 and area.horizontalScrollBar().maximum() == 0, index
        page = area.widget()
        for label in page.findChildren(QLabel):
            if label.isVisible() and label.wordWrap() and label.text():
                assert label.height() >= label.heightForWidth(label.width()), (index, label.text())


def test_running_tools_apart_from_the_app_can_be_turned_off_and_on(dialogs, qtbot):
    dialog = dialogs()
    page = dialog.tools_page
    assert page.isolated.isChecked()  # on by default
    page.isolated.setChecked(False)
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    assert saved.args[0].tools.isolated is False and Settings.load()[0].tools.isolated is False
    again = dialogs(Settings.load()[0]).tools_page
    assert not again.isolated.isChecked()


def test_test_connection_picks_a_listed_model_when_the_chosen_one_is_not_there(dialogs, qtbot, openai_server):
    """A new user tested the README's local server: the models were listed, but chats still went to
    gpt-4o-mini, which that server does not have. Now the first listed model is used (and the user is told)."""
    dialog = dialogs(Settings(backend="openai", openai_base_url=openai_server.url))
    dialog.openai_page.keys.new_key.setText(KEY)
    dialog.openai_page.keys.add_key()
    assert dialog.generation_page.model_of("openai") == "gpt-4o-mini"
    dialog.openai_page.test_connection()
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.openai_page.status), timeout=WAIT_MS)
    assert dialog.generation_page.model_of("openai") == "gpt-local"
    assert "“gpt-4o-mini” is not on this server: chats will use gpt-local" in _shown(dialog.openai_page.status)
    saved = dialog._validate()
    assert saved is not None and saved.openai.model == "gpt-local"


def test_test_connection_keeps_a_model_the_server_has(dialogs, qtbot, ollama_server):  # noqa: F811
    """``llama3.2`` is ``llama3.2:latest`` on an Ollama server: nothing is replaced."""
    dialog = dialogs(Settings(ollama_host=ollama_server.url, ollama_model="llama3.2"))
    dialog.ollama_page.test_connection()
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.ollama_page.status), timeout=WAIT_MS)
    assert dialog.generation_page.model_of("ollama") == "llama3.2"
    assert "not installed" not in _shown(dialog.ollama_page.status)


def test_test_connection_on_ollama_replaces_a_model_that_is_not_installed(dialogs, qtbot, ollama_server):  # noqa: F811
    dialog = dialogs(Settings(ollama_host=ollama_server.url, ollama_model="mistral"))
    dialog.ollama_page.test_connection()
    qtbot.waitUntil(lambda: "Connected" in _shown(dialog.ollama_page.status), timeout=WAIT_MS)
    assert dialog.generation_page.model_of("ollama") == "llama3.2:latest"
    assert "“mistral” is not installed: chats will use llama3.2:latest" in _shown(dialog.ollama_page.status)


def test_saving_the_settings_dialog_does_not_write_ollama_host_into_the_file(qtbot, make_window, monkeypatch):
    from desktop_agent.core import paths
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.services import load_settings
    from tests.helpers.keyrings import DictKeyring

    Settings().updated({"ollama.host": "http://saved-box:11434", "generation.temperature": 0.1}).save()
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    layered = load_settings()
    assert layered.effective.ollama.host == "http://gpu-box:11500"
    w = make_window(layered.effective, saved=layered.saved, store=False,
                    secrets=SecretStore(keyring_backend=DictKeyring()))
    w.open_settings()
    qtbot.waitUntil(lambda: w.settings_dialog is not None, timeout=3000)
    dlg = w.settings_dialog
    with qtbot.waitSignal(dlg.settings_saved, timeout=5000):
        dlg.save_button.click()  # saves nothing the user changed
    written = json.loads(paths.settings_file().read_text())
    # FAULT: the file now holds OLLAMA_HOST's http://gpu-box:11500; without the variable the saved host is gone
    assert written["ollama"]["host"] == "http://saved-box:11434", written["ollama"]["host"]


class GatedKeyring(DictKeyring):
    """Reads wait until ``gate`` is set: a keyring that is slow to answer (an unlock prompt)."""

    def __init__(self):
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()

    def get_password(self, service, username):
        self.gate.wait(10)
        return super().get_password(service, username)


def test_a_key_typed_while_the_keys_list_loads_is_kept(qtbot, dialogs):
    """Edit the base URL, then type the key: while the new URL's keys were read, the key field was
    disabled — the focus jumped to Timeout and the typed key was lost."""
    backend = GatedKeyring()
    dialog = dialogs(Settings(backend="openai", openai_base_url="https://a.example/v1"),
                     SecretStore(keyring_backend=backend))
    dialog.tabs.setCurrentIndex(1)
    backend.gate.clear()  # the keyring is slow to answer from now on
    dialog.openai_page.base_url.selectAll()
    qtbot.keyClicks(dialog.openai_page.base_url, "https://b.example/v1")
    qtbot.waitUntil(lambda: not dialog.openai_page.keys.loaded, timeout=5000)  # reading b's keys
    assert dialog.openai_page.keys.new_key.isEnabled()
    dialog.openai_page.keys.new_key.setFocus()
    qtbot.keyClicks(dialog.openai_page.keys.new_key, KEY)
    assert dialog.openai_page.keys.new_key.hasFocus() and dialog.openai_page.keys.new_key.text() == KEY
    qtbot.keyClick(dialog.openai_page.keys.new_key, Qt.Key.Key_Return)
    backend.gate.set()
    qtbot.waitUntil(lambda: dialog.openai_page.keys.api_keys() == [KEY], timeout=5000)
    assert dialog.openai_page.keys._keys_by_url[normalize_base_url("https://b.example/v1")] == [KEY]
    assert not dialog.openai_page.keys._keys_by_url.get(normalize_base_url("https://a.example/v1"))


def test_a_key_added_right_after_editing_the_url_belongs_to_the_new_url(qtbot, dialogs):
    """Enter in the key field before the (debounced) switch to the new URL's keys: the key went to the
    previous provider."""
    dialog = dialogs(Settings(backend="openai", openai_base_url="https://a.example/v1"),
                     SecretStore(keyring_backend=DictKeyring()))
    dialog.openai_page.base_url.selectAll()
    qtbot.keyClicks(dialog.openai_page.base_url, "https://b.example/v1")
    assert dialog.openai_page.keys._timer.isActive()
    dialog.openai_page.keys.new_key.setText(KEY)
    qtbot.keyClick(dialog.openai_page.keys.new_key, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.openai_page.keys.api_keys() == [KEY], timeout=5000)
    assert dialog.openai_page.keys._keys_url == normalize_base_url("https://b.example/v1")
    assert not dialog.openai_page.keys._keys_by_url.get(normalize_base_url("https://a.example/v1"))


def test_settings_show_the_ollama_host_in_use_when_OLLAMA_HOST_is_set(qtbot, make_window, ollama_server, monkeypatch):  # noqa: F811
    """Started with OLLAMA_HOST, chats worked but Settings showed the saved localhost:11434 and
    reported "Can't reach Ollama" as soon as it opened."""
    monkeypatch.setenv("OLLAMA_HOST", ollama_server.url)
    saved = Settings(ollama_host="http://localhost:11434")
    w = make_window(saved.updated({"ollama.host": ollama_server.url}), saved=saved)
    w.open_settings()
    dialog = w.settings_dialog
    assert dialog is not None
    try:
        assert dialog.ollama_page.host.text() == ollama_server.url
        assert dialog.ollama_page.host_note.isVisible() and "OLLAMA_HOST" in dialog.ollama_page.host_note.text()
    finally:
        dialog.shutdown()
        dialog.close()


def _luminance(c) -> float:
    def ch(v: int) -> float:
        v = v / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * ch(c.red()) + 0.7152 * ch(c.green()) + 0.0722 * ch(c.blue())


def _indicator_contrast(qtbot, widget_cls, style) -> float:
    """The best contrast between an unchecked indicator's pixels and the window, on the dark palette."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    from desktop_agent.ui import theme

    w = widget_cls("Option")
    qtbot.addWidget(w)
    w.setStyle(style)
    w.setPalette(theme.dark_palette())
    w.setAutoFillBackground(True)
    w.resize(160, 30)
    image = w.grab().toImage()
    opt = QStyleOptionButton()
    opt.initFrom(w)
    element = (QStyle.SubElement.SE_RadioButtonIndicator if "Radio" in widget_cls.__name__
               else QStyle.SubElement.SE_CheckBoxIndicator)
    rect = style.subElementRect(element, opt, w)
    window = _luminance(theme.dark_palette().color(theme.QPalette.ColorRole.Window))
    best = 1.0
    for x in range(rect.left(), rect.right() + 1):
        for y in range(rect.top(), rect.bottom() + 1):
            lum = _luminance(QColor(image.pixel(x, y)))
            hi, lo = max(lum, window), min(lum, window)
            best = max(best, (hi + 0.05) / (lo + 0.05))
    return best


def test_radio_buttons_and_check_boxes_are_visible_on_the_dark_palette(qtbot):
    """In the dark theme the Settings "Provider" radio buttons were near-black rings on a near-black
    window (Fusion outlines indicators with Window.darker()): an unchecked option could not be seen."""
    from PySide6.QtWidgets import QCheckBox, QRadioButton

    from desktop_agent.ui.contrast_style import ContrastStyle

    style = ContrastStyle("Fusion")
    for cls in (QRadioButton, QCheckBox):
        assert _indicator_contrast(qtbot, cls, style) >= 3.0, cls.__name__


# ---- Save writes what changed here, on top of the file as it is now (issue 21) -----------------------------


def test_save_with_nothing_changed_keeps_an_mcp_server_another_process_added(dialogs, qtbot):
    """The issue's repro in the dialog: opened from the saved settings, a server added to the file meanwhile
    (`desktop-agent mcp add` in a terminal), Save with nothing changed — the server stays, and the window is
    handed the settings with it."""
    import sys

    from desktop_agent.core.services import Services

    Services(environ={}).update_settings({"loop.max_steps": 4})
    dialog = dialogs(Settings.load()[0])
    server = {"name": "clock", "command": sys.executable, "args": ["-c", "pass"]}
    Services(environ={}).update_settings({"mcp.servers": [server]})
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS) as saved:
        dialog.save_button.click()
    assert [s.name for s in Settings.load()[0].mcp.servers] == ["clock"]
    assert [s.name for s in saved.args[0].mcp.servers] == ["clock"]
    assert Settings.load()[0].loop.max_steps == 4


def test_save_writes_the_change_made_here_and_keeps_the_others(dialogs, qtbot):
    from desktop_agent.core.services import Services

    Services(environ={}).update_settings({"loop.max_steps": 4})
    dialog = dialogs(Settings.load()[0])
    Services(environ={}).update_settings({"generation.temperature": 0.3})  # another process, meanwhile
    dialog.appearance_page.theme_buttons["dark"].setChecked(True)
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
        dialog.save_button.click()
    on_file = Settings.load()[0]
    assert on_file.appearance.theme == "dark" and on_file.generation.temperature == 0.3
    assert on_file.loop.max_steps == 4


def test_the_notes_about_the_environment_come_from_the_snapshot_given(dialogs, monkeypatch):
    from desktop_agent.core.services import AppEnv

    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.delenv("DESKTOP_AGENT_THEME", raising=False)
    dialog = dialogs(env=AppEnv(ollama_host=":11500", theme="dark"))
    assert "http://127.0.0.1:11500" in dialog.ollama_page.host_note.text()
    assert "dark" in dialog.appearance_page.override_note.text()
    assert not dialog.appearance_page.override_note.isHidden()
