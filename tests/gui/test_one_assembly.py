"""The window builds its backend through the one assembly, keyed by everything that built it: a fixed API
key and a changed answer timeout are used by the very next turn (before, the runner kept the backend built
with the old values)."""

from __future__ import annotations

import pytest

from desktop_agent.core.errors import AuthenticationFailed, ServerTimedOut
from desktop_agent.core.events import AnswerFinished, TurnFailed
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from desktop_agent.ui.agent_runner import TurnEnded
from tests.helpers.gui import wait_idle
from tests.helpers.keyrings import DictKeyring
from tests.servers.ollama import OllamaServer
from tests.servers.openai import OpenAIServer

GOOD, BAD = "sk-good-0123456789abcdef", "sk-bad-0123456789abcdef"


def _turn_outcomes(window) -> list[object]:
    events: list[object] = []
    window.runner.turn_event.connect(
        lambda ev: events.append(ev) if isinstance(ev, AnswerFinished | TurnFailed) else None)
    return events


@pytest.fixture
def openai_server():
    server = OpenAIServer(models=["m"], required_keys=[GOOD]).start()
    yield server
    server.stop()


def test_a_fixed_key_is_used_by_retry(make_window, qtbot, openai_server):
    secrets = SecretStore(keyring_backend=DictKeyring())
    secrets.set_api_keys([BAD], openai_server.url)
    settings = Settings(backend="openai", openai_base_url=openai_server.url, openai_model="m",
                        openai_retries_per_key=0, tools_enabled=False)
    w = make_window(settings, saved=settings, secrets=secrets)
    outcomes = _turn_outcomes(w)

    w.send("hello")
    wait_idle(qtbot, w)
    assert isinstance(outcomes[-1], TurnFailed) and isinstance(outcomes[-1].error, AuthenticationFailed)

    secrets.set_api_keys([GOOD], openai_server.url)  # what Settings → OpenAI-compatible → Save does
    w.apply_settings(settings)
    wait_idle(qtbot, w)
    with qtbot.waitSignal(w.runner.turn_event, check_params_cb=lambda ev: isinstance(ev, TurnEnded), timeout=10_000):
        w.retry()
    assert isinstance(outcomes[-1], AnswerFinished), outcomes[-1]
    assert openai_server.requests[-1].headers["authorization"] == f"Bearer {GOOD}"


def test_a_changed_ollama_timeout_is_used_by_the_next_turn(make_window, qtbot):
    server = OllamaServer(models=["llama3.2"]).start()
    try:
        settings = Settings(ollama_host=server.url, tools_enabled=False, ollama_timeout_s=30)
        w = make_window(settings, saved=settings)
        outcomes = _turn_outcomes(w)
        w.send("first")
        wait_idle(qtbot, w)
        assert isinstance(outcomes[-1], AnswerFinished)

        server.first_chunk_delay_s = 3.0  # the server now takes 3 s to answer
        w.apply_settings(settings.updated({"ollama.timeout_s": 0.5}))
        wait_idle(qtbot, w)
        w.send("second")
        wait_idle(qtbot, w, timeout=15_000)
        assert isinstance(outcomes[-1], TurnFailed) and isinstance(outcomes[-1].error, ServerTimedOut)
        assert "0.5 s" in str(outcomes[-1].error)
    finally:
        server.stop()
