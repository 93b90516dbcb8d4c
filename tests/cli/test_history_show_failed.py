"""The terminal's history says what the window says: a chat whose last turn failed shows that failure in
``history show``; ``history search ""`` is a usage error, not a search for nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.store import ConversationStore
from tests.helpers.cli import run_cli


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "app-home"


def _chat_with_failed_turn(home) -> str:
    store = ConversationStore(home / "data" / "conversations.sqlite3")
    try:
        chat = Conversation(title="Weather")
        store.add_message(chat, Message(role="user", content="How warm is it in Oslo?"))
        store.set_failure(chat.id, "BackendError", "Can't reach the Ollama server.")
        return chat.id
    finally:
        store.close()


def test_history_show_marks_a_failed_last_turn(home):
    cid = _chat_with_failed_turn(home)
    out = run_cli(home, "history", "show", cid[:8])
    assert out.returncode == 0, out.stderr
    assert "How warm is it in Oslo?" in out.stdout
    assert "The last turn failed" in out.stdout and "Can't reach the Ollama server." in out.stdout
    assert f"desktop-agent chat --chat {cid[:8]}" in out.stdout


def test_history_show_of_a_chat_that_answered_has_no_failure_line(home):
    cid = _chat_with_failed_turn(home)
    store = ConversationStore(home / "data" / "conversations.sqlite3")
    try:
        store.clear_failure(cid)
    finally:
        store.close()
    out = run_cli(home, "history", "show", cid[:8])
    assert out.returncode == 0 and "failed" not in out.stdout


def test_an_empty_search_is_a_usage_error(home):
    for words in ([""], ["  "]):
        out = run_cli(home, "history", "search", *words)
        assert out.returncode == 2
        assert "give the words to search for" in out.stderr
        assert out.stdout == ""
