"""The window and a terminal at once (issue 21): what a terminal saves is not lost by the window's next save, and
the window follows it — settings changed and chats imported by another process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QEvent

from desktop_agent.core.services import Services
from desktop_agent.core.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
WAIT_MS = 10_000


def _terminal(*args: str) -> None:
    """``desktop-agent ARGS`` in another process, on this test's folders (conftest points XDG_* there)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = subprocess.run([sys.executable, "-m", "desktop_agent", *args], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr


def _window_from_the_file(make_window):
    Services(environ={}).update_settings({"loop.max_steps": 4, "mcp.enabled": False})
    layered = Services(environ={}).layered
    return make_window(layered.effective, saved=layered.saved)


def _servers_on_file() -> list[str]:
    return [s.name for s in Settings.load()[0].mcp.servers]


def test_settings_save_with_nothing_changed_keeps_a_server_a_terminal_added(qtbot, make_window):
    """The issue's repro as a user does it: the window open, `desktop-agent mcp add` in a terminal, then
    Settings → Save without changing anything — the server stays in the file and reaches the window."""
    w = _window_from_the_file(make_window)
    _terminal("mcp", "add", "clock", "--", sys.executable, "-c", "pass")
    w.open_settings()
    dialog = w.settings_dialog
    assert dialog is not None
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert _servers_on_file() == ["clock"]
    assert [s.name for s in w.settings.mcp.servers] == ["clock"]
    assert Settings.load()[0].loop.max_steps == 4


def test_a_model_picked_in_the_window_keeps_a_server_a_terminal_added(make_window):
    """The pickers save one setting: on top of the file as it is now, not a stale copy of it."""
    w = _window_from_the_file(make_window)
    _terminal("mcp", "add", "clock", "--", sys.executable, "-c", "pass")
    w.controller.pick_model("qwen3:4b")
    on_file = Settings.load()[0]
    assert on_file.ollama.model == "qwen3:4b"
    assert _servers_on_file() == ["clock"]


def test_the_window_follows_settings_a_terminal_saved_when_it_gets_the_focus(qtbot, make_window):
    w = _window_from_the_file(make_window)
    _terminal("mcp", "add", "clock", "--", sys.executable, "-c", "pass")
    assert w.settings.mcp.servers == []
    w.controller.check_outside_changes()  # what the window does on focus-in
    assert [s.name for s in w.settings.mcp.servers] == ["clock"]
    assert w.settings.loop.max_steps == 4


def test_focus_in_asks_for_outside_changes(qtbot, make_window, monkeypatch):
    """The window's activation is where it looks (one stat and one pragma: cheap on every focus-in)."""
    w = _window_from_the_file(make_window)
    asked: list[bool] = []
    monkeypatch.setattr(w.controller, "check_outside_changes", lambda: asked.append(True))
    monkeypatch.setattr(w, "isActiveWindow", lambda: True)
    w.changeEvent(QEvent(QEvent.Type.ActivationChange))
    assert asked == [True]


def test_chats_a_terminal_imported_appear_in_the_open_windows_history(qtbot, make_window, tmp_path):
    w = _window_from_the_file(make_window)
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=WAIT_MS)
    panel = w.history_panel
    before = panel.model.rowCount()
    chat = tmp_path / "chat_llama3_20240501093015.json"
    chat.write_text(json.dumps([{"human": "What day is it?", "ai": "Wednesday."}]), encoding="utf-8")
    _terminal("history", "import", str(chat))
    w.controller.check_outside_changes()
    imported = w.controller.store.list()
    assert len(imported) == 1
    qtbot.waitUntil(lambda: panel.model.row_of(imported[0].id) is not None, timeout=WAIT_MS)
    assert panel.model.rowCount() > before


def test_a_server_a_terminal_added_reaches_the_window_when_a_picker_saved_before_any_focus_in(make_window):
    """The window kept the focus while a terminal (a script) added a server, then a picker saved: its save read
    the server from the file, so the next focus-in sees no change — the window must use the server already."""
    w = _window_from_the_file(make_window)
    _terminal("mcp", "add", "clock", "--", sys.executable, "-c", "pass")
    w.controller.pick_model("qwen3:4b")
    w.controller.check_outside_changes()
    assert [s.name for s in w.settings.mcp.servers] == ["clock"]
    assert w.settings.ollama.model == "qwen3:4b"


