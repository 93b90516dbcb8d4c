"""ConversationStore: saving, loading, listing, search, rename/delete, export/import, damaged files."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from desktop_agent.core.errors import (
    AgentError,
    AmbiguousConversationId,
    ConversationNotFound,
    ImportFailed,
    StoreDamaged,
    StoreError,
)
from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store import schema as store_schema
from desktop_agent.core.store.chatfiles import atomic_write_text
from tests.helpers.store_versions import messages_sql, schema_of_version, tables_before_7


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "conversations.sqlite3"


@pytest.fixture
def store(db):
    s = ConversationStore(db)
    yield s
    s.close()


def tool_turn(question: str = "What's the weather in Paris?") -> list[Message]:
    call = ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
    return [
        Message(role="user", content=question),
        Message(role="assistant", content="", thinking="I should call the tool.", tool_calls=[call],
                model="llama3.2", backend="ollama"),
        Message(role="tool", content='{"temp_c": 21, "sky": "sunny"}', tool_call_id="call_1",
                tool_name="get_weather", tool_status="ok", duration_ms=12.5),
        Message(role="assistant", content="It is sunny in Paris, 21 °C.", model="llama3.2", backend="ollama"),
    ]


def save_chat(store: ConversationStore, messages: list[Message], conv: Conversation | None = None) -> Conversation:
    conv = conv or Conversation()
    for m in messages:
        conv.messages.append(m)
        store.add_message(conv, m)
    return conv


def other_connection_rows(db: Path, sql: str, params=()) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


# --------------------------------------------------------------------------------------------- saving


def test_add_message_round_trips_every_field_and_commits(store, db):
    conv = Conversation()
    msgs = tool_turn()
    msgs[1].tool_calls.append(ToolCall(id="call_2", name="broken", raw_arguments="{oops", arguments_error="bad JSON"))
    msgs[3].status = "stopped"
    msgs[2].full_content = '{"temp_c": 21, "sky": "sunny", "more": "x"}'
    for m in msgs:
        conv.messages.append(m)
        store.add_message(conv, m)
        assert m.id is not None
        # committed: another connection sees the row as soon as add_message returns
        assert other_connection_rows(db, "SELECT count(*) FROM messages WHERE id = ?", (m.id,)) == [(1,)]
    loaded = store.load(conv.id)
    assert [m.model_dump() for m in loaded.messages] == [m.model_dump() for m in msgs]
    assert loaded.title == "What's the weather in Paris?"
    assert loaded.model == "llama3.2" and loaded.backend == "ollama"


def test_chinese_text_is_stored_literally(store, db):
    conv = save_chat(store, [Message(role="user", content="北京明天的天气怎么样？"),
                             Message(role="assistant",
                                     tool_calls=[ToolCall(name="weather", arguments={"city": "北京"})])])
    raw = other_connection_rows(db, "SELECT content, tool_calls FROM messages ORDER BY id")
    assert raw[0][0] == "北京明天的天气怎么样？"
    assert '"北京"' in raw[1][1] and "\\u" not in raw[1][1]
    assert store.load(conv.id).title == "北京明天的天气怎么样？"
    assert "北京" in store.export(conv.id, "json") and "\\u5317" not in store.export(conv.id, "json")


def test_first_message_creates_the_chat_row_and_later_ones_bump_updated_at(store):
    conv = Conversation()
    assert store.count() == 0
    first = Message(role="user",
                    content="  Tell me\na story about a very long journey across the sea and the mountains, please  ")
    conv.messages.append(first)
    store.add_message(conv, first)
    assert store.count() == 1
    s1 = store.summary(conv.id)
    assert s1.title == conv.default_title() and len(s1.title) <= 60 and s1.title.endswith("…")
    assert conv.title == s1.title  # the store fills in the title of the conversation object
    time.sleep(0.01)
    reply = Message(role="assistant", content="Once upon a time…", model="qwen3", backend="openai")
    store.add_message(conv, reply)  # not yet appended to conv.messages: the store must not care
    s2 = store.summary(conv.id)
    assert s2.updated_at > s1.updated_at and s2.message_count == 2
    assert (s2.model, s2.backend) == ("qwen3", "openai")


def test_title_comes_from_the_first_user_message_even_if_saved_later(store):
    conv = Conversation()
    store.add_message(conv, Message(role="assistant", content="Hi! How can I help?"))
    assert store.summary(conv.id).title == "New chat"
    store.add_message(conv, Message(role="user", content="Plan a trip to Kyoto"))
    assert store.summary(conv.id).title == "Plan a trip to Kyoto"


def test_title_given_by_the_caller_is_kept_as_custom(store):
    conv = Conversation(title="My project notes")
    store.add_message(conv, Message(role="user", content="hello"))
    s = store.summary(conv.id)
    assert s.title == "My project notes" and s.title_is_custom


def test_add_message_again_with_its_id_updates_instead_of_duplicating(store):
    conv = Conversation()
    m = Message(role="assistant", content="Partial ans", status="interrupted")
    store.add_message(conv, m)
    first_id = m.id
    m.content, m.status = "Partial answer, now finished.", "complete"
    store.add_message(conv, m)
    assert m.id == first_id
    assert [x.content for x in store.load(conv.id).messages] == ["Partial answer, now finished."]


def test_update_message_rewrites_text_status_and_search_index(store):
    conv = save_chat(store, [Message(role="user", content="Write a haiku"),
                             Message(role="assistant", content="Autumn moonlight", status="interrupted")])
    partial = conv.messages[1]
    partial.content, partial.status = "Autumn moonlight — a worm digs silently", "stopped"
    store.update_message(partial)
    loaded = store.load(conv.id)
    assert loaded.messages[1].content.endswith("digs silently") and loaded.messages[1].status == "stopped"
    assert [h.message_id for h in store.search("silently")] == [partial.id]
    with pytest.raises(StoreError):
        store.update_message(Message(role="user", content="never saved"))
    with pytest.raises(StoreError):
        store.update_message(Message(role="user", content="gone", id=999_999))


def test_saving_one_message_costs_the_same_statements_whatever_the_chat_length(store):
    """No rewriting of whole conversations: the SQL run by add_message is the same for a 1- and 120-message chat."""
    def statements_for_one_save(conv: Conversation) -> list[str]:
        seen: list[str] = []
        store.conn.set_trace_callback(seen.append)
        try:
            m = Message(role="user", content="one more")
            conv.messages.append(m)
            store.add_message(conv, m)
        finally:
            store.conn.set_trace_callback(None)
        return seen

    short = save_chat(store, [Message(role="user", content="hi")])
    long = save_chat(store, [Message(role="user", content=f"message {i}") for i in range(120)])
    # our own statements (lines starting with "--" are FTS5's internal index upkeep, amortised per index size)
    a = [s for s in statements_for_one_save(short) if not s.startswith("--")]
    b = [s for s in statements_for_one_save(long) if not s.startswith("--")]
    # BEGIN, SELECT + UPDATE conversation, INSERT message, INSERT text, INSERT its folded copy (+ its trigger),
    # COMMIT
    assert len(a) == len(b) <= 9
    assert not any("FROM messages" in s for s in b)


def test_store_is_safe_from_several_threads(store):
    errors: list[BaseException] = []
    convs = [Conversation() for _ in range(4)]

    def writer(conv: Conversation) -> None:
        try:
            for i in range(40):
                m = Message(role="user" if i % 2 == 0 else "assistant", content=f"{conv.id} line {i}")
                conv.messages.append(m)
                store.add_message(conv, m)
        except BaseException as exc:  # noqa: BLE001 - the thread's failure is reported below  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(c,)) for c in convs]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        store.list(10)
        store.search("line")
    for t in threads:
        t.join()
    assert errors == []
    for c in convs:
        assert [m.content for m in store.load(c.id).messages] == [f"{c.id} line {i}" for i in range(40)]


def test_default_path_is_in_the_user_data_dir(_user_dirs):
    s = ConversationStore()
    try:
        assert s.path == _user_dirs / "data" / "desktop-agent" / "conversations.sqlite3"
        assert other_connection_rows(s.path, "PRAGMA journal_mode") == [("wal",)]
    finally:
        s.close()


def test_errors_are_store_errors_which_are_agent_errors(store):
    with pytest.raises(ConversationNotFound) as info:
        store.load("nope")
    assert isinstance(info.value, StoreError) and isinstance(info.value, AgentError)
    assert "nope" in str(info.value)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list()


# -------------------------------------------------------------------------------------------- listing


def test_list_is_newest_first_pages_and_counts_messages(store):
    convs = []
    for i in range(7):
        msgs = [Message(role="user", content=f"chat {i}")]
        msgs += [Message(role="assistant", content="ok") for _ in range(i % 3)]
        convs.append(save_chat(store, msgs))
        time.sleep(0.002)
    page1, page2 = store.list(limit=4), store.list(limit=4, offset=4)
    assert [s.id for s in page1 + page2] == [c.id for c in reversed(convs)]
    assert [s.message_count for s in page1 + page2] == [1 + (i % 3) for i in reversed(range(7))]
    assert page1[0].title == "chat 6"
    # a new message moves an old chat to the top
    store.add_message(convs[0], Message(role="user", content="back again"))
    assert store.list(limit=1)[0].id == convs[0].id


def test_resolve_accepts_a_unique_prefix(store):
    a = save_chat(store, [Message(role="user", content="a")], Conversation(id="abc123"))
    save_chat(store, [Message(role="user", content="b")], Conversation(id="abd456"))
    assert store.resolve("abc") == a.id and store.resolve("abc123") == a.id
    with pytest.raises(AmbiguousConversationId, match="matches 2 chats"):
        store.resolve("ab")
    with pytest.raises(ConversationNotFound):
        store.resolve("zz")
    with pytest.raises(ConversationNotFound):
        store.resolve("")


def test_rename_sets_a_custom_title_and_empty_restores_the_default(store):
    conv = save_chat(store, [Message(role="user", content="Explain  WAL\nmode")])
    other = save_chat(store, [Message(role="user", content="newer chat")])
    store.rename(conv.id, "  SQLite notes\n")
    s = store.summary(conv.id)
    assert (s.title, s.title_is_custom) == ("SQLite notes", True)
    assert store.list()[0].id == other.id  # renaming does not reorder the list
    store.add_message(conv, Message(role="user", content="another question"))
    assert store.summary(conv.id).title == "SQLite notes"
    store.rename(conv.id, "")
    s = store.summary(conv.id)
    assert (s.title, s.title_is_custom) == ("Explain WAL mode", False)
    with pytest.raises(ConversationNotFound):
        store.rename("missing", "x")


def test_delete_removes_the_chat_its_messages_and_their_index_entries(store, db):
    keep = save_chat(store, tool_turn("Weather in Oslo?"))
    gone = save_chat(store, tool_turn("Weather in Lima?"))
    store.delete(gone.id)
    assert [s.id for s in store.list()] == [keep.id]
    assert {h.conversation_id for h in store.search("weather")} == {keep.id}
    assert other_connection_rows(db, "SELECT count(*) FROM messages WHERE conversation_id = ?", (gone.id,)) == [(0,)]
    assert other_connection_rows(db, "SELECT count(*) FROM message_fts") == [(4,)]
    with pytest.raises(ConversationNotFound):
        store.delete(gone.id)


def test_deleting_a_chat_while_another_thread_keeps_saving_into_it_keeps_it_deleted(store, db):
    """A turn still streams into a chat the user deletes: every save after delete() is a no-op, decided
    under the store's lock, so the chat is never brought back with the partial answer."""
    conv = save_chat(store, [Message(role="user", content="a long answer please")])
    partial = Message(role="assistant", content="", status="interrupted")
    store.add_message(conv, partial)
    errors: list[BaseException] = []
    saving, deleted, stop = threading.Event(), threading.Event(), threading.Event()
    after_delete = {"rounds": 0}

    def worker() -> None:
        try:
            i = 0
            while not stop.is_set():
                i += 1
                partial.content += f" streamed{i}"
                store.add_message(conv, partial)  # the partial answer, saved again as it grows
                store.update_message(partial)
                store.add_message(conv, Message(role="tool", content=f"result {i}", tool_call_id="c", tool_name="t"))
                saving.set()
                if deleted.is_set():
                    after_delete["rounds"] += 1
        except BaseException as exc:  # noqa: BLE001 - the thread's failure is reported below  # pragma: no cover
            errors.append(exc)

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert saving.wait(10)
        store.delete(conv.id)
        deleted.set()
        deadline = time.monotonic() + 10
        while after_delete["rounds"] < 20 and t.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        stop.set()
        t.join(10)
    assert errors == []
    assert after_delete["rounds"] >= 20
    assert conv.id not in [s.id for s in store.list()]
    with pytest.raises(ConversationNotFound):
        store.load(conv.id)
    assert other_connection_rows(db, "SELECT count(*) FROM messages WHERE conversation_id = ?", (conv.id,)) == [(0,)]
    assert other_connection_rows(db, "SELECT count(*) FROM conversations") == [(0,)]
    assert store.search("streamed1") == [] and store.search("result") == []


