"""Issue 13 on the real local model: a 300-message chat on a small window is summarised (automatically, as it
outgrew the window) and still answered; the summary can be taken back. The protocol is asserted, never the
model's wisdom (temperature 0, SmolLM2-135M)."""

from __future__ import annotations

import time

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.context import SUMMARY_HEADING
from desktop_agent.core.events import AnswerFinished, ChatCompacted, ContextUsage
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.session import ChatSession
from desktop_agent.core.store import ConversationStore

pytestmark = pytest.mark.e2e


class Recording:
    """Wraps a backend and keeps the messages of every request."""

    def __init__(self, backend):
        self._backend = backend
        self.requests: list[list[Message]] = []

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def stream_chat(self, messages, *args, **kwargs):
        self.requests.append(list(messages))
        return self._backend.stream_chat(messages, *args, **kwargs)


@pytest.mark.timeout(600)
def test_a_long_chat_is_compacted_and_still_answered(llama_server, tmp_path, e2e_metrics):
    from desktop_agent.core.backends.openai import OpenAIBackend

    # the server runs with a 4096-token context; the per-model setting says 2048 (a small window)
    backend = Recording(OpenAIBackend(llama_server, "smollm2", [], needs_key=False, temperature=0.0,
                                      timeout_s=120, window=2048))
    messages = []
    for i in range(150):
        messages.append(Message(role="user", content=f"Note {i}: the code word for day {i} is blue{i}."))
        messages.append(Message(role="assistant", content=f"Noted: day {i} is blue{i}."))
    with ConversationStore(tmp_path / "chats.sqlite3") as store:
        conv = Conversation(messages=messages)
        store.add_conversations([conv])
        conv = store.load(conv.id)
        agent = Agent(backend, system_prompt="You are a helpful assistant.")
        agent.auto_compact = True
        session = ChatSession(conv, store, agent)
        t0 = time.monotonic()
        events = list(session.run_turn("What is 2+2?"))
        e2e_metrics["compaction of a 300-message chat + answer (s)"] = round(time.monotonic() - t0, 1)
        assert isinstance(events[-1], AnswerFinished), events[-1]
        compacted = [e for e in events if isinstance(e, ChatCompacted)]
        assert len(compacted) == 1 and compacted[0].automatic
        summary = compacted[0].summary
        assert summary.content.strip() and summary.covers and summary.covers > 200
        answer_request = backend.requests[-1]
        assert answer_request[0].content.startswith("You are a helpful assistant.")
        assert SUMMARY_HEADING in answer_request[0].content and answer_request[-1].content == "What is 2+2?"
        usage = [e for e in events if isinstance(e, ContextUsage)]
        assert usage and usage[-1].window == 2048 and usage[-1].used <= 2048
        saved = store.load(conv.id)
        assert len(saved.messages) == 303 and [m.kind for m in saved.messages].count("summary") == 1

        # taken back: the next request is sent from the messages themselves again
        session.undo_compaction(summary)
        agent.auto_compact = False
        events = list(session.run_turn("What is 3+3?"))
        assert isinstance(events[-1], AnswerFinished), events[-1]
        assert SUMMARY_HEADING not in backend.requests[-1][0].content
        assert backend.requests[-1][-2].content.startswith("Noted") or backend.requests[-1][-3].role == "user"
    backend.close()
