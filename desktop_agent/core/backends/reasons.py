"""The server's own reason for a failed request, as one line a user can read, and whether that reason
means "the request does not fit the model's context window".

Servers explain a failure in many shapes: a JSON body (``{"error": {"message": ...}}``,
``{"error": "..."}``, ``{"message": ...}``, ``{"detail": ...}``), a plain-text body, an error event
inside a stream, or a proxy's HTML error page. :func:`reason_text` turns any of them into one trimmed
line (an HTML page is never pasted: it becomes "the server answered HTTP 502 with a web page"), and
:func:`is_context_reason` recognises the context-window wordings of OpenAI, llama.cpp,
llama-cpp-python, vLLM, Ollama and others; :func:`context_numbers` reads the window and the request's size
from those wordings where they give them. Both backends report errors through these.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_REASON", "context_numbers", "is_context_reason", "looks_like_html", "one_line", "reason_text"]

#: the longest reason quoted to the user, in characters
MAX_REASON = 300

_CONTEXT = re.compile(
    r"context[ _-]?(length|window|size|limit)"  # context_length_exceeded, exceed_context_size_error, …
    r"|\bn_ctx\b"
    r"|exceed(s|ed|ing)?\b[^.]{0,60}?\b(context|tokens?|n_ctx)\b"  # "Requested tokens (11398) exceed context window"
    r"|\b(prompt|input|message|messages|request|conversation|content|text)\b[^.]{0,30}?\btoo long"
    r"|too many tokens"
    r"|maximum context",
    re.I,
)
_HTML_START = re.compile(r"\s*(<!doctype\s+html|<html\b|<head\b|<body\b|<title\b|<h1\b|<center\b)", re.I)
_MESSAGE_KEYS = ("message", "error", "detail", "msg", "error_message", "reason")


def one_line(text: str, limit: int = MAX_REASON) -> str:
    """``text`` with its whitespace collapsed into single spaces, shortened to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def looks_like_html(text: str, content_type: str = "") -> bool:
    """True for a web page: an HTML content type, or a body that opens like a page."""
    return "html" in (content_type or "").lower() or bool(_HTML_START.match(text or ""))


def _message_of(data: Any, depth: int = 0) -> str:
    """The human-readable message inside a decoded JSON error body ("" when there is none)."""
    if isinstance(data, str):
        return data
    if isinstance(data, dict) and depth < 4:
        for key in _MESSAGE_KEYS:
            value = data.get(key)
            if value and isinstance(value, (str, dict, list)):
                found = _message_of(value, depth + 1)
                if found:
                    return found
        return json.dumps(data, ensure_ascii=False) if data else ""
    if isinstance(data, list) and data and depth < 4:  # FastAPI-style {"detail": [{"msg": ...}]}
        return "; ".join(m for m in (_message_of(d, depth + 1) for d in data[:3]) if m)
    return "" if data is None else str(data)


def reason_text(body: Any, content_type: str = "", status: int | None = None) -> str:
    """The server's reason in ``body`` (a decoded JSON value, text or bytes), as one line; "" for none.

    JSON error bodies give their message; an HTML page gives "the server answered HTTP <status> with a
    web page"; other text is quoted, trimmed to :data:`MAX_REASON` characters.
    """
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8", "replace")
    if isinstance(body, str):
        text = body.strip().lstrip("\ufeff")
        if not text:
            return ""
        if looks_like_html(text, content_type):
            return f"the server answered HTTP {status} with a web page" if status else (
                "the server answered with a web page")
        if text[:1] in "{[\"":
            try:
                body = json.loads(text)
            except ValueError:
                return one_line(text)
        else:
            return one_line(text)
    return one_line(_message_of(body))


def is_context_reason(text: str) -> bool:
    """True when a server's reason (message, code or type) says the request does not fit the context
    window: "context length", "exceeds the available context size", "n_ctx", "prompt is too long"…"""
    return bool(_CONTEXT.search(text or ""))


#: the window in a context-overflow reason: OpenAI / vLLM / llama-cpp-python ("maximum context length is 8192
#: tokens"), llama-cpp-python's own ("exceed context window of 4096"), llama.cpp ("the available context size
#: (4096 tokens)"), and a bare ``n_ctx`` field or ``n_ctx = 4096``
_WINDOW = re.compile(
    r"maximum context length (?:is|of) (\d+)"
    r"|context window of (\d+)"
    r"|context size \((\d+) tokens?\)"
    r"|\bn_ctx\b\W{0,4}(\d+)",
    re.I,
)
#: the request's size: "your messages resulted in 9000 tokens", "you requested 5000 tokens", "Requested tokens
#: (5000)", "request (5000 tokens)", "your request has 3500 input tokens"
_REQUESTED = re.compile(
    r"resulted in (\d+) tokens"
    r"|you requested (\d+) tokens"
    r"|requested tokens \((\d+)\)"
    r"|request \((\d+) tokens\)"
    r"|request has (\d+) input tokens",
    re.I,
)


def _first_number(pattern: re.Pattern[str], text: str) -> int | None:
    found = pattern.search(text or "")
    if found is None:
        return None
    value = int(next(g for g in found.groups() if g is not None))
    return value if value > 0 else None


def context_numbers(text: str) -> tuple[int | None, int | None]:
    """(the model's window, the request's tokens) as a context-overflow reason states them; None where it does
    not. "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens"
    → (8192, 9000)."""
    return _first_number(_WINDOW, text), _first_number(_REQUESTED, text)
