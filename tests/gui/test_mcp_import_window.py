"""Settings → MCP → Import from another app…: a VS Code mcp.json whose server takes an ``${input:…}`` opens a small
form for it (hidden, as a password); what is typed goes to the keyring on Save, never to the settings file; an
entry that cannot be mapped is listed with why. Real dialog (offscreen), a keyring backend in memory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialogButtonBox, QLineEdit

from desktop_agent.core.secrets import SERVICE, SecretStore
from desktop_agent.core.settings import Settings
from desktop_agent.ui.settings.dialog import MCP_TAB, SettingsDialog
from tests.helpers.keyrings import DictKeyring

pytestmark = pytest.mark.usefixtures("clean_keyring_state")
TOKEN = "wk-typed-in-the-form-42"
VSCODE = """{
  // VS Code
  "inputs": [{"type": "promptString", "id": "weather-key", "description": "Weather API key", "password": true}],
  "servers": {
    "weather": {"type": "stdio", "command": "uvx", "args": ["weather-mcp"],
                "env": {"WEATHER_KEY": "${input:weather-key}"}},
    "here": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/x.js"]},
  },
}"""


@pytest.fixture
def keyring_backend() -> DictKeyring:
    return DictKeyring()


@pytest.fixture
def dialog(qtbot, keyring_backend, tmp_path):
    made = SettingsDialog(Settings(), SecretStore(keyring_backend=keyring_backend), auto_refresh=False,
                          settings_path=tmp_path / "settings.json")
    qtbot.addWidget(made)
    made.show()
    made.tabs.setCurrentIndex(MCP_TAB)
    yield made
    made.shutdown()
    made.close()


def _import(qtbot, dialog, tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text(VSCODE, encoding="utf-8")
    page = dialog.mcp_page
    page.import_config(str(config))
    qtbot.waitUntil(lambda: page.inputs_dialog is not None and page.inputs_dialog.isVisible(), timeout=10_000)
    return page, page.inputs_dialog


def test_an_input_is_asked_in_a_form_and_kept_in_the_keyring_on_save(qtbot, dialog, tmp_path, keyring_backend):
    page, form = _import(qtbot, dialog, tmp_path)
    field = form.fields["weather-key"]
    assert field.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(field, TOKEN)
    form.grab().save(str(Path(os.environ.get("SCREENSHOT_DIR", "/tmp")) / "mcp-import-inputs.png"))
    form.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: "Press Save" in page.import_note.text(), timeout=10_000)
    note = page.import_note.text()
    assert "From mcp.json (VS Code):" in note and "Added weather." in note
    assert "The environment variable WEATHER_KEY of weather goes to the system keyring when you press Save" in note
    assert "Skipped here: it uses ${workspaceFolder}" in note
    dialog.grab().save(str(Path(os.environ.get("SCREENSHOT_DIR", "/tmp")) / "mcp-import-vscode.png"))
    assert not keyring_backend.data  # nothing kept before Save
    dialog.save_button.click()
    qtbot.waitUntil(lambda: dialog.saved_settings is not None, timeout=10_000)
    assert keyring_backend.data[(SERVICE, "secret:mcp:weather:env:WEATHER_KEY")] == TOKEN
    text = (tmp_path / "settings.json").read_text(encoding="utf-8")
    assert TOKEN not in text and "${input:" not in text


def test_cancelling_the_form_imports_the_server_with_its_value_unset(qtbot, dialog, tmp_path, keyring_backend):
    page, form = _import(qtbot, dialog, tmp_path)
    form.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: "Press Save" in page.import_note.text(), timeout=10_000)
    assert ("The environment variable WEATHER_KEY of weather is not set: 'weather-key' (Weather API key) was not "
            "given; set it in Settings → MCP.") in page.import_note.text()
    assert [s.name for s in page.servers()] == ["weather"]
    dialog.save_button.click()
    qtbot.waitUntil(lambda: dialog.saved_settings is not None, timeout=10_000)
    assert not keyring_backend.data
    assert "${input:" not in (tmp_path / "settings.json").read_text(encoding="utf-8")
