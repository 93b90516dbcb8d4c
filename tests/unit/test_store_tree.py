"""The chat as a tree: saving under a parent, the branch shown, siblings, switching, deleting and forking
branches, and search that is case- and accent-insensitive in every script."""

from __future__ import annotations

import sqlite3
import unicodedata

import pytest

from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.folding import fold
from desktop_agent.core.store.search import snippet_parts


@pytest.fixture
def store(tmp_path):
    s = ConversationStore(tmp_path / "c.db")
    yield s
    s.close()


def say(store: ConversationStore, conv: Conversation, role: str, text: str, **kw) -> Message:
    m = Message(role=role, content=text, **kw)
    conv.messages.append(m)
    store.add_message(conv, m)
    return m


def contents(conv: Conversation) -> list[str]:
    return [m.content for m in conv.messages]


def test_a_chat_saved_in_order_is_one_branch_with_parent_links(store):
    conv = Conversation()
    q, a = say(store, conv, "user", "q"), say(store, conv, "assistant", "a")
    loaded = store.load(conv.id)
    assert [(m.id, m.parent_id) for m in loaded.messages] == [(q.id, None), (a.id, q.id)]
    assert loaded.siblings == {} and store.leaf_id(conv.id) == a.id


def test_regenerating_twice_keeps_three_answers_and_flipping_shows_each(store):
    conv = Conversation()
    q = say(store, conv, "user", "question")
    first = say(store, conv, "assistant", "answer 1")
    second, third = Message(role="assistant", content="answer 2"), Message(role="assistant", content="answer 3")
    store.add_message(conv, second, parent_id=q.id)
    store.add_message(conv, third, parent_id=q.id)
    loaded = store.load(conv.id)
    assert contents(loaded) == ["question", "answer 3"]  # the newest answer is shown
    assert loaded.siblings == {third.id: [first.id, second.id, third.id]}
    assert store.siblings(second.id) == [first.id, second.id, third.id]
    for answer in (first, second, third):
        assert store.switch_branch(answer.id) == answer.id
        assert contents(store.load(conv.id)) == ["question", answer.content]
    # the branch shown is the one continued: the next message follows it
    store.switch_branch(second.id)
    shown = store.load(conv.id)
    say(store, shown, "user", "more")
    assert contents(store.load(conv.id)) == ["question", "answer 2", "more"]


def test_editing_an_early_message_starts_a_branch_and_switching_back_follows_the_newest_child(store):
    conv = Conversation()
    q1 = say(store, conv, "user", "q1")
    say(store, conv, "assistant", "a1")
    say(store, conv, "user", "q2")
    a2 = say(store, conv, "assistant", "a2")
    edited = Message(role="user", content="q1 edited")
    store.add_message(conv, edited, parent_id=None)
    loaded = store.load(conv.id)
    assert contents(loaded) == ["q1 edited"] and loaded.siblings == {edited.id: [q1.id, edited.id]}
    assert store.switch_branch(q1.id) == a2.id  # back to the whole old branch
    assert contents(store.load(conv.id)) == ["q1", "a1", "q2", "a2"]


def test_deleting_a_branch_removes_it_and_its_descendants_with_their_search_rows_but_not_the_audit(store):
    conv = Conversation()
    q = say(store, conv, "user", "question")
    old = say(store, conv, "assistant", "zebra answer")
    say(store, conv, "user", "zebra follow-up")
    store.conn.execute("INSERT INTO tool_calls (conversation_id, tool, arguments, status, started_at) "
                       "VALUES (?, 'echo', '{}', 'ok', 0)", (conv.id,))
    new = Message(role="assistant", content="other answer")
    store.add_message(conv, new, parent_id=q.id)
    store.switch_branch(old.id)
    deleted = store.delete_branch(old.id)
    assert len(deleted) == 2 and old.id in deleted
    loaded = store.load(conv.id)
    assert contents(loaded) == ["question", "other answer"] and loaded.siblings == {}
    assert store.search("zebra") == []
    assert store.conn.execute("SELECT count(*) FROM message_text WHERE id IN (?, ?)", deleted).fetchone() == (0,)
    audit = store.conn.execute("SELECT count(*) FROM tool_calls WHERE conversation_id = ?", (conv.id,)).fetchone()
    assert audit == (1,)
    assert store.delete_branch(old.id) == []  # gone already
    store.delete_branch(new.id)  # the last answer: the question is shown alone
    assert contents(store.load(conv.id)) == ["question"]


