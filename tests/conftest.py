"""Test-wide set-up: Qt offscreen, and every user folder of the app in a temporary directory."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

pytest_plugins = ["tests.servers.ollama", "tests.servers.openai", "tests.helpers.keyrings", "tests.helpers.logfail"]


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
    monkeypatch.delenv("DESKTOP_AGENT_ALLOWED_FOLDERS", raising=False)
    paths.set_home(None)
    yield home
    paths.set_home(None)


@pytest.fixture(autouse=True)
def _fresh_state():
    """What the process learned or was told for the session (capabilities, windows, token calibration,
    session-only keys …; see :mod:`desktop_agent.core.state`) lives for the process: every test starts
    without it, and leaves none behind."""
    from desktop_agent.core import state

    state.reset()
    yield
    state.reset()


@pytest.fixture
def make_window(qtbot):
    """``make_window(settings=None, **kwargs) -> MainWindow`` shown offscreen; all closed afterwards.

    Windows are held here and closed at the end (``qtbot.addWidget`` keeps only a weak reference, and a
    window owning a running QThread must be closed — cancel + wait — before it is destroyed)."""
    from desktop_agent.core.settings import Settings
    from desktop_agent.ui.main_window import MainWindow

    windows = []

    def make(settings: Settings | None = None, size: tuple[int, int] | None = (1100, 760), **kwargs):
        kwargs.setdefault("check_server", False)
        w = MainWindow(settings or Settings(), **kwargs)
        windows.append(w)
        if size:
            w.resize(*size)
        w.show()
        qtbot.waitExposed(w)
        qtbot.waitUntil(lambda: w.ready, timeout=5000)  # the deferred start-up work ran
        return w

    yield make
    for w in windows:
        w.close()
        assert not w.runner.busy or w.runner._closed
    for w in windows:
        w.deleteLater()


@pytest.fixture
def ollama_settings(ollama_server):
    """Settings for the local Ollama protocol server (shipped tools on, no retries)."""
    from desktop_agent.core.settings import Settings

    return Settings(backend="ollama", ollama_host=ollama_server.url, ollama_model="llama3.2")
