"""The server faults of issue 20, each against a real local server through the official client: keep-alives are
not data (both waits, both backends), out of quota is not a rate limit (one request, its own error; the key pool
treats it like a rejected key), and a recursive argument model is offered with its recursive part.
"""

from __future__ import annotations

import json
import threading

from pydantic import BaseModel

from desktop_agent.core.agent import Agent
from desktop_agent.core.events import AnswerFinished
from desktop_agent.core.messages import Conversation
from desktop_agent.core.session import ChatSession
from desktop_agent.core.store import ConversationStore
from desktop_agent.core.tools.registry import ToolRegistry
from tests.contract.test_openai_backend import make_backend, tool_calls_completion


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
