"""Opening a chat with hundreds of tool calls (issue 23): the sidebar builds the rows it shows first and the rest
in the next turns of the event loop, in order; a call asked for before its row exists (a click on its chip in the
chat) is built and selected at once; a new call of the running turn goes below all of them."""

from __future__ import annotations

import time

from desktop_agent.core.events import ToolCallStarted
from desktop_agent.core.messages import Conversation
from desktop_agent.ui.tool_sidebar import ToolSidebar
from tests.helpers.chats import long_chat


def _rows(sidebar: ToolSidebar) -> list[str]:
    tree = sidebar.tree
    return [tree.topLevelItem(i).text(2) for i in range(tree.topLevelItemCount())]


def _sidebar(qtbot) -> ToolSidebar:
    sidebar = ToolSidebar()
    qtbot.addWidget(sidebar)
    sidebar.resize(320, 700)
    sidebar.show()
    qtbot.waitExposed(sidebar)
    return sidebar


def _chat(calls: int) -> Conversation:
    return Conversation(messages=long_chat(calls * 2, tool_every=2, result_chars=200))


def test_the_first_rows_come_at_once_and_the_rest_follow_in_order(qtbot):
    sidebar = _sidebar(qtbot)
    chat = _chat(500)
    order = [c.arguments for m in chat.messages for c in m.tool_calls]
    t = time.perf_counter()
    sidebar.load(chat)
    built_ms = (time.perf_counter() - t) * 1000
    assert sidebar.tree.topLevelItemCount() == ToolSidebar.FIRST_ROWS < 500
    assert len(sidebar.runs) == 500  # every call is known at once (only its row waits)
    qtbot.waitUntil(lambda: sidebar.tree.topLevelItemCount() == 500, timeout=5000)
    assert _rows(sidebar) == [f'i={a["i"]}' for a in order]  # oldest first, none twice
    print(f"first rows built in {built_ms:.1f} ms")


def test_a_call_asked_for_before_its_row_is_built_is_shown_at_once(qtbot):
    sidebar = _sidebar(qtbot)
    chat = _chat(500)
    last = [c for m in chat.messages for c in m.tool_calls][-1]
    sidebar.load(chat)
    sidebar.select_call(last.id)  # before the event loop ran: its row did not exist
    assert sidebar.tree.topLevelItemCount() == 500
    assert sidebar.tree.currentItem().text(2) == f'i={last.arguments["i"]}'


def test_a_new_call_goes_below_the_opened_chats_calls(qtbot):
    sidebar = _sidebar(qtbot)
    sidebar.load(_chat(300))
    sidebar.on_started(ToolCallStarted("new-call", "lookup", {"i": "new"}))
    assert sidebar.tree.topLevelItemCount() == 301
    assert _rows(sidebar)[-1] == "i=new"


def test_opening_another_chat_stops_building_the_first(qtbot):
    sidebar = _sidebar(qtbot)
    sidebar.load(_chat(400))
    sidebar.load(_chat(3))
    qtbot.wait(100)
    assert sidebar.tree.topLevelItemCount() == 3
