"""Chat Completions on the wire, both ways, as pure conversion (no client, no connection): our history as the
request's ``messages`` and ``tool_choice``, the streamed tool-call deltas assembled into tool calls, and the
fields of a chunk read leniently (a typed openai object or a plain dict, extra fields included).

What real servers send that the spec does not say is in :mod:`desktop_agent.core.backends.openai`'s docstring;
the rules for tool-call deltas are :class:`ToolCallAssembler`'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.arguments import make_tool_call
from desktop_agent.core.attachments import wire_parts
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.messages import Message, ToolCall

__all__ = [
    "ChoiceDelta",
    "ToolCallAssembler",
    "errno_free",
    "field_value",
    "maybe_json",
    "prompt_tokens",
    "read_choice",
    "to_wire_messages",
    "tool_choice_payload",
]


# ------------------------------------------------------------------------------------------------
# History → wire messages
# ------------------------------------------------------------------------------------------------
def to_wire_messages(messages: list[Message], null_tool_content: bool = False) -> list[dict[str, Any]]:
    """Our messages as Chat Completions ``messages``.

    - assistant: ``content`` (``""`` when only tool calls, or ``None`` with ``null_tool_content``) and
      ``tool_calls=[{"id", "type": "function", "function": {"name", "arguments": JSON string}}]``;
      arguments are always valid JSON (``"{}"`` for a call whose arguments could not be read);
      ``thinking`` is never sent.
    - tool: ``{"role": "tool", "tool_call_id", "content"}``; a result without an id is paired with the
      earliest unanswered call of the same name in the preceding assistant message.
    - system / user: ``{"role", "content"}``; attached files' text follows the content, and a message with images
      has ``content`` as parts: ``{"type": "text"}`` then ``{"type": "image_url", "image_url": {"url": data URL}}``.
    """
    wire: list[dict[str, Any]] = []
    open_calls: list[ToolCall] = []
    for m in messages:
        if m.role == "assistant":
            d: dict[str, Any] = {"role": "assistant", "content": m.content or ""}
            if m.tool_calls:
                d["tool_calls"] = [
                    {
                        "id": tc.id,
                        "type": "function",
                        "function": {"name": tc.name, "arguments": tc.arguments_json()},
                    }
                    for tc in m.tool_calls
                ]
                if not m.content and null_tool_content:
                    d["content"] = None
            open_calls = list(m.tool_calls)
            wire.append(d)
        elif m.role == "tool":
            call_id = m.tool_call_id
            if not call_id:
                match = next((c for c in open_calls if not m.tool_name or c.name == m.tool_name), None)
                call_id = match.id if match else ""
            open_calls = [c for c in open_calls if c.id != call_id]
            wire.append({"role": "tool", "tool_call_id": call_id, "content": m.content or ""})
        elif m.attachments:  # a user message with files: their text in the content, images as data URLs
            text, images = wire_parts(m)
            if images:
                parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
                parts += [{"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}
                          for mime, data in images]
                wire.append({"role": m.role, "content": parts})
            else:
                wire.append({"role": m.role, "content": text})
        else:
            wire.append({"role": m.role, "content": m.content or ""})
    return wire


def tool_choice_payload(tool_choice: str | None, tools: list[dict[str, Any]]) -> str | dict[str, Any]:
    """``auto`` / ``required`` / ``none`` as is; a tool name → ``{"type": "function", "function":
    {"name": ...}}``. Raises :class:`SettingsError` for a name that is not among ``tools``."""
    choice = (tool_choice or "auto").strip()
    if choice in ("auto", "required", "none"):
        return choice
    names = [(t.get("function") or {}).get("name") for t in tools]
    if choice not in names:
        raise SettingsError(
            f"tool_choice names the tool '{choice}', which is not offered; offered tools: "
            + (", ".join(n for n in names if n) or "none")
        )
    return {"type": "function", "function": {"name": choice}}


# ------------------------------------------------------------------------------------------------
# Tool-call deltas → ToolCalls
# ------------------------------------------------------------------------------------------------
@dataclass(eq=False)  # identity matters: two calls may look alike
class _PartialCall:
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    obj: dict[str, Any] | None = None

    def raw_arguments(self) -> Any:
        if self.obj is not None and not "".join(self.parts).strip():
            return self.obj
        return "".join(self.parts)

    def arguments_complete(self) -> bool:
        if self.obj is not None:
            return True
        text = "".join(self.parts).strip()
        if not text:
            return False
        try:
            json.loads(text)
        except ValueError:
            return False
        return True


class ToolCallAssembler:
    """Assembles streamed tool-call deltas (``choices[0].delta.tool_calls[]``) into tool calls.

    Rules: a delta with an integer ``index`` belongs to the call with that index — unless it carries
    a *different* non-empty id, which starts a new call (servers that number every call 0). A delta
    without ``index`` continues the open call, unless it brings a new non-empty id, or a name
    while the open call already has a name and complete arguments. Empty-string ids and names never
    start a call when one is open. ``arguments`` may be string pieces or a whole object.

    A delta that repeats a call already complete — the same id (or index), name and arguments, as some
    servers send again in the final chunk — is dropped: the call runs once.
    """

    def __init__(self) -> None:
        self.calls: list[_PartialCall] = []
        self._by_index: dict[int, _PartialCall] = {}
        self._by_id: dict[str, _PartialCall] = {}
        self._current: _PartialCall | None = None

    def add(self, index: Any, call_id: Any, name: Any, arguments: Any) -> None:
        call_id = call_id if isinstance(call_id, str) else ""
        name = name if isinstance(name, str) else ""
        if self._repeats(index, call_id, name, arguments):
            return
        target: _PartialCall | None = None
        if isinstance(index, int) and not isinstance(index, bool):
            target = self._by_index.get(index)
            if target is not None and call_id and target.id and call_id != target.id:
                target = self._by_id.get(call_id)  # a new call reusing the index
                if target is None:
                    target = self._new()
                self._by_index[index] = target
            elif target is None:
                cur = self._current
                if cur is not None and not call_id and not name and all(v is not cur for v in self._by_index.values()):
                    target = cur  # continuation of an index-less start
                elif call_id and call_id in self._by_id and all(
                    v is not self._by_id[call_id] for v in self._by_index.values()
                ):
                    target = self._by_id[call_id]  # an index-less start, now continued with an index
                else:
                    target = self._new()  # a new index is a new call, even if its id was seen (some servers repeat ids)
                self._by_index[index] = target
        else:
            cur = self._current
            if call_id and call_id in self._by_id:
                target = self._by_id[call_id]
            elif cur is None or (call_id and cur.id and call_id != cur.id):
                target = self._new()
            elif name and not call_id and cur.name and cur.arguments_complete() and (name != cur.name or not cur.id):
                target = self._new()  # index-less and id-less servers: a name after a finished call
            else:
                target = cur
        self._current = target
        if call_id and not target.id:
            target.id = call_id
            self._by_id[call_id] = target
        if name and not target.name:
            target.name = name
        if isinstance(arguments, dict):
            target.obj = {**(target.obj or {}), **arguments}
        elif isinstance(arguments, str):
            target.parts.append(arguments)
        elif arguments is not None:
            target.parts.append(json.dumps(arguments, ensure_ascii=False))

    def _repeats(self, index: Any, call_id: str, name: str, arguments: Any) -> bool:
        """Whether this delta restates a complete call whole (same id or index, name and arguments)."""
        if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
            return False
        if call_id and call_id in self._by_id:
            known = self._by_id[call_id]
        elif isinstance(index, int) and not isinstance(index, bool) and index in self._by_index and not call_id:
            known = self._by_index[index]
        else:
            return False
        if not known.arguments_complete() or (name and known.name and name != known.name):
            return False
        if isinstance(arguments, str):
            try:
                restated = json.loads(arguments)
            except ValueError:
                return False  # a piece of the arguments, not a whole restatement
        else:
            restated = arguments
        raw = known.raw_arguments()
        try:
            current = raw if isinstance(raw, dict) else json.loads(raw)
        except ValueError:
            return False
        return bool(restated == current)

    def _new(self) -> _PartialCall:
        call = _PartialCall()
        self.calls.append(call)
        return call

    def finish(self) -> list[ToolCall]:
        """The assembled calls, in order. Empty ids — and an id already used by an earlier call of
        the same message — get one synthetic id each (every result must pair with exactly one call);
        calls with neither a name nor arguments are dropped."""
        out = []
        seen: set[str] = set()
        for c in self.calls:
            raw = c.raw_arguments()
            if not c.name and not raw:
                continue
            call_id = c.id if c.id and c.id not in seen else None
            call = make_tool_call(c.name, raw, call_id)
            seen.add(call.id)
            out.append(call)
        return out


def field_value(obj: Any, name: str) -> Any:
    """A field of an openai response object or a plain dict, including extra (non-typed) fields."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