def test_saving_into_a_deleted_chat_is_a_no_op_but_an_unsaved_message_still_fails(store, tmp_path):
    conv = save_chat(store, tool_turn())
    answer = conv.messages[-1]
    f = tmp_path / "export.json"
    f.write_text(store.export(conv.id, "json"), encoding="utf-8")
    store.delete(conv.id)
    answer.content = "changed after the delete"
    store.update_message(answer)  # its chat was deleted: nothing happens
    late = Message(role="user", content="one more")
    store.add_message(conv, late)
    assert late.id is None and store.count() == 0
    with pytest.raises(StoreError):
        store.update_message(Message(role="user", content="never saved", id=999_999))
    # importing the deleted chat's export gives it a new id, so late saves into the old one stay no-ops
    new_id = store.import_file(f).chat_ids[0]
    assert new_id != conv.id and store.count() == 1
    store.add_message(conv, Message(role="user", content="still streaming"))
    assert [m.content for m in store.load(new_id).messages][-1] == "It is sunny in Paris, 21 °C."


# --------------------------------------------------------------------------------------------- search


def test_search_finds_a_word_from_the_middle_of_a_chat_with_marked_snippet(store):
    conv = save_chat(store, [
        Message(role="user", content="Let's plan the trip."),
        Message(role="assistant", content="First we take the night train to Vienna, then a bus."),
        Message(role="user", content="Thanks!"),
    ])
    save_chat(store, [Message(role="user", content="Unrelated chat")])
    hits = store.search("Vienna")
    assert len(hits) == 1
    hit = hits[0]
    assert (hit.conversation_id, hit.message_id, hit.title, hit.role) == (
        conv.id, conv.messages[1].id, "Let's plan the trip.", "assistant")
    assert "«Vienna»" in hit.snippet and "night train" in hit.snippet
    assert ("Vienna", True) in hit.parts


