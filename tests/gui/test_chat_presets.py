"""Per-chat settings and presets in the real window, against the local Ollama protocol server: a chat keeps its own
model and system prompt (reopened: the picker and the requests have them back; a change mid-chat is a note in the
chat, never sent), a chat whose model the server no longer has says so and stays usable, and a preset picked for a
new chat is what the server is told."""

from __future__ import annotations

from desktop_agent.core import presets
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.settings import DEFAULT_SYSTEM_PROMPT
from tests.helpers.gui import wait_idle


def _store(tmp_path):
    from desktop_agent.core.store import ConversationStore

    return ConversationStore(tmp_path / "chats.sqlite3")


def _send(qtbot, w, text: str) -> None:
    w.send(text)
    wait_idle(qtbot, w)


def _last(server) -> dict:
    return server.chat_requests[-1]


def _system(body: dict) -> str:
    first = body["messages"][0]
    return first["content"] if first["role"] == "system" else ""


def _notes(w) -> list[str]:
    from desktop_agent.ui.chat.note_line import NoteLine

    return [b.label.text() for b in w.chat.blocks if isinstance(b, NoteLine)]


def test_a_reopened_chat_has_its_own_model_and_prompt_back_and_changes_are_noted(
        make_window, qtbot, ollama_server, ollama_settings, tmp_path):
    store = _store(tmp_path)
    w = make_window(ollama_settings, store=store)
    w._on_model_picked("qwen3:8b")  # before the first message: the chat just starts with it, no note
    assert w.chat_setup.edit_prompt("Answer in French.")
    _send(qtbot, w, "hello")
    body = _last(ollama_server)
    assert body["model"] == "qwen3:8b" and _system(body).startswith("Answer in French.")
    assert _notes(w) == []
    french = w.conversation.id
    # mid-chat: the prompt changes — noted in the chat (shown now and kept), never sent
    assert w.chat_setup.edit_prompt("Answer in German.")
    assert _notes(w) == ["System prompt changed: Answer in German."]
    _send(qtbot, w, "second")
    body = _last(ollama_server)
    assert _system(body).startswith("Answer in German.")
    assert all("System prompt changed" not in m.get("content", "") for m in body["messages"])

    w.new_chat()  # another chat, with another model
    assert w.picker.model_combo.currentText() == "qwen3:8b"  # (the last one picked is the default of new chats)
    w._on_model_picked("llama3.2:latest")
    _send(qtbot, w, "in english please")
    body = _last(ollama_server)
    assert body["model"] == "llama3.2:latest" and _system(body).startswith(DEFAULT_SYSTEM_PROMPT)
    w.close()
    store.close()

    store2 = _store(tmp_path)  # a restart
    w2 = make_window(ollama_settings, store=store2)
    w2.open_conversation(french)
    assert w2.picker.model_combo.currentText() == "qwen3:8b"
    assert w2.controller.chat_settings.loop.system_prompt == "Answer in German."
    assert _notes(w2) == ["System prompt changed: Answer in German."]
    _send(qtbot, w2, "third")
    body = _last(ollama_server)
    assert body["model"] == "qwen3:8b" and _system(body).startswith("Answer in German.")
    # picking another model mid-chat is noted too, and kept
    w2._on_model_picked("llama3.2:latest")
    assert _notes(w2)[-1] == "Model: qwen3:8b → llama3.2:latest"
    kinds = [(m.kind, m.content) for m in store2.load(french).messages if m.kind == "note"]
    assert kinds == [("note", "System prompt changed: Answer in German."),
                     ("note", "Model: qwen3:8b → llama3.2:latest")]
    w2.close()
    store2.close()


def test_a_chat_whose_model_is_gone_says_so_and_goes_on_with_another(
        make_window, qtbot, ollama_server, ollama_settings, tmp_path):
    store = _store(tmp_path)
    old = Conversation(title="An old chat", backend="ollama", model="mistral:7b", messages=[
        Message(role="user", content="hi"), Message(role="assistant", content="hello", model="mistral:7b",
                                                   backend="ollama")])
    store.add_conversations([old])
    w = make_window(ollama_settings, store=store)
    w.open_conversation(old.id)
    bar = w.chat_setup.missing_bar
    qtbot.waitUntil(bar.isVisible, timeout=10_000)  # the server's models were listed: mistral is not there
    assert "“mistral:7b”" in bar.text.text() and "Your chat is kept" in bar.text.text()
    assert bar.use_button.text() == "Use llama3.2:latest" and bar.use_button.isVisible()
    assert len(w.chat.blocks) == 2  # the chat is shown as it was
    bar.use_button.click()
    assert not bar.isVisible()
    _send(qtbot, w, "still there?")
    assert _last(ollama_server)["model"] == "llama3.2:latest"
    assert w.conversation.messages[-1].content  # answered
    w.new_chat()
    assert not bar.isVisible()


