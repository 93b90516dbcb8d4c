"""``history show`` on a terminal prints a saved tool result's or answer's control characters as escapes: a
result holding ``ESC[2J`` (clear screen) or ``ESC]0;…`` (window title) must not act on the user's terminal.
Piped to a file, the text is written as saved."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.store import ConversationStore
from tests.helpers.cli import run_cli

NASTY = "listing done\x1b[2J\x1b]0;pwned\x07 end"


def _chat(home) -> str:
    store = ConversationStore(home / "data" / "conversations.sqlite3")
    try:
        chat = Conversation(title="Codes")
        store.add_message(chat, Message(role="user", content="list it"))
        call = ToolCall(id="c1", name="run_shell_command", arguments={"command": "ls"})
        store.add_message(chat, Message(role="assistant", content="", tool_calls=[call]))
        store.add_message(chat, Message(role="tool", content=NASTY, tool_call_id="c1", name="run_shell_command"))
        store.add_message(chat, Message(role="assistant", content="Here\x1b[31m red"))
        return chat.id
    finally:
        store.close()


def _run_on_terminal(home, *args: str) -> str:
    """Run the CLI with stdout on a pseudo-terminal; everything it printed there."""
    leader, follower = pty.openpty()
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", *args], stdout=follower,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks: list[bytes] = []
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 60)
            if not ready:
                break
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    finally:
        proc.wait(60)
        os.close(leader)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    return b"".join(chunks).decode("utf-8", "replace")


def test_history_show_on_a_terminal_escapes_control_characters(tmp_path):
    home = tmp_path / "home"
    cid = _chat(home)
    shown = _run_on_terminal(home, "history", "show", cid[:8])
    assert "\x1b" not in shown and "\x07" not in shown
    assert "listing done\\x1b[2J\\x1b]0;pwned\\x07 end" in shown
    assert "Here\\x1b[31m red" in shown


def test_history_show_into_a_pipe_writes_the_text_as_saved(tmp_path):
    home = tmp_path / "home"
    cid = _chat(home)
    out = run_cli(home, "history", "show", cid[:8])
    assert out.returncode == 0, out.stderr
    assert "Here\x1b[31m red" in out.stdout
