"""Export and import (issue 22): each format parsed, message trees become branches, malformed files import
nothing and name the wrong entry, importing again adds nothing, a later export adds only what is new, and our
JSON round-trips (export → import → export identical modulo ids)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from desktop_agent.core.errors import ImportFailed
from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.porting.html_doc import export_html
from desktop_agent.core.porting.reading import read_import_file
from desktop_agent.core.store import ConversationStore
from tests.helpers.chat_exports import (
    Builder,
    chatgpt_export,
    continue_chatgpt,
    openwebui_export,
    text,
)


@pytest.fixture
def store(tmp_path):
    s = ConversationStore(tmp_path / "conversations.sqlite3")
    yield s
    s.close()


@pytest.fixture
def other(tmp_path):
    s = ConversationStore(tmp_path / "other.sqlite3")
    yield s
    s.close()


def write(tmp_path: Path, name: str, data) -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return p


def counts(store: ConversationStore) -> tuple[int, int]:
    return store.count(), store.read("SELECT count(*) FROM messages")[0][0]


# ---- ChatGPT -----------------------------------------------------------------------------------------


def small_chatgpt() -> dict:
    """One conversation, built by hand: hidden system message and custom instructions, a question with an image,
    two answers (regenerated: a branch; the second shown), a Python tool step with reasoning before the answer."""
    b = Builder(random.Random(1), 1_700_000_000.0)
    root = b.node(None, None, key="root")
    system = b.node(root, b.msg("system", text(""), metadata={"is_visually_hidden_from_conversation": True},
                                key="sys"), "sys")
    ctx = b.node(system, b.msg("user", {"content_type": "user_editable_context", "user_instructions": "Be brief."},
                               metadata={"is_visually_hidden_from_conversation": True}, key="ctx"), "ctx")
    q = b.node(ctx, b.msg("user", {"content_type": "multimodal_text", "parts": [
        {"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"}, "What is in this photo?"]},
        key="q"), "q")
    b.node(q, b.msg("assistant", text("A cat."), metadata={"model_slug": "gpt-4o"}, key="a1"), "a1")
    a2 = b.node(q, b.msg("assistant", text("A small cat."), metadata={"model_slug": "gpt-4o"}, key="a2"), "a2")
    q2 = b.node(a2, b.msg("user", text("What is 6*7?"), key="q2"), "q2")
    code = b.node(q2, b.msg("assistant", {"content_type": "code", "language": "python", "text": "print(6*7)"},
                            recipient="python", metadata={"model_slug": "gpt-4o"}, key="code"), "code")
    out = b.node(code, b.msg("tool", {"content_type": "execution_output", "text": "42"}, name="python", key="out"),
                 "out")
    th = b.node(out, b.msg("assistant", {"content_type": "thoughts", "thoughts": [
        {"summary": "s", "content": "The tool said 42."}]}, key="th"), "th")
    b.node(th, b.msg("assistant", text("It is **42**."), metadata={"model_slug": "gpt-4o"}, key="ans"), "ans")
    return {"title": "Cat photo", "create_time": 1_700_000_000.0, "update_time": b.t, "mapping": b.mapping,
            "current_node": "ans", "conversation_id": "conv-1", "id": "conv-1", "default_model_slug": "gpt-4o"}


def test_chatgpt_tree_becomes_our_branches_with_tools_thinking_and_hidden_messages_left_out(store, tmp_path):
    plan = read_import_file(write(tmp_path, "conversations.json", [small_chatgpt()]))
    assert (plan.app, plan.app_name, len(plan.chats)) == ("chatgpt", "ChatGPT", 1)
    chat = plan.chats[0]
    assert [n.key for n in chat.nodes] == ["q", "a1", "a2", "q2", "code", "out", "ans"]  # hidden ones left out
    assert chat.shown_keys() == ["q", "a2", "q2", "code", "out", "ans"] and chat.branch_count() == 2
    by_key = {n.key: n for n in chat.nodes}
    assert by_key["q"].parent is None and by_key["a1"].parent == by_key["a2"].parent == "q"
    assert by_key["q"].message.content == "[image]\nWhat is in this photo?"
    call = by_key["code"].message.tool_calls[0]
    assert (call.name, call.arguments) == ("python", {"code": "print(6*7)"})
    result = by_key["out"].message
    assert (result.role, result.tool_call_id, result.tool_name, result.content) == ("tool", call.id, "python", "42")
    answer = by_key["ans"].message
    assert (answer.content, answer.thinking, answer.model) == ("It is **42**.", "The tool said 42.", "gpt-4o")
    assert by_key["ans"].parent == "out"  # the reasoning node is left out; its answer hangs from the tool result

    result_ = store.import_plan(plan)
    assert (result_.new_chats, result_.new_messages) == (1, 7)
    cid = result_.chat_ids[0]
    conv = store.load(cid)
    assert conv.title == "Cat photo" and conv.model == "gpt-4o"
    assert [m.content for m in conv.messages if m.role != "tool"][:3] == ["[image]\nWhat is in this photo?",
                                                                          "A small cat.", "What is 6*7?"]
    shown_answer = conv.messages[1]
    assert len(conv.siblings[shown_answer.id]) == 2  # ‹ 2/2 › in the window
    assert sorted(m.content for m in store.tree(cid) if m.role == "assistant" and m.content) == [
        "A cat.", "A small cat.", "It is **42**."]
    assert [h.conversation_id for h in store.search("small cat")] == [cid]


def test_chatgpt_malformed_entries_import_nothing_and_are_named(store, tmp_path):
    convs = chatgpt_export(20, seed=3)
    convs[16]["title"] = "Trip plan"
    key = next(k for k, n in convs[16]["mapping"].items() if n["message"])
    del convs[16]["mapping"][key]["message"]["author"]
    with pytest.raises(ImportFailed) as info:
        store.import_file(write(tmp_path, "conversations.json", convs))
    assert f"conversation 17 ('Trip plan'): message {key} has no author" in str(info.value)
    assert "Nothing was imported" in str(info.value) and counts(store) == (0, 0)

    convs = chatgpt_export(3, seed=3)
    del convs[1]["mapping"]
    convs[1]["title"] = ""
    with pytest.raises(ImportFailed, match=r"conversation 2: it has no message tree \(\"mapping\"\)"):
        store.import_file(write(tmp_path, "c2.json", convs))
    convs = chatgpt_export(3, seed=3)
    first = next(iter(convs[2]["mapping"]))
    second = convs[2]["mapping"][first]["children"][0]
    convs[2]["mapping"][first]["parent"] = second  # a loop
    with pytest.raises(ImportFailed, match="go round in a circle"):
        store.import_file(write(tmp_path, "c3.json", convs))
    assert counts(store) == (0, 0)


def test_importing_the_same_chatgpt_file_again_adds_nothing_and_a_later_export_adds_only_the_new(store, tmp_path):
    convs = chatgpt_export(30, seed=5)
    path = write(tmp_path, "conversations.json", convs)
    first = store.import_file(path)
    assert first.new_chats == 30 and counts(store) == (30, first.new_messages)
    before = counts(store)
    again = store.import_file(path)
    assert (again.new_chats, again.updated_chats, again.new_messages) == (0, 0, 0) and counts(store) == before

    continue_chatgpt(convs[4], "And one more question?", "One more answer.")
    later = store.import_file(write(tmp_path, "later.json", convs))
    assert (later.new_chats, later.updated_chats, later.new_messages) == (0, 1, 2)
    assert counts(store) == (30, before[1] + 2)
    conv = store.load(later.chat_ids[0])
    assert [m.content for m in conv.messages][-2:] == ["And one more question?", "One more answer."]  # shown


def test_a_message_deleted_here_is_not_brought_back_by_importing_again(store, tmp_path):
    path = write(tmp_path, "conversations.json", [small_chatgpt()])
    cid = store.import_file(path).chat_ids[0]
    a1 = next(m for m in store.tree(cid) if m.content == "A cat.")
    store.delete_branch(a1.id)
    assert store.import_file(path).new_messages == 0
    assert all(m.content != "A cat." for m in store.tree(cid))


# ---- Open WebUI --------------------------------------------------------------------------------------


def test_open_webui_export_history_tree_becomes_branches_and_reasoning_thinking(store, tmp_path):
    rows = openwebui_export(4, seed=2)
    plan = read_import_file(write(tmp_path, "chat-export.json", rows))
    assert (plan.app_name, len(plan.chats), plan.chats[0].branch_count()) == ("Open WebUI", 4, 2)
    r = store.import_plan(plan)
    conv = store.load(r.chat_ids[0])
    assert conv.title == "WebUI chat 0" and conv.model == "llama3.2:latest"
    assert [m.content for m in conv.messages] == ["webui question 0 of chat 0", "webui answer 0 of chat 0",
                                                 "webui question 1 of chat 0", "webui answer 1 of chat 0"]
    assert conv.messages[3].thinking == "Let me think." and "<details" not in conv.messages[3].content
    assert len(conv.siblings[conv.messages[1].id]) == 2  # the regenerated answer is a branch
    assert len(store.tree(r.chat_ids[0])) == 5
    # one chat exported alone (a row, not a list) is read too
    single = read_import_file(write(tmp_path, "one.json", rows[1]))
    assert single.app == "openwebui" and len(single.chats) == 1


def test_open_webui_malformed_message_is_named(store, tmp_path):
    rows = openwebui_export(3)
    msg_id = next(iter(rows[2]["chat"]["history"]["messages"]))
    del rows[2]["chat"]["history"]["messages"][msg_id]["role"]
    with pytest.raises(ImportFailed, match=re.escape(f"chat 3 ('WebUI chat 2'): message {msg_id} has no role")):
        store.import_file(write(tmp_path, "bad.json", rows))
    assert counts(store) == (0, 0)


# ---- our JSON ----------------------------------------------------------------------------------------


def branched_chat(store: ConversationStore) -> str:
    """A chat with a regenerated answer, an edited question, a tool step, options and a custom title."""
    conv = Conversation(options={"generation.temperature": 0.3, "tools.disabled": ["web_fetch"]})
    q = Message(role="user", content="Weather in Kraków?")
    conv.messages.append(q)
    store.add_message(conv, q)
    call = ToolCall(name="get_weather", arguments={"city": "Kraków"})
    step = Message(role="assistant", tool_calls=[call], model="llama3.2", backend="ollama", thinking="hmm")
    conv.messages.append(step)
    store.add_message(conv, step)
    res = Message(role="tool", content='{"t": 3}', tool_call_id=call.id, tool_name="get_weather", tool_status="ok",
                  duration_ms=12.0)
    conv.messages.append(res)
    store.add_message(conv, res)
    first = Message(role="assistant", content="3 °C.", model="llama3.2", backend="ollama")
    conv.messages.append(first)
    store.add_message(conv, first)
    store.add_message(conv, Message(role="assistant", content="Cold: 3 °C.", model="llama3.2"), parent_id=res.id)
    store.add_message(conv, Message(role="user", content="Weather in Łódź?"), parent_id=None)  # an edited question
    store.switch_branch(first.id)
    store.rename(conv.id, "Polish weather")
    return conv.id


def normalized(text: str) -> dict:
    """An export with its ids replaced by their order (and without the time of export): equal modulo ids."""
    data = json.loads(text)
    data.pop("exported_at")
    data.pop("id")
    order = {m["id"]: str(i) for i, m in enumerate(data["messages"])}
    for m in data["messages"]:
        m["id"] = order[m["id"]]
        m["parent"] = order.get(m["parent"]) if m["parent"] is not None else None
    data["leaf"] = order[data["leaf"]]
    return data


def test_our_json_round_trips_every_branch_losslessly(store, other, tmp_path):
    cid = branched_chat(store)
    text_ = store.export(cid, "json")
    data = json.loads(text_)
    assert data["format"] == "desktop-agent.conversation" and data["version"] == 2
    assert len(data["messages"]) == 6 and sum(1 for m in data["messages"] if m["parent"] is None) == 2
    assert data["options"] == {"generation.temperature": 0.3, "tools.disabled": ["web_fetch"]}
    path = write(tmp_path, "chat.json", data)
    new = other.import_file(path).chat_ids[0]
    again = other.export(new, "json")
    assert normalized(again) == normalized(text_)
    assert other.load(new).messages[-1].content == "3 °C."  # the branch shown is the one shown here
    assert other.title_is_custom(new)


def test_a_pinned_and_tagged_chat_keeps_its_pin_and_tags_through_json(store, other, tmp_path):
    cid = branched_chat(store)
    store.set_pinned(cid, True)
    store.add_tag(cid, "travel")
    store.add_tag(cid, "Weather")
    data = json.loads(store.export(cid, "json"))
    assert data["pinned"] is True and data["tags"] == ["travel", "Weather"]
    new = other.import_file(write(tmp_path, "chat.json", data)).chat_ids[0]
    assert other.is_pinned(new) and other.chat_tags(new) == ["travel", "Weather"]
    assert normalized(other.export(new, "json")) == normalized(store.export(cid, "json"))
    data["tags"] = "travel"
    data["id"] = "another-chat"
    with pytest.raises(ImportFailed, match="tags"):
        other.import_file(write(tmp_path, "bad.json", data))


def test_export_all_chats_to_json_and_back(store, other, tmp_path):
    ids = [branched_chat(store) for _ in range(3)]
    text_ = store.export_chats(None, "json")
    data = json.loads(text_)
    assert data["format"] == "desktop-agent.chats" and [c["id"] for c in data["chats"]] == ids
    r = other.import_file(write(tmp_path, "all.json", data))
    assert (r.new_chats, r.new_messages) == (3, 18) and r.chat_ids == ids
    assert other.import_file(write(tmp_path, "all.json", data)).new_messages == 0


def test_version_1_files_are_read_and_newer_versions_refused(store, tmp_path):
    v1 = {"format": "desktop-agent.conversation", "version": 1, "id": "old-chat", "title": "Old",
          "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    r = store.import_file(write(tmp_path, "v1.json", v1))
    assert r.chat_ids == ["old-chat"] and [m.content for m in store.load("old-chat").messages] == ["hi", "hello"]
    newer = dict(v1, version=3)
    with pytest.raises(ImportFailed, match="newer desktop-agent"):
        store.import_file(write(tmp_path, "v3.json", newer))
    bad = {"format": "desktop-agent.chats", "version": 2, "chats": [
        {"id": "x", "title": "Fine", "messages": [{"id": "1", "parent": None, "role": "user", "content": "q"}]},
        {"id": "y", "title": "Broken", "messages": [{"parent": None, "role": "user", "content": "q"}]}]}
    with pytest.raises(ImportFailed, match=re.escape("chat 2 ('Broken'): message 1 has no id")):
        store.import_file(write(tmp_path, "bad.json", bad))
    assert store.count() == 1


def test_seed_chat_file_is_one_branch(store, tmp_path):
    path = write(tmp_path, "chat_llama32_20240501093015.json", [{"human": "hi", "ai": "hello"},
                                                                 {"human": "bye", "ai": "Bye"}])
    plan = read_import_file(path)
    assert plan.app == "seed" and [n.parent for n in plan.chats[0].nodes] == [None, "1h", "1a", "2h"]
    assert store.import_file(path).new_messages == 4 and store.import_file(path).new_messages == 0


# ---- for people: Markdown and HTML --------------------------------------------------------------------


def test_markdown_export_folds_tool_calls_and_says_there_are_other_branches(store):
    md = store.export(branched_chat(store), "md")
    assert md.startswith("# Polish weather\n")
    assert "<details><summary>Tool call: get_weather</summary>" in md and '"city": "Kraków"' in md
    assert "<details><summary>Tool result: get_weather (ok, 12 ms)</summary>" in md
    assert "2 other branches in the JSON export" in md and "Cold: 3 °C." not in md


def test_html_export_is_standalone_styled_and_escapes_what_a_message_holds(store):
    conv = Conversation(title="<b>Title</b>")
    for m in [Message(role="user", content='<script>alert("x")</script> <img src=x onerror=alert(1)> & more'),
              Message(role="assistant", content="[click](javascript:alert(1)) ![remote](http://example.com/t.png)\n\n"
                                                "```python\nprint('<hi>')\n```", model="m1")]:
        conv.messages.append(m)
        store.add_message(conv, m)
    page = store.export(conv.id, "html")
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page and '<meta charset="utf-8">' in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page  # nothing loads, no script runs
    body = page[page.index("<body>"):]
    assert "<script" not in page and "<img src=x" not in body  # raw HTML in a message is shown, not obeyed
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt; &amp; more" in body
    assert "<h1>&lt;b&gt;Title&lt;/b&gt;</h1>" in body
    assert "href=" not in body and "[click](javascript:alert(1))" in body  # an unsafe link stays text
    assert '<code class="language-python"><span style="color: #008000">print</span>(' in body  # highlighted
    assert "'&lt;hi&gt;'</span>)" in body  # and escaped
    assert export_html(conv).count("<article") == 2


def test_an_attached_file_whose_content_does_not_match_its_hash_imports_nothing(store, tmp_path):
    """Attachments travel inside our JSON as base64, checked against their SHA-256 (the attachments part adds
    them to messages; a damaged one is named and nothing is imported)."""
    data = {"format": "desktop-agent.conversation", "version": 2, "id": "att", "title": "Photo", "leaf": "1",
            "messages": [{"id": "1", "parent": None, "role": "user", "content": "look",
                          "attachments": [{"sha256": "0" * 64, "name": "cat.png", "mime": "image/png",
                                           "kind": "image", "content_base64": "aGVsbG8="}]}]}
    with pytest.raises(ImportFailed, match=re.escape("the chat: message 1: the attached file cat.png is damaged")):
        store.import_file(write(tmp_path, "att.json", data))
    data["messages"][0]["attachments"][0]["content_base64"] = "not base64!"
    with pytest.raises(ImportFailed, match="content is not base64"):
        store.import_file(write(tmp_path, "att.json", data))
    assert store.count() == 0


def test_a_chat_that_went_to_another_computer_and_came_back_adds_only_what_was_said_there(store, other, tmp_path):
    cid = branched_chat(store)
    there = other.import_file(write(tmp_path, "to-laptop.json", json.loads(store.export(cid, "json"))))
    assert there.chat_ids == [cid]
    back = write(tmp_path, "back.json", json.loads(other.export(cid, "json")))  # the laptop's own message ids
    assert store.import_file(back).new_messages == 0  # the same messages, recognised
    conv = other.load(cid)
    for m in (Message(role="user", content="And in Gdańsk?"), Message(role="assistant", content="5 °C.")):
        conv.messages.append(m)
        other.add_message(conv, m)
    back = write(tmp_path, "back.json", json.loads(other.export(cid, "json")))
    r = store.import_file(back)
    assert (r.new_chats, r.updated_chats, r.new_messages) == (0, 1, 2)
    assert [m.content for m in store.load(cid).messages][-3:] == ["3 °C.", "And in Gdańsk?", "5 °C."]
    assert len(store.tree(cid)) == 8 and store.import_file(back).new_messages == 0


@pytest.mark.parametrize("how", ["cancelled", "failed"])
def test_an_import_stopped_after_several_transactions_leaves_nothing(store, tmp_path, monkeypatch, how):
    """The import commits in short transactions (a chat answered meanwhile is not held up): stopped or failed
    half-way, what it wrote before is taken out again — new chats, and new messages in chats imported before,
    whose branch shown is put back."""
    import threading

    from desktop_agent.core.porting.model import ImportCancelled
    from desktop_agent.core.store import porting as store_porting

    convs = chatgpt_export(12, seed=4)
    store.import_file(write(tmp_path, "first.json", convs[:6]))
    before_counts = counts(store)
    shown_before = {s.id: store.leaf_id(s.id) for s in store.list()}
    rows_before = store.read("SELECT count(*) FROM imported_messages")
    for conv in convs[:6]:
        continue_chatgpt(conv, "More?", "More.")
    plan = read_import_file(write(tmp_path, "later.json", convs))
    monkeypatch.setattr(store_porting, "BATCH_S", 0.0)  # one chat per transaction
    cancel = threading.Event()

    def progress(done: int, total: int) -> None:
        if done == 9:
            if how == "cancelled":
                cancel.set()
            else:
                raise OSError("disk full")

    with pytest.raises(ImportCancelled if how == "cancelled" else OSError):
        store.import_plan(plan, progress=progress, cancel=cancel)
    assert counts(store) == before_counts
    assert {s.id: store.leaf_id(s.id) for s in store.list()} == shown_before
    assert store.read("SELECT count(*) FROM imported_messages") == rows_before
    assert store.search("More") == []
    r = store.import_plan(plan)  # and then it goes through
    assert (r.new_chats, r.updated_chats, r.new_messages) == (6, 6, plan.message_count - before_counts[1])


# ---- times out of range (a date can't show them) -------------------------------------------------------------


@pytest.mark.parametrize("odd", [1e20, -1e15, 1.7e18, 10**400, True, "yesterday"],
                         ids=["1e20", "-1e15", "nanoseconds", "10**400", "true", "text"])
def test_a_time_out_of_range_becomes_a_plausible_one_in_every_format(store, tmp_path, odd):
    """Times of 1e20, -1e15 or nanoseconds (Open WebUI) imported and then broke the list, show and export: a
    nanosecond, microsecond or millisecond time is converted, a time no date can show takes its neighbour's."""
    from desktop_agent.core.epoch import EARLIEST, LATEST

    gpt = small_chatgpt()
    gpt["create_time"] = gpt["update_time"] = odd
    for node in gpt["mapping"].values():
        if node.get("message"):
            node["message"]["create_time"] = odd
    rows = openwebui_export(1, seed=2)
    rows[0]["created_at"] = rows[0]["updated_at"] = rows[0]["chat"]["timestamp"] = odd
    first = next(iter(rows[0]["chat"]["history"]["messages"].values()))
    first["timestamp"] = odd
    ours = {"format": "desktop-agent.conversation", "version": 2, "created_at": 1e20, "updated_at": -1e15,
            "messages": [{"id": "1", "parent": None, "role": "user", "content": "hi", "created_at": 1_700_000_000},
                         {"id": "2", "parent": "1", "role": "assistant", "content": "hello", "created_at": 1e20}]}
    for name, data in (("conversations.json", [gpt]), ("chat-export.json", rows), ("ours.json", ours)):
        if name == "ours.json" and not isinstance(odd, float):
            continue  # our own format refuses a time that is not a number (pydantic), tested elsewhere
        plan = read_import_file(write(tmp_path, name, data))
        for chat in plan.chats:
            times = [chat.conversation.created_at, chat.conversation.updated_at]
            times += [n.message.created_at for n in chat.nodes]
            assert all(EARLIEST <= t <= LATEST for t in times), (name, times)
        store.import_plan(plan)
    if odd == 1.7e18:  # nanoseconds: the very time meant
        assert read_import_file(write(tmp_path, "c.json", [gpt])).chats[0].conversation.created_at == 1.7e9
    n = 3 if isinstance(odd, float) else 2
    assert store.count() == n and len(store.list()) == n


