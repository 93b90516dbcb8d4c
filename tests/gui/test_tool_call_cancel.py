"""Cancelling one tool call from the sidebar, by keyboard: the call's process is killed, the model is told it was
cancelled by the user, and the turn goes on to run the next call and answer."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from tests.helpers.gui import last_turn_text, wait_idle


def _two_calls() -> list[dict]:
    return [
        {"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "hang", "arguments": {}}},
            {"function": {"name": "slow_op", "arguments": {"seconds": 0.1}}}]}, "done": False},
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ]


def _tab_to(qtbot, widget, limit: int = 40) -> None:
    """Press Tab from the focused widget until ``widget`` has the focus."""
    for _ in range(limit):
        if QApplication.focusWidget() is widget:
            return
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is widget, "not reachable with Tab"


def test_cancel_one_running_call_from_the_sidebar_and_the_turn_goes_on(qtbot, make_window, ollama_server, tools_dir):
    ollama_server.script(_two_calls())
    w = make_window(Settings(ollama_host=ollama_server.url, tools_dirs=[str(tools_dir)]))
    w.send("run both")
    sidebar = w.sidebar
    qtbot.waitUntil(lambda: any(r.name == "hang" and r.status == "running" for r in sidebar.runs.values()),
                    timeout=10_000)
    hang = next(r for r in sidebar.runs.values() if r.name == "hang")
    assert sidebar.cancel_call.isVisibleTo(sidebar) and sidebar.cancel_call.isEnabled()
    sidebar.grab().save("/tmp/tool-sidebar-cancel.png")

    # keyboard only: Tab from the composer reaches the list of calls, Delete there cancels the selected one
    w.input.setFocus()
    _tab_to(qtbot, sidebar.tree)
    assert sidebar.tree.currentItem() is sidebar._items[hang.call_id]
    qtbot.keyClick(sidebar.tree, Qt.Key.Key_Delete)
    assert sidebar.cancel_call.text() == "Cancelling…" and not sidebar.cancel_call.isEnabled()

    wait_idle(qtbot, w)
    assert hang.status == "cancelled"
    slow = next(r for r in sidebar.runs.values() if r.name == "slow_op")
    assert slow.status == "ok" and slow.result == "done"  # the turn went on to the next call
    assert last_turn_text(w).startswith("The tool said:")
    saved = ConversationStore().load(w.conversation.id).messages
    results = {m.tool_name: m for m in saved if m.role == "tool"}
    assert results["hang"].tool_status == "cancelled" and "cancelled by the user" in results["hang"].content
    assert saved[-1].role == "assistant" and saved[-1].status != "stopped"


def test_the_cancel_button_is_reachable_with_tab_and_cancels(qtbot, make_window, ollama_server, tools_dir):
    ollama_server.script(_two_calls())
    w = make_window(Settings(ollama_host=ollama_server.url, tools_dirs=[str(tools_dir)]))
    w.send("run both")
    sidebar = w.sidebar
    qtbot.waitUntil(lambda: any(r.name == "hang" and r.status == "running" for r in sidebar.runs.values()),
                    timeout=10_000)
    w.input.setFocus()
    _tab_to(qtbot, sidebar.cancel_call)
    qtbot.keyClick(sidebar.cancel_call, Qt.Key.Key_Space)
    wait_idle(qtbot, w)
    hang = next(r for r in sidebar.runs.values() if r.name == "hang")
    assert hang.status == "cancelled"
    assert not sidebar.cancel_call.isVisibleTo(sidebar)  # the selected call is no longer running
    assert last_turn_text(w).startswith("The tool said:")


def test_opening_another_chat_does_not_keep_a_running_calls_placeholder(qtbot):
    """A new user opened another chat while a call ran: the Result box still said "say_hello is running…"."""
    from desktop_agent.core.messages import Conversation
    from desktop_agent.ui.tool_sidebar import RESULT_PLACEHOLDER, ToolSidebar

    sidebar = ToolSidebar()
    qtbot.addWidget(sidebar)
    sidebar.started("c1", "say_hello", {"name": "Ada"})
    sidebar.tree.setCurrentItem(sidebar._items["c1"])
    assert "is running" in sidebar.result_view.placeholderText()
    sidebar.load(Conversation())
    assert sidebar.result_view.placeholderText() == RESULT_PLACEHOLDER
