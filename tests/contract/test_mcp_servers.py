"""MCP servers' tools through the official SDK, against real servers: ``mcp-server-time`` (installed from PyPI)
and a small SDK server whose tools misbehave on purpose (tests/mcp_servers/flaky.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from desktop_agent.core.assembly import Assembly, with_mcp_tools
from desktop_agent.core.mcp.config import McpConfigError, import_file, parse
from desktop_agent.core.mcp.manager import FAILED, READY, McpManager
from desktop_agent.core.mcp.tools import registry_name
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.core.tools.dispatch import dispatch_call
from desktop_agent.core.tools.permissions import Answer, ChatPermissions
from tests.helpers.keyrings import DictKeyring
from tests.mcp_servers.everything import free_port, wait_listening

ROOT = Path(__file__).resolve().parents[2]
TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))
ALLOW = ChatPermissions(None, lambda _request: Answer("once"))  # these tests are about calls, not approval


def _time() -> McpServerSettings:
    return McpServerSettings(name="time", command=TIME_SERVER, args=["--local-timezone", "UTC"])


def _flaky() -> McpServerSettings:
    return McpServerSettings(name="flaky", command=sys.executable, args=["-m", "tests.mcp_servers.flaky"],
                             cwd=str(ROOT))


@pytest.fixture
def managers():
    made: list[McpManager] = []

    def make(*servers: McpServerSettings, **kwargs) -> McpManager:
        manager = McpManager(list(servers), **kwargs)
        made.append(manager)
        manager.start()
        manager.wait_ready(60)
        return manager

    yield make
    for manager in made:
        manager.close()


def _children_running(marker: str) -> list[int]:
    """This test process's children whose command line contains ``marker`` (Linux /proc; zombies do not count):
    other test runs on the machine may run the same servers."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            except (OSError, ValueError):
                continue
            if marker in cmd and int(parent) == os.getpid() and state not in ("Z", "X"):
                pids.append(int(entry.name))
    return pids


def test_the_time_servers_tools_are_listed_and_called(managers):
    manager = managers(_time())
    [state] = manager.states()
    assert state.state == READY and set(state.tools) == {"get_current_time", "convert_time"}
    tools = {t.name: t for t in manager.tools()}
    assert set(tools) == {"time__get_current_time", "time__convert_time"}
    tool = tools["time__get_current_time"]
    assert tool.source == "MCP server time"
    assert tool.read_only and not tool.requires_approval  # it declares readOnlyHint
    assert "timezone" in tool.parameters["properties"] and tool.parameters["type"] == "object"
    result = dispatch_call(tools, "time__get_current_time", '{"timezone": "Europe/Oslo"}')
    assert result.status == "ok"
    assert json.loads(result.content)["timezone"] == "Europe/Oslo"


def test_an_error_result_is_a_tool_error_the_model_reads(managers):
    manager = managers(_time())
    tools = {t.name: t for t in manager.tools()}
    result = dispatch_call(tools, "time__get_current_time", {"timezone": "Nowhere/Atlantis"})
    assert result.status == "error"
    assert "Invalid timezone" in result.content


def test_names_every_backend_accepts():
    # Behaviour changed on purpose (session 5): a name with replaced characters gets its hash (see
    # tests/unit/test_mcp_names.py: two servers must not take turns at one name and its rules)
    assert registry_name("my.server", "read file").startswith("my_server__read_file_")
    long = registry_name("s" * 40, "t" * 40)
    assert len(long) <= 64 and re.fullmatch(r"[A-Za-z0-9_-]{1,64}", long)
    assert registry_name("a", "b", taken={"a__b"}) != "a__b"


def test_a_server_that_dies_mid_call_gives_that_call_an_error_and_the_others_go_on(managers):
    manager = managers(_flaky(), _time())
    tools = {t.name: t for t in manager.tools()}
    assert dispatch_call(tools, "flaky__echo", {"text": "hi"}, chat=ALLOW).content == "echo: hi"
    result = dispatch_call(tools, "flaky__die", {}, chat=ALLOW)
    assert result.status == "error" and "stopped during the call" in result.content
    states = {s.name: s for s in manager.states()}
    assert states["flaky"].state == FAILED and "dying now" in states["flaky"].stderr
    assert dispatch_call(tools, "time__get_current_time", {"timezone": "UTC"}).status == "ok"
    # Restart brings it back
    manager.restart("flaky")
    manager.wait_ready(60)
    assert {s.name: s.state for s in manager.states()}["flaky"] == READY
    again = {t.name: t for t in manager.tools()}
    assert dispatch_call(again, "flaky__echo", {"text": "back"}, chat=ALLOW).content == "echo: back"


