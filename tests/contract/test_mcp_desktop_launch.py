"""Servers that start from the desktop: launched from a menu the app's ``PATH`` is short, and ``node``/``npx`` live in
the user's nvm folder or wherever the login shell's profile puts them. Real servers (the npm reference server
through ``npx`` and ``node``), a real login shell (bash reading a ``.bash_profile`` in a home made here), real
processes. The machine's own node in /usr/bin is taken out of reach: the app's PATH is a folder of a few basics and
the system folders are not among the usual places, so node is found only where each test puts it."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from desktop_agent.core.mcp import launch
from desktop_agent.core.mcp.manager import FAILED, READY, McpManager
from desktop_agent.core.settings import McpServerSettings
from tests.mcp_servers.everything import HERE as SERVERS
from tests.mcp_servers.everything import everything_command

NODE = shutil.which("node") or "/usr/bin/node"
NPX_CLI = os.path.realpath(shutil.which("npx") or "/usr/bin/npx")
INDEX = os.path.realpath(SERVERS / "node_modules" / ".bin" / "mcp-server-everything")
BASICS = ("env", "sh", "bash", "cat", "printf", "sleep", "dirname", "readlink", "uname", "sed", "ls")


@pytest.fixture
def desktop(tmp_path, monkeypatch):
    """A desktop launch: PATH is a folder with a few basics and no node; HOME is a fresh home whose login shell is
    bash; the usual places are the user's, not the system's folders (where this machine's node is)."""
    everything_command()  # skipped (or failed under DESKTOP_AGENT_EXPECT_TOOLS=1) without the reference server
    sysbin = tmp_path / "sysbin"
    sysbin.mkdir()
    for name in BASICS:
        found = shutil.which(name)
        if found:
            (sysbin / name).symlink_to(found)
    user_home = tmp_path / "user"
    user_home.mkdir()
    monkeypatch.setenv("PATH", str(sysbin))
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("SHELL", shutil.which("bash") or "/bin/bash")
    monkeypatch.setattr(launch, "USUAL_PLACES", tuple(p for p in launch.USUAL_PLACES if p.startswith("~")))
    launch.forget()
    assert shutil.which("node", path=str(sysbin)) is None
    yield user_home, sysbin
    launch.forget()


def _link_node(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "node").symlink_to(NODE)
    (folder / "npx").symlink_to(NPX_CLI)


def _profile(user_home: Path, text: str) -> None:
    (user_home / ".bash_profile").write_text(text)


def _start(server: McpServerSettings) -> McpManager:
    manager = McpManager([server], start_timeout_s=60)
    manager.start()
    manager.wait_ready(90)
    return manager


def test_npx_found_in_the_nvm_folder_starts_the_reference_server(desktop):
    user_home, sysbin = desktop
    _profile(user_home, f'PATH="{sysbin}"\n')  # the profile adds nothing: nvm is only in a usual place
    nvm = user_home / ".nvm" / "versions" / "node" / "v20.19.0" / "bin"
    _link_node(nvm)
    (user_home / ".nvm" / "versions" / "node" / "v18.0.0" / "bin").mkdir(parents=True)  # older, without node
    assert launch.resolve("npx") == str(nvm / "npx")
    manager = _start(McpServerSettings(name="everything", command="npx",
                                       args=["--offline", "mcp-server-everything", "stdio"], cwd=str(SERVERS)))
    try:
        state = manager.states()[0]
        assert state.state == READY, (state.line(), state.stderr)
        assert "echo" in state.tools
    finally:
        manager.close()


def test_node_found_through_the_login_shells_path_and_the_users_environment_passed_on(desktop, monkeypatch):
    user_home, sysbin = desktop
    tools = user_home / "opt" / "node" / "bin"  # a place only the user's profile knows
    _link_node(tools)
    _profile(user_home, f'export PATH="$HOME/opt/node/bin:{sysbin}"\n')
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", "/etc/ssl/certs/company.pem")
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-apps-own-key-0123456789")  # the app's, never a server's
    assert str(tools) in launch.login_path()
    started = time.monotonic()
    manager = _start(McpServerSettings(name="everything", command="node", args=[INDEX, "stdio"],
                                       env={"GREETING": "~/hello"}))
    try:
        state = manager.states()[0]
        assert state.state == READY, (state.line(), state.stderr)
        result = manager.call("everything", "get-env", {})
        env = json.loads(result.content[0].text)
        assert env["HTTPS_PROXY"] == "http://proxy.example:3128"
        assert env["NODE_EXTRA_CA_CERTS"] == "/etc/ssl/certs/company.pem"
        assert env["LANG"] == "de_DE.UTF-8"
        assert env["GREETING"] == f"{user_home}/hello"
        assert "OPENAI_API_KEY" not in env
        assert str(tools) in env["PATH"].split(os.pathsep)  # its own `#!/usr/bin/env node` children find node
    finally:
        manager.close()
    assert time.monotonic() - started < 60


def test_a_tilde_in_the_command_is_the_users_home(desktop):
    user_home, _sysbin = desktop
    _profile(user_home, "")
    _link_node(user_home / "apps" / "node")
    manager = _start(McpServerSettings(name="everything", command="~/apps/node/node", args=[INDEX, "stdio"]))
    try:
        assert manager.states()[0].state == READY, manager.states()[0].line()
    finally:
        manager.close()


def test_a_missing_command_says_what_to_install(desktop):
    user_home, sysbin = desktop
    _profile(user_home, f'PATH="{sysbin}"\n')
    manager = _start(McpServerSettings(name="files", command="npx", args=["-y", "@scope/server-files"]))
    try:
        state = manager.states()[0]
        assert state.state == FAILED
        assert state.error.startswith("npx was not found")
        assert "install Node.js 20+" in state.error
    finally:
        manager.close()
    manager = _start(McpServerSettings(name="fetch", command="uvx", args=["mcp-server-fetch"]))
    try:
        assert "install uv" in manager.states()[0].error
    finally:
        manager.close()


def test_a_login_shell_that_hangs_costs_only_its_timeout(desktop, monkeypatch):
    user_home, _sysbin = desktop
    _profile(user_home, "sleep 60\n")
    monkeypatch.setattr(launch, "SHELL_TIMEOUT_S", 1.0)
    _link_node(user_home / ".local" / "bin")
    started = time.monotonic()
    assert launch.resolve("node") == str(user_home / ".local" / "bin" / "node")
    assert time.monotonic() - started < 10
    started = time.monotonic()
    launch.resolve("node")  # read once: the second lookup does not wait again
    assert time.monotonic() - started < 0.5
    assert not [pid for pid in _session_members(user_home)], "the profile's sleep was left running"


def _session_members(user_home: Path) -> list[int]:
    """Processes still running a command of the test's profile (``sleep 60`` started by it)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if cmd == "sleep 60" and f"HOME={user_home}".encode() in environ:
                out.append(int(entry.name))
    return out
