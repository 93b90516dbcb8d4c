"""Reading a tool call's arguments, whatever form a server or a model sent them in.

:func:`parse_tool_arguments` turns a dict, a JSON string (possibly double-encoded, with raw newlines
inside strings, or followed by trailing text), ``None`` or ``""`` into ``(arguments, error)``;
:func:`make_tool_call` builds a :class:`~desktop_agent.core.messages.ToolCall` from wire values with
it. Used by the backends, the recovery of tool calls written as text and the tool registry, so it
imports no backend.
"""

from __future__ import annotations

import json
import math
from typing import Any

from desktop_agent.core.messages import ToolCall, clean_text

__all__ = ["make_tool_call", "parse_tool_arguments"]


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large for JSON")
    return value


# strict=False: models often put raw newlines or tabs inside JSON strings; those are still readable
_STRICT_JSON = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float, strict=False)


def _json_safe(value: Any) -> Any:
    """``value`` with lone surrogates in strings (and keys) replaced; raises ValueError for a
    non-finite float (NaN/Infinity are not JSON: a history holding them is refused by the server)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value} is not a JSON number")
    if isinstance(value, dict):
        return {clean_text(str(k)): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def parse_tool_arguments(raw: Any) -> tuple[dict[str, Any], str | None]:
    """Normalise tool-call arguments from any server into ``(arguments, error)``.

    Accepts a dict (Ollama; some OpenAI-compatible servers send an object instead of a string), a
    JSON string (OpenAI; some Ollama models send a string instead of an object), ``None``, ``""`` or
    the JSON text ``null`` (no arguments). A JSON object followed by trailing text is recovered with
    ``raw_decode``. Strict JSON only: ``NaN``/``Infinity`` or a number that overflows to infinity is
    an error (the history would otherwise carry them and strict servers refuse every later request).
    Lone surrogate code points in strings become U+FFFD. Anything else gives ``({}, "<why>")`` so the
    call is answered with an error and never run with guessed arguments.
    """
    if raw is None:
        return {}, None
    if isinstance(raw, dict):
        try:
            return _json_safe(dict(raw)), None
        except ValueError as exc:
            return {}, f"arguments are not valid JSON: {exc}"
    if not isinstance(raw, str):
        return {}, f"arguments must be a JSON object, got {type(raw).__name__}"
    text = raw.strip()
    if not text:
        return {}, None
    try:
        value = _STRICT_JSON.decode(text)
    except ValueError as exc:
        try:
            value, _end = _STRICT_JSON.raw_decode(text)
        except ValueError:
            return {}, f"arguments are not valid JSON: {exc}"
    if isinstance(value, str):
        # double-encoded: "{\"city\": \"Paris\"}"
        return parse_tool_arguments(value)
    if value is None:
        return {}, None
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}"
    try:
        return _json_safe(value), None
    except ValueError as exc:  # pragma: no cover - the decoder already refused these
        return {}, f"arguments are not valid JSON: {exc}"


def make_tool_call(name: str, raw_arguments: Any, call_id: str | None = None) -> ToolCall:
    """A :class:`ToolCall` from wire values: parses arguments, assigns an id when the server sent an
    empty one or none."""
    arguments, error = parse_tool_arguments(raw_arguments)
    kwargs: dict[str, Any] = {"name": clean_text(name or ""), "arguments": arguments}
    if call_id:
        kwargs["id"] = call_id
    if error is not None:
        kwargs["raw_arguments"] = clean_text(raw_arguments if isinstance(raw_arguments, str) else repr(raw_arguments))
        kwargs["arguments_error"] = error
    return ToolCall(**kwargs)
