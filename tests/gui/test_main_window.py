"""The main window against the local Ollama protocol server, through the real backend, agent, tools
and store (issue 3). Offscreen; windows are closed by the ``make_window`` fixture."""

from __future__ import annotations

import itertools
import json
import time

import pytest
from PySide6.QtCore import QEventLoop, Qt, QTimer

from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.agent_runner import TurnEnded
from desktop_agent.ui.chat.cards import ErrorCard
from desktop_agent.ui.chat.parts import TextPart, ThinkingPart
from desktop_agent.ui.chat.turn import AssistantTurn, UserBubble
from tests.helpers.gui import confirm_stop, free_port, last_turn_text, wait_idle
from tests.helpers.replies import text_lines, tool_call_lines
from tests.servers.ollama import HttpError, OllamaServer


def _saved(window):
    return ConversationStore().load(window.conversation.id)


def test_type_a_message_and_see_the_streamed_answer(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.chunk_delay_s = 0.02
    w = make_window(ollama_settings)
    qtbot.keyClicks(w.input, "hello there")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    assert w.busy and w.send_button.text() == "Stop"
    assert w.input.toPlainText() == ""
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "You said: hello there"
    assert w.send_button.text() == "Send" and w.send_button.accessibleName() == "Send"
    assert isinstance(w.chat.blocks[0], UserBubble)
    assert w.windowTitle().startswith("hello there")
    # saved through the store, by the worker thread
    saved = _saved(w)
    assert [(m.role, m.content) for m in saved.messages] == [
        ("user", "hello there"), ("assistant", "You said: hello there")]


def test_tool_call_shows_in_sidebar_with_live_duration_and_result(qtbot, make_window, ollama_server, tools_dir):
    """A slow tool: the sidebar row says running with a growing duration, then ok with the result."""
    settings = Settings(ollama_host=ollama_server.url, tools_dirs=[str(tools_dir)])
    ollama_server.script(tool_call_lines("slow_op", {"seconds": 0.6}))
    w = make_window(settings)
    w.send("please run the slow op")
    qtbot.waitUntil(lambda: bool(w.sidebar.runs), timeout=5000)
    run = next(iter(w.sidebar.runs.values()))
    item = w.sidebar._items[run.call_id]
    assert item.text(0) == "running" and item.text(1) == "slow_op"
    assert item.text(2) == "seconds=0.6"
    first = item.text(3)
    qtbot.waitUntil(lambda: item.text(3) != first, timeout=3000)  # live duration ticks
    wait_idle(qtbot, w)
    assert item.text(0) == "ok"
    assert run.duration_ms >= 500
    # the shown duration is the call's (a first call may also wait for the tool host to start: "1.1 s")
    from desktop_agent.ui.tool_sidebar import format_duration

    assert item.text(3) == format_duration(run.duration_ms) and item.text(3) not in ("", "0 ms")
    # selecting the row shows pretty arguments and the full result, copyable
    w.sidebar.tree.setCurrentItem(item)
    assert '"seconds": 0.6' in w.sidebar.args_view.toPlainText()
    assert "done" in w.sidebar.result_view.toPlainText()
    w.sidebar.copy_result.click()
    from PySide6.QtWidgets import QApplication

    assert "done" in QApplication.clipboard().text()
    # inline marker in the chat, and the final answer
    turn = w.chat.blocks[-1]
    assert isinstance(turn, AssistantTurn) and run.call_id in turn.chips
    assert "slow_op" in turn.chips[run.call_id].text()
    assert last_turn_text(w).startswith("The tool said:") and "done" in last_turn_text(w)


def test_shipped_tool_round_trip(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    w.send("What day of the week is 2024-03-05?")
    wait_idle(qtbot, w)
    runs = list(w.sidebar.runs.values())
    assert [r.name for r in runs] == ["day_of_week"] and runs[0].status == "ok"
    assert "Tuesday" in runs[0].result
    assert "Tuesday" in last_turn_text(w)


def test_stop_mid_stream_keeps_partial_answer(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.chunk_delay_s = 0.1
    ollama_server.script(text_lines([f"word{i} " for i in range(60)]))
    w = make_window(ollama_settings)
    w.send("tell me a long story")
    qtbot.waitUntil(lambda: "word2" in last_turn_text(w) or "word2" in _live_buffer(w), timeout=5000)
    from desktop_agent.ui.compose import STOP_GUARD_MS

    qtbot.wait(STOP_GUARD_MS)  # a click right after sending is the rest of the click that sent
    w.send_button.click()  # Send became Stop
    wait_idle(qtbot, w, 3000)
    turn = w.chat.blocks[-1]
    assert isinstance(turn, AssistantTurn)
    assert turn.tag.isVisible() and turn.tag.text() == "Stopped"
    assert "word0" in turn.text_content() and "word59" not in turn.text_content()
    saved = _saved(w)
    assert saved.messages[-1].role == "assistant" and saved.messages[-1].status == "stopped"
    assert w.send_button.text() == "Send"


def test_escape_stops(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.chunk_delay_s = 0.1
    ollama_server.script(text_lines([f"w{i} " for i in range(60)]))
    w = make_window(ollama_settings)
    w.send("go")
    qtbot.waitUntil(lambda: "w1" in _live_buffer(w), timeout=5000)
    qtbot.keyClick(w.input, Qt.Key.Key_Escape)
    wait_idle(qtbot, w, 3000)
    assert w.chat.blocks[-1].tag.text() == "Stopped"


def _live_buffer(w) -> str:
    turn = w.chat.live
    if turn is None:
        return ""
    return "".join(p.buffer for p in turn.parts if isinstance(p, TextPart))


def test_retry_after_server_down(qtbot, make_window):
    """Shared case 07-ollama-connection-refused.json: a clear inline error with Retry; the user message
    stays; nothing is saved as an assistant reply; after starting the server, Retry answers."""
    port = free_port()
    w = make_window(Settings(ollama_host=f"http://127.0.0.1:{port}"))
    w.send("hello")
    wait_idle(qtbot, w)
    cards = w.chat.error_cards()
    assert len(cards) == 1
    card = cards[0]
    assert card.title.text() == "Can't reach Ollama"
    assert f"127.0.0.1:{port}" in card.text.text() and "Traceback" not in card.text.text()
    assert "Retry" in card.buttons
    assert w.send_button.isEnabled() and w.send_button.text() == "Send"
    assert not any(isinstance(b, AssistantTurn) for b in w.chat.blocks)  # no empty answer bubble
    saved = _saved(w)
    assert [m.role for m in saved.messages] == ["user"]
    assert "not reachable" in w.server_label.text()

    server = OllamaServer(port).start()
    try:
        card.buttons["Retry"].click()
        wait_idle(qtbot, w)
        assert not w.chat.error_cards()  # the card made way for the answer
        assert last_turn_text(w) == "You said: hello"
        assert [m.role for m in _saved(w).messages] == ["user", "assistant"]
        assert server.chat_requests[-1]["messages"][-1]["content"] == "hello"
    finally:
        server.stop()


def test_model_not_found_offers_pull_then_answers(qtbot, make_window, ollama_server):
    """Shared case 06-ollama-model-not-found-404.json: plain message, Pull action (with progress), the
    installed models offered, no empty assistant message saved; after the pull the turn is retried."""
    ollama_server.strict_models = True
    ollama_server.pull_delay_s = 0.02
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
    w.send("hello")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[0]
    assert "llama2" in card.title.text() and "not installed" in card.title.text()
    assert "ollama pull llama2" in card.text.text()
    assert {"Pull llama2", "Use llama3.2:latest", "Use qwen3:8b"} <= set(card.buttons)
    assert [m.role for m in _saved(w).messages] == ["user"]
    card.buttons["Pull llama2"].click()
    qtbot.waitUntil(lambda: card.progress.isVisible(), timeout=3000)
    qtbot.waitUntil(lambda: not w.chat.error_cards() and not w.busy and bool(last_turn_text(w)), timeout=10_000)
    assert last_turn_text(w) == "You said: hello"
    assert ollama_server.has_model("llama2")


def test_use_installed_model_action(qtbot, make_window, ollama_server):
    ollama_server.strict_models = True
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
    w.send("hi")
    wait_idle(qtbot, w)
    w.chat.error_cards()[0].buttons["Use qwen3:8b"].click()
    wait_idle(qtbot, w)
    assert w.settings.ollama.model == "qwen3:8b"
    assert last_turn_text(w) == "You said: hi"
    assert ollama_server.chat_requests[-1]["model"] == "qwen3:8b"


def test_window_never_blocks_while_backend_is_slow(qtbot, make_window, ollama_server, ollama_settings):
    """An event-loop heartbeat keeps ticking while the server loads the model and streams slowly."""
    ollama_server.first_chunk_delay_s = 0.6
    ollama_server.chunk_delay_s = 0.1
    w = make_window(ollama_settings)
    stamps: list[float] = []
    beat = QTimer()
    beat.setInterval(20)
    beat.timeout.connect(lambda: stamps.append(time.monotonic()))
    beat.start()
    w.send("a slow answer please")
    wait_idle(qtbot, w)
    beat.stop()
    assert last_turn_text(w) == "You said: a slow answer please"
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert len(stamps) >= 30  # ≈ 1 s of 20 ms beats
    assert max(gaps) < 0.5  # generous: the loop never stalled


def test_enter_sends_shift_enter_adds_a_line(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    qtbot.keyClicks(w.input, "line one")
    qtbot.keyClick(w.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(w.input, "line two")
    assert w.input.toPlainText() == "line one\nline two"
    assert not w.busy and not w.chat.blocks
    qtbot.keyClick(w.input, Qt.Key.Key_Enter)  # keypad Enter sends too
    assert w.busy
    wait_idle(qtbot, w)
    bubble = w.chat.blocks[0]
    assert isinstance(bubble, UserBubble) and bubble.message.content == "line one\nline two"


def test_empty_input_is_not_sent(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    qtbot.keyClicks(w.input, "   ")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    assert not w.busy and not w.chat.blocks


def test_non_ascii_message_round_trip(qtbot, make_window, ollama_settings):
    """Shared case 26 (unicode): typed text via setPlainText (keyClicks with non-ASCII aborts Qt)."""
    w = make_window(ollama_settings)
    w.input.setPlainText("你好，世界 — café")
    qtbot.keyClick(w.input, Qt.Key.Key_Return)
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "You said: 你好，世界 — café"


def test_thinking_shown_collapsed_with_duration(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.chunk_delay_s = 0.05
    ollama_server.script(text_lines(["The answer ", "is **42**."], thinking="Let me think about it."))
    w = make_window(ollama_settings)
    w.send("meaning of life?")
    wait_idle(qtbot, w)
    turn = w.chat.blocks[-1]
    thinking = [p for p in turn.parts if isinstance(p, ThinkingPart)]
    assert len(thinking) == 1
    part = thinking[0]
    assert part.toggle.text().startswith("Thought for ") and part.toggle.text().endswith(" s")
    assert not part.body.isVisible()
    part.toggle.click()
    assert part.body.isVisible() and "Let me think" in part.body.toPlainText()
    assert turn.text_content() == "The answer is **42**."


def test_streaming_rerenders_only_the_live_part_and_is_throttled(qtbot, make_window, ollama_server, ollama_settings):
    w = make_window(ollama_settings)
    w.send("first")
    wait_idle(qtbot, w)
    first_part = next(p for p in w.chat.blocks[-1].parts if isinstance(p, TextPart))
    renders: dict[int, int] = {}
    orig = w.chat.count_render
    w.chat.count_render = lambda part: (renders.__setitem__(id(part), renders.get(id(part), 0) + 1), orig(part))
    ollama_server.chunk_delay_s = 0.004
    ollama_server.script(text_lines([f"t{i} " for i in range(300)]))
    w.send("second")
    wait_idle(qtbot, w)
    assert id(first_part) not in renders  # earlier messages are never re-rendered
    assert sum(renders.values()) < 100  # 300 deltas, throttled to ≤ ~30 fps
    assert "t299" in last_turn_text(w)


def test_quit_action_and_shortcuts(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    assert w.tool_dock.isVisible()
    w.toggle_tools_action.trigger()
    assert not w.tool_dock.isVisible()
    assert w.toggle_tools_action.shortcut().toString() == "Ctrl+Shift+T"
    w.toggle_tools_action.trigger()
    assert w.tool_dock.isVisible()
    w.chat.setFocus()
    w.focus_action.trigger()
    assert w.input.hasFocus() or qtbot.waitUntil(lambda: w.input.hasFocus(), timeout=1000) is None
    assert w.focus_action.shortcut().toString() == "Ctrl+L"
    assert w.new_chat_action.shortcut().toString() == "Ctrl+N"
    assert w.settings_action.shortcut().toString() == "Ctrl+,"
    assert w.quit_action.shortcut().toString() == "Ctrl+Q"
    w.quit_action.trigger()
    assert not w.isVisible()


def test_new_chat_during_a_turn_asks_then_stops_it_first(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.chunk_delay_s = 0.1
    ollama_server.script(text_lines([f"w{i} " for i in range(50)]))
    w = make_window(ollama_settings)
    w.send("long one")
    qtbot.waitUntil(lambda: "w1" in _live_buffer(w), timeout=5000)
    old = w.conversation.id
    w.new_chat_action.trigger()
    assert w.busy and w.conversation.id == old  # asked first, nothing stopped yet
    confirm_stop(qtbot, w)
    wait_idle(qtbot, w, 3000)
    qtbot.waitUntil(lambda: w.conversation.id != old, timeout=2000)
    assert not w.chat.blocks and not w.sidebar.runs
    assert ConversationStore().load(old).messages[-1].status == "stopped"


def test_window_layout_is_remembered(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    w.resize(720, 520)  # within the offscreen screen (800×600): restoreGeometry clamps to it
    w.tool_dock.hide()
    assert w.history_dock.isVisible()  # shown by default
    w.history_dock.hide()
    qtbot.waitUntil(lambda: w.size().width() == 720 and not w.tool_dock.isVisible(), timeout=2000)
    qtbot.wait(50)
    w.close()
    w2 = make_window(ollama_settings, size=None)
    assert not w2.tool_dock.isVisible()
    assert w2.history_dock is not None and not w2.history_dock.isVisible()
    assert (w2.size().width(), w2.size().height()) == (720, 520)


def test_accessible_names(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    for widget in (w.input, w.send_button, w.backend_combo, w.model_combo, w.chat, w.sidebar,
                   w.sidebar.tree, w.server_label):
        assert widget.accessibleName(), widget


def test_models_listed_in_background(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.models.append({**ollama_server.models[0], "name": "mistral:7b", "model": "mistral:7b"})
    w = make_window(ollama_settings, check_server=True)
    qtbot.waitUntil(lambda: "online" in w.server_label.text(), timeout=5000)
    items = [w.model_combo.itemText(i) for i in range(w.model_combo.count())]
    assert {"llama3.2:latest", "qwen3:8b", "mistral:7b"} <= set(items)
    assert "0.12.6" in w.server_label.text()
    w.model_combo.setCurrentText("mistral:7b")
    w.model_combo.activated.emit(w.model_combo.currentIndex())
    assert w.settings.ollama.model == "mistral:7b"
    assert "mistral:7b" in w.backend_label.text()


def test_server_down_status_when_listing_fails(qtbot, make_window):
    w = make_window(Settings(ollama_host=f"http://127.0.0.1:{free_port()}"), check_server=True)
    qtbot.waitUntil(lambda: "not reachable" in w.server_label.text(), timeout=5000)
    assert "Can't reach Ollama" in w.server_label.toolTip()


def test_broken_stream_is_an_inline_error_and_keeps_the_partial(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.script(
        b'{"model":"llama3.2","created_at":"2025-01-01T00:00:00Z",'
        b'"message":{"role":"assistant","content":"Half an "},"done":false}\n'
    )
    w = make_window(ollama_settings)
    w.send("x")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[-1]
    assert "Retry" in card.buttons
    assert "Traceback" not in card.text.text()


def test_server_error_status_is_inline(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.script(HttpError(500, {"error": "out of memory"}))
    w = make_window(ollama_settings)
    w.send("x")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[-1]
    assert "out of memory" in card.text.text()


def test_loading_a_saved_chat_fills_chat_and_sidebar(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    w.send("What day of the week is 2024-03-05?")
    wait_idle(qtbot, w)
    conv_id = w.conversation.id
    w.new_chat()
    assert not w.chat.blocks
    w.open_conversation(conv_id)
    assert [type(b).__name__ for b in w.chat.blocks] == ["UserBubble", "AssistantTurn"]
    assert [r.name for r in w.sidebar.runs.values()] == ["day_of_week"]
    turn = w.chat.blocks[-1]
    assert len(turn.chips) == 1 and "Tuesday" in turn.text_content()


def test_process_events_loop_survives_many_events(qtbot, make_window, ollama_server, ollama_settings):
    """PySide6 6.12 drops a reference to True on every Signal.emit and to None on every processEvents:
    thousands of streamed events must not abort the interpreter (see desktop_agent/ui/__init__.py)."""
    ollama_server.script(text_lines(["x"] * 3000))
    w = make_window(ollama_settings)
    w.send("many")
    for _ in range(200):
        qtbot.wait(1)
        from PySide6.QtWidgets import QApplication

        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "x" * 3000
    assert isinstance(w.chat.blocks[-1], AssistantTurn)
    assert not any(isinstance(b, ErrorCard) for b in w.chat.blocks)
    assert TurnEnded  # imported API stays public


def test_settings_action_opens_dialog_and_applies_saved_settings(qtbot, make_window, ollama_server, monkeypatch):
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    w = make_window(Settings(ollama_host=ollama_server.url))
    w.settings_action.trigger()
    dlg = w.settings_dialog
    assert dlg is not None and dlg.isVisible()
    w.settings_action.trigger()  # a second Ctrl+, raises the same dialog
    assert w.settings_dialog is dlg
    new = Settings(ollama_host=ollama_server.url, ollama_model="qwen3:8b")
    dlg.settings_saved.emit(new)  # what Save does after writing the file
    dlg.close()
    assert w.settings.ollama.model == "qwen3:8b" and "qwen3:8b" in w.backend_label.text()
    w.send("next turn")
    wait_idle(qtbot, w)
    assert ollama_server.chat_requests[-1]["model"] == "qwen3:8b"


def test_history_panel_docked_lists_and_opens_chats(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    panel = w.history_panel
    assert panel is not None and w.history_dock.widget() is panel
    assert w.history_action.shortcut().toString() == "Ctrl+H"
    w.send("first chat")
    wait_idle(qtbot, w)
    first = w.conversation.id
    assert panel.current_id() == first  # listed and selected after the turn
    w.new_chat()
    w.send("second chat")
    wait_idle(qtbot, w)
    panel.conversation_activated.emit(first)
    assert w.conversation.id == first and w.chat.blocks[0].message.content == "first chat"
    panel.conversation_renamed.emit(first, "Renamed chat")
    assert w.windowTitle().startswith("Renamed chat")
    panel.conversation_deleted.emit(first)
    assert w.conversation.id != first and not w.chat.blocks


def test_search_hit_opens_the_chat_at_that_message(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    for i in range(3):
        w.send(f"message number {i}")
        wait_idle(qtbot, w)
    conv = w.conversation
    target = conv.messages[2]  # "message number 1"
    w.new_chat()
    w.history_panel.message_activated.emit(conv.id, target.id)
    assert w.conversation.id == conv.id
    assert any(getattr(b, "message", None) is not None and b.message.id == target.id for b in w.chat.blocks)


class _BrokenBackend:
    """A backend with a bug: its stream raises something that is not an AgentError."""

    name, model = "ollama", "broken"

    def stream_chat(self, messages, tools=None, tool_choice="auto", cancel=None, stream=True):
        raise ValueError("a bug in the backend")
        yield  # pragma: no cover

    def list_models(self):
        return []

    def describe(self):
        return "broken"

    def close(self):
        pass


def _capture_dialog(monkeypatch):
    from desktop_agent.ui import errors as ui_errors

    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(ui_errors.reporter(), "handler", lambda summary, details: seen.append((summary, details)))
    return seen


@pytest.mark.expect_log("desktop_agent.ui", match="^Unexpected error in the agent")
def test_unexpected_error_in_the_loop_opens_the_dialog(qtbot, make_window, monkeypatch):
    """Not a core error: an inline card (with Retry) and the dialog with the traceback, never a bare one."""
    from desktop_agent.core.assembly import Assembly

    seen = _capture_dialog(monkeypatch)
    w = make_window(Settings(tools_enabled=False), assembly=Assembly(backend_factory=lambda s, k: _BrokenBackend()))
    w.send("hi")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[-1]
    assert card.title.text() == "Unexpected error" and "Retry" in card.buttons
    assert "Traceback" not in card.text.text()
    qtbot.waitUntil(lambda: bool(seen), timeout=2000)
    assert seen[0][0].startswith("ValueError: a bug in the backend")
    assert "Traceback (most recent call last)" in seen[0][1]


@pytest.mark.expect_log("desktop_agent.ui.agent_runner", match="^the turn crashed")
@pytest.mark.expect_log("desktop_agent.ui", match="^Unexpected error in the agent")
def test_crash_while_building_the_agent_is_reported(qtbot, make_window, monkeypatch):
    from desktop_agent.core.assembly import Assembly

    def broken_factory(settings, keys):
        raise RuntimeError("cannot build")

    seen = _capture_dialog(monkeypatch)
    w = make_window(Settings(tools_enabled=False), assembly=Assembly(backend_factory=broken_factory))
    w.send("hi")
    wait_idle(qtbot, w)
    assert w.chat.error_cards()[-1].title.text() == "Unexpected error"
    qtbot.waitUntil(lambda: bool(seen), timeout=2000)
    assert "RuntimeError: cannot build" in seen[0][0]
    assert w.send_button.text() == "Send"


def test_model_listing_waits_until_the_turn_has_ended(qtbot, make_window, ollama_server, ollama_settings):
    """With llama-cpp-python's server a second request mid-stream cuts the running answer short, so
    the window lists models (after settings are saved, F5) only once the turn has ended — and asks
    made meanwhile give one listing, with the saved settings."""
    ollama_server.chunk_delay_s = 0.05
    w = make_window(ollama_settings)

    def tags() -> int:
        return sum(1 for path, _ in list(ollama_server.requests) if path == "/api/tags")

    text = " ".join(f"w{i}" for i in range(30))
    w.send(text)
    qtbot.waitUntil(lambda: bool(last_turn_text(w)), timeout=5000)  # the answer is streaming
    assert w.busy
    w.apply_settings(ollama_settings.updated({"generation.temperature": 0.4}))  # the dialog's Save
    w.refresh_action.trigger()  # F5
    assert w.settings.generation.temperature == 0.4
    tags_while_busy: list[int] = []

    def turn_ended() -> bool:
        if w.busy:
            tags_while_busy.append(tags())
        return not w.busy

    qtbot.waitUntil(turn_ended, timeout=10_000)
    assert tags_while_busy and max(tags_while_busy) == 0  # ~1 s of stream after the asks, none sent
    assert last_turn_text(w) == "You said: " + text  # the answer was not cut short
    qtbot.waitUntil(lambda: "online" in w.server_label.text(), timeout=5000)
    assert tags() == 1 and w.model_combo.findText("qwen3:8b") >= 0
    # idle again: a listing goes out at once
    w.refresh_action.trigger()
    qtbot.waitUntil(lambda: tags() == 2, timeout=5000)


def test_the_error_cards_pull_can_be_cancelled(qtbot, make_window, ollama_server):
    """The chat's error card pulls through the window's one pull controller (the one Settings uses) and
    offers Cancel while it runs; cancelling keeps the card and its actions."""
    ollama_server.strict_models = True
    ollama_server.pull_delay_s = 0.3
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
    w.send("hello")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[0]
    card.buttons["Pull llama2"].click()
    qtbot.waitUntil(lambda: card.cancel_button.isVisible(), timeout=3000)
    assert w.pull.busy and w.pull.model == "llama2"
    with qtbot.waitSignal(w.pull.cancelled, timeout=5000):
        card.cancel_button.click()
    assert not card.cancel_button.isVisible() and card.buttons["Pull llama2"].isEnabled()
    assert "Stopped pulling llama2" in w.statusBar().currentMessage()
    assert not ollama_server.has_model("llama2")


def test_new_chat_during_a_turn_can_keep_the_answer(qtbot, make_window, ollama_server, ollama_settings):
    """New chat while an answer streams asks; "Keep the answer" leaves it running to its end, in its chat."""
    ollama_server.chunk_delay_s = 0.05
    ollama_server.script(text_lines([f"w{i} " for i in range(20)]))
    w = make_window(ollama_settings)
    w.send("long one")
    qtbot.waitUntil(lambda: "w1" in _live_buffer(w), timeout=5000)
    old = w.conversation.id
    w.new_chat_action.trigger()
    qtbot.waitUntil(lambda: w.confirm_stop is not None, timeout=3000)
    keep = next(b for b in w.confirm_stop.buttons() if b.text() == "Keep the answer")
    keep.click()
    wait_idle(qtbot, w, 10_000)
    assert w.conversation.id == old
    saved = ConversationStore().load(old)
    assert saved.messages[-1].status == "complete" and "w19" in saved.messages[-1].content


def test_the_stop_question_goes_away_when_the_answer_ends_first(qtbot, make_window, ollama_server, ollama_settings):
    """New chat asked "stop the answer?" but the answer ended before the user replied: the question closes and
    the new chat starts (nothing is left to stop)."""
    ollama_server.chunk_delay_s = 0.05
    ollama_server.script(text_lines([f"w{i} " for i in range(10)]))
    w = make_window(ollama_settings)
    w.send("short one")
    qtbot.waitUntil(lambda: "w1" in _live_buffer(w), timeout=5000)
    old = w.conversation.id
    w.new_chat_action.trigger()
    qtbot.waitUntil(lambda: w.confirm_stop is not None, timeout=3000)
    wait_idle(qtbot, w, 10_000)
    qtbot.waitUntil(lambda: w.confirm_stop is None and w.conversation.id != old, timeout=3000)
    assert ConversationStore().load(old).messages[-1].status == "complete"


def test_a_newer_settings_file_survives_a_model_pick_in_the_window(qtbot, make_window, tmp_path, monkeypatch):
    from desktop_agent.core import paths
    from desktop_agent.core.services import load_settings

    paths.set_home(tmp_path / "home2")
    newer = {"version": 3, "backend": "ollama", "ollama": {"model": "future-model"}, "new_group": {"x": 1}}
    paths.settings_file().write_text(json.dumps(newer))
    layered = load_settings()
    w = make_window(layered.effective, saved=layered.saved, store=False)
    w._on_model_picked("qwen3:8b")  # what picking a model in the toolbar does
    kept = json.loads(paths.settings_file().read_text())
    siblings = sorted(f.name for f in paths.settings_file().parent.iterdir())
    # FAULT: the version-3 file is overwritten with version 2 defaults, no copy kept
    assert kept.get("version") == 3 or any(".bad-" in n or "backup" in n for n in siblings), (kept, siblings)


@pytest.mark.usefixtures("clean_keyring_state")
def test_the_streaming_answer_names_its_model_from_the_start(qtbot, make_window, ollama_server, ollama_settings):
    """The header of a streaming answer showed only the time, the model name appeared at the end."""
    ollama_server.chunk_delay_s = 0.05
    ollama_server.script(text_lines([f"w{i} " for i in range(30)]))
    w = make_window(ollama_settings)
    w.send("go")
    qtbot.waitUntil(lambda: w.chat.live is not None and any(
        isinstance(p, TextPart) and p.buffer for p in w.chat.live.parts), timeout=5000)
    assert "llama3.2" in w.chat.live.meta.text()
    w.stop()
    wait_idle(qtbot, w)


@pytest.mark.usefixtures("clean_keyring_state")
def test_an_older_error_card_no_longer_offers_retry_once_the_chat_moved_on(qtbot, make_window, ollama_server):
    """An error, then a new message: the old card kept a live Retry / Pull / Use that acted on the
    latest message instead of the one it was shown for."""
    ollama_server.strict_models = True
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
    w.send("first")
    wait_idle(qtbot, w)
    old = w.chat.error_cards()[0]
    assert old.buttons["Pull llama2"].isEnabled()
    w.controller.update_settings({"ollama.model": "qwen3:8b"})
    w.send("second")
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "You said: second"
    assert old in w.chat.error_cards()  # the error stays visible: nothing is lost
    assert not any(b.isEnabled() for b in old.buttons.values())


@pytest.mark.usefixtures("clean_keyring_state")
def test_retry_still_replaces_the_latest_error(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.script(HttpError(500, {"error": "boom"}))
    w = make_window(ollama_settings)
    w.send("hello")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[-1]
    assert card.buttons["Retry"].isEnabled()
    card.buttons["Retry"].click()
    wait_idle(qtbot, w)
    assert not w.chat.error_cards() and last_turn_text(w) == "You said: hello"


@pytest.mark.expect_log("desktop_agent.ui.history.dock", match="^could not create the history panel")
def test_a_history_panel_that_cannot_be_made_is_said_and_the_chat_goes_on(qtbot, make_window, monkeypatch):
    from desktop_agent.ui.history import panel

    def broken(_store):
        raise RuntimeError("no list today")

    monkeypatch.setattr(panel, "HistoryPanel", broken)
    w = make_window()
    qtbot.waitUntil(lambda: "The list of past chats could not be shown (no list today)"
                    in w.statusBar().currentMessage(), timeout=10_000)
    assert w.history_panel is None and w.input.isEnabled()
