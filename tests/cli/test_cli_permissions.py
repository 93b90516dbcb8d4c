"""The permission engine from the terminal, as a user runs it (real subprocesses against the local Ollama
protocol server): with no terminal to ask, an "ask" tool never runs unless --allow-tool or a saved rule allows
it; on a terminal (a real pty) the y/n/a/c prompt decides, "a" is saved; `history show ID --tools` prints the
audit."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.rules import ToolRules
from desktop_agent.core.store.toolcalls import ToolAudit
from desktop_agent.core.tools.permissions import Scope
from tests.helpers.cli import events_of, run_cli
from tests.helpers.replies import tool_call_lines


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "app-home"


@pytest.fixture
def ask_tools(tmp_path) -> Path:
    d = tmp_path / "ask_tools"
    d.mkdir()
    (d / "asking.py").write_text(textwrap.dedent('''
        import os
        from desktop_agent import tool

        @tool(requires_approval=True)
        def launch(target: str) -> str:
            """Launch something (needs the user's approval)."""
            with open(os.environ["LAUNCH_MARK"], "a", encoding="utf-8") as fh:
                fh.write(target + "\\n")
            return f"launched {target}"
        '''), encoding="utf-8")
    return d


def store_of(home: Path) -> ConversationStore:
    return ConversationStore(home / "data" / "conversations.sqlite3")


def chat_args(server, tools: Path, *extra: str) -> list[str]:
    return ["chat", "--host", server.url, "--tools-dir", str(tools), *extra]


def test_no_terminal_denies_an_ask_tool_and_says_how_to_allow_it(ollama_server, home, ask_tools, tmp_path):
    mark = tmp_path / "mark.txt"
    ollama_server.script(tool_call_lines("launch", {"target": "moon"}))
    proc = run_cli(home, *chat_args(ollama_server, ask_tools, "-p", "launch it"), stdin="",
                   env={"LAUNCH_MARK": str(mark)})
    assert proc.returncode == 0, proc.stderr
    assert not mark.exists()  # never ran
    assert "--allow-tool launch" in proc.stderr
    sent = ollama_server.chat_requests[-1]["messages"][-1]
    assert sent["role"] == "tool" and "not run" in sent["content"]


def test_events_mode_denies_even_on_a_terminal_without_allow_tool(ollama_server, home, ask_tools, tmp_path):
    mark = tmp_path / "mark.txt"
    ollama_server.script(tool_call_lines("launch", {"target": "moon"}))
    proc = run_cli(home, *chat_args(ollama_server, ask_tools, "--events", "-p", "launch it"), stdin="",
                   env={"LAUNCH_MARK": str(mark)})
    assert proc.returncode == 0, proc.stderr
    finished = next(e for e in events_of(proc.stdout) if e["type"] == "ToolCallFinished")
    assert finished["status"] == "denied" and finished["decision"]["by"] == "default"
    assert finished["decision"]["decision"] == "deny" and not mark.exists()


def test_allow_tool_lets_it_run_for_this_run_only(ollama_server, home, ask_tools, tmp_path):
    mark = tmp_path / "mark.txt"
    ollama_server.script(tool_call_lines("launch", {"target": "moon"}))
    proc = run_cli(home, *chat_args(ollama_server, ask_tools, "--allow-tool", "launch", "--events", "-p", "go"),
                   stdin="", env={"LAUNCH_MARK": str(mark)})
    assert proc.returncode == 0, proc.stderr
    finished = next(e for e in events_of(proc.stdout) if e["type"] == "ToolCallFinished")
    assert finished["status"] == "ok" and finished["decision"] == {
        "decision": "allow", "by": "rule", "rule_id": finished["decision"]["rule_id"], "reason": None}
    assert mark.read_text(encoding="utf-8") == "moon\n"
    store = store_of(home)
    try:
        assert ToolRules(store).all() == []  # not saved
    finally:
        store.close()
    ollama_server.script(tool_call_lines("launch", {"target": "mars"}))
    again = run_cli(home, *chat_args(ollama_server, ask_tools, "-p", "go"), stdin="", env={"LAUNCH_MARK": str(mark)})
    assert again.returncode == 0 and mark.read_text(encoding="utf-8") == "moon\n"


def test_allow_tool_naming_no_loaded_tool_is_a_usage_error(ollama_server, home, ask_tools):
    proc = run_cli(home, *chat_args(ollama_server, ask_tools, "--allow-tool", "lunch", "-p", "go"), stdin="")
    assert proc.returncode == 2 and "--allow-tool names no loaded tool: 'lunch'" in proc.stderr


def test_a_saved_rule_allows_without_a_terminal(ollama_server, home, ask_tools, tmp_path):
    mark = tmp_path / "mark.txt"
    store = store_of(home)
    try:
        from desktop_agent.core.tools.permissions import Rule

        ToolRules(store).save(Rule(0, "launch", Scope("tool"), "allow", "user", time.time()))
    finally:
        store.close()
    ollama_server.script(tool_call_lines("launch", {"target": "moon"}))
    proc = run_cli(home, *chat_args(ollama_server, ask_tools, "-p", "go"), stdin="", env={"LAUNCH_MARK": str(mark)})
    assert proc.returncode == 0, proc.stderr
    assert mark.read_text(encoding="utf-8") == "moon\n"
    store = store_of(home)
    try:
        (rule,) = ToolRules(store).all()
        assert rule.last_used_at is not None
    finally:
        store.close()


def run_on_a_terminal(home: Path, args: list[str], answers: list[str], env: dict, timeout: float = 60) -> tuple:
    """Run the CLI with a pty as stdin (a terminal) and pipes for stdout/stderr; type each answer when the
    prompt shows on stderr. Returns (exit code, stdout, stderr)."""
    master, slave = pty.openpty()
    full_env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), **env}
    full_env.pop("OLLAMA_HOST", None)
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", *args], stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=full_env)
    os.close(slave)
    err = b""
    pending = list(answers)
    deadline = time.monotonic() + timeout
    assert proc.stderr is not None
    while pending and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.5)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            err += chunk
            if err.count(b"? [y]es once") > len(answers) - len(pending):
                os.write(master, pending.pop(0).encode() + b"\n")
    out, rest = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
    os.close(master)
    return proc.returncode, out.decode(), (err + rest).decode()


def test_terminal_prompt_always_is_saved_and_the_audit_shows_it(ollama_server, home, ask_tools, tmp_path):
    mark = tmp_path / "mark.txt"
    ollama_server.script(tool_call_lines("launch", {"target": "moon"}))
    code, _out, err = run_on_a_terminal(home, chat_args(ollama_server, ask_tools, "-p", "go"), ["a"],
                                        {"LAUNCH_MARK": str(mark)})
    assert code == 0, err
    assert "[approval] launch" in err and '"target": "moon"' in err
    assert mark.read_text(encoding="utf-8") == "moon\n"
    store = store_of(home)
    try:
        (rule,) = ToolRules(store).all()
        assert (rule.tool, rule.scope.kind, rule.policy) == ("launch", "tool", "allow")
        (chat,) = store.list()
        (call,) = ToolAudit(store).calls(chat.id)
        assert (call.decision, call.decided_by, call.status) == ("allow", "user", "ok")
    finally:
        store.close()
    shown = run_cli(home, "history", "show", chat.id[:8], "--tools")
    assert shown.returncode == 0, shown.stderr
    line = shown.stdout.splitlines()[1]
    assert "launch" in line and "ok" in line and "allowed by user (always: rule #" in line and '"moon"' in line


def test_terminal_prompt_no_with_a_reason(ollama_server, home, ask_tools, tmp_path):
    mark = tmp_path / "mark.txt"
    ollama_server.script(tool_call_lines("launch", {"target": "moon"}))
    code, _out, err = run_on_a_terminal(home, chat_args(ollama_server, ask_tools, "-p", "go"),
                                        ["n not today"], {"LAUNCH_MARK": str(mark)})
    assert code == 0, err
    assert not mark.exists()
    sent = ollama_server.chat_requests[-1]["messages"][-1]
    assert "denied" in sent["content"] and "not today" in sent["content"]
    store = store_of(home)
    try:
        assert ToolRules(store).all() == []
    finally:
        store.close()


def drive(home: Path, args: list[str], steps: list[tuple[bytes, int, str]], env: dict, timeout: float = 60):
    """Run the CLI on a pty; for each step wait until ``pattern`` was seen ``count`` times on stderr, then type
    ``text``. Returns (exit code, stderr)."""
    master, slave = pty.openpty()
    full_env = {**os.environ, "DESKTOP_AGENT_HOME": str(home), **env}
    full_env.pop("OLLAMA_HOST", None)
    proc = subprocess.Popen([sys.executable, "-m", "desktop_agent", *args], stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=full_env)
    os.close(slave)
    err = b""
    deadline = time.monotonic() + timeout
    assert proc.stderr is not None
    for pattern, count, text in steps:
        while err.count(pattern) < count and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 0.5)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                err += chunk
        os.write(master, text.encode() + b"\n")
    _out, rest = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
    os.close(master)
    return proc.returncode, (err + rest).decode()


def test_terminal_c_allows_for_the_rest_of_this_chat_only(ollama_server, home, ask_tools, tmp_path):
    mark = tmp_path / "mark.txt"
    ollama_server.script(tool_call_lines("launch", {"target": "a"}), [
        {"message": {"role": "assistant", "content": "done"}, "done": True, "done_reason": "stop"}],
        tool_call_lines("launch", {"target": "b"}))
    code, err = drive(home, chat_args(ollama_server, ask_tools), [
        (b"you> ", 1, "first"), (b"[y]es once", 1, "c"), (b"you> ", 2, "second"), (b"you> ", 3, "bye")],
        {"LAUNCH_MARK": str(mark)})
    assert code == 0, err
    assert err.count("[y]es once") == 1  # the second call was not asked about
    assert mark.read_text(encoding="utf-8") == "a\nb\n"
    store = store_of(home)
    try:
        assert ToolRules(store).all() == []
        (chat,) = store.list()
        assert [c.reason for c in ToolAudit(store).calls(chat.id)] == ["for this chat", "for this chat"]
    finally:
        store.close()