def test_search_is_case_insensitive_substring_and_all_terms_must_match(store):
    save_chat(store, [Message(role="user", content="The Quick brown fox jumps")])
    save_chat(store, [Message(role="user", content="A quick reply")])
    assert len(store.search("QUICK")) == 2
    assert len(store.search("quick fox")) == 1
    assert len(store.search("uic")) == 2  # substring
    assert "«brown fox»" in store.search('"brown fox"')[0].snippet
    assert store.search('"fox brown"') == []


def test_search_is_newest_first_and_limited(store):
    conv = save_chat(store, [Message(role="user", content=f"ping number {i}") for i in range(30)])
    hits = store.search("ping", limit=5)
    assert [h.message_id for h in hits] == [m.id for m in reversed(conv.messages)][:5]


def test_search_finds_tool_calls_and_tool_results(store):
    conv = save_chat(store, tool_turn())
    assert {h.message_id for h in store.search("get_weather")} == {conv.messages[1].id}
    assert {h.message_id for h in store.search("sunny")} == {conv.messages[2].id, conv.messages[3].id}


@pytest.mark.parametrize("query", [
    "C++", '"', '""', '"unbalanced', 'say "hi', "AND", "OR", "NOT", "NEAR(a b)", "a AND", "*", "^start",
    "col:value", "(", ")", "{x}", "-minus", "'", "%", "_", "\\", "\x00", "   ", "", "😀", "a" * 500,
    "'; DROP TABLE messages; --",
])
def test_search_never_raises_on_user_input(store, query):
    save_chat(store, [Message(role="user", content="I write C++ AND Python; 100% sure (really) 😀 ^_^ col:value")])
    hits = store.search(query)
    assert isinstance(hits, list)
    assert store.count() == 1  # and nothing was harmed


def test_search_special_characters_are_literal(store):
    save_chat(store, [Message(role="user", content="I write C++ and Python")])
    save_chat(store, [Message(role="user", content="I write C and Rust")])
    assert [h.snippet for h in store.search("C++")] == ["I write «C++» and Python"]
    assert len(store.search("AND")) == 2  # a word, not an operator
    assert store.search("NOT Rust") == []  # "NOT" is a word that must appear too
    assert store.search('"100%"') == []
    save_chat(store, [Message(role="user", content="100% sure, snake_case and a\\b")])
    assert [h.snippet for h in store.search("%")] == ["100«%» sure, snake_case and a\\b"]
    assert [h.snippet for h in store.search("e_")] == ["100% sure, snak«e_»case and a\\b"]
    assert [h.snippet for h in store.search("\\")] == ["100% sure, snake_case and a«\\»b"]
    assert store.search("x%") == [] and store.search("_z") == []


def test_search_chinese_short_and_long_terms(store):
    a = save_chat(store, [Message(role="user", content="北京明天的天气怎么样？")])
    save_chat(store, [Message(role="user", content="上海今天下雨")])
    hits = store.search("天气")  # two characters: below the trigram size, matched by scanning
    assert [h.conversation_id for h in hits] == [a.id] and "«天气»" in hits[0].snippet
    assert [h.conversation_id for h in store.search("北京明天")] == [a.id]
    assert [h.conversation_id for h in store.search("北京明天 天气")] == [a.id]
    assert "«天气»" in store.search("北京明天 天气")[0].snippet
    assert store.search("天气 下雨") == []


# -------------------------------------------------------------------------------------------- export


