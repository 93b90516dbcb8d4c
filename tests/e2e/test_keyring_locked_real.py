"""A key saved in a REAL, then locked, Secret Service (gnome-keyring on a private D-Bus session; issue 13): the
terminal chat says "the keyring is locked — unlock it", never "no API key is set"; once it is unlocked the same
command answers with the saved key.

Run with ``scripts/with-keyring.sh /work/venv/bin/python -m pytest -m keyring tests/e2e/test_keyring_locked_real.py``.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid

import pytest

from tests.e2e.test_keyring_real import ROOT, _unlock, real_keyring  # noqa: F401 (fixture)
from tests.servers.openai import OpenAIServer

pytestmark = pytest.mark.keyring


def _chat(home, base_url: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON_KEYRING_BACKEND", "OPENAI_API_KEY")}
    env["DESKTOP_AGENT_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "desktop_agent", "chat", "--backend", "openai", "--base-url", base_url, "--model", "m",
         "--no-tools", "-p", "hi"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_key_in_a_locked_real_keyring_says_unlock_it_then_works(real_keyring, tmp_path):  # noqa: F811
    import keyring
    import secretstorage

    from desktop_agent.core.secrets import SERVICE, SYSTEM_KEYRING, SecretStore

    if not os.environ.get("DESKTOP_AGENT_TEST_KEYRING_PASSWORD"):
        pytest.skip("locks the login keyring: only on with-keyring.sh's throw-away keyring, never on yours")
    key = "sk-locked-" + uuid.uuid4().hex
    server = OpenAIServer(required_keys=[key]).start()
    try:
        assert SecretStore(server.url).set_api_keys([key]) == SYSTEM_KEYRING
        bus = secretstorage.dbus_init()
        collection = secretstorage.get_default_collection(bus)
        collection.lock()
        try:
            assert collection.is_locked()
            locked = _chat(tmp_path / "home", server.url)
        finally:
            _unlock(bus, collection)
        assert locked.returncode == 1, locked.stderr
        (line,) = locked.stderr.strip().splitlines()
        assert "The keyring is locked — unlock it" in line and server.url in line, line
        assert "No API key is set" not in line and key not in line

        unlocked = _chat(tmp_path / "home", server.url)
        assert unlocked.returncode == 0, unlocked.stderr
        assert unlocked.stdout.strip() == "You said: hi"
        assert server.chat_requests[-1].headers["authorization"] == f"Bearer {key}"
    finally:
        server.stop()
        with contextlib.suppress(Exception):
            keyring.delete_password(SERVICE, f"api-keys:{server.url}")
