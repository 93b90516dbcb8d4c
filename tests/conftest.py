"""Test-wide set-up: Qt offscreen, and every user folder of the app in a temporary directory."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

pytest_plugins = ["tests.servers.ollama", "tests.servers.openai", "tests.keyrings"]


@pytest.fixture(autouse=True)
def _user_dirs(tmp_path, monkeypatch):
    """platformdirs reads XDG_* on every call: point them (and our override) at tmp_path."""
    from desktop_agent.core import paths

    home = tmp_path / "home"
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_STATE_HOME", "state"),
    ):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.delenv("DESKTOP_AGENT_HOME", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    paths.set_home(None)
    yield home
    paths.set_home(None)


@pytest.fixture(autouse=True)
def _fresh_capabilities():
    """What an agent learned about a server and model (no streaming, no tools) lives for the process:
    every test starts without it."""
    from desktop_agent.core.capabilities import LEARNED

    LEARNED.clear()
    yield
    LEARNED.clear()
