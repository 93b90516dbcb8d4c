"""Issue 12's "Done when", as a new user goes through it, with real parts: a Claude Desktop config with two real
servers from the package registries (``mcp-server-time`` from PyPI, ``@modelcontextprotocol/server-everything``
from npm) is imported in Settings → MCP servers; both show ready; the model (the 127.0.0.1 Ollama-protocol
server) asks for a tool that needs approval, the user allows it in the approval card, the sidebar shows the call
and its result; one server's process is killed and the window says so while the other still works; closing the
window leaves no server process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from desktop_agent.core import paths
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from tests.helpers.gui import last_turn_text, wait_idle
from tests.helpers.keyrings import DictKeyring
from tests.helpers.processes import children_running as _children_running
from tests.helpers.replies import tool_call_lines
from tests.mcp_servers.everything import everything_command

TIME_SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))
TOKEN = "ghp-done-when-0123456789abcdef"
WAIT_MS = 90_000

pytestmark = pytest.mark.usefixtures("clean_keyring_state")


def test_import_two_servers_approve_a_call_survive_a_killed_server_and_quit_clean(
        qtbot, make_window, ollama_server, tmp_path):
    everything = everything_command()
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {
        "time": {"command": TIME_SERVER, "args": ["--local-timezone", "UTC"]},
        "everything": {"command": everything, "args": ["stdio"], "env": {"GITHUB_TOKEN": TOKEN}},
    }}), encoding="utf-8")
    keyring = DictKeyring()
    w = make_window(Settings(ollama_host=ollama_server.url), secrets=SecretStore(keyring_backend=keyring))

    # 1. Settings → MCP servers → Import Claude Desktop config…, Save
    w.open_settings(tab="MCP servers")
    dialog = w.settings_dialog
    page = dialog.mcp_page
    page.import_config(str(config))
    qtbot.waitUntil(lambda: "Press Save" in page.import_note.text(), timeout=10_000)
    assert "GITHUB_TOKEN" in page.import_note.text() and "keyring" in page.import_note.text()
    dialog.save_button.click()
    qtbot.waitUntil(lambda: w.settings_dialog is None or not dialog.isVisible(), timeout=10_000)
    saved = paths.settings_file().read_text(encoding="utf-8")
    assert TOKEN not in saved and '"everything"' in saved  # the token went to the keyring, not the file
    assert TOKEN in keyring.data.values()

    # 2. both servers get ready; the page (opened again) and the status bar say so
    qtbot.waitUntil(lambda: w.assembly.current_mcp() is not None, timeout=WAIT_MS)
    manager = w.assembly.current_mcp()
    qtbot.waitUntil(lambda: [s.state for s in manager.states()] == ["ready", "ready"], timeout=WAIT_MS)
    w.open_settings(tab="MCP servers")
    page = w.settings_dialog.mcp_page
    qtbot.waitUntil(lambda: page.status_text("time") == "ready (2 tools)", timeout=WAIT_MS)
    assert page.status_text("everything").startswith("ready (")
    w.settings_dialog.grab().save(str(Path(os.environ.get("SCREENSHOT_DIR", tmp_path)) / "done-when-mcp-page.png"))
    w.settings_dialog.reject()
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=5000)

    # 3. the model asks for a tool that needs approval; the user allows it; the sidebar shows call and result
    from tests.helpers.gui import last_run, waiting_card

    name = "everything__toggle-simulated-logging"
    ollama_server.script(tool_call_lines(name, {}))
    w.send("turn on the simulated logging")
    card = waiting_card(qtbot, w)
    assert name in card.accessibleName() and "everything" in card.source.text()
    card.allow.click()
    wait_idle(qtbot, w, timeout=WAIT_MS)
    run = last_run(w)
    assert run.name == name and run.status == "ok", (run.status, run.result)
    assert "logging" in run.result.lower() and run.decision == "allowed by user (once)"
    assert last_turn_text(w).startswith("The tool said: Started simulated")
    w.sidebar.select_call(run.call_id)
    assert "From: MCP server everything" in w.sidebar.decision_label.text()
    qtbot.wait(300)  # the answer's last frame
    w.grab().save(str(Path(os.environ.get("SCREENSHOT_DIR", tmp_path)) / "done-when-after-call.png"))

    # 4. kill the time server's process: the window says so, the other server still works
    pids = _children_running("mcp-server-time")
    assert pids
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: manager.states()[0].state == "failed", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "1 of 2" in w.mcp_status.text() and "failed" in w.mcp_status.text(), timeout=10_000)
    ollama_server.script(tool_call_lines("everything__get-sum", {"a": 2, "b": 3}))
    w.send("add 2 and 3")
    wait_idle(qtbot, w, timeout=WAIT_MS)
    run = last_run(w)
    assert run.name == "everything__get-sum" and run.status == "ok" and "5" in run.result, (run.status, run.result)

    # 5. quit: no server process is left
    w.close()
    assert _children_running("mcp-server-time") == [] and _children_running("mcp-server-everything") == []
