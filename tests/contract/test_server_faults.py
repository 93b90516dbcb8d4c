"""The server faults of issue 20, each against a real local server through the official client: keep-alives are
not data (both waits, both backends), out of quota is not a rate limit (one request, its own error; the key pool
treats it like a rejected key), and a recursive argument model is offered with its recursive part.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from pydantic import BaseModel

from desktop_agent.cli.errors import terminal_text
from desktop_agent.core import errors
from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.events import AnswerFinished, TurnFailed
from desktop_agent.core.messages import Conversation
from desktop_agent.core.session import ChatSession
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.tools.registry import ToolRegistry
from tests.contract.test_openai_backend import collect, make_backend, tool_calls_completion, user
from tests.servers.ollama import Pause
from tests.servers.openai import HttpError, Raw, chunk

# ------------------------------------------------------------------------------ keep-alives are not data
KEEP_ALIVE = b": keep-alive\n\n"  # an SSE comment, as proxies and gateways send every few seconds
DROP_S = 30.0  # when the servers below would give up themselves


def _sse_text(text: str) -> bytes:
    return f"data: {json.dumps(chunk('chatcmpl-1', 'local-model', {'content': text}))}\n\n".encode()


def _ndjson_text(text: str) -> dict[str, Any]:
    return {"model": "local-model", "message": {"role": "assistant", "content": text}, "done": False}


def _turn(backend: Any) -> tuple[TurnFailed, float]:
    """One turn of the app's loop; the TurnFailed it must end with and how long it took."""
    start = time.monotonic()
    events = list(Agent(backend, None, max_steps=2).run(Conversation(), "hi", threading.Event()))
    elapsed = time.monotonic() - start
    assert isinstance(events[-1], TurnFailed), events[-1]
    return events[-1], elapsed


def _openai(server: Any, first_s: float, next_s: float) -> OpenAIBackend:
    return OpenAIBackend(server.url, "local-model", [], needs_key=False, timeout_s=first_s, next_data_timeout_s=next_s)


def test_openai_keepalives_before_any_data_are_not_first_data(openai_server):
    """Headers, then only ``: keep-alive`` every 0.3 s: the first-data wait (1 s) runs out as if the server were
    silent — "did not answer within 1 s", one request, long before the server would drop the connection."""
    openai_server.script(Raw(b"", stall_s=DROP_S, keepalive=KEEP_ALIVE, keepalive_every_s=0.3))
    failed, elapsed = _turn(_openai(openai_server, first_s=1.0, next_s=1.0))
    assert isinstance(failed.error, errors.ServerTimedOut) and "did not answer within 1 s" in str(failed.error)
    assert elapsed < 5 and len(openai_server.chat_requests) == 1


def test_openai_keepalives_between_data_are_not_data(openai_server):
    """Text, then only keep-alives: the next-data wait (1 s; the first-data wait is 30 s) ends the turn as
    "stopped responding", the text kept."""
    openai_server.script(Raw(_sse_text("Hello, "), stall_s=DROP_S, keepalive=KEEP_ALIVE, keepalive_every_s=0.3))
    failed, elapsed = _turn(_openai(openai_server, first_s=30.0, next_s=1.0))
    assert isinstance(failed.error, errors.ServerStoppedResponding) and "stopped responding" in str(failed.error)
    assert elapsed < 5 and failed.partial is not None and failed.partial.content == "Hello, "


def test_openai_keepalives_then_a_dropped_connection_is_not_asked_again(openai_server):
    """The server took the request (200, keep-alives) and hung up before any data: the answer broke off — not
    "can't reach the server", and not sent again (each copy would start the first-data wait over: three
    requests and three times the wait before this)."""
    openai_server.script(*[Raw(b"", stall_s=1.0, keepalive=KEEP_ALIVE, keepalive_every_s=0.3)] * 3)
    failed, elapsed = _turn(_openai(openai_server, first_s=30.0, next_s=1.0))
    assert isinstance(failed.error, errors.AnswerCutOff), failed.error
    assert len(openai_server.chat_requests) == 1 and elapsed < 5


@pytest.mark.parametrize("keepalive", [b"\n", b"  \r\n"], ids=["blank", "whitespace"])
def test_ollama_blank_lines_are_not_data_before_or_between_lines(ollama_server, keepalive):
    """NDJSON's keep-alives are blank (or whitespace-only) lines: before any line they are not first data (the
    1 s first-data wait runs out), between lines they are not data (the 1 s next-data wait runs out)."""
    ollama_server.script([Pause(DROP_S, keepalive=keepalive, every_s=0.3)])
    failed, elapsed = _turn(OllamaBackend(ollama_server.url, "local-model", timeout_s=1.0, next_data_timeout_s=1.0))
    assert isinstance(failed.error, errors.ServerTimedOut) and "did not answer within 1 s" in str(failed.error)
    assert elapsed < 5

    ollama_server.script([_ndjson_text("Hello, "), Pause(DROP_S, keepalive=keepalive, every_s=0.3)])
    failed, elapsed = _turn(OllamaBackend(ollama_server.url, "local-model", timeout_s=30.0, next_data_timeout_s=1.0))
    assert isinstance(failed.error, errors.ServerStoppedResponding) and elapsed < 5
    assert failed.partial is not None and failed.partial.content == "Hello, "


