"""What is learned about a model is visible and undoable in the window (issue 20): the Tools button says when
the model gets no tools and why, *Offer tools anyway* in its menu offers them in that chat on both backends,
Settings → Tools → Learned lists what was learned with Forget, and *Use this tool for the next message* forces
one tool for one message. Real window, real widgets, the local protocol servers."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from desktop_agent.core import paths
from desktop_agent.core.assembly import learned_capabilities, learned_key
from desktop_agent.core.capabilities import Capabilities, server_key
from desktop_agent.core.settings import Settings
from tests.helpers.gui import wait_idle


def learn_twice(settings: Settings, **facts: bool) -> SimpleNamespace:
    """Two observations of ``facts`` for the server and model of ``settings`` (as two turns would make)."""
    backend, url, model = learned_key(settings)
    where = {"host": url} if backend == "ollama" else {"base_url": url}
    fake = SimpleNamespace(name=backend, model=model, **where)
    caps = learned_capabilities()
    caps.learn(fake, **facts)
    caps.learn(fake, **facts)
    return fake


def open_tools_menu(qtbot, w) -> None:
    strip = w.chat_options
    with qtbot.waitSignal(strip.tools_listed, timeout=10_000):
        strip.tools_menu.popup(strip.tools_menu_button.mapToGlobal(strip.tools_menu_button.rect().bottomLeft()))


def send(qtbot, w, text: str = "hello there") -> None:
    w.send(text)
    wait_idle(qtbot, w)


def offered(body: dict) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]


@pytest.fixture
def openai_settings(openai_server) -> Settings:
    return Settings(backend="openai", openai_base_url=openai_server.url, openai_model="smollm2")


def test_one_empty_answer_leaves_the_tools_button_as_it_was(make_window, ollama_settings):
    backend, url, model = learned_key(ollama_settings)
    learned_capabilities().learn(SimpleNamespace(name=backend, host=url, model=model), auto_tools=False)
    w = make_window(ollama_settings)
    assert w.chat_options.tools_button.text() == "Tools" and w.chat_options.tools_off is None


def test_the_tools_button_says_tools_are_off_for_a_learned_model_and_offer_anyway_sends_them(
        make_window, qtbot, openai_server, openai_settings):
    learn_twice(openai_settings, auto_tools=False)
    w = make_window(openai_settings.updated({"tools.only_relevant": False}), size=(1700, 760))  # the strip unfolded
    strip = w.chat_options
    button = strip.tools_button
    assert button.isChecked()  # the chat still wants tools; the model gets none
    assert button.text() == "Tools: off for smollm2" and button.accessibleName() == "Tools: off for smollm2"
    assert button.property("blocked") is True
    assert "Tools are off for smollm2: it answered nothing when offered them" in button.toolTip()
    assert "Offer tools anyway" in button.toolTip() and "Settings → Tools → Learned" in button.toolTip()
    send(qtbot, w)
    assert "tools" not in openai_server.requests[-1] and w.session.agent.tools_anyway is False

    open_tools_menu(qtbot, w)
    anyway = strip.anyway_action
    assert anyway is not None and anyway.isVisible() and not anyway.isChecked()
    anyway.trigger()
    strip.tools_menu.hide()
    assert w.conversation.options == {"tools.offer_anyway": True}  # this chat only, saved with it
    assert button.text() == "Tools" and button.property("blocked") is False
    assert "offered anyway, although it answered nothing when offered them" in button.toolTip()
    anyway.trigger()  # off again: back to the default, no override left
    assert w.conversation.options == {} and button.text() == "Tools: off for smollm2"
    w.resize(760, 600)  # folded: shorter, but the warning stays
    qtbot.waitUntil(lambda: button.text() == "Tools: off")
    assert not button.icon().isNull()

    anyway.trigger()
    send(qtbot, w, "and now with tools")
    assert w.session.agent.tools_anyway is True
    assert "calculator" in offered(openai_server.requests[-1])
    # it answered with the tools offered: evidence the other way, so what was learned is gone
    assert learned_capabilities().entry(learned_key(openai_settings)) is None
    assert button.text() == "Tools" and strip.tools_off is None


def test_a_model_its_ollama_server_says_cannot_use_tools_shows_on_the_button_and_anyway_works(
        make_window, qtbot, ollama_server, ollama_settings):
    ollama_server.model_facts["llama3.2"] = (4096, ["completion"])
    w = make_window(ollama_settings.updated({"tools.only_relevant": False}))
    strip = w.chat_options
    w.refresh_models()
    qtbot.waitUntil(lambda: strip.tools_off is not None, timeout=10_000)
    # (":latest", as the listing names it)
    assert strip.tools_button.accessibleName().startswith("Tools: off for llama3.2")
    assert "its server says it cannot use tools" in strip.tools_button.toolTip()
    send(qtbot, w)
    assert "tools" not in ollama_server.chat_requests[-1]

    open_tools_menu(qtbot, w)
    strip.anyway_action.trigger()
    strip.tools_menu.hide()
    send(qtbot, w, "again with tools")
    assert w.session.agent.tools_anyway is True
    assert "calculator" in offered(ollama_server.chat_requests[-1])


def test_settings_lists_what_was_learned_and_forget_applies_at_once(make_window, qtbot, openai_server,
                                                                   openai_settings):
    smollm = learn_twice(openai_settings, auto_tools=False)
    other = SimpleNamespace(name="ollama", host="http://127.0.0.1:11434", model="qwen3")
    learned_capabilities().learn(other, stream_with_tools=False)
    w = make_window(openai_settings.updated({"tools.only_relevant": False}))
    assert w.chat_options.tools_button.accessibleName() == "Tools: off for smollm2"
    w.open_settings("Tools")
    dialog = w.settings_dialog
    try:
        page = dialog.tools_page
        page.sections.setCurrentWidget(page.learned)
        box = page.learned
        assert [e.model for e in box.rows] == ["qwen3", "smollm2"]
        assert box.table.item(1, 0).text() == f"smollm2\nOpenAI-compatible · {openai_server.url.rstrip('/')}"
        assert box.table.item(1, 1).text() == "Tools off: it answered nothing when offered them (2 times in a row)"
        assert box.table.item(0, 1).text().startswith("Its streamed answer came back empty when offered tools once")

        box.forget_buttons[server_key(smollm)].click()
        assert [e.model for e in box.rows] == ["qwen3"]
        written = json.loads((paths.cache_dir() / "capabilities.json").read_text(encoding="utf-8"))
        assert [row["model"] for row in written["learned"]] == ["qwen3"]  # written at once, not on Save
        reread = Capabilities()
        reread.use_file(paths.cache_dir() / "capabilities.json")
        assert reread.learned(smollm).auto_tools is True
        assert w.chat_options.tools_button.text() == "Tools"  # the open chat shows it at once

        box.forget_all_button.click()
        assert box.rows == [] and box.empty.isVisibleTo(box) and not box.forget_all_button.isEnabled()
    finally:
        dialog.reject()
    send(qtbot, w)  # the open chat's next message offers the tools again
    assert "calculator" in offered(openai_server.requests[-1])


def test_a_tool_chosen_for_the_next_message_is_used_by_that_turn_only(make_window, qtbot, openai_server,
                                                                     openai_settings):
    w = make_window(openai_settings)
    strip = w.chat_options
    open_tools_menu(qtbot, w)
    assert "day_of_week" in strip.next_tool_actions
    strip.next_tool_actions["day_of_week"].trigger()
    strip.tools_menu.hide()
    assert strip.next_tool_chip.isVisible() and strip.next_tool_chip.text() == "next: day_of_week ×"
    assert w.conversation.options == {}  # not an option of the chat

    send(qtbot, w, "what day was 2024-03-15?")
    assert w.session.agent.tool_choice == "day_of_week"
    first = openai_server.requests[0]
    assert first["tool_choice"] == {"type": "function", "function": {"name": "day_of_week"}}
    assert strip.next_tool is None and not strip.next_tool_chip.isVisible()

    before = len(openai_server.requests)
    send(qtbot, w, "and thanks")
    assert w.session.agent.tool_choice == "auto"
    assert openai_server.requests[before].get("tool_choice") in (None, "auto")


def test_the_chip_takes_the_choice_back_and_a_chat_switch_drops_it(make_window, qtbot, openai_settings):
    w = make_window(openai_settings)
    strip = w.chat_options
    strip.set_next_tool("today")
    assert strip.next_tool_chip.isVisible()
    strip.next_tool_chip.click()
    assert strip.next_tool is None and not strip.next_tool_chip.isVisible()
    strip.set_next_tool("today")
    w.new_chat(ask=False)
    assert strip.next_tool is None and not strip.next_tool_chip.isVisible()


def test_a_message_given_back_after_a_failure_keeps_its_chosen_tool(make_window, qtbot):
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.core.errors import SettingsError

    def refuse(_settings, _keys):
        raise SettingsError("The base URL is not usable.")

    w = make_window(Settings(), assembly=Assembly(backend_factory=refuse))
    w.chat_options.set_next_tool("today")
    w.input.setPlainText("what is the date?")
    w.send_button.click()
    wait_idle(qtbot, w)
    assert w.input.toPlainText() == "what is the date?"  # never joined the chat: back in the box …
    assert w.chat_options.next_tool == "today" and w.chat_options.next_tool_chip.isVisibleTo(w)  # … with its tool
