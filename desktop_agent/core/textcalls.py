"""Tool calls that a model writes in its answer text instead of the native ``tool_calls`` field.

Some models (and chat templates) write a call as text: one JSON object such as ``{"name": "get_weather",
"parameters": {...}}``, a JSON array or a sequence of objects for several calls, optionally inside a
```` ```json ```` fence, after Llama's ``<|python_tag|>`` or inside Hermes/Qwen ``<tool_call>…</tool_call>``
tags, or as ``functions.NAME:`` followed by the arguments object (the form llama-cpp-python's
``chatml-function-calling`` template teaches; small models copy its HTML-escaped quotes, ``&#34;``, too).
:class:`JsonToolCallGate` holds back streamed text that may be such a call and, at the end of the
stream, turns it into :class:`~desktop_agent.core.messages.ToolCall` objects — or releases it as text.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from desktop_agent.core.arguments import make_tool_call, parse_tool_arguments
from desktop_agent.core.messages import ToolCall

__all__ = ["JsonToolCallGate"]


def _call_from_object(obj: Any, tool_names: set[str]) -> ToolCall | None:
    """A ToolCall when ``obj`` is ``{"name": <registered>, "parameters"|"arguments": {...}}`` (or the
    same inside ``{"function": {...}}``); otherwise None."""
    if not isinstance(obj, dict):
        return None
    if "name" not in obj and isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or name not in tool_names:
        return None
    for key in ("arguments", "parameters"):
        value = obj.get(key)
        if isinstance(value, dict):
            # same rules as native calls: NaN/Infinity → answered with an error, never replayed
            return make_tool_call(name, value)
        if isinstance(value, str) and value.strip().startswith("{"):
            args, error = parse_tool_arguments(value)
            if error is None:
                return ToolCall(name=name, arguments=args)
    return None


_PYTHON_TAG = "<|python_tag|>"  # Llama 3.x: a built-in tool call follows
_CALL_OPEN, _CALL_CLOSE = "<tool_call>", "</tool_call>"  # Hermes / Qwen chat templates
_FUNCTIONS = "functions."  # "functions.NAME:\n{...}" (llama-cpp-python's chatml-function-calling)
_FUNCTIONS_CALL = re.compile(r"functions\.([A-Za-z0-9_-]{1,64}):\s*")
_FUNCTIONS_PARTIAL = re.compile(r"functions\.[A-Za-z0-9_-]{0,64}(:\s*(\{.*)?)?", re.DOTALL)
_JSON_FENCES = ("", "json", "jsonc", "json5")
#: how a reply that may be a tool call written as text starts
_CALL_STARTS = ("{", "[", "```", _PYTHON_TAG, _CALL_OPEN, _FUNCTIONS)


def _unescaped(text: str) -> str:
    """JSON written with HTML entities for its quotes (``{&#34;city&#34;: …}``) as plain JSON."""
    return html.unescape(text) if "&#" in text or "&quot;" in text else text


class JsonToolCallGate:
    """Holds back visible text that may turn out to be tool calls written as text.

    Only a reply whose *whole* content is tool calls is treated as such: one JSON object — or a
    JSON array / a sequence of objects, for several calls — optionally inside a ```` ```json ````
    fence, after Llama's ``<|python_tag|>`` or inside Hermes/Qwen ``<tool_call>…</tool_call>`` tags;
    every object must name a registered tool with an object of ``parameters``/``arguments``. Text
    starting like one of these is held back until that is decided; it is released as soon as it can
    no longer be such a call (another fence language, a non-call object, text after the object), so
    ordinary answers and code blocks stream with little delay.

    ``feed(text)`` → text to show now; ``finish()`` → ``(text to show, [ToolCall, ...])``.
    """

    _UNDECIDED, _HOLD, _PASS = range(3)
    #: give up holding (show as text) beyond this many characters
    MAX_HOLD = 200_000

    def __init__(self, tool_names: set[str] | None):
        self.tool_names = set(tool_names or ())
        self._state = self._PASS if not self.tool_names else self._UNDECIDED
        self._buf = ""

    def reset(self) -> None:
        self._state = self._PASS if not self.tool_names else self._UNDECIDED
        self._buf = ""

    def feed(self, text: str) -> str:
        if self._state == self._PASS:
            return text
        self._buf += text
        if self._state == self._UNDECIDED:
            lead = self._buf.lstrip()
            if not lead:
                return ""
            if lead.startswith(_CALL_STARTS):
                self._state = self._HOLD
            elif any(start.startswith(lead) for start in _CALL_STARTS):
                return ""  # "`", "<tool_c"…: may still become one
            else:
                return self._release()
        if len(self._buf) > self.MAX_HOLD or self._cannot_be_call():
            return self._release()
        return ""

    def finish(self) -> tuple[str, list[ToolCall]]:
        if self._state == self._PASS:
            return "", []
        if not self._buf.strip():  # nothing held back (a step that only called tools natively)
            return self._release(), []
        calls = self._parse_whole(self._buf)
        if calls:
            self._buf = ""
            self._state = self._PASS
            return "", calls
        return self._release(), []

    def _release(self) -> str:
        out, self._buf = self._buf, ""
        self._state = self._PASS
        return out

    @staticmethod
    def _split_fence(text: str) -> tuple[str | None, str]:
        """``(info string or None when not fenced, body)``; body excludes the opening fence line."""
        lead = text.lstrip()
        if not lead.startswith("```"):
            return None, lead
        nl = lead.find("\n")
        if nl < 0:
            return lead[3:], ""
        return lead[3:nl], lead[nl + 1 :]

    def _calls_of(self, value: Any) -> list[ToolCall] | None:
        """The calls a decoded JSON value stands for (an object, or a non-empty array of them), or
        None when any part of it is not a call of a registered tool."""
        items = value if isinstance(value, list) else [value]
        calls = [_call_from_object(item, self.tool_names) for item in items]
        if not calls or any(c is None for c in calls):
            return None
        return calls  # type: ignore[return-value]

    def _sequence(self, body: str, *, complete: bool, fenced: bool = False) -> list[ToolCall] | bool | None:
        """Read ``body`` as JSON values separated by whitespace, ``,`` or ``;``.

        ``complete``: the list of calls, or None when it is not only calls. Streaming
        (``complete=False``): False when it can no longer be only calls, else True.
        """
        decoder = json.JSONDecoder()
        calls: list[ToolCall] = []
        pos, n = 0, len(body)
        while True:
            while pos < n and body[pos] in " \t\r\n,;":
                pos += 1
            if pos >= n:
                return (calls or None) if complete else True
            rest = body[pos:]
            if fenced and not complete and rest.startswith("`"):
                return "```".startswith(rest.rstrip()) or rest.rstrip() == "```"
            if rest[0] not in "{[":
                return None if complete else False
            if rest[0] == "[":
                inner = rest[1:].lstrip()
                if inner and inner[0] != "{":  # a markdown link, a list of numbers…: not calls
                    return None if complete else False
            try:
                value, end = decoder.raw_decode(body, pos)
            except json.JSONDecodeError:
                return None if complete else True  # not complete yet
            found = self._calls_of(value)
            if found is None:
                return None if complete else False
            calls.extend(found)
            pos = end

    def _cannot_be_call(self) -> bool:
        text = self._buf.lstrip()
        if text.startswith(_PYTHON_TAG):
            text = text[len(_PYTHON_TAG) :].lstrip()
        elif _PYTHON_TAG.startswith(text):
            return False
        if text.startswith(_CALL_OPEN):
            inner = text[len(_CALL_OPEN) :].lstrip()
            return bool(inner) and not inner.startswith("{")  # else: decided at the end
        if _CALL_OPEN.startswith(text):
            return False
        if text.startswith(_FUNCTIONS):
            return _FUNCTIONS_PARTIAL.fullmatch(text) is None
        info, body = self._split_fence(text)
        if info is not None:
            if "\n" not in text:
                return len(info) > 20  # fence line still arriving
            if info.strip().lower() not in _JSON_FENCES:
                return True
        body = body.lstrip()
        if not body:
            return False
        return self._sequence(body, complete=False, fenced=info is not None) is False

    def _parse_whole(self, text: str) -> list[ToolCall] | None:
        text = text.strip()
        if text.startswith(_PYTHON_TAG):
            text = text[len(_PYTHON_TAG) :].strip()
        if text.startswith(_CALL_OPEN):
            calls: list[ToolCall] = []
            while text:
                if not text.startswith(_CALL_OPEN):
                    return None
                text = text[len(_CALL_OPEN) :]
                end = text.find(_CALL_CLOSE)
                if end < 0:  # the last closing tag may be missing (the model stopped at its end token)
                    inner, text = text, ""
                else:
                    inner, text = text[:end], text[end + len(_CALL_CLOSE) :].strip()
                found = self._sequence(_unescaped(inner.strip()), complete=True)
                if not found:
                    return None
                calls.extend(found)  # type: ignore[arg-type]
            return calls or None
        if text.startswith(_FUNCTIONS):
            return self._functions_calls(text)
        info, body = self._split_fence(text)
        body = body.strip()
        if info is not None:
            if info.strip().lower() not in _JSON_FENCES or not body.endswith("```"):
                return None
            body = body[:-3].strip()
        found = self._sequence(_unescaped(body), complete=True)
        return found or None  # type: ignore[return-value]

    def _functions_calls(self, text: str) -> list[ToolCall] | None:
        """``functions.NAME:`` + arguments object, one or more times: the calls, or None when any part is not a
        call of a registered tool with an object of arguments."""
        text = _unescaped(text)
        decoder = json.JSONDecoder()
        calls: list[ToolCall] = []
        pos = 0
        while pos < len(text):
            head = _FUNCTIONS_CALL.match(text, pos)
            if head is None or head.group(1) not in self.tool_names:
                return None
            try:
                value, pos = decoder.raw_decode(text, head.end())
            except json.JSONDecodeError:
                return None
            if not isinstance(value, dict):
                return None
            calls.append(make_tool_call(head.group(1), value))
            while pos < len(text) and text[pos] in " \t\r\n,;":
                pos += 1
        return calls or None
