"""A key saved in a locked keyring (issue 13): the store knows the keyring is locked (not absent), the backend says
"the keyring is locked — unlock it" (never "no API key is set"), and the next turn asks the keyring again, so that
unlocking it and pressing Retry works."""

from __future__ import annotations

from typing import cast

import pytest
from keyring.errors import NoKeyringError

from desktop_agent.core import errors
from desktop_agent.core.assembly import Assembly, api_keys, backend_spec
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.messages import Message
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from tests.helpers.keyrings import LockedKeyring, RaisingKeyring

pytestmark = pytest.mark.usefixtures("clean_keyring_state")
URL = "https://api.example.invalid/v1"


def test_a_locked_keyring_is_remembered_as_locked_not_absent():
    store = SecretStore(URL, keyring_backend=LockedKeyring())
    assert store.get_api_keys() == []
    assert store.locked and "locked" in (store.problem or "")
    none = SecretStore(URL, keyring_backend=RaisingKeyring(NoKeyringError("no backend")))
    assert none.get_api_keys() == [] and not none.locked


def test_a_dismissed_unlock_prompt_counts_as_locked():
    store = SecretStore(URL, keyring_backend=RaisingKeyring(RuntimeError("Prompt dismissed.")))
    assert store.get_api_keys() == [] and store.locked


def test_the_backend_says_unlock_it_before_any_request():
    settings = Settings(backend="openai", openai_base_url=URL)
    keys = api_keys(settings, SecretStore(keyring_backend=LockedKeyring()))
    assert keys.keys == () and keys.locked
    assert backend_spec(settings, keys).option("keyring_locked") is True
    backend = OpenAIBackend(URL, "m", [], keyring_locked=True)
    with pytest.raises(errors.KeyringLocked) as info:
        list(backend.stream_chat([Message(role="user", content="hi")]))
    text = str(info.value)
    assert "The keyring is locked — unlock it" in text and URL in text and "No API key is set" not in text
    assert "OPENAI_API_KEY" in info.value.for_terminal()


def test_an_environment_key_is_used_even_while_the_keyring_is_locked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    keys = api_keys(Settings(backend="openai", openai_base_url=URL), SecretStore(keyring_backend=LockedKeyring()))
    assert keys.keys == ("sk-from-env",) and not keys.locked


class _Unlockable(LockedKeyring):
    """Locked until ``locked`` is set False; then it holds one saved key for every provider."""

    locked = True

    def get_password(self, service, username):
        if self.locked:
            return super().get_password(service, username)
        self.calls.append("get")
        return '["sk-saved"]'


def test_the_next_turn_asks_the_keyring_again_after_it_was_unlocked():
    """Unlock, then Retry: the assembly's turn backend re-reads a keyring that was locked (other look-ups don't, so
    the window's status checks never pop up unlock prompts one after another)."""
    backend = _Unlockable()
    store = SecretStore(keyring_backend=backend)
    settings = Settings(backend="openai", openai_base_url=URL)
    assembly = Assembly(secrets=store)
    try:
        first = cast(OpenAIBackend, assembly.backend(settings))
        assert first.keyring_locked is True
        gets = backend.calls.count("get")
        api_keys(settings, store)  # a probe: the keyring is not asked again
        assert backend.calls.count("get") == gets
        backend.locked = False  # the user unlocks it
        second = cast(OpenAIBackend, assembly.backend(settings))
        assert second is not first and second.keyring_locked is False
        assert second.pool.keys == ("sk-saved",)
    finally:
        assembly.close()