def test_a_saved_time_no_date_can_show_still_exports(store):
    """A chat saved before the import checked its times (or a damaged database) still exports."""
    conv = Conversation(title="Odd", created_at=1e20, updated_at=-1e15)
    for m in (Message(role="user", content="hi", created_at=1e20), Message(role="assistant", content="yo",
                                                                           created_at=-1e15)):
        conv.messages.append(m)
        store.add_message(conv, m)
    for fmt in ("md", "json", "html"):
        assert "hi" in store.export_chats(None, fmt)


# ---- files that never end -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["device", "pipe", "huge"])
def test_only_a_regular_file_of_a_bounded_size_is_read(store, tmp_path, kind):
    """Importing /dev/zero read 6 GB in 15 s and went on: a device, a pipe (which would wait for a writer) and a
    file larger than the bound are refused at once with a clear message, nothing read."""
    import os
    import time

    from desktop_agent.core.porting.reading import MAX_FILE_BYTES

    if kind == "device":
        path = Path("/dev/zero")
        if not path.exists():
            pytest.skip("no /dev/zero on this system")
        reason = "not a regular file"
    elif kind == "pipe":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes on this system")
        path = tmp_path / "conversations.json"
        os.mkfifo(path)
        reason = "not a regular file"
    else:
        path = tmp_path / "conversations.json"
        with open(path, "wb") as f:  # sparse: takes no disk space
            f.truncate(MAX_FILE_BYTES + 1)
        reason = "larger than the 512 MB a chat export can be here"
    started = time.monotonic()
    with pytest.raises(ImportFailed, match=reason):
        store.import_file(path)
    assert time.monotonic() - started < 5 and counts(store) == (0, 0)


