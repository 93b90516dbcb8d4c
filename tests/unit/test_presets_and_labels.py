"""Presets in the settings (shipped ones, the user's edits and their own, resolution by name, what a chat started from
one gets), notes about a chat's settings (kept, never sent), and the store's pins, tags and history filter — with the
migration that adds them keeping every chat."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from desktop_agent.core import presets
from desktop_agent.core.context import build_request
from desktop_agent.core.errors import ConversationNotFound
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import Preset, Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store import schema as store_schema
from desktop_agent.core.store.labels import MAX_TAG_CHARS, ChatFilter
from tests.helpers.store_versions import schema_of_version

# ------------------------------------------------------------------------------------------- presets


def test_three_shipped_presets_with_real_prompts():
    names = presets.names(Settings())
    assert names == ["Coder", "Writer", "Researcher"]
    for p in presets.all_presets(Settings()):
        assert len(p.system_prompt) > 200 and p.system_prompt.endswith(".")
    assert presets.shipped("writer").tools is False and presets.shipped("coder").tools is True  # type: ignore[union-attr]


def test_find_is_case_and_space_insensitive_and_knows_ids():
    s = Settings()
    assert presets.find(s, "  coder ").id == "coder"  # type: ignore[union-attr]
    assert presets.find(s, "RESEARCHER").name == "Researcher"  # type: ignore[union-attr]
    assert presets.find(s, "writer").name == "Writer"  # type: ignore[union-attr]
    assert presets.find(s, "Poet") is None


def test_edit_delete_reset_and_add_through_the_settings():
    s = Settings()
    edited = presets.find(s, "Writer").model_copy(update={"name": "Poet", "temperature": 1.2})  # type: ignore[union-attr]
    s = s.updated(presets.with_preset(s, edited))
    assert presets.names(s) == ["Coder", "Poet", "Researcher"] and presets.is_modified(presets.find(s, "poet"))
    s = s.updated(presets.without_preset(s, "coder"))
    assert presets.names(s) == ["Poet", "Researcher"] and s.presets.removed == ["coder"]
    used = [p.id for p in presets.all_presets(s)]
    mine = Preset(id=presets.new_id(used, "Pirate"), name="Pirate", system_prompt="Arr.")
    s = s.updated(presets.with_preset(s, mine))
    assert presets.names(s) == ["Poet", "Researcher", "Pirate"]
    s = s.updated(presets.reset_preset(s, "writer")).updated(presets.reset_preset(s.updated(
        presets.reset_preset(s, "writer")), "coder"))
    assert presets.names(s) == ["Coder", "Writer", "Researcher", "Pirate"]
    # a shipped preset saved exactly as shipped is no edit: nothing is stored for it
    back = s.updated(presets.with_preset(s, presets.shipped("coder")))  # type: ignore[arg-type]
    assert [p.id for p in back.presets.items] == [mine.id]


def test_new_ids_never_take_a_shipped_or_used_id():
    assert presets.new_id([], "Coder") == "coder-2"
    assert presets.new_id(["my-helper"], "My Helper!") == "my-helper-2"
    assert presets.new_id([], "  ") == "preset" and presets.new_id([], "写作") == "preset"


def test_a_bad_preset_in_the_file_costs_only_itself(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 2, "ollama": {"model": "qwen3"}, "presets": {"items": [
        {"id": "ok", "name": "Fine", "system_prompt": "Be fine."},
        {"id": "Bad Id!", "name": "Broken"},
        {"id": "hot", "name": "Hot", "temperature": 9}]}}), encoding="utf-8")
    s, warnings = Settings.load(path)
    assert s.ollama.model == "qwen3" and [p.name for p in s.presets.items] == ["Fine"]
    assert len(warnings) == 2 and all("presets.items" in w for w in warnings)


def test_two_presets_of_one_name_are_refused():
    with pytest.raises(ValueError, match="same name"):
        Settings().updated({"presets.items": [{"id": "a", "name": "Same"}, {"id": "b", "name": "same"}]})


def test_two_presets_of_one_name_in_the_file_cost_only_the_second_with_a_warning(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"version": 2, "presets": {"items": [
        {"id": "fine", "name": "Fine", "system_prompt": "Be fine."},
        {"id": "pirate", "name": "Pirate", "system_prompt": "Arr."},
        {"id": "pirate-2", "name": "PIRATE", "system_prompt": "ARR."},  # a hand edit: the same name but for case
        {"id": "poet", "name": "Poet"},
        {"id": "poet", "name": "Poet again"}]}}), encoding="utf-8")
    s, warnings = Settings.load(path)
    assert [p.name for p in s.presets.items] == ["Fine", "Pirate", "Poet"]
    assert len(warnings) == 2
    told = " | ".join(warnings)
    assert "Entry 3 of the setting presets.items was dropped: two presets have the same name (pirate)" in told
    assert "Entry 5 of the setting presets.items was dropped: two presets have the same id (poet)" in told


def test_the_users_own_preset_named_as_a_shipped_one_is_the_one_found():
    mine = Preset(id="coder-2", name="Coder", system_prompt="My own way of coding.")
    s = Settings().updated({"presets.items": [mine.model_dump()]})
    assert presets.find(s, "coder") == mine and presets.find(s, "CODER ") == mine
    assert presets.find(s, "writer").id == "writer"  # type: ignore[union-attr]
    assert presets.find(Settings(), "coder").id == "coder"  # type: ignore[union-attr]


def test_a_chat_started_from_a_preset_gets_its_prompt_model_temperature_and_tools():
    s = Settings(backend="ollama", ollama_model="llama3.2")
    p = Preset(id="x", name="X", system_prompt="Be X.", backend="openai", model="gpt-4o", temperature=0.4,
               tools=True, disabled_tools=["run_shell_command"])
    options = presets.chat_options_of(p, s)
    eff = ChatSession(Conversation(options=options)).effective(s)
    assert (eff.backend, eff.model, eff.loop.system_prompt) == ("openai", "gpt-4o", "Be X.")
    assert eff.generation.temperature == 0.4 and eff.tools.enabled and eff.tools.disabled == ["run_shell_command"]
    bare = presets.chat_options_of(Preset(id="y", name="Y", system_prompt=""), s)
    assert bare == {"loop.system_prompt": ""}  # an empty prompt is the preset's choice too: no system message
    model_only = presets.chat_options_of(Preset(id="z", name="Z", model="qwen3"), s)
    assert model_only["ollama.model"] == "qwen3" and "backend" not in model_only


# ------------------------------------------------------------------------------------------- notes


def test_a_note_is_kept_and_shown_but_never_sent(tmp_path):
    store = ConversationStore(tmp_path / "c.sqlite3")
    conv = Conversation()
    session = ChatSession(conv, store)
    assert session.note("Model: a → b") is None  # an empty chat just starts that way
    for m in (Message(role="user", content="hi"), Message(role="assistant", content="hello")):
        conv.messages.append(m)
        store.add_message(conv, m)
    note = session.note("Model: a → b")
    assert note is not None and note.kind == "note" and note.id is not None
    loaded = store.load(conv.id)
    assert [(m.role, m.kind, m.content) for m in loaded.messages][-1] == ("system", "note", "Model: a → b")
    sent = build_request(loaded.messages, "Be brief.")
    assert [(m.role, m.content) for m in sent] == [("system", "Be brief."), ("user", "hi"), ("assistant", "hello")]
    store.close()


# ------------------------------------------------------------------------------------------- pins and tags


def _saved(store, title: str, when: float, model: str = "m1") -> str:
    conv = Conversation(title=title, model=model, backend="ollama", created_at=when, updated_at=when,
                        messages=[Message(role="user", content=title)])
    return store.add_conversations([conv])[0]


@pytest.fixture
def store(tmp_path):
    s = ConversationStore(tmp_path / "c.sqlite3")
    yield s
    s.close()


def test_pinned_chats_come_first_newest_pin_first_and_paging_still_works(store):
    now = time.time()
    ids = [_saved(store, f"chat {i}", now - 1000 + i) for i in range(10)]
    store.set_pinned(ids[2], True)
    time.sleep(0.01)
    store.set_pinned(ids[5], True)
    store.set_pinned(ids[5], True)  # twice: still one pin
    listed = [s.title for s in store.list(limit=4)] + [s.title for s in store.list(limit=100, offset=4)]
    assert listed == ["chat 5", "chat 2", "chat 9", "chat 8", "chat 7", "chat 6", "chat 4", "chat 3", "chat 1",
                      "chat 0"]
    assert store.summary(ids[5]).pinned and not store.summary(ids[9]).pinned
    before = store.summary(ids[2]).updated_at
    store.set_pinned(ids[2], False)
    assert store.summary(ids[2]).updated_at == before  # pinning does not reorder by date
    assert [s.title for s in store.list(limit=2)] == ["chat 5", "chat 9"]
    with pytest.raises(ConversationNotFound):
        store.set_pinned("nope", True)


def test_tags_are_one_line_case_insensitive_and_go_with_their_chat(store):
    a, b = _saved(store, "a", 1.0), _saved(store, "b", 2.0)
    assert store.add_tag(a, "  Work\n stuff ") == "Work stuff"
    assert store.add_tag(b, "work STUFF") == "Work stuff"  # the spelling in use is kept
    assert store.add_tag(a, "work stuff") == "Work stuff" and store.chat_tags(a) == ["Work stuff"]  # no repeat
    store.add_tag(a, "x" * 100)
    assert len(store.chat_tags(a)[-1]) == MAX_TAG_CHARS
    with pytest.raises(ValueError):
        store.add_tag(a, "   ")
    assert store.all_tags() == [("Work stuff", 2), ("x" * MAX_TAG_CHARS, 1)]
    store.remove_tag(a, "WORK STUFF")
    assert store.chat_tags(a) == ["x" * MAX_TAG_CHARS] and store.summary(b).tags == ("Work stuff",)
    store.delete(b)
    assert store.all_tags() == [("x" * MAX_TAG_CHARS, 1)]
    assert store.conn.execute("SELECT count(*) FROM chat_tags WHERE conversation_id = ?", (b,)).fetchone() == (0,)


def test_tags_are_the_same_tag_whatever_the_script_case_or_normal_form_and_invisible_characters_go(store):
    a, b, c = _saved(store, "a", 1.0), _saved(store, "b", 2.0), _saved(store, "c", 3.0)
    assert store.add_tag(a, "Σίσυφος") == "Σίσυφος"
    assert store.add_tag(b, "ΣΊΣΥΦΟΣ") == "Σίσυφος"  # Greek case (and the final sigma): one tag
    nfd = "cafe\u0301"
    assert store.add_tag(a, nfd) == "café"  # kept in NFC
    assert store.add_tag(b, "café") == "café" and store.add_tag(c, "CAFÉ") == "café"
    assert store.add_tag(c, "straße") == "straße" and store.add_tag(a, "STRASSE") == "straße"
    assert store.all_tags() == [("café", 3), ("straße", 2), ("Σίσυφος", 2)]
    assert store.chat_tags(a) == ["café", "straße", "Σίσυφος"] and store.add_tag(a, "σίσυφος") == "Σίσυφος"
    assert store.chat_tags(a) == ["café", "straße", "Σίσυφος"]  # no repeat
    # NUL, zero-width space, bidi overrides and other invisible characters are no part of a tag
    assert store.add_tag(c, "wo\x00rk\u200b") == "work"
    assert store.add_tag(c, "\u202eevil\u202c") == "evil" and store.add_tag(c, "\u2066x\u2069") == "x"
    assert store.add_tag(c, "👨\u200d👩\u200d👧") == "👨\u200d👩\u200d👧"  # an emoji family keeps its joiners
    for nothing in ("\u200b\u200b", "\x00", "\u202e \u202c"):
        with pytest.raises(ValueError):
            store.add_tag(c, nothing)
    ids = [s.id for s in store.list(limit=10, where=ChatFilter(tag="ΣΊΣΥΦΟΣ"))]
    assert sorted(ids) == sorted([a, b])
    assert [s.id for s in store.list(limit=10, where=ChatFilter(tag=nfd))] == [c, b, a]
    store.remove_tag(a, "SISYPHOS")  # folding keeps letters: another tag, nothing removed
    store.remove_tag(a, "ΣΊΣΥΦΟΣ")
    assert store.chat_tags(a) == ["café", "straße"]


def test_the_filter_by_tag_model_and_date(store):
    day = 86400.0
    now = time.time()
    old = _saved(store, "old", now - 40 * day, model="qwen")
    week = _saved(store, "week", now - 3 * day, model="llama")
    today = _saved(store, "today", now, model="qwen")
    store.add_tag(old, "work")
    store.add_tag(today, "work")
    store.set_pinned(old, True)
    def titles(f: ChatFilter) -> list[str]:
        return [s.title for s in store.list(where=f)]

    assert titles(ChatFilter()) == ["old", "today", "week"]
    assert titles(ChatFilter(tag="WORK")) == ["old", "today"] and store.count(ChatFilter(tag="work")) == 2
    assert titles(ChatFilter(model="qwen", since=now - 7 * day)) == ["today"]
    assert titles(ChatFilter(until=now - 30 * day)) == ["old"]
    assert titles(ChatFilter(tag="nothing")) == [] and store.count(ChatFilter(tag="nothing")) == 0
    assert store.all_models() == [("qwen", 2), ("llama", 1)]
    assert week


def test_migrating_a_database_from_before_pins_and_tags_keeps_every_chat(tmp_path, monkeypatch):
    db = tmp_path / "c.sqlite3"
    before_labels = store_schema.MIGRATIONS.index(store_schema._migrate_add_pins_tags)
    with schema_of_version(monkeypatch, before_labels), ConversationStore(db) as old:
        ids = [_saved(old, f"chat {i}", 100.0 + i) for i in range(3)]
        old.set_options(ids[0], {"generation.temperature": 0.5})
        listed = old.list()
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT * FROM messages ORDER BY id").fetchall()
    conn.close()
    with ConversationStore(db) as s:
        assert s.warnings == [] and s.backup_path is not None
        assert s.list() == listed and s.conn.execute("SELECT * FROM messages ORDER BY id").fetchall() == rows
        assert s.load(ids[0]).options == {"generation.temperature": 0.5}
        s.set_pinned(ids[0], True)
        s.add_tag(ids[1], "kept")
        assert [x.title for x in s.list()] == ["chat 0", "chat 2", "chat 1"] and s.summary(ids[1]).tags == ("kept",)


def test_history_list_in_the_terminal_shows_pins_and_tags(store, capsys):
    import argparse

    from desktop_agent.cli import history

    a, b = _saved(store, "Alpha", 1.0), _saved(store, "Beta", 2.0)
    store.set_pinned(a, True)
    store.add_tag(b, "work")
    history._list(store, argparse.Namespace(limit=50, offset=0, json=False))
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith("[pinned] Alpha") and lines[2].endswith("Beta  #work")
