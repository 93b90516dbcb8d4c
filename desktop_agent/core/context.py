"""Which history goes to the model: the system prompt plus a bounded window of the conversation.

Seed 000 keeps a bounded memory (a deque of 50 messages) and sends its system prompt first on every
request. :func:`build_request` does the same on our :class:`~desktop_agent.core.messages.Message`
history, with the rules chat-completion servers enforce for tool calls (several calls in one step, each answered):

- an assistant message with ``tool_calls`` is always followed directly by one ``role="tool"`` message
  per call id. The window never cuts such a group apart; a call with no stored result (a crash or a
  Stop while tools ran) gets a synthetic "was not run" result; tool results that answer no call in
  the preceding assistant message (orphans) are left out;
- the window never starts with tool results;
- the system prompt is always first and does not count toward ``max_history``;
- the latest user message is always included, even when the tool steps of a long turn alone fill the
  window (the model must still see the question). Together with whole tool groups, this means the
  window may exceed ``max_history`` by the last user message and by one oversized group;
- reasoning (``Message.thinking``) and uncapped tool output (``full_content``) are never sent
  (thinking is not replayed; only the capped result of a tool goes to the model);
- assistant messages with neither content nor tool calls are skipped (some servers reject them).

The conversation itself is never modified (nothing is deleted from the history).
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop_agent.core.messages import Message

#: Content of the synthetic result for a stored tool call that has no result.
NOT_RUN_TEXT = "Error: this tool call was not run (the turn was interrupted before it ran)."


def _groups(messages: Sequence[Message]) -> list[list[Message]]:
    """Split history into units that must stay together: a single user/assistant message, or an
    assistant tool-call message followed by exactly one result per call (in call order)."""
    units: list[list[Message]] = []
    i, n = 0, len(messages)
    while i < n:
        m = messages[i]
        if m.role == "system":
            i += 1
            continue
        if m.role == "tool":  # orphan: no assistant tool-call message right before it
            i += 1
            continue
        if m.role == "assistant" and m.tool_calls:
            results: dict[str, Message] = {}
            j = i + 1
            while j < n and messages[j].role == "tool":
                r = messages[j]
                if r.tool_call_id is not None and r.tool_call_id not in results:
                    results[r.tool_call_id] = r
                j += 1
            unit = [m]
            for call in m.tool_calls:
                result = results.get(call.id)
                if result is None:
                    result = Message(
                        role="tool",
                        content=NOT_RUN_TEXT,
                        tool_call_id=call.id,
                        tool_name=call.name,
                        tool_status="cancelled",
                    )
                unit.append(result)
            units.append(unit)
            i = j
            continue
        if m.role == "assistant" and not m.content.strip():
            i += 1  # nothing to say (e.g. an empty stopped answer)
            continue
        units.append([m])
        i += 1
    return units


def _for_request(m: Message) -> Message:
    """A copy safe to send: no reasoning, no uncapped tool output."""
    if m.thinking or m.full_content is not None:
        return m.model_copy(update={"thinking": "", "full_content": None})
    return m


def select_history(messages: Sequence[Message], max_history: int | None = 50) -> list[Message]:
    """The window of ``messages`` to send (without the system prompt), newest last.

    ``max_history``: how many history messages to send (``None`` or ``<= 0``: all). Whole units are
    taken from the end while they fit; the newest unit is always taken, and the latest user message
    is put first when the window would not otherwise contain it. Returns copies without ``thinking``
    and ``full_content``; ``messages`` is not modified.
    """
    units = _groups(messages)
    if not units:
        return []
    if max_history is None or max_history <= 0:
        chosen = units
    else:
        chosen = []
        count = 0
        for unit in reversed(units):
            if chosen and count + len(unit) > max_history:
                break
            chosen.append(unit)
            count += len(unit)
        chosen.reverse()
        last_user = next((u for u in reversed(units) if u[0].role == "user"), None)
        if last_user is not None and not any(u is last_user for u in chosen):
            chosen.insert(0, last_user)
    return [_for_request(m) for unit in chosen for m in unit]


def build_request(
    messages: Sequence[Message], system_prompt: str | None, max_history: int | None = 50
) -> list[Message]:
    """The message list for one model call: ``[system prompt] + select_history(...)``.

    ``system_prompt`` empty or ``None`` → no system message is sent.
    """
    out: list[Message] = []
    if system_prompt and system_prompt.strip():
        out.append(Message(role="system", content=system_prompt))
    out.extend(select_history(messages, max_history))
    return out