# ---- a message whose parent is not in the file ----------------------------------------------------------------


@pytest.mark.parametrize("app", ["ours", "openwebui", "chatgpt"])
def test_a_message_whose_parent_is_not_in_the_file_is_refused_by_name(store, tmp_path, app):
    """Such a message silently became a second first message (a branch of its own, "New chat"): the file is
    refused, the entry and the message named, nothing imported."""
    if app == "ours":
        data: object = {"format": "desktop-agent.chats", "version": 2, "chats": [
            {"id": "x", "title": "Fine", "messages": [{"id": "1", "parent": None, "role": "user", "content": "q"}]},
            {"id": "y", "title": "Orphan", "messages": [
                {"id": "1", "parent": None, "role": "user", "content": "q"},
                {"id": "2", "parent": "1", "role": "assistant", "content": "a"},
                {"id": "3", "parent": "gone", "role": "user", "content": "where am I?"}]}]}
        expected = "chat 2 ('Orphan'): message 3 answers message gone, which is not in the file"
    elif app == "openwebui":
        rows = openwebui_export(2, seed=2)
        rows[1]["title"] = "Orphan"
        key, msg = list(rows[1]["chat"]["history"]["messages"].items())[-1]
        msg["parentId"] = "gone"
        data = rows
        expected = f"chat 2 ('Orphan'): message {msg.get('id') or key} answers message gone, which is not in the file"
    else:
        convs = chatgpt_export(2, seed=3)
        convs[1]["title"] = "Orphan"
        key = list(convs[1]["mapping"])[-1]
        convs[1]["mapping"][key]["parent"] = "gone"
        data = convs
        expected = f"conversation 2 ('Orphan'): message {key} answers message gone, which is not in the file"
    with pytest.raises(ImportFailed) as info:
        store.import_file(write(tmp_path, "export.json", data))
    assert expected in str(info.value) and "Nothing was imported" in str(info.value)
    assert counts(store) == (0, 0)