def test_servers_a_terminal_changed_restart_only_after_the_turn_that_is_running(make_window, monkeypatch):
    """Focus-in mid-turn after `desktop-agent mcp add`: restarting the MCP servers now would stop a tool call the
    running turn is waiting on (every server restarts on a change); they restart once the turn has ended."""
    from desktop_agent.ui.agent_runner import AgentRunner, TurnEnded

    w = _window_from_the_file(make_window)
    ctl = w.controller
    started: list[list[str]] = []
    monkeypatch.setattr(ctl.assembly, "mcp", lambda settings: started.append([s.name for s in settings.mcp.servers]))
    run = ctl.tasks.run
    monkeypatch.setattr(ctl.tasks, "run", lambda fn, *a, **kw: fn(None) if kw.get("key") == "mcp-start"
                        else run(fn, *a, **kw))
    Services(environ={}).update_settings({"mcp.enabled": True})
    monkeypatch.setattr(AgentRunner, "busy", property(lambda _self: True))
    _terminal("mcp", "add", "clock", "--", sys.executable, "-c", "pass")
    ctl.check_outside_changes()
    assert [s.name for s in ctl.settings.mcp.servers] == ["clock"]  # the next turn's
    assert started == []
    monkeypatch.setattr(AgentRunner, "busy", property(lambda _self: False))
    ctl.events.route(TurnEnded(1, "finished"))
    assert started == [["clock"]]


def test_a_folder_allowed_in_the_window_keeps_one_another_window_allowed(make_window, tmp_path):
    """Two windows: one allows a folder in Settings → Tools, the other (kept in focus) allows one from the
    folder offer — the list it saves is the file's with its folder added, not its own stale list."""
    w = _window_from_the_file(make_window)
    theirs, mine = tmp_path / "theirs", tmp_path / "mine"
    theirs.mkdir()
    mine.mkdir()
    Services(environ={}).update_settings({"tools.allowed_folders": [str(theirs)]})
    w.controller.allow_folder(str(mine))
    assert Settings.load()[0].tools.allowed_folders == [str(theirs), str(mine)]
    assert w.settings.tools.allowed_folders == [str(theirs), str(mine)]
def test_a_server_removed_in_settings_while_a_terminal_adds_another_both_take_effect(qtbot, make_window):
    """From the new-user trial: Settings → MCP → Remove m1, `mcp add m2` in a terminal, Save — the file held
    only what the dialog showed (m2 was lost); now m1 is gone and m2 stays."""
    _terminal("mcp", "add", "m1", "--", sys.executable, "-c", "pass")
    w = _window_from_the_file(make_window)
    w.open_settings(tab="MCP servers")
    dialog = w.settings_dialog
    assert dialog is not None
    dialog.mcp_page.select("m1")
    dialog.mcp_page.remove_server()
    _terminal("mcp", "add", "m2", "--", sys.executable, "-c", "pass")
    with qtbot.waitSignal(dialog.settings_saved, timeout=WAIT_MS):
        dialog.save_button.click()
    assert _servers_on_file() == ["m2"]
    assert [s.name for s in w.settings.mcp.servers] == ["m2"]


def test_settings_open_with_what_a_terminal_saved_just_before(qtbot, make_window):
    """From the new-user trial: `mcp add` in a terminal, then Settings (no focus change in between) listed no
    server."""
    w = _window_from_the_file(make_window)
    _terminal("mcp", "add", "clock", "--", sys.executable, "-c", "pass")
    w.open_settings(tab="MCP servers")
    assert w.settings_dialog is not None
    assert [s.name for s in w.settings_dialog.mcp_page.servers()] == ["clock"]
    w.settings_dialog.reject()


def test_the_chat_on_screen_continued_elsewhere_is_shown_as_saved(qtbot, make_window, ollama_settings):
    """From the new-user trial: `desktop-agent chat --chat ID -p …` while that chat is open in the window — on
    focus-in the window shows the new turn (it showed it only after opening another chat and coming back)."""
    from desktop_agent.core.messages import Message
    from desktop_agent.core.store import ConversationStore
    from tests.helpers.gui import last_turn_text, wait_idle

    Services(environ={}).update_settings({"mcp.enabled": False})
    saved = Services(environ={}).saved.updated({"backend": "ollama", "ollama.host": ollama_settings.ollama.host})
    w = make_window(ollama_settings, saved=saved)
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=WAIT_MS)
    w.send("Hello there")
    wait_idle(qtbot, w)
    shown = w.conversation
    count = len(shown.messages)
    other = ConversationStore()  # another program's connection to the same store
    try:
        other.add_message(shown, Message(role="user", content="Say hello to Bob"))
        other.add_message(shown, Message(role="assistant", content="Hello, Bob!"))
    finally:
        other.close()
    w.controller.check_outside_changes()
    assert w.conversation.id == shown.id
    assert len(w.conversation.messages) == count + 2
    assert last_turn_text(w) == "Hello, Bob!"  # the view shows the chat as saved
