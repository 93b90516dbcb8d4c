"""Settings → Tools in the real window against the local Ollama protocol server: the installed tools with their
switches, source and schema; a switched-off tool is not offered; Reload tools picks up a tool file dropped into
the tools folder without a restart and the next turn offers and runs it; a broken file is reported once (its
traceback in the log) and the others keep working; the folders tools may use are edited and saved."""

from __future__ import annotations

import json
import logging
import textwrap

from PySide6.QtCore import Qt

from desktop_agent.core import paths
from desktop_agent.core.settings import Settings
from desktop_agent.ui.settings.dialog import TOOLS_TAB
from tests.helpers.gui import last_turn_text, wait_idle
from tests.helpers.replies import text_lines, tool_call_lines

NEW_TOOL = '''
from typing import Annotated
from pydantic import Field
from desktop_agent import tool


@tool(read_only=True)
def count_vowels(text: Annotated[str, Field(description="The text to look at")]) -> int:
    """Count the vowels in a text."""
    return sum(ch in "aeiou" for ch in text.lower())
'''


def _offered(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


def _open_tools_page(qtbot, w):
    w.open_settings()
    dlg = w.settings_dialog
    dlg.tabs.setCurrentIndex(TOOLS_TAB)
    tool_list = dlg.tools_page.tool_list
    qtbot.waitUntil(lambda: tool_list.tree.topLevelItemCount() > 0, timeout=10_000)
    return dlg, tool_list


def test_the_tools_page_lists_each_tool_with_its_source_kind_and_schema(make_window, qtbot, ollama_settings, tmp_path):
    w = make_window(ollama_settings)
    dlg, tool_list = _open_tools_page(qtbot, w)
    assert {"calculator", "write_text_file", "fetch_url", "run_shell_command"} <= set(tool_list.names())
    write = tool_list.item("write_text_file")
    assert write.text(1) == "shipped" and write.text(2) == "changes things"
    assert tool_list.item("read_text_file").text(2) == "read-only"
    assert write.checkState(0) == Qt.CheckState.Checked
    write.setExpanded(True)
    description, schema = write.child(0), write.child(1)
    assert description.text(0).startswith("Write text to a file inside a folder the user allows")
    assert json.loads(schema.text(0))["required"] == ["path", "content"]
    dlg.reject()


def test_a_tool_switched_off_is_not_offered_and_the_switch_is_saved(make_window, qtbot, ollama_server,
                                                                   ollama_settings, tmp_path):
    w = make_window(ollama_settings.updated({"tools.only_relevant": False}))  # every tool, every message
    dlg, tool_list = _open_tools_page(qtbot, w)
    tool_list.set_enabled_tool("calculator", False)
    assert tool_list.disabled() == ["calculator"]
    dlg.save_button.click()
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=5000)
    assert Settings.load()[0].tools.disabled == ["calculator"]
    ollama_server.script(text_lines(["ok"]))
    w.send("hello")
    wait_idle(qtbot, w)
    offered = _offered(ollama_server.chat_requests[-1])
    assert "calculator" not in offered and "today" in offered


def test_reload_picks_up_a_new_tool_file_and_the_next_turn_uses_it(make_window, qtbot, ollama_server,
                                                                  ollama_settings, caplog):
    w = make_window(ollama_settings)
    ollama_server.script(text_lines(["first"]))
    w.send("before")
    wait_idle(qtbot, w)
    assert "count_vowels" not in _offered(ollama_server.chat_requests[-1])

    folder = paths.user_tools_dir()
    (folder / "vowels.py").write_text(textwrap.dedent(NEW_TOOL), encoding="utf-8")
    (folder / "broken.py").write_text("def oops(:\n", encoding="utf-8")
    (folder / "crashes.py").write_text("raise RuntimeError('no config here')\n", encoding="utf-8")
    dlg, tool_list = _open_tools_page(qtbot, w)
    caplog.clear()
    with caplog.at_level(logging.WARNING), qtbot.waitSignal(tool_list.listed, timeout=10_000):
        tool_list.reload_button.click()
    assert "count_vowels" in tool_list.names() and "calculator" in tool_list.names()
    assert tool_list.item("count_vowels").text(1) == "user"
    status = tool_list.status.text()
    assert "broken.py: syntax error at line 1" in status and "crashes.py: failed to load (RuntimeError" in status
    tracebacks = [r for r in caplog.records if r.exc_info and "crashes.py" in r.getMessage()]
    assert len(tracebacks) == 1  # once, with the traceback
    assert "reloaded" in tool_list.summary.text()
    dlg.reject()
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=5000)

    ollama_server.script(tool_call_lines("count_vowels", {"text": "Reload works"}), text_lines(["4 vowels"]))
    w.send("count the vowels")
    wait_idle(qtbot, w)
    asked, answered = ollama_server.chat_requests[-2:]
    assert _offered(asked) == ["count_vowels"]  # the one tool the message means (issue 20)
    # the tool it meant answered: the model is asked for its answer with the result as text (core/answer.py)
    assert "tools" not in answered
    assert "count_vowels(text=Reload works) returned: 4" in answered["messages"][-1]["content"]
    assert "4 vowels" in last_turn_text(w)
    # the problems were shown on the page; they are not repeated into the chat
    notices = [b for b in w.chat.blocks if "broken.py" in getattr(b, "text_content", lambda: "")()]
    assert notices == []