def test_forking_from_a_tool_result_copies_the_path_up_to_it(store):
    conv = Conversation(options={"generation.temperature": 0.3})
    say(store, conv, "user", "weather?")
    say(store, conv, "assistant", "", tool_calls=[ToolCall(id="c1", name="get_weather", arguments={"c": "Oslo"})])
    result = say(store, conv, "tool", "sunny", tool_call_id="c1", tool_name="get_weather", tool_status="ok")
    say(store, conv, "assistant", "It is sunny.")
    fork_id = store.fork(result.id)
    forked = store.load(fork_id)
    assert fork_id != conv.id and contents(forked) == ["weather?", "", "sunny"]
    assert forked.messages[1].tool_calls[0].arguments == {"c": "Oslo"} and forked.messages[2].tool_call_id == "c1"
    assert forked.options == {"generation.temperature": 0.3}
    assert forked.title == "weather? (fork)" and store.load(conv.id).title == "weather?"
    assert [m.parent_id for m in forked.messages] == [None, forked.messages[0].id, forked.messages[1].id]
    assert contents(store.load(conv.id)) == ["weather?", "", "sunny", "It is sunny."]  # unchanged
    assert {h.conversation_id for h in store.search("sunny")} >= {fork_id, conv.id}


def test_undoing_a_summary_in_the_middle_keeps_the_chain(store):
    conv = Conversation()
    say(store, conv, "user", "one")
    summary = say(store, conv, "system", "summary", kind="summary", covers=1)
    say(store, conv, "user", "two")
    store.delete_message(summary)
    loaded = store.load(conv.id)
    assert contents(loaded) == ["one", "two"] and loaded.messages[1].parent_id == loaded.messages[0].id


def test_tree_lists_every_message_of_every_branch(store):
    conv = Conversation()
    q = say(store, conv, "user", "q")
    say(store, conv, "assistant", "a1")
    store.add_message(conv, Message(role="assistant", content="a2"), parent_id=q.id)
    tree = store.tree(conv.id)
    assert [(m.content, m.parent_id) for m in tree] == [("q", None), ("a1", q.id), ("a2", q.id)]


FOLDED = [
    ("Zażółć GĘŚLĄ jaźń", "zazolc gesla jazn"),  # Polish, with ł
    ("ŁÓDŹ", "lodz"),
    ("Ἀθῆναι ΆΣΤΡΑ ὁδός", "αθηναι αστρα οδοσ"),  # Greek: breathing, tonos, final sigma
    ("ЁЛКА Йошкар", "елка йошкар"),  # Cyrillic: ё → е, й kept
    ("İSTANBUL ıspanak", "istanbul ispanak"),  # Turkish dotted and dotless i
    ("Straße Crème", "strasse creme"),
    ("天气 晴", "天气 晴"),
]


@pytest.mark.parametrize(("text", "folded"), FOLDED)
def test_folding_is_case_and_accent_insensitive_and_nfd_is_nfc(text, folded):
    assert fold(text) == folded
    assert fold(unicodedata.normalize("NFD", text)) == folded


@pytest.mark.parametrize(("saved", "query"), [
    ("Spotkanie w Łodzi jutro", "lodzi"),
    ("Spotkanie w Łodzi jutro", "ŁÓDZI"),
    ("Η Αθήνα είναι όμορφη", "ΑΘΗΝΑ"),
    ("Η Αθήνα είναι όμορφη", "ομορφη"),
    ("ΟΔΟΣ", "οδος"),  # final sigma in the query
    ("Привет, Ёжик", "ежик"),
    ("İzmir'e gidiyoruz", "izmir"),
    ("ISPARTA", "ıspar"),
    (unicodedata.normalize("NFD", "Café crème"), "café"),
    ("Café crème", unicodedata.normalize("NFD", "CRÈME")),
    ("naïve résumé", "resume"),
    ("天气很好", "天气"),
])
def test_search_finds_every_script_whatever_the_case_accents_and_normal_form(store, saved, query):
    conv = Conversation()
    m = say(store, conv, "user", saved)
    say(store, conv, "assistant", "ok")
    hits = [h for h in store.search(query) if not h.in_title]
    assert [h.message_id for h in hits] == [m.id]
    highlighted = "".join(t for t, hl in hits[0].parts if hl)
    assert fold(highlighted) == fold(query) and highlighted in unicodedata.normalize("NFC", saved)


def test_titles_are_searched_folded(store):
    conv = Conversation(title="Wycieczka do Łodzi")
    say(store, conv, "user", "plan")
    store.rename(conv.id, "Wycieczka do Łodzi")
    hits = store.search("LODZI")
    assert [h.in_title for h in hits] == [True] and "".join(t for t, hl in hits[0].parts if hl) == "Łodzi"


def test_highlights_cover_the_original_characters_even_when_folding_changes_lengths():
    parts = snippet_parts("Die STRASSE und die Straße", ["straße"])
    assert [t for t, hl in parts if hl] == ["STRASSE", "Straße"]
    nfd = unicodedata.normalize("NFD", "un café noir")
    parts = snippet_parts(nfd, ["cafe"])
    assert [t for t, hl in parts if hl] == ["café"]  # the accent with its letter (shown in NFC)


def test_the_index_holds_the_folded_text(store):
    conv = Conversation()
    m = say(store, conv, "user", "ŻÓŁW")
    row = store.conn.execute("SELECT t.text, f.folded FROM message_text t JOIN message_folded f USING (id) "
                             "WHERE id = ?", (m.id,)).fetchone()
    assert row == ("ŻÓŁW", "zolw")
    store.rename(conv.id, "Żółwie ŁÓDKI")
    assert store.conn.execute("SELECT folded_title FROM conversations").fetchone() == ("zolwie lodki",)
    with pytest.raises(sqlite3.Error):
        store.conn.execute("SELECT * FROM message_fts WHERE text MATCH 'zolw'").fetchall()