def test_a_preset_picked_for_a_new_chat_is_what_the_server_is_told(
        make_window, qtbot, ollama_server, ollama_settings, tmp_path):
    store = _store(tmp_path)
    w = make_window(ollama_settings.updated({"tools.only_relevant": False}), store=store)
    row = w.chat.empty_state.preset_buttons
    assert [b.text() for b in row.values()] == ["Plain", "Coder", "Writer", "Researcher"]
    row["writer"].click()
    qtbot.waitUntil(lambda: w.chat.empty_state.preset_buttons["writer"].isChecked(), timeout=3000)
    _send(qtbot, w, "Polish this sentence: me and him goes to school")
    body = _last(ollama_server)
    writer = presets.shipped("writer")
    assert writer is not None
    assert _system(body) == writer.system_prompt  # tools are off for the Writer: nothing is added to its prompt
    assert body["options"]["temperature"] == 0.8 and "tools" not in body
    # the New chat button's menu has them too
    titles = [a.text() for a in w.chat_setup.new_menu.actions()]
    assert titles[:4] == ["Plain chat", "New chat as Coder", "New chat as Writer", "New chat as Researcher"]
    w.chat_setup.new_menu.actions()[1].trigger()
    assert w.conversation.messages == [] and w.chat.empty_state.preset_buttons["coder"].isChecked()
    _send(qtbot, w, "write fizzbuzz")
    body = _last(ollama_server)
    assert _system(body).startswith("You are an expert software engineer") and body["tools"]
    assert store.load(w.conversation.id).options["loop.system_prompt"].startswith("You are an expert software")


def test_a_model_picked_while_an_answer_is_written_is_noted_after_it(
        make_window, qtbot, ollama_server, ollama_settings, tmp_path):
    store = _store(tmp_path)
    w = make_window(ollama_settings, store=store)
    _send(qtbot, w, "hello")
    ollama_server.chunk_delay_s = 0.15  # the next answer takes a moment
    asked = len(ollama_server.chat_requests)
    w.send("tell me more")
    qtbot.waitUntil(lambda: len(ollama_server.chat_requests) > asked, timeout=5000)  # the answer is on its way
    assert w.busy
    w._on_model_picked("qwen3:8b")  # from the next message
    assert _notes(w) == []  # not in the middle of the answer being written
    wait_idle(qtbot, w)
    assert _last(ollama_server)["model"] == "llama3.2"  # the answer ran with the model it started with
    qtbot.waitUntil(lambda: _notes(w) == ["Model: llama3.2 → qwen3:8b"], timeout=5000)
    saved = store.load(w.conversation.id).messages
    assert [m.role for m in saved] == ["user", "assistant", "user", "assistant", "system"]
    assert saved[-1].kind == "note"
    _send(qtbot, w, "and now?")
    assert _last(ollama_server)["model"] == "qwen3:8b"


def test_a_preset_saved_in_settings_is_offered_at_once(make_window, qtbot, ollama_server, ollama_settings):
    from desktop_agent.core.settings import Preset

    w = make_window(ollama_settings)
    mine = Preset(id="translator", name="Translator", system_prompt="Translate into English.", tools=False)
    w.apply_settings(ollama_settings.updated(presets.with_preset(ollama_settings, mine)))
    assert "New chat as Translator" in [a.text() for a in w.chat_setup.new_menu.actions()]
    assert list(w.chat.empty_state.preset_buttons) == ["", "coder", "writer", "researcher", "translator"]
    w.chat.empty_state.preset_buttons["translator"].click()
    _send(qtbot, w, "Bonjour tout le monde")
    body = _last(ollama_server)
    assert _system(body) == "Translate into English." and "tools" not in body
