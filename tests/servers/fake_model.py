"""A tiny rule-based "model" shared by the local Ollama and OpenAI protocol servers.

It is not a language model: it decides deterministically, from the request, what a real model would
plausibly answer, so tests and manual runs (``python -m tests.servers.ollama``) exercise the real
wire protocols end to end.

Rules, in order, on the request's messages (wire dicts) and offered tool names:
1. The last message is a tool result → answer ``"The tool said: <content>"``; so is the app's request for an
   answer from the results written as text (``core/answer.py``): ``"The tool said: <result>; <result>"``.
2. The last user message mentions a word from TOOL_TRIGGERS and that tool is offered (or
   ``tool_choice`` names a tool) → one tool call with arguments from ``guess_arguments``.
3. Otherwise → echo: ``"You said: <text>"`` (markdown-free), split into word chunks; when the last user message
   has images (Ollama ``images``, OpenAI ``image_url`` data URLs) the answer starts with what they are
   (``"I see a PNG image of 4×3 pixels."``): the server decoded them.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
from dataclasses import dataclass, field
from typing import Any

TOOL_TRIGGERS: dict[str, tuple[str, ...]] = {
    "today": ("what day", "today", "date", "time is it"),
    "day_of_week": ("day of the week", "weekday"),
    "say_hello": ("hello to", "greet"),
    "calculator": ("calculate", "compute", "how much is"),
    "get_current_weather": ("weather",),
}


@dataclass
class Plan:
    """What the fake model answers: visible text chunks and/or tool calls ``(name, arguments dict)``."""

    chunks: list[str] = field(default_factory=list)
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    thinking: str = ""


def _content(msg: dict[str, Any]) -> str:
    c = msg.get("content")
    if isinstance(c, list):  # OpenAI content parts
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return c or ""


def images_of(msg: dict[str, Any]) -> list[bytes]:
    """The images of a wire message, decoded: Ollama ``images`` (base64) and OpenAI ``image_url`` parts (data URLs).
    Raises ``ValueError`` for one that is not valid base64 or not a data URL."""
    raw = [str(i) for i in msg.get("images") or []]
    c = msg.get("content")
    if isinstance(c, list):
        for p in c:
            if isinstance(p, dict) and p.get("type") == "image_url":
                url = str((p.get("image_url") or {}).get("url") or "")
                head, _, data = url.partition(",")
                if not (head.startswith("data:image/") and head.endswith(";base64")):
                    raise ValueError(f"not an image data URL: {url[:40]!r}")
                raw.append(data)
    try:
        return [base64.b64decode(r, validate=True) for r in raw]
    except binascii.Error as exc:
        raise ValueError(f"invalid base64 image: {exc}") from exc


def describe_image(data: bytes) -> str:
    """``a PNG image of 4×3 pixels`` (PNG: its size from the header), ``a JPEG image``, ``an image``."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return f"a PNG image of {width}×{height} pixels"
    if data.startswith(b"\xff\xd8\xff"):
        return "a JPEG image"
    return "an image"


def guess_arguments(tool: str, text: str) -> dict[str, Any]:
    if tool == "day_of_week":
        m = re.search(r"\d{4}-\d{2}-\d{2}", text)
        return {"date": m.group(0) if m else "2024-01-01"}
    if tool == "say_hello":
        m = re.search(r"hello to (\w+)", text, re.I)
        return {"name": m.group(1) if m else "friend"}
    if tool == "calculator":
        m = re.search(r"([-+*/().\d\s^]+\d[-+*/().\d\s]*)", text)
        return {"expression": (m.group(1) if m else "1+1").strip()}
    if tool == "get_current_weather":
        m = re.search(r"in ([A-Z][\w\s]+?)\??$", text)
        return {"location": m.group(1).strip() if m else "Paris"}
    return {}


def _results_as_text(content: str) -> list[str] | None:
    """The results in the app's answer-in-words request ("- name(args) returned: R" lines after "The tools you
    called gave these results:"); None when the message is not one."""
    head = "The tools you called gave these results:"
    if head not in content:
        return None
    out = []
    for line in content.split(head, 1)[1].splitlines():
        m = re.match(r"- .*? returned: (.*)$", line)
        if m:
            out.append(m.group(1))
    return out


def words(text: str) -> list[str]:
    """Split text into stream chunks that join back to ``text`` exactly."""
    return re.findall(r"\S+\s*|\s+", text) or [text]


def plan(messages: list[dict[str, Any]], tool_names: list[str], forced: str | None = None) -> Plan:
    if not messages:
        return Plan(chunks=words("You said nothing."))
    last = messages[-1]
    if last.get("role") == "tool":
        return Plan(chunks=words("The tool said: " + _content(last)))
    results = _results_as_text(_content(last)) if last.get("role") == "user" else None
    if results is not None:  # the app's request for an answer from the results, written as text
        return Plan(chunks=words("The tool said: " + "; ".join(results)))
    user_text = next((_content(m) for m in reversed(messages) if m.get("role") == "user"), "")
    if forced and forced in tool_names:
        return Plan(tool_calls=[(forced, guess_arguments(forced, user_text))])
    lowered = user_text.lower()
    for name in sorted(TOOL_TRIGGERS, key=lambda n: -max(len(t) for t in TOOL_TRIGGERS[n])):
        if name in tool_names and any(t in lowered for t in TOOL_TRIGGERS[name]):
            return Plan(tool_calls=[(name, guess_arguments(name, user_text))])
    last_user = next((m for m in reversed(messages) if m.get("role") == "user"), {})
    seen = " ".join(f"I see {describe_image(i)}." for i in images_of(last_user))
    return Plan(chunks=words((seen + " " if seen else "") + "You said: " + user_text))


def tool_names_of(tools: list[dict[str, Any]] | None) -> list[str]:
    out = []
    for t in tools or []:
        fn = t.get("function", t)
        if isinstance(fn, dict) and fn.get("name"):
            out.append(fn["name"])
    return out


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
