"""The real main window while an answer streams: new chat, backend switch, opening or deleting a chat,
Retry pressed twice, Stop-then-Enter, huge tool results and huge answers. Offscreen, against the local
Ollama protocol server; windows are held and closed by ``make_window`` (tests/conftest.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.chat.parts import TextPart
from desktop_agent.ui.chat.turn import AssistantTurn, UserBubble
from desktop_agent.ui.compose import STOP_GUARD_MS
from tests.helpers.gui import confirm_stop, free_port, last_turn_text, wait_idle
from tests.helpers.replies import text_lines
from tests.servers.ollama import OllamaServer

WORDS = [f"word{i} " for i in range(80)]


def _live_text(w) -> str:
    turn = w.chat.live
    if turn is None:
        return ""
    return "".join(p.buffer for p in turn.parts if isinstance(p, TextPart))


def _start_streaming(qtbot, w, server, text="tell me a long story"):
    server.chunk_delay_s = 0.05
    server.script(text_lines(WORDS))
    w.send(text)
    qtbot.waitUntil(lambda: "word2" in _live_text(w), timeout=5000)
    qtbot.wait(STOP_GUARD_MS)  # past the guard that keeps a double click on Send from stopping
    return w.conversation.id


def _no_old_words(w) -> bool:
    return not any("word" in (b.text_content() if isinstance(b, AssistantTurn) else "") for b in w.chat.blocks)


def test_new_chat_while_streaming_keeps_old_partial_and_new_chat_is_clean(
    qtbot, make_window, ollama_server, ollama_settings
):
    w = make_window(ollama_settings)
    old_id = _start_streaming(qtbot, w, ollama_server)
    w.new_chat_action.trigger()
    confirm_stop(qtbot, w)
    wait_idle(qtbot, w, 5000)
    assert w.conversation.id != old_id and not w.conversation.messages
    assert w.chat.blocks == [] and w.chat.live is None
    assert not w.sidebar.runs
    qtbot.wait(200)  # a late event from the old stream would land now
    assert w.chat.blocks == []
    saved = ConversationStore().load(old_id)
    assert [m.role for m in saved.messages] == ["user", "assistant"]
    assert saved.messages[-1].status in ("stopped", "interrupted") and "word0" in saved.messages[-1].content
    # the new chat is usable
    w.send("second question")
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "You said: second question"
    assert _no_old_words(w)
    assert [m.content for m in ConversationStore().load(w.conversation.id).messages] == [
        "second question", "You said: second question"]


def test_switching_backend_while_streaming_does_not_break_the_turn(qtbot, make_window, ollama_server, ollama_settings):
    """The running turn keeps its backend; the switch applies from the next message; no crash."""
    w = make_window(ollama_settings)
    conv_id = _start_streaming(qtbot, w, ollama_server)
    w.backend_combo.setCurrentIndex(w.backend_combo.findData("openai"))
    assert w.settings.backend == "openai"
    wait_idle(qtbot, w, 10_000)
    assert w.conversation.id == conv_id
    assert last_turn_text(w) == "".join(WORDS)
    saved = ConversationStore().load(conv_id)
    # the switch is noted in the chat once the answer ended (a note: kept, shown, never sent)
    assert [(m.role, m.kind) for m in saved.messages] == [("user", "message"), ("assistant", "message"),
                                                          ("system", "note")]
    assert saved.messages[-1].content == "Model: llama3.2 → gpt-4o-mini"
    assert w.backend_combo.currentData() == "openai"
    assert "OpenAI" in w.backend_label.text()


def test_opening_another_chat_while_streaming(qtbot, make_window, ollama_server, ollama_settings):
    store = ConversationStore()
    other = Conversation()
    store.add_message(other, Message(role="user", content="an older question"))
    store.add_message(other, Message(role="assistant", content="an older answer"))
    w = make_window(ollama_settings)
    old_id = _start_streaming(qtbot, w, ollama_server)
    w.open_conversation(other.id)
    confirm_stop(qtbot, w)
    wait_idle(qtbot, w, 5000)
    qtbot.waitUntil(lambda: w.conversation.id == other.id, timeout=3000)
    qtbot.wait(200)
    assert [b.text_content() for b in w.chat.blocks if isinstance(b, AssistantTurn)] == ["an older answer"]
    assert _no_old_words(w) and w.chat.live is None and not w.sidebar.runs
    assert [m.content for m in ConversationStore().load(other.id).messages] == ["an older question", "an older answer"]
    old = ConversationStore().load(old_id)
    assert old.messages[-1].role == "assistant" and old.messages[-1].status in ("stopped", "interrupted")
    w.send("follow-up")
    wait_idle(qtbot, w)
    assert [m.content for m in ConversationStore().load(other.id).messages][-2:] == ["follow-up", "You said: follow-up"]


def test_retry_pressed_twice_runs_one_turn(qtbot, make_window):
    port = free_port()
    w = make_window(Settings(ollama_host=f"http://127.0.0.1:{port}"))
    w.send("hello")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[0]
    server = OllamaServer(port).start()
    try:
        server.chunk_delay_s = 0.05
        retry = card.buttons["Retry"]
        retry.click()
        retry.click()  # a double click: the card may already be gone
        w.retry()
        wait_idle(qtbot, w)
        assert len(server.chat_requests) == 1
        assert [m.role for m in ConversationStore().load(w.conversation.id).messages] == ["user", "assistant"]
        assert sum(isinstance(b, UserBubble) for b in w.chat.blocks) == 1
        assert sum(isinstance(b, AssistantTurn) for b in w.chat.blocks) == 1
    finally:
        server.stop()


def test_enter_while_the_stop_is_still_landing(qtbot, make_window, ollama_server, ollama_settings):
    """Stop then Enter at once: the typed text is neither lost nor sent twice, nor mixed into the old turn."""
    w = make_window(ollama_settings)
    conv_id = _start_streaming(qtbot, w, ollama_server)
    w.send_button.click()  # Stop
    qtbot.keyClicks(w.input, "next question")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    wait_idle(qtbot, w, 5000)
    if w.input.toPlainText() == "next question":  # refused while stopping: still there to send
        qtbot.keyClick(w.input, Qt.Key.Key_Return)
        wait_idle(qtbot, w)
    assert w.input.toPlainText() == ""
    msgs = ConversationStore().load(conv_id).messages
    assert [m.role for m in msgs] == ["user", "assistant", "user", "assistant"]
    assert msgs[1].status == "stopped" and msgs[2].content == "next question"
    assert msgs[3].content == "You said: next question"
    assert sum(1 for b in w.chat.blocks if isinstance(b, UserBubble) and b.message.content == "next question") == 1


def test_deleting_the_open_streaming_chat(qtbot, make_window, ollama_server, ollama_settings):
    w = make_window(ollama_settings)
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=5000)
    conv_id = _start_streaming(qtbot, w, ollama_server)
    assert w.history_panel.delete(conv_id, confirm=False)
    wait_idle(qtbot, w, 5000)
    qtbot.wait(200)
    assert w.conversation.id != conv_id and w.chat.blocks == []
    store = ConversationStore()
    # the deleted chat stays deleted: the partial answer saved as the turn stopped must not resurrect it
    assert conv_id not in [s.id for s in store.list()]
    assert w.history_panel.model.row_of(conv_id) is None
    w.send("still works")
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "You said: still works"
    assert [s.id for s in store.list()] == [w.conversation.id]


def _heartbeat():
    beats: list[int] = []
    t = QTimer()
    t.setInterval(10)
    t.timeout.connect(lambda: beats.append(1))
    t.start()
    return t, beats


def test_two_mb_tool_result_and_200_tool_calls_stay_responsive(qtbot, make_window, ollama_settings):
    """A saved chat with 200 tool calls, one of them with a 2 MB result: opening it creates one sidebar
    row per call, only a page of chat widgets, and the event loop keeps ticking while it loads."""
    from desktop_agent.core.messages import ToolCall

    store = ConversationStore()
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="run lots of tools"))
    big = "x" * (2 * 1024 * 1024)
    for i in range(200):
        call = ToolCall(id=f"c{i}", name="echo", arguments={"i": i})
        store.add_message(conv, Message(role="assistant", content="", tool_calls=[call]))
        store.add_message(conv, Message(role="tool", content=big if i == 7 else f"r{i}", tool_call_id=f"c{i}",
                                        tool_name="echo", tool_status="ok"))
    store.add_message(conv, Message(role="assistant", content="all done"))
    w = make_window(ollama_settings)
    timer, beats = _heartbeat()
    w.open_conversation(conv.id)
    before = len(beats)
    qtbot.wait(300)
    timer.stop()
    assert len(beats) - before >= 5  # the loop ticks after the load
    assert len(w.sidebar.runs) == 200
    assert w.sidebar.tree.topLevelItemCount() == 200
    assert len(w.chat.blocks) <= 2 * w.chat.PAGE
    assert "all done" in last_turn_text(w)
    item = w.sidebar._items["c7"]
    w.sidebar.tree.setCurrentItem(item)
    # selecting the 2 MB row froze the window (laying out 2 MB without spaces): a bounded view, full copy
    shown = w.sidebar.result_view.toPlainText()
    assert 1000 <= len(shown) < 200_000 and "more characters not shown" in shown
    w.sidebar.copy_result.click()
    from PySide6.QtWidgets import QApplication

    assert len(QApplication.clipboard().text()) == len(big)


def _huge_table(rows=2000, cols=20) -> str:
    head = "| " + " | ".join(f"c{j}" for j in range(cols)) + " |\n"
    sep = "|" + "---|" * cols + "\n"
    body = "".join("| " + " | ".join(f"r{i}c{j}" for j in range(cols)) + " |\n" for i in range(rows))
    return head + sep + body


def test_huge_answer_is_shown_as_plain_text(qtbot, make_window, ollama_settings):
    from desktop_agent.ui.chat import parts

    table = _huge_table()
    assert len(table) > parts.PLAIN_TEXT_LIMIT
    store = ConversationStore()
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="a table please"))
    store.add_message(conv, Message(role="assistant", content=table))
    w = make_window(ollama_settings)
    w.open_conversation(conv.id)
    part = next(p for b in w.chat.blocks if isinstance(b, AssistantTurn) for p in b.parts if isinstance(p, TextPart))
    assert part.plain
    assert "too large to format" in part.note_text()
    assert "| r1999c19 |" in part.toPlainText()
    assert part.document().toHtml().count("<td") == 0  # no 40,000-cell table layout


def test_normal_answer_still_renders_markdown(qtbot, make_window, ollama_settings):
    store = ConversationStore()
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="small table"))
    store.add_message(conv, Message(role="assistant", content=_huge_table(3, 3) + "\n**bold**"))
    w = make_window(ollama_settings)
    w.open_conversation(conv.id)
    part = next(p for b in w.chat.blocks if isinstance(b, AssistantTurn) for p in b.parts if isinstance(p, TextPart))
    assert not part.plain and part.note_text() == ""
    assert part.document().toHtml().count("<td") >= 9
    assert "**bold**" not in part.toPlainText()


def test_huge_streamed_answer_switches_to_plain_text(qtbot, make_window, ollama_server, ollama_settings):
    """300 KB streamed: the live part stops re-rendering markdown once the answer passes the limit."""
    from desktop_agent.ui.chat import parts

    piece = "lorem ipsum **dolor** sit amet " * 400  # ≈ 12 KB
    n = parts.PLAIN_TEXT_LIMIT // len(piece) + 3
    ollama_server.script(text_lines([piece] * n))
    w = make_window(ollama_settings)
    timer, beats = _heartbeat()
    w.send("a very long answer")
    wait_idle(qtbot, w, 20_000)
    timer.stop()
    part = next(p for p in w.chat.blocks[-1].parts if isinstance(p, TextPart))
    assert part.plain and "too large to format" in part.note_text()
    assert part.toPlainText().count("**dolor**") == 400 * n
    assert len(beats) > 0


def test_a_save_cannot_land_between_marking_and_deleting(qtbot, make_window, ollama_settings):
    """A save racing the history panel's Delete never brings the chat back: the store refuses saves into a
    chat it deleted, under its lock, so the window needs no bookkeeping of its own."""
    from desktop_agent.core.session import ChatSession

    w = make_window(ollama_settings)
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=5000)
    store = ConversationStore()
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="to be deleted"))
    w.history_panel.refresh()
    session = ChatSession(conv, w.store)  # the worker's session, saving as its agent reports messages
    original_delete = w.history_panel.store.delete
    order: list[str] = []

    def delete(cid):
        order.append("store.delete")
        original_delete(cid)
        # a worker save arriving right after the delete must be refused
        session.save_message(conv, Message(role="assistant", content="late partial", status="stopped"))

    w.history_panel.store.delete = delete
    assert w.history_panel.delete(conv.id, confirm=False)
    assert order == ["store.delete"]
    assert conv.id not in [s.id for s in ConversationStore().list()]
