"""What is learned about a server and model comes from repeated evidence (core/capabilities.py): one empty
answer when offered tools does not turn the tools off, two in a row do, an answer with tools starts the count
again, the server's own "does not support tools" counts at once; the file keeps the counts (version 2) and
an old file (version 1) still reads; Forget writes the file at once, and a change another process made to
the file is read before the next use (``desktop-agent tools --forget-learned`` while the window is open)."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

from desktop_agent import tool
from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.base import Chunk
from desktop_agent.core.capabilities import (
    EVIDENCE_NEEDED,
    TOOLS_LEFT_OUT,
    Capabilities,
    Entry,
    Learned,
    server_key,
    tools_off_reason,
)
from desktop_agent.core.errors import ToolsNotSupported
from desktop_agent.core.events import AnswerFinished, Notice
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools.registry import ToolRegistry

from .scripted import ScriptedBackend, text

EMPTY = [Chunk(done=True, finish_reason="stop")]
SMOLLM = SimpleNamespace(name="openai", base_url="http://127.0.0.1:8080/v1", model="smollm2")


@tool
def day_of_week(date: str) -> str:
    """The weekday of a date."""
    return "Friday"


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(day_of_week)
    return reg


def empty_when_offered_tools(answer: str) -> list[list[Chunk]]:
    """A model that answers nothing when offered tools (streamed or not), and ``answer`` without them."""
    return [EMPTY, EMPTY, text(answer)]


def run(backend: ScriptedBackend, caps: Capabilities, prompt: str = "hi") -> list:
    return list(Agent(backend, registry(), capabilities=caps).run(Conversation(), prompt))


def offered(backend: ScriptedBackend, start: int) -> list[bool]:
    return [r.tools is not None for r in backend.requests[start:]]


def test_one_empty_answer_does_not_turn_the_tools_off_two_do():
    caps = Capabilities()
    backend = ScriptedBackend(*empty_when_offered_tools("One."), *empty_when_offered_tools("Two."), text("Three."))
    events = run(backend, caps)
    assert events[-1].message.content == "One."
    assert caps.learned(backend) == Learned()  # one empty answer: tools stay on
    assert caps.entry(server_key(backend)).lines() == [
        "It answered nothing when offered tools once (tools go off after 2 in a row)"]

    events = run(backend, caps)  # the next turn offers the tools again
    assert offered(backend, 3) == [True, True, False] and events[-1].message.content == "Two."
    assert caps.learned(backend) == Learned(auto_tools=False)
    assert tools_off_reason(caps.learned(backend)) == "it answered nothing when offered them"

    events = run(backend, caps)  # from now on without tools at once, said once
    assert offered(backend, 6) == [False] and events[-1].message.content == "Three."
    assert [e.text for e in events if isinstance(e, Notice)] == [TOOLS_LEFT_OUT]
    assert caps.entry(server_key(backend)).lines() == [
        "Tools off: it answered nothing when offered them (2 times in a row)"]


def test_an_answer_with_tools_starts_the_count_again():
    caps = Capabilities()
    backend = ScriptedBackend(*empty_when_offered_tools("One."), text("With tools."),
                              *empty_when_offered_tools("Two."), text("Still with tools."))
    run(backend, caps)
    assert isinstance(run(backend, caps)[-1], AnswerFinished)  # answered where tools were offered
    assert caps.entry(server_key(backend)) is None  # nothing left to remember
    run(backend, caps)  # one empty answer again: one, not two in a row
    assert caps.learned(backend) == Learned()
    assert run(backend, caps)[-1].message.content == "Still with tools."
    assert offered(backend, 7) == [True]


def test_the_servers_own_word_counts_at_once():
    assert EVIDENCE_NEEDED["tools"] == 1
    caps = Capabilities()
    backend = ScriptedBackend(ToolsNotSupported("scripted-model"), text("Without."), text("Again without."))
    run(backend, caps)
    assert caps.learned(backend) == Learned(tools=False)
    assert tools_off_reason(caps.learned(backend)) == "the server said it cannot use tools"
    assert caps.entry(server_key(backend)).lines() == ["Tools off: the server said the model cannot use tools"]


def test_the_file_keeps_the_counts_and_a_new_process_reads_them(tmp_path):
    path = tmp_path / "capabilities.json"
    caps = Capabilities()
    caps.use_file(path)
    caps.learn(SMOLLM, auto_tools=False)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 2
    assert data["learned"] == [{"backend": "openai", "url": "http://127.0.0.1:8080/v1", "model": "smollm2",
                                "stream_with_tools": True, "auto_tools": True, "tools": True,
                                "failures": {"auto_tools": 1}}]
    again = Capabilities()
    again.use_file(path)
    again.learn(SMOLLM, auto_tools=False)  # the second observation, in another process
    assert again.learned(SMOLLM) == Learned(auto_tools=False)
    assert json.loads(path.read_text(encoding="utf-8"))["learned"][0]["auto_tools"] is False  # version 1 reads it


def test_an_old_file_still_reads_its_facts_as_one_observation_each(tmp_path):
    """Version 1 turned a fact off after one empty answer: that is one observation now. The server's own
    word (``tools``) stays a decided fact."""
    path = tmp_path / "capabilities.json"
    other = {"backend": "ollama", "url": "http://127.0.0.1:11434", "model": "qwen3"}
    path.write_text(json.dumps({"version": 1, "learned": [
        {"backend": "openai", "url": "http://127.0.0.1:8080/v1", "model": "smollm2",
         "stream_with_tools": False, "auto_tools": False, "tools": True},
        {**other, "stream_with_tools": True, "auto_tools": True, "tools": False},
    ]}), encoding="utf-8")
    caps = Capabilities()
    caps.use_file(path)
    assert caps.learned(SMOLLM) == Learned()  # one empty answer is no longer a lesson
    assert caps.entry(server_key(SMOLLM)).failures == {"stream_with_tools": 1, "auto_tools": 1}
    assert caps.learned(SimpleNamespace(name="ollama", host="http://127.0.0.1:11434", model="qwen3")) == Learned(
        tools=False)
    caps.learn(SMOLLM, auto_tools=False)  # one more in a row: now it is
    assert caps.learned(SMOLLM) == Learned(auto_tools=False)


def test_forget_one_model_or_all_writes_the_file_at_once(tmp_path):
    path = tmp_path / "capabilities.json"
    caps = Capabilities()
    caps.use_file(path)
    qwen = SimpleNamespace(name="ollama", host="http://127.0.0.1:11434", model="qwen3")
    for backend in (SMOLLM, SMOLLM, qwen):
        caps.learn(backend, auto_tools=False)
    assert [e.model for e in caps.entries()] == ["qwen3", "smollm2"]

    assert caps.forget(server_key(SMOLLM)) == 1
    assert caps.learned(SMOLLM) == Learned()
    reread = Capabilities()
    reread.use_file(path)
    assert [e.key for e in reread.entries()] == [server_key(qwen)]

    assert caps.forget(model="no-such-model") == 0
    assert caps.forget(model="qwen3") == 1
    caps.learn(SMOLLM, tools=False)
    assert caps.forget() == 1
    assert json.loads(path.read_text(encoding="utf-8"))["learned"] == []


def test_a_change_another_process_made_is_read_before_the_next_use(tmp_path):
    """The window keeps one Capabilities for its life; ``desktop-agent tools --forget-learned`` (another
    process) forgets in the file: the window's next turn offers the tools again."""
    path = tmp_path / "capabilities.json"
    window = Capabilities()
    window.use_file(path)
    window.learn(SMOLLM, auto_tools=False)
    window.learn(SMOLLM, auto_tools=False)
    assert window.learned(SMOLLM).auto_tools is False
    terminal = Capabilities()
    terminal.use_file(path)
    assert terminal.forget(model="smollm2") == 1
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a coarse clock could give the same time
    assert window.learned(SMOLLM) == Learned()
    path.unlink()  # deleted by hand: nothing learned either
    window.learn(SMOLLM, auto_tools=False)
    assert window.entry(server_key(SMOLLM)) == Entry("openai", "http://127.0.0.1:8080/v1", "smollm2",
                                                      {"auto_tools": 1})