# ------------------------------------------------------------------------------ out of quota
OUT_OF_QUOTA = HttpError(429, {"error": {
    "message": "You exceeded your current quota, please check your plan and billing details.",
    "type": "insufficient_quota", "param": None, "code": "insufficient_quota"}})
KEY_A, KEY_B = "sk-first-key-0123456789abcdefAAA", "sk-second-key-0123456789abcdefBBB"


def test_out_of_quota_fails_at_once_after_one_request_with_its_own_error(openai_server):
    """OpenAI's 429 ``insufficient_quota`` is no rate limit: one request, no pause, no "retrying" notice, and
    "out of quota — check your plan and billing" in the window's and the terminal's text."""
    openai_server.script(OUT_OF_QUOTA, OUT_OF_QUOTA, OUT_OF_QUOTA)
    backend = make_backend(openai_server, keys=[KEY_A], retries_per_key=2)
    chunks = []
    with pytest.raises(errors.OutOfQuota) as info:
        for chunk in backend.stream_chat(user("hi")):
            chunks.append(chunk)
    assert len(openai_server.chat_requests) == 1 and backend.pool._sleep == [] and chunks == []
    assert "out of quota — check your plan and billing" in str(info.value)
    assert "out of quota — check your plan and billing" in terminal_text(info.value)
    assert "OPENAI_API_KEY" in terminal_text(info.value) and "rate limit" not in str(info.value).lower()
    assert KEY_A not in str(info.value) + terminal_text(info.value)


def test_a_key_out_of_quota_is_passed_over_like_a_rejected_key(openai_server):
    """Several keys: the next key is tried at once (each key once, no pause); the one that works is used first
    from then on; when every key is out of quota the error says how many."""
    openai_server.script(OUT_OF_QUOTA)
    backend = make_backend(openai_server, keys=[KEY_A, KEY_B], retries_per_key=2)
    assert collect(backend.stream_chat(user("x"))).text == "You said: x"
    assert collect(backend.stream_chat(user("y"))).text == "You said: y"
    assert [r.key for r in openai_server.chat_requests] == [KEY_A, KEY_B, KEY_B] and backend.pool._sleep == []

    openai_server.script(OUT_OF_QUOTA, OUT_OF_QUOTA, OUT_OF_QUOTA)
    with pytest.raises(errors.OutOfQuota) as info:
        collect(backend.stream_chat(user("z")))
    assert len(openai_server.chat_requests) == 5 and backend.pool._sleep == []
    assert info.value.keys_tried == 2 and "All 2 API keys" in str(info.value)



# ------------------------------------------------------------------------------ recursive argument models
class Node(BaseModel):
    name: str
    children: list[Node] = []


def test_a_recursive_argument_model_is_offered_with_its_recursive_part_and_validated(openai_server, tmp_path):
    """``plant(tree: Node)`` with ``Node.children: list[Node]``: the schema the server receives spells the tree
    out three levels deep (name and children at each), then a plain object that names its fields; a nested tree
    the model sends arrives at the tool as real ``Node`` objects."""
    got: list[Node] = []

    def plant(tree: Node) -> str:
        """Plant a family tree."""
        got.append(tree)
        return "planted"

    registry = ToolRegistry()
    registry.register(plant)
    tree = {"name": "root", "children": [{"name": "a", "children": [{"name": "a1"}]}, {"name": "b"}]}
    openai_server.script(tool_calls_completion(
        {"id": "call_1", "type": "function", "function": {"name": "plant", "arguments": json.dumps({"tree": tree})}}))
    session = ChatSession(Conversation(), ConversationStore(tmp_path / "chats.sqlite3"),
                          Agent(make_backend(openai_server), registry, max_steps=3))
    events = list(session.run_turn("plant it", threading.Event()))
    assert isinstance(events[-1], AnswerFinished)

    offered = openai_server.chat_requests[0]["tools"][0]["function"]["parameters"]
    level = offered["properties"]["tree"]
    for _ in range(3):  # the root and two levels of children, spelled out
        assert set(level["properties"]) == {"name", "children"} and level["required"] == ["name"]
        assert level["properties"]["children"]["type"] == "array"
        level = level["properties"]["children"]["items"]
    assert level["type"] == "object" and "properties" not in level  # the cut: a plain object that says what it is
    assert "Node" in level["description"] and "name, children" in level["description"]
    assert "$ref" not in json.dumps(offered)

    assert len(got) == 1 and isinstance(got[0], Node)
    assert [c.name for c in got[0].children] == ["a", "b"]
    assert isinstance(got[0].children[0].children[0], Node) and got[0].children[0].children[0].name == "a1"
