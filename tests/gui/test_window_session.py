"""The window drives a ChatSession: the user's bubble is the message the session added and saved (from the
MessageAdded event, not a second copy built by the view), and the window title comes from ChatUpdated."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.events import ChatUpdated
from desktop_agent.core.settings import Settings
from desktop_agent.ui.chat.turn import UserBubble
from tests.helpers.gui import wait_idle


def test_user_bubble_is_the_saved_message(make_window, qtbot, ollama_settings, tmp_path):
    from desktop_agent.core.store import ConversationStore

    store = ConversationStore(tmp_path / "chats.sqlite3")
    w = make_window(ollama_settings.updated({"tools.enabled": False}), store=store)
    updates: list[ChatUpdated] = []
    w.runner.turn_event.connect(lambda ev: updates.append(ev) if isinstance(ev, ChatUpdated) else None)
    w.send("What is the capital of France?")
    wait_idle(qtbot, w)
    bubbles = [b for b in w.chat.blocks if isinstance(b, UserBubble)]
    assert len(bubbles) == 1
    assert bubbles[0].message is w.conversation.messages[0] and bubbles[0].message.id is not None
    assert w.chat.blocks.index(bubbles[0]) < len(w.chat.blocks) - 1  # above the answer
    assert [u.title for u in updates] == ["What is the capital of France?"]
    assert updates[0].model == "llama3.2" and updates[0].backend == "ollama"
    assert w.windowTitle().startswith("What is the capital of France?")
    store.close()


def test_text_comes_back_when_the_turn_fails_before_the_message_joined_the_chat(make_window, qtbot):
    def refuse(_settings, _keys):
        raise SettingsError("The base URL is not usable.")

    w = make_window(Settings(tools_enabled=False), assembly=Assembly(backend_factory=refuse))
    w.input.setPlainText("keep me")
    w.send_button.click()
    wait_idle(qtbot, w)
    assert not [b for b in w.chat.blocks if isinstance(b, UserBubble)]
    assert len(w.chat.error_cards()) == 1
    assert w.input.toPlainText() == "keep me"


def test_double_click_on_send_sends_once_and_does_not_stop(make_window, qtbot, ollama_server, ollama_settings):
    """The second click of a double click lands on the button that just became Stop: it must not stop the
    answer the first click started."""
    from desktop_agent.core.events import AnswerFinished, TurnCancelled

    ollama_server.chunk_delay_s = 0.05
    w = make_window(ollama_settings.updated({"tools.enabled": False}))
    ends: list[object] = []
    w.runner.turn_event.connect(lambda ev: ends.append(ev) if isinstance(ev, AnswerFinished | TurnCancelled) else None)
    w.input.setPlainText("one two three four five six")
    qtbot.mouseDClick(w.send_button, Qt.MouseButton.LeftButton)
    w.send_button.click()  # a third, quick click: still within the guard
    wait_idle(qtbot, w)
    assert [type(e).__name__ for e in ends] == ["AnswerFinished"]
    assert sum(1 for path, _ in ollama_server.requests if path == "/api/chat") == 1
    assert len([b for b in w.chat.blocks if isinstance(b, UserBubble)]) == 1


def test_stop_works_after_the_guard(make_window, qtbot, ollama_server, ollama_settings):
    from desktop_agent.core.events import TurnCancelled
    from desktop_agent.ui.compose import STOP_GUARD_MS

    ollama_server.chunk_delay_s = 0.2
    w = make_window(ollama_settings.updated({"tools.enabled": False}))
    ends: list[object] = []
    w.runner.turn_event.connect(lambda ev: ends.append(ev) if isinstance(ev, TurnCancelled) else None)
    w.send(" ".join(f"w{i}" for i in range(40)))
    qtbot.wait(STOP_GUARD_MS + 100)
    w.send_button.click()
    wait_idle(qtbot, w)
    assert len(ends) == 1


def test_empty_chat_suggests_what_the_assistant_can_do(make_window):
    from desktop_agent.ui.chat.empty_state import EmptyState

    w = make_window(Settings())
    shown = [b.text() for b in w.chat.empty_state.buttons]
    assert shown == list(EmptyState.TOOL_SUGGESTIONS) and "tools" in w.chat.empty_state.hint.text()
    w.apply_settings(Settings(tools_enabled=False))
    shown = [b.text() for b in w.chat.empty_state.buttons]
    assert shown == list(EmptyState.PLAIN_SUGGESTIONS) and "Tools are off" in w.chat.empty_state.hint.text()


def test_a_chat_whose_last_turn_failed_shows_the_failure_and_retry_when_reopened(make_window, qtbot, ollama_server,
                                                                                ollama_settings):
    from desktop_agent.ui.chat.turn import AssistantTurn
    from tests.helpers.gui import last_turn_text
    from tests.servers.ollama import HttpError

    ollama_server.script(HttpError(500, {"error": "out of memory"}))
    w = make_window(ollama_settings.updated({"tools.enabled": False}))
    w.send("hello")
    wait_idle(qtbot, w)
    chat_id = w.conversation.id
    w.new_chat()
    assert not w.chat.blocks
    w.open_conversation(chat_id)  # e.g. the next day, from the history panel
    assert [type(b).__name__ for b in w.chat.blocks] == ["UserBubble", "ErrorCard"]
    card = w.chat.error_cards()[-1]
    assert card.title.text() == "Server error" and "out of memory" in card.text.text()
    assert card.buttons["Retry"].isEnabled()
    card.buttons["Retry"].click()  # the server works again (unscripted: it answers)
    wait_idle(qtbot, w)
    assert not w.chat.error_cards() and last_turn_text(w) == "You said: hello"
    w.new_chat()
    w.open_conversation(chat_id)
    assert not w.chat.error_cards()
    assert [type(b) for b in w.chat.blocks][-1] is AssistantTurn
    assert w.store.load(chat_id).last_failure is None


def test_history_highlights_the_chat_on_screen(make_window, qtbot, ollama_settings):
    """A new chat is listed at its first message and highlighted; New chat highlights nothing; after
    deleting another chat the highlighted one is still the one shown."""
    from desktop_agent.core.store import ConversationStore

    w = make_window(ollama_settings.updated({"tools.enabled": False}))
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=5000)
    panel = w.history_panel
    w.send("first chat")
    qtbot.waitUntil(lambda: panel.current_id() == w.conversation.id, timeout=5000)  # before the answer ends
    wait_idle(qtbot, w)
    first = w.conversation.id
    w.new_chat()
    assert panel.current_id() is None
    w.send("second chat")
    wait_idle(qtbot, w)
    second = w.conversation.id
    assert panel.current_id() == second
    assert panel.delete(first, confirm=False)
    assert panel.current_id() == second == w.conversation.id
    assert first not in [s.id for s in ConversationStore().list()]


def test_at_the_minimum_size_the_chat_rewraps_instead_of_running_off(make_window, qtbot):
    """A long tool chip used to set the chat column's minimum width: in a small window the answer ran off the
    right edge. Now each block fits the visible width and the text re-wraps."""
    from desktop_agent.core.messages import Conversation, Message, ToolCall
    from desktop_agent.ui.chat.turn import AssistantTurn

    w = make_window(Settings(), store=False)
    c = Conversation()
    c.messages += [
        Message(role="user", content="How warm is it?"),
        Message(role="assistant", content="", tool_calls=[ToolCall(id="1", name="get_current_weather",
                                                                   arguments={"location": "Paris, France"})]),
        Message(role="tool", content='{"temp": 12}', tool_call_id="1", tool_name="get_current_weather",
                tool_status="ok"),
        Message(role="assistant", content="It is 12 °C in Paris. " * 8),
    ]
    w.chat.set_conversation(c)
    size = w.minimumSize().expandedTo(w.minimumSizeHint())
    w.resize(size.width(), size.height())
    qtbot.waitUntil(lambda: w.width() <= size.width() + 8, timeout=3000)
    qtbot.wait(100)
    turn = next(b for b in w.chat.blocks if isinstance(b, AssistantTurn) and b.text_content())
    assert turn.minimumSizeHint().width() < 220
    assert w.chat.column.width() <= w.chat.viewport().width()
