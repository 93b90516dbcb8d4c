"""A long terminal chat (``desktop-agent chat`` reading its turns from stdin) with a real MCP server (the SDK test
server tests/mcp_servers/flaky.py over stdio): a tool the server adds in one turn (``tools/list_changed``) is
offered and runs in the next turn of the same chat, and a server killed between two turns is started again by
the next call of its tool."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.servers.openai import OpenAIServer

ROOT = Path(__file__).resolve().parents[2]


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
           "PYTHONPATH": str(ROOT)}
    env.pop("OLLAMA_HOST", None)
    env.pop("OPENAI_API_KEY", None)
    return env


def _call(name: str, arguments: dict, n: int) -> dict:
    return {"id": f"c{n}", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": f"call_{n}", "type": "function",
                                "function": {"name": name, "arguments": json.dumps(arguments)}}]}}]}


def _answer(text: str) -> dict:
    return {"id": "a", "object": "chat.completion", "created": 0, "model": "local-model",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}


def _server_pids(parent: int) -> list[int]:
    """The running children of ``parent`` that are the flaky MCP server."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if "tests.mcp_servers.flaky" in cmd and int(ppid) == parent and state not in ("Z", "X"):
            pids.append(int(entry.name))
    return pids


class _Chat:
    """``desktop-agent chat --events`` with its stdin open: :meth:`turn` sends a line and returns the turn's
    events."""

    def __init__(self, home: Path, url: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "desktop_agent", "chat", "--backend", "openai", "--base-url", url,
             "--model", "local-model", "--events"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home),
            cwd=ROOT)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def turn(self, text: str) -> list[dict]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        events: list[dict] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                assert self.proc.poll() is None, self.proc.stderr.read() if self.proc.stderr else ""
                continue
            if line.strip():
                events.append(json.loads(line))
                if events[-1]["type"] in ("AnswerFinished", "TurnFailed", "TurnCancelled"):
                    return events
        raise AssertionError(f"the turn did not end: {events}")

    def close(self) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.proc.stderr.read() if self.proc.stderr else ""


def _allow(home: Path, *tools: str) -> None:
    """Saved rules that allow ``tools`` of the configured server (as "always allow" in the window makes them)."""
    from desktop_agent.core.mcp.tools import server_identity
    from desktop_agent.core.settings import McpServerSettings
    from desktop_agent.core.store.conversations import ConversationStore
    from desktop_agent.core.store.rules import ToolRules
    from desktop_agent.core.tools.permissions import Rule, Scope

    saved = json.loads((home / "config" / "settings.json").read_text(encoding="utf-8"))["mcp"]["servers"][0]
    identity = server_identity(McpServerSettings(**saved))
    store = ConversationStore(home / "data" / "conversations.sqlite3")
    try:
        for tool in tools:
            ToolRules(store).save(Rule(0, f"{tool}@{identity}", Scope("tool"), "allow", "user", time.time()))
    finally:
        store.close()


def _finished(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "ToolCallFinished"]


def test_a_long_terminal_chat_follows_new_tools_and_starts_a_killed_server_again(tmp_path):
    home = tmp_path / "home"
    added = subprocess.run([sys.executable, "-m", "desktop_agent", "mcp", "add", "flaky", "--cwd", str(ROOT), "--",
                            sys.executable, "-m", "tests.mcp_servers.flaky"],
                           capture_output=True, text=True, env=_env(home), timeout=120)
    assert added.returncode == 0, added.stderr
    _allow(home, "flaky__grow", "flaky__added", "flaky__echo")
    model = OpenAIServer().start()
    model.null_content_ok = True
    chat = _Chat(home, model.url)
    try:
        # turn 1: the server adds a tool and says its list changed
        model.script(_call("flaky__grow", {}, 1), _answer("grown"))
        done = _finished(chat.turn("grow the tools with flaky__grow"))
        assert done and done[0]["name"] == "flaky__grow" and "grown" in json.dumps(done[0])
        # turn 2 of the same chat: the new tool is offered and runs
        model.script(_call("flaky__added", {}, 2), _answer("used it"))
        done = _finished(chat.turn("use the new tool flaky__added"))
        offered = [t["function"]["name"] for r in model.requests[2:] for t in r.get("tools", [])]
        assert "flaky__added" in offered
        assert done and done[0]["name"] == "flaky__added" and "added here" in json.dumps(done[0]), done
        # the server dies between two turns: the next call starts it again and answers
        [pid] = _server_pids(chat.proc.pid)
        os.kill(pid, signal.SIGKILL)
        model.script(_call("flaky__echo", {"text": "again"}, 3), _answer("echoed"))
        done = _finished(chat.turn("echo again with flaky__echo"))
        assert done and "echo: again" in json.dumps(done[0]), done
        [new_pid] = _server_pids(chat.proc.pid)
        assert new_pid != pid
    finally:
        err = chat.close()
        model.stop()
    assert "Traceback" not in err