def test_a_call_is_cancelled_at_once(managers):
    manager = managers(_flaky())
    tools = {t.name: t for t in manager.tools()}
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    result = dispatch_call(tools, "flaky__slow", {"seconds": 20}, cancel, chat=ALLOW)
    assert result.status == "cancelled"
    assert time.monotonic() - started < 5
    assert dispatch_call(tools, "flaky__echo", {"text": "still here"}, chat=ALLOW).status == "ok"


def test_a_cancel_reaches_the_server(managers, tmp_path):
    manager = managers(_flaky())
    tools = {t.name: t for t in manager.tools()}
    marker = tmp_path / "cancelled.txt"
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    result = dispatch_call(tools, "flaky__wait_for_cancel", {"marker": str(marker)}, cancel, chat=ALLOW)
    assert result.status == "cancelled"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not marker.exists():
        time.sleep(0.05)
    assert marker.read_text(encoding="utf-8") == "cancelled"  # the server was told, and stopped the call
    assert dispatch_call(tools, "flaky__echo", {"text": "next"}, chat=ALLOW).content == "echo: next"


@pytest.fixture(params=["stdio", "http"])
def growing(request):
    """The flaky server's settings, over each transport."""
    if request.param == "stdio":
        yield _flaky()
        return
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tests.mcp_servers.flaky", "--http", str(port)], cwd=str(ROOT),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proc, port, "the flaky HTTP server")
        yield McpServerSettings(name="flaky", url=f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_list_change_is_seen_by_the_next_registry_and_the_listener(growing, managers):
    seen = []
    manager = managers(growing, on_change=seen.append)
    assert manager.states()[0].state == READY, manager.states()[0].line()
    assert "flaky__added" not in {t.name for t in manager.tools()}
    tools = {t.name: t for t in manager.tools()}
    assert dispatch_call(tools, "flaky__grow", {}, chat=ALLOW).content == "grown"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and "added" not in manager.states()[0].tools:
        time.sleep(0.05)
    assert "added" in manager.states()[0].tools
    assert "added" in seen[-1].tools and seen[-1].state == READY  # the app is told (the window repaints)
    registry = with_mcp_tools(None, manager, Settings())  # what the next turn offers
    assert registry is not None and "flaky__added" in registry.names()
    assert registry.dispatch("flaky__added", {}, chat=ALLOW).content == "added here"


def _bad(name: str, mode: str) -> McpServerSettings:
    return McpServerSettings(name=name, command=sys.executable, args=["-m", "tests.mcp_servers.bad", mode],
                             cwd=str(ROOT))


@pytest.mark.expect_log("mcp.client.stdio", match="^Failed to parse JSONRPC message")  # the "garbage" server
def test_bad_commands_each_get_a_clear_status_and_cost_nothing_else(managers):
    manager = managers(McpServerSettings(name="missing", command="no-such-mcp-server-here"),
                       _bad("garbage", "garbage"), _bad("silent", "silent"), _bad("quits", "exit"), _flaky(),
                       start_timeout_s=4)
    states = {s.name: s for s in manager.states()}
    assert states["missing"].line() == ("missing: failed — no-such-mcp-server-here was not found (on PATH, in your "
                                        "login shell's PATH or the usual places): install it, or give its full path")
    assert states["garbage"].state == FAILED
    assert "not MCP on its output: 'Welcome to my server! Listening…'" in states["garbage"].error
    assert states["silent"].state == FAILED and "never answered the MCP handshake" in states["silent"].error
    assert states["quits"].state == FAILED and "exited before it was ready" in states["quits"].error
    assert states["quits"].stderr == ["bad: missing configuration, exiting"]
    assert states["flaky"].state == READY
    tools = {t.name: t for t in manager.tools()}
    assert {t.server for t in tools.values()} == {"flaky"}
    assert dispatch_call(tools, "flaky__echo", {"text": "fine"}, chat=ALLOW).content == "echo: fine"


def test_a_turn_waits_for_a_starting_server_and_stop_ends_the_wait():
    slow = McpServerSettings(name="slow", command=sys.executable, cwd=str(ROOT),
                             args=["-c", "import time, runpy; time.sleep(1.5); "
                                         "runpy.run_module('tests.mcp_servers.flaky', run_name='__main__')"])
    settings = Settings().updated({"mcp.servers": [slow.model_dump()]})
    assembly = Assembly()
    try:
        notices = list(assembly.wait_for_mcp(settings, threading.Event()))
        assert [n.text for n in notices] == ["waiting for MCP server slow…"]
        assert "slow__echo" in {t.name for t in assembly.available_tools(settings)}
        assert list(assembly.wait_for_mcp(settings)) == []  # ready: nothing to wait for
    finally:
        assembly.close()
    stopping = Assembly()
    try:
        cancel = threading.Event()
        threading.Timer(0.2, cancel.set).start()
        started = time.monotonic()
        assert len(list(stopping.wait_for_mcp(settings, cancel))) == 1
        assert time.monotonic() - started < 1.4  # Stop ended the wait before the server was up
        assert stopping.mcp(settings).starting() == ["slow"]
    finally:
        stopping.close()


def test_a_server_that_cannot_start_is_reported_with_its_output(managers):
    missing = McpServerSettings(name="missing", command="/nonexistent/server")
    crashing = McpServerSettings(name="crash", command=sys.executable,
                                 args=["-c", "import sys; print('config not found', file=sys.stderr); sys.exit(2)"])
    manager = managers(missing, crashing, _time())
    states = {s.name: s for s in manager.states()}
    assert states["missing"].state == FAILED and "not found" in states["missing"].error
    assert states["crash"].state == FAILED and "config not found" in states["crash"].stderr
    assert states["time"].state == READY
    assert {t.server for t in manager.tools()} == {"time"}


def test_closing_stops_every_server_it_started(managers):
    marker = f"desktop-agent-close-test-{os.getpid()}"
    manager = managers(McpServerSettings(name="time", command=TIME_SERVER, args=["--local-timezone", "UTC"],
                                         env={"MARKER": marker}), _flaky())
    assert manager.states()[1].state == READY
    assert _children_running("tests.mcp_servers.flaky")
    manager.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _children_running("tests.mcp_servers.flaky"):
        time.sleep(0.1)
    assert _children_running("tests.mcp_servers.flaky") == []


def test_a_servers_secret_env_comes_from_the_keyring(managers):
    store = SecretStore(keyring_backend=DictKeyring())
    store.set_secret("mcp:envcheck:env:API_TOKEN", "s3cret-value")
    script = ("import os, sys\nfrom mcp.server.mcpserver import MCPServer\ns = MCPServer('envcheck')\n"
              "@s.tool()\ndef token() -> str:\n    '''The token.'''\n    return os.environ.get('API_TOKEN', 'unset')\n"
              "s.run()\n")
    server = McpServerSettings(name="envcheck", command=sys.executable, args=["-c", script],
                               secret_env=["API_TOKEN"])
    manager = managers(server, secrets=store)
    tools = {t.name: t for t in manager.tools()}
    assert dispatch_call(tools, "envcheck__token", {}, chat=ALLOW).content == "s3cret-value"


# ---- Claude-Desktop-style files -------------------------------------------------------------------


def test_importing_a_claude_desktop_file_keeps_secrets_out_of_the_settings(tmp_path):
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdef", "LOG_LEVEL": "info"}},
        "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer xyz"}},
        "broken": {"args": "not a list"},
    }}), encoding="utf-8")
    store = SecretStore(keyring_backend=DictKeyring())
    settings, notes = import_file(path, Settings(), store)
    servers = {s.name: s for s in settings.mcp.servers}
    assert set(servers) == {"github", "remote"}
    assert servers["github"].env == {"LOG_LEVEL": "info"}
    assert servers["github"].secret_env == ["GITHUB_PERSONAL_ACCESS_TOKEN"]
    assert servers["remote"].secret_headers == ["Authorization"] and servers["remote"].headers == {}
    assert store.get_secret("mcp:github:env:GITHUB_PERSONAL_ACCESS_TOKEN") == "ghp_abcdef"
    assert store.get_secret("mcp:remote:header:Authorization") == "Bearer xyz"
    text = json.dumps(settings.model_dump())
    assert "ghp_abcdef" not in text and "Bearer xyz" not in text
    assert any("GITHUB_PERSONAL_ACCESS_TOKEN" in n and "keyring" in n for n in notes)
    assert any(n.startswith("skipped broken") for n in notes)
    saved = tmp_path / "settings.json"
    settings.save(saved)
    assert "ghp_abcdef" not in saved.read_text(encoding="utf-8")
    again, _warnings = Settings.load(saved)
    assert [s.name for s in again.mcp.servers] == ["github", "remote"]


