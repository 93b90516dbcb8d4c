"""A chat as Markdown for people: a heading per message, thinking, tool calls and tool results in collapsible
``<details>`` blocks (GitHub, GitLab, Obsidian and most viewers fold them), the branch shown of a branched chat.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from desktop_agent.core.epoch import format_epoch
from desktop_agent.core.messages import Conversation, Message, ToolCall


def fence(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks in it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def when(ts: float | None) -> str:
    return format_epoch(ts) if ts else ""


def _summary(text: str) -> str:
    """Text safe inside ``<summary>``: no HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def arguments_text(call: ToolCall) -> str:
    return json.dumps(call.arguments, ensure_ascii=False, indent=2) if call.arguments else (call.raw_arguments or "{}")


def tool_result_label(m: Message) -> str:
    bits = [b for b in (m.tool_status, f"{m.duration_ms:.0f} ms" if m.duration_ms is not None else None) if b]
    return f"Tool result: {m.tool_name or '?'}" + (f" ({', '.join(bits)})" if bits else "")


def _message(m: Message) -> list[str]:
    if m.role == "user":
        files = getattr(m, "attachments", None) or []
        attached = ["Attached: " + ", ".join(f"`{a.name}`" for a in files), ""] if files else []
        return [f"## You — {when(m.created_at)}", "", m.content, "", *attached]
    if m.role == "system" and m.kind == "summary":
        return [f"## Summary of the first {m.covers or 0} messages (sent instead of them)", "", m.content, ""]
    if m.role == "system" and m.kind != "message":  # a note about the chat ("Model: a → b")
        return [f"*{m.content}*", ""]
    if m.role == "system":
        return ["## System", "", m.content, ""]
    if m.role == "assistant":
        who = "Assistant" + (f" ({m.model})" if m.model else "")
        out = [f"## {who} — {when(m.created_at)}", ""]
        if m.thinking:
            out += ["<details><summary>Thinking</summary>", "", m.thinking, "", "</details>", ""]
        if m.content:
            out += [m.content, ""]
        for call in m.tool_calls:
            out += [f"<details><summary>Tool call: {_summary(call.name)}</summary>", "", f"id `{call.id}`", "",
                    fence(arguments_text(call), "json"), "", "</details>", ""]
        if m.status != "complete":
            out += [f"*(answer {m.status} — partial)*", ""]
        return out
    return [f"<details><summary>{_summary(tool_result_label(m))}</summary>", "", fence(m.full_content or m.content),
            "", "</details>", ""]


def chat_markdown(conv: Conversation, *, level: int = 1, other_branches: int = 0) -> list[str]:
    """The lines of one chat (``level``: its heading's level)."""
    out = ["#" * level + " " + (conv.title or conv.default_title()), ""]
    if conv.model:
        out.append(f"- Model: {conv.model}" + (f" ({conv.backend})" if conv.backend else ""))
    out.append(f"- Started: {when(conv.created_at)}")
    out.append(f"- Last message: {when(conv.updated_at)}")
    out.append(f"- Messages: {len(conv.messages)}")
    if other_branches:
        out.append(f"- Branches: this is the branch shown; {other_branches} other "
                   f"branch{'es' if other_branches != 1 else ''} in the JSON export")
    out.append("")
    for m in conv.messages:
        lines = _message(m)
        if level > 1:  # the messages' headings one level below the chat's
            lines = ["#" * (level - 1) + line if line.startswith("#") and i == 0 else line
                     for i, line in enumerate(lines)]
        out += lines
    return out


def export_markdown(conv: Conversation, *, other_branches: int = 0) -> str:
    """One chat as a Markdown document."""
    return "\n".join(chat_markdown(conv, other_branches=other_branches)).rstrip() + "\n"


def export_markdown_all(chats: Iterable[tuple[Conversation, int]]) -> str:
    """Several chats (with how many other branches each has) in one Markdown document, a heading each."""
    out = ["# Chats exported from Desktop Agent", ""]
    for conv, other in chats:
        out += chat_markdown(conv, level=2, other_branches=other)
        out += ["---", ""]
    return "\n".join(out).rstrip() + "\n"