def test_hits_on_the_branch_shown_come_first_and_a_title_hit_opens_the_branch_shown(store):
    conv = Conversation()
    old_q = say(store, conv, "user", "walrus question")
    say(store, conv, "assistant", "walrus answer")
    new_q = Message(role="user", content="edited walrus question")
    store.add_message(conv, new_q, parent_id=None)
    store.add_message(conv, Message(role="assistant", content="another"), parent_id=new_q.id)
    store.rename(conv.id, "Walrus facts")
    hits = store.search("walrus")
    shown = [h for h in hits if h.on_shown_branch]
    assert [h.message_id for h in shown if not h.in_title] == [new_q.id]
    assert hits[: len(shown)] == shown and {h.message_id for h in hits[len(shown):]} == {old_q.id, old_q.id + 1}
    title = next(h for h in hits if h.in_title)
    assert title.message_id == new_q.id


def test_messages_saved_without_being_in_the_list_follow_the_branch_shown(store):
    """Callers that save messages without appending them to ``conversation.messages`` still get one chain."""
    conv = Conversation()
    for role, text in (("user", "q"), ("assistant", "a"), ("user", "q2")):
        store.add_message(conv, Message(role=role, content=text))
    assert conv.messages == [] and contents(store.load(conv.id)) == ["q", "a", "q2"]


def test_a_fork_keeps_the_files_attached_to_the_messages_it_copies(store):
    """Branches and attachments together: the forked chat's messages carry their files, and deleting the original
    chat leaves the fork's files in place."""
    conv = Conversation()
    note = store.add_attachment("notes.md", b"# Plan\n- ship it\n")
    say(store, conv, "user", "summarise my notes", attachments=[note])
    answer = say(store, conv, "assistant", "Ship it.")
    fork_id = store.fork(answer.id)
    forked = store.load(fork_id)
    assert [a.name for a in forked.messages[0].attachments] == ["notes.md"]
    store.delete(conv.id)
    store.sweep_attachments()
    again = store.load(fork_id).messages[0].attachments[0]
    assert again.read_bytes() == b"# Plan\n- ship it\n"


def test_flipping_back_to_an_edited_message_shows_the_branch_continued_there(store):
    """Regenerate twice, go to answer 2/3, ask on, edit the first question, flip back to 1/2: it showed answer
    3/3 with nothing after it (the newest child at every step); it shows the branch last continued."""
    conv = Conversation()
    q = say(store, conv, "user", "Name a fruit")
    say(store, conv, "assistant", "Apple")
    second, third = Message(role="assistant", content="Banana"), Message(role="assistant", content="Cherry")
    store.add_message(conv, second, parent_id=q.id)
    store.add_message(conv, third, parent_id=q.id)
    store.switch_branch(second.id)
    shown = store.load(conv.id)
    say(store, shown, "user", "And one colour?")
    say(store, shown, "assistant", "Yellow")
    edited = Message(role="user", content="Name a vegetable")
    store.add_message(store.load(conv.id), edited, parent_id=None)
    assert contents(store.load(conv.id)) == ["Name a vegetable"]
    store.switch_branch(q.id)
    loaded = store.load(conv.id)
    assert contents(loaded) == ["Name a fruit", "Banana", "And one colour?", "Yellow"]
    assert loaded.siblings[second.id][1] == second.id  # answer 2/3
    # a branch written to later wins: answer 3/3 continued, then flip away and back again
    store.switch_branch(third.id)
    say(store, store.load(conv.id), "user", "Why cherry?")
    store.switch_branch(edited.id)
    store.switch_branch(q.id)
    assert contents(store.load(conv.id)) == ["Name a fruit", "Cherry", "Why cherry?"]


def test_a_fork_has_a_title_that_tells_it_apart_and_is_found_by_it(store):
    """A fork had its original's title: two identical rows in the history."""
    conv = Conversation()
    say(store, conv, "user", "Plan a trip to Kyoto")
    answer = say(store, conv, "assistant", "Day 1: Fushimi Inari.")
    first, second = store.fork(answer.id), store.fork(answer.id)
    again = store.fork(store.load(first).messages[-1].id)  # a fork of a fork counts on from the original
    titles = [store.summary(c).title for c in (conv.id, first, second, again)]
    assert titles == ["Plan a trip to Kyoto", "Plan a trip to Kyoto (fork)", "Plan a trip to Kyoto (fork 2)",
                      "Plan a trip to Kyoto (fork 3)"]
    assert store.title_is_custom(first)  # kept as it is when the chat goes on
    assert first in {h.conversation_id for h in store.search("kyoto (FORK)")}
    store.rename(conv.id, "x" * 300)
    long = store.load(store.fork(answer.id)).title
    assert len(long) <= 200 and long.endswith("… (fork)")