# ------------------------------------------------------------------------------------------------
# A chunk → what it says
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChoiceDelta:
    """What one chunk (or a whole completion) says in its first choice."""

    text: str = ""
    thinking: str = ""
    #: it carried tool-call deltas (or the legacy ``function_call``)
    calls: bool = False
    finish_reason: str | None = None

    @property
    def meaningful(self) -> bool:
        """Whether it is progress (a keep-alive or an empty chunk is not)."""
        return bool(self.text or self.thinking or self.calls or self.finish_reason)


def read_choice(event: Any, calls: ToolCallAssembler) -> ChoiceDelta | None:
    """The first choice of a streamed chunk (its ``delta``) or of a whole completion (its ``message``); its
    tool-call deltas are given to ``calls``. None when the event has no first choice (a usage-only chunk).

    Reasoning is ``reasoning_content`` or ``reasoning`` (servers differ; one of them: servers sending both repeat
    the same text); a ``refusal`` is the text when there is no other."""
    choices = field_value(event, "choices") or []
    choice = next((c for c in choices if (field_value(c, "index") or 0) == 0), None)
    if choice is None:
        return None
    delta = field_value(choice, "delta")
    whole = delta is None
    if whole:
        delta = field_value(choice, "message")  # a whole (non-streamed) chat completion
    thinking = ""
    for name in ("reasoning_content", "reasoning"):
        value = field_value(delta, name)
        if isinstance(value, str) and value:
            thinking = value
            break
    text = field_value(delta, "content")
    text = text if isinstance(text, str) else ""
    refusal = field_value(delta, "refusal")
    if isinstance(refusal, str) and refusal and not text:
        text = refusal
    delta_calls = field_value(delta, "tool_calls") or []
    for i, tc in enumerate(delta_calls):
        fn = field_value(tc, "function")
        index = field_value(tc, "index")
        if whole and index is None:
            index = i  # a whole message lists each call once, in order
        calls.add(index, field_value(tc, "id"), field_value(fn, "name"), field_value(fn, "arguments"))
    # The legacy field only when there are no tool_calls: llama-cpp-python sends both, with the
    # same pieces, on every delta (its arguments would be doubled).
    legacy = None if delta_calls else field_value(delta, "function_call")
    if legacy is not None:
        calls.add(0, "", field_value(legacy, "name"), field_value(legacy, "arguments"))
    reason = field_value(choice, "finish_reason")
    return ChoiceDelta(text, thinking, bool(delta_calls) or legacy is not None,
                       reason if isinstance(reason, str) and reason else None)


def prompt_tokens(usage: Any) -> int | None:
    value = field_value(usage, "prompt_tokens")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def errno_free(text: str) -> str:
    """``"[Errno 111] Connection refused"`` → ``"Connection refused"``."""
    import re

    return re.sub(r"\[Errno -?\d+\]\s*", "", text).strip()


def maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