@pytest.mark.parametrize("text", ["not json", "[]", '{"mcpServers": 3}', "{}"])
def test_a_file_that_is_not_an_mcp_servers_file_is_refused(text):
    with pytest.raises(McpConfigError):
        parse(text)


def test_a_bad_server_entry_in_the_settings_file_costs_only_itself(tmp_path):
    path = tmp_path / "settings.json"
    good = _time().model_dump()
    path.write_text(json.dumps({"version": 2, "mcp": {"servers": [good, {"name": "x"}]}}), encoding="utf-8")
    settings, warnings = Settings.load(path)
    assert [s.name for s in settings.mcp.servers] == ["time"]
    assert warnings


def _wait_state(manager: McpManager, name: str, state: str, timeout_s: float = 30.0):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        found = {s.name: s for s in manager.states()}[name]
        if found.state == state:
            return found
        time.sleep(0.05)
    return {s.name: s for s in manager.states()}[name]


def test_a_server_killed_while_idle_is_reported_and_the_other_goes_on(managers, monkeypatch):
    from desktop_agent.core.mcp import manager as manager_module

    monkeypatch.setattr(manager_module, "HEARTBEAT_S", 0.2)
    seen: list[str] = []
    manager = managers(_flaky(), _time(), on_change=lambda s: seen.append(f"{s.name}:{s.state}"))
    time.sleep(1.0)  # several checks of both: healthy servers stay ready
    assert [s.state for s in manager.states()] == [READY, READY], manager.states()
    [pid] = _children_running("tests.mcp_servers.flaky")
    os.kill(pid, 9)
    state = _wait_state(manager, "flaky", FAILED)
    assert state.state == FAILED and "exited" in state.error, state
    assert "flaky:failed" in seen  # the window's status listener is told
    tools = {t.name: t for t in manager.tools()}
    assert dispatch_call(tools, "time__get_current_time", {"timezone": "UTC"}).status == "ok"
    # its tools are still offered: the next call starts it again (tests/contract/test_mcp_revival.py)
    assert dispatch_call(tools, "flaky__echo", {"text": "back"}, chat=ALLOW).content == "echo: back"


