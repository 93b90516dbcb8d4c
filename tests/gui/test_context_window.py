"""Issue 13 in the window: a long chat on a small-window model shows its context meter, can be summarised (a
collapsed card) and un-summarised; a message that cannot fit is warned about before it is sent."""

from __future__ import annotations

import os
from pathlib import Path

from desktop_agent.core.messages import Conversation
from desktop_agent.ui.chat import context_meter
from desktop_agent.ui.chat.summary_card import SummaryCard
from tests.helpers.chats import long_chat

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def open_long_chat(w, turns: int = 110) -> Conversation:
    conv = Conversation(messages=long_chat(turns, tool_every=4, result_chars=500))
    w.store.add_conversations([conv])
    w.open_conversation(conv.id)
    return conv


def wait_idle(qtbot, w) -> None:
    qtbot.waitUntil(lambda: not w.busy, timeout=20000)


def test_a_long_chat_shows_its_meter_and_is_compacted_and_uncompacted(make_window, qtbot, ollama_server,
                                                                      ollama_settings):
    ollama_server.model_facts["llama3.2"] = (2048, ["completion", "tools"])
    ollama_server.truncate_to_num_ctx = True
    w = make_window(ollama_settings.updated({"models.auto_compact": False, "tools.only_relevant": False}))
    conv = open_long_chat(w)
    assert not w.context_meter.isVisible(), "no request yet: nothing to show"
    w.send("what day is it?")
    qtbot.waitUntil(lambda: w.context_meter.isVisible(), timeout=20000)
    wait_idle(qtbot, w)
    assert w.context_meter.label.text().endswith("/ 2k")
    assert w.context_meter.bar.maximum() == 2048 and 0 < w.context_meter.bar.value() <= 2048
    assert "did not fit" in w.context_meter.toolTip()
    body = ollama_server.chat_requests[-1]
    assert body["options"]["num_ctx"] == 2048 and body["tools"]
    if os.environ.get("SCREENSHOTS") or not (SCREENSHOTS / "context-meter.png").exists():
        w.statusBar().grab().save(str(SCREENSHOTS / "context-meter.png"))

    # Summarise: a collapsed card; the originals stay in the chat
    w.context_meter.compact.click()
    qtbot.waitUntil(lambda: bool(w.chat.summary_cards()), timeout=20000)
    wait_idle(qtbot, w)
    (card,) = w.chat.summary_cards()
    assert isinstance(card, SummaryCard) and card.body.isHidden()
    card.toggle.click()
    assert not card.body.isHidden() and card.body.text() == card.message.content
    saved = w.store.load(conv.id)
    assert [m.kind for m in saved.messages].count("summary") == 1
    assert len(saved.messages) > len(conv.messages)
    w.chat.ensureWidgetVisible(card)
    if os.environ.get("SCREENSHOTS") or not (SCREENSHOTS / "compaction-card.png").exists():
        card.grab().save(str(SCREENSHOTS / "compaction-card.png"))

    # the next turn is sent with the summary, and still answered
    w.send("and tomorrow?")
    wait_idle(qtbot, w)
    assert "Summary of the earlier part" in ollama_server.chat_requests[-1]["messages"][0]["content"]

    # Undo: the card goes, the earlier messages are sent again
    card.undo.click()
    assert w.chat.summary_cards() == []
    assert all(m.kind == "message" for m in w.store.load(conv.id).messages)
    w.send("once more?")
    wait_idle(qtbot, w)
    assert "Summary of the earlier part" not in ollama_server.chat_requests[-1]["messages"][0]["content"]


def test_a_chat_that_outgrew_its_window_is_summarised_on_send_and_reopens_with_its_card(
        make_window, qtbot, ollama_server, ollama_settings):
    ollama_server.model_facts["llama3.2"] = (2048, ["completion", "tools"])
    w = make_window(ollama_settings)  # automatic summaries: on by default
    conv = open_long_chat(w)
    w.send("what now?")
    qtbot.waitUntil(lambda: bool(w.chat.summary_cards()), timeout=20000)
    wait_idle(qtbot, w)
    assert w.chat.blocks[-1].__class__.__name__ == "AssistantTurn"  # and the turn was answered after it
    assert "Summary of the earlier part" in ollama_server.chat_requests[-1]["messages"][0]["content"]
    w.new_chat(ask=False)
    w.open_conversation(conv.id)
    qtbot.waitUntil(lambda: bool(w.chat.summary_cards()), timeout=5000)


