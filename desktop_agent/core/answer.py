"""An answer in words from what the tools said: the request that asks for it, and what the user reads when
the model gives none.

When a turn's tools have run and the model is asked without tools — the last call after the steps ran out,
after it stopped without words, after it repeated its calls, or because this model cannot be offered tools
with automatic choice — the request carries the turn's tool results as text in the user's own message
(:func:`answer_request`) instead of as ``role="tool"`` messages after assistant tool calls: offered no tools, a
model reads a call-and-result exchange as an invitation to call again, and some servers' chat templates drop
``role="tool"`` messages entirely (llama-cpp-python's ``chatml-function-calling`` does), so the model would
answer without ever seeing the results. Only when that answer is empty too does the user get the results
themselves, each as its own text rather than JSON (:func:`results_answer`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from desktop_agent.core.messages import Message

__all__ = ["ANSWER_FROM_RESULTS", "NO_WORDS", "answer_request", "readable_result", "results_answer", "turn_results"]

#: what the answer request asks, after the results
ANSWER_FROM_RESULTS = "Answer my message above in your own words, using these results."
#: the note above the tools' results when the model gave no answer in words
NO_WORDS = "The model gave no answer in words; this is what the tools said:"


def _last_user_index(messages: Sequence[Message]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return i
    return None


def turn_results(messages: Sequence[Message]) -> list[tuple[str, dict[str, Any], str]]:
    """The tool calls of the current turn (after the newest user message) with their results:
    ``(name, arguments, result text)``, in order; a call without a result is left out."""
    start = _last_user_index(messages)
    if start is None:
        return []
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    out: list[tuple[str, dict[str, Any], str]] = []
    for m in messages[start + 1:]:
        if m.role == "assistant":
            for c in m.tool_calls:
                calls[c.id] = (c.name, dict(c.arguments))
        elif m.role == "tool":
            name, args = calls.get(m.tool_call_id or "", (m.tool_name or "tool", {}))
            out.append((name, args, m.content or ""))
    return out


def readable_result(content: str) -> str:
    """A tool result as a person reads it: a JSON string as its text, an object with a ``text`` field as that
    text, another object or list as ``key: value`` lines; anything else as it is."""
    try:
        value = json.loads(content)
    except (TypeError, ValueError):
        return content.strip()
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"].strip()
        return "\n".join(f"{k}: {_plain(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "\n".join(f"- {_plain(v)}" for v in value)
    return _plain(value)


def _plain(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _call_text(name: str, arguments: dict[str, Any]) -> str:
    """``name(key=value, …)`` with plain values (no JSON quotes: some chat templates escape them as HTML,
    and a small model copies ``&#34;`` into its answer)."""
    args = ", ".join(f"{k}={v if isinstance(v, str) else _plain(v)}" for k, v in arguments.items())
    return f"{name}({args})"


def answer_request(request: Sequence[Message]) -> list[Message]:
    """``request`` (system prompt and history) with the current turn's tool calls and results written into
    the user's message as text, for a model call that offers no tools. A request without tool results in its
    current turn is returned as it is."""
    results = turn_results(request)
    start = _last_user_index(request)
    if not results or start is None:
        return list(request)
    lines = [f"- {_call_text(name, args)} returned: {readable_result(text)}" for name, args, text in results]
    user = request[start]
    content = (f"{user.content or ''}\n\nThe tools you called gave these results:\n" + "\n".join(lines)
               + f"\n\n{ANSWER_FROM_RESULTS}")
    return [*request[:start], Message(role="user", content=content)]


def results_answer(messages: Sequence[Message]) -> str | None:
    """The answer the user gets when the model gave none in words although the turn's tools ran: a short
    note and each result as its own text. None: no tool ran in this turn."""
    results = turn_results(messages)
    if not results:
        return None
    parts = [f"**{name}**: {readable_result(text)}" for name, _args, text in results]
    return NO_WORDS + "\n\n" + "\n\n".join(parts)
