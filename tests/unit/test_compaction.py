"""Issue 13, compaction: the model summarises earlier messages; the summary is sent instead of them, the originals
stay in the store (searchable, exportable), undo restores them; automatic when a chat outgrows its window."""

from __future__ import annotations

import json

import pytest

from desktop_agent.core import compaction
from desktop_agent.core.agent import Agent
from desktop_agent.core.context import SUMMARY_HEADING
from desktop_agent.core.events import AnswerFinished, ChatCompacted, Notice, TurnFailed
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession
from desktop_agent.core.store import ConversationStore
from tests.helpers.chats import long_chat

from .scripted import ScriptedBackend, text
from .test_context_budget import WindowBackend


class SummaryBackend(WindowBackend):
    """Answers every request for a summary with ``summary N`` (N counts them); other requests as scripted."""

    def __init__(self, *replies, window: int = 2048):
        super().__init__(*replies, window=window)
        self.summaries = 0

    def stream_chat(self, messages, tools=None, tool_choice="auto", cancel=None, stream=True):
        if messages and messages[0].content.startswith("You summarise"):
            self.summaries += 1
            self.replies.insert(0, text(f"summary {self.summaries}"))
        return super().stream_chat(messages, tools, tool_choice, cancel, stream)


@pytest.fixture
def store(tmp_path):
    with ConversationStore(tmp_path / "chats.sqlite3") as s:
        yield s


def saved_chat(store: ConversationStore, messages: list[Message]) -> Conversation:
    conv = Conversation(messages=messages)
    store.add_conversations([conv])
    return store.load(conv.id)


def test_summarise_compacts_and_undo_restores(store):
    conv = saved_chat(store, long_chat(30, tool_every=3, result_chars=200))
    n = len(conv.messages)
    backend = WindowBackend(text("They asked thirty questions about x."), text("answer"), text("again"),
                            window=4096)
    session = ChatSession(conv, store, Agent(backend, system_prompt="SYS"))
    events = list(session.compact())
    assert isinstance(events[0], Notice) and isinstance(events[-1], ChatCompacted)
    summary = events[-1].summary
    assert summary.kind == "summary" and summary.role == "system" and 0 < summary.covers < n
    assert conv.messages[-1] is summary and summary.id is not None
    # what the model was asked: a transcript of the earlier messages, without tools
    ask = backend.requests[0]
    assert ask.tools is None and "question 0" in ask.messages[-1].content

    # the next turn sends the summary instead of the covered messages
    assert isinstance(list(session.run_turn("next?"))[-1], AnswerFinished)
    sent = backend.requests[-1].messages
    assert sent[0].content == f"SYS\n\n{SUMMARY_HEADING}\nThey asked thirty questions about x."
    assert not any(m.content.startswith("question 0 ") for m in sent)

    # the originals stay: reopened, searchable, exported
    again = store.load(conv.id)
    kept = next(m for m in again.messages if m.kind == "summary")
    assert (kept.covers, kept.content) == (summary.covers, summary.content)
    assert len(again.messages) == n + 3
    assert store.search("question 0")
    exported = json.loads(store.export(conv.id, "json"))["messages"]
    assert [m["kind"] for m in exported].count("summary") == 1
    assert "Summary of the first" in store.export(conv.id, "md")

    # undo: the summary goes, the covered messages are sent again
    session.undo_compaction(summary)
    assert all(m.kind == "message" for m in store.load(conv.id).messages)
    list(session.run_turn("and now?"))
    again_sent = backend.requests[-1].messages
    assert SUMMARY_HEADING not in again_sent[0].content and len(again_sent) > len(sent)


def test_a_second_compaction_builds_on_the_first_and_undoing_it_keeps_the_first(store):
    conv = saved_chat(store, long_chat(30, tool_every=0))
    backend = SummaryBackend(window=8192)
    session = ChatSession(conv, store, Agent(backend))
    first = list(session.compact())[-1].summary
    for m in long_chat(20, tool_every=0):
        store.add_message(conv, m)
        conv.messages.append(m)
    second = list(session.compact())[-1].summary
    assert second.covers > first.covers
    assert f"Earlier summary: {first.content}" in backend.requests[-1].messages[-1].content
    assert compaction.active_summary(conv.messages) is second
    session.undo_compaction(second)
    assert compaction.active_summary(store.load(conv.id).messages).content == first.content