def test_export_markdown_is_readable_with_tool_calls_and_results(store):
    conv = save_chat(store, tool_turn())
    md = store.export(conv.id, "md")
    assert md.startswith("# What's the weather in Paris?\n")
    assert "## You" in md and "## Assistant (llama3.2)" in md
    assert "<details><summary>Tool call: get_weather</summary>" in md and '"city": "Paris"' in md
    assert "<details><summary>Tool result: get_weather (ok, 12 ms)</summary>" in md
    assert '{"temp_c": 21, "sky": "sunny"}' in md
    assert "It is sunny in Paris, 21 °C." in md
    assert "<summary>Thinking</summary>" in md


def test_export_markdown_fences_survive_backticks_in_results(store):
    conv = save_chat(store, [Message(role="user", content="show code"),
                             Message(role="tool", tool_name="read_file", content="```python\nprint(1)\n```")])
    md = store.export(conv.id, "md")
    assert "````\n```python\nprint(1)\n```\n````" in md


def test_export_json_is_our_versioned_format_and_imports_back(store, tmp_path):
    conv = save_chat(store, tool_turn())
    store.rename(conv.id, "Paris weather")
    text = store.export(conv.id, "json")
    data = json.loads(text)
    assert data["format"] == "desktop-agent.conversation" and data["version"] == 2
    assert data["title"] == "Paris weather" and data["title_is_custom"] is True
    assert len(data["messages"]) == 4 and data["messages"][1]["tool_calls"][0]["arguments"] == {"city": "Paris"}
    f = tmp_path / "export.json"
    f.write_text(text, encoding="utf-8")
    assert store.import_file(f).new_messages == 0  # the chat is here already: nothing is added
    with ConversationStore(tmp_path / "other.sqlite3") as other:
        new_id = other.import_file(f).chat_ids[0]
        copy = other.load(new_id)
        s = other.summary(new_id)
    strip = lambda ms: [m.model_dump(exclude={"id", "parent_id"}) for m in ms]  # noqa: E731
    assert strip(copy.messages) == strip(store.load(conv.id).messages)
    assert (s.title, s.title_is_custom, s.model, s.backend) == ("Paris weather", True, "llama3.2", "ollama")
    with pytest.raises(ValueError):
        store.export(conv.id, "pdf")
    with pytest.raises(ConversationNotFound):
        store.export("missing", "md")


def test_import_into_another_store_keeps_the_id(store, tmp_path):
    conv = save_chat(store, tool_turn())
    f = tmp_path / "export.json"
    f.write_text(store.export(conv.id, "json"), encoding="utf-8")
    with ConversationStore(tmp_path / "other.sqlite3") as other:
        assert other.import_file(f).chat_ids == [conv.id]
        assert len(other.search("sunny")) == 2


def test_import_seed_chat_file(store, tmp_path):
    """The seed script's memory.save(): chat_<model without '-'>_<YYYYmmddHHMMSS>.json, a list of {"human", "ai"}."""
    f = tmp_path / "chat_llama3.2_20240501093015.json"
    seed = [{"human": "What day is it today?", "ai": "Today is Wednesday."},
            {"human": "北京天气如何？", "ai": "北京今天晴。"}]
    f.write_text(json.dumps(seed, indent=4), encoding="utf-8")
    cid = store.import_file(f).chat_ids[0]
    conv = store.load(cid)
    assert [(m.role, m.content) for m in conv.messages] == [
        ("user", "What day is it today?"), ("assistant", "Today is Wednesday."),
        ("user", "北京天气如何？"), ("assistant", "北京今天晴。"),
    ]
    s = store.summary(cid)
    assert s.title == "What day is it today?" and s.model == "llama3.2"
    assert time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(s.created_at)) == "2024-05-01 09:30:15"
    assert [h.conversation_id for h in store.search("晴")] == [cid]


def test_import_seed_file_without_model_in_name(store, tmp_path):
    f = tmp_path / "chat_20240501093015.json"
    f.write_text(json.dumps([{"human": "hi", "ai": ""}]), encoding="utf-8")
    conv = store.load(store.import_file(f).chat_ids[0])
    assert [(m.role, m.content) for m in conv.messages] == [("user", "hi")] and conv.model is None


def test_import_plain_chat_object_with_role_messages(store, tmp_path):
    """The shape of shared case 36's good.json: {"id", "title", "messages": [{"role", "content"}]}."""
    f = tmp_path / "good.json"
    f.write_text(json.dumps({"id": "c1", "title": "Paris weather",
                             "messages": [{"role": "user", "content": "hi"},
                                          {"role": "assistant", "content": "Hello!"}]}))
    assert store.import_file(f).chat_ids == ["c1"]
    assert store.summary("c1").title == "Paris weather"
    assert [m.content for m in store.load("c1").messages] == ["hi", "Hello!"]