def test_the_chat_tools_menu_lists_the_reloaded_tools(make_window, qtbot, ollama_settings):
    w = make_window(ollama_settings)
    strip = w.chat_options
    with qtbot.waitSignal(strip.tools_listed, timeout=10_000):
        strip.list_tools()
    assert "count_vowels" not in strip.tool_actions
    (paths.user_tools_dir() / "vowels.py").write_text(textwrap.dedent(NEW_TOOL), encoding="utf-8")
    dlg, tool_list = _open_tools_page(qtbot, w)
    with qtbot.waitSignal(tool_list.listed, timeout=10_000):
        tool_list.reload()
    dlg.reject()
    with qtbot.waitSignal(strip.tools_listed, timeout=10_000):
        strip.tools_menu.popup(strip.tools_menu_button.mapToGlobal(strip.tools_menu_button.rect().bottomLeft()))
    strip.tools_menu.hide()
    assert "count_vowels" in strip.tool_actions


def test_the_folders_tools_may_use_are_edited_and_saved(make_window, qtbot, ollama_settings, tmp_path):
    w = make_window(ollama_settings)
    dlg, _tool_list = _open_tools_page(qtbot, w)
    allowed = dlg.tools_page.allowed
    docs = tmp_path / "docs"
    docs.mkdir()
    allowed.add_folder(str(docs))
    allowed.add_folder(str(tmp_path / "gone"))
    assert "gone" in allowed.note.text() and not allowed.note.isHidden()
    allowed.list.setCurrentRow(1)
    allowed.remove_button.click()
    assert allowed.folders() == [str(docs)] and allowed.note.isHidden()
    dlg.save_button.click()
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=5000)
    assert Settings.load()[0].tools.allowed_folders == [str(docs)]
    assert w.saved.tools.allowed_folders == [str(docs)]


def test_a_file_tool_refused_for_want_of_a_folder_offers_to_allow_one(make_window, qtbot, ollama_server,
                                                                      ollama_settings, tmp_path):
    """The first use asks to add a folder: the bar's folder is saved, and the model's next call works."""
    w = make_window(ollama_settings, saved=ollama_settings)
    assert w.folder_offer.isHidden()
    ollama_server.script(tool_call_lines("list_directory", {}), text_lines(["I need a folder."]))
    w.send("what is in my documents?")
    wait_idle(qtbot, w)
    refused = ollama_server.chat_requests[-1]["messages"][-1]
    assert refused["role"] == "tool" and "no folder is allowed" in refused["content"]
    assert w.folder_offer.isVisible()

    docs = tmp_path / "Documents"
    docs.mkdir()
    (docs / "plan.txt").write_text("x", encoding="utf-8")
    w.folder_offer.choose(str(docs))
    assert w.folder_offer.isHidden()
    assert Settings.load()[0].tools.allowed_folders == [str(docs)]  # saved: the tools read it there
    assert w.settings.tools.allowed_folders == [str(docs)]

    ollama_server.script(tool_call_lines("list_directory", {}), text_lines(["You have plan.txt."]))
    w.send("and now?")
    wait_idle(qtbot, w)
    listed = json.loads(ollama_server.chat_requests[-1]["messages"][-1]["content"])
    assert [e["name"] for e in listed["entries"]] == ["plan.txt"]
    assert w.folder_offer.isHidden()
