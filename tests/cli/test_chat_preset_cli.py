"""`desktop-agent chat --preset NAME` as a user runs it (a real subprocess against the local Ollama protocol server):
the preset's system prompt, temperature and tools reach the server and stay with the saved chat, which `--chat`
continues with them; one of the user's own presets works the same; an unknown name is a usage error listing the
presets."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.core import presets
from tests.helpers.cli import run_cli, saved_chats, write_settings


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "app-home"


def _system(body: dict) -> str:
    return body["messages"][0]["content"] if body["messages"][0]["role"] == "system" else ""


def test_a_shipped_preset_is_what_the_server_is_told_and_the_chat_keeps_it(ollama_server, home):
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--preset", "writer", "-p", "Polish: me and him goes")
    assert proc.returncode == 0, proc.stderr
    body = ollama_server.chat_requests[-1]
    writer = presets.shipped("writer")
    assert writer is not None and _system(body) == writer.system_prompt
    assert body["options"]["temperature"] == 0.8 and "tools" not in body  # the Writer has tools off
    (chat,) = saved_chats(home)
    assert chat.options["loop.system_prompt"] == writer.system_prompt
    # continued later: the chat's own prompt again, and a flag given wins over it
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--chat", chat.id[:8], "--temperature", "0.1",
                   "-p", "Shorter, please")
    assert proc.returncode == 0, proc.stderr
    body = ollama_server.chat_requests[-1]
    assert _system(body) == writer.system_prompt and body["options"]["temperature"] == 0.1


def test_a_preset_of_the_users_own_with_its_model(ollama_server, home):
    write_settings(home, version=2, presets={"items": [
        {"id": "pirate", "name": "Pirate Talk", "system_prompt": "Answer like a pirate.", "model": "qwen3:8b"}]})
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--preset", "  pirate talk ", "-p", "hello")
    assert proc.returncode == 0, proc.stderr
    body = ollama_server.chat_requests[-1]
    assert body["model"] == "qwen3:8b" and _system(body).startswith("Answer like a pirate.")


def test_an_unknown_preset_is_a_usage_error_naming_the_presets(ollama_server, home):
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--preset", "Poet", "-p", "hello")
    assert proc.returncode == 2
    assert "there is no preset named 'Poet'. Presets: Coder, Writer, Researcher" in proc.stderr
    assert "Traceback" not in proc.stderr and ollama_server.chat_requests == []
    proc = run_cli(home, "chat", "--host", ollama_server.url, "--preset", "Coder", "--chat", "abc", "-p", "hi")
    assert proc.returncode == 2 and "--preset starts a new chat" in proc.stderr
