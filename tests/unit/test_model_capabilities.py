"""Issue 13, "Model capabilities", learned from errors (servers that cannot say what a model can do): a model
that cannot use tools answers without them at once, with one notice, and later turns go without them — never
the same 400 on every turn, never a retry loop."""

from __future__ import annotations

from desktop_agent.core.agent import Agent
from desktop_agent.core.capabilities import cannot_use
from desktop_agent.core.errors import ToolsNotSupported
from desktop_agent.core.events import AnswerFinished, Notice
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools.decorator import tool
from desktop_agent.core.tools.registry import ToolRegistry

from .scripted import ScriptedBackend, text


@tool
def today() -> str:
    """Today's date."""
    return "2026-12-01"


def registry() -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(today)
    return reg


def test_a_model_that_cannot_use_tools_is_asked_without_them_and_it_is_remembered():
    backend = ScriptedBackend(ToolsNotSupported("tiny"), text("an answer"), text("another"))
    events = list(Agent(backend, registry()).run(Conversation(), "what day is it?"))
    assert isinstance(events[-1], AnswerFinished)
    assert [e.text for e in events if isinstance(e, Notice)] == [cannot_use("tools", "tiny")]
    assert backend.requests[0].tools and backend.requests[1].tools is None
    events = list(Agent(backend, registry()).run(Conversation(), "and tomorrow?"))
    assert isinstance(events[-1], AnswerFinished) and len(backend.requests) == 3
    assert backend.requests[2].tools is None, "the next turn goes without tools at once"
    assert [e.text for e in events if isinstance(e, Notice)] == [cannot_use("tools", "scripted-model")]


def test_offering_tools_anyway_is_the_users_choice():
    backend = ScriptedBackend(ToolsNotSupported("m"), text("ok"), text("with tools"))
    list(Agent(backend, registry()).run(Conversation(), "q"))
    list(Agent(backend, registry(), tools_anyway=True).run(Conversation(), "q"))
    assert backend.requests[-1].tools
