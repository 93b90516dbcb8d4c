"""Scripted Ollama replies (NDJSON lines for the local protocol server): text in pieces, one tool call."""

from __future__ import annotations


def tool_call_lines(name: str, arguments: dict | None = None) -> list[dict]:
    """An Ollama NDJSON reply asking for one tool call."""
    return [
        {"message": {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": name, "arguments": arguments or {}}}]}, "done": False},
        {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"},
    ]


def text_lines(pieces: list[str], thinking: str = "") -> list[dict]:
    lines: list[dict] = []
    if thinking:
        lines.append({"message": {"role": "assistant", "content": "", "thinking": thinking}, "done": False})
    lines += [{"message": {"role": "assistant", "content": p}, "done": False} for p in pieces]
    lines.append({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
    return lines