def test_a_short_chat_has_nothing_to_summarise_and_loses_nothing(store):
    conv = saved_chat(store, long_chat(1, tool_every=0))
    session = ChatSession(conv, store, Agent(ScriptedBackend()))
    events = list(session.compact())
    assert isinstance(events[-1], TurnFailed) and "nothing earlier" in str(events[-1].error)
    assert len(store.load(conv.id).messages) == 2


def test_a_chat_that_outgrew_its_window_is_compacted_before_the_turn(store):
    conv = saved_chat(store, long_chat(60, tool_every=0))  # ~4000 tokens, window 2048
    backend = SummaryBackend(text("the answer"), window=2048)
    agent = Agent(backend, system_prompt="SYS")
    agent.auto_compact = True
    events = list(ChatSession(conv, store, agent).run_turn("what now?"))
    compacted = [e for e in events if isinstance(e, ChatCompacted)]
    assert len(compacted) == 1 and compacted[0].automatic
    assert isinstance(events[-1], AnswerFinished) and events[-1].message.content == "the answer"
    assert f"{SUMMARY_HEADING}\nsummary 1" in backend.requests[-1].messages[0].content
    # reading it all takes several requests: before a turn only one is made, the oldest are left out (and said)
    assert backend.summaries == 1 and len(backend.requests) == 2
    summary = compacted[0].summary
    assert compaction.is_partial(summary) and store.load(conv.id).messages[-3].status == "interrupted"
    assert any(isinstance(e, Notice) and "oldest message" in e.text and "left out" in e.text for e in events)
    assert "question 0 " not in backend.requests[0].messages[-1].content, "the oldest are not summarised"
    assert "question 48 " in backend.requests[0].messages[-1].content, "the newest earlier ones are"


def test_summarising_explicitly_reads_the_whole_chat_piece_by_piece_with_progress(store):
    conv = saved_chat(store, long_chat(60, tool_every=0))
    backend = SummaryBackend(text("the answer"), window=2048)
    agent = Agent(backend)
    agent.auto_compact = True
    session = ChatSession(conv, store, agent)
    list(session.run_turn("what now?"))  # an automatic, partial summary first
    events = list(session.compact())
    pieces = [e.text for e in events if isinstance(e, Notice) and "(" in e.text]
    assert len(pieces) >= 2 and pieces[0].endswith(f"(1/{len(pieces)})…"), pieces
    assert backend.summaries == 1 + len(pieces)
    summary = events[-1].summary
    assert isinstance(events[-1], ChatCompacted) and not compaction.is_partial(summary)
    asks = [r for r in backend.requests if r.messages[0].content.startswith("You summarise")]
    # after a partial summary it starts from the beginning, each piece building on the one before
    assert "question 0 " in asks[1].messages[-1].content and "Earlier summary" not in asks[1].messages[-1].content
    assert f"Earlier summary: summary {backend.summaries - 1}" in asks[-1].messages[-1].content


def test_stop_ends_an_explicit_summary_between_pieces(store):
    import threading

    from desktop_agent.core.events import TurnCancelled

    conv = saved_chat(store, long_chat(60, tool_every=0))
    backend = SummaryBackend(window=2048)
    cancel = threading.Event()
    events = []
    for event in ChatSession(conv, store, Agent(backend)).compact(cancel):
        events.append(event)
        if isinstance(event, Notice) and "(2/" in event.text:
            cancel.set()  # Stop pressed while the second piece is asked for
    assert isinstance(events[-1], TurnCancelled)
    assert backend.summaries <= 2 and compaction.active_summary(store.load(conv.id).messages) is None


def test_without_auto_compact_a_long_chat_just_leaves_out_the_oldest(store):
    conv = saved_chat(store, long_chat(60, tool_every=0))
    backend = WindowBackend(text("the answer"), window=2048)
    events = list(ChatSession(conv, store, Agent(backend)).run_turn("what now?"))
    assert not any(isinstance(e, ChatCompacted) for e in events) and len(backend.requests) == 1


def test_a_failed_automatic_compaction_does_not_stop_the_turn(store):
    from desktop_agent.core.errors import BackendError

    conv = saved_chat(store, long_chat(60, tool_every=0))
    backend = WindowBackend(BackendError("boom"), text("the answer"), window=2048)
    agent = Agent(backend)
    agent.auto_compact = True
    events = list(ChatSession(conv, store, agent).run_turn("what now?"))
    assert any(isinstance(e, Notice) and "could not be summarised" in e.text for e in events)
    assert isinstance(events[-1], AnswerFinished)
