"""Banners go away when their cause does: the Settings dialog's "no API key" warning is shown only while a
key is needed and none is set — adding a key, unticking "needs a key" or pointing at a local server clears it,
and it comes back when its cause does."""

from __future__ import annotations

import pytest

from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from desktop_agent.ui.settings.dialog import SettingsDialog
from tests.helpers.keyrings import DictKeyring

pytestmark = pytest.mark.usefixtures("clean_keyring_state")


@pytest.fixture
def dialog(qtbot, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    d = SettingsDialog(Settings(backend="openai"), SecretStore(keyring_backend=DictKeyring()), auto_refresh=False)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitUntil(lambda: d.openai_page.keys.loaded, timeout=10_000)
    d._validate()
    yield d
    d.shutdown()
    d.close()


def _warning(d: SettingsDialog) -> str:
    return d.status_label.text() if d.status_label.isVisible() else ""


def test_the_missing_key_warning_goes_when_a_key_is_added_and_comes_back_when_removed(dialog, qtbot):
    assert "No API key" in _warning(dialog)
    keys = dialog.openai_page.keys
    keys.new_key.setText("sk-banner-test-0123456789abcdef")
    keys.add_button.click()
    qtbot.waitUntil(lambda: "No API key" not in _warning(dialog), timeout=5000)
    keys.list.setCurrentRow(0)
    keys.remove_button.click()
    qtbot.waitUntil(lambda: "No API key" in _warning(dialog), timeout=5000)


def test_the_missing_key_warning_goes_when_no_key_is_needed(dialog, qtbot):
    assert "No API key" in _warning(dialog)
    dialog.openai_page.needs_key.setChecked(False)
    qtbot.waitUntil(lambda: "No API key" not in _warning(dialog), timeout=5000)
    dialog.openai_page.needs_key.setChecked(True)
    qtbot.waitUntil(lambda: "No API key" in _warning(dialog), timeout=5000)


def test_a_local_server_gets_no_missing_key_warning(dialog, qtbot):
    """A loopback base URL is used without a key when none is set (the assembly does so), so Settings does not
    warn about it."""
    dialog.openai_page.base_url.setText("http://127.0.0.1:8080/v1")
    dialog.openai_page.needs_key.setChecked(True)
    qtbot.waitUntil(lambda: "No API key" not in _warning(dialog), timeout=5000)
    dialog.openai_page.base_url.setText("https://api.example.com/v1")
    qtbot.waitUntil(lambda: "No API key" in _warning(dialog), timeout=5000)
