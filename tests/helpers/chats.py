"""Chats built for tests: a long history of questions, tool calls and answers (context and compaction tests)."""

from __future__ import annotations

from desktop_agent.core.messages import Message, ToolCall


def long_chat(turns: int, tool_every: int = 5, result_chars: int = 2000) -> list[Message]:
    out: list[Message] = []
    for i in range(turns):
        out.append(Message(role="user", content=f"question {i} " + "x" * 100))
        if tool_every and i % tool_every == 0:
            c = ToolCall(name="lookup", arguments={"i": i})
            out.append(Message(role="assistant", tool_calls=[c]))
            out.append(Message(role="tool", content=f"result {i} " + "r" * result_chars, tool_call_id=c.id,
                               tool_name="lookup"))
        out.append(Message(role="assistant", content=f"answer {i} " + "y" * 100))
    return out
