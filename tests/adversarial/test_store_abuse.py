"""The chat store under abuse: huge messages, odd text, query syntax, odd titles, hostile imports,
the data folder deleted while running. Real SQLite files in tmp_path."""

import json
import shutil

import pytest

from desktop_agent.core.errors import ImportFailed, StoreError
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.titles import MAX_TITLE_CHARS


@pytest.fixture
def store(tmp_path):
    s = ConversationStore(tmp_path / "data" / "c.sqlite3")
    yield s
    s.close()


def test_search_in_a_huge_repetitive_message_is_linear(store, monkeypatch):
    """A 200 kB tool result made of one repeated character: FTS5's snippet() was quadratic in the
    matches (77 s for 100 kB); the snippet must come from a linear cut. Measured by counting the
    calls to FTS5 snippet (none) rather than by time."""
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="show the log"))
    store.add_message(conv, Message(role="tool", content="=" * 200_000, tool_call_id="c1", tool_name="log"))
    statements = []
    store.conn.set_trace_callback(statements.append)
    hits = store.search("===")
    store.conn.set_trace_callback(None)
    assert len(hits) == 1 and hits[0].role == "tool"
    assert not any("snippet(" in s for s in statements)
    assert "«===" in hits[0].snippet and len(hits[0].snippet) < 200


@pytest.mark.parametrize(
    "query", ['"', "*", "NEAR", "NEAR(a b)", "-", ":", "a:b", '"open', "^x", "text:abc", "(", "\x00"]
)
def test_fts_syntax_in_search_is_plain_text(store, query):
    conv = Conversation()
    store.add_message(conv, Message(role="user", content=f"literal {query} here"))
    hits = store.search(query)  # never an FTS syntax error
    assert all(h.conversation_id == conv.id for h in hits)


def test_lone_surrogate_in_search_and_rename_is_not_a_crash(store):
    """A lone surrogate (half an emoji pasted from a broken source) raised UnicodeEncodeError, which is
    no StoreError, out of search() and rename()."""
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="bad \ud83d half"))
    assert [h.conversation_id for h in store.search("\ud83d half")] == [conv.id]
    store.rename(conv.id, "title \udc00")
    assert store.summary(conv.id).title == "title \ufffd"


def test_nul_and_megabyte_messages_round_trip(store):
    """Text after a NUL was not indexed: FTS5 stops at the NUL, so words after it were never found."""
    conv = Conversation()
    big = "abc\x00def " * 125_000  # 1 MB with NULs
    store.add_message(conv, Message(role="user", content=big))
    assert store.load(conv.id).messages[0].content == big
    assert store.search("def abc")[0].conversation_id == conv.id


def test_rename_to_empty_and_very_long_titles(store):
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="first question"))
    store.rename(conv.id, " \n\t ")
    assert store.summary(conv.id).title == "first question"
    store.rename(conv.id, "T" * 100_000)
    title = store.summary(conv.id).title
    assert len(title) == MAX_TITLE_CHARS and title.endswith("…")


def test_deeply_nested_json_import_is_an_import_failure(store, tmp_path):
    """RecursionError escaped reading the file (not an ImportFailed: the GUI showed a crash dialog)."""
    p = tmp_path / "deep.json"
    p.write_text('{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    with pytest.raises(ImportFailed, match="nested too deeply"):
        store.import_file(p)
    assert store.count() == 0


def test_nan_and_infinity_in_an_import_are_refused_clearly(store, tmp_path):
    """NaN times passed validation and failed in SQLite with 'NOT NULL constraint failed'."""
    p = tmp_path / "nan.json"
    p.write_text('{"created_at": Infinity, "messages": [{"role": "user", "content": "x", "created_at": NaN}]}')
    with pytest.raises(ImportFailed, match="not a number JSON allows"):
        store.import_file(p)
    assert store.count() == 0


def test_seed_format_with_missing_keys_and_non_string_values(store, tmp_path):
    """Shared case 36-storage-empty-or-truncated-chat-file.json (the import side): bad items import nothing."""
    ok = tmp_path / "chat_llama3_20240101120000.json"
    ok.write_text(json.dumps([{"human": "hi"}, {"ai": "hello"}, {"human": "x", "ai": "y", "extra": 1}]))
    cid = store.import_file(ok).chat_ids[0]
    assert [m.role for m in store.load(cid).messages] == ["user", "assistant", "user", "assistant"]
    for bad in ([{"human": 1, "ai": "x"}], [{"human": "x", "ai": None}], [{"nothing": 1}], [[1, 2]]):
        p = tmp_path / "chat_bad_20240101120000.json"
        p.write_text(json.dumps(bad))
        with pytest.raises(ImportFailed):
            store.import_file(p)
    assert store.count() == 1


def test_title_is_custom_must_be_a_boolean(store, tmp_path):
    p = tmp_path / "c.json"
    p.write_text(
        json.dumps({"title": "x" * 500, "title_is_custom": "no", "messages": [{"role": "user", "content": "q"}]})
    )
    cid = store.import_file(p).chat_ids[0]
    assert len(store.summary(cid).title) <= MAX_TITLE_CHARS


def test_data_folder_deleted_while_running_keeps_saving_to_a_real_file(tmp_path):
    """Saves after the data folder was removed went to an unlinked file and vanished at exit."""
    path = tmp_path / "data" / "c.sqlite3"
    s = ConversationStore(path)
    conv = Conversation()
    s.add_message(conv, Message(role="user", content="before"))
    shutil.rmtree(tmp_path / "data")
    s.add_message(conv, Message(role="assistant", content="after"))
    s.close()
    assert path.exists()
    again = ConversationStore(path)
    assert [m.content for m in again.load(conv.id).messages] == ["before", "after"]
    again.close()
    assert any("deleted" in w for w in s.warnings)


def test_data_folder_replaced_by_a_file_gives_a_store_error(tmp_path):
    path = tmp_path / "data" / "c.sqlite3"
    s = ConversationStore(path)
    conv = Conversation()
    s.add_message(conv, Message(role="user", content="before"))
    shutil.rmtree(tmp_path / "data")
    (tmp_path / "data").write_text("not a folder")
    with pytest.raises(StoreError, match="deleted"):
        s.add_message(conv, Message(role="assistant", content="after"))
    s.close()


def test_two_stores_on_one_file_write_interleaved(tmp_path):
    """Window and `desktop-agent chat` at once: two connections, WAL, both see each other's chats."""
    path = tmp_path / "c.sqlite3"
    a, b = ConversationStore(path), ConversationStore(path)
    ca, cb = Conversation(), Conversation()
    for i in range(20):
        a.add_message(ca, Message(role="user", content=f"a{i}"))
        b.add_message(cb, Message(role="user", content=f"b{i}"))
    assert {s.id for s in a.list()} == {ca.id, cb.id} == {s.id for s in b.list()}
    assert len(b.load(ca.id).messages) == 20
    a.close()
    b.close()