def test_a_server_that_stops_answering_is_reported(managers, monkeypatch):
    from desktop_agent.core.mcp import manager as manager_module

    monkeypatch.setattr(manager_module, "HEARTBEAT_S", 0.2)
    monkeypatch.setattr(manager_module, "PING_TIMEOUT_S", 1.0)
    manager = managers(_flaky())
    [pid] = _children_running("tests.mcp_servers.flaky")
    os.kill(pid, 19)  # SIGSTOP: alive, but it answers nothing
    try:
        state = _wait_state(manager, "flaky", FAILED)
        assert state.state == FAILED and "stopped answering" in state.error, state
    finally:
        with __import__("contextlib").suppress(ProcessLookupError):
            os.kill(pid, 18)  # SIGCONT, so that closing can end it


def test_a_long_call_is_not_taken_for_a_hung_server(managers, monkeypatch):
    from desktop_agent.core.mcp import manager as manager_module

    monkeypatch.setattr(manager_module, "HEARTBEAT_S", 0.1)
    monkeypatch.setattr(manager_module, "PING_TIMEOUT_S", 0.3)
    manager = managers(_flaky())
    [pid] = _children_running("tests.mcp_servers.flaky")
    tools = {t.name: t for t in manager.tools()}
    # the server is stopped for a moment during a call: it cannot answer pings, but a call is running
    threading.Timer(0.2, os.kill, (pid, 19)).start()
    threading.Timer(1.5, os.kill, (pid, 18)).start()
    result = dispatch_call(tools, "flaky__slow", {"seconds": 0.5}, chat=ALLOW)
    assert result.status == "ok", result.content
    assert {s.name: s.state for s in manager.states()}["flaky"] == READY


def test_closing_while_a_server_is_starting_leaves_no_process(managers):
    slow = McpServerSettings(name="slow", command=sys.executable, cwd=str(ROOT),
                             args=["-c", "import time, runpy; time.sleep(20); "
                                         "runpy.run_module('tests.mcp_servers.flaky', run_name='__main__')"])
    manager = McpManager([slow])
    manager.start()
    end = time.monotonic() + 10
    while not _children_running("time.sleep(20)") and time.monotonic() < end:
        time.sleep(0.05)
    assert _children_running("time.sleep(20)")
    manager.close()
    assert _children_running("time.sleep(20)") == []
    assert manager.states()[0].state == "stopped"


def test_a_failed_start_says_only_what_is_there(managers):
    # found by a new-user trial: "see its output below" with nothing below; a library's words for a server down
    port = free_port()
    silent = McpServerSettings(name="silent", command="true")
    down = McpServerSettings(name="down", url=f"http://127.0.0.1:{port}/mcp")
    manager = managers(silent, down)
    states = {s.name: s for s in manager.states()}
    assert states["silent"].state == FAILED and "(it printed nothing)" in states["silent"].error
    assert "see its output below" not in states["silent"].error
    assert states["down"].state == FAILED
    assert states["down"].error.startswith(f"can't reach the server at http://127.0.0.1:{port}/mcp"), states["down"]