def test_a_message_that_cannot_fit_is_warned_about_before_sending(make_window, qtbot, ollama_server,
                                                                 ollama_settings, monkeypatch):
    ollama_server.model_facts["llama3.2"] = (1024, ["completion", "tools"])
    w = make_window(ollama_settings)
    w.send("hello")
    qtbot.waitUntil(lambda: w.context_meter.isVisible(), timeout=20000)
    wait_idle(qtbot, w)
    asked = []
    monkeypatch.setattr("desktop_agent.ui.main_window.confirm_oversized",
                        lambda parent, tokens, window: asked.append((tokens, window)) or False)
    sent = len(ollama_server.chat_requests)
    huge = "pasted text " * 2000
    w.input.setPlainText(huge)
    w.send_button.click()
    assert asked and asked[0][1] == 1024 and asked[0][0] > 1024
    assert len(ollama_server.chat_requests) == sent and w.input.toPlainText() == huge, "nothing lost"
    assert context_meter.oversized("short", "", 1024) is None


def test_the_picker_shows_what_the_model_can_do_and_tools_can_be_turned_back_on(make_window, qtbot, ollama_server,
                                                                                ollama_settings):
    """Done when: a model without tool support answers with a notice instead of failing; the user can turn
    tools back on for it (remembered in the settings)."""
    ollama_server.model_facts["llama3.2"] = (8192, ["completion"])
    w = make_window(ollama_settings)
    w.refresh_models()
    qtbot.waitUntil(lambda: w.capabilities.label.text() == "no tools", timeout=10000)
    assert w.capabilities.button.isVisible() and w.capabilities.tools_anyway.isVisible()
    assert "✗ tools" in w.capabilities.toolTip()
    w.send("what day is it?")
    wait_idle(qtbot, w)
    assert "tools" not in ollama_server.chat_requests[-1]
    assert "can't use tools" in w.chat.blocks[-1].notice.text()

    w.capabilities.tools_anyway.trigger()
    assert w.settings.models.tools_anyway == [w.settings.model] == ["llama3.2:latest"]
    w.send("what day is it?")
    wait_idle(qtbot, w)
    assert ollama_server.chat_requests[-1]["tools"]

    w._on_model_picked("qwen3:8b")
    qtbot.waitUntil(lambda: w.capabilities.label.text() == "tools · thinking", timeout=10000)
    assert not w.capabilities.button.isVisible()


def openai_window(make_window, openai_server):
    from desktop_agent.core.settings import Settings

    return make_window(Settings(backend="openai", openai_base_url=openai_server.url, openai_model="local-model",
                                openai_needs_key=False, openai_retries_per_key=0, tools_enabled=False))


def test_the_meter_shows_the_window_a_llama_cpp_server_serves(make_window, qtbot, openai_server, monkeypatch):
    """Issue 20: a llama.cpp server started with --ctx-size 4096 says so at /props; the meter shows 4.1k, not the
    8.2k default and not the model's trained window."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    openai_server.model_meta["local-model"] = {"owned_by": "llamacpp", "meta": {"n_ctx_train": 131072}}
    openai_server.props = {"default_generation_settings": {"n_ctx": 4096}}
    w = openai_window(make_window, openai_server)
    w.send("hi")
    qtbot.waitUntil(lambda: w.context_meter.isVisible(), timeout=20000)
    wait_idle(qtbot, w)
    assert w.context_meter.label.text().endswith("/ 4.1k") and w.context_meter.bar.maximum() == 4096
    assert "assumed" not in w.context_meter.toolTip()


def test_the_meter_says_assumed_when_the_server_does_not_say(make_window, qtbot, openai_server, monkeypatch):
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    w = openai_window(make_window, openai_server)
    w.send("hi")
    qtbot.waitUntil(lambda: w.context_meter.isVisible(), timeout=20000)
    wait_idle(qtbot, w)
    assert w.context_meter.label.text().endswith("/ 8.2k (assumed)")
    assert "this one is assumed" in w.context_meter.toolTip()
