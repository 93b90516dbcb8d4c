"""Many tools, small models (issue 13), over the wire: with more tools than ``tools.max_offered`` the request the
official client sends carries only the relevant tools and ``find_tools``; the model calling ``find_tools`` gets
the found tool in its next request, and calling it runs it — for the OpenAI-compatible and the Ollama backend,
against the local protocol servers."""

from __future__ import annotations

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.backends.ollama import OllamaBackend
from desktop_agent.core.backends.openai import OpenAIBackend
from desktop_agent.core.events import AnswerFinished, ToolCallFinished
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.relevance import FIND_TOOLS
from tests.servers.fake_model import Plan
from tests.servers.ollama import plan_to_lines
from tests.servers.openai import plan_to_chunks


def many_tools(n: int = 30) -> ToolRegistry:
    registry = ToolRegistry()
    topics = ["invoice", "printer", "backup", "playlist", "thermostat", "garden", "parcel", "recipe", "flight",
              "meeting", "expense", "library", "parking", "laundry", "vaccine"]  # fmt: skip
    for i in range(n):
        topic = topics[i % len(topics)]

        def fn(item: str = "", _topic: str = topic) -> str:
            return f"{_topic} handled: {item}"

        fn.__name__ = f"{topic}_tool_{i}"
        fn.__doc__ = f"Manage the user's {topic} records (number {i})."
        registry.register(fn)

    def lights(room: str) -> str:
        """Switch the lights on in a room of the house."""
        return f"lights on in the {room}"

    registry.register(lights)
    return registry


def names(tools) -> list[str]:
    return [t["function"]["name"] for t in tools or []]


def run(agent: Agent, text: str) -> list:
    return list(agent.run(Conversation(), text))


def check(events, sent_tools: list[list[str]]) -> None:
    first, second = sent_tools[0], sent_tools[1]
    assert len(first) <= 6 and first[-1] == FIND_TOOLS
    assert "lights" not in first and any(n.startswith("parcel_") for n in first)  # the turn is about a parcel
    assert "lights" in second
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(e.name, e.ok) for e in finished] == [(FIND_TOOLS, True), ("lights", True)]
    assert "lights" in finished[0].result
    assert isinstance(events[-1], AnswerFinished)


def test_openai_official_client_sends_few_tools_then_the_found_one(openai_server):
    openai_server.script(plan_to_chunks(Plan(tool_calls=[(FIND_TOOLS, {"query": "switch the lights on"})]), "m"),
                         plan_to_chunks(Plan(tool_calls=[("lights", {"room": "hall"})]), "m"))  # fmt: skip
    backend = OpenAIBackend(openai_server.url, "m", [], needs_key=False, retries_per_key=0, timeout_s=10)
    try:
        events = run(Agent(backend, many_tools(), max_offered=6), "where is my parcel?")
    finally:
        backend.close()
    check(events, [names(r.get("tools")) for r in openai_server.chat_requests])
    assert openai_server.chat_requests[-1]["messages"][-1]["content"] == "lights on in the hall"


def test_ollama_official_client_sends_few_tools_then_the_found_one(ollama_server):
    ollama_server.script(plan_to_lines(Plan(tool_calls=[(FIND_TOOLS, {"query": "switch the lights on"})]), "llama3.2"),
                         plan_to_lines(Plan(tool_calls=[("lights", {"room": "hall"})]), "llama3.2"))  # fmt: skip
    backend = OllamaBackend(ollama_server.url, "llama3.2", timeout_s=10)
    try:
        events = run(Agent(backend, many_tools(), max_offered=6), "where is my parcel?")
    finally:
        backend.close()
    check(events, [names(r.get("tools")) for r in ollama_server.chat_requests])


@pytest.mark.parametrize("max_offered", [0, 100])
def test_below_the_count_or_with_zero_every_tool_is_sent(openai_server, max_offered):
    backend = OpenAIBackend(openai_server.url, "m", [], needs_key=False, retries_per_key=0, timeout_s=10)
    try:
        run(Agent(backend, many_tools(), max_offered=max_offered or None), "hello")
    finally:
        backend.close()
    assert len(openai_server.chat_requests[0]["tools"]) == 31
