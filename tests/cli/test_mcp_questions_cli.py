"""An MCP server's question in the terminal, as a user runs it (real subprocesses: the app, the SDK server of
tests/mcp_servers/asking.py speaking MCP 2026-07-28, and the npm reference server speaking 2025-11-25, against the
local Ollama-protocol server): on a terminal (a real pty) the form is asked line by line and the answer reaches
the server; a run nobody can answer (``chat -p`` without a terminal) declines and the model hears it; ``mcp list``
says which version each server speaks."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.cli import run_cli, write_settings
from tests.helpers.replies import tool_call_lines
from tests.mcp_servers.everything import everything_command
from tests.mcp_servers.sdk import sdk_http

ROOT = Path(__file__).resolve().parents[2]
ASKING = {"name": "asking", "command": sys.executable, "args": ["-m", "tests.mcp_servers.asking"], "cwd": str(ROOT)}


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "app-home"


def _chat(server, *extra: str) -> list[str]:
    return ["chat", "--host", server.url, *extra]


def drive(home: Path, args: list[str], steps: list[tuple[bytes, str]], timeout: float = 120) -> tuple[int, str]:
    """Run the CLI with a pty as stdin; for each step wait until ``pattern`` shows on stderr (once more than
    before), then type ``text``. Returns (exit code, stderr)."""
    master, slave = pty.openpty()
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("OLLAMA_HOST", None)
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", *args], stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    os.close(slave)
    err = b""
    seen: dict[bytes, int] = {}
    deadline = time.monotonic() + timeout
    assert proc.stderr is not None
    try:
        for pattern, text in steps:
            seen[pattern] = seen.get(pattern, 0) + 1
            while err.count(pattern) < seen[pattern] and time.monotonic() < deadline:
                ready, _, _ = select.select([proc.stderr], [], [], 0.5)
                if ready:
                    chunk = os.read(proc.stderr.fileno(), 4096)
                    if not chunk:
                        break
                    err += chunk
            assert err.count(pattern) >= seen[pattern], f"never asked {pattern!r}:\n{err.decode(errors='replace')}"
            os.write(master, text.encode() + b"\n")
        _out, rest = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        proc.kill()
        os.close(master)
    return proc.returncode, (err + rest).decode(errors="replace")


def _tool_message(server) -> str:
    return next(m["content"] for m in reversed(server.chat_requests[-1]["messages"]) if m["role"] == "tool")


@pytest.fixture(params=["stdio", "http"])
def asking(request):
    """The SDK server's settings entry: over stdio, or Streamable HTTP (its own process on 127.0.0.1)."""
    if request.param == "stdio":
        yield ASKING
    else:
        with sdk_http("asking", "asking") as server:
            yield {"name": "asking", "url": server.url}


def test_the_terminal_asks_the_form_line_by_line_and_the_server_gets_the_answer(ollama_server, home, asking):
    write_settings(home, mcp={"servers": [asking]})
    ollama_server.script(tool_call_lines("asking__book_table", {"restaurant": "Luigi"}))
    code, err = drive(home, _chat(ollama_server, "-p", "book it"), [
        (b"Allow asking__book_table?", "y"),
        (b"Answer it? [y]es / [d]ecline / [c]ancel", "y"),
        (b"Name*", ""),  # required: asked again
        (b"Name*", "Ada"),
        (b"Party size", "40"),  # out of range: asked again
        (b"Party size", "4"),
        (b"Seating", "2"),  # by number
        (b"Birthday", ""),  # the default (no)
    ])
    assert code == 0, err
    assert "[question] asking (book_table) asks: Who is the table for?" in err
    assert "This field is required." in err and "At most 12." in err
    assert "1. inside" in err and "2. terrace" in err
    assert _tool_message(ollama_server) == "booked Luigi for Ada, 4 people, terrace"


def test_declining_on_the_terminal_tells_the_model(ollama_server, home):
    write_settings(home, mcp={"servers": [ASKING]})
    ollama_server.script(tool_call_lines("asking__book_table", {"restaurant": "Luigi"}))
    code, err = drive(home, _chat(ollama_server, "-p", "book it"), [
        (b"Allow asking__book_table?", "y"), (b"Answer it?", "d")])
    assert code == 0, err
    said = _tool_message(ollama_server)
    assert "the user declined to give the booking details" in said
    assert "The user declined the question of the MCP server asking" in said


def test_an_old_version_servers_question_on_the_terminal(ollama_server, home):
    everything = {"name": "everything", "command": everything_command(), "args": ["stdio"]}
    write_settings(home, mcp={"servers": [everything]})
    ollama_server.script(tool_call_lines("everything__trigger-elicitation-request", {}))
    steps = [(b"Allow everything__trigger-elicitation-request?", "y"), (b"Answer it?", "y"), (b"String*", "Ada")]
    steps += [(b": ", "")] * 12  # every other field keeps its default
    code, err = drive(home, _chat(ollama_server, "-p", "ask me"), steps)
    assert code == 0, err
    said = _tool_message(ollama_server)
    assert "- Name: Ada" in said and "- Favorite Integer: 42" in said


def test_a_run_nobody_can_answer_declines_and_the_model_hears_it(ollama_server, home):
    write_settings(home, mcp={"servers": [ASKING]})
    ollama_server.script(tool_call_lines("asking__book_table", {"restaurant": "Luigi"}))
    result = run_cli(home, *_chat(ollama_server, "-p", "book it", "--allow-tool", "asking__book_table"),
                     stdin="", timeout=120)
    assert result.returncode == 0, result.stderr
    said = _tool_message(ollama_server)
    assert "the user declined to give the booking details" in said
    assert "Nobody can answer in this run, so the question was declined." in said


def test_mcp_list_says_which_version_each_server_speaks(home):
    everything = {"name": "everything", "command": everything_command(), "args": ["stdio"]}
    write_settings(home, mcp={"servers": [ASKING, everything]})
    listed = run_cli(home, "mcp", "list", env={"PYTHONPATH": str(ROOT)}, timeout=120)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[lines.index(next(x for x in lines if x.startswith("asking  [ready"))) + 1] == \
        "    speaks MCP 2026-07-28"
    assert lines[lines.index(next(x for x in lines if x.startswith("everything  [ready"))) + 1] == \
        "    speaks MCP 2025-11-25"
