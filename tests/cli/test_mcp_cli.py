"""``desktop-agent mcp add/list/remove/import`` and a terminal chat that calls an MCP server's tool (the real
``mcp-server-time`` from PyPI) through the loop; ``--no-mcp`` starts none."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers.openai import OpenAIServer

TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))


def run(home: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    env.pop("OLLAMA_HOST", None)
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "desktop_agent", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


def test_add_list_and_remove_a_server(home):
    added = run(home, "mcp", "add", "time", "--", TIME_SERVER, "--local-timezone", "UTC")
    assert added.returncode == 0, added.stderr
    assert "Added time." in added.stdout
    listed = run(home, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert "time  [ready (2 tools)]" in listed.stdout
    assert "time__get_current_time" in listed.stdout
    settings = json.loads((home / "config" / "settings.json").read_text(encoding="utf-8"))
    assert settings["mcp"]["servers"][0]["args"] == ["--local-timezone", "UTC"]
    removed = run(home, "mcp", "remove", "time")
    assert removed.returncode == 0 and "Removed time." in removed.stdout
    assert "No MCP servers" in run(home, "mcp", "list").stdout


def test_a_secret_given_to_add_is_not_written_to_the_settings_file(home):
    # no keyring here: the secret would be lost when the command ends, so the server is refused (the keyring case
    # and --secrets-in-file are in test_mcp_secrets_cli.py)
    out = run(home, "mcp", "add", "gh", "--env", "GITHUB_TOKEN=ghp_secret123", "--env", "MODE=x", "--",
              sys.executable, "-c", "pass")
    assert out.returncode == 1
    assert "environment variable GITHUB_TOKEN of gh would be lost" in out.stderr
    assert "--secrets-in-file" in out.stderr
    settings = home / "config" / "settings.json"
    assert not settings.exists() or "ghp_secret123" not in settings.read_text(encoding="utf-8")


def test_usage_errors(home):
    assert run(home, "mcp").returncode == 2
    neither = run(home, "mcp", "add", "x")
    assert neither.returncode == 2 and "give either" in neither.stderr
    bad = run(home, "mcp", "add", "x", "--env", "NOVALUE", "--", "cmd")
    assert bad.returncode == 2 and "NAME=VALUE" in bad.stderr
    assert run(home, "mcp", "remove", "nothing").returncode == 1


def test_import_a_claude_desktop_file(home, tmp_path):
    path = tmp_path / "claude.json"
    path.write_text(json.dumps({"mcpServers": {"time": {"command": TIME_SERVER, "args": []}}}), encoding="utf-8")
    out = run(home, "mcp", "import", str(path))
    assert out.returncode == 0, out.stderr
    assert "Added time." in out.stdout
    not_json = tmp_path / "bad.json"
    not_json.write_text("{", encoding="utf-8")
    bad = run(home, "mcp", "import", str(not_json))
    assert bad.returncode == 1 and "not an MCP servers file" in bad.stderr


def _tool_call_completion(name: str, arguments: dict) -> dict:
    return {"id": "c1", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": "call_1", "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)}}]}}]}


def test_a_terminal_chat_calls_an_mcp_servers_tool(home):
    assert run(home, "mcp", "add", "time", "--", TIME_SERVER, "--local-timezone", "UTC").returncode == 0
    server = OpenAIServer().start()
    try:
        server.null_content_ok = True
        server.script(_tool_call_completion("time__get_current_time", {"timezone": "Asia/Tokyo"}))
        out = run(home, "chat", "--backend", "openai", "--base-url", server.url, "--model", "local-model",
                  "--events", "-p", "What time is it in Tokyo? Use time__get_current_time.")  # a named tool
        assert out.returncode == 0, out.stderr
        events = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
        finished = [e for e in events if e["type"] == "ToolCallFinished"]
        assert finished and finished[0]["name"] == "time__get_current_time"
        assert "Asia/Tokyo" in json.dumps(finished[0])
        offered = [t["function"]["name"] for t in server.requests[0]["tools"]]
        assert "time__get_current_time" in offered
        # the tool it was asked for answered: the model gets the result for its answer, as text (issue 20)
        last = server.requests[-1]
        assert "tools" not in last and "Asia/Tokyo" in last["messages"][-1]["content"]
        assert "time__get_current_time(timezone=Asia/Tokyo) returned: " in last["messages"][-1]["content"]

        skipped = run(home, "chat", "--backend", "openai", "--base-url", server.url, "--model", "local-model",
                      "--no-mcp", "-p", "hello")
        assert skipped.returncode == 0, skipped.stderr
        offered = [t["function"]["name"] for t in server.requests[-1].get("tools", [])]
        assert "time__get_current_time" not in offered
    finally:
        server.stop()


def test_add_keeps_a_relative_command_as_an_absolute_path_and_warns_about_a_missing_one(home, tmp_path):
    program = Path(sys.executable)
    rel = os.path.relpath(program, Path.cwd())
    out = run(home, "mcp", "add", "rel", "--", rel, "-c", "pass")
    assert out.returncode == 0, out.stderr
    saved = json.loads((home / "config" / "settings.json").read_text(encoding="utf-8"))["mcp"]["servers"][0]
    assert os.path.isabs(saved["command"])
    missing = run(home, "mcp", "add", "nothing", "--", "no-such-mcp-server-here")
    assert missing.returncode == 0 and "no-such-mcp-server-here was not found" in missing.stderr
    assert "the server will fail to start until it is installed" in missing.stderr
    listed = run(home, "mcp", "list")
    assert listed.returncode == 1  # a server failed: say so in the exit status too
    assert "nothing  [failed" in listed.stdout


def test_a_saved_tool_choice_of_a_skipped_server_is_a_warning_not_a_usage_error(home):
    # found by a new-user trial: settings naming an MCP tool made `chat --no-mcp` exit 2 with "--tool-choice …"
    # though no such flag was given
    assert run(home, "mcp", "add", "time", "--", TIME_SERVER).returncode == 0
    path = home / "config" / "settings.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault("loop", {})["tool_choice"] = "time__get_current_time"
    path.write_text(json.dumps(data), encoding="utf-8")
    server = OpenAIServer().start()
    try:
        out = run(home, "chat", "--backend", "openai", "--base-url", server.url, "--model", "local-model",
                  "--no-mcp", "-p", "hello")
        assert out.returncode == 0, out.stderr
        assert "the saved tool choice 'time__get_current_time' is not loaded" in out.stderr
        assert server.requests[-1].get("tool_choice") in (None, "auto")
        flagged = run(home, "chat", "--backend", "openai", "--base-url", server.url, "--model", "local-model",
                      "--no-mcp", "--tool-choice", "time__get_current_time", "-p", "hello")
        assert flagged.returncode == 2 and "--tool-choice names no loaded tool" in flagged.stderr
    finally:
        server.stop()


def test_a_name_saved_otherwise_is_said_and_removes_as_given(home):
    """From the new-user trial of issue 21: `mcp add "bad name"` became bad-name without a word, and
    `mcp remove "bad name"` then failed."""
    added = run(home, "mcp", "add", "bad name", "--", sys.executable, "-c", "pass")
    assert added.returncode == 0, added.stderr
    assert "'bad name' is saved as 'bad-name'" in added.stdout
    assert "Added bad-name." in added.stdout
    removed = run(home, "mcp", "remove", "bad name")
    assert removed.returncode == 0, removed.stderr
    assert "Removed bad-name." in removed.stdout
    assert "No MCP servers" in run(home, "mcp", "list").stdout


def test_add_takes_a_command_and_folder_under_the_home_as_the_homes(home, tmp_path):
    """From the breaker: `mcp add tilde -- '~/bin/foo'` (quoted, so the shell left the ~) saved /cwd/~/bin/foo."""
    user = tmp_path / "user"
    (user / "bin").mkdir(parents=True)
    (user / "work").mkdir()
    tool = user / "bin" / "foo"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "HOME": str(user),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    out = subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", "add", "tilde", "--cwd", "~/work", "--",
                          "~/bin/foo", "--flag"], capture_output=True, text=True, timeout=120, env=env,
                         cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "was not found" not in out.stderr
    saved = json.loads((home / "config" / "settings.json").read_text(encoding="utf-8"))["mcp"]["servers"][0]
    assert saved["command"] == str(tool) and saved["args"] == ["--flag"] and saved["cwd"] == str(user / "work")