BAD_FILES = {
    "empty.json": ("", "empty"),
    "blank.json": ("  \n\t", "empty"),
    "truncated.json": ('{"id": "c3", "messages": [{"role": "user", "content": "hi"', "truncated"),
    "truncated_seed.json": ('[\n    {\n        "human": "hi",\n        "ai": "Hel', "truncated"),
    "garbage.json": ("hello, not json {", "not valid JSON"),
    "number.json": ("42", "not a chat file"),
    "empty_list.json": ("[]", "no chats"),
    "no_messages.json": ('{"format": "desktop-agent.conversation", "version": 1, "messages": []}', "no messages"),
    "bad_role.json": ('{"messages": [{"role": "user", "content": "ok"}, {"role": "wizard", "content": "x"}]}',
                      "message 2"),
    "bad_item.json": ('[{"human": "ok", "ai": "fine"}, "just a string"]', "not a chat file"),
    "bad_types.json": ('[{"human": "ok", "ai": "fine"}, {"human": 3, "ai": null}]', "turn 2"),
    "newer.json": ('{"format": "desktop-agent.conversation", "version": 99, "messages": [{"role": "user"}]}', "newer"),
    "other_format.json": ('{"format": "something-else", "messages": [{"role": "user"}]}', "not a chat file"),
    "latin1.json": (b'[{"human": "caf\xe9", "ai": "ok"}]', "UTF-8"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_import_bad_file_fails_clearly_and_imports_nothing(store, tmp_path, name):
    """shared case 36-storage-empty-or-truncated-chat-file.json: an empty, truncated or invalid chat file gives a
    clear typed error, imports nothing partial and is neither deleted nor changed; the good chats stay listed."""
    good = save_chat(store, [Message(role="user", content="hi"), Message(role="assistant", content="Hello!")])
    content, reason = BAD_FILES[name]
    f = tmp_path / name
    if isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content, encoding="utf-8")
    before = f.read_bytes()
    with pytest.raises(ImportFailed) as info:
        store.import_file(f)
    assert reason in str(info.value) and str(f) in str(info.value) and "Nothing was imported" in str(info.value)
    assert isinstance(info.value, StoreError)
    assert [s.id for s in store.list()] == [good.id]
    assert store.conn.execute("SELECT count(*) FROM messages").fetchone() == (2,)
    assert f.read_bytes() == before


def test_import_missing_file_and_folder(store, tmp_path):
    with pytest.raises(ImportFailed, match="can't be read"):
        store.import_file(tmp_path / "nope.json")
    with pytest.raises(ImportFailed, match="folder"):
        store.import_file(tmp_path)


def test_import_failing_mid_transaction_leaves_nothing(store, tmp_path, monkeypatch):
    """shared case 36: the import is one transaction — a failure after some rows were written rolls them all back."""
    f = tmp_path / "chat_x_20240101000000.json"
    f.write_text(json.dumps([{"human": f"q{i}", "ai": f"a{i}"} for i in range(10)]), encoding="utf-8")
    real = ConversationStore._insert_message
    calls = {"n": 0}

    def flaky(self, conn, conversation_id, message, parent_id):
        calls["n"] += 1
        if calls["n"] == 7:
            raise sqlite3.OperationalError("disk I/O error")
        return real(self, conn, conversation_id, message, parent_id)

    monkeypatch.setattr(ConversationStore, "_insert_message", flaky)
    with pytest.raises(StoreError):
        store.import_file(f)
    monkeypatch.setattr(ConversationStore, "_insert_message", real)
    assert store.count() == 0
    assert store.conn.execute("SELECT count(*) FROM messages").fetchone() == (0,)
    assert store.search("q1") == []


def test_export_file_write_interrupted_keeps_the_previous_file(tmp_path, monkeypatch):
    """shared case 36 (crash variant): a save killed after half the new bytes keeps the old file intact,
    because exports go to a temporary file in the same folder and then os.replace()."""
    target = tmp_path / "good.json"
    target.write_text('{"old": true}', encoding="utf-8")
    real_fdopen = os.fdopen

    class HalfWriter:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, text):
            self.f.write(text[: len(text) // 2])
            self.f.flush()
            raise OSError("killed mid-write")

    monkeypatch.setattr(os, "fdopen", lambda *a, **k: HalfWriter(real_fdopen(*a, **k)))
    with pytest.raises(OSError, match="mid-write"):
        atomic_write_text(target, json.dumps({"new": "x" * 10_000}))
    monkeypatch.setattr(os, "fdopen", real_fdopen)
    assert target.read_text(encoding="utf-8") == '{"old": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.json"]  # no temp file left behind
    atomic_write_text(target, "新的内容")
    assert target.read_text(encoding="utf-8") == "新的内容"


# ------------------------------------------------------------------------------- damaged / newer db


def make_store_with_chat(db: Path, n: int = 3) -> str:
    with ConversationStore(db) as s:
        conv = save_chat(s, [Message(role="user", content=f"hello {i} " + "x" * 3000) for i in range(n)])
        s.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return conv.id


def assert_fresh_store_with_kept_file(db: Path, kind: str, original: bytes) -> ConversationStore:
    s = ConversationStore(db)
    kept = sorted(db.parent.glob(f"{db.name}.{kind}-*"))
    kept = [p for p in kept if not p.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1, list(db.parent.iterdir())
    assert kept[0].read_bytes() == original  # kept, unchanged
    assert len(s.warnings) == 1 and str(kept[0]) in s.warnings[0]
    assert s.count() == 0
    save_chat(s, [Message(role="user", content="a new start")])  # and it works
    assert s.list()[0].title == "a new start"
    return s


def test_file_that_is_not_a_database_is_kept_aside_and_a_fresh_one_started(db):
    db.write_text("this is not a database, just text that someone saved here\n" * 5, encoding="utf-8")
    original = db.read_bytes()
    s = assert_fresh_store_with_kept_file(db, "corrupt", original)
    assert "damaged" in s.warnings[0] and "not a SQLite database" in s.warnings[0]
    s.close()


def test_database_with_a_broken_header_is_kept_aside(db):
    make_store_with_chat(db)
    data = bytearray(db.read_bytes())
    data[16:100] = b"\x07" * 84  # magic string intact, page size and the rest of the header nonsense
    db.write_bytes(bytes(data))
    s = assert_fresh_store_with_kept_file(db, "corrupt", bytes(data))
    assert "damaged" in s.warnings[0]
    s.close()


def test_locked_database_is_an_error_not_damage(db):
    """Another process writing (lock held) must never make us move the user's history aside."""
    make_store_with_chat(db)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA locking_mode = EXCLUSIVE")
    other.execute("BEGIN EXCLUSIVE")
    other.execute("UPDATE conversations SET title = 'locked'")
    try:
        with pytest.raises(StoreError, match=r"locked|busy"):
            ConversationStore(db, busy_timeout_s=0.1)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert list(db.parent.glob("*.corrupt-*")) == []
    with ConversationStore(db) as s:
        assert s.warnings == [] and s.count() == 1


def test_truncated_database_is_kept_aside(db):
    make_store_with_chat(db, n=40)
    data = db.read_bytes()
    assert len(data) > 40_000
    db.write_bytes(data[: len(data) // 2])
    s = assert_fresh_store_with_kept_file(db, "corrupt", data[: len(data) // 2])
    assert "truncated" in s.warnings[0]
    s.close()


def test_database_failing_the_integrity_check_is_kept_aside(db):
    make_store_with_chat(db, n=40)
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    # scribble over the middle pages (b-tree pages of the messages table) but keep the header valid
    for p in range(3, len(data) // page - 1):
        data[p * page + 8 : p * page + 40] = b"\xff" * 32
    db.write_bytes(bytes(data))
    s = assert_fresh_store_with_kept_file(db, "corrupt", bytes(data))
    assert "damaged" in s.warnings[0]
    s.close()


def test_wal_of_a_damaged_database_moves_with_it(db):
    db.write_bytes(b"garbage" * 100)
    wal = Path(str(db) + "-wal")
    wal.write_bytes(b"wal data")
    s = ConversationStore(db)
    kept = [p for p in db.parent.glob(f"{db.name}.corrupt-*") if not p.name.endswith("-wal")]
    assert Path(str(kept[0]) + "-wal").read_bytes() == b"wal data"
    assert s.count() == 0
    s.close()


def test_empty_database_file_is_just_a_new_store(db):
    db.write_bytes(b"")
    s = ConversationStore(db)
    assert s.warnings == [] and s.count() == 0
    s.close()


def test_database_from_a_newer_version_is_kept_aside(db):
    make_store_with_chat(db)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    original = db.read_bytes()
    s = assert_fresh_store_with_kept_file(db, "newer", original)
    assert "newer version" in s.warnings[0] and "schema 99" in s.warnings[0]
    kept = next(p for p in db.parent.glob(f"{db.name}.newer-*") if not p.name.endswith(("-wal", "-shm")))
    assert other_connection_rows(kept, "PRAGMA user_version") == [(99,)]
    s.close()


def test_damage_seen_while_running_raises_and_is_checked_on_next_start(db):
    cid = make_store_with_chat(db, n=40)
    s = ConversationStore(db, check_max_bytes=0)  # big-file mode: no integrity check at start
    assert s.warnings == []
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for p in range(3, len(data) // page - 1):
        data[p * page : p * page + 100] = b"\x00\x01" * 50
    with open(db, "r+b") as f:  # damage the file under the running store
        f.write(bytes(data))
    with pytest.raises(StoreDamaged) as info:
        s.load(cid)
        s.search("hello")
        save_chat(s, [Message(role="user", content="x" * 5000) for _ in range(5)])
    assert "Restart" in str(info.value)
    s.close()
    assert Path(str(db) + ".needs-check").exists()
    s2 = ConversationStore(db, check_max_bytes=0)  # the marker forces the check despite the size
    assert len(s2.warnings) == 1 and "damaged" in s2.warnings[0]
    assert not Path(str(db) + ".needs-check").exists()
    s2.close()


def test_migration_makes_a_backup_first(db, monkeypatch):
    cid = make_store_with_chat(db)
    n = store_schema.schema_version()  # the version the chat was saved with; one more migration follows

    def add_pinned(conn):
        conn.execute("ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")

    monkeypatch.setattr(store_schema, "MIGRATIONS", [*store_schema.MIGRATIONS, add_pinned])
    s = ConversationStore(db)
    try:
        assert s.warnings == []
        assert s.backup_path is not None and s.backup_path.name.startswith(f"conversations.sqlite3.v{n}-backup-")
        assert other_connection_rows(s.backup_path, "PRAGMA user_version") == [(n,)]
        assert other_connection_rows(s.backup_path, "SELECT id FROM conversations") == [(cid,)]
        assert s.conn.execute("PRAGMA user_version").fetchone() == (n + 1,)
        assert s.conn.execute("SELECT pinned FROM conversations").fetchall() == [(0,)]
        assert len(s.load(cid).messages) == 3
    finally:
        s.close()
    # opening again: nothing to migrate, no second backup
    s = ConversationStore(db)
    s.close()
    assert s.backup_path is None
    assert len(list(db.parent.glob("*-backup-*"))) == 1


def test_failed_migration_is_rolled_back_and_names_the_backup(db, monkeypatch):
    make_store_with_chat(db)
    n = store_schema.schema_version()

    def broken(conn):
        conn.execute("ALTER TABLE conversations ADD COLUMN pinned INTEGER")
        conn.execute("THIS IS NOT SQL")

    monkeypatch.setattr(store_schema, "MIGRATIONS", [*store_schema.MIGRATIONS, broken])
    with pytest.raises(StoreError, match="backup") as info:
        ConversationStore(db)
    assert f"schema {n + 1}" in str(info.value)
    assert other_connection_rows(db, "PRAGMA user_version") == [(n,)]
    cols = [r[1] for r in other_connection_rows(db, "PRAGMA table_info(conversations)")]
    assert "pinned" not in cols


def test_fresh_store_has_current_schema_and_no_backup(db):
    with ConversationStore(db) as s:
        assert s.conn.execute("PRAGMA user_version").fetchone() == (store_schema.schema_version(),)
        assert s.backup_path is None and s.warnings == []
    assert list(db.parent.glob("*backup*")) == []


def test_busy_write_fails_cleanly_and_the_store_keeps_working(store, db):
    """A write that cannot get the lock (another process writes) fails with a StoreError and leaves no open
    transaction."""
    conv = save_chat(store, [Message(role="user", content="first")])
    store.conn.execute("PRAGMA busy_timeout = 50")
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # the write lock
    try:
        with pytest.raises(StoreError, match="busy"):
            store.add_message(conv, Message(role="user", content="second"))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not store.conn.in_transaction
    store.add_message(conv, Message(role="user", content="third"))
    assert [m.content for m in store.load(conv.id).messages] == ["first", "third"]


def test_a_row_this_version_cannot_read_is_a_store_error(store, db):
    conv = save_chat(store, [Message(role="user", content="hi")])
    conn = sqlite3.connect(db)
    conn.execute("UPDATE messages SET role = 'wizard'")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="can't read"):
        store.load(conv.id)


# ------------------------------------------------------------------------------- a failed last turn


def test_a_failed_turn_is_saved_with_the_chat_replaced_and_cleared(store):
    conv = save_chat(store, [Message(role="user", content="hello")])
    before = store.summary(conv.id).updated_at
    assert store.load(conv.id).last_failure is None
    store.set_failure(conv.id, "BackendError", "The server reported an error (HTTP 500): boom")
    failure = store.load(conv.id).last_failure
    assert (failure.kind, failure.text) == ("BackendError", "The server reported an error (HTTP 500): boom")
    assert abs(failure.failed_at - time.time()) < 60
    assert store.summary(conv.id).updated_at == before  # the list order does not change
    store.set_failure(conv.id, "EmptyAnswer", "The server returned an empty answer.")
    assert store.load(conv.id).last_failure.kind == "EmptyAnswer"  # one per chat: the latest
    store.clear_failure(conv.id)
    assert store.load(conv.id).last_failure is None
    store.clear_failure(conv.id)  # nothing to clear: fine


def test_a_failure_of_an_unsaved_or_deleted_chat_is_not_saved(store, db):
    store.set_failure("never-saved", "BackendError", "boom")  # the turn failed before its first message
    assert other_connection_rows(db, "SELECT count(*) FROM turn_failures") == [(0,)]
    conv = save_chat(store, [Message(role="user", content="hello")])
    store.set_failure(conv.id, "BackendError", "boom")
    store.delete(conv.id)
    assert other_connection_rows(db, "SELECT count(*) FROM turn_failures") == [(0,)]
    store.set_failure(conv.id, "BackendError", "late")  # a turn still ending in the deleted chat
    assert other_connection_rows(db, "SELECT count(*) FROM turn_failures") == [(0,)]


def test_a_failure_is_not_part_of_an_export(store, tmp_path):
    conv = save_chat(store, [Message(role="user", content="hello")])
    store.set_failure(conv.id, "BackendError", "boom at http://localhost:11434")
    text = store.export(conv.id, "json")
    assert "boom" not in text and "last_failure" not in text and "boom" not in store.export(conv.id, "md")
    path = tmp_path / "chat.json"
    path.write_text(text, encoding="utf-8")
    with ConversationStore(tmp_path / "other.sqlite3") as other:
        assert other.load(other.import_file(path).chat_ids[0]).last_failure is None


def _session_events(store, conv, backend, text):
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.session import ChatSession

    session = ChatSession(conv, store, Agent(backend))
    return list(session.run_turn(text))


def test_the_chat_session_records_a_failed_turn_and_forgets_it_when_a_turn_answers(store):
    from desktop_agent.core.errors import BackendError
    from desktop_agent.core.events import AnswerFinished, TurnFailed

    from .scripted import ScriptedBackend, text

    conv = Conversation()
    backend = ScriptedBackend(BackendError("boom", status=500), text("Hi!"), BackendError("again", status=500),
                              text("Still here."))
    events = _session_events(store, conv, backend, "hello")
    assert isinstance(events[-1], TurnFailed)
    saved = store.load(conv.id).last_failure
    assert (saved.kind, saved.text) == ("BackendError", str(events[-1].error))
    assert conv.last_failure == saved.model_copy(update={"failed_at": conv.last_failure.failed_at})
    events = _session_events(store, conv, backend, None)  # Retry
    assert isinstance(events[-1], AnswerFinished)
    assert store.load(conv.id).last_failure is None and conv.last_failure is None
    _session_events(store, conv, backend, "more")
    assert store.load(conv.id).last_failure.text.endswith("again")
    # a new message of the user: the old failure is forgotten as soon as that message is saved
    from desktop_agent.core.events import MessageAdded

    run = iter(_run_lazily(store, conv, ScriptedBackend(text("ok")), "next"))
    for event in run:
        if isinstance(event, MessageAdded):
            break
    assert store.load(conv.id).last_failure is None
    assert isinstance(list(run)[-1], AnswerFinished)


def _run_lazily(store, conv, backend, text):
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.session import ChatSession

    return ChatSession(conv, store, Agent(backend)).run_turn(text)


def test_a_stopped_retry_forgets_the_failure_and_a_store_error_does_not_break_the_turn(store, monkeypatch):
    from desktop_agent.core.errors import BackendError
    from desktop_agent.core.events import TurnCancelled, TurnFailed

    from .scripted import ScriptedBackend, WaitForCancel

    conv = Conversation()
    _session_events(store, conv, ScriptedBackend(BackendError("boom", status=500)), "hello")
    assert store.load(conv.id).last_failure is not None
    cancel = threading.Event()
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.session import ChatSession

    session = ChatSession(conv, store, Agent(ScriptedBackend([lambda c: cancel.set(), WaitForCancel()])))
    assert isinstance(list(session.run_turn(None, cancel))[-1], TurnCancelled)
    assert store.load(conv.id).last_failure is None

    def full(*_a):
        raise StoreError("The disk is full")

    monkeypatch.setattr(store, "set_failure", full)
    events = _session_events(store, conv, ScriptedBackend(BackendError("boom", status=500)), None)
    assert isinstance(events[-1], TurnFailed) and conv.last_failure is not None


def test_migrating_a_version_1_database_keeps_everything(db, monkeypatch):
    """A history written by schema 1 (before failures and import records): backed up, migrated in place,
    every chat, message field, title and search entry kept; the new tables work."""
    with schema_of_version(monkeypatch, 1), ConversationStore(db) as old:
        tools = save_chat(old, tool_turn())
        plain = save_chat(old, [Message(role="user", content="北京明天的天气怎么样"),
                                Message(role="assistant", content="晴", status="stopped", model="qwen3")])
        old.rename(plain.id, "Beijing weather")
        listed = old.list()
        assert old.conn.execute("PRAGMA user_version").fetchone() == (1,)
    tables = tables_before_7()  # (schema 7 added columns to these)
    tables["messages"] = messages_sql(1)  # schema 5 added columns
    before = {t: other_connection_rows(db, sql) for t, sql in tables.items()}
    with ConversationStore(db) as s:
        assert s.warnings == []
        assert s.backup_path is not None and s.backup_path.name.startswith("conversations.sqlite3.v1-backup-")
        assert other_connection_rows(s.backup_path, "SELECT count(*) FROM messages") == [(6,)]
        assert s.conn.execute("PRAGMA user_version").fetchone() == (store_schema.schema_version(),)
        assert s.list() == listed
        for t, sql in tables.items():
            assert s.conn.execute(sql).fetchall() == before[t]
        loaded = s.load(tools.id)
        assert [m.model_dump(exclude={"id", "parent_id"}) for m in loaded.messages] == [
            m.model_dump(exclude={"id", "parent_id"}) for m in tools.messages]
        assert loaded.last_failure is None and s.load(plain.id).messages[1].status == "stopped"
        assert s.title_is_custom(plain.id)
        assert [h.message_id for h in s.search("sunny")] == [tools.messages[3].id, tools.messages[2].id]
        assert {h.conversation_id for h in s.search("天气")} == {plain.id}
        assert [h.role for h in s.search("Beijing")] == ["title"]
        s.set_failure(tools.id, "BackendError", "boom")
        assert s.load(tools.id).last_failure.text == "boom"
        m2 = Message(role="user", content="and one more")
        conv = s.load(plain.id)
        conv.messages.append(m2)
        s.add_message(conv, m2)
        assert len(s.load(plain.id).messages) == 3


# ------------------------------------------------------------------------------------ title search


def test_search_finds_custom_titles(store):
    trip = save_chat(store, [Message(role="user", content="Where should I go?"),
                             Message(role="assistant", content="Kyoto in spring.")])
    store.rename(trip.id, "Holiday planning 2026")
    other = save_chat(store, [Message(role="user", content="a planning question")])
    hits = store.search("PLANNING")
    assert [(h.conversation_id, h.role) for h in hits] == [(other.id, "user"), (trip.id, "title")]
    title_hit = hits[1]
    assert title_hit.in_title and not hits[0].in_title
    assert title_hit.message_id == trip.messages[0].id  # opening it starts at the chat's first message
    assert title_hit.title == "Holiday planning 2026" and title_hit.snippet == "Holiday «planning» 2026"
    assert title_hit.created_at == store.summary(trip.id).updated_at
    assert [h.role for h in store.search("holiday 2026")] == ["title"]  # every term, in any order
    assert store.search("holiday spring") == []  # the title and a message do not add up
    assert [h.role for h in store.search("26")] == ["title"]  # short terms too
    assert store.search('"planning 2027"') == []


def test_a_default_title_is_not_a_second_hit_and_the_placeholder_is_no_title(store):
    conv = save_chat(store, [Message(role="user", content="Weather in Paris tomorrow?"),
                             Message(role="assistant", content="Sunny.")])
    hits = store.search("paris")
    assert [(h.message_id, h.role) for h in hits] == [(conv.messages[0].id, "user")]  # not also its title
    # the title is its first message on one line: a phrase across the line break is found in the title only
    two_lines = save_chat(store, [Message(role="user", content="first line\nsecond line")])
    assert [(h.conversation_id, h.role) for h in store.search('"line second"')] == [(two_lines.id, "title")]
    save_chat(store, [Message(role="assistant", content="I start this chat.")])  # titled "New chat"
    assert store.search("new chat") == []


def test_search_of_titles_is_limited_and_newest_first(store):
    convs = [save_chat(store, [Message(role="user", content=f"question {i}")]) for i in range(6)]
    for i, conv in enumerate(convs):
        store.rename(conv.id, f"Project Zeta part {i}")
    hits = store.search("zeta", limit=4)
    assert [h.conversation_id for h in hits] == [c.id for c in reversed(convs)][:4]


# ------------------------------------------------------------------------------- importing again


def test_importing_the_same_file_again_adds_nothing(store, tmp_path):
    seed = tmp_path / "chat_llama3.2_20260615101500.json"
    seed.write_text(json.dumps([{"human": "What day is it?", "ai": "Monday."}]), encoding="utf-8")
    first = store.import_file(seed)
    assert (first.new_chats, first.new_messages) == (1, 2)
    again = store.import_file(seed)
    assert (again.new_chats, again.updated_chats, again.new_messages) == (0, 0, 0) and store.count() == 1
    store.delete(first.chat_ids[0])  # the imported chat deleted: importing brings it back
    assert store.import_file(seed).new_chats == 1 and store.count() == 1


def test_another_export_of_a_chat_adds_only_its_new_messages(store, tmp_path):
    conv = save_chat(store, tool_turn())
    here = tmp_path / "here.json"
    here.write_text(store.export(conv.id, "json"), encoding="utf-8")
    with ConversationStore(tmp_path / "other.sqlite3") as other:
        assert other.import_file(here).chat_ids == [conv.id]
        save_chat(store, [Message(role="user", content="And tomorrow?"), Message(role="assistant", content="Rain.")],
                  conv)
        later = tmp_path / "later.json"
        later.write_text(store.export(conv.id, "json"), encoding="utf-8")
        r = other.import_file(later)
        assert (r.new_chats, r.updated_chats, r.new_messages) == (0, 1, 2)
        assert [m.content for m in other.load(conv.id).messages][-2:] == ["And tomorrow?", "Rain."]
        assert other.import_file(later).new_messages == 0


def test_a_user_message_that_could_not_be_saved_is_not_kept_in_the_chat(tmp_path):
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.backends.base import Chunk
    from desktop_agent.core.errors import StoreError
    from desktop_agent.core.messages import Conversation
    from desktop_agent.core.session import ChatSession
    from desktop_agent.core.store import ConversationStore

    class Echo:
        name, model = "fake", "echo"

        def __init__(self):
            self.requests = []

        def stream_chat(self, messages, tools=None, tool_choice="auto", cancel=None, stream=True):
            self.requests.append([m.role for m in messages])
            yield Chunk(text="answer")
            yield Chunk(done=True, finish_reason="stop")

        def close(self):
            pass

    store = ConversationStore(tmp_path / "c.db")
    real, fails = store.add_message, [1]

    def flaky(conv, msg):
        if fails and msg.role == "user":
            fails.pop()
            raise StoreError("database is locked")
        return real(conv, msg)

    store.add_message = flaky
    backend = Echo()
    session = ChatSession(Conversation(), store, Agent(backend, None))
    events = list(session.run_turn("hello"))
    assert type(events[-1]).__name__ == "TurnFailed"  # no MessageAdded: the window gives the text back
    list(session.run_turn("hello"))  # the user sends it again
    # FAULT: the model gets ['system', 'user', 'user'] (the unsaved copy stayed in the conversation)
    assert backend.requests[-1] == ["system", "user"]
