"""Secrets under abuse: a keyring that fails on read only, odd key text, an empty OPENAI_API_KEY,
deleting keys when the keyring is gone. Shared case 34-keyring-no-backend-headless.json."""

import pytest
from keyring.errors import KeyringLocked, NoKeyringError

from desktop_agent.core.backends.keypool import scrub
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.errors import AgentError
from desktop_agent.core.messages import Message
from desktop_agent.core.secrets import SESSION_ONLY, SecretStore, api_key_problem
from tests.helpers.keyrings import DictKeyring, _not_detectable

BASE = "http://127.0.0.1:9/v1"


class GetFailsKeyring(DictKeyring):
    """Stores keys, but reading them back raises (a collection locked again right after a write)."""

    def get_password(self, service, username):
        raise KeyringLocked("Failed to unlock the item!")


class GoneKeyring(DictKeyring):
    def get_password(self, service, username):
        raise NoKeyringError("gone")

    set_password = delete_password = get_password


_not_detectable(GetFailsKeyring, GoneKeyring)


pytestmark = pytest.mark.usefixtures("clean_keyring_state")


def test_keyring_that_raises_on_get_but_not_on_set_keeps_the_key_for_the_session():
    """Saving reported "this session only" but kept the key nowhere: get_api_keys() gave [] at once,
    so the key the user just typed was lost."""
    backend = GetFailsKeyring()
    store = SecretStore(BASE, keyring_backend=backend)
    where = store.set_api_keys(["sk-abc-0123456789"])
    assert where == SESSION_ONLY
    assert store.get_api_keys() == ["sk-abc-0123456789"]
    assert "locked" in (store.problem or "")
    assert SecretStore(BASE, keyring_backend=GetFailsKeyring()).get_api_keys() == ["sk-abc-0123456789"]


@pytest.mark.parametrize(
    "key, ok",
    [("sk-plain_0123456789", True), ("  sk-padded-0123456789 \n", True), ("sk-a\nsk-b", False),
     ("sk a b", False), ("sk-\u00e9t\u00e9", False), ("sk-\u2013dash", False), ("sk-\x00nul", False),
     ("sk-\u200bzero", False), ("", False)],
)
def test_api_key_problem(key, ok):
    problem = api_key_problem(key)
    assert (problem is None) == ok
    if problem:
        assert key.strip() not in problem or not key.strip()


def test_a_key_with_a_line_break_never_appears_in_the_error(openai_server):
    """httpx's "Illegal header value b'Bearer sk-a\\nsk-b'" carried the key (escaped) into the message
    the user sees and the log: scrub() only masked the literal key."""
    key = "sk-first-0123456789\nsk-second-9876543210"
    backend = OpenAIBackend(openai_server.url, "m", [key], retries_per_key=0, timeout_s=5)
    try:
        with pytest.raises(AgentError) as info:
            list(backend.stream_chat([Message(role="user", content="hi")]))
    finally:
        backend.close()
    text = str(info.value)
    assert "0123456789" not in text and "9876543210" not in text


def test_scrub_masks_escaped_forms():
    key = "sk-\u00e9-0123456789\nabc"
    for form in (key, key.encode("unicode_escape").decode(), repr(key.encode())[2:-1]):
        assert "0123456789" not in scrub(f"x {form} y", [key])


@pytest.mark.parametrize("value", ["", "   ", "\n"])
def test_empty_openai_api_key_is_no_key(monkeypatch, value):
    monkeypatch.setenv("OPENAI_API_KEY", value)
    store = SecretStore(BASE, keyring_backend=GoneKeyring())
    assert store.get_api_keys() == []
    assert store.environment_key() is None
    assert store.where() == SESSION_ONLY


def test_deleting_keys_when_the_keyring_is_gone_never_raises():
    store = SecretStore(BASE, keyring_backend=GoneKeyring())
    assert store.set_api_keys(["sk-session-0123456789"]) == SESSION_ONLY
    assert store.delete_api_keys() == SESSION_ONLY
    assert store.get_api_keys() == []
    assert store.problem
