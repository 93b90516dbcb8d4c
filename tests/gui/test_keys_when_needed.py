"""The system keyring is read when a key is first needed: the start-up listing of an OpenAI-compatible server on
this machine asks it without a key (a local server takes none; the keyring stack is ≈ 17 MB), and asks again
with the stored keys when the server wants one; the first turn reads them. A server elsewhere is asked with
its keys at once, so a missing key is told at start."""

from __future__ import annotations

import json

import pytest

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.secrets import SERVICE, SecretStore, normalize_base_url
from desktop_agent.core.settings import Settings
from tests.helpers.gui import wait_idle
from tests.helpers.keyrings import DictKeyring
from tests.servers.openai import OpenAIServer

GOOD = "sk-good-0123456789abcdef"


def _keyring_holding(url: str, keys: list[str]) -> DictKeyring:
    """A keyring that already holds ``keys`` for ``url`` (as a previous session saved them)."""
    keyring = DictKeyring()
    keyring.data[(SERVICE, f"api-keys:{normalize_base_url(url)}")] = json.dumps(keys)
    return keyring


@pytest.fixture
def server():
    s = OpenAIServer(models=["local-model"]).start()
    yield s
    s.stop()


@pytest.fixture
def keyed_server():
    s = OpenAIServer(models=["local-model"], required_keys=[GOOD]).start()
    yield s
    s.stop()


def _settings(url: str) -> Settings:
    return Settings(backend="openai", openai_base_url=url, openai_model="local-model", tools_enabled=False,
                    openai_retries_per_key=0)


def test_a_local_server_is_listed_without_reading_the_keyring(make_window, qtbot, server):
    keyring = DictKeyring()
    secrets = SecretStore(keyring_backend=keyring)
    w = make_window(_settings(server.url), secrets=secrets, check_server=True)
    qtbot.waitUntil(lambda: w.server_label.ok is True, timeout=10_000)
    assert "local-model" in [w.model_combo.itemText(i) for i in range(w.model_combo.count())]
    assert not secrets.keyring_read and keyring.calls == []
    w.send("hello")
    qtbot.waitUntil(lambda: len(w.conversation.messages) >= 2, timeout=10_000)
    wait_idle(qtbot, w)
    assert secrets.keyring_read  # the first request needed the keys


def test_a_local_server_that_wants_a_key_is_asked_again_with_the_stored_one(make_window, qtbot, keyed_server):
    keyring = _keyring_holding(keyed_server.url, [GOOD])
    secrets = SecretStore(keyring_backend=keyring)
    w = make_window(_settings(keyed_server.url), secrets=secrets, check_server=True)
    qtbot.waitUntil(lambda: w.server_label.ok is True, timeout=10_000)
    listings = [r for r in keyed_server.all_requests if r.path.endswith("/models")]
    assert [r.headers.get("authorization") == f"Bearer {GOOD}" for r in listings] == [False, True]
    assert secrets.keyring_read


def test_a_server_elsewhere_is_asked_with_its_keys_at_once():
    """Not on this machine: the stored keys (or none: "No API key" at start), the keyring read for them."""
    secrets = SecretStore(keyring_backend=DictKeyring())
    assembly = Assembly(secrets=secrets)
    assert assembly.probe_keys_first(_settings("https://api.openai.com/v1")) is None
    assert assembly.probe_keys_first(_settings("http://127.0.0.1:8080/v1")) == ()
    assert assembly.probe_keys_first(Settings(backend="ollama")) is None
    secrets.get_api_keys("http://127.0.0.1:8080/v1")  # read once: from then on the stored keys
    assert assembly.probe_keys_first(_settings("http://127.0.0.1:8080/v1")) is None
